/*
 * feed-mkdata - write a deterministic synthetic JPEG dataset in ImageFolder
 * layout, for tests and benchmarks.
 *
 *   feed-mkdata --out DIR --count N --seed S [--classes K] [--image FMT] [--quiet]
 *               [--format folder|tar] [--shard-size M]
 *
 * DIR/class_000/img_000000.jpg ... plus DIR/files.txt ("class_000/img_000000.jpg 0"
 * per line, label = index of the class folder in sorted order). Image i goes to
 * class i % K and depends only on (seed, i, K), so a smaller --count writes a
 * prefix of a larger one. The same arguments give the same bytes (for one
 * build of this program and of libjpeg-turbo).
 *
 * --format tar writes the same images as WebDataset shards instead:
 * DIR/shard-000000.tar ... with M samples each (the last one fewer), sample i
 * as members img_XXXXXX.jpg and img_XXXXXX.cls (its label as decimal text),
 * in the order of i, and DIR/shards.txt listing the shards (a libfeed source).
 *
 * What the images look like, so that decode and resize cost what they cost on
 * photographs rather than on flat colour or white noise:
 *  - sizes like ImageNet's: shorter side 300..500 px for 85% of images, up to
 *    1000 for the rest; aspect 3:4..4:3, landscape twice as often as portrait;
 *  - a 1/f texture: white noise summed over octaves, each upsampled by cubic
 *    B-spline subdivision (a Laplacian pyramid run backwards). Noise on a grid
 *    of cell 2^k has power density ~ a_k^2 4^k at frequency ~ 2^-k, so equal
 *    amplitude per octave gives the 1/f^2 power (1/f amplitude) spectrum of
 *    natural images; a_k = 2^(k*beta), beta in [-0.05, 0.3], varies the slope
 *    a little. Costs about 1.3 upsamples per pixel;
 *  - a sky gradient over hilly ground, clutter shapes, thin "branches", and a
 *    foreground object whose hue and shape depend on the class (so labels are
 *    learnable, a little), all with hard edges, their own shading and texture;
 *  - smooth colour and illumination variations;
 *  - quality 85..95, 4:2:0; about 5% progressive and 3% greyscale.
 *
 * --image png|webp|mixed writes the same pictures as PNG (libspng, RGB 8-bit,
 * zlib's default level) or lossy WebP (libwebp, the JPEG's quality), or
 * image i as JPEG, PNG, WebP for i % 3 = 0, 1, 2 (mixed), with the matching
 * extension; greyscale and progressive apply to the JPEGs only.
 *
 * The parts are listed in mkdata.h.
 */
#include <stdio.h>
#include <time.h>

#include "mkdata.h"

/* Image i, of class c: drawn, painted, encoded, written. 0, or -1 after saying why. */
static int make_image(const mk_options *o, uint64_t i, uint64_t c, image *im, field_ws *ws,
                      mk_encoder *enc, mk_output *out)
{
    rng r = {mix64(o->seed ^ mix64(i + 0x632be59bd9b4e019ull)) ^ (o->classes << 48)};
    spec sp;
    mk_draw_spec(&r, &sp);
    im->w = sp.w;
    im->h = sp.h;
    mk_render(im, &r, (int)c, (int)o->classes, ws);
    if (mk_output_target(out, im)) {
        fprintf(stderr, PROG ": out of memory\n");
        return -1;
    }
    int fmt = o->image_fmt == IMG_MIXED ? (int)(i % 3) : o->image_fmt;
    mk_encoded bytes;
    if (mk_encode(enc, im, &sp, fmt, i, &bytes))
        return -1;
    int rc = mk_output_image(out, i, c, &bytes);
    mk_encoded_free(&bytes);
    return rc;
}

int main(int argc, char **argv)
{
    mk_options o = {0};
    int rc = mk_options_parse(&o, argc, argv);
    if (rc >= 0)
        return rc;

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    mk_output out;
    if (mk_output_open(&out, &o))
        return 1;
    rc = 1;
    image im = {0};
    field_ws ws = {0};
    mk_encoder enc;
    int canvas = mk_canvas_alloc(&im, &ws), encoder = mk_encoder_init(&enc);
    if (canvas || encoder || !out.list) {
        fprintf(stderr, PROG ": out of memory\n");
        goto done;
    }
    /* Folders: classes outer, images inner, so files.txt comes out sorted
     * like ImageFolder's scan. Shards: images in order (classes mixed). */
    for (uint64_t cc = 0; cc < (o.tar ? 1 : o.classes); cc++)
        for (uint64_t i = o.tar ? 0 : cc; i < o.count; i += o.tar ? 1 : o.classes)
            if (make_image(&o, i, o.tar ? i % o.classes : cc, &im, &ws, &enc, &out))
                goto done;
    if (mk_output_finish(&out))
        goto done;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!o.quiet)
        printf(PROG ": %llu images in %llu classes, %.1f MB, %.2f s -> %.*s\n",
               (unsigned long long)o.count, (unsigned long long)o.classes, out.total_bytes / 1e6,
               (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
               (int)o.outlen, o.out);
    rc = 0;
done:
    mk_output_close(&out);
    mk_encoder_free(&enc);
    mk_canvas_free(&im, &ws);
    return rc;
}

/*
 * test_mkdata.c - the dataset generator, run as a program ($FEED_BIN/feed-mkdata):
 * layout and files.txt, every JPEG valid and of the promised kind and size,
 * byte-identical reruns, argument and I/O errors, --image png|webp|mixed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <spng.h>
#include <turbojpeg.h>
#include <webp/decode.h>

extern char **environ;

static char tool[4096];
static char tmpdir[4096];

/* ---- helpers ------------------------------------------------------------------ */

static void pathf(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pathf(char *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, 4096, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && n < 4096);
}

/* Runs the tool with args (NULL-terminated); stdout and stderr go to
 * tmpdir/out.txt and tmpdir/err.txt. Returns the exit status, -1 if killed. */
static int run(const char *arg0, ...)
{
    const char *argv[32];
    int n = 0;
    argv[n++] = tool;
    va_list ap;
    va_start(ap, arg0);
    for (const char *a = arg0; a && n < 31; a = va_arg(ap, const char *))
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;

    char out[4096], err[4096];
    pathf(out, "%s/out.txt", tmpdir);
    pathf(err, "%s/err.txt", tmpdir);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, tool, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    assert_int_equal(rc, 0);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        assert_int_equal(errno, EINTR);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *p = malloc((size_t)n + 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    p[n] = 0;
    *len = (size_t)n;
    return p;
}

static char *slurp_text(const char *name)
{
    char p[4096];
    size_t n;
    pathf(p, "%s/%s", tmpdir, name);
    return (char *)slurp(p, &n);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(p);
}

static void rm_rf(const char *p)
{
    nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in dir (no dot entries); caller frees. */
static int list_dir(const char *dir, char ***names)
{
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("%s: %s", dir, strerror(errno));
    int n = 0, cap = 16;
    char **v = malloc(sizeof *v * cap);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap)
            v = realloc(v, sizeof *v * (cap *= 2));
        v[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof *v, cmp_str);
    *names = v;
    return n;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The frame type from the first SOFn marker: 0xc0 baseline, 0xc2 progressive... */
static int sof_marker(const uint8_t *p, size_t n)
{
    if (n < 4 || p[0] != 0xff || p[1] != 0xd8)
        return -1;
    size_t i = 2;
    while (i + 4 <= n) {
        if (p[i] != 0xff)
            return -1;
        int m = p[i + 1];
        if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc)
            return m;
        i += 2 + ((size_t)p[i + 2] << 8 | p[i + 3]);
    }
    return -1;
}

typedef struct info {
    int w, h, subsamp, sof;
    double std, corr; /* luma standard deviation, correlation of horizontal neighbours */
    double redness;   /* mean of R - (G + B) / 2 */
} info;

/* Decodes fully (warnings count as failures) and measures the picture. */
static info examine(const char *path)
{
    size_t n;
    uint8_t *jpg = slurp(path, &n);
    info in = {0};
    tjhandle tj = tjInitDecompress();
    int cs;
    if (tjDecompressHeader3(tj, jpg, (unsigned long)n, &in.w, &in.h, &in.subsamp, &cs) != 0)
        fail_msg("%s: %s", path, tjGetErrorStr2(tj));
    in.sof = sof_marker(jpg, n);
    uint8_t *rgb = malloc((size_t)in.w * in.h * 3);
    if (tjDecompress2(tj, jpg, (unsigned long)n, rgb, in.w, 0, in.h, TJPF_RGB, 0) != 0)
        fail_msg("%s: %s", path, tjGetErrorStr2(tj));
    double s = 0, s2 = 0, sxy = 0, red = 0;
    size_t np = 0, nc = 0;
    for (int y = 0; y < in.h; y++) {
        const uint8_t *row = rgb + (size_t)y * in.w * 3;
        double prev = 0;
        for (int x = 0; x < in.w; x++) {
            const uint8_t *px = row + 3 * x;
            double l = 0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2];
            s += l;
            s2 += l * l;
            red += px[0] - 0.5 * (px[1] + px[2]);
            if (x) {
                sxy += l * prev;
                nc++;
            }
            prev = l;
            np++;
        }
    }
    double mean = s / np, var = s2 / np - mean * mean;
    in.std = sqrt(var);
    in.corr = var > 0 ? (sxy / nc - mean * mean) / var : 0;
    in.redness = red / np;
    free(rgb);
    tjDestroy(tj);
    free(jpg);
    return in;
}

/* Parses files.txt of dir: checks each line's shape; returns the lines. */
typedef struct entry {
    char rel[64];
    unsigned cls, idx, label;
} entry;

static int read_list(const char *dir, entry **out)
{
    char p[4096];
    size_t n;
    pathf(p, "%s/files.txt", dir);
    char *text = (char *)slurp(p, &n);
    assert_true(n > 0 && text[n - 1] == '\n');
    int cnt = 0, cap = 64;
    entry *v = malloc(sizeof *v * cap);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (cnt == cap)
            v = realloc(v, sizeof *v * (cap *= 2));
        entry *e = &v[cnt++];
        int used = 0;
        char ext[8] = "";
        if (sscanf(line, "class_%3u/img_%6u.%4[a-z] %u%n", &e->cls, &e->idx, ext, &e->label, &used) != 4 ||
            line[used] != 0 || (strcmp(ext, "jpg") && strcmp(ext, "png") && strcmp(ext, "webp")))
            fail_msg("bad files.txt line '%s'", line);
        snprintf(e->rel, sizeof e->rel, "%.*s", (int)strcspn(line, " "), line);
        char want[64];
        snprintf(want, sizeof want, "class_%03u/img_%06u.%s", e->cls, e->idx, ext);
        assert_string_equal(e->rel, want);
        assert_int_equal(e->label, e->cls); /* label = index of the sorted class folder */
    }
    free(text);
    *out = v;
    return cnt;
}

static int same_file(const char *a, const char *b)
{
    size_t na, nb;
    uint8_t *pa = slurp(a, &na), *pb = slurp(b, &nb);
    int same = na == nb && memcmp(pa, pb, na) == 0;
    free(pa);
    free(pb);
    return same;
}

/* ---- fixture ------------------------------------------------------------------ */

static int group_setup(void **state)
{
    const char *bin = getenv("FEED_BIN");
    snprintf(tool, sizeof tool, "%s/feed-mkdata", bin && *bin ? bin : "build/bin");
    if (access(tool, X_OK) != 0) {
        fprintf(stderr, "%s: %s (set FEED_BIN to the build's bin folder)\n", tool,
                strerror(errno));
        return -1;
    }
    const char *base = getenv("FEED_TEST_TMP");
    if (!base || !*base)
        base = "/tmp";
    mkdir(base, 0755);
    snprintf(tmpdir, sizeof tmpdir, "%s/mkdata.XXXXXX", base);
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "mkdtemp %s: %s\n", tmpdir, strerror(errno));
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    rm_rf(tmpdir);
    if (access(tmpdir, F_OK) == 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return 0;
}

/* ---- tests ---------------------------------------------------------------------- */

#define N_SMALL 40
#define K_SMALL 4

/* The layout, files.txt against the disk, and every image. */
static void test_layout_and_images(void **state)
{
    char dir[4096], p[4096];
    pathf(dir, "%s/a", tmpdir);
    assert_int_equal(run("--out", dir, "--count", "40", "--seed", "7", "--classes", "4", NULL),
                     0);
    char *out = slurp_text("out.txt");
    assert_non_null(strstr(out, "40 images"));
    assert_non_null(strstr(out, " MB"));
    free(out);

    entry *e;
    int n = read_list(dir, &e);
    assert_int_equal(n, N_SMALL);
    int seen[N_SMALL] = {0}, per_class[K_SMALL] = {0};
    for (int i = 0; i < n; i++) {
        if (i)
            assert_true(strcmp(e[i - 1].rel, e[i].rel) < 0); /* sorted, no duplicates */
        assert_true(e[i].idx < N_SMALL);
        assert_true(e[i].cls < K_SMALL);
        assert_int_equal(e[i].cls, e[i].idx % K_SMALL); /* image i is in class i % K */
        seen[e[i].idx]++;
        per_class[e[i].cls]++;
    }
    for (int i = 0; i < N_SMALL; i++)
        assert_int_equal(seen[i], 1);
    for (int c = 0; c < K_SMALL; c++)
        assert_int_equal(per_class[c], N_SMALL / K_SMALL);

    /* the disk holds exactly that: K folders and files.txt; no temporaries */
    char **top;
    int ntop = list_dir(dir, &top);
    assert_int_equal(ntop, K_SMALL + 1);
    for (int c = 0; c < K_SMALL; c++) {
        char want[32];
        snprintf(want, sizeof want, "class_%03d", c);
        assert_string_equal(top[c], want);
        char **files;
        pathf(p, "%s/%s", dir, top[c]);
        int nf = list_dir(p, &files);
        assert_int_equal(nf, per_class[c]);
        int k = 0;
        for (int i = 0; i < n; i++) {
            if ((int)e[i].cls != c)
                continue;
            assert_string_equal(files[k], strchr(e[i].rel, '/') + 1);
            k++;
        }
        free_list(files, nf);
    }
    assert_string_equal(top[K_SMALL], "files.txt");
    free_list(top, ntop);

    /* every image decodes cleanly, at the promised sizes, and looks like a photo:
     * neighbours correlated (white noise would give ~0), not flat */
    int sizes_big = 0;
    for (int i = 0; i < n; i++) {
        pathf(p, "%s/%s", dir, e[i].rel);
        info in = examine(p);
        int lo = in.w < in.h ? in.w : in.h, hi = in.w < in.h ? in.h : in.w;
        assert_in_range(lo, 300, 750);
        assert_true(hi <= 1000);
        assert_true((double)hi / lo <= 4.0 / 3.0 + 0.01);
        assert_true(in.subsamp == TJSAMP_420 || in.subsamp == TJSAMP_GRAY);
        assert_true(in.sof == 0xc0 || in.sof == 0xc2);
        assert_true(in.std > 15.0);
        assert_true(in.corr > 0.6);
        sizes_big += lo > 500;
    }
    assert_true(sizes_big < n / 2); /* mostly 300..500 */
    free(e);
}

/* The same seed gives the same bytes (also when rewriting in place); another
 * seed gives different images. */
static void test_deterministic(void **state)
{
    char a[4096], b[4096], c[4096], pa[4096], pb[4096];
    pathf(a, "%s/da", tmpdir);
    pathf(b, "%s/db", tmpdir);
    pathf(c, "%s/dc", tmpdir);
    assert_int_equal(run("--out", a, "--count", "24", "--seed", "99", "--classes", "3", "--quiet",
                         NULL),
                     0);
    char *out = slurp_text("out.txt");
    assert_string_equal(out, ""); /* --quiet */
    free(out);
    assert_int_equal(run("--out", b, "--count=24", "--seed=99", "--classes=3", "--quiet", NULL),
                     0);
    assert_int_equal(run("--out", c, "--count", "24", "--seed", "100", "--classes", "3",
                         "--quiet", NULL),
                     0);
    entry *e;
    int n = read_list(a, &e);
    assert_int_equal(n, 24);
    pathf(pa, "%s/files.txt", a);
    pathf(pb, "%s/files.txt", b);
    assert_true(same_file(pa, pb));
    pathf(pb, "%s/files.txt", c);
    assert_true(same_file(pa, pb)); /* names and labels do not depend on the seed */
    for (int i = 0; i < n; i++) {
        pathf(pa, "%s/%s", a, e[i].rel);
        pathf(pb, "%s/%s", b, e[i].rel);
        assert_true(same_file(pa, pb));
        pathf(pb, "%s/%s", c, e[i].rel);
        assert_false(same_file(pa, pb));
    }
    /* rewrite a in place: the same bytes again; and a smaller count is a prefix */
    assert_int_equal(run("--out", a, "--count", "24", "--seed", "99", "--classes", "3", "--quiet",
                         NULL),
                     0);
    assert_int_equal(run("--out", c, "--count", "12", "--seed", "99", "--classes", "3", "--quiet",
                         NULL),
                     0);
    for (int i = 0; i < n; i++) {
        pathf(pa, "%s/%s", a, e[i].rel);
        pathf(pb, "%s/%s", b, e[i].rel);
        assert_true(same_file(pa, pb));
        if (e[i].idx < 12) {
            pathf(pb, "%s/%s", c, e[i].rel);
            assert_true(same_file(pa, pb));
        }
    }
    free(e);
    rm_rf(a);
    rm_rf(b);
    rm_rf(c);
}

/* Some images are greyscale and some progressive, as the decoder sees them. */
static void test_grey_and_progressive(void **state)
{
    char dir[4096], p[4096];
    pathf(dir, "%s/g", tmpdir);
    /* 200 images: with 3% grey and 5% progressive, both appear for this seed
     * (checked on the decoded files below, not assumed) */
    assert_int_equal(run("--out", dir, "--count", "200", "--seed", "1", "--quiet", NULL), 0);
    entry *e;
    int n = read_list(dir, &e);
    assert_int_equal(n, 200);
    int grey = 0, prog = 0, quarters[4] = {0};
    for (int i = 0; i < n; i++) {
        pathf(p, "%s/%s", dir, e[i].rel);
        info in = examine(p);
        grey += in.subsamp == TJSAMP_GRAY;
        prog += in.sof == 0xc2;
        assert_true(in.sof == 0xc0 || in.sof == 0xc2);
        assert_true(in.subsamp == TJSAMP_420 || in.subsamp == TJSAMP_GRAY);
        if (in.subsamp == TJSAMP_GRAY)
            assert_true(fabs(in.redness) < 1.0);
        int lo = in.w < in.h ? in.w : in.h;
        quarters[lo <= 350 ? 0 : lo <= 425 ? 1 : lo <= 500 ? 2 : 3]++;
    }
    fprintf(stderr, "200 images: %d greyscale, %d progressive; shorter side <=350: %d, "
                    "<=425: %d, <=500: %d, >500: %d\n",
            grey, prog, quarters[0], quarters[1], quarters[2], quarters[3]);
    assert_in_range(grey, 1, 20);
    assert_in_range(prog, 1, 25);
    assert_true(quarters[3] >= 10 && quarters[3] <= 60); /* ~15% above 500 */
    free(e);
    rm_rf(dir);
}

/* The class shows in the colour: class 0 (hue 0, red) is redder on average
 * than class 1 (hue 180, cyan). */
static void test_class_hue(void **state)
{
    char dir[4096], p[4096];
    pathf(dir, "%s/h", tmpdir);
    assert_int_equal(run("--out", dir, "--count", "40", "--seed", "3", "--classes", "2",
                         "--quiet", NULL),
                     0);
    entry *e;
    int n = read_list(dir, &e);
    double red[2] = {0, 0};
    int cnt[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        pathf(p, "%s/%s", dir, e[i].rel);
        info in = examine(p);
        red[e[i].cls] += in.redness;
        cnt[e[i].cls]++;
    }
    assert_int_equal(cnt[0], 20);
    assert_int_equal(cnt[1], 20);
    fprintf(stderr, "mean redness: class 0 %.2f, class 1 %.2f\n", red[0] / 20, red[1] / 20);
    assert_true(red[0] / 20 > red[1] / 20 + 3.0);
    free(e);
    rm_rf(dir);
}

static void expect_usage(int rc)
{
    assert_int_equal(rc, 2);
    char *err = slurp_text("err.txt");
    assert_non_null(strstr(err, "usage: feed-mkdata"));
    assert_non_null(strstr(err, "feed-mkdata: ")); /* the reason comes first */
    free(err);
}

/* RGB of a file, by its own codec's library (TurboJPEG, libspng, libwebp). */
static uint8_t *decode_rgb(const uint8_t *p, size_t n, int *w, int *h)
{
    if (n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8)) {
        spng_ctx *c = spng_ctx_new(0);
        struct spng_ihdr ih;
        size_t len;
        assert_int_equal(spng_set_png_buffer(c, p, n), 0);
        assert_int_equal(spng_get_ihdr(c, &ih), 0);
        assert_int_equal(spng_decoded_image_size(c, SPNG_FMT_RGB8, &len), 0);
        uint8_t *rgb = malloc(len);
        assert_int_equal(spng_decode_image(c, rgb, len, SPNG_FMT_RGB8, 0), 0);
        spng_ctx_free(c);
        *w = (int)ih.width, *h = (int)ih.height;
        return rgb;
    }
    if (n >= 12 && !memcmp(p, "RIFF", 4) && !memcmp(p + 8, "WEBP", 4)) {
        uint8_t *q = WebPDecodeRGB(p, n, w, h);
        assert_non_null(q);
        uint8_t *rgb = malloc((size_t)*w * *h * 3);
        memcpy(rgb, q, (size_t)*w * *h * 3);
        WebPFree(q);
        return rgb;
    }
    tjhandle tj = tjInitDecompress();
    int ss, cs;
    assert_int_equal(tjDecompressHeader3(tj, p, (unsigned long)n, w, h, &ss, &cs), 0);
    uint8_t *rgb = malloc((size_t)*w * *h * 3);
    assert_int_equal(tjDecompress2(tj, p, (unsigned long)n, rgb, *w, 0, *h, TJPF_RGB, 0), 0);
    tjDestroy(tj);
    return rgb;
}

/* --image png|webp|mixed: each file's bytes are its extension's format,
 * the same picture as the JPEG of that index (a PNG is lossless, so within
 * the JPEG's error; a WebP within its own), and mixed takes image i from the
 * format i % 3's run byte for byte. */
static void test_image_formats(void **state)
{
    static const char *const fmts[4] = {"jpeg", "png", "webp", "mixed"};
    static const char *const ext[3] = {".jpg", ".png", ".webp"};
    char d[4][4096], pa[4096], pb[4096];
    for (int f = 0; f < 4; f++) {
        pathf(d[f], "%s/fmt_%s", tmpdir, fmts[f]);
        assert_int_equal(run("--out", d[f], "--count", "9", "--seed", "3", "--classes", "1",
                             "--image", fmts[f], "--quiet", NULL),
                         0);
    }
    entry *e[4];
    for (int f = 0; f < 4; f++)
        assert_int_equal(read_list(d[f], &e[f]), 9);
    for (int i = 0; i < 9; i++) {
        unsigned idx = e[3][i].idx;
        int k = (int)(idx % 3);
        for (int f = 0; f < 3; f++) {
            assert_int_equal(e[f][i].idx, idx);
            const char *dot = strrchr(e[f][i].rel, '.');
            assert_string_equal(dot, ext[f]);
        }
        assert_string_equal(strrchr(e[3][i].rel, '.'), ext[k]);
        pathf(pa, "%s/%s", d[3], e[3][i].rel);
        pathf(pb, "%s/%s", d[k], e[k][i].rel);
        assert_true(same_file(pa, pb));
        int w[3], h[3];
        uint8_t *rgb[3];
        for (int f = 0; f < 3; f++) {
            size_t n;
            pathf(pa, "%s/%s", d[f], e[f][i].rel);
            uint8_t *p = slurp(pa, &n);
            rgb[f] = decode_rgb(p, n, &w[f], &h[f]);
            free(p);
        }
        assert_true(w[0] == w[1] && w[1] == w[2] && h[0] == h[1] && h[1] == h[2]);
        for (int f = 1; f < 3; f++) {
            double sum = 0;
            size_t np = (size_t)w[0] * h[0] * 3;
            for (size_t j = 0; j < np; j++)
                sum += abs((int)rgb[f][j] - (int)rgb[0][j]);
            if (sum / np >= 8.0)
                fail_msg("image %u: %s differs from the JPEG by %.2f on average", idx, fmts[f],
                         sum / np);
        }
        for (int f = 0; f < 3; f++)
            free(rgb[f]);
    }
    for (int f = 0; f < 4; f++) {
        free(e[f]);
        rm_rf(d[f]);
    }
    pathf(pa, "%s/never", tmpdir);
    expect_usage(run("--out", pa, "--count", "5", "--seed", "1", "--image", "gif", NULL));
}

/* --targets: DIR/targets.npy holds, row r for line r of files.txt, the mean
 * R, G, B / 255 of that image; with PNG (lossless) the test's own mean of
 * the decoded file is the same float. */
static void test_targets_file(void **state)
{
    char d[4096], p[4096];
    pathf(d, "%s/targets", tmpdir);
    assert_int_equal(run("--out", d, "--count", "7", "--seed", "5", "--classes", "3", "--image", "png",
                         "--targets", "--quiet", NULL),
                     0);
    entry *e;
    assert_int_equal(read_list(d, &e), 7);
    pathf(p, "%s/targets.npy", d);
    size_t n;
    uint8_t *npy = slurp(p, &n);
    assert_non_null(npy);
    assert_memory_equal(npy, "\x93NUMPY\x01\x00", 8);
    size_t hlen = npy[8] | (size_t)npy[9] << 8;
    assert_int_equal((10 + hlen) % 64, 0);
    assert_non_null(strstr((const char *)npy + 10, "'descr': '<f4', 'fortran_order': False, 'shape': (7, 3)"));
    assert_int_equal(n, 10 + hlen + 7 * 3 * 4);
    for (int i = 0; i < 7; i++) {
        pathf(p, "%s/%s", d, e[i].rel);
        size_t len;
        uint8_t *png = slurp(p, &len);
        int w, h;
        uint8_t *rgb = decode_rgb(png, len, &w, &h);
        double s[3] = {0, 0, 0};
        for (size_t q = 0; q < (size_t)w * h; q++)
            for (int c = 0; c < 3; c++)
                s[c] += rgb[q * 3 + c];
        for (int c = 0; c < 3; c++) {
            float want = (float)(s[c] / (255.0 * (double)w * h)), got;
            memcpy(&got, npy + 10 + hlen + (i * 3 + c) * 4, 4);
            assert_true(got == want);
        }
        free(rgb), free(png);
    }
    free(npy), free(e);
}

static void test_bad_args(void **state)
{
    char dir[4096];
    pathf(dir, "%s/never", tmpdir);
    expect_usage(run(NULL));
    expect_usage(run("--out", dir, NULL));
    expect_usage(run("--out", dir, "--count", "5", NULL));
    expect_usage(run("--count", "5", "--seed", "1", NULL));
    expect_usage(run("--out", dir, "--count", "0", "--seed", "1", NULL));
    expect_usage(run("--out", dir, "--count", "abc", "--seed", "1", NULL));
    expect_usage(run("--out", dir, "--count", "-5", "--seed", "1", NULL));
    expect_usage(run("--out", dir, "--count", "5x", "--seed", "1", NULL));
    expect_usage(run("--out", dir, "--count", "5", "--seed", "one", NULL));
    expect_usage(run("--out", dir, "--count", "5", "--seed", "1", "--classes", "0", NULL));
    expect_usage(run("--out", dir, "--count", "2000", "--seed", "1", "--classes", "1001", NULL));
    expect_usage(run("--out", dir, "--count", "3", "--seed", "1", "--classes", "10", NULL));
    expect_usage(run("--out", dir, "--count", "5", "--seed", "1", "--bogus", NULL));
    expect_usage(run("--out", dir, "--count", "5", "--seed", NULL));
    expect_usage(run("--out", "", "--count", "5", "--seed", "1", NULL));
    char *err = slurp_text("err.txt");
    assert_non_null(strstr(err, "--out"));
    free(err);
    assert_int_equal(access(dir, F_OK), -1); /* nothing was created */

    assert_int_equal(run("--help", NULL), 0);
    char *out = slurp_text("out.txt");
    assert_non_null(strstr(out, "usage: feed-mkdata"));
    free(out);
}

static void test_io_errors(void **state)
{
    char file[4096], dir[4096];
    pathf(file, "%s/plainfile", tmpdir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    /* --out below a regular file: ENOTDIR, with the path */
    pathf(dir, "%s/sub", file);
    assert_int_equal(run("--out", dir, "--count", "2", "--seed", "1", "--classes", "1", NULL), 1);
    char *err = slurp_text("err.txt");
    assert_non_null(strstr(err, file));
    assert_non_null(strstr(err, strerror(ENOTDIR)));
    assert_null(strstr(err, "usage:"));
    free(err);
    /* --out is a regular file */
    assert_int_equal(run("--out", file, "--count", "2", "--seed", "1", "--classes", "1", NULL), 1);
    err = slurp_text("err.txt");
    assert_non_null(strstr(err, file));
    assert_non_null(strstr(err, strerror(ENOTDIR)));
    free(err);
    /* a class folder is taken by a file */
    pathf(dir, "%s/cls", tmpdir);
    assert_int_equal(mkdir(dir, 0755), 0);
    pathf(file, "%s/class_001", dir);
    f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(run("--out", dir, "--count", "4", "--seed", "1", "--classes", "2", NULL), 1);
    err = slurp_text("err.txt");
    assert_non_null(strstr(err, file));
    free(err);
    rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_and_images), cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_grey_and_progressive), cmocka_unit_test(test_class_hue),
        cmocka_unit_test(test_bad_args), cmocka_unit_test(test_io_errors),
        cmocka_unit_test(test_image_formats), cmocka_unit_test(test_targets_file),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

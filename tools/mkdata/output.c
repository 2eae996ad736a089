/*
 * output.c - the dataset on disk. Folders: DIR/class_XXX/img_XXXXXX.EXT, one
 * file per image, and DIR/files.txt ("class_XXX/img_XXXXXX.jpg LABEL" per
 * image, in the order given). Shards: DIR/shard-NNNNNN.tar with M samples
 * each, sample i as img_XXXXXX.EXT and img_XXXXXX.cls (its label as
 * decimal text), and DIR/shards.txt listing the shards. With --multi-label L,
 * each image's labels are its class and up to L - 1 others (mk_labels).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkdata.h"

static const char *const ext[3] = {"jpg", "png", "webp"}; /* by IMG_* */

/* Image i's labels as text into buf: its class c, and with --multi-label L
 * 0..L-1 more distinct classes, how many and which drawn from (seed, i).
 * Returns the length. */
static int mk_labels(const mk_options *o, uint64_t i, uint64_t c, char *buf, size_t cap)
{
    int len = snprintf(buf, cap, "%u", (unsigned)c);
    if (o->multi_label <= 1)
        return len;
    rng r = {mix64(o->seed ^ mix64(i ^ 0x5bd1e9955bd1e995ull))};
    uint64_t want = rnext(&r) % o->multi_label, have[MAX_LABELS] = {c}, n = 1;
    if (want > o->classes - 1)
        want = o->classes - 1;
    while (n < want + 1) {
        uint64_t l = rnext(&r) % o->classes, k = 0;
        while (k < n && have[k] != l)
            k++;
        if (k < n)
            continue; /* taken: draw again (want < classes, so one is left) */
        have[n++] = l;
        len += snprintf(buf + len, cap - (size_t)len, " %u", (unsigned)l);
    }
    return len;
}

int mk_output_open(mk_output *w, const mk_options *o)
{
    int e;
    memset(w, 0, sizeof *w);
    w->o = o;
    if (o->outlen > 4000) {
        fprintf(stderr, PROG ": %s: %s\n", o->out, strerror(ENAMETOOLONG));
        return 1;
    }
    snprintf(w->path, sizeof w->path, "%.*s", (int)o->outlen, o->out);
    if ((e = mk_make_dirs(w->path))) {
        fprintf(stderr, PROG ": %s: %s\n", w->path, strerror(e));
        return 1;
    }
    for (uint64_t c = 0; c < o->classes && !o->tar; c++) {
        snprintf(w->path, sizeof w->path, "%.*s/class_%03u", (int)o->outlen, o->out, (unsigned)c);
        if ((e = mk_make_dir(w->path))) {
            fprintf(stderr, PROG ": %s: %s\n", w->path, strerror(e));
            return 1;
        }
    }
    w->digits = 6;
    for (uint64_t m = 1000000; m < o->count; m *= 10)
        w->digits++;
    w->listcap = (size_t)o->count * (size_t)(w->digits + 32 + 5 * MAX_LABELS);
    w->list = malloc(w->listcap);
    return 0;
}

/* Image i: a member of the current shard, which it opens when it is the
 * shard's first; its label another. */
static int shard_image(mk_output *w, uint64_t i, uint64_t c, const mk_encoded *enc)
{
    const mk_options *o = w->o;
    char rel[64], lab[8 * MAX_LABELS];
    int e;
    if (i % o->shard_size == 0 && ((e = mk_shard_close(&w->sw)) ||
                                   (e = mk_shard_open(&w->sw, o->out, (int)o->outlen,
                                                      i / o->shard_size)))) {
        fprintf(stderr, PROG ": %s: %s\n", w->sw.path, strerror(e));
        return -1;
    }
    if (i % o->shard_size == 0)
        w->listlen += (size_t)snprintf(w->list + w->listlen, w->listcap - w->listlen,
                                       "shard-%06llu.tar\n",
                                       (unsigned long long)(i / o->shard_size));
    snprintf(rel, sizeof rel, "img_%0*u.%s", w->digits & 15, (unsigned)i % 1000000000u,
             ext[enc->fmt]);
    mk_shard_member(&w->sw, rel, enc->bytes, enc->size);
    snprintf(rel, sizeof rel, "img_%0*u.cls", w->digits & 15, (unsigned)i % 1000000000u);
    int lablen = mk_labels(o, i, c, lab, sizeof lab);
    mk_shard_member(&w->sw, rel, lab, (size_t)lablen);
    if (o->meta) { /* a caption whose length varies with i, and a JSON record holding it */
        static const char *const words[] = {"a", "synthetic", "scene", "with", "edges", "and", "colour", "regions"};
        char cap[256], js[512];
        int cl = snprintf(cap, sizeof cap, "image %u of class %u:", (unsigned)i, (unsigned)c);
        for (uint64_t k = 0; k < 1 + (i * 7) % 24; k++)
            cl += snprintf(cap + cl, sizeof cap - (size_t)cl, " %s", words[(i + k) % 8]);
        int jl = snprintf(js, sizeof js, "{\"id\": %u, \"class\": %u, \"bytes\": %lu, \"caption\": \"%s\"}",
                          (unsigned)i, (unsigned)c, enc->size, cap);
        snprintf(rel, sizeof rel, "img_%0*u.json", w->digits & 15, (unsigned)i % 1000000000u);
        mk_shard_member(&w->sw, rel, js, (size_t)jl);
        snprintf(rel, sizeof rel, "img_%0*u.txt", w->digits & 15, (unsigned)i % 1000000000u);
        mk_shard_member(&w->sw, rel, cap, (size_t)cl);
    }
    return 0;
}

/* Image i: its file in its class's folder, and its line of files.txt. */
static int folder_image(mk_output *w, uint64_t i, uint64_t c, const mk_encoded *enc)
{
    const mk_options *o = w->o;
    char rel[64];
    snprintf(rel, sizeof rel, "class_%03u/img_%0*u.%s", (unsigned)c % 1000u, w->digits & 15,
             (unsigned)i % 1000000000u, ext[enc->fmt]);
    snprintf(w->path, sizeof w->path, "%.*s/%s", (int)o->outlen, o->out, rel);
    int e = mk_write_atomic(w->path, enc->bytes, enc->size);
    if (e) {
        fprintf(stderr, PROG ": %s: %s\n", w->path, strerror(e));
        return -1;
    }
    char lab[8 * MAX_LABELS];
    mk_labels(o, i, c, lab, sizeof lab);
    w->listlen += (size_t)snprintf(w->list + w->listlen, w->listcap - w->listlen, "%s %s\n", rel, lab);
    return 0;
}

int mk_output_image(mk_output *w, uint64_t i, uint64_t c, const mk_encoded *enc)
{
    int rc = w->o->tar ? shard_image(w, i, c, enc) : folder_image(w, i, c, enc);
    if (!rc)
        w->total_bytes += (double)enc->size;
    return rc;
}

int mk_output_target(mk_output *w, const image *im)
{
    if (!w->o->targets)
        return 0;
    if (!w->targets && !(w->targets = calloc(w->o->count, 3 * sizeof(float))))
        return -1;
    double s[3] = {0, 0, 0};
    size_t n = (size_t)im->w * im->h;
    for (size_t p = 0; p < n; p++)
        for (int c = 0; c < 3; c++)
            s[c] += im->rgb[p * 3 + c];
    for (int c = 0; c < 3; c++)
        w->targets[w->ntargets * 3 + c] = (float)(s[c] / (255.0 * (double)n));
    w->ntargets++;
    return 0;
}

/* DIR/targets.npy: count x 3 float32, a version 1.0 .npy as numpy writes it. */
static int write_targets(mk_output *w)
{
    const mk_options *o = w->o;
    char head[128];
    int hl = snprintf(head, sizeof head, "{'descr': '<f4', 'fortran_order': False, 'shape': (%llu, 3), }",
                      (unsigned long long)w->ntargets);
    size_t hlen = (10 + (size_t)hl + 1 + 63) / 64 * 64 - 10, data = (size_t)w->ntargets * 3 * sizeof(float);
    uint8_t *b = malloc(10 + hlen + data);
    if (!b)
        return ENOMEM;
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (uint8_t)hlen, b[9] = (uint8_t)(hlen >> 8);
    memset(b + 10, ' ', hlen - 1);
    memcpy(b + 10, head, (size_t)hl);
    b[10 + hlen - 1] = '\n';
    memcpy(b + 10 + hlen, w->targets, data); /* little-endian floats */
    snprintf(w->path, sizeof w->path, "%.*s/targets.npy", (int)o->outlen, o->out);
    int e = mk_write_atomic(w->path, (const char *)b, 10 + hlen + data);
    free(b);
    return e;
}

int mk_output_finish(mk_output *w)
{
    const mk_options *o = w->o;
    int e;
    if (o->targets && (e = write_targets(w))) {
        fprintf(stderr, PROG ": %s: %s\n", w->path, strerror(e));
        return -1;
    }
    if (o->tar && (e = mk_shard_close(&w->sw))) {
        fprintf(stderr, PROG ": %s: %s\n", w->sw.path, strerror(e));
        return -1;
    }
    snprintf(w->path, sizeof w->path, "%.*s/%s", (int)o->outlen, o->out,
             o->tar ? "shards.txt" : "files.txt");
    if ((e = mk_write_atomic(w->path, w->list, w->listlen))) {
        fprintf(stderr, PROG ": %s: %s\n", w->path, strerror(e));
        return -1;
    }
    return 0;
}

void mk_output_close(mk_output *w)
{
    mk_shard_abandon(&w->sw);
    free(w->list);
    w->list = NULL;
    free(w->targets);
    w->targets = NULL;
}

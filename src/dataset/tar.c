/*
 * tar.c - scan WebDataset tar shards (see tar.h).
 *
 * Written here rather than with libarchive: the index needs only the header
 * offsets and sizes (never the data, except the few bytes of each label), the
 * scan must go on past a broken member and say where it was, and the worker
 * reads members by (offset, length) with its own reader; libarchive's
 * streaming model gives none of these three for free, and the format part is
 * ~200 lines.
 *
 * One pread of two blocks per member: the header and, for a small member (the
 * .cls label), its data. Members are visited in order, so the kernel's own
 * read-ahead makes the scan of a cold shard mostly sequential.
 */
#include "dataset/tar.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/internal.h"
#include "dataset/builder.h"
#include "common/rng.h"

#define BLK 512
#define LABEL_MAX_BYTES 32
/* A multi-label .cls member is read from its first block: at most BLK bytes,
 * so at most this many labels ("1,2,..." is two bytes a label). */
#define TAR_CLS_MAX_LABELS (BLK / 2)

int feed__tar_is_image_ext(const char *ext)
{
    return !strcasecmp(ext, "jpg") || !strcasecmp(ext, "jpeg") || !strcasecmp(ext, "png") ||
           !strcasecmp(ext, "webp");
}

/* ---- keys seen in this shard: an open-addressing set of 64-bit hashes --------------- */

typedef struct keyset {
    uint64_t *h;
    size_t n, cap; /* cap: a power of two */
} keyset;

static uint64_t hash_key(const char *s, size_t n)
{
    uint64_t x = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        x = (x ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return feed__mix64(x) | 1; /* 0 marks an empty cell */
}

/* 1: added; 0: was there; -1: out of memory. */
static int keyset_add(keyset *k, uint64_t h)
{
    if (2 * (k->n + 1) > k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 1024;
        uint64_t *t = feed__calloc(cap, sizeof *t);
        if (!t)
            return -1;
        for (size_t i = 0; i < k->cap; i++)
            if (k->h[i]) {
                size_t j = k->h[i] & (cap - 1);
                while (t[j])
                    j = (j + 1) & (cap - 1);
                t[j] = k->h[i];
            }
        feed__free(k->h);
        k->h = t, k->cap = cap;
    }
    size_t j = h & (k->cap - 1);
    while (k->h[j]) {
        if (k->h[j] == h)
            return 0;
        j = (j + 1) & (k->cap - 1);
    }
    k->h[j] = h;
    k->n++;
    return 1;
}

/* ---- grouping members into samples ------------------------------------------------ */

typedef struct group {
    size_t keylen;
    int open, dup;
    int have_img, have_label, label_bad, have_target;
    uint64_t img_off, img_len, img_hdr;
    uint32_t nlabels;
    uint64_t label_hdr, target_hdr;
    size_t target_len;
    uint64_t meta_off[FEED_TAR_META_MAX], meta_len[FEED_TAR_META_MAX];
    uint8_t have_meta[FEED_TAR_META_MAX];
    /* the strings and labels last: a new group resets only what is above */
    int32_t labels[TAR_CLS_MAX_LABELS];
    char img_name[TAR_NAME_MAX];
    char label_name[TAR_NAME_MAX];
    char target_name[TAR_NAME_MAX];
    char key[TAR_NAME_MAX];
} group;

typedef struct scan {
    const feed__tar_io *io;
    const char *path;
    const feed__tar_sink *sink;
    keyset seen;
    group g;
    uint8_t *target; /* the group's target member (sink->target_ext), FEED_TAR_TARGET_MAX */
} scan;

static void problem(scan *s, const char *member, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem(scan *s, const char *member, uint64_t off, const char *fmt, ...)
{
    char what[512], m[TAR_NAME_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(m, sizeof m, "%s", member);
    feed__tarh_printable(m);
    if (s->sink->problem)
        s->sink->problem(s->sink->ctx, s->path, m, off, what);
}

/* Ends the open group: a sample, or the reason it is not one. 0 or -1 (stop). */
static int flush(scan *s)
{
    group *g = &s->g;
    int rc = 0;
    int want_target = s->sink->target_ext && *s->sink->target_ext;
    if (g->open && !g->dup && !g->label_bad) {
        if (g->have_img && g->have_label && want_target && !g->have_target)
            problem(s, g->img_name, g->img_hdr, "sample '%s' has no target member (%s.%s); skipped", g->key, g->key,
                    s->sink->target_ext);
        else if (g->have_img && g->have_label) {
            int t = want_target ? s->sink->target(s->sink->ctx, g->target_name, g->target_hdr, s->target,
                                                  g->target_len)
                                : 0;
            if (t == 0 && s->sink->nmeta) {
                for (uint32_t j = 0; j < s->sink->nmeta; j++)
                    if (!g->have_meta[j])
                        g->meta_off[j] = UINT64_MAX, g->meta_len[j] = 0;
                t = s->sink->members(s->sink->ctx, g->meta_off, g->meta_len) ? -1 : 0;
            }
            if (t < 0)
                rc = -1;
            else if (t == 0)
                rc = s->sink->sample(s->sink->ctx, g->img_name, g->img_hdr, g->img_off, g->img_len, g->labels,
                                     g->nlabels)
                         ? -1
                         : 0;
        }
        else if (g->have_img)
            problem(s, g->img_name, g->img_hdr, "sample '%s' has no label member (%s.cls)", g->key,
                    g->key);
        else if (g->have_label)
            problem(s, g->label_name, g->label_hdr,
                    "sample '%s' has no image member (%s.jpg/.jpeg/.png/.webp)", g->key, g->key);
    }
    g->open = 0;
    return rc;
}

/* The label member's text into g->labels: one label (the text up to
 * LABEL_MAX_BYTES), or with the sink's multi_label several (the text up to
 * one block, feed__labels_parse). 0, or -1: reported, the sample skipped. */
static int label_member(scan *s, group *g, const char *name, uint64_t hoff, uint64_t size, const uint8_t *data,
                        size_t n)
{
    size_t lim = s->sink->multi_label ? BLK : LABEL_MAX_BYTES;
    char txt[BLK + 1];
    size_t k = size < n ? (size_t)size : n;
    if (size > lim)
        k = 0;
    memcpy(txt, data, k);
    txt[k] = 0;
    char *p = txt, *e = txt + k;
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r' || !e[-1]))
        *--e = 0;
    char why[160];
    uint32_t nl = 0;
    if (!s->sink->multi_label) { /* one label: decimal digits only, as the format has it */
        uint64_t v = 0;
        int ok = p < e && size <= lim;
        for (char *q = p; ok && q < e; q++) {
            ok = *q >= '0' && *q <= '9';
            v = v * 10 + (uint64_t)(*q - '0');
            if (v > 2147483647u)
                ok = 0;
        }
        if (ok) {
            g->labels[0] = (int32_t)v;
            g->nlabels = 1;
            return 0;
        }
        /* several good labels get a message that says what to set */
        nl = size <= lim && p < e && !memchr(p, 0, (size_t)(e - p))
                 ? feed__labels_parse(p, (size_t)(e - p), g->labels, TAR_CLS_MAX_LABELS, NULL, why, sizeof why)
                 : 0;
        if (nl > 1)
            snprintf(why, sizeof why, "%u labels: several labels a sample need multi_label=1", nl);
        else {
            feed__tarh_printable(p);
            snprintf(why, sizeof why, "label '%.*s' is not an integer 0..2147483647",
                     size <= lim ? (int)(e - p < 64 ? e - p : 64) : 0, p);
        }
        problem(s, name, hoff, "%s; sample '%s' skipped", why, g->key);
        g->label_bad = 1;
        return -1;
    }
    if (size > lim)
        snprintf(why, sizeof why, "a label member of %llu bytes, more than %zu", (unsigned long long)size, lim);
    else if (p == e)
        snprintf(why, sizeof why, "an empty label member");
    else if (memchr(p, 0, (size_t)(e - p)))
        snprintf(why, sizeof why, "a NUL byte in the label member");
    else
        nl = feed__labels_parse(p, (size_t)(e - p), g->labels, TAR_CLS_MAX_LABELS, NULL, why, sizeof why);
    if (nl == 0) {
        problem(s, name, hoff, "%s; sample '%s' skipped", why, g->key);
        g->label_bad = 1;
        return -1;
    }
    g->nlabels = nl;
    return 0;
}

/* One regular member: name, data at doff (size bytes), header at hoff; data
 * holds its first bytes (n of them, n <= BLK). 0, or -1 out of memory. */
static int member(scan *s, const char *name, uint64_t hoff, uint64_t doff, uint64_t size,
                  const uint8_t *data, size_t n)
{
    group *g = &s->g;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    const char *dot = strchr(base, '.');
    size_t keylen = dot ? (size_t)(dot - name) : strlen(name);
    const char *ext = dot ? dot + 1 : "";
    if (!g->open || keylen != g->keylen || memcmp(name, g->key, keylen)) {
        if (flush(s))
            return -1;
        memset(g, 0, offsetof(group, img_name));
        memcpy(g->key, name, keylen);
        g->key[keylen] = 0;
        g->keylen = keylen;
        g->open = 1;
        int a = keyset_add(&s->seen, hash_key(name, keylen));
        if (a < 0)
            return -1;
        if (!a) {
            g->dup = 1;
            problem(s, name, hoff, "duplicate key '%s': an earlier sample of this shard has it; "
                    "skipped", g->key);
        }
    }
    if (g->dup)
        return 0;
    if (feed__tar_is_image_ext(ext)) {
        if (g->have_img) {
            problem(s, name, hoff, "sample '%s' has a second image member (first: %s); skipped",
                    g->key, g->img_name);
            g->dup = 1;
            return 0;
        }
        g->have_img = 1;
        g->img_off = doff, g->img_len = size, g->img_hdr = hoff;
        memcpy(g->img_name, name, strlen(name) + 1); /* names are < TAR_NAME_MAX */
    } else if (!strcasecmp(ext, "cls")) {
        if (g->have_label || g->label_bad) {
            problem(s, name, hoff, "sample '%s' has a second label member; skipped", g->key);
            g->dup = 1;
            return 0;
        }
        memcpy(g->label_name, name, strlen(name) + 1);
        g->label_hdr = hoff;
        if (label_member(s, g, name, hoff, size, data, n))
            return 0;
        g->have_label = 1;
    } else if (s->target && !strcasecmp(ext, s->sink->target_ext)) {
        if (g->have_target) {
            problem(s, name, hoff, "sample '%s' has a second target member; skipped", g->key);
            g->dup = 1;
            return 0;
        }
        if (size > FEED_TAR_TARGET_MAX) {
            problem(s, name, hoff, "a target member of %llu bytes, more than %u; sample '%s' skipped",
                    (unsigned long long)size, FEED_TAR_TARGET_MAX, g->key);
            g->dup = 1;
            return 0;
        }
        size_t k = size < n ? (size_t)size : n, got = k;
        memcpy(s->target, data, k);
        if (k < size) {
            int64_t r = s->io->read(s->io->ctx, s->target + k, (size_t)size - k, doff + k);
            got = r < 0 ? k : k + (size_t)r;
        }
        if (got < size) {
            problem(s, name, hoff, "the target member is cut short by the end of the shard; sample '%s' skipped",
                    g->key);
            g->dup = 1;
            return 0;
        }
        memcpy(g->target_name, name, strlen(name) + 1);
        g->target_hdr = hoff;
        g->target_len = (size_t)size;
        g->have_target = 1;
    } else {
        for (uint32_t j = 0; j < s->sink->nmeta; j++) {
            if (strcasecmp(ext, s->sink->meta_exts[j]))
                continue;
            if (g->have_meta[j]) {
                problem(s, name, hoff, "sample '%s' has a second %s member; skipped", g->key, s->sink->meta_exts[j]);
                g->dup = 1;
                return 0;
            }
            g->have_meta[j] = 1;
            g->meta_off[j] = doff, g->meta_len[j] = size;
            break;
        }
    }
    return 0;
}

/* ---- the scan ------------------------------------------------------------------------ */

static int read_at(const feed__tar_io *io, void *buf, size_t n, uint64_t off, size_t *got)
{
    int64_t r = io->read(io->ctx, buf, n, off);
    if (r < 0)
        return (int)-r;
    *got = (size_t)r;
    return 0;
}

feed_status feed__tar_scan(const feed__tar_io *io, const char *path, const feed__tar_sink *sink,
                           char *err, size_t errlen)
{
    scan s = {.io = io, .path = path, .sink = sink};
    uint8_t blk[2 * BLK];
    char *meta = NULL; /* pax / long name data */
    char name[TAR_NAME_MAX], pax_path[TAR_NAME_MAX], long_name[TAR_NAME_MAX];
    int have_pax_path = 0, have_pax_size = 0, have_long = 0;
    uint64_t pax_size = 0;
    feed_status st = FEED_OK;
    uint64_t off = 0;
    int e;
    size_t got = 0;

    if (io->size < BLK) {
        if (sink->problem)
            sink->problem(sink->ctx, path, "", 0,
                          io->size ? "shard is shorter than one tar header (truncated?)"
                                   : "shard is empty");
        return FEED_OK;
    }
    if (sink->target_ext && *sink->target_ext && sink->target && !(s.target = feed__malloc(FEED_TAR_TARGET_MAX)))
        goto nomem;
    while (off + BLK <= io->size) {
        if ((e = read_at(io, blk, sizeof blk, off, &got)))
            goto io_error;
        if (got < BLK)
            break;
        if (feed__tarh_all_zero(blk))
            break; /* end of archive */
        uint64_t size;
        feed__tarh_header_name(blk, name, sizeof name);
        if (!feed__tarh_checksum_ok(blk) || feed__tarh_parse_num(blk + 124, 12, &size)) {
            problem(&s, name, off, "bad tar header (checksum or size field); looking for the next header");
            if (flush(&s))
                goto nomem;
            have_pax_path = have_pax_size = have_long = 0;
            /* Resynchronise: the next block that is a valid header. */
            for (off += BLK; off + BLK <= io->size; off += BLK) {
                if ((e = read_at(io, blk, BLK, off, &got)))
                    goto io_error;
                if (got < BLK || feed__tarh_all_zero(blk) || (feed__tarh_checksum_ok(blk) && !feed__tarh_parse_num(blk + 124, 12, &size)))
                    break;
            }
            continue;
        }
        char type = (char)blk[156];
        int regular = type == '0' || type == 0 || type == '7';
        if (regular && have_pax_size)
            size = pax_size;
        if (regular && have_pax_path)
            snprintf(name, sizeof name, "%s", pax_path);
        else if (regular && have_long)
            snprintf(name, sizeof name, "%s", long_name);
        uint64_t doff = off + BLK;
        if (size > io->size - doff) {
            problem(&s, name, off,
                    "member of %llu bytes at offset %llu runs past the end of the shard (%llu "
                    "bytes): truncated?",
                    (unsigned long long)size, (unsigned long long)doff, (unsigned long long)io->size);
            break;
        }
        uint64_t next = doff + FEED_ALIGN_UP(size, BLK);
        if (type == 'x' || type == 'L') {
            if (size > TAR_META_MAX) {
                problem(&s, name, off, "%s header of %llu bytes is too large; ignored",
                        type == 'x' ? "pax" : "GNU long name", (unsigned long long)size);
            } else {
                char *m = feed__realloc(meta, size + 1);
                if (!m)
                    goto nomem;
                meta = m;
                if ((e = read_at(io, meta, size, doff, &got)))
                    goto io_error;
                meta[got] = 0;
                if (type == 'L') {
                    snprintf(long_name, sizeof long_name, "%s", meta);
                    have_long = 1;
                } else if (feed__tarh_parse_pax(meta, got, pax_path, sizeof pax_path, &have_pax_path, &pax_size,
                                     &have_pax_size)) {
                    problem(&s, name, off, "malformed pax header; ignored");
                }
            }
        } else if (type != 'g' && type != 'K') { /* a global header or long link: nothing for us */
            if (regular &&
                member(&s, name, off, doff, size, blk + BLK, got > BLK ? got - BLK : 0))
                goto nomem;
            have_pax_path = have_pax_size = have_long = 0;
        }
        off = next;
    }
    if (flush(&s))
        goto nomem;
    goto done;
io_error:
    st = feed__err(FEED_E_IO, err, errlen, "dataset: cannot read shard %s at offset %llu: %s", path,
                   (unsigned long long)off, strerror(e));
    goto done;
nomem:
    st = feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory scanning shard %s", path);
done:
    feed__free(meta);
    feed__free(s.seen.h);
    feed__free(s.target);
    return st;
}

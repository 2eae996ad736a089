/*
 * shardcache.c - the saved tar-shard index (shardcache.h).
 *
 * The file is read in three pieces, each with its own checksum, so the index
 * is read straight into the allocation the caller keeps (an index of many
 * millions of samples is not held twice): the index, the target rows, and
 * key | options | first problem. The checks that follow are the builder's
 * guarantees (builder.c, shards.c, tar.c): what a build cannot produce is
 * refused, whatever the checksum says.
 */
#include "dataset/shardcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/internal.h"
#include "dataset/npy.h"
#include "dataset/scancache.h"

#define MAGIC "FEEDSHC1"
#define VERSION 1u
#define BLK 512u /* tar blocks: members start at their multiples */

typedef struct file_hdr {
    char magic[8];
    uint32_t version, libfeed;
    uint64_t total, hdr_sum;
    uint64_t index_bytes, index_sum;
    uint64_t targets_bytes, targets_sum;
    uint32_t tg_dim, tg_dtype;
    uint64_t key_bytes, options_bytes, problem_bytes, meta_sum;
    uint8_t zero[FEED_SHARDCACHE_HEADER_BYTES - 104];
} file_hdr;
_Static_assert(sizeof(file_hdr) == FEED_SHARDCACHE_HEADER_BYTES, "shard cache header");
_Static_assert(offsetof(file_hdr, index_bytes) == 32 && offsetof(file_hdr, key_bytes) == 72 &&
                   offsetof(file_hdr, meta_sum) == 96, "shard cache header layout");
#define SUMMED_FROM offsetof(file_hdr, index_bytes)

static void say(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t whylen, const char *fmt, ...)
{
    if (!why || !whylen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
}
#define WHY(...)                          \
    do {                                  \
        say(why, whylen, __VA_ARGS__);    \
        return -1;                        \
    } while (0)

/* The checksum of p[0..n) (an empty piece may be NULL). */
static uint64_t sum(const void *p, uint64_t n)
{
    return feed__scancache_checksum(n ? p : (const void *)"", (size_t)n);
}

/* The section checksums of f's pieces, then the header's own. */
static void seal_hdr(file_hdr *f, const void *index, const void *targets, const void *meta)
{
    f->index_sum = sum(index, f->index_bytes);
    f->targets_sum = sum(targets, f->targets_bytes);
    f->meta_sum = sum(meta, f->key_bytes + f->options_bytes + f->problem_bytes);
    f->hdr_sum = sum((const uint8_t *)f + SUMMED_FROM, sizeof *f - SUMMED_FROM);
}

void feed__shardcache_seal(uint8_t *buf, size_t n)
{
    file_hdr f;
    if (n < sizeof f)
        return;
    memcpy(&f, buf, sizeof f);
    /* each piece as far as the file has it */
    uint64_t room = n - sizeof f;
    f.index_bytes = feed__min_u64(f.index_bytes, room);
    f.targets_bytes = feed__min_u64(f.targets_bytes, room - f.index_bytes);
    uint64_t rest = room - f.index_bytes - f.targets_bytes;
    f.key_bytes = feed__min_u64(f.key_bytes, rest);
    f.options_bytes = feed__min_u64(f.options_bytes, rest - f.key_bytes);
    f.problem_bytes = feed__min_u64(f.problem_bytes, rest - f.key_bytes - f.options_bytes);
    const uint8_t *p = buf + sizeof f;
    seal_hdr(&f, p, p + f.index_bytes, p + f.index_bytes + f.targets_bytes);
    file_hdr g; /* the sums only: the sizes stay as they were */
    memcpy(&g, buf, sizeof g);
    g.index_sum = f.index_sum, g.targets_sum = f.targets_sum, g.meta_sum = f.meta_sum;
    g.hdr_sum = sum((const uint8_t *)&g + SUMMED_FROM, sizeof g - SUMMED_FROM);
    memcpy(buf, &g, sizeof g);
}

/* ---- the options: '0'/'1', then target_ext and the meta extensions, each with a NUL ---- */

/* mem's options into out; their bytes, or 0 when they do not fit. */
static size_t options_make(const feed__shard_members *mem, uint8_t out[FEED_SHARDCACHE_OPTIONS_MAX])
{
    if (mem->nmeta > FEED_INDEX_MAX_META)
        return 0;
    size_t k = 0;
    out[k++] = mem->multi_label ? '1' : '0';
    for (uint32_t j = 0; j <= mem->nmeta; j++) {
        const char *s = j == 0 ? mem->target_ext : mem->meta_exts[j - 1];
        size_t len = s ? strlen(s) : 0;
        if (len + 1 > FEED_SHARDCACHE_OPTIONS_MAX - k)
            return 0;
        if (len)
            memcpy(out + k, s, len);
        out[k + len] = 0;
        k += len + 1;
    }
    return k;
}

typedef struct options {
    int multi_label, has_target;
    uint32_t nmeta;
} options;

static int options_parse(const uint8_t *o, uint64_t n, options *op, char *why, size_t whylen)
{
    if (n < 2 || n > FEED_SHARDCACHE_OPTIONS_MAX || (o[0] != '0' && o[0] != '1') || o[n - 1])
        WHY("bad options");
    op->multi_label = o[0] == '1';
    op->has_target = o[1] != 0;
    op->nmeta = 0;
    for (uint64_t i = 1; i < n;) {
        uint64_t len = strlen((const char *)o + i); /* o[n - 1] is a NUL */
        if (i > 1 && (!len || ++op->nmeta > FEED_INDEX_MAX_META))
            WHY("bad options");
        i += len + 1;
    }
    return 0;
}

/* ---- the index as untrusted input ---- */

static int all_zero(const char *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* A table of count elements of elem bytes at off of the index h (n bytes):
 * aligned, at or past *end, inside; *end moves past it. The bytes between
 * the tables are zero, as the builder leaves them (else *junk = 1). */
static int table_ok(const feed__index_hdr *h, uint64_t off, uint64_t count, uint64_t elem, uint64_t n,
                    uint64_t *end, int *junk)
{
    uint64_t align = elem >= 8 ? 8 : elem;
    if (off % align || off < *end || off > n || count > (n - off) / elem)
        return 0;
    *junk |= !all_zero((const char *)h + *end, off - *end);
    *end = off + count * elem;
    return 1;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* A member's blocks: its header and its data, to the next block. */
typedef struct span {
    uint64_t a, b;
} span;

static span member_span(uint64_t off, uint64_t len)
{
    return (span){off - BLK, FEED_ALIGN_UP(off + len, BLK)};
}

/* Sample i's labels (extra label starts st, when nextra): NULL, *n their
 * count and *max the largest so far, or what is wrong with them. */
static const char *labels_bad(const feed__index_hdr *h, uint64_t i, const uint32_t *st, uint32_t *n, int32_t *max)
{
    int32_t all[FEED_MAX_SAMPLE_LABELS];
    all[0] = feed__index_entries(h)[i].label;
    *n = 1;
    if (h->nextra) {
        if (st[i + 1] < st[i])
            return "its extra label start goes back";
        if (st[i + 1] > h->nextra || st[i + 1] - st[i] >= FEED_MAX_SAMPLE_LABELS)
            return "more labels than a sample has or the index holds";
        *n += st[i + 1] - st[i];
        memcpy(all + 1, (const int32_t *)((const char *)h + h->xlabels_off) + st[i], (*n - 1) * sizeof *all);
        if (*n > 1)
            qsort(all, *n, sizeof *all, cmp_i32);
    }
    for (uint32_t k = 0; k < *n; k++) {
        if ((uint32_t)all[k] >= h->nclasses) /* a negative one too */
            return "a label out of range";
        if (k && all[k] == all[k - 1])
            return "a label twice";
    }
    if (all[*n - 1] > *max)
        *max = all[*n - 1];
    return NULL;
}

/* Sample i's metadata members: none (length 0), or block-aligned, their
 * blocks apart from its image's (im) and from each other. */
static int members_ok(const feed__index_hdr *h, uint64_t i, span im)
{
    span s[FEED_INDEX_MAX_META + 1] = {im};
    uint32_t ns = 1;
    for (uint32_t j = 0; j < h->nmeta; j++) {
        uint64_t o;
        uint32_t len;
        if (!feed__index_member(h, i, j, &o, &len)) {
            if (len)
                return 0;
            continue;
        }
        if (o % BLK || o < BLK || o > (uint64_t)INT64_MAX - UINT32_MAX - BLK)
            return 0;
        span m = member_span(o, len);
        for (uint32_t k = 0; k < ns; k++)
            if (m.a < s[k].b && s[k].a < m.b)
                return 0;
        s[ns++] = m;
    }
    return 1;
}

static int check_index(const feed__index_hdr *h, uint64_t n, const options *op, char *why, size_t whylen)
{
    static const feed__npy_images no_npy;
    if (n < sizeof *h || h->magic != FEED_INDEX_MAGIC || h->version != FEED_INDEX_VERSION ||
        h->kind != FEED_INDEX_SHARDS || h->named_classes || h->total_bytes != n || n % 4096 ||
        memcmp(&h->npy, &no_npy, sizeof no_npy) || h->labels_off || h->reserved || h->reserved2)
        WHY("not a shard index of this version");
    const char *nul = memchr(h->root, 0, sizeof h->root);
    if (!nul || h->root[0] != '/' || !all_zero(nul, (uint64_t)(h->root + sizeof h->root - nul)))
        WHY("a bad root");
    /* (nclasses <= FEED_MAX_LABEL + 1 follows from nclasses = the largest label + 1, below) */
    if (h->count < 1 || h->nshards < 1 || h->nshards > FEED_INDEX_MAX_SHARDS || h->nclasses < 1)
        WHY("%llu samples of %llu shards in %u classes", (unsigned long long)h->count,
            (unsigned long long)h->nshards, h->nclasses);
    if (h->nmeta != op->nmeta)
        WHY("%u metadata members a sample, the options %u", h->nmeta, op->nmeta);
    if (h->nextra && !op->multi_label)
        WHY("extra labels without multi_label");
    if (!h->nextra && (h->max_labels != 1 || h->xstarts_off || h->xlabels_off))
        WHY("extra label tables without extra labels");
    if (!h->nmeta && (h->moffs_off || h->mlens_off))
        WHY("member tables without members");
    uint64_t end = sizeof *h;
    int junk = 0;
    if (!table_ok(h, h->entries_off, h->count, sizeof(feed__index_entry), n, &end, &junk))
        WHY("index offsets out of bounds");
    uint64_t m = h->count * h->nmeta; /* count < n / 16 */
    if (!table_ok(h, h->classes_off, 0, 8, n, &end, &junk) ||
        !table_ok(h, h->shards_off, h->nshards, 8, n, &end, &junk) || !table_ok(h, h->pool_off, h->pool_bytes, 1, n, &end, &junk) ||
        (h->nextra && (!table_ok(h, h->xstarts_off, h->count + 1, 4, n, &end, &junk) ||
                       !table_ok(h, h->xlabels_off, h->nextra, 4, n, &end, &junk))) ||
        !table_ok(h, h->keys_off, h->count, 4, n, &end, &junk) ||
        (h->nmeta && (!table_ok(h, h->moffs_off, m, 8, n, &end, &junk) ||
                      !table_ok(h, h->mlens_off, m, 4, n, &end, &junk))))
        WHY("index offsets out of bounds");
    if (junk || !all_zero((const char *)h + end, n - end))
        WHY("bytes between or after the tables are not zero");
    const char *pool = (const char *)h + h->pool_off;
    if (!h->pool_bytes || pool[h->pool_bytes - 1])
        WHY("string pool not terminated");
    /* every string starts inside the pool, which ends with a NUL: each is NUL-terminated in it */
    const uint64_t *shard = (const uint64_t *)((const char *)h + h->shards_off);
    for (uint64_t s = 0; s < h->nshards; s++)
        if (shard[s] >= h->pool_bytes || !pool[shard[s]])
            WHY("shard %llu: a bad path", (unsigned long long)s);
    const feed__index_entry *e = feed__index_entries(h);
    const uint32_t *keys = (const uint32_t *)((const char *)h + h->keys_off);
    const uint32_t *st = (const uint32_t *)((const char *)h + h->xstarts_off);
    if (h->nextra && (st[0] != 0 || st[h->count] != h->nextra))
        WHY("extra label starts do not span the extra labels");
    uint64_t prev_shard = 0, next_free = BLK; /* the first byte the next image may start at */
    uint32_t most = 1;
    int32_t max = -1;
    for (uint64_t i = 0; i < h->count; i++) {
        uint64_t s = e[i].path_off >> FEED_INDEX_SHARD_SHIFT, off = e[i].path_off & FEED_INDEX_MAX_SHARD_OFFSET;
        if (s >= h->nshards || s < prev_shard)
            WHY("sample %llu: shard %llu out of range or order", (unsigned long long)i, (unsigned long long)s);
        if (s != prev_shard)
            next_free = BLK;
        if (off % BLK || off < next_free)
            WHY("sample %llu: its image member at %llu overlaps or is not a member's", (unsigned long long)i,
                (unsigned long long)off);
        prev_shard = s, next_free = FEED_ALIGN_UP(off + e[i].path_len, BLK) + BLK;
        uint32_t nl;
        const char *bad = labels_bad(h, i, st, &nl, &max);
        if (bad)
            WHY("sample %llu: %s", (unsigned long long)i, bad);
        most = nl > most ? nl : most;
        if (keys[i] != FEED_INDEX_NO_KEY && keys[i] >= h->pool_bytes)
            WHY("sample %llu: its key is outside the pool", (unsigned long long)i);
        if (h->nmeta && !members_ok(h, i, member_span(off, e[i].path_len)))
            WHY("sample %llu: a member range is inconsistent", (unsigned long long)i);
    }
    if ((uint64_t)max + 1 != h->nclasses)
        WHY("%u classes, the largest label %d", h->nclasses, max);
    if (h->nextra && most != h->max_labels)
        WHY("at most %u labels a sample, the header says %u", most, h->max_labels);
    return 0;
}

/* ---- the file ---- */

/* The header of a file of n bytes (raw: its bytes) and its sizes. */
static int check_hdr(const uint8_t *raw, uint64_t n, file_hdr *f, char *why, size_t whylen)
{
    static const uint8_t zero[sizeof f->zero];
    if (n < sizeof *f)
        WHY("truncated (%llu bytes)", (unsigned long long)n);
    memcpy(f, raw, sizeof *f);
    if (memcmp(f->magic, MAGIC, 8))
        WHY("not a libfeed shard index file");
    if (f->version != VERSION || f->libfeed != FEED_VERSION_NUMBER)
        WHY("written by another libfeed version");
    if (f->total != n)
        WHY("truncated or extended: %llu bytes, written as %llu", (unsigned long long)n,
            (unsigned long long)f->total);
    if (f->hdr_sum != sum(raw + SUMMED_FROM, sizeof *f - SUMMED_FROM))
        WHY("checksum mismatch (corrupt header)");
    uint64_t room = n - sizeof *f;
    const uint64_t part[] = {f->index_bytes, f->targets_bytes, f->key_bytes, f->options_bytes, f->problem_bytes};
    for (size_t k = 0; k < FEED_ARRAY_SIZE(part); k++) {
        if (part[k] > room)
            WHY("sizes do not add up");
        room -= part[k];
    }
    if (room || memcmp(f->zero, zero, sizeof zero))
        WHY("sizes do not add up");
    return 0;
}

/* The pieces of a file whose header check_hdr accepted. */
static int check_body(const file_hdr *f, const feed__index_hdr *index, const uint8_t *targets, const uint8_t *meta,
                      feed__shardcache_view *v, char *why, size_t whylen)
{
    if (f->index_sum != sum(index, f->index_bytes) || f->targets_sum != sum(targets, f->targets_bytes) ||
        f->meta_sum != sum(meta, f->key_bytes + f->options_bytes + f->problem_bytes))
        WHY("checksum mismatch (corrupt)");
    options op;
    const uint8_t *o = meta + f->key_bytes;
    const char *problem = (const char *)o + f->options_bytes;
    if (options_parse(o, f->options_bytes, &op, why, whylen))
        return -1;
    char iw[200];
    if (check_index(index, f->index_bytes, &op, iw, sizeof iw))
        WHY("index: %s", iw);
    if (f->problem_bytes >= FEED_INDEX_SKIPPED_NAMES || memchr(problem, 0, f->problem_bytes) ||
        !f->problem_bytes != !index->problems)
        WHY("a bad first problem");
    uint64_t row = (uint64_t)f->tg_dim * (f->tg_dtype == FEED_TARGET_FLOAT32 ? 4 : 8);
    if (op.has_target ? f->tg_dim < 1 || f->tg_dim > FEED_NPY_MAX_TARGET_DIM ||
                            (f->tg_dtype != FEED_TARGET_FLOAT32 && f->tg_dtype != FEED_TARGET_INT64) ||
                            f->targets_bytes % row || f->targets_bytes / row != index->count
                      : f->tg_dim || f->tg_dtype || f->targets_bytes)
        WHY("targets are not one row a sample");
    *v = (feed__shardcache_view){index, f->index_bytes, meta, f->key_bytes, o, f->options_bytes,
                                 problem, f->problem_bytes, {0}};
    if (op.has_target)
        v->targets = (feed__targets){(uint8_t *)targets, index->count, f->tg_dim, f->tg_dtype,
                                     f->tg_dtype == FEED_TARGET_FLOAT32 ? 4 : 8};
    return 0;
}

int feed__shardcache_parse(const uint8_t *buf, size_t n, feed__shardcache_view *v, char *why, size_t whylen)
{
    file_hdr f;
    if (check_hdr(buf, n, &f, why, whylen))
        return -1;
    const uint8_t *p = buf + sizeof f;
    return check_body(&f, (const feed__index_hdr *)p, p + f.index_bytes, p + f.index_bytes + f.targets_bytes, v,
                      why, whylen);
}

/* What the caller asks for: the key, the options, the shard paths. */
static int match(const feed__shardcache_view *v, const void *key, size_t keylen, char *const *paths, size_t n,
                 const feed__shard_members *mem, char *why, size_t whylen)
{
    uint8_t o[FEED_SHARDCACHE_OPTIONS_MAX];
    size_t on = options_make(mem, o);
    if (v->key_bytes != keylen || (keylen && memcmp(v->key, key, keylen)))
        WHY("saved for another key (other shards or versions)");
    if (v->options_bytes != on || memcmp(v->options, o, on))
        WHY("built with other options (multi_label, target_member or meta_members)");
    const feed__index_hdr *h = v->index;
    if (h->nshards != n)
        WHY("%llu shards, not %zu", (unsigned long long)h->nshards, n);
    const uint64_t *shard = (const uint64_t *)((const char *)h + h->shards_off);
    for (size_t s = 0; s < n; s++) {
        const char *p = (const char *)h + h->pool_off + shard[s];
        if (strcmp(p, paths[s]))
            WHY("shard %zu is %.200s, not %.200s", s, p, paths[s]);
    }
    return 0;
}

int feed__shardcache_load(const char *path, const void *key, size_t keylen, char *const *shard_paths, size_t n,
                          const feed__shard_members *mem, feed__index *ix, char *why, size_t whylen)
{
    static const feed__shard_members none;
    mem = mem ? mem : &none;
    memset(ix, 0, sizeof *ix);
    ix->fd = -1;
    if (mem->targets)
        *mem->targets = (feed__targets){0};
    say(why, whylen, "%s", "");
    uint8_t raw[sizeof(file_hdr)], *targets = NULL, *meta = NULL;
    feed__index_hdr *index = NULL;
    int rc = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            say(why, whylen, "cannot open it: %s", strerror(errno));
        return 0;
    }
    struct stat sb;
    file_hdr f;
    feed__shardcache_view v;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        say(why, whylen, "not a regular file");
        goto out;
    }
    uint64_t size = (uint64_t)sb.st_size;
    int64_t got = feed__file_pread(fd, raw, sizeof raw, 0);
    if (check_hdr(raw, got == (int64_t)sizeof raw ? size : (uint64_t)(got > 0 ? got : 0), &f, why, whylen))
        goto out;
    uint64_t mn = f.key_bytes + f.options_bytes + f.problem_bytes;
    index = feed__malloc(f.index_bytes ? f.index_bytes : 1);
    targets = feed__malloc(f.targets_bytes ? f.targets_bytes : 1);
    meta = feed__malloc(mn ? mn : 1);
    if (!index || !targets || !meta) {
        say(why, whylen, "no memory to read its %llu bytes", (unsigned long long)size);
        goto out;
    }
    uint64_t at = sizeof f;
    errno = 0;
    if (feed__file_pread(fd, index, f.index_bytes, at) != (int64_t)f.index_bytes ||
        feed__file_pread(fd, targets, f.targets_bytes, at + f.index_bytes) != (int64_t)f.targets_bytes ||
        feed__file_pread(fd, meta, mn, at + f.index_bytes + f.targets_bytes) != (int64_t)mn) {
        say(why, whylen, "cannot read it: %s", errno ? strerror(errno) : "cut short");
        goto out;
    }
    if (check_body(&f, index, targets, meta, &v, why, whylen) ||
        match(&v, key, keylen, shard_paths, n, mem, why, whylen))
        goto out;
    ix->hdr = index;
    memcpy(ix->first_problem, v.problem, v.problem_bytes);
    ix->first_problem[v.problem_bytes] = 0;
    index = NULL;
    if (v.targets.dim && mem->targets) {
        *mem->targets = v.targets;
        mem->targets->data = targets;
        targets = NULL;
    }
    rc = 1;
out:
    feed__free(index);
    feed__free(targets);
    feed__free(meta);
    close(fd);
    return rc;
}

int feed__shardcache_save(const char *path, const feed__index *ix, const feed__shard_members *mem,
                          const void *key, size_t keylen, char *why, size_t whylen)
{
    static const feed__shard_members none;
    mem = mem ? mem : &none;
    say(why, whylen, "%s", "");
    const feed__index_hdr *h = ix ? ix->hdr : NULL;
    if (!h || h->kind != FEED_INDEX_SHARDS)
        WHY("not a shard index");
    uint8_t o[FEED_SHARDCACHE_OPTIONS_MAX];
    size_t on = options_make(mem, o);
    if (!on)
        WHY("the members options do not fit in %u bytes", FEED_SHARDCACHE_OPTIONS_MAX);
    const feed__targets *tg = mem->target_ext && *mem->target_ext ? mem->targets : NULL;
    if (mem->target_ext && *mem->target_ext && (!tg || !tg->data || tg->n != h->count))
        WHY("the target rows of target_member=%s are not there to save", mem->target_ext);
    size_t pn = h->problems ? strnlen(ix->first_problem, FEED_INDEX_SKIPPED_NAMES - 1) : 0;
    file_hdr f = {.version = VERSION, .libfeed = FEED_VERSION_NUMBER, .index_bytes = h->total_bytes,
                  .key_bytes = keylen, .options_bytes = on, .problem_bytes = pn};
    memcpy(f.magic, MAGIC, 8);
    if (tg)
        f.targets_bytes = tg->n * feed__targets_row(tg), f.tg_dim = tg->dim, f.tg_dtype = tg->dtype;
    f.total = sizeof f + f.index_bytes + f.targets_bytes + keylen + on + pn;
    uint8_t *meta = feed__malloc(keylen + on + pn + 1);
    if (!meta)
        WHY("out of memory");
    if (keylen)
        memcpy(meta, key, keylen);
    memcpy(meta + keylen, o, on);
    memcpy(meta + keylen + on, ix->first_problem, pn);
    seal_hdr(&f, h, tg ? tg->data : NULL, meta);
    feed__shardcache_view v;
    char cw[256];
    int rc = -1;
    if (check_body(&f, h, tg ? tg->data : NULL, meta, &v, cw, sizeof cw)) {
        say(why, whylen, "the index would not load again (%s)", cw);
    } else {
        feed__file_piece pieces[4] = {{&f, sizeof f}, {h, f.index_bytes}, {tg ? tg->data : NULL, f.targets_bytes},
                                      {meta, keylen + on + pn}};
        int e = feed__file_replace(path, pieces, 4);
        if (e)
            say(why, whylen, "cannot write %s: %s", path, strerror(e));
        rc = e ? -1 : 0;
    }
    feed__free(meta);
    return rc;
}

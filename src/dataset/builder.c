/*
 * builder.c - an index under construction (builder.h): the string pool, the
 * entry, class and shard tables, and their layout as one allocation.
 */
#include "dataset/builder.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/internal.h"

int feed__builder_pool_add(feed__builder *b, const char *s, size_t len, uint64_t *off)
{
    if (b->pool_len + len + 1 > b->pool_cap) {
        uint64_t cap = b->pool_cap ? b->pool_cap : 4096;
        while (cap < b->pool_len + len + 1)
            cap *= 2;
        char *p = feed__realloc(b->pool, cap);
        if (!p)
            return -1;
        b->pool = p, b->pool_cap = cap;
    }
    memcpy(b->pool + b->pool_len, s, len);
    b->pool[b->pool_len + len] = 0;
    *off = b->pool_len;
    b->pool_len += len + 1;
    return 0;
}

/* Room for one more entry: the next one, b->ents[b->n] (not counted yet),
 * or NULL on out of memory. */
feed__index_entry *feed__builder_next_entry(feed__builder *b)
{
    if (b->n == b->cap) {
        uint64_t cap = b->cap ? b->cap * 2 : 1024;
        feed__index_entry *e = feed__realloc(b->ents, cap * sizeof *e);
        if (!e)
            return NULL;
        b->ents = e, b->cap = cap;
    }
    return &b->ents[b->n];
}

int feed__builder_add_entry(feed__builder *b, const char *path, size_t len, int32_t label)
{
    feed__index_entry *e = feed__builder_next_entry(b);
    if (!e)
        return -1;
    if (feed__builder_pool_add(b, path, len, &e->path_off))
        return -1;
    e->label = label;
    e->path_len = (uint32_t)len;
    b->n++;
    return 0;
}

int feed__builder_add_labels(feed__builder *b, const int32_t *labels, uint32_t n)
{
    uint64_t i = b->n - 1, extra = n - 1;
    if (b->nx + extra > FEED_MAX_EXTRA_LABELS)
        return -2;
    if (b->xend_cap < b->cap) {
        uint32_t *e = feed__realloc(b->xend, b->cap * sizeof *e);
        if (!e)
            return -1;
        b->xend = e, b->xend_cap = b->cap;
    }
    if (b->nx + extra > b->xcap) {
        uint64_t cap = b->xcap ? b->xcap : 1024;
        while (cap < b->nx + extra)
            cap *= 2;
        int32_t *x = feed__realloc(b->xlabels, cap * sizeof *x);
        if (!x)
            return -1;
        b->xlabels = x, b->xcap = cap;
    }
    for (; b->xfilled < i; b->xfilled++) /* the single-label samples since the last call */
        b->xend[b->xfilled] = (uint32_t)b->nx;
    memcpy(b->xlabels + b->nx, labels + 1, extra * sizeof *labels);
    b->nx += extra;
    b->xend[i] = (uint32_t)b->nx;
    b->xfilled = i + 1;
    if (n > b->max_labels)
        b->max_labels = n;
    return 0;
}

/* One integer 0..FEED_MAX_LABEL at *p (an optional '+', digits); 0 and *p
 * past it, or -1. */
static int one_label(const char **p, const char *end, int32_t *v)
{
    const char *q = *p + (*p < end && **p == '+');
    uint64_t x = 0;
    const char *d = q;
    while (q < end && *q >= '0' && *q <= '9') {
        x = x * 10 + (uint64_t)(*q++ - '0');
        if (x > FEED_MAX_LABEL)
            return -2;
    }
    if (q == d)
        return -1;
    *v = (int32_t)x;
    *p = q;
    return 0;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void printable(char *dst, size_t dstlen, const char *s, size_t n)
{
    size_t k = 0;
    for (; k < n && k + 4 < dstlen; k++)
        dst[k] = s[k] >= 0x20 && s[k] < 0x7f ? s[k] : '?';
    if (k < n)
        memcpy(dst + k, "...", 3), k += 3;
    dst[k] = 0;
}

uint32_t feed__labels_parse(const char *s, size_t len, int32_t *out, uint32_t max, feed__quote_fn quote,
                            char *why, size_t whylen)
{
    const char *p = s, *end = s + len;
    uint32_t n = 0;
    while (p < end && is_blank(*p))
        p++;
    while (p < end) {
        const char *w = p;
        int32_t v;
        int rc = one_label(&p, end, &v);
        if (rc == 0 && p < end && !is_blank(*p) && *p != ',')
            rc = -1; /* "3x": the word is not an integer */
        if (rc) {
            if (*w == ',') {
                snprintf(why, whylen, "an empty label before a comma");
                return 0;
            }
            const char *we = w;
            while (we < end && !is_blank(*we) && *we != ',')
                we++;
            char word[4 * 60 + 4];
            if (quote)
                quote(word, sizeof word, w, (size_t)(we - w));
            else /* '?' for a byte that is not printable ASCII: none reaches a terminal raw */
                printable(word, sizeof word, w, (size_t)(we - w));
            if (rc == -2)
                snprintf(why, whylen, "label %s is out of range: labels are 0..%u (int32)", word, FEED_MAX_LABEL);
            else
                snprintf(why, whylen, "label '%s' is not a non-negative integer", word);
            return 0;
        }
        if (n == max) {
            snprintf(why, whylen, "more than %u labels", max);
            return 0;
        }
        for (uint32_t k = 0; k < n; k++)
            if (out[k] == v) {
                snprintf(why, whylen, "label %d appears twice", v);
                return 0;
            }
        out[n++] = v;
        while (p < end && is_blank(*p))
            p++;
        if (p < end && *p == ',') { /* one comma between two labels */
            p++;
            while (p < end && is_blank(*p))
                p++;
            if (p == end || *p == ',') {
                snprintf(why, whylen, "an empty label between commas or at the end");
                return 0;
            }
        }
    }
    if (!n)
        snprintf(why, whylen, "no label");
    return n;
}

int feed__builder_add_class(feed__builder *b, const char *name)
{
    if (b->nclasses == b->classes_cap) {
        uint32_t cap = b->classes_cap ? b->classes_cap * 2 : 64;
        uint64_t *c = feed__realloc(b->classes, cap * sizeof *c);
        if (!c)
            return -1;
        b->classes = c, b->classes_cap = cap;
    }
    return feed__builder_pool_add(b, name, strlen(name), &b->classes[b->nclasses++]);
}

int feed__builder_add_key(feed__builder *b, const char *key, size_t len)
{
    uint64_t i = b->n - 1, off;
    if (i >= b->keys_cap) {
        uint64_t cap = b->keys_cap ? b->keys_cap * 2 : 1024;
        uint32_t *k = feed__realloc(b->keys, cap * sizeof *k);
        if (!k)
            return -1;
        b->keys = k, b->keys_cap = cap;
    }
    /* Offsets are uint32: past 4 GiB of pool a sample keeps no key (it is
     * named by its bytes), rather than every key costing 8 bytes. */
    if (b->pool_len + len + 1 > FEED_INDEX_NO_KEY) {
        b->keys[i] = FEED_INDEX_NO_KEY;
        return 0;
    }
    if (feed__builder_pool_add(b, key, len, &off))
        return -1;
    b->keys[i] = (uint32_t)off;
    return 0;
}

int feed__builder_add_members(feed__builder *b, const uint64_t *off, const uint64_t *len)
{
    uint64_t i = b->n - 1;
    if (i >= b->mcap) {
        uint64_t cap = b->mcap ? b->mcap * 2 : 1024;
        uint64_t *o = feed__realloc(b->moffs, (size_t)(cap * b->nmeta * sizeof *o));
        if (!o)
            return -1;
        b->moffs = o;
        uint32_t *l = feed__realloc(b->mlens, (size_t)(cap * b->nmeta * sizeof *l));
        if (!l)
            return -1;
        b->mlens = l, b->mcap = cap;
    }
    for (uint32_t j = 0; j < b->nmeta; j++) {
        b->moffs[i * b->nmeta + j] = off[j];
        /* a member past 4 GiB is kept as 4 GiB - 1: over any meta_max_bytes, so the worker reports it */
        b->mlens[i * b->nmeta + j] = off[j] == FEED_INDEX_NO_MEMBER ? 0 : len[j] > UINT32_MAX ? UINT32_MAX
                                                                                             : (uint32_t)len[j];
    }
    return 0;
}

void feed__builder_free(feed__builder *b)
{
    feed__free(b->moffs);
    feed__free(b->mlens);
    feed__free(b->keys);
    feed__free(b->ents);
    feed__free(b->pool);
    feed__free(b->classes);
    feed__free(b->shards);
    feed__free(b->xlabels);
    feed__free(b->xend);
}

/* An open/read failure: out of fds or memory is the machine's limit, not a
 * dataset error, and says what to raise. */
feed_status feed__dataset_sys_error(char *err, size_t errlen, int e, const char *what, const char *path)
{
    if (e == EMFILE || e == ENFILE)
        return feed__err(FEED_E_RESOURCE, err, errlen,
                         "dataset: cannot %s %s: %s (out of file descriptors: raise ulimit -n)", what,
                         path, strerror(e));
    if (e == ENOMEM)
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: cannot %s %s: %s", what, path, strerror(e));
    return feed__err(FEED_E_DATASET, err, errlen, "dataset: cannot %s %s: %s", what, path, strerror(e));
}

/* Lays the builder out as one allocation in ix (and frees the builder). */
feed_status feed__builder_finish(feed__index *ix, feed__builder *b, const char *root, int named, uint32_t kind,
                          char *err, size_t errlen)
{
    uint64_t entries_off = FEED_ALIGN_UP(sizeof(feed__index_hdr), 64);
    uint64_t classes_off = FEED_ALIGN_UP(entries_off + b->n * sizeof(feed__index_entry), 64);
    /* Class names exist only for an ImageFolder (one per folder); a file list
     * has a class count and no table, so memory follows the samples, not the
     * largest label. */
    uint64_t ntable = named ? b->nclasses : 0;
    uint64_t shards_off = FEED_ALIGN_UP(classes_off + ntable * sizeof(uint64_t), 64);
    uint64_t pool_off = FEED_ALIGN_UP(shards_off + b->nshards * sizeof(uint64_t), 64);
    /* several labels a sample: the starts and the extra labels after the pool */
    uint64_t xstarts_off = FEED_ALIGN_UP(pool_off + b->pool_len, 64);
    uint64_t xlabels_off = xstarts_off + (b->nx ? (b->n + 1) * sizeof(uint32_t) : 0);
    uint64_t end = b->nx ? xlabels_off + b->nx * sizeof(int32_t) : pool_off + b->pool_len;
    int keyed = kind == FEED_INDEX_SHARDS && b->keys;
    uint64_t keys_off = FEED_ALIGN_UP(end, 64);
    if (keyed)
        end = keys_off + b->n * sizeof(uint32_t);
    int membered = kind == FEED_INDEX_SHARDS && b->nmeta && b->n;
    uint64_t moffs_off = FEED_ALIGN_UP(end, 64);
    uint64_t mlens_off = moffs_off + (membered ? b->n * b->nmeta * sizeof(uint64_t) : 0);
    if (membered)
        end = mlens_off + b->n * b->nmeta * sizeof(uint32_t);
    uint64_t total = FEED_ALIGN_UP(end, 4096);
    feed__index_hdr *h = feed__calloc(1, total);
    if (!h) {
        feed__builder_free(b);
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory (%llu bytes of index)",
                         (unsigned long long)total);
    }
    h->magic = FEED_INDEX_MAGIC;
    h->version = FEED_INDEX_VERSION;
    h->kind = kind;
    h->count = b->n;
    h->nclasses = b->nclasses;
    h->total_bytes = total;
    h->entries_off = entries_off;
    h->classes_off = classes_off;
    h->shards_off = shards_off;
    h->nshards = b->nshards;
    h->pool_off = pool_off;
    h->pool_bytes = b->pool_len;
    h->problems = b->problems;
    strcpy(h->root, root);
    memcpy((char *)h + entries_off, b->ents, b->n * sizeof(feed__index_entry));
    if (named) {
        memcpy((char *)h + classes_off, b->classes, ntable * sizeof(uint64_t));
        h->named_classes = 1;
    }
    if (b->nshards)
        memcpy((char *)h + shards_off, b->shards, b->nshards * sizeof(uint64_t));
    memcpy((char *)h + pool_off, b->pool, b->pool_len);
    h->max_labels = 1;
    if (b->nx) {
        uint32_t *st = (uint32_t *)((char *)h + xstarts_off);
        st[0] = 0;
        for (uint64_t i = 0; i < b->n; i++)
            st[i + 1] = i < b->xfilled ? b->xend[i] : (uint32_t)b->nx;
        memcpy((char *)h + xlabels_off, b->xlabels, b->nx * sizeof(int32_t));
        h->xstarts_off = xstarts_off;
        h->xlabels_off = xlabels_off;
        h->nextra = b->nx;
        h->max_labels = b->max_labels;
    }
    if (keyed) {
        memcpy((char *)h + keys_off, b->keys, b->n * sizeof(uint32_t));
        h->keys_off = keys_off;
    }
    if (membered) {
        memcpy((char *)h + moffs_off, b->moffs, b->n * b->nmeta * sizeof(uint64_t));
        memcpy((char *)h + mlens_off, b->mlens, b->n * b->nmeta * sizeof(uint32_t));
        h->nmeta = b->nmeta;
        h->moffs_off = moffs_off;
        h->mlens_off = mlens_off;
    }
    feed__builder_free(b);
    ix->hdr = h;
    return FEED_OK;
}

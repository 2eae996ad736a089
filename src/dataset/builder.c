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

void feed__builder_free(feed__builder *b)
{
    feed__free(b->ents);
    feed__free(b->pool);
    feed__free(b->classes);
    feed__free(b->shards);
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
    uint64_t total = FEED_ALIGN_UP(pool_off + b->pool_len, 4096);
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
    feed__builder_free(b);
    ix->hdr = h;
    return FEED_OK;
}

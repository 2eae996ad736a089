/*
 * builder.h - an index under construction, shared by the sources that list
 * samples one by one (folder.c, filelist.c, shards.c): the entries, the
 * string pool, the class and shard tables, what was skipped, and their
 * layout as one allocation in a feed__index at the end (feed__builder_finish).
 */
#ifndef FEED_BUILDER_H
#define FEED_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "dataset/index.h"
#include "feed.h"

struct feed__scan_dirs;

typedef struct feed__builder {
    feed__index_entry *ents;
    uint64_t n, cap;
    char *pool;
    uint64_t pool_len, pool_cap;
    uint64_t *classes;
    uint32_t nclasses, classes_cap;
    uint64_t skipped;                       /* files of other extensions in class folders */
    char skipped_names[FEED_INDEX_SKIPPED_NAMES]; /* the first few, "a/x.gif, a/y.txt" */
    struct feed__scan_dirs *dirs; /* the directories read, for a saved scan (NULL: not kept) */
    uint64_t *shards; /* pool offsets of the shard paths */
    uint64_t nshards, shards_cap;
    uint64_t problems;
    /* several labels a sample: a sample's labels past its first, and where
     * each sample's end (xend[i]: extras of samples 0..i); xend is kept for
     * the first xfilled samples, the rest have none */
    uint32_t multi_ok; /* 1: several labels allowed (multi_label=1) */
    int32_t *xlabels;
    uint64_t nx, xcap;
    uint32_t *xend;
    uint64_t xfilled, xend_cap;
    uint32_t max_labels;
    uint32_t *keys; /* tar shards: each sample's key, a pool offset (FEED_INDEX_NO_KEY: none) */
    uint64_t keys_cap;
    /* tar shards with metadata members: nmeta ranges a sample (index.h) */
    uint32_t nmeta;
    uint64_t *moffs;
    uint32_t *mlens;
    uint64_t mcap; /* samples the two tables hold */
    char first_problem[FEED_INDEX_SKIPPED_NAMES]; /* the first one's report */
} feed__builder;

/* Appends s[0..len) and a NUL to the pool; *off is where it starts. 0 or -1 (out of memory). */
int feed__builder_pool_add(feed__builder *b, const char *s, size_t len, uint64_t *off);
/* Room for one more entry: the next one, b->ents[b->n] (not counted yet),
 * or NULL on out of memory. */
feed__index_entry *feed__builder_next_entry(feed__builder *b);
/* One sample: path[0..len) into the pool, with its label. 0 or -1 (out of memory). */
int feed__builder_add_entry(feed__builder *b, const char *path, size_t len, int32_t label);
/* The labels of the last sample added past its first (n - 1 of them, n >= 2).
 * 0, -1 (out of memory) or -2 (more extra labels than an index holds). */
int feed__builder_add_labels(feed__builder *b, const int32_t *labels, uint32_t n);
/* The WebDataset key of the last sample added, key[0..len), into the pool
 * (tar shards). 0 or -1 (out of memory). */
int feed__builder_add_key(feed__builder *b, const char *key, size_t len);
/* The metadata member ranges of the last sample added (b->nmeta of them;
 * off FEED_INDEX_NO_MEMBER: none). 0 or -1 (out of memory). */
int feed__builder_add_members(feed__builder *b, const uint64_t *off, const uint64_t *len);
/* Writes src[0..n) into dst fit for a message (escaped); returns dst. */
typedef const char *(*feed__quote_fn)(char *dst, size_t dstlen, const char *src, size_t n);
/* Parses s[0..len): integers 0..FEED_MAX_LABEL (an optional '+', decimal
 * digits) separated by whitespace or one comma (spaces around it allowed),
 * at least one, at most max, none twice, into out. Returns how many, or 0
 * with why (what is wrong, the bad word quoted by quote, NULL: '?' for each
 * byte that is not printable ASCII). */
uint32_t feed__labels_parse(const char *s, size_t len, int32_t *out, uint32_t max, feed__quote_fn quote,
                            char *why, size_t whylen);
/* The next class (label b->nclasses), named name. 0 or -1 (out of memory). */
int feed__builder_add_class(feed__builder *b, const char *name);
void feed__builder_free(feed__builder *b);

/* Lays the builder out as one allocation in ix (and frees the builder):
 * root is the directory the paths are relative to, named 1 for class names
 * (an ImageFolder), kind FEED_INDEX_FILES or FEED_INDEX_SHARDS. */
feed_status feed__builder_finish(feed__index *ix, feed__builder *b, const char *root, int named, uint32_t kind,
                                 char *err, size_t errlen);

/* An open/read failure (errno e) of what on path, worded: out of fds or
 * memory is the machine's limit, not a dataset error, and says what to raise. */
feed_status feed__dataset_sys_error(char *err, size_t errlen, int e, const char *what, const char *path);

#endif /* FEED_BUILDER_H */

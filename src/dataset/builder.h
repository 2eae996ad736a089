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
    char first_problem[FEED_INDEX_SKIPPED_NAMES]; /* the first one's report */
} feed__builder;

/* Appends s[0..len) and a NUL to the pool; *off is where it starts. 0 or -1 (out of memory). */
int feed__builder_pool_add(feed__builder *b, const char *s, size_t len, uint64_t *off);
/* Room for one more entry: the next one, b->ents[b->n] (not counted yet),
 * or NULL on out of memory. */
feed__index_entry *feed__builder_next_entry(feed__builder *b);
/* One sample: path[0..len) into the pool, with its label. 0 or -1 (out of memory). */
int feed__builder_add_entry(feed__builder *b, const char *path, size_t len, int32_t label);
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

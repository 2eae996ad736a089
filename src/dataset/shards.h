/*
 * shards.h - which sources are tar shards, and their list.
 *
 * source (the option) names tar shards when it is
 *   - a pattern: brace ranges and lists ("train-{000000..001023}.tar",
 *     "{a,b}/x.tar"; zero-padded when an end is), then shell globs (* ? [..],
 *     glob(3), sorted) in each result; every match must end in .tar;
 *   - a single file ending in .tar;
 *   - a text file whose first line (blank lines and # comments skipped) is one
 *     path ending in .tar and nothing else: one shard path a line, relative to
 *     the list's folder (source) or to source (file_list with a directory
 *     source).
 * The shards keep the order given (brace and list order, glob results sorted);
 * the sample ids follow it, then the member order in each shard. shards.c
 * also builds their index (feed__index_build_shards, index.h).
 */
#ifndef FEED_SHARDS_H
#define FEED_SHARDS_H

#include <stddef.h>
#include <stdint.h>

#include "feed.h"

/* *is_shards = 0: not a shard source (nothing allocated, FEED_OK). Else the
 * shards' absolute paths in *paths[0..*n) (free with feed__shards_free).
 * Errors name the pattern or the list and line: no match, a missing shard, a
 * match that is not a .tar file. */
feed_status feed__shards_expand(const char *source, const char *file_list, char ***paths, size_t *n,
                                int *is_shards, char *err, size_t errlen);
void feed__shards_free(char **paths, size_t n);
/* A growing list of shard paths or URLs (v[0..n), each its own allocation;
 * feed__shards_free(v, n) frees it). */
typedef struct feed__pathlist {
    char **v;
    size_t n, cap;
} feed__pathlist;
/* Appends a copy of s[0..len): 0, -1 (out of memory) or -2 (more than
 * FEED_INDEX_MAX_SHARDS). */
int feed__pathlist_add(feed__pathlist *l, const char *s, size_t len);
/* The brace expansion of a pattern alone (no globs, no files looked at):
 * 0 and *out[0..*n) (free with feed__shards_free), -1 out of memory, -2 more
 * than the index holds, -3 malformed (unclosed or nested). */
int feed__shards_braces(const char *pat, char ***out, size_t *n);

struct feed__tar_io;
/* feed__index_build_shards' open and close for shard files: ctx is the paths
 * array; shard i is opened read-only, its size from fstat. */
feed_status feed__shards_open(void *ctx, uint32_t i, struct feed__tar_io *io, char *err, size_t errlen);
void feed__shards_close(void *ctx, struct feed__tar_io *io);

#endif

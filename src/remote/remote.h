/*
 * remote.h - tar shards named by URL (https://, http://, s3://): the parent's
 * side of feed-fetch (fetch.h), which downloads them into the cache directory.
 *
 * A remote source is
 *   - a URL pattern: brace ranges and lists as for local shards
 *     ("https://host/train-{000000..000999}.tar"); an s3:// URL may end in a
 *     glob (*.tar after s3://bucket/prefix/), listed with ListObjectsV2;
 *   - a local text file (source, or file_list) whose first line (blank lines
 *     and # comments skipped) is a URL ending in .tar: one shard URL a line.
 * Every shard is complete and checked in the cache before create goes on:
 * the index is built from the cached files and the workers read those, as
 * they read local shards. No socket is opened in this process or a worker.
 */
#ifndef FEED_REMOTE_H
#define FEED_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "feed.h"

typedef struct feed__remote_cfg {
    const char *cache_dir;  /* "" or NULL: $XDG_CACHE_HOME/libfeed/shards, else ~/.cache/libfeed/shards */
    uint64_t cache_size;    /* bytes; 0: no limit */
    uint32_t retries;
    uint32_t timeout_ms;
    uint32_t parallel;       /* downloads at once */
    const char *worker_path; /* feed-fetch is looked for beside it (or FEED_FETCH) */
} feed__remote_cfg;

/* This loader's claim on its shards in the cache: DIR/.inuse/<pid>-<n>.list
 * (their URLs, one a line) held open under a shared flock from before the
 * download until feed__remote_release. feed-fetch never evicts a shard that
 * a held list names; a list whose owner is gone (the lock is free) is
 * removed. fd -1: none. */
typedef struct feed__remote_hold {
    int fd;
    char *path;
} feed__remote_hold;
void feed__remote_release(feed__remote_hold *h);

/* 1: s starts with http://, https:// or s3://. */
int feed__remote_is_url(const char *s);

/* *is_remote = 0: source and file_list name no URL (nothing allocated,
 * FEED_OK). Else the cached shards' paths in *paths[0..*n) and their URLs in
 * *urls (free both with feed__shards_free), and *hold the claim on them
 * (release it when the loader is done with them). Errors name the URL: a 403/404,
 * retries used up, a shard changed while read, the cache full. */
feed_status feed__remote_shards(const feed__remote_cfg *c, const char *source, const char *file_list, char ***paths,
                                char ***urls, size_t *n, int *is_remote, feed__remote_hold *hold, char *err,
                                size_t errlen);

#endif

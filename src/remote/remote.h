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

#include <sys/types.h>

#include "dataset/shards.h"
#include "feed.h"

typedef struct feed__remote_cfg {
    const char *cache_dir;  /* "" or NULL: $XDG_CACHE_HOME/libfeed/shards, else ~/.cache/libfeed/shards */
    uint64_t cache_size;    /* bytes; 0: no limit */
    uint32_t retries;
    uint32_t timeout_ms;
    uint32_t parallel;       /* downloads at once */
    const char *worker_path; /* feed-fetch is looked for beside it (or FEED_FETCH) */
    int ranges;              /* fetcher: byte ranges of the shards, not whole ones (fetch_ranges) */
} feed__remote_cfg;

/* This loader's claim on its shards in the cache: DIR/.inuse/<pid>-<n>.list
 * (their URLs, one a line: every file of the URL held; "tar <TAB> URL": its
 * .tar files only, "ranges <TAB> URL": its .ranges files only) held open
 * under a shared flock from before the
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

/* ---- what remote.c shares with fetcher.c ---- */

/* *is_remote = 0: no URL (nothing allocated). Else the shard URLs in *out
 * (s3:// globs listed), feed-fetch's path in exe and the cache directory
 * (made, absolute) in dir, both PATH_MAX bytes. */
feed_status feed__remote_urls(const feed__remote_cfg *c, const char *source, const char *file_list,
                              feed__pathlist *out, int *is_remote, char *exe, char *dir, char *err, size_t errlen);
/* Starts exe --mode mode on stdin in, stdout out (posix_spawn, signals
 * default and unblocked). 0 and *pid, else an errno. */
int feed__remote_spawn(const char *exe, const feed__remote_cfg *c, const char *dir, const char *mode, int in, int out,
                       pid_t *pid);
/* A new list of urls[0..n) in dir/.inuse, held, in place of *old (released
 * with it; NULL: none), under the cache's lock (fetch_cache.h cache_lock);
 * form "tar" or "ranges": only those files of each URL held (NULL: all). */
feed_status feed__remote_hold_urls(const char *dir, char *const *urls, size_t n, const char *form,
                                   feed__remote_hold *h, feed__remote_hold *old, char *err, size_t errlen);
/* feed-fetch's "err" answer (KIND, MESSAGE) as a status and words in err. */
feed_status feed__remote_error(const char *kind, const char *msg, char *err, size_t errlen);

/*
 * Fetching while the loader runs (option fetch_ahead): feed-fetch stays up
 * (--mode stream) and the loader says, as the read-ahead moves, which shards
 * it wants in the cache now, in the order it needs them. Create only asks
 * for every shard's version (HEAD); a shard comes when it is wanted, is held
 * (never evicted) while it is, and may be evicted once it is not.
 *
 * All calls are thread-safe. A shard is "present" once its complete, checked
 * file is in the cache and it has been wanted without a break since it was
 * asked for. A failure of a wanted shard (a 404, retries used up, its ETag
 * changed since create, the cache full) is kept: the loader reports it.
 */
typedef struct feed__fetcher feed__fetcher;

/* *is_remote = 0: source names no URL (nothing started, *out NULL). Else
 * feed-fetch is started and every shard's version is known when this
 * returns: its path in the cache (whether there or not) and its size. With
 * c->ranges the paths are the versions' .ranges files (the whole .tar for
 * the index scan only). */
feed_status feed__fetcher_start(const feed__remote_cfg *c, const char *source, const char *file_list,
                                feed__fetcher **out, int *is_remote, char *err, size_t errlen);
/* Stops feed-fetch, releases the hold. Accepts NULL. */
void feed__fetcher_stop(feed__fetcher *f);

size_t feed__fetcher_count(const feed__fetcher *f);
char *const *feed__fetcher_paths(const feed__fetcher *f); /* shard i's file in the cache */
uint64_t feed__fetcher_size(const feed__fetcher *f, uint32_t i);
uint64_t feed__fetcher_budget(const feed__fetcher *f); /* cache_size, 0: no limit */
int feed__fetcher_ranges(const feed__fetcher *f);      /* 1: cfg ranges */

/* Bytes [lo, hi) of a shard: a chain of whole tar members (from a member's
 * header to the end of a member's data, padded to 512 bytes). */
typedef struct feed__byterange {
    uint32_t shard;
    uint64_t lo, hi;
} feed__byterange;

/* Wants exactly shards[0..n) (need order; repeats ignored): holds them and
 * asks for those not present; the others are no longer held.
 * With ranges (nrg > 0, only with cfg ranges; rg of wanted shards, in need
 * order): the shards are held and rg[0..nrg) asked for, where neither
 * present nor asked, byte range by byte range, into each shard's .ranges
 * file (its paths entry); no shard is fetched whole. A shard let go loses
 * its present ranges (the file may be evicted). */
feed_status feed__fetcher_want(feed__fetcher *f, const uint32_t *shards, size_t n, const feed__byterange *rg,
                               size_t nrg, char *err, size_t errlen);
/* 1: shard i is present (whole). */
int feed__fetcher_present(feed__fetcher *f, uint32_t i);
/* 1: bytes [lo, hi) of shard i are present in its .ranges file, fetched
 * since it was last wanted (cfg ranges). */
int feed__fetcher_has(feed__fetcher *f, uint32_t i, uint64_t lo, uint64_t hi);
/* Waits until shard i is present or a wanted shard failed. */
feed_status feed__fetcher_wait(feed__fetcher *f, uint32_t i, char *err, size_t errlen);
/* The first failure: its status and words (FEED_OK: none). */
feed_status feed__fetcher_failed(feed__fetcher *f, char *err, size_t errlen);
/* Records a failure found by the caller (the first one stays). */
void feed__fetcher_fail(feed__fetcher *f, feed_status st, const char *msg);
/* fn(ctx) runs on the fetcher's thread after each answer (a shard present or
 * failed). Set it before the first want. */
void feed__fetcher_notify(feed__fetcher *f, void (*fn)(void *), void *ctx);
/* The index scan's open and close of shard i (feed__index_spec's
 * shard_open, ctx the fetcher): wants i and the next few (as many as
 * fetch_parallel, within cache_size), waits for i; what was read is let go. */
struct feed__tar_io;
feed_status feed__fetcher_scan_open(void *ctx, uint32_t i, struct feed__tar_io *io, char *err, size_t errlen);
void feed__fetcher_scan_close(void *ctx, struct feed__tar_io *io);
/* The saved index of these shards (dataset/shardcache.h): its file,
 * DIR/index-<hash>.shards, and its key, every shard's URL, its file in the
 * cache (named by its version) and size, a line each (*key feed__malloc'd). */
feed_status feed__fetcher_index_key(const feed__fetcher *f, char **key, size_t *keylen, char *path, size_t cap);

#endif

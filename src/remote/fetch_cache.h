/* fetch_cache.h - feed-fetch's cache directory (fetch_cache.c says how it is laid out). */
#ifndef FEED_FETCH_CACHE_H
#define FEED_FETCH_CACHE_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct cache_rec {
    char url[4096];
    char etag[256];
    char last_modified[128];
    uint64_t size;
} cache_rec;

/* A URL's key: the start of the names of all its versions ("<16 hex>-"). */
#define CACHE_KEY_LEN 17
void cache_key(const char *url, char key[CACHE_KEY_LEN + 1]);
/* The file and record paths of one version of url's shard in dir (version:
 * its ETag, Last-Modified and size, as text). */
void cache_names(const char *dir, const char *url, const char *version, char *tar, char *meta, size_t cap);
/* 0: read (every field), -1: none or malformed. */
int cache_meta_read(const char *meta, cache_rec *r);
int cache_meta_write(const char *meta, const cache_rec *r);
/* DIR/.inuse/.lock under an exclusive flock (fd, or -1 when it cannot be
 * had: the caller goes on without). A loader changes its held list (writes
 * the new one, removes the old) and an evictor reads the lists and evicts
 * under it, never both at once: an evictor sees one list or the other, whole. */
static inline int cache_lock(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/.inuse", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/.inuse/.lock", dir);
    int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    while (fd >= 0 && flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    return fd;
}
static inline void cache_unlock(int fd)
{
    if (fd >= 0)
        close(fd);
}
/* Removes the temporary files of downloads whose process is gone (killed). */
void cache_clean_parts(const char *dir);
/* Marks the record used now (the eviction's order). */
void cache_touch(const char *meta);
/* Evicts least-recently-used shards, never a version of a URL whose key is in
 * keep (this run's) or in a held .inuse list,
 * until need more bytes fit under limit (0: no limit). 0: they fit, 1: they
 * cannot (*kept_bytes: what this run's shards hold), -1: error (why). */
int cache_make_room(const char *dir, uint64_t limit, uint64_t need, char *const *keep, size_t nkeep,
                    uint64_t *kept_bytes, char *why, size_t whylen);

#endif

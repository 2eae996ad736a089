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
/* cache_names of the version with that ETag, Last-Modified ("": none) and size. */
void cache_version_names(const char *dir, const char *url, const char *etag, const char *last_modified,
                         int64_t size, char *tar, char *meta, size_t cap);
/* 1: the complete file of that version is there (tar of that size, and a
 * record, meta, naming the same URL, ETag, Last-Modified and size). */
int cache_has(const char *tar, const char *meta, const char *url, const char *etag, const char *last_modified,
              uint64_t size);
/* The file of one version's byte ranges (fetch.h's "range"): its tar path
 * with the final ".tar" replaced by ".ranges". 0, or -1: tar does not end in
 * ".tar" or out (cap bytes) is too small. */
int cache_ranges_name(const char *tar, char *out, size_t cap);
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
/* Evicts least-recently-used shards (.tar files and .ranges files; saved
 * indexes after them), never a version of a URL whose key is in keep (this
 * run's; a key followed by 't' or 'r': only its .tar or .ranges files) or in a
 * held .inuse list (a "tar"/"ranges" line: only those files),
 * until need more bytes fit under limit (0: no limit). 0: they fit, 1: they
 * cannot (*kept_bytes: what this run's shards hold), -1: error (why). */
int cache_make_room(const char *dir, uint64_t limit, uint64_t need, char *const *keep, size_t nkeep,
                    uint64_t *kept_bytes, char *why, size_t whylen);
/* Room for need more bytes beside those reserved by the downloads under way
 * in this process (cache_make_room), reserved when there is (0). The bytes are
 * given back by cache_room_unlock as they take their place in the cache, where
 * they count by themselves: cache_room_lock, make them land (a rename, a
 * write), cache_room_unlock(the bytes that landed); an error gives them back
 * the same way (cache_room_lock(); cache_room_unlock(n)). Threads: any. */
int cache_reserve(const char *dir, uint64_t limit, uint64_t need, char *const *keep, size_t nkeep,
                  uint64_t *kept_bytes, char *why, size_t whylen);
void cache_room_lock(void);
void cache_room_unlock(uint64_t landed);

#endif

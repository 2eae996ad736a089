/* fetch_cache.h - feed-fetch's cache directory (fetch_cache.c says how it is laid out). */
#ifndef FEED_FETCH_CACHE_H
#define FEED_FETCH_CACHE_H

#include <stddef.h>
#include <stdint.h>

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

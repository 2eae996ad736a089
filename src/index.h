/*
 * index.h - the dataset index: one compact table of (path, label), built once
 * by the parent and shared read-only with the workers through a memfd.
 *
 * Layout (one allocation, position independent, offsets from the header):
 *   feed__index_hdr | entries[count] | class name offsets[nclasses] | string pool
 * (the class name offsets only for an ImageFolder, named_classes = 1).
 * Paths in the pool are relative to hdr->root (absolute ones are kept as is).
 *
 * Kind FEED__INDEX_NPY (npy.h) has no entries: every sample is one record
 * of the array file named by the pool's one path, described by hdr->npy,
 * with its label in the int32 table at labels_off.
 */
#ifndef FEED_INDEX_H
#define FEED_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "feed.h"
#include "npy.h"

#define FEED_INDEX_MAGIC 0x5844494445454621ull /* "!FEEDIDX" */
#define FEED_INDEX_VERSION 2u

/* Source kinds (hdr->kind). */
enum { FEED__INDEX_FILES = 0, FEED__INDEX_NPY = 1 };
/* Labels are int32 (feed_batch.labels): 0..FEED_MAX_LABEL, so at most
 * FEED_MAX_LABEL + 1 classes. Index memory does not depend on the labels: a
 * file list has no per-class table, an ImageFolder one entry per folder. */
#define FEED_MAX_LABEL 2147483647u

typedef struct feed__index_entry {
    uint64_t path_off; /* into the pool */
    int32_t label;
    uint32_t path_len;
} feed__index_entry;

typedef struct feed__index_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t nclasses;
    uint32_t named_classes; /* 1: ImageFolder (class names in the pool) */
    uint32_t kind;          /* FEED__INDEX_FILES or FEED__INDEX_NPY */
    uint64_t count;
    uint64_t total_bytes;
    uint64_t entries_off, classes_off, pool_off, pool_bytes;
    char root[FEED_PATH_MAX]; /* absolute directory the paths are relative to */
    /* kind FEED__INDEX_NPY only */
    feed__npy_images npy;
    uint64_t labels_off; /* int32[count] */
} feed__index_hdr;

/* Names of skipped files kept for the report, and the room they have. */
#define FEED_INDEX_SKIPPED_SHOWN 5u
#define FEED_INDEX_SKIPPED_NAMES 512

typedef struct feed__index {
    feed__index_hdr *hdr; /* the whole index starts here */
    int fd;               /* memfd holding it (-1 if not shared yet) */
    int owned_map;        /* 1: hdr is an mmap of fd; 0: malloc'd */
    /* ImageFolder: regular files in class folders whose extension is not an
     * image's (.txt, .gif, ...), left out; the first few by name, relative
     * to the root, ", "-separated. Builder's side only (not shared). */
    uint64_t skipped;
    char skipped_names[FEED_INDEX_SKIPPED_NAMES];
} feed__index;

/* Builds the index: an ImageFolder tree when source is a directory and
 * file_list is empty; a .npy array (by its magic bytes) when source is one;
 * else a "path label" list (file_list, or source when it is a file). Errors
 * name the path and, for lists, the line. */
feed_status feed__index_build(feed__index *ix, const char *source, const char *file_list,
                              char *err, size_t errlen);

/* What to index, with everything feed__index_build does not ask for. */
typedef struct feed__index_spec {
    const char *source, *file_list;
    const char *labels;          /* .npy labels of a .npy source ("" or NULL: none) */
    uint32_t scan_cache;         /* ImageFolder: 1 = reuse a saved scan, save a new one (scancache.h) */
    const char *scan_cache_path; /* "" or NULL: ROOT/.libfeed-scan */
    char *note;                  /* out: what happened to the saved scan, "" if nothing to say */
    size_t notelen;
    int *cache_hit;              /* out (if not NULL): 1 when the saved scan was used */
} feed__index_spec;
feed_status feed__index_build_spec(feed__index *ix, const feed__index_spec *s, char *err, size_t errlen);
/* The folder scan's rules (which names are images, the index version) as a
 * number, so a saved scan made under other rules is not reused. */
uint32_t feed__index_scan_rules(void);
/* Moves the index into a sealed memfd (fd kept in ix->fd) for the workers. */
feed_status feed__index_share(feed__index *ix, char *err, size_t errlen);
/* Maps a shared index read-only from fd and checks its header (workers). */
feed_status feed__index_attach(feed__index *ix, int fd, char *err, size_t errlen);
void feed__index_free(feed__index *ix);

static inline const feed__index_entry *feed__index_entries(const feed__index_hdr *h)
{
    return (const feed__index_entry *)((const char *)h + h->entries_off);
}
/* Sample i's file (an array's: the array file, the same for every i). */
static inline const char *feed__index_path(const feed__index_hdr *h, uint64_t i)
{
    if (h->kind == FEED__INDEX_NPY)
        return (const char *)h + h->pool_off;
    return (const char *)h + h->pool_off + feed__index_entries(h)[i].path_off;
}
static inline int32_t feed__index_label(const feed__index_hdr *h, uint64_t i)
{
    if (h->kind == FEED__INDEX_NPY)
        return ((const int32_t *)((const char *)h + h->labels_off))[i];
    return feed__index_entries(h)[i].label;
}
static inline const char *feed__index_class(const feed__index_hdr *h, uint32_t c)
{
    const uint64_t *offs = (const uint64_t *)((const char *)h + h->classes_off);
    return (const char *)h + h->pool_off + offs[c];
}

#endif

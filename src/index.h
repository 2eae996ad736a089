/*
 * index.h - the dataset index: one compact table of (path, label), built once
 * by the parent and shared read-only with the workers through a memfd.
 *
 * Layout (one allocation, position independent, offsets from the header):
 *   feed__index_hdr | entries[count] | class name offsets[nclasses] | string pool
 * (the class name offsets only for an ImageFolder, named_classes = 1).
 * Paths in the pool are relative to hdr->root (absolute ones are kept as is).
 */
#ifndef FEED_INDEX_H
#define FEED_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "feed.h"

#define FEED_INDEX_MAGIC 0x5844494445454621ull /* "!FEEDIDX" */
#define FEED_INDEX_VERSION 1u
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
    uint32_t pad;
    uint64_t count;
    uint64_t total_bytes;
    uint64_t entries_off, classes_off, pool_off, pool_bytes;
    char root[FEED_PATH_MAX]; /* absolute directory the paths are relative to */
} feed__index_hdr;

typedef struct feed__index {
    feed__index_hdr *hdr; /* the whole index starts here */
    int fd;               /* memfd holding it (-1 if not shared yet) */
    int owned_map;        /* 1: hdr is an mmap of fd; 0: malloc'd */
} feed__index;

/* Builds the index: an ImageFolder tree when source is a directory and
 * file_list is empty; else a "path label" list (file_list, or source when it is
 * a file). Errors name the path and, for lists, the line. */
feed_status feed__index_build(feed__index *ix, const char *source, const char *file_list,
                              char *err, size_t errlen);
/* Moves the index into a sealed memfd (fd kept in ix->fd) for the workers. */
feed_status feed__index_share(feed__index *ix, char *err, size_t errlen);
/* Maps a shared index read-only from fd and checks its header (workers). */
feed_status feed__index_attach(feed__index *ix, int fd, char *err, size_t errlen);
void feed__index_free(feed__index *ix);

static inline const feed__index_entry *feed__index_entries(const feed__index_hdr *h)
{
    return (const feed__index_entry *)((const char *)h + h->entries_off);
}
static inline const char *feed__index_path(const feed__index_hdr *h, uint64_t i)
{
    return (const char *)h + h->pool_off + feed__index_entries(h)[i].path_off;
}
static inline int32_t feed__index_label(const feed__index_hdr *h, uint64_t i)
{
    return feed__index_entries(h)[i].label;
}
static inline const char *feed__index_class(const feed__index_hdr *h, uint32_t c)
{
    const uint64_t *offs = (const uint64_t *)((const char *)h + h->classes_off);
    return (const char *)h + h->pool_off + offs[c];
}

/*
 * The image format data starts with, by its magic bytes: "JPEG", "PNG",
 * "GIF", "WebP", "BMP", "TIFF", "HEIF", "AVIF", "JPEG XL"; NULL if none. Used
 * to say "this is an image" where a file list (index.c) or a JPEG (jpeg.c)
 * was expected. Every magic but JPEG's and JPEG XL's holds a byte no text
 * file list has (NUL, 0x89) or a 4-byte signature, so text is never taken
 * for an image.
 */
static inline const char *feed__image_format(const uint8_t *p, size_t n)
{
    if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF)
        return "JPEG";
    if (n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8))
        return "PNG";
    if (n >= 6 && (!memcmp(p, "GIF87a", 6) || !memcmp(p, "GIF89a", 6)))
        return "GIF";
    if (n >= 12 && !memcmp(p, "RIFF", 4) && !memcmp(p + 8, "WEBP", 4))
        return "WebP";
    if (n >= 10 && p[0] == 'B' && p[1] == 'M' && !memcmp(p + 6, "\0\0\0\0", 4))
        return "BMP";
    if (n >= 4 && (!memcmp(p, "II*\0", 4) || !memcmp(p, "MM\0*", 4)))
        return "TIFF";
    if (n >= 12 && !memcmp(p + 4, "ftyp", 4)) {
        const uint8_t *b = p + 8;
        if (!memcmp(b, "avif", 4) || !memcmp(b, "avis", 4))
            return "AVIF";
        static const char heif[][5] = {"heic", "heix", "hevc", "hevx", "heim", "heis",
                                       "hevm", "hevs", "mif1", "msf1"};
        for (size_t i = 0; i < sizeof heif / sizeof *heif; i++)
            if (!memcmp(b, heif[i], 4))
                return "HEIF";
    }
    if ((n >= 2 && p[0] == 0xFF && p[1] == 0x0A) ||
        (n >= 12 && !memcmp(p, "\0\0\0\x0cJXL \r\n\x87\n", 12)))
        return "JPEG XL";
    return NULL;
}

#endif

/*
 * index.h - the dataset index: one compact table of (path, label), built once
 * by the parent and shared read-only with the workers through a memfd.
 *
 * Where each part is: source.c picks the source and builds its index
 * (folder.c an ImageFolder tree, filelist.c a "path label" list, shards.c tar
 * shards, npy.c a .npy array; builder.c lays out the first three); index.c
 * shares the index, attaches to it and frees it.
 *
 * Layout (one allocation, position independent, offsets from the header):
 *   feed__index_hdr | entries[count] | class name offsets[nclasses]
 *   | shard path offsets[nshards] | string pool
 *   | extra label starts[count + 1] | extra labels[nextra] | key offsets[count]
 *   | member offsets[count x nmeta] | member lengths[count x nmeta]
 * (the class name offsets only for an ImageFolder, named_classes = 1; the
 * shard table and the key offsets only for tar shards, kind =
 * FEED_INDEX_SHARDS; the extra labels only when some sample has several
 * labels, nextra > 0; the member tables only for tar shards read with
 * meta_members, nmeta > 0).
 *
 * Labels: a sample's first label is its entry's; a multi-label sample's
 * others are extra labels[starts[i] .. starts[i + 1]), in the order the
 * source gave them. So a single-label index is 16 bytes a sample, as it
 * has always been, and a multi-label one 16 + 4 + 4 * (labels - 1).
 * Paths in the pool are relative to hdr->root (absolute ones are kept as is),
 * each stored once: a file's path per sample, a shard's path per shard.
 * A shard member's WebDataset key ("sample_0007" of "sample_0007.jpg") is
 * in the pool too, found by its uint32 offset in the key table (4 bytes a
 * sample plus the key and its NUL): it names the sample in reports and
 * feed_loader_sample_info ("SHARD.tar:KEY"); the worker never reads it.
 * A shard sample's metadata members (meta_members: KEY.json, KEY.txt, ...)
 * are byte ranges of its shard too: member j of sample i at offset
 * moffs[i * nmeta + j] (FEED_INDEX_NO_MEMBER: the sample has none),
 * mlens[...] bytes; 12 bytes a sample a member. The worker reads them
 * beside the image; the parent checks what it wrote against these lengths.
 *
 * Every sample of kinds FILES and SHARDS is a byte range of a file: a whole
 * file (ImageFolder, file list) or a member of a tar shard. The worker and the
 * read-ahead ask feed__index_path and feed__index_range, never those kinds.
 *
 * Kind FEED_INDEX_NPY (npy.h) has no entries: every sample is one record
 * of the array file named by the pool's one path, described by hdr->npy,
 * with its label in the int32 table at labels_off; its samples are pixels,
 * not encoded images, and the worker reads them on a path of their own.
 */
#ifndef FEED_INDEX_H
#define FEED_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dataset/npy_images.h"
#include "feed.h"

#define FEED_INDEX_MAGIC 0x5844494445454621ull /* "!FEEDIDX" */
#define FEED_INDEX_VERSION 5u
/* Labels are int32 (feed_batch.labels): 0..FEED_MAX_LABEL, so at most
 * FEED_MAX_LABEL + 1 classes. Index memory does not depend on the labels: a
 * file list has no per-class table, an ImageFolder one entry per folder. */
#define FEED_MAX_LABEL 2147483647u
/* Labels of one sample (multi_label=1), at most; more is an error naming the
 * line or member. Extra labels of an index (all samples), at most: the
 * starts are uint32. */
#define FEED_MAX_SAMPLE_LABELS 1024u
#define FEED_MAX_EXTRA_LABELS 0xFFFFFFFFull

/* 16 bytes a sample for kinds FILES and SHARDS (NPY has no entries):
 *   files:  path_off = offset of the path in the pool, path_len = its length;
 *   shards: path_off = shard id << 40 | offset of the member's data in the
 *           shard, path_len = the member's length. So a shard holds at most
 *           1 TiB, an index at most 2^24 shards, a member at most 4 GiB
 *           (more shards: an error; a member past those limits: reported
 *           and skipped like a malformed one). */
typedef struct feed__index_entry {
    uint64_t path_off;
    int32_t label;
    uint32_t path_len;
} feed__index_entry;

/* Source kinds (hdr->kind). */
enum { FEED_INDEX_FILES = 0, FEED_INDEX_SHARDS = 1, FEED_INDEX_NPY = 2 };
#define FEED_INDEX_SHARD_SHIFT 40
#define FEED_INDEX_MAX_SHARDS (1u << 24)
#define FEED_INDEX_MAX_SHARD_OFFSET ((1ull << FEED_INDEX_SHARD_SHIFT) - 1)

typedef struct feed__index_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t nclasses;
    uint32_t named_classes; /* 1: ImageFolder (class names in the pool) */
    uint32_t kind;          /* FEED_INDEX_FILES, FEED_INDEX_SHARDS or FEED_INDEX_NPY */
    uint64_t count;
    uint64_t total_bytes;
    uint64_t entries_off, classes_off, pool_off, pool_bytes;
    uint64_t shards_off, nshards; /* kind SHARDS: nshards path offsets into the pool */
    uint64_t problems;            /* malformed members skipped while indexing (reported) */
    char root[FEED_PATH_MAX]; /* absolute directory the paths are relative to */
    /* kind FEED_INDEX_NPY only */
    feed__npy_images npy;
    uint64_t labels_off; /* int32[count] */
    /* several labels a sample (multi_label=1): nextra > 0 */
    uint64_t xstarts_off, xlabels_off; /* uint32[count + 1], int32[nextra] */
    uint64_t nextra;
    uint32_t max_labels; /* labels of the sample with the most (1 for a single-label index) */
    uint32_t reserved;
    /* kind SHARDS: uint32[count], each sample's key as an offset into the
     * pool (FEED_INDEX_NO_KEY: none kept, the pool was past 4 GiB); 0 for
     * the other kinds */
    uint64_t keys_off;
    /* kind SHARDS with metadata members: nmeta per sample (0: none) */
    uint32_t nmeta, reserved2;
    uint64_t moffs_off, mlens_off; /* uint64[count x nmeta], uint32[count x nmeta] */
} feed__index_hdr;
#define FEED_INDEX_NO_KEY UINT32_MAX
#define FEED_INDEX_NO_MEMBER UINT64_MAX
/* Metadata members a sample, at most (meta_members). */
#define FEED_INDEX_MAX_META 4u

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
    /* Tar shards: the first malformed member's report (hdr->problems counts
     * them all), as stderr had it. Builder's side only. */
    char first_problem[FEED_INDEX_SKIPPED_NAMES];
} feed__index;

/* Builds the index (source.c): tar shards when source is a shard pattern, a .tar file or
 * a list of .tar paths (shards.h); an ImageFolder tree when source is a
 * directory and file_list is empty; a .npy array (by its magic bytes) when
 * source is one; else a "path label" list (file_list, or source when it is a
 * file). Errors name the path and, for lists, the line; malformed shard
 * members are reported on stderr and skipped (hdr->problems). */
feed_status feed__index_build(feed__index *ix, const char *source, const char *file_list,
                              char *err, size_t errlen);

/* What to index, with everything feed__index_build does not ask for. */
struct feed__tar_io;
typedef struct feed__index_spec {
    const char *source, *file_list;
    uint32_t multi_label;        /* 1: a line or .cls member may hold several labels; 0: an error */
    uint32_t allow_empty_classes; /* ImageFolder: 1 = a class folder without images is kept */
    const char *labels;          /* .npy labels of a .npy source ("" or NULL: none) */
    uint32_t scan_cache;         /* ImageFolder: 1 = reuse a saved scan, save a new one (scancache.h) */
    const char *scan_cache_path; /* "" or NULL: ROOT/.libfeed-scan */
    char *note;                  /* out: what happened to the saved scan, "" if nothing to say */
    size_t notelen;
    int *cache_hit;              /* out (if not NULL): 1 when the saved scan was used */
    const char *target_columns;  /* a .csv/.tsv list's target columns, "a:b:c" ("" or NULL: none) */
    const char *target_member;   /* tar shards: each sample's KEY.<this> .npy member as its target */
    struct feed__targets *targets; /* out (if not NULL): their values, zeroed when none */
    const char *const *meta_exts; /* tar shards: the metadata members' extensions ("json", "txt") */
    uint32_t nmeta;               /* how many (at most FEED_INDEX_MAX_META) */
    char *const *shard_paths;    /* tar shards found already (remote ones, in the cache), in their
                                    order: used instead of source and file_list; NULL: none */
    size_t nshard_paths;
    /* With shard_paths: how the scan opens and closes shard i (NULL: the
     * files as they are, feed__shards_open); ctx is the caller's. */
    feed_status (*shard_open)(void *ctx, uint32_t i, struct feed__tar_io *io, char *err, size_t errlen);
    void (*shard_close)(void *ctx, struct feed__tar_io *io);
    void *shard_ctx;
} feed__index_spec;
feed_status feed__index_build_spec(feed__index *ix, const feed__index_spec *s, char *err, size_t errlen);
/* The folder scan's rules (which names are images, the index version) as a
 * number, so a saved scan made under other rules is not reused (folder.c). */
uint32_t feed__index_scan_rules(void);
/* Moves the index into a sealed memfd (fd kept in ix->fd) for the workers (index.c). */
feed_status feed__index_share(feed__index *ix, char *err, size_t errlen);
/* Maps a shared index read-only from fd and checks its header (workers). */
feed_status feed__index_attach(feed__index *ix, int fd, char *err, size_t errlen);
void feed__index_free(feed__index *ix);

struct feed__tar_io;
/* Opens shard i of paths[0..n) for the scan (fd, size) or fails. */
typedef feed_status (*feed__shard_open_fn)(void *ctx, uint32_t i, struct feed__tar_io *io, char *err, size_t errlen);
typedef void (*feed__shard_close_fn)(void *ctx, struct feed__tar_io *io);
/* Builds a shard index from n shards (paths relative to root, or absolute),
 * scanning each through open/close: files for feed__index_build, generated
 * headers for bench/indexbench (shards.c); multi_label: a .cls member may
 * hold several labels (feed__tar_sink). */
feed_status feed__index_build_shards(feed__index *ix, const char *root, char *const *paths, size_t n,
                                     feed__shard_open_fn open, feed__shard_close_fn close, void *ctx,
                                     uint32_t multi_label, char *err, size_t errlen);
/* The members a shard index takes beside the image and the label. */
struct feed__targets;
typedef struct feed__shard_members {
    uint32_t multi_label;
    /* target_ext ("npy"): each sample's KEY.<target_ext> member read as its
     * target row into *targets (shards.c says what is accepted; a sample
     * without one is reported and skipped) */
    const char *target_ext;
    struct feed__targets *targets;
    /* each sample's KEY.<meta_exts[j]> members as byte ranges (nmeta tables) */
    const char *const *meta_exts;
    uint32_t nmeta;
} feed__shard_members;
feed_status feed__index_build_shards_with(feed__index *ix, const char *root, char *const *paths, size_t n,
                                          feed__shard_open_fn open, feed__shard_close_fn close, void *ctx,
                                          const feed__shard_members *mem, char *err, size_t errlen);

static inline const feed__index_entry *feed__index_entries(const feed__index_hdr *h)
{
    return (const feed__index_entry *)((const char *)h + h->entries_off);
}
/* The file sample i is read from (relative to root, or absolute; an array's:
 * the array file, the same for every i). */
static inline const char *feed__index_path(const feed__index_hdr *h, uint64_t i)
{
    if (h->kind == FEED_INDEX_NPY)
        return (const char *)h + h->pool_off;
    const feed__index_entry *e = &feed__index_entries(h)[i];
    if (h->kind == FEED_INDEX_SHARDS) {
        const uint64_t *offs = (const uint64_t *)((const char *)h + h->shards_off);
        return (const char *)h + h->pool_off + offs[e->path_off >> FEED_INDEX_SHARD_SHIFT];
    }
    return (const char *)h + h->pool_off + e->path_off;
}
/* 1 and the byte range [*off, *off + *len) of the file when sample i is part
 * of a file (a shard member); 0 when it is the whole file (or an array's
 * record, which the worker locates from hdr->npy). */
static inline int feed__index_range(const feed__index_hdr *h, uint64_t i, uint64_t *off, uint64_t *len)
{
    if (h->kind != FEED_INDEX_SHARDS)
        return 0;
    const feed__index_entry *e = &feed__index_entries(h)[i];
    *off = e->path_off & FEED_INDEX_MAX_SHARD_OFFSET;
    *len = e->path_len;
    return 1;
}
/* Sample i's WebDataset key (a shard member), or NULL (another kind, or
 * none kept). */
static inline const char *feed__index_key(const feed__index_hdr *h, uint64_t i)
{
    if (h->kind != FEED_INDEX_SHARDS || !h->keys_off)
        return NULL;
    uint32_t k = ((const uint32_t *)((const char *)h + h->keys_off))[i];
    return k == FEED_INDEX_NO_KEY ? NULL : (const char *)h + h->pool_off + k;
}
/* How sample i is named wherever it is shown (reports, feed_loader_sample_info):
 * the absolute path of its file; "ARRAY.npy[i]" for an array's row;
 * "SHARD.tar:KEY" for a shard member ("SHARD.tar[START:END]", its bytes,
 * when no key is kept). Returns what snprintf does (index.c). */
int feed__index_name(const feed__index_hdr *h, uint64_t i, char *buf, size_t len);
/* Kind SHARDS: the first sample id of shard s (count for s >= nshards), so
 * shard s holds samples [start(s), start(s + 1)) (none for a shard whose
 * members were all skipped). Sample ids follow the shard order, so a start
 * is a binary search of the entries' shard ids: O(log count) (index.c). */
uint64_t feed__index_shard_start(const feed__index_hdr *h, uint64_t s);
/* Every shard's: starts[0 .. nshards], starts[nshards] = count. */
void feed__index_shard_starts(const feed__index_hdr *h, uint64_t *starts);
/* The samples of sample i's tar shard: [*first, *first + *count); of another
 * kind, the whole index. */
static inline void feed__index_shard_span(const feed__index_hdr *h, uint64_t i, uint64_t *first, uint64_t *count)
{
    if (h->kind != FEED_INDEX_SHARDS || i >= h->count) {
        *first = 0, *count = h->count;
        return;
    }
    uint64_t sh = feed__index_entries(h)[i].path_off >> FEED_INDEX_SHARD_SHIFT;
    *first = feed__index_shard_start(h, sh);
    *count = feed__index_shard_start(h, sh + 1) - *first;
}
/* Metadata member j of sample i: 1 and its byte range in the sample's
 * shard, or 0 when the sample has none (or the index keeps none). */
static inline int feed__index_member(const feed__index_hdr *h, uint64_t i, uint32_t j, uint64_t *off, uint32_t *len)
{
    if (j >= h->nmeta)
        return 0;
    uint64_t o = ((const uint64_t *)((const char *)h + h->moffs_off))[i * h->nmeta + j];
    *off = o;
    *len = ((const uint32_t *)((const char *)h + h->mlens_off))[i * h->nmeta + j];
    return o != FEED_INDEX_NO_MEMBER;
}
static inline int32_t feed__index_label(const feed__index_hdr *h, uint64_t i)
{
    if (h->kind == FEED_INDEX_NPY)
        return ((const int32_t *)((const char *)h + h->labels_off))[i];
    return feed__index_entries(h)[i].label;
}
/* Labels of sample i: returns how many (1 unless multi-label); the first is
 * feed__index_label, the others *extra[0 .. n - 1). */
static inline uint32_t feed__index_labels(const feed__index_hdr *h, uint64_t i, const int32_t **extra)
{
    *extra = NULL;
    if (!h->nextra)
        return 1;
    const uint32_t *st = (const uint32_t *)((const char *)h + h->xstarts_off);
    *extra = (const int32_t *)((const char *)h + h->xlabels_off) + st[i];
    return 1 + st[i + 1] - st[i];
}
static inline const char *feed__index_class(const feed__index_hdr *h, uint32_t c)
{
    const uint64_t *offs = (const uint64_t *)((const char *)h + h->classes_off);
    return (const char *)h + h->pool_off + offs[c];
}

#endif

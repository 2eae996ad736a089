/*
 * shardcache.h - a tar-shard index saved to a file and loaded again without
 * the shards: remote shards (remote/) are indexed once, and a second run,
 * another rank or a resumed job starts from the saved index instead of
 * fetching and scanning every shard first (the shards are fetched later,
 * while the run reads them).
 *
 * The file holds the index exactly as feed__index_build_shards_with built it
 * (kind FEED_INDEX_SHARDS), with
 *   - what the loader reports beside it: the first malformed member's report
 *     (feed__index.first_problem; their count is hdr->problems), so a loaded
 *     index reports the same problems as the build did (the per-member lines
 *     the build printed on stderr are not repeated: the caller may print the
 *     count and the first one);
 *   - the target rows of target_member (feed__shard_members.targets);
 *   - the members options the index was built with: multi_label, target_ext,
 *     meta_exts (in order), compared with the caller's at load, so the key
 *     need not hold them (it may);
 *   - the caller's key: opaque bytes, compared byte for byte at load. The
 *     caller puts in it what the shards' bytes depend on and this file cannot
 *     check without them: each shard's URL with its version (ETag or
 *     Last-Modified) and size.
 * What it checks itself: the libfeed version that wrote it (the tar rules
 * and the index layout are this version's), checksums, the shard paths (the
 * caller's, exactly, in order), and the whole index as untrusted input (the
 * workers read it), as feed__shardcache_parse says.
 *
 * File layout (little-endian, as the machine writes it; a file from another
 * architecture fails the checks and is rebuilt):
 *   0   "FEEDSHC1"         8   u32 file version, u32 FEED_VERSION_NUMBER
 *   16  u64 total bytes    24  u64 checksum of bytes [32, 128) (this header)
 *   32  u64 index_bytes    40  u64 its checksum      (the index at 128)
 *   48  u64 targets_bytes  56  u64 their checksum    (after the index)
 *   64  u32 targets dim    68  u32 targets dtype (FEED_TARGET_*; 0: none)
 *   72  u64 key_bytes      80  u64 options_bytes     88  u64 problem_bytes
 *   96  u64 checksum of key | options | first problem (after the targets)
 *   104..128 zero
 * The options: '0' or '1' (multi_label), then target_ext and each meta
 * extension, each with a NUL ("0npy\0json\0txt\0"). The first problem: its
 * text without a NUL (none when hdr->problems is 0).
 */
#ifndef FEED_SHARDCACHE_H
#define FEED_SHARDCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "dataset/index.h"
#include "dataset/targets.h"

#define FEED_SHARDCACHE_HEADER_BYTES 128u
/* The options of one index, at most (four extensions of a few bytes each). */
#define FEED_SHARDCACHE_OPTIONS_MAX 512u

/*
 * Saves the shard index ix (as built by feed__index_build_shards_with with
 * the options mem; NULL: none) to path: a temporary file in the same folder,
 * fsync, rename over path (feed__file_replace), so a reader sees a whole file
 * or none. With mem->target_ext, mem->targets must hold the build's rows
 * (they are saved too). key[0..keylen): see above. The index is checked as a
 * load would check it before it is written (a file no load would accept is
 * not written). 0, or -1 with why (why is "" on success).
 */
int feed__shardcache_save(const char *path, const feed__index *ix, const feed__shard_members *mem,
                          const void *key, size_t keylen, char *why, size_t whylen);

/*
 * Loads the saved index at path for shards shard_paths[0..n) (the strings the
 * build was given, in its order), key[0..keylen) and the options mem (NULL:
 * none). 1: ix holds the index (ix->hdr feed__malloc'd, ix->hdr->total_bytes
 * bytes, ix->fd -1: feed__index_free frees it; ix->first_problem its first
 * problem's report, "" when none), and with mem->target_ext and
 * mem->targets, *mem->targets its rows (feed__targets_free frees them).
 * 0: not usable, ix empty (hdr NULL) and *mem->targets zeroed: the file is
 * missing (why ""), or unreadable, corrupt, of another version, key, options
 * or shard list (the reason in why). Touches no shard; never crashes on any
 * file content.
 */
int feed__shardcache_load(const char *path, const void *key, size_t keylen, char *const *shard_paths, size_t n,
                          const feed__shard_members *mem, feed__index *ix, char *why, size_t whylen);

/* A saved index, checked (feed__shardcache_parse): pointers into its bytes. */
typedef struct feed__shardcache_view {
    const feed__index_hdr *index; /* index_bytes of a valid shard index */
    uint64_t index_bytes;
    const uint8_t *key; /* the saved key, key_bytes */
    uint64_t key_bytes;
    const uint8_t *options; /* as the file layout above, options_bytes */
    uint64_t options_bytes;
    const char *problem; /* the first problem, problem_bytes, no NUL */
    uint64_t problem_bytes;
    feed__targets targets; /* data into the file; dim 0: none */
} feed__shardcache_view;

/*
 * Checks the bytes of a saved shard index: magic, versions, sizes,
 * checksums, the options, and the index as untrusted input:
 *   - its header: this version, kind SHARDS, its size the file's (whole
 *     pages), no fields of the other kinds, the root an absolute path
 *     NUL-terminated in it (zeros after the NUL);
 *   - every table (entries, shard paths, pool, extra labels, keys, member
 *     ranges) aligned, in the builder's order, none overlapping, inside,
 *     and zeros between them and after the last, as the builder leaves them;
 *   - the pool ends with a NUL, every shard path and key offset inside it
 *     (so every string is NUL-terminated inside the pool), paths not empty;
 *   - each sample's shard (path_off >> 40) below nshards, the samples
 *     grouped by shard in shard order, each image member block-aligned after
 *     its header and after the previous sample's of its shard;
 *   - labels >= 0 and below nclasses, nclasses the largest + 1; extra label
 *     starts from 0, non-decreasing, ending at nextra, at most
 *     FEED_MAX_SAMPLE_LABELS a sample (max_labels the most), none twice; extra
 *     labels only with multi_label;
 *   - nmeta the options' extensions; each member range none (length 0) or
 *     block-aligned, its blocks apart from the image's and the others';
 *   - problems counted iff a first problem is kept (< FEED_INDEX_SKIPPED_NAMES
 *     bytes, no NUL);
 *   - targets iff the options have target_ext: one row a sample, float32 or
 *     int64, 1..FEED_NPY_MAX_TARGET_DIM values a row.
 * Does not compare the key, the options or the shard paths with anyone's
 * (feed__shardcache_load does). Pure: touches nothing but buf. 0 and *v, or
 * -1 with the reason in why.
 */
int feed__shardcache_parse(const uint8_t *buf, size_t n, feed__shardcache_view *v, char *why, size_t whylen);

/* Makes the checksums of the file buf[0..n) right (its sizes as they are):
 * the save's last step, exposed for the tests and the fuzzer, which change a
 * file and make it consistent again so that the checks behind the checksums
 * are what refuses it. Does nothing when n is under the header. */
void feed__shardcache_seal(uint8_t *buf, size_t n);

#endif /* FEED_SHARDCACHE_H */

/*
 * tar.h - WebDataset tar shards: scan a shard's 512-byte headers once and
 * hand out its samples as (offset, length, label) of the image member.
 *
 * Members are grouped by key, as WebDataset does: the member's path up to the
 * first '.' of its last component ("a/b/x01.seg.jpg" is key "a/b/x01",
 * extension "seg.jpg"). A sample is a run of consecutive members with one key
 * holding exactly one image member (jpg, jpeg, png, webp; any case) and one
 * label member (cls: the label as decimal text, 0..2147483647); other members
 * (json, txt, ...) are ignored unless the sink asks for them (target_ext,
 * meta_exts). Formats read: POSIX ustar (name + prefix), pax
 * extended headers (path, size), GNU long names ('L'); base-256 sizes.
 *
 * A malformed shard loses only what is broken: each problem (bad header
 * checksum, a member past the end of the shard, a sample without label or
 * image member, a key seen before, a label that is not a number) is reported
 * with the shard path, the member name and its header offset, and the scan
 * goes on (after a bad checksum, at the next block that is a valid header).
 */
#ifndef FEED_TAR_H
#define FEED_TAR_H

#include <stddef.h>
#include <stdint.h>

#include "dataset/tar_header.h"
#include "feed.h"

/* Where the scanner reads a shard: a file (feed__tar_scan_fd) or, for the
 * index benchmark and tests, anything else. read returns the bytes read
 * (short only at the end) or a negative errno. */
typedef struct feed__tar_io {
    int64_t (*read)(void *ctx, void *buf, size_t n, uint64_t off);
    void *ctx;
    uint64_t size; /* bytes in the shard */
} feed__tar_io;

/* What the scan finds. sample: the image member (its name and header
 * offset, for reports; its data at off, len bytes) and its labels (nlabels
 * >= 1, the first the sample's label); returns 0,
 * or nonzero to stop (out of memory; the scan then fails with FEED_E_NOMEM).
 * problem: one line about one member (member may be "" when no name could be
 * read); the scan goes on. */
typedef struct feed__tar_sink {
    int (*sample)(void *ctx, const char *member, uint64_t hdr_off, uint64_t off, uint64_t len,
                  const int32_t *labels, uint32_t nlabels);
    void (*problem)(void *ctx, const char *shard, const char *member, uint64_t off, const char *what);
    void *ctx;
    /* 0: the label member holds one label (its text at most 32 bytes);
     * several are a problem naming the member. 1: one or more, separated by
     * whitespace or commas, none twice, the text at most 512 bytes. */
    uint32_t multi_label;
    /* With target_ext ("npy": KEY.npy), a sample needs that member too (its
     * absence is a problem, the sample skipped), and target gets its bytes
     * (at most FEED_TAR_TARGET_MAX; more is a problem) just before sample:
     * 0 to go on, 1 when the sink rejects them (it reported why; the sample
     * is skipped), -1 to stop. */
    const char *target_ext;
    int (*target)(void *ctx, const char *member, uint64_t hdr_off, const uint8_t *bytes, size_t n);
    /* With nmeta metadata extensions (meta_exts[j]: "json" for KEY.json),
     * members just before sample: each one's data range (off UINT64_MAX and
     * len 0 when the sample has none); a second member of one extension is
     * a problem, the sample skipped. 0 to go on, -1 to stop. The bytes are
     * not read. */
    const char *const *meta_exts;
    uint32_t nmeta;
    int (*members)(void *ctx, const uint64_t *off, const uint64_t *len);
} feed__tar_sink;
#define FEED_TAR_META_MAX 4u

#define FEED_TAR_TARGET_MAX (64u << 10)

/* Scans one shard (shown as path in reports). Returns FEED_OK (problems are
 * reported, not returned), FEED_E_IO when the shard cannot be read at all,
 * FEED_E_NOMEM. err gets the message. */
feed_status feed__tar_scan(const feed__tar_io *io, const char *path, const feed__tar_sink *sink,
                           char *err, size_t errlen);


/* 1 if name (a member's last component) names an image member / the label. */
int feed__tar_is_image_ext(const char *ext);

#endif

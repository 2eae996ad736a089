/* options.h - internal: copy and validate feed_options. */
#ifndef FEED_OPTIONS_H
#define FEED_OPTIONS_H

#include "feed.h"

#define FEED_MAX_BATCH 65536u
/* Widest soft labels (num_classes with MixUp, CutMix or label smoothing). */
#define FEED_MAX_SOFT_CLASSES 100000u
#define FEED_MAX_WORKERS 250u
/* sample_timeout_ms is 0 (never) or at least this. */
#define FEED_MIN_SAMPLE_TIMEOUT_MS 100u
/* max_worker_memory is 0 (no cap) or at least this. */
#define FEED_MIN_WORKER_MEMORY (16ull << 20)
/* layout "not set": HWC for uint8, CHW for floats (resolved by validate). */
#define FEED_OPT_LAYOUT_DEFAULT 0xffu

/* An unsigned decimal (or 0x hex) number, the whole of s: 0, or -1 (a sign,
 * junk, overflow, empty). */
int feed__parse_u64(const char *s, uint64_t *out);
/* Copies the caller's options over the defaults (only struct_size bytes). */
feed_status feed__options_copy(feed_options *dst, const feed_options *src, char *err, size_t errlen);
/* A launcher's view of this process (feed.h, FEED_RANK_AUTO). */
typedef struct feed__launcher {
    const char *name;               /* "torchrun", "openmpi", "pmi", "mvapich", "slurm" */
    const char *rank_var, *size_var; /* the variables read */
    uint32_t rank, size;
    uint32_t local; /* local rank, FEED_RANK_AUTO if not given */
} feed__launcher;

/* The first launcher whose variables are set: 1 and *l filled; 0 if none
 * (err empty) or if its values are unusable (err says which). */
int feed__launcher_find(feed__launcher *l, char *err, size_t errlen);

/* meta_max_bytes, at most. */
#define FEED_MAX_META_BYTES (16u << 20)
/* meta_members split at ':' into exts[0 .. return): 0..4 extensions, each
 * 1..31 bytes of [A-Za-z0-9_-] and '.' (not first), none twice, none an
 * image's, cls or target_member; -1 with why otherwise. */
int feed__options_meta_members(const feed_options *o, char exts[][32], char *why, size_t whylen);

/* Checks every field; resolves defaults that depend on others (and
 * rank/world_size=auto, from the launcher). */
feed_status feed__options_validate(feed_options *o, char *err, size_t errlen);

#endif

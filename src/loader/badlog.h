/*
 * badlog.h - the loader's record of bad samples: every sample delivered as a
 * replacement is counted, each (epoch, sample) is reported once with its
 * path and reason, and poison pills the pool quarantined are looked up when
 * a batch is assigned, so they go straight to a substitute. (The pool keeps
 * them across epochs: each costs max_retries + 1 worker deaths once, not once
 * per epoch.)
 *
 * Bounded: the most recent FEED_BAD_KEEP reports, counts for the most recent
 * FEED_BAD_EPOCHS epochs, and a deduplication set that spans one epoch. The
 * complete record goes to the bad_log file when there is one, and a
 * rate-limited line per report to stderr unless report_bad=0.
 *
 * It also keeps the bad-sample budget (max_bad_fraction): the share of bad
 * samples among the last FEED_BAD_WINDOW delivered (judged when that window
 * is full, or holds a whole epoch), and whether the first FEED_BAD_FIRST
 * delivered were all bad.
 *
 * Not thread-safe: the loader calls every function under its lock. Uses
 * dataset/index.h, arena/arena.h and supervise/pool.h.
 */
#ifndef FEED_BADLOG_H
#define FEED_BADLOG_H

#include <stdint.h>

#include "arena/arena.h"
#include "dataset/index.h"
#include "feed.h"
#include "supervise/pool.h"

#define FEED_BAD_EPOCHS 1024u  /* epochs whose counts are kept */
#define FEED_BAD_WINDOW 1000u  /* samples the budget looks back over */
#define FEED_BAD_FIRST 16u     /* the first this many delivered all bad: over budget */
#define FEED_BAD_MIN 10u       /* a share is over budget only with at least this many bad */
#define FEED_BAD_PRINT_FIRST 10u /* stderr lines before the rate limit (one a second) */

typedef struct feed__badlog {
    const feed__index_hdr *ix; /* for the paths in the reports */
    feed_bad_sample *bad;      /* report i at bad[i % FEED_BAD_KEEP] (grows up to that) */
    uint64_t nbad, capbad;     /* reports made since create; entries allocated */
    uint64_t *set;             /* open-addressing set of (epoch, id) keys of set_epoch, 0 = empty */
    uint64_t set_cap, set_n, set_epoch;
    struct feed__bad_epoch {
        uint64_t epoch, count;
    } *epochs;                 /* FEED_BAD_EPOCHS, by epoch % FEED_BAD_EPOCHS */
    uint64_t samples_bad;      /* replacements delivered, repeats included */
    const char **quar;         /* per batch position, for feed__ring_assign */
    char (*quar_why)[200];     /* their reasons */

    int report;                /* option report_bad */
    uint64_t printed, suppressed, last_print_ns;
    int log_fd;                /* option bad_log (-1: none) */
    int log_failed;

    float max_fraction;        /* option max_bad_fraction (1: no budget) */
    uint8_t win[FEED_BAD_WINDOW]; /* 1 per bad sample among the last delivered, ring */
    uint32_t win_n, win_pos, win_bad;
    uint64_t judge_n;          /* the share is judged once the window holds this many:
                                  FEED_BAD_WINDOW, or an epoch's samples if fewer */
    uint64_t seen, seen_bad;   /* delivered since the last reset */
    uint64_t first_report;     /* nbad at the last reset */
} feed__badlog;

/* Prepares an empty log for batches of batch_size with options o (report_bad,
 * bad_log, max_bad_fraction). FEED_OK, FEED_E_NOMEM, or FEED_E_IO when bad_log
 * cannot be opened (message in err). feed__badlog_free frees what was made. */
feed_status feed__badlog_init(feed__badlog *b, const feed__index_hdr *ix, uint32_t batch_size,
                              const feed_options *o, char *err, size_t errlen);
void feed__badlog_free(feed__badlog *b);

/* Records the replaced samples of READY slot i, from the parent's checked
 * copies (verify.h); returns how many it has. */
uint32_t feed__badlog_harvest(feed__badlog *b, const feed__arena *a, uint32_t i);
/* Writes the bad samples of batch (epoch, batch) into msg as "path: reason
 * (sample S, epoch E, batch B)", then for several "; N bad samples in this
 * batch: path (reason); ..." and returns the first one's status; if there is
 * none, leaves msg alone and returns FEED_E_DECODE. */
feed_status feed__badlog_report(const feed__badlog *b, uint64_t epoch, uint64_t batch, char *msg, size_t len);
/* Copies report i (0: the first ever) into *out. FEED_OK, or FEED_E_INVALID
 * past the end or older than the FEED_BAD_KEEP kept. */
feed_status feed__badlog_get(const feed__badlog *b, uint64_t i, feed_bad_sample *out);
/* Reports of epoch (0 if it is older than the FEED_BAD_EPOCHS kept). */
uint64_t feed__badlog_epoch_count(const feed__badlog *b, uint64_t epoch);

/* Counts a delivered batch of epoch (count samples, their flags and ids)
 * against the budget. FEED_OK, or FEED_E_DATASET with the reason in msg:
 * over max_bad_fraction, the first FEED_BAD_FIRST all bad, or a sample no
 * substitute could be made for (FEED__SAMPLE_NO_SUBSTITUTE). */
feed_status feed__badlog_budget(feed__badlog *b, uint64_t epoch, const uint8_t *flags, const uint64_t *ids,
                                uint32_t count, char *msg, size_t len);
/* The samples of an epoch on this rank: a share is judged once the window
 * holds FEED_BAD_WINDOW of them, or a whole epoch when that is fewer. */
void feed__badlog_set_epoch_len(feed__badlog *b, uint64_t samples_per_epoch);
/* Starts the budget over (a seek). */
void feed__badlog_budget_reset(feed__badlog *b);

/* The quarantine argument of feed__ring_assign for the count samples ids[]:
 * the reason for each that p quarantined, or NULL if none is (or p is NULL).
 * Valid until the next call. */
const char *const *feed__badlog_quarantine(feed__badlog *b, feed__pool *p, const uint64_t *ids, uint32_t count);

#endif

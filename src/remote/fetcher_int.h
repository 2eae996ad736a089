/*
 * fetcher_int.h - what fetcher.c (shards fetched while the loader runs) and
 * fetcher_ranges.c (their byte ranges, cfg ranges) share: the fetcher itself.
 * fetcher.c's head comment says how it works.
 */
#ifndef FEED_FETCHER_INT_H
#define FEED_FETCHER_INT_H

#include <limits.h>
#include <pthread.h>
#include <sys/types.h>

#include "remote/rangeset.h"
#include "remote/remote.h"

typedef struct range_ask { /* a "range" request out */
    uint32_t shard, hgen;
    uint64_t lo, hi;
} range_ask;

struct feed__fetcher {
    feed__remote_cfg cfg;
    char exe[PATH_MAX], dir[PATH_MAX];
    feed__pathlist urls;
    char **paths;     /* the version create saw, in the cache: what the workers read */
    char **tars;      /* its whole .tar (ranges: the index scan's; else paths[i] itself) */
    char **versions;  /* its "SIZE <TAB> ETAG <TAB> LAST-MODIFIED" ("-": none), sent with each get */
    uint64_t *sizes;
    uint8_t *state, *in_window;
    uint32_t *want;   /* scratch: the wanted list, deduplicated */
    size_t n;
    feed__rangeset *have, *asked; /* cfg.ranges: per shard */
    uint32_t *hgen;               /* ranges: per shard, bumped when it is let go */
    range_ask *rq;                /* ranges: the asks out, by k (rq_live[k]) */
    uint8_t *rq_live;
    size_t nrq, rqcap;
    feed__remote_hold hold;
    int to, from;     /* feed-fetch's stdin, stdout */
    pid_t pid;
    pthread_t reader;
    int reader_up, stopping;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t nver;      /* "ver" answers in */
    feed_status fail;
    char fail_msg[1200];
    pthread_mutex_t notify_mu; /* held while notify runs: once it is changed, the old one has returned */
    void (*notify)(void *);
    void *notify_ctx;
};

/* Writes parts[0..n) (lens bytes each) down feed-fetch's stdin, whole: 0, -1. */
int feed__fetcher_send(feed__fetcher *f, const char *const *parts, const size_t *lens, int n);
/* Records the first failure and wakes the waiters (under mu). */
void feed__fetcher_fail_locked(feed__fetcher *f, feed_status st, const char *msg);
/* A "range" answer's fields (fetch.h), under mu. */
void feed__fetcher_range_answer_locked(feed__fetcher *f, char **fld, int nf, const char *line);
/* Asks for the bytes of rg[0..nrg) neither present nor asked, under mu. */
feed_status feed__fetcher_ask_ranges_locked(feed__fetcher *f, const feed__byterange *rg, size_t nrg, char *err,
                                            size_t errlen);

#endif

/*
 * fetcher_ranges.c - byte ranges of remote shards (cfg ranges, option
 * fetch_ranges): the asks, their answers, what is present (fetcher.c's head
 * comment says how).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/internal.h"
#include "remote/fetcher_int.h"

/* The ask of bytes [lo, hi) of shard i, as record k. */
static int send_range(feed__fetcher *f, size_t k)
{
    const range_ask *r = &f->rq[k];
    char head[64], tail[64];
    int hn = snprintf(head, sizeof head, "range\tr%zu\t", k);
    int tn = snprintf(tail, sizeof tail, "\t%llu\t%llu\n", (unsigned long long)r->lo, (unsigned long long)(r->hi - r->lo));
    const char *parts[5] = {head, f->urls.v[r->shard], "\t", f->versions[r->shard], tail};
    size_t lens[5] = {(size_t)hn, strlen(f->urls.v[r->shard]), 1, strlen(f->versions[r->shard]), (size_t)tn};
    return feed__fetcher_send(f, parts, lens, 5);
}

void feed__fetcher_range_answer_locked(feed__fetcher *f, char **fld, int nf, const char *line)
{
    char msg[1200];
    unsigned long k = strtoul(fld[1] + 1, NULL, 10);
    if (k >= f->nrq || !f->rq_live[k]) {
        snprintf(msg, sizeof msg, "remote shards: %.600s gave an answer not asked for: %.200s", f->exe, line);
        feed__fetcher_fail_locked(f, FEED_E_IO, msg);
        return;
    }
    range_ask r = f->rq[k];
    f->rq_live[k] = 0;
    int current = f->in_window[r.shard] && f->hgen[r.shard] == r.hgen;
    if (!current) /* let go since it was asked: its bytes may be gone */
        return;
    if (feed__rangeset_remove(&f->asked[r.shard], r.lo, r.hi) != 0) {
        feed__fetcher_fail_locked(f, FEED_E_NOMEM, "out of memory");
        return;
    }
    if (!strcmp(fld[0], "err") && nf >= 4) {
        char err[1200];
        feed_status st = feed__remote_error(fld[2], fld[3], err, sizeof err);
        feed__fetcher_fail_locked(f, st, err);
        return;
    }
    struct stat sb;
    unsigned long long size = nf >= 5 ? strtoull(fld[3], NULL, 10) : 0;
    if (strcmp(fld[0], "ok") || nf < 5 || strcmp(fld[2], f->paths[r.shard]) || size != f->sizes[r.shard]) {
        snprintf(msg, sizeof msg, "remote shards: %.600s: a wrong answer: %.200s", f->exe, line);
        feed__fetcher_fail_locked(f, FEED_E_IO, msg);
        return;
    }
    if (stat(fld[2], &sb) != 0 || !S_ISREG(sb.st_mode) || (unsigned long long)sb.st_size != size) {
        snprintf(msg, sizeof msg, "remote shards: %.400s said %.600s holds bytes %llu..%llu, and it is not there",
                 f->exe, fld[2], (unsigned long long)r.lo, (unsigned long long)r.hi);
        feed__fetcher_fail_locked(f, FEED_E_IO, msg);
        return;
    }
    if (feed__rangeset_add(&f->have[r.shard], r.lo, r.hi) != 0)
        feed__fetcher_fail_locked(f, FEED_E_NOMEM, "out of memory");
    pthread_cond_broadcast(&f->cv);
}

/* A free ask record (grown as needed): its k, or SIZE_MAX. */
static size_t ask_slot(feed__fetcher *f)
{
    for (size_t k = 0; k < f->nrq; k++)
        if (!f->rq_live[k])
            return k;
    if (f->nrq == f->rqcap) {
        size_t cap = f->rqcap ? f->rqcap * 2 : 64;
        range_ask *rq = feed__realloc(f->rq, cap * sizeof *rq);
        if (rq)
            f->rq = rq;
        uint8_t *live = rq ? feed__realloc(f->rq_live, cap) : NULL;
        if (!live)
            return SIZE_MAX;
        f->rq_live = live;
        f->rqcap = cap;
    }
    f->rq_live[f->nrq] = 0;
    return f->nrq++;
}

feed_status feed__fetcher_ask_ranges_locked(feed__fetcher *f, const feed__byterange *rg, size_t nrg, char *err,
                                            size_t errlen)
{
    feed__span gap[32];
    for (size_t r = 0; r < nrg; r++) {
        uint32_t i = rg[r].shard;
        if (i >= f->n || !f->in_window[i] || rg[r].hi > f->sizes[i])
            continue;
        for (uint64_t lo = rg[r].lo; lo < rg[r].hi;) {
            size_t ng = feed__rangeset_gaps(&f->have[i], &f->asked[i], lo, rg[r].hi, gap, 32);
            if (!ng)
                break;
            for (size_t g = 0; g < ng; g++) {
                size_t k = ask_slot(f);
                if (k == SIZE_MAX || feed__rangeset_add(&f->asked[i], gap[g].lo, gap[g].hi) != 0)
                    return feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
                f->rq[k] = (range_ask){i, f->hgen[i], gap[g].lo, gap[g].hi};
                f->rq_live[k] = 1;
                if (send_range(f, k) != 0)
                    return feed__err(FEED_E_IO, err, errlen, "remote shards: %s does not read its requests",
                                     f->exe);
            }
            lo = gap[ng - 1].hi;
        }
    }
    return FEED_OK;
}

int feed__fetcher_has(feed__fetcher *f, uint32_t i, uint64_t lo, uint64_t hi)
{
    pthread_mutex_lock(&f->mu);
    int r = f->cfg.ranges && i < f->n && f->in_window[i] && feed__rangeset_covers(&f->have[i], lo, hi);
    pthread_mutex_unlock(&f->mu);
    return r;
}


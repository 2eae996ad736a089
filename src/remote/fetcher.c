/*
 * fetcher.c - remote shards fetched while the loader runs (remote.h).
 *
 * One feed-fetch --mode stream child: requests go down a pipe as the loader
 * wants shards ("get <TAB> g<i> <TAB> URL"), answers come up another and are
 * read by this file's thread. Shard i is ABSENT, ASKED (a get is out) or
 * PRESENT; in_window[i] says whether the loader wants it now. The held list
 * (DIR/.inuse, remote.h) always names every wanted shard: a new list is
 * written and locked before the old one goes, and before any get for a shard
 * it adds is sent, so feed-fetch never evicts a shard between its answer and
 * the worker's read. An answer for a shard no longer wanted leaves it ABSENT
 * (it may be evicted any time); wanting it again asks again (a cache hit).
 *
 * With cfg ranges the loader wants byte ranges of its shards, not whole ones:
 * "range <TAB> r<k> <TAB> URL <TAB> VERSION <TAB> OFF <TAB> LEN" writes them
 * into the version's .ranges file (sparse, the shard's size: a worker reads
 * it at the index's offsets as it would the .tar). Per shard, have[] holds
 * the ranges present and asked[] those asked for; letting a shard go clears
 * both and bumps hgen[], so an answer to an ask from before (k's record
 * says which) adds nothing: the file may have been evicted since.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/internal.h"
#include "remote/fetcher_int.h"

enum { ABSENT = 0, ASKED, PRESENT };

void feed__fetcher_fail_locked(feed__fetcher *f, feed_status st, const char *msg)
{
    if (f->fail == FEED_OK) {
        f->fail = st;
        snprintf(f->fail_msg, sizeof f->fail_msg, "%.1150s", msg);
    }
    pthread_cond_broadcast(&f->cv);
}

void feed__fetcher_fail(feed__fetcher *f, feed_status st, const char *msg)
{
    pthread_mutex_lock(&f->mu);
    feed__fetcher_fail_locked(f, st, msg);
    pthread_mutex_unlock(&f->mu);
}

/* "head" or "get" of shard i; a get names the version create saw (no HEAD
 * first; a shard changed since answers with an error). */
static int send_line(feed__fetcher *f, const char *verb, uint32_t i)
{
    char head[64];
    int hn = snprintf(head, sizeof head, "%s\t%c%u\t", verb, verb[0], i);
    const char *v = verb[0] == 'g' && f->versions[i] ? f->versions[i] : NULL;
    const char *parts[5] = {head, f->urls.v[i], v ? "\t" : "", v ? v : "", "\n"};
    size_t lens[5] = {(size_t)hn, strlen(f->urls.v[i]), v ? 1 : 0, v ? strlen(v) : 0, 1};
    return feed__fetcher_send(f, parts, lens, 5);
}

int feed__fetcher_send(feed__fetcher *f, const char *const *parts, const size_t *lens, int n)
{
    for (int k = 0; k < n; k++)
        for (size_t done = 0; done < lens[k];) {
            ssize_t w = write(f->to, parts[k] + done, lens[k] - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return -1;
            done += (size_t)w;
        }
    return 0;
}

/* One answer line (fetch.h), under mu. */
static void answer_locked(feed__fetcher *f, char *line)
{
    char *fld[7] = {0};
    int nf = 0;
    for (char *p = line; p && nf < 7; nf++) {
        fld[nf] = p;
        if ((p = strchr(p, '\t')))
            *p++ = 0;
    }
    char msg[1200];
    if (nf >= 2 && fld[1][0] == 'r' && f->cfg.ranges) {
        feed__fetcher_range_answer_locked(f, fld, nf, line);
        return;
    }
    unsigned long i = nf >= 2 && (fld[1][0] == 'g' || fld[1][0] == 'h') ? strtoul(fld[1] + 1, NULL, 10) : ULONG_MAX;
    if (i >= f->n) {
        snprintf(msg, sizeof msg, "remote shards: %.600s gave an answer not asked for: %.200s", f->exe, line);
        feed__fetcher_fail_locked(f, FEED_E_IO, msg);
        return;
    }
    if (!strcmp(fld[0], "err") && nf >= 4) {
        if (fld[1][0] == 'g' && !f->in_window[i]) { /* no longer wanted: asked again if it is */
            f->state[i] = ABSENT;
            return;
        }
        char err[1200];
        feed_status st = feed__remote_error(fld[2], fld[3], err, sizeof err);
        feed__fetcher_fail_locked(f, st, err);
        if (fld[1][0] == 'h')
            f->nver++;
        return;
    }
    struct stat sb;
    unsigned long long size = nf >= 4 ? strtoull(fld[3], NULL, 10) : 0;
    size_t dlen = strlen(f->dir);
    int inside = nf >= 4 && !strncmp(fld[2], f->dir, dlen) && fld[2][dlen] == '/' && !strchr(fld[2] + dlen + 1, '/');
    if (!strcmp(fld[0], "ver") && fld[1][0] == 'h' && nf >= 7 && inside && !f->paths[i]) {
        size_t vl = strlen(fld[3]) + strlen(fld[5]) + strlen(fld[6]) + 3, pl = strlen(fld[2]);
        if (f->cfg.ranges && (pl < 5 || strcmp(fld[2] + pl - 4, ".tar"))) {
            snprintf(msg, sizeof msg, "remote shards: %.600s: a cache file not named .tar: %.200s", f->exe, line);
            feed__fetcher_fail_locked(f, FEED_E_IO, msg);
            return;
        }
        if (!(f->tars[i] = feed__malloc(pl + 1)) || !(f->versions[i] = feed__malloc(vl)) ||
            (f->cfg.ranges && !(f->paths[i] = feed__malloc(pl + 4)))) {
            feed__fetcher_fail_locked(f, FEED_E_NOMEM, "out of memory");
            return;
        }
        memcpy(f->tars[i], fld[2], pl + 1);
        if (f->cfg.ranges) /* the version's .tar with .ranges for .tar (fetch_cache.h) */
            snprintf(f->paths[i], pl + 4, "%.*s.ranges", (int)(pl - 4), fld[2]);
        else
            f->paths[i] = f->tars[i];
        snprintf(f->versions[i], vl, "%s\t%s\t%s", fld[3], fld[5], fld[6]);
        f->sizes[i] = size;
        f->nver++;
        pthread_cond_broadcast(&f->cv);
        return;
    }
    if (!strcmp(fld[0], "ok") && fld[1][0] == 'g' && nf >= 5 && inside && f->state[i] == ASKED) {
        if (strcmp(fld[2], f->tars[i]) || size != f->sizes[i]) {
            snprintf(msg, sizeof msg,
                     "dataset: %.800s changed since the loader was created (%llu bytes then, %llu now, or another "
                     "ETag): its samples' places in the index are stale; create the loader again",
                     f->urls.v[i], (unsigned long long)f->sizes[i], size);
            feed__fetcher_fail_locked(f, FEED_E_DATASET, msg);
            return;
        }
        if (stat(fld[2], &sb) != 0 || !S_ISREG(sb.st_mode) || (unsigned long long)sb.st_size != size) {
            snprintf(msg, sizeof msg, "remote shards: %.400s said %.600s is in the cache, and it is not (%llu bytes)",
                     f->exe, fld[2], size);
            feed__fetcher_fail_locked(f, FEED_E_IO, msg);
            return;
        }
        f->state[i] = f->in_window[i] ? PRESENT : ABSENT;
        pthread_cond_broadcast(&f->cv);
        return;
    }
    snprintf(msg, sizeof msg, "remote shards: %.600s: a wrong answer: %.200s", f->exe, line);
    feed__fetcher_fail_locked(f, FEED_E_IO, msg);
}

static void call_notify(feed__fetcher *f)
{
    pthread_mutex_lock(&f->notify_mu);
    if (f->notify)
        f->notify(f->notify_ctx);
    pthread_mutex_unlock(&f->notify_mu);
}

static void *reader_main(void *arg)
{
    feed__fetcher *f = arg;
    FILE *in = fdopen(f->from, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while (in && (len = getline(&line, &cap, in)) > 0) {
        line[strcspn(line, "\n")] = 0;
        pthread_mutex_lock(&f->mu);
        answer_locked(f, line);
        pthread_mutex_unlock(&f->mu);
        call_notify(f);
    }
    free(line);
    if (in)
        fclose(in); /* closes f->from */
    else
        close(f->from);
    f->from = -1;
    pthread_mutex_lock(&f->mu);
    if (!f->stopping)
        feed__fetcher_fail_locked(f, FEED_E_IO, "remote shards: feed-fetch ended while the loader runs (killed?)");
    pthread_mutex_unlock(&f->mu);
    call_notify(f);
    return NULL;
}

void feed__fetcher_stop(feed__fetcher *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->mu);
    f->stopping = 1;
    pthread_mutex_unlock(&f->mu);
    if (f->to >= 0)
        close(f->to);
    if (f->pid > 0) {
        kill(f->pid, SIGKILL); /* a download under way is left as a .part the next run removes */
        while (waitpid(f->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    if (f->reader_up)
        pthread_join(f->reader, NULL);
    else if (f->from >= 0)
        close(f->from);
    feed__remote_release(&f->hold);
    feed__shards_free(f->urls.v, f->urls.n);
    if (f->cfg.ranges)
        feed__shards_free(f->tars, f->n);
    else
        feed__free(f->tars); /* its strings are paths' */
    feed__shards_free(f->paths, f->n);
    feed__shards_free(f->versions, f->n);
    for (size_t i = 0; f->have && i < f->n; i++) {
        feed__rangeset_free(&f->have[i]);
        feed__rangeset_free(&f->asked[i]);
    }
    feed__free(f->have);
    feed__free(f->asked);
    feed__free(f->hgen);
    feed__free(f->rq);
    feed__free(f->rq_live);
    feed__free(f->sizes);
    feed__free(f->state);
    feed__free(f->in_window);
    feed__free(f->want);
    pthread_mutex_destroy(&f->mu);
    pthread_mutex_destroy(&f->notify_mu);
    pthread_cond_destroy(&f->cv);
    feed__free(f);
}

feed_status feed__fetcher_start(const feed__remote_cfg *c, const char *source, const char *file_list,
                                feed__fetcher **out, int *is_remote, char *err, size_t errlen)
{
    *out = NULL;
    feed__fetcher *f = feed__calloc(1, sizeof *f);
    if (!f)
        return feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
    f->to = f->from = -1;
    f->hold.fd = -1;
    pthread_mutex_init(&f->mu, NULL);
    pthread_mutex_init(&f->notify_mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    f->cfg = *c;
    feed_status st = feed__remote_urls(c, source, file_list, &f->urls, is_remote, f->exe, f->dir, err, errlen);
    if (st != FEED_OK || !*is_remote) {
        feed__fetcher_stop(f);
        return st;
    }
    f->n = f->urls.n;
    f->paths = feed__calloc(f->n, sizeof *f->paths);
    f->tars = feed__calloc(f->n, sizeof *f->tars);
    if (f->cfg.ranges) {
        f->have = feed__calloc(f->n, sizeof *f->have);
        f->asked = feed__calloc(f->n, sizeof *f->asked);
        f->hgen = feed__calloc(f->n, sizeof *f->hgen);
    }
    f->versions = feed__calloc(f->n, sizeof *f->versions);
    f->sizes = feed__calloc(f->n, sizeof *f->sizes);
    f->state = feed__calloc(f->n, 1);
    f->in_window = feed__calloc(f->n, 1);
    f->want = feed__calloc(f->n, sizeof *f->want);
    int in[2] = {-1, -1}, up[2] = {-1, -1};
    if (!f->paths || !f->tars || !f->versions || !f->sizes || !f->state || !f->in_window || !f->want ||
        (f->cfg.ranges && (!f->have || !f->asked || !f->hgen)))
        st = feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
    else if (pipe2(in, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0)
        st = feed__err(FEED_E_RESOURCE, err, errlen, "remote shards: %s", strerror(errno));
    else if ((st = feed__remote_hold_urls(f->dir, NULL, 0, NULL, &f->hold, NULL, err, errlen)) == FEED_OK) {
        int e = feed__remote_spawn(f->exe, c, f->dir, "stream", in[0], up[1], &f->pid);
        if (e != 0)
            st = feed__err(FEED_E_RESOURCE, err, errlen, "cannot start %s: %s", f->exe, strerror(e));
    }
    if (in[0] >= 0)
        close(in[0]);
    if (up[1] >= 0)
        close(up[1]);
    f->to = in[1], f->from = up[0];
    if (st == FEED_OK && pthread_create(&f->reader, NULL, reader_main, f) != 0)
        st = feed__err(FEED_E_RESOURCE, err, errlen, "remote shards: cannot start a thread");
    f->reader_up = st == FEED_OK;
    /* every shard's version: create waits for them */
    pthread_mutex_lock(&f->mu);
    for (uint32_t i = 0; st == FEED_OK && i < f->n; i++)
        if (send_line(f, "head", i) != 0)
            st = feed__err(FEED_E_IO, err, errlen, "remote shards: %s does not read its requests", f->exe);
    while (st == FEED_OK && f->nver < f->n && f->fail == FEED_OK)
        pthread_cond_wait(&f->cv, &f->mu);
    if (st == FEED_OK && f->fail != FEED_OK)
        st = feed__err(f->fail, err, errlen, "%s", f->fail_msg);
    pthread_mutex_unlock(&f->mu);
    if (st != FEED_OK) {
        feed__fetcher_stop(f);
        return st;
    }
    *out = f;
    return FEED_OK;
}

size_t feed__fetcher_count(const feed__fetcher *f)
{
    return f->n;
}

char *const *feed__fetcher_paths(const feed__fetcher *f)
{
    return f->paths;
}


uint64_t feed__fetcher_size(const feed__fetcher *f, uint32_t i)
{
    return i < f->n ? f->sizes[i] : 0;
}

uint64_t feed__fetcher_budget(const feed__fetcher *f)
{
    return f->cfg.cache_size;
}

int feed__fetcher_ranges(const feed__fetcher *f)
{
    return f->cfg.ranges;
}

feed_status feed__fetcher_want(feed__fetcher *f, const uint32_t *shards, size_t n, const feed__byterange *rg,
                               size_t nrg, char *err, size_t errlen)
{
    pthread_mutex_lock(&f->mu);
    size_t m = 0, changed = 0;
    for (size_t k = 0; k < n; k++) { /* in_window 2: wanted again now */
        uint32_t i = shards[k];
        if (i >= f->n || f->in_window[i] == 2)
            continue;
        changed += !f->in_window[i];
        f->in_window[i] = 2;
        f->want[m++] = i;
    }
    for (size_t i = 0; i < f->n; i++) {
        if (f->in_window[i] == 1) { /* wanted no more: may be evicted from now on */
            f->in_window[i] = 0;
            changed++;
            if (f->state[i] == PRESENT)
                f->state[i] = ABSENT;
            if (f->cfg.ranges) {
                feed__rangeset_clear(&f->have[i]);
                feed__rangeset_clear(&f->asked[i]);
                f->hgen[i]++;
            }
        }
    }
    for (size_t k = 0; k < m; k++)
        f->in_window[f->want[k]] = 1;
    feed_status st = FEED_OK;
    if (changed) { /* the new list held before the old one goes and before any get */
        feed__remote_hold h;
        char **list = feed__malloc((m ? m : 1) * sizeof *list);
        if (!list) {
            st = feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
        } else {
            for (size_t k = 0; k < m; k++)
                list[k] = f->urls.v[f->want[k]];
            /* what the workers read: the .tar, or (ranges) the .ranges file,
             * so that the other form of a held shard is evicted as if unheld */
            st = feed__remote_hold_urls(f->dir, list, m, rg ? "ranges" : "tar", &h, &f->hold, err, errlen);
            feed__free(list);
        }
        if (st == FEED_OK)
            f->hold = h;
    }
    if (st == FEED_OK && rg && f->cfg.ranges)
        st = feed__fetcher_ask_ranges_locked(f, rg, nrg, err, errlen);
    for (size_t k = 0; st == FEED_OK && !rg && k < m; k++) {
        uint32_t i = f->want[k];
        if (f->state[i] != ABSENT)
            continue;
        if (send_line(f, "get", i) != 0) {
            st = feed__err(FEED_E_IO, err, errlen, "remote shards: %s does not read its requests", f->exe);
            break;
        }
        f->state[i] = ASKED;
    }
    pthread_mutex_unlock(&f->mu);
    return st;
}

int feed__fetcher_present(feed__fetcher *f, uint32_t i)
{
    pthread_mutex_lock(&f->mu);
    int r = i < f->n && f->state[i] == PRESENT;
    pthread_mutex_unlock(&f->mu);
    return r;
}

feed_status feed__fetcher_wait(feed__fetcher *f, uint32_t i, char *err, size_t errlen)
{
    pthread_mutex_lock(&f->mu);
    while (i < f->n && f->state[i] != PRESENT && f->fail == FEED_OK)
        pthread_cond_wait(&f->cv, &f->mu);
    feed_status st = f->fail != FEED_OK ? feed__err(f->fail, err, errlen, "%s", f->fail_msg) : FEED_OK;
    pthread_mutex_unlock(&f->mu);
    return st;
}

feed_status feed__fetcher_failed(feed__fetcher *f, char *err, size_t errlen)
{
    pthread_mutex_lock(&f->mu);
    feed_status st = f->fail != FEED_OK ? feed__err(f->fail, err, errlen, "%s", f->fail_msg) : FEED_OK;
    pthread_mutex_unlock(&f->mu);
    return st;
}

void feed__fetcher_notify(feed__fetcher *f, void (*fn)(void *), void *ctx)
{
    pthread_mutex_lock(&f->notify_mu);
    f->notify = fn;
    f->notify_ctx = ctx;
    pthread_mutex_unlock(&f->notify_mu);
}


/* ---- the first scan: shards fetched one window ahead, let go once read ---- */

/* How many shards the scan asks for ahead of the one it reads. */
#define FEED_FETCH_SCAN_AHEAD 8

feed_status feed__fetcher_scan_open(void *ctx, uint32_t i, struct feed__tar_io *io, char *err, size_t errlen)
{
    feed__fetcher *f = ctx;
    uint32_t win[FEED_FETCH_SCAN_AHEAD + 1];
    size_t n = 0;
    uint64_t room = f->cfg.cache_size, used = 0;
    uint32_t ahead = f->cfg.parallel > FEED_FETCH_SCAN_AHEAD ? FEED_FETCH_SCAN_AHEAD : f->cfg.parallel;
    for (uint32_t j = i; j < f->n && n <= ahead; j++) {
        if (room && n && used + f->sizes[j] > room)
            break;
        used += f->sizes[j];
        win[n++] = j;
    }
    feed_status st = feed__fetcher_want(f, win, n, NULL, 0, err, errlen);
    if (st == FEED_OK)
        st = feed__fetcher_wait(f, i, err, errlen);
    if (st == FEED_OK)
        st = feed__shards_open(f->tars, i, io, err, errlen);
    return st;
}

void feed__fetcher_scan_close(void *ctx, struct feed__tar_io *io)
{
    feed__fetcher *f = ctx;
    feed__shards_close(f->tars, io);
}

feed_status feed__fetcher_index_key(const feed__fetcher *f, char **key, size_t *keylen, char *path, size_t cap)
{
    size_t len = 0;
    for (size_t i = 0; i < f->n; i++)
        len += strlen(f->urls.v[i]) + strlen(f->paths[i]) + 24;
    char *k = feed__malloc(len + 1);
    if (!k)
        return FEED_E_NOMEM;
    size_t at = 0;
    uint64_t h = 1469598103934665603ull; /* FNV-1a: the file's name; the key itself is compared whole */
    for (size_t i = 0; i < f->n; i++)
        at += (size_t)snprintf(k + at, len + 1 - at, "%s\t%s\t%llu\n", f->urls.v[i], f->paths[i],
                               (unsigned long long)f->sizes[i]);
    for (size_t i = 0; i < at; i++)
        h = (h ^ (uint8_t)k[i]) * 1099511628211ull;
    if (snprintf(path, cap, "%s/index-%016llx.shards", f->dir, (unsigned long long)h) >= (int)cap) {
        feed__free(k);
        return FEED_E_INVALID;
    }
    *key = k;
    *keylen = at;
    return FEED_OK;
}

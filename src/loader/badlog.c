/*
 * badlog.c - the bad-sample record, its reports and budget, and quarantine
 * look-ups (see badlog.h).
 */
#include "loader/badlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/internal.h"
#include "common/rng.h"

feed_status feed__badlog_init(feed__badlog *b, const feed__index_hdr *ix, uint32_t batch_size,
                              const feed_options *o, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    b->ix = ix;
    b->log_fd = -1;
    b->report = (int)o->report_bad;
    b->max_fraction = o->max_bad_fraction;
    b->judge_n = FEED_BAD_WINDOW;
    if (!(b->quar = feed__calloc(batch_size, sizeof *b->quar)) ||
        !(b->quar_why = feed__calloc(batch_size, sizeof *b->quar_why)) ||
        !(b->epochs = feed__calloc(FEED_BAD_EPOCHS, sizeof *b->epochs)))
        return feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
    if (o->bad_log[0]) {
        b->log_fd = open(o->bad_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (b->log_fd < 0)
            return feed__err(FEED_E_IO, err, errlen, "bad_log=%s: cannot open: %s", o->bad_log, strerror(errno));
    }
    return FEED_OK;
}

void feed__badlog_free(feed__badlog *b)
{
    if (b->suppressed)
        fprintf(stderr, "libfeed: %llu more bad samples not shown\n", (unsigned long long)b->suppressed);
    if (b->log_fd >= 0)
        close(b->log_fd);
    feed__free(b->quar);
    feed__free(b->quar_why);
    feed__free(b->bad);
    feed__free(b->set);
    feed__free(b->epochs);
    memset(b, 0, sizeof *b);
    b->log_fd = -1;
}

/* 1 if key is new in epoch (or cannot be looked up: then it is recorded
 * anyway). The set holds one epoch: a batch of another empties it. */
static int set_add(feed__badlog *b, uint64_t epoch, uint64_t key)
{
    if (epoch != b->set_epoch) {
        if (b->set)
            memset(b->set, 0, b->set_cap * sizeof *b->set);
        b->set_n = 0;
        b->set_epoch = epoch;
    }
    key |= 1; /* never 0 */
    if ((b->set_n + 1) * 2 > b->set_cap) {
        uint64_t cap = b->set_cap ? b->set_cap * 2 : 256;
        uint64_t *n = feed__calloc(cap, sizeof *n);
        if (!n)
            return 1;
        for (uint64_t i = 0; i < b->set_cap; i++)
            if (b->set[i]) {
                uint64_t j = feed__mix64(b->set[i]) & (cap - 1);
                while (n[j])
                    j = (j + 1) & (cap - 1);
                n[j] = b->set[i];
            }
        feed__free(b->set);
        b->set = n;
        b->set_cap = cap;
    }
    uint64_t j = feed__mix64(key) & (b->set_cap - 1);
    while (b->set[j]) {
        if (b->set[j] == key)
            return 0;
        j = (j + 1) & (b->set_cap - 1);
    }
    b->set[j] = key;
    b->set_n++;
    return 1;
}

/* text with tab, newline, CR and backslash escaped (C style), into out. */
static void escape(const char *text, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = text; *p && o + 3 < len; p++) {
        char c = *p == '\t' ? 't' : *p == '\n' ? 'n' : *p == '\r' ? 'r' : *p == '\\' ? '\\' : 0;
        if (c)
            out[o++] = '\\', out[o++] = c;
        else
            out[o++] = *p;
    }
    out[o] = 0;
}

/* One line in bad_log: epoch, sample id, batch, status, path, reason. */
static void log_line(feed__badlog *b, const feed_bad_sample *e)
{
    char path[2 * FEED_PATH_MAX], why[2 * sizeof e->message], line[sizeof path + sizeof why + 128];
    escape(e->path, path, sizeof path);
    escape(e->message, why, sizeof why);
    int n = snprintf(line, sizeof line, "%llu\t%llu\t%llu\t%s\t%s\t%s\n", (unsigned long long)e->epoch,
                     (unsigned long long)e->sample_id, (unsigned long long)e->batch, feed_status_name(e->status),
                     path, why);
    size_t len = n < (int)sizeof line ? (size_t)n : sizeof line - 1;
    if (write(b->log_fd, line, len) != (ssize_t)len && !b->log_failed) { /* O_APPEND: one write, one line */
        b->log_failed = 1;
        fprintf(stderr, "libfeed: bad_log: cannot write: %s (the log is incomplete from here)\n", strerror(errno));
    }
}

/* A line on stderr: the first FEED_BAD_PRINT_FIRST, then one a second; the
 * ones left out are counted in the next line (and at free). */
static void print_line(feed__badlog *b, const feed_bad_sample *e)
{
    uint64_t now = feed__now_ns();
    if (b->printed >= FEED_BAD_PRINT_FIRST && now - b->last_print_ns < 1000000000ull) {
        b->suppressed++;
        return;
    }
    if (b->suppressed)
        fprintf(stderr, "libfeed: %llu more bad samples not shown\n", (unsigned long long)b->suppressed);
    b->suppressed = 0;
    fprintf(stderr, "libfeed: bad sample %s: %s (%s, sample %llu, epoch %llu, batch %llu)\n", e->path, e->message,
            feed_status_name(e->status), (unsigned long long)e->sample_id, (unsigned long long)e->epoch,
            (unsigned long long)e->batch);
    if (++b->printed == FEED_BAD_PRINT_FIRST)
        fprintf(stderr, "libfeed: more bad samples: at most one line a second from now on (report_bad=0: "
                        "none; bad_log=PATH: every one)\n");
    b->last_print_ns = now;
}

uint32_t feed__badlog_harvest(feed__badlog *b, const feed__arena *a, uint32_t i)
{
    const feed__slot_meta *m = &a->meta[i]; /* checked copies (verify.h) */
    uint32_t replaced = 0;
    for (uint32_t t = 0; t < m->count; t++) {
        if (!(m->flags[t] & FEED_SAMPLE_REPLACED))
            continue;
        const feed__sample_priv *r = &m->s[t];
        replaced++;
        b->samples_bad++;
        uint64_t key = feed__mix64(r->id ^ feed__mix64(m->epoch + 1));
        if (!set_add(b, m->epoch, key))
            continue;
        if (b->nbad == b->capbad && b->capbad < FEED_BAD_KEEP) {
            uint64_t cap = b->capbad ? b->capbad * 2 : 16;
            cap = cap < FEED_BAD_KEEP ? cap : FEED_BAD_KEEP;
            feed_bad_sample *n = feed__realloc(b->bad, cap * sizeof *n);
            if (!n)
                continue;
            b->bad = n;
            b->capbad = cap;
        }
        feed_bad_sample *e = &b->bad[b->nbad++ % FEED_BAD_KEEP];
        memset(e, 0, sizeof *e);
        e->sample_id = r->id;
        e->epoch = m->epoch;
        e->batch = m->index;
        e->status = r->got_status ? r->got_status : FEED_E_DECODE;
        e->sys_errno = r->got_errno;
        if (feed__index_name(b->ix, r->id, e->path, sizeof e->path) >= (int)sizeof e->path)
            memcpy(e->path + sizeof e->path - 4, "...", 4); /* cut, and says so */
        uint64_t off, len;
        if (feed__index_range(b->ix, r->id, &off, &len)) /* a shard member: say which bytes */
            snprintf(e->message, sizeof e->message, "member at offset %llu (%llu bytes): %.200s",
                     (unsigned long long)off, (unsigned long long)len, r->got_message);
        else
            snprintf(e->message, sizeof e->message, "%.200s", r->got_message);
        struct feed__bad_epoch *pe = &b->epochs[m->epoch % FEED_BAD_EPOCHS];
        if (pe->epoch != m->epoch || !pe->count)
            *pe = (struct feed__bad_epoch){m->epoch, 0};
        pe->count++;
        if (b->log_fd >= 0)
            log_line(b, e);
        if (b->report)
            print_line(b, e);
    }
    return replaced;
}

/* Report i if it is kept, else NULL. */
static const feed_bad_sample *kept(const feed__badlog *b, uint64_t i)
{
    if (i >= b->nbad || b->nbad - i > FEED_BAD_KEEP)
        return NULL;
    return &b->bad[i % FEED_BAD_KEEP];
}

static size_t append(char *msg, size_t len, size_t at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static size_t append(char *msg, size_t len, size_t at, const char *fmt, ...)
{
    if (at >= len)
        return at;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg + at, len - at, fmt, ap);
    va_end(ap);
    return n < 0 ? at : at + (size_t)n;
}

feed_status feed__badlog_report(const feed__badlog *b, uint64_t epoch, uint64_t batch, char *msg, size_t len)
{
    uint64_t first = UINT64_MAX, n = 0;
    for (uint64_t i = b->nbad; i-- > 0 && kept(b, i);) { /* a batch's reports are adjacent */
        const feed_bad_sample *s = kept(b, i);
        if (s->epoch == epoch && s->batch == batch)
            first = i, n++;
        else if (n)
            break;
    }
    if (!n)
        return FEED_E_DECODE;
    const feed_bad_sample *f = kept(b, first);
    size_t at = append(msg, len, 0, "%s: %s (sample %llu, epoch %llu, batch %llu)", f->path, f->message,
                       (unsigned long long)f->sample_id, (unsigned long long)f->epoch,
                       (unsigned long long)f->batch);
    if (n > 1) {
        at = append(msg, len, at, "; %llu bad samples in this batch:", (unsigned long long)n);
        for (uint64_t i = first + 1; i < first + n; i++)
            at = append(msg, len, at, "%s %s (%.80s)", i > first + 1 ? ";" : "", kept(b, i)->path,
                        kept(b, i)->message);
    }
    if (f->status > FEED_END_OF_DATA && f->status < FEED_STATUS_COUNT_)
        return (feed_status)f->status;
    return FEED_E_DECODE;
}

feed_status feed__badlog_get(const feed__badlog *b, uint64_t i, feed_bad_sample *out)
{
    const feed_bad_sample *s = kept(b, i);
    if (!s)
        return FEED_E_INVALID;
    *out = *s;
    out->struct_size = sizeof *out;
    return FEED_OK;
}

uint64_t feed__badlog_epoch_count(const feed__badlog *b, uint64_t epoch)
{
    const struct feed__bad_epoch *pe = &b->epochs[epoch % FEED_BAD_EPOCHS];
    return pe->epoch == epoch ? pe->count : 0;
}

void feed__badlog_budget_reset(feed__badlog *b)
{
    memset(b->win, 0, sizeof b->win);
    b->win_n = b->win_pos = b->win_bad = 0;
    b->seen = b->seen_bad = 0;
    b->first_report = b->nbad;
}

/* Up to three reports made since the last reset: "path: reason; ...". */
static size_t first_reports(const feed__badlog *b, char *msg, size_t len, size_t at)
{
    uint64_t i = b->first_report, shown = 0;
    if (b->nbad - i > FEED_BAD_KEEP)
        i = b->nbad - FEED_BAD_KEEP;
    for (; i < b->nbad && shown < 3; i++, shown++)
        at = append(msg, len, at, "%s%s: %.100s", shown ? "; " : " First: ", kept(b, i)->path, kept(b, i)->message);
    if (b->nbad > i)
        at = append(msg, len, at, "; %llu more (feed_loader_bad_sample%s)", (unsigned long long)(b->nbad - i),
                    b->log_fd >= 0 ? ", bad_log" : "; bad_log=PATH writes every one");
    return at;
}

void feed__badlog_set_epoch_len(feed__badlog *b, uint64_t samples_per_epoch)
{
    b->judge_n = samples_per_epoch && samples_per_epoch < FEED_BAD_WINDOW ? (uint32_t)samples_per_epoch
                                                                           : FEED_BAD_WINDOW;
}

feed_status feed__badlog_budget(feed__badlog *b, uint64_t epoch, const uint8_t *flags, const uint64_t *ids,
                                uint32_t count, char *msg, size_t len)
{
    uint32_t nosub = UINT32_MAX;
    for (uint32_t t = 0; t < count; t++) {
        uint8_t bad = (flags[t] & FEED_SAMPLE_REPLACED) != 0;
        if (b->win_n == FEED_BAD_WINDOW)
            b->win_bad -= b->win[b->win_pos];
        else
            b->win_n++;
        b->win[b->win_pos] = bad;
        b->win_bad += bad;
        b->win_pos = (b->win_pos + 1) % FEED_BAD_WINDOW;
        b->seen++;
        b->seen_bad += bad;
        if ((flags[t] & FEED__SAMPLE_NO_SUBSTITUTE) && nosub == UINT32_MAX)
            nosub = t;
    }
    int on = b->max_fraction < 1.0f;
    /* A share is judged over a full window, or over a whole epoch where an
     * epoch is shorter: a run of bad files early in a window says nothing of
     * the dataset's share, and a small dataset's is known after one epoch.
     * And only with FEED_BAD_MIN bad in it: one bad file of twelve is a file
     * to replace, not a dataset to refuse. */
    int judged = (b->win_n >= b->judge_n && b->win_bad >= FEED_BAD_MIN) ||
                 b->max_fraction == 0; /* 0: any bad sample is too many */
    double allowed = (double)b->max_fraction * b->win_n + 1e-6;
    size_t at = 0;
    if (nosub != UINT32_MAX) {
        const feed_bad_sample *r = NULL;
        for (uint64_t i = b->nbad; i-- > 0 && kept(b, i) && !r;)
            if (kept(b, i)->sample_id == ids[nosub] && kept(b, i)->epoch == epoch)
                r = kept(b, i);
        at = r ? append(msg, len, 0, "%s: %s", r->path, r->message)
               : append(msg, len, 0, "sample %llu", (unsigned long long)ids[nosub]);
        at = append(msg, len, at, " (epoch %llu): bad, and no substitute could be read either (up to 64 tried; none where its batch has no other sample). ",
                    (unsigned long long)epoch);
    } else if (on && b->seen >= FEED_BAD_FIRST && b->seen_bad == b->seen && b->seen - count < FEED_BAD_FIRST) {
        at = append(msg, len, 0, "the first %llu samples delivered were all bad: is source/file_list right? ",
                    (unsigned long long)b->seen);
    } else if (on && judged && b->win_bad > allowed) {
        at = append(msg, len, 0, "too many bad samples, over max_bad_fraction=%g (of the last %u): ",
                    (double)b->max_fraction, b->win_n);
    } else {
        return FEED_OK;
    }
    at = append(msg, len, at, "%u of the last %u samples delivered were bad (%.3g%%).", b->win_bad, b->win_n,
                100.0 * b->win_bad / b->win_n);
    first_reports(b, msg, len, at);
    return FEED_E_DATASET;
}

const char *const *feed__badlog_quarantine(feed__badlog *b, feed__pool *p, const uint64_t *ids, uint32_t count)
{
    int any = 0;
    for (uint32_t t = 0; t < count && p && atomic_load(&p->nquar); t++) {
        int q = feed__pool_quarantined(p, ids[t], b->quar_why[t], sizeof b->quar_why[t]);
        b->quar[t] = q ? b->quar_why[t] : NULL;
        any |= q;
    }
    return any ? b->quar : NULL;
}

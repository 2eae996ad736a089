/*
 * badlog.c - the bad-sample record and quarantine look-ups (see badlog.h).
 */
#include "badlog.h"

#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "rng.h"

feed_status feed__badlog_init(feed__badlog *b, const feed__index_hdr *ix, uint32_t batch_size)
{
    memset(b, 0, sizeof *b);
    b->ix = ix;
    if (!(b->quar = feed__calloc(batch_size, sizeof *b->quar)) ||
        !(b->quar_why = feed__calloc(batch_size, sizeof *b->quar_why)))
        return FEED_E_NOMEM;
    return FEED_OK;
}

void feed__badlog_free(feed__badlog *b)
{
    feed__free(b->quar);
    feed__free(b->quar_why);
    feed__free(b->bad);
    feed__free(b->set);
    memset(b, 0, sizeof *b);
}

/* 1 if key is new (or cannot be looked up: then it is recorded anyway). */
static int set_add(feed__badlog *b, uint64_t key)
{
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

uint32_t feed__badlog_harvest(feed__badlog *b, const feed__arena_hdr *h, uint32_t i)
{
    const feed__slot_hdr *s = feed__slot(h, i);
    const uint8_t *flags = feed__slot_flags(h, i);
    const feed__sample_rec *recs = feed__slot_recs(h, i);
    uint32_t replaced = 0;
    for (uint32_t t = 0; t < s->count; t++) {
        if (!(flags[t] & FEED_SAMPLE_REPLACED))
            continue;
        const feed__sample_rec *r = &recs[t];
        replaced++;
        b->samples_bad++;
        uint64_t key = feed__mix64(r->sample_id ^ feed__mix64(s->epoch + 1));
        if (!set_add(b, key))
            continue;
        if (b->nbad == b->capbad) {
            uint64_t cap = b->capbad ? b->capbad * 2 : 16;
            feed_bad_sample *n = feed__realloc(b->bad, cap * sizeof *n);
            if (!n)
                continue;
            b->bad = n;
            b->capbad = cap;
        }
        feed_bad_sample *e = &b->bad[b->nbad++];
        memset(e, 0, sizeof *e);
        e->sample_id = r->sample_id;
        e->epoch = s->epoch;
        e->batch = s->index;
        e->status = r->status ? r->status : FEED_E_DECODE;
        e->sys_errno = r->sys_errno;
        const char *rel = feed__index_path(b->ix, r->sample_id);
        if (rel[0] == '/')
            snprintf(e->path, sizeof e->path, "%s", rel);
        else
            snprintf(e->path, sizeof e->path, "%.2000s/%.2000s", b->ix->root, rel);
        snprintf(e->message, sizeof e->message, "%.200s", r->message);
    }
    return replaced;
}

feed_status feed__badlog_report(const feed__badlog *b, uint64_t epoch, uint64_t batch, char *msg, size_t len)
{
    const feed_bad_sample *first = NULL;
    for (uint64_t i = b->nbad; i-- > 0;) { /* a batch's reports are adjacent */
        const feed_bad_sample *s = &b->bad[i];
        if (s->epoch == epoch && s->batch == batch)
            first = s;
        else if (first)
            break;
    }
    if (!first)
        return FEED_E_DECODE;
    snprintf(msg, len, "%s: %s (sample %llu, epoch %llu, batch %llu)", first->path, first->message,
             (unsigned long long)first->sample_id, (unsigned long long)first->epoch,
             (unsigned long long)first->batch);
    if (first->status > FEED_END_OF_DATA && first->status < FEED_STATUS_COUNT_)
        return (feed_status)first->status;
    return FEED_E_DECODE;
}

feed_status feed__badlog_get(const feed__badlog *b, uint64_t i, feed_bad_sample *out)
{
    if (i >= b->nbad)
        return FEED_E_INVALID;
    *out = b->bad[i];
    out->struct_size = sizeof *out;
    return FEED_OK;
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

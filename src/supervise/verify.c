/*
 * verify.c - the parent's checks of what workers wrote (see verify.h).
 */
#include "supervise/verify.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "arena/protocol.h"

int feed__copy_untrusted(char *dst, size_t len, const char *src, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        if (!c) {
            dst[o] = 0;
            return 1;
        }
        if (c >= 0x20 && c < 0x7f) {
            if (o + 1 >= len)
                break;
            dst[o++] = (char)c;
        } else {
            if (o + 4 >= len)
                break;
            dst[o++] = '\\', dst[o++] = 'x', dst[o++] = hex[c >> 4], dst[o++] = hex[c & 15];
        }
    }
    dst[o] = 0;
    return memchr(src, 0, n) != NULL;
}

/* 1 if got may replace the sample at position t of slot i: one of its
 * substitutes, or the sample itself (nothing decoded: zeros). Only the
 * parent's private records count: the ids the batch asked for, its count. */
static int substitute_of(const feed__arena *a, uint32_t i, uint32_t t, const feed__index_hdr *ix, uint64_t got)
{
    const feed__arena_hdr *cfg = a->cfg;
    const feed__slot_meta *m = &a->meta[i];
    const uint64_t id = m->s[t].id;
    if (got == id)
        return 1;
    if (cfg->substitute_from == FEED_SUBSTITUTE_BATCH) {
        for (uint32_t k = 1; k <= FEED_SUBSTITUTE_MAX; k++) {
            uint32_t u = feed__substitute_pos(cfg->seed, m->epoch, id, k, t, m->count);
            if (u != t && m->s[u].id == got)
                return 1;
        }
        return 0;
    }
    uint64_t first = 0, count = cfg->dataset_size;
    if (cfg->substitute_from == FEED_SUBSTITUTE_SHARD)
        feed__index_shard_span(ix, id, &first, &count);
    for (uint32_t k = 1; k <= FEED_SUBSTITUTE_MAX; k++)
        if (feed__substitute_in(cfg->seed, m->epoch, id, k, first, count) == got)
            return 1;
    return 0;
}

/* Copies sample t of slot i into the private record and checks it; 0 if
 * valid, else 1 with what in v->what. */
static int check_sample(feed__arena *a, uint32_t i, uint32_t t, const feed__index_hdr *ix, feed__verdict *v)
{
    feed__slot_meta *m = &a->meta[i];
    feed__sample_priv *p = &m->s[t];
    const feed__sample_rec *r = &feed__slot_recs(a, i)[t];
    /* Each shared word is read once, into private memory; the checks and
     * everything after them use the copies. */
    uint64_t id = m->ids[t] = feed__slot_ids(a, i)[t];
    int32_t label = m->labels[t] = feed__slot_labels(a, i)[t];
    uint8_t flags = m->flags[t] = feed__slot_flags(a, i)[t];
    uint64_t asked = r->sample_id;
    uint32_t repeat = r->repeat;
    p->got_status = r->status;
    p->got_errno = r->sys_errno;
    int terminated = feed__copy_untrusted(p->got_message, sizeof p->got_message, r->message, sizeof r->message);
    const uint64_t n = a->cfg->dataset_size;
    const int replaced = flags & FEED_SAMPLE_REPLACED;

#define BAD(...) return snprintf(v->what, sizeof v->what, __VA_ARGS__), 1
    if (asked != p->id)
        BAD("an invalid sample_id %llu over the record of sample %llu", (unsigned long long)asked,
            (unsigned long long)p->id);
    /* the key of the sample's draws: changed, the batch could hold another
     * repeat's pixels */
    if (repeat != p->repeat)
        BAD("an invalid repeat %u over the record of sample %llu (repeat %u)", repeat,
            (unsigned long long)p->id, p->repeat);
    if ((flags & ~(FEED_SAMPLE_REPLACED | FEED_SAMPLE_FLIPPED | FEED__SAMPLE_NO_SUBSTITUTE)) ||
        ((flags & FEED__SAMPLE_NO_SUBSTITUTE) && (!replaced || id != p->id)))
        BAD("invalid flags 0x%x for sample %llu", flags, (unsigned long long)p->id);
    if (id >= n || (!replaced && id != p->id) || (replaced && !substitute_of(a, i, t, ix, id)))
        BAD("an invalid id %llu for sample %llu%s", (unsigned long long)id, (unsigned long long)p->id,
            replaced ? " (no substitute of it)" : "");
    if (label != feed__index_label(ix, id))
        BAD("an invalid label %d for sample %llu (its label is %d)", label, (unsigned long long)id,
            feed__index_label(ix, id));
    if (p->poisoned && !replaced)
        BAD("sample %llu as decoded, which the parent had quarantined", (unsigned long long)p->id);
    if (replaced && (p->got_status <= FEED_END_OF_DATA || p->got_status >= FEED_STATUS_COUNT_))
        BAD("an invalid error code %d for sample %llu", p->got_status, (unsigned long long)p->id);
    /* Only the parent poisons: a worker that says "quarantined" of its own
     * sample took the substitute path from counters it cannot own. */
    if (replaced && p->got_status == FEED_E_WORKER && !p->poisoned)
        BAD("a quarantine the parent did not make for sample %llu", (unsigned long long)p->id);
    if (replaced && (p->got_errno < 0 || p->got_errno > 4095))
        BAD("an invalid errno %d for sample %llu", p->got_errno, (unsigned long long)p->id);
    if (replaced && !terminated)
        BAD("a message of sample %llu without its end (\"%.40s...\")", (unsigned long long)p->id, p->got_message);
    /* Metadata members: each length the one the index gives the delivered
     * id (0 for a missing one, which only meta_missing=empty delivers), all
     * within the sample's room; where each is, the parent's own sums. */
    const uint32_t M = a->lay.nmeta;
    const uint32_t *wrote = M ? feed__slot_mlens(a, i) + (uint64_t)t * M : NULL;
    uint64_t at = (uint64_t)t * a->lay.meta_bytes, used = 0;
    for (uint32_t j = 0; j < M; j++) {
        uint32_t got = wrote[j], want = 0;
        uint64_t off;
        int have = feed__index_member(ix, id, j, &off, &want);
        if (flags & FEED__SAMPLE_NO_SUBSTITUTE) /* not delivered: the loader fails the batch */
            want = 0, have = 1;
        if (!have && a->cfg->meta_missing != FEED_META_MISSING_EMPTY)
            BAD("sample %llu as delivered without its .%.31s member (meta_missing=bad)", (unsigned long long)id,
                a->cfg->meta_exts[j]);
        if (got != want || want > a->lay.meta_bytes - used)
            BAD("an invalid length %u of the .%.31s member of sample %llu (it has %u bytes%s)", got,
                a->cfg->meta_exts[j], (unsigned long long)id, want,
                want > a->lay.meta_bytes - used ? ", over meta_max_bytes with the others" : "");
        m->meta_off[(uint64_t)t * M + j] = at + used;
        m->meta_len[(uint64_t)t * M + j] = got;
        used += got;
    }
#undef BAD
    return 0;
}

int feed__verify_slot(feed__arena *a, uint32_t i, const feed__index_hdr *ix, feed__verdict *v)
{
    pthread_mutex_lock(&a->mu);
    const feed__slot_meta *m = &a->meta[i];
    int bad = 0;
    for (uint32_t t = 0; t < m->count && !bad; t++) {
        bad = check_sample(a, i, t, ix, v);
        if (bad) {
            uint32_t f = atomic_load_explicit(&feed__slot_recs(a, i)[t].filler, memory_order_relaxed);
            v->t = t;
            v->worker = f >= 1 && f <= a->lay.nworkers ? f - 1 : UINT32_MAX;
        }
    }
    pthread_mutex_unlock(&a->mu);
    return bad;
}

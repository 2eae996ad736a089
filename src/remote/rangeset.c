/* rangeset.c - byte ranges kept sorted and merged (rangeset.h). */
#include "remote/rangeset.h"

#include <string.h>

#include "common/internal.h"

/* The first range whose hi >= lo (it may touch or hold lo), or s->n. */
static size_t first_reaching(const feed__rangeset *s, uint64_t lo)
{
    size_t a = 0, b = s->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (s->v[m].hi < lo)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

static int reserve(feed__rangeset *s, size_t more)
{
    if (s->n + more <= s->cap)
        return 0;
    size_t cap = s->cap ? s->cap * 2 : 8;
    while (cap < s->n + more)
        cap *= 2;
    feed__span *v = feed__realloc(s->v, cap * sizeof *v);
    if (!v)
        return -1;
    s->v = v, s->cap = cap;
    return 0;
}

int feed__rangeset_add(feed__rangeset *s, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return 0;
    size_t i = first_reaching(s, lo), j = i;
    while (j < s->n && s->v[j].lo <= hi) { /* overlapping or touching: merged */
        if (s->v[j].lo < lo)
            lo = s->v[j].lo;
        if (s->v[j].hi > hi)
            hi = s->v[j].hi;
        j++;
    }
    if (j == i) {
        if (reserve(s, 1) != 0)
            return -1;
        memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof *s->v);
        s->n++;
    } else if (j > i + 1) {
        memmove(s->v + i + 1, s->v + j, (s->n - j) * sizeof *s->v);
        s->n -= j - i - 1;
    }
    s->v[i] = (feed__span){lo, hi};
    return 0;
}

int feed__rangeset_remove(feed__rangeset *s, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return 0;
    size_t i = first_reaching(s, lo);
    if (i < s->n && s->v[i].hi == lo)
        i++;
    if (i < s->n && s->v[i].lo < lo && s->v[i].hi > hi) { /* inside one: split it */
        if (reserve(s, 1) != 0)
            return -1;
        memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof *s->v);
        s->n++;
        s->v[i].hi = lo;
        s->v[i + 1].lo = hi;
        return 0;
    }
    size_t j = i, keep = i;
    for (; j < s->n && s->v[j].lo < hi; j++) {
        feed__span r = s->v[j];
        if (r.lo < lo) /* its head stays */
            s->v[keep++] = (feed__span){r.lo, lo};
        else if (r.hi > hi) /* its tail stays */
            s->v[keep++] = (feed__span){hi, r.hi};
    }
    if (j > keep && s->n > j)
        memmove(s->v + keep, s->v + j, (s->n - j) * sizeof *s->v);
    s->n -= j - keep;
    return 0;
}

int feed__rangeset_covers(const feed__rangeset *s, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return 1;
    size_t i = first_reaching(s, lo);
    if (i < s->n && s->v[i].hi == lo)
        i++;
    return i < s->n && s->v[i].lo <= lo && s->v[i].hi >= hi;
}

size_t feed__rangeset_gaps(const feed__rangeset *a, const feed__rangeset *b, uint64_t lo, uint64_t hi,
                           feed__span *out, size_t cap)
{
    size_t n = 0, i = a ? first_reaching(a, lo) : 0, j = b ? first_reaching(b, lo) : 0;
    uint64_t at = lo;
    while (at < hi && n < cap) {
        /* skip what covers at */
        int moved = 1;
        while (moved) {
            moved = 0;
            for (; a && i < a->n && a->v[i].hi <= at; i++)
                ;
            for (; b && j < b->n && b->v[j].hi <= at; j++)
                ;
            if (a && i < a->n && a->v[i].lo <= at && a->v[i].hi > at)
                at = a->v[i].hi, moved = 1;
            if (b && j < b->n && b->v[j].lo <= at && b->v[j].hi > at)
                at = b->v[j].hi, moved = 1;
        }
        if (at >= hi)
            break;
        uint64_t end = hi;
        if (a && i < a->n && a->v[i].lo < end)
            end = a->v[i].lo;
        if (b && j < b->n && b->v[j].lo < end)
            end = b->v[j].lo;
        out[n++] = (feed__span){at, end};
        at = end;
    }
    return n;
}

void feed__rangeset_free(feed__rangeset *s)
{
    feed__free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

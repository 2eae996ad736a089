/*
 * targets.c - a per-sample target array from a .npy (targets.h).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/internal.h"
#include "dataset/npy.h"
#include "dataset/targets.h"

/* Element i of a file's data as the uint64 of its bits (byte order undone). */
static uint64_t bits_at(const uint8_t *p, uint32_t item, int big)
{
    uint64_t u = 0;
    for (uint32_t k = 0; k < item; k++)
        u |= (uint64_t)p[big ? item - 1 - k : k] << (8 * k);
    return u;
}

/* One element into its delivered form at out: float32 (from float32 or
 * float64) or int64 (from int32 or int64). */
static void convert(const feed__npy_header *h, const uint8_t *in, uint8_t *out)
{
    uint64_t u = bits_at(in, h->item, h->order == '>');
    if (h->kind == 'f') {
        float f;
        if (h->item == 4) {
            uint32_t w = (uint32_t)u;
            memcpy(&f, &w, 4);
        } else {
            double d;
            memcpy(&d, &u, 8);
            f = (float)d; /* round to nearest even (the default rounding mode) */
        }
        memcpy(out, &f, 4);
        return;
    }
    int64_t v = h->item == 4 ? (int64_t)(int32_t)(uint32_t)u : (int64_t)u;
    memcpy(out, &v, 8);
}

void feed__targets_convert(const feed__npy_header *h, const uint8_t *in, uint64_t count, uint8_t *out)
{
    uint32_t elem = h->kind == 'f' ? 4 : 8;
    for (uint64_t i = 0; i < count; i++)
        convert(h, in + i * h->item, out + i * elem);
}

feed_status feed__targets_load(feed__targets *t, const char *path, uint64_t n, char *err, size_t errlen)
{
    *t = (feed__targets){0};
    int fd = -1;
    uint64_t size = 0;
    feed__npy_header h;
    char why[512];
    feed_status st = feed__npy_open(path, "targets", &fd, &size, &h, err, errlen);
    if (st != FEED_OK)
        return st;
    if ((st = feed__npy_check_targets(&h, size, n, why, sizeof why)) != FEED_OK) {
        close(fd);
        return feed__err(st, err, errlen, "targets %s: %s", path, why);
    }
    uint32_t dim = h.rank == 2 ? (uint32_t)h.shape[1] : 1;
    uint32_t elem = h.kind == 'f' ? 4 : 8;
    uint64_t elems = n * dim;
    if (elems > SIZE_MAX / 8 || !(t->data = feed__malloc(elems ? (size_t)elems * elem : 1))) {
        close(fd);
        return feed__err(FEED_E_NOMEM, err, errlen, "targets %s: out of memory for %llu x %u values", path,
                         (unsigned long long)n, dim);
    }
    /* in chunks of whole elements, converted as they come */
    uint8_t chunk[1 << 16];
    uint64_t done = 0, per = sizeof chunk / h.item;
    while (done < elems) {
        uint64_t take = elems - done < per ? elems - done : per;
        size_t want = (size_t)(take * h.item), got = 0;
        while (got < want) {
            ssize_t r = pread(fd, chunk + got, want - got, (off_t)(h.data_off + done * h.item + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                int e = r < 0 ? errno : 0;
                close(fd);
                feed__targets_free(t);
                return feed__err(FEED_E_DATASET, err, errlen, "targets %s: read failed at byte %llu: %s", path,
                                 (unsigned long long)(h.data_off + done * h.item + got),
                                 e ? strerror(e) : "the file shrank while being read");
            }
            got += (size_t)r;
        }
        feed__targets_convert(&h, chunk, take, t->data + done * elem);
        done += take;
    }
    close(fd);
    t->n = n;
    t->dim = dim;
    t->elem = elem;
    t->dtype = h.kind == 'f' ? FEED_TARGET_FLOAT32 : FEED_TARGET_INT64;
    return FEED_OK;
}

void feed__targets_gather(const feed__targets *t, const uint64_t *ids, uint32_t count, void *out)
{
    size_t row = feed__targets_row(t);
    for (uint32_t i = 0; i < count; i++)
        memcpy((uint8_t *)out + i * row, t->data + ids[i] * row, row);
}

void feed__targets_free(feed__targets *t)
{
    feed__free(t->data);
    *t = (feed__targets){0};
}

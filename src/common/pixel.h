/*
 * pixel.h - small helpers shared by the pixel stages (resize, geometry,
 * colour, image); internal.
 */
#ifndef FEED_PIXEL_H
#define FEED_PIXEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "feed.h"

/* Saturates v to a byte. */
static inline uint8_t feed__clamp8(int32_t v)
{
    return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
}

/* Grows the scratch buffer *p of *cap bytes to at least need bytes (doubling,
 * so the steady state of a worker does no allocation; contents are kept).
 * Returns 0 or FEED_E_NOMEM, leaving *p and *cap as they were. */
static inline int feed__grow(void **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n);
    if (!q)
        return FEED_E_NOMEM;
    *p = q;
    *cap = n;
    return 0;
}

#endif /* FEED_PIXEL_H */

/*
 * erase.h - RandomErasing, as torchvision.transforms.v2.RandomErasing, on a
 * sample already converted to the output dtype and layout (after
 * normalisation, where torchvision applies it).
 *
 * The draws are a pure function of (seed, epoch, sample id): whether to
 * erase, the box, and with erase_random each erased element's value, so a
 * sample is erased the same whichever worker does it, after a crash, and
 * whatever its dtype or layout.
 */
#ifndef FEED_PIXELS_ERASE_H
#define FEED_PIXELS_ERASE_H

#include <stdint.h>

#include "pixels/xform.h"

/* One sample's box: rows y..y+h-1, columns x..x+w-1 of an out_h x out_w
 * output. key seeds the values of erase_random (feed__erase_random_value). */
typedef struct feed__erase_box {
    uint32_t y, x, h, w;
    uint64_t key;
} feed__erase_box;

/* Draws sample id's box: 1 and *b filled if it is erased; 0 if not (the
 * erase_p draw said no, or, as torchvision, none of 10 tries gave a box
 * smaller than the image in both sides). x->erase_p == 0: always 0, no draw. */
int feed__erase_draw(const feed__xform *x, uint64_t seed, uint64_t epoch, uint64_t id, feed__erase_box *b);

/* The value erase_random gives channel c of row y, column x of the box (box
 * coordinates): for float dtypes a normal(0, 1) value (feed__erase_normal of
 * pixels/post.h: four uniforms summed, so the host and the GPU give the same
 * bits), keyed by the element's place so that every layout gets the same;
 * uniform 0..255 for uint8 (a normal draw has no meaning in bytes). */
float feed__erase_random_value(const feed__erase_box *b, uint32_t c, uint32_t y, uint32_t x);
uint8_t feed__erase_random_byte(const feed__erase_box *b, uint32_t c, uint32_t y, uint32_t x);

/* erase_value[c] as bits of dtype: float16/bfloat16 rounded to nearest
 * even, uint8 the integer. */
uint32_t feed__erase_value_bits(const feed__xform *x, uint32_t dtype, uint32_t c);

/* Writes box b into one h x w x 3 sample out of dtype (FEED_DTYPE_*) and
 * layout (FEED_LAYOUT_*): erase_value (converted to dtype: float16 and
 * bfloat16 round to nearest even) or, with erase_random, the values above. */
void feed__erase_apply(const feed__xform *x, const feed__erase_box *b, uint32_t dtype, uint32_t layout,
                       void *out);

/* Draw and apply: what the worker runs on each sample it converted. */
void feed__erase_sample(const feed__xform *x, uint64_t seed, uint64_t epoch, uint64_t id, uint32_t dtype,
                        uint32_t layout, void *out);

#endif

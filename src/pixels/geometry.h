/*
 * geometry.h - where the pixels go (internal): the crop boxes of the
 * transforms, EXIF orientation and flips, rotation.
 *
 * The building blocks of feed__image_process() (pixels/pipeline.h), exposed so that the
 * tests can check each one against a float64 reference or torchvision's
 * definition. Boxes are in the *displayed* image (after EXIF orientation), as
 * torchvision sees it; feed__map_rect() takes them into the stored image,
 * which is what the decoder reads.
 */
#ifndef FEED_GEOMETRY_H
#define FEED_GEOMETRY_H

#include <stddef.h>
#include <stdint.h>

#include "common/rng.h"

/*
 * EXIF orientation o (1..8) plus an optional horizontal flip applied after
 * it, as one copy. src is the image as stored (sw x sh, RGB); dst is
 * dw x dh = the displayed size (sh x sw for o >= 5). Exact (a permutation).
 */
void feed__orient_copy(const uint8_t *src, size_t src_stride, uint32_t sw, uint32_t sh,
                       uint32_t o, int hflip, uint8_t *dst, size_t dst_stride);

/* The displayed rectangle [x0, x1) x [y0, y1) of an image stored as ws x hs
 * with EXIF orientation o, in stored coordinates: r = {x0, x1, y0, y1}. */
void feed__map_rect(uint32_t o, double ws, double hs, double x0, double x1, double y0, double y1,
                    double r[4]);

/*
 * Rotates an RGB image of w x h by deg degrees counter-clockwise about its
 * centre ((w-1)/2, (h-1)/2), same size out, bilinear, source pixels outside
 * the image taken as fill[3] (torchvision's rotate with a fill). Output pixel
 * (x, y) samples source (cx + c*dx - s*dy, cy + s*dx + c*dy) with dx = x - cx,
 * dy = y - cy, c = cos, s = sin; sampling positions are Q16 fixed point, so
 * multiples of 90 degrees are exact permutations. src and dst must not overlap.
 */
void feed__rotate(const uint8_t *src, uint8_t *dst, uint32_t w, uint32_t h, double deg,
                  const uint8_t fill[3]);

/*
 * torchvision's Resize(shorter) then CenterCrop(oh, ow) of a W x H image, as
 * the box of the image it reads: box = {x0, x1, y0, y1}. Where the crop is
 * larger than the resized image, CenterCrop pads with zeros: the image then
 * fills only the output's sub-rectangle sub = {x, y, w, h} (else {0, 0, ow, oh}).
 */
void feed__center_crop_box(uint32_t W, uint32_t H, uint32_t shorter, uint32_t ow, uint32_t oh,
                           double box[4], uint32_t sub[4]);

/* RandomResizedCrop's box, exactly as torchvision's get_params defines it,
 * drawing from r: top i, left j, size h x w, all inside H x W. Returns 1 if
 * one of the 10 attempts succeeded, 0 for the center-crop fallback. */
int feed__rrc_box(feed__rng *r, uint32_t W, uint32_t H, double scale_min, double scale_max,
                  double ratio_min, double ratio_max, uint32_t *i, uint32_t *j, uint32_t *h,
                  uint32_t *w);

#endif /* FEED_GEOMETRY_H */

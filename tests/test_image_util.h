/*
 * test_image_util.h - JPEG fixtures, float64 references, a fixed decode plan
 * and the usual transform, shared by the image-pipeline tests (test_jpeg.c,
 * test_augment.c, test_png.c, test_webp.c, ...).
 */
#ifndef FEED_TEST_IMAGE_UTIL_H
#define FEED_TEST_IMAGE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "decode/jpeg.h"
#include "pixels/pipeline.h"

/* Kinds of synthetic JPEG. */
enum {
    TI_444 = 0, TI_422, TI_420, TI_440, TI_411, TI_GRAY, TI_CMYK,
    TI_KINDS
};

/* Synthetic but non-trivial RGB pixels: gradients, a checkerboard with sharp
 * edges, circles and some noise, so crops, scales and flips all show. */
uint8_t *ti_pixels(uint32_t w, uint32_t h, uint32_t seed);
/* Photo-like RGB pixels: smooth shading, soft blobs, mild texture and noise. */
uint8_t *ti_photo(uint32_t w, uint32_t h, uint32_t seed);

/* Compresses RGB pixels (converted to grey or CMYK for those kinds) with
 * TurboJPEG. flags: TJFLAG_PROGRESSIVE etc. Returns a malloc'ed buffer. */
uint8_t *ti_jpeg(const uint8_t *rgb, uint32_t w, uint32_t h, int kind, int quality, int flags,
                 size_t *len);
/* Compresses RGB with the libjpeg API (4:2:0, quality 90) after setup(ci,
 * arg) has changed what it wants; setup returns memory to free after (or
 * NULL). */
struct jpeg_compress_struct;
uint8_t *ti_jpeg_lib(const uint8_t *rgb, uint32_t w, uint32_t h,
                     void *(*setup)(struct jpeg_compress_struct *, const void *), const void *arg,
                     size_t *len);
/* Same, with the libjpeg API and a restart interval (in MCU rows when
 * restart_rows, else in MCUs). 4:2:0. */
uint8_t *ti_jpeg_restart(const uint8_t *rgb, uint32_t w, uint32_t h, int interval,
                         int restart_rows, size_t *len);
/* Same, progressive: jpeg_simple_progression's ten scans, or (bitwise) every
 * coefficient of every component refined one bit at a time: 2090 valid
 * scans, a decompression bomb by scan count. */
uint8_t *ti_jpeg_progressive(const uint8_t *rgb, uint32_t w, uint32_t h, int bitwise, size_t *len);
/* A progressive scan script for ncomp (1 or 3) components, malloc'ed, *n scans:
 * the DC in three steps (interleaved, or each component on its own when
 * dc_apart), AC bands 1-2, 3-20 and 21-63 with 3, 1 and 0 bits held back,
 * refined one bit a scan (the bands in another order for the second
 * component). A jpeg_scan_info array (an unnamed struct in jpeglib.h, hence
 * void *) for ci->scan_info / num_scans. */
void *ti_deep_scan_script(int ncomp, int dc_apart, int *n);
/* ti_jpeg_lib with that script: 4:2:0 (or grey), quality 90, restart
 * interval `restart` MCUs (0: none). */
uint8_t *ti_jpeg_progressive_deep(const uint8_t *rgb, uint32_t w, uint32_t h, int grey, int dc_apart,
                                  int restart, size_t *len);
/* A copy of jpeg with an APP1 Exif segment holding orientation o spliced in
 * after SOI (big-endian TIFF when big, else little-endian). */
uint8_t *ti_with_exif(const uint8_t *jpeg, size_t len, uint32_t o, int big, size_t *out_len);

/* Reference decode with TurboJPEG at scale m/8 into RGB (grey and CMYK
 * converted as the library documents). *w, *h get the scaled size. */
uint8_t *ti_decode_ref(const uint8_t *jpeg, size_t len, int m, uint32_t *w, uint32_t *h);

/* The reference pipeline, written the way torchvision does it and sharing no
 * pixel code with the library: full TurboJPEG decode, EXIF orientation by
 * permutation, then NONE: resize all; VAL: resize the whole image so the
 * shorter side is resize_shorter, crop the centre (zero padding when the crop
 * is larger); TRAIN: crop the box (feed__rrc_box with the sample's stream,
 * checked against torchvision's definition in test_augment.c), resize the
 * crop, mirror when flipped. float64, no rounding between the steps; returns
 * out_h*out_w*3 doubles. Decoding at 8/8 (roi_decode=0) the library is within
 * 1 of it everywhere; with DCT scaling, within 2 on average (photo-like
 * content). */
double *ti_process_ref(const uint8_t *jpg, size_t len, const feed__xform *x, uint64_t seed,
                       uint64_t epoch, uint64_t id, int flipped);
/* got (what the library made of the JPEG jpg for sample id of epoch) against
 * ti_process_ref: returns max |got - round(ref)|, *mean gets the mean |got -
 * ref|. TRAIN with flips: against both orientations, the closer one, which
 * *flipped gets (the flip draw is the library's; the caller checks that both
 * occur). */
double ti_compare_ref(const uint8_t *got, const uint8_t *jpg, size_t len, const feed__xform *x, uint64_t seed,
                      uint64_t epoch, uint64_t id, double *mean, int *flipped);

/* RGB -> RGBX copy (X = 255). */
uint8_t *ti_rgbx(const uint8_t *rgb, uint32_t w, uint32_t h);

/* float64 PIL-style resample (triangle filter of radius max(1, scale),
 * renormalised inside the image) of box [bx0,bx1) x [by0,by1) of an RGB
 * image to dw x dh; separable, horizontal then vertical, no rounding between.
 * Returns dw*dh*3 doubles. */
double *ti_resize_ref(const uint8_t *rgb, uint32_t w, uint32_t h, double bx0, double by0,
                      double bx1, double by1, uint32_t dw, uint32_t dh);

/* A small LCG for test inputs: 24 random bits, and a double in [0, 1). */
uint32_t ti_rnd(uint32_t *s);
double ti_rndu(uint32_t *s);

/* A random resize for the kernel tests: output dw x dh (k < 80: widths
 * 1..40 in turn; else up to 300; heights up to 9, every 5th up to 68), a
 * source of up to 6x that across and 3.3x down, the whole source as box
 * (even k) or a random part of it (odd k), and a flip half the time. */
typedef struct ti_resize_case {
    uint32_t dw, dh, w, h;
    double b[4]; /* x0, y0, x1, y1 */
    int flip;
} ti_resize_case;
void ti_resize_case_make(uint32_t *seed, int k, ti_resize_case *c);

/* 1 if this CPU runs resize kernel level l (0 portable, 1 SSE2, 2 AVX2,
 * 3 AVX-512 BW). */
int ti_cpu_has_level(int l);

/* torchvision's Resize(s) of a W x H image: the shorter side to s, the
 * other in proportion (rounded down), into *rw x *rh. */
void ti_resize_shorter(uint32_t W, uint32_t H, uint32_t s, uint32_t *rw, uint32_t *rh);

/* Displayed image of a stored RGB image under EXIF orientation o (1..8). */
uint8_t *ti_orient_ref(const uint8_t *rgb, uint32_t w, uint32_t h, uint32_t o, uint32_t *dw,
                       uint32_t *dh);

/* max |a - round(ref)| and mean |a - ref| over n values. */
double ti_max_err(const uint8_t *a, const double *ref, size_t n);
double ti_mean_err_u8(const uint8_t *a, const uint8_t *b, size_t n);
int ti_max_err_u8(const uint8_t *a, const uint8_t *b, size_t n);

/* A decoder plan (feed__decode_plan_fn) that records the header it was shown
 * and asks for want, or refuses with status ("plan says no") when set. */
typedef struct ti_plan_arg {
    feed__decode_region want;
    feed__decode_info seen;
    int status; /* returned by the plan */
    int calls;
} ti_plan_arg;
int ti_plan_fixed(void *arg, const feed__decode_info *info, feed__decode_region *r, char *msg,
                  size_t msglen);

/* The region of a scaled image sw x sh that box (x0, y0, x1, y1, fractions
 * of it) covers, at least one pixel, inside the image. */
void ti_region_from_box(feed__decode_region *r, const double box[4], uint32_t sw, uint32_t sh);

/* The ImageNet-style transform to oh x ow: mode, RandomResizedCrop
 * (0.08..1, 3/4..4/3), flip 0.5 in train, resize_shorter for val, EXIF and
 * region decoding on, max_pixels 1e8. */
feed__xform ti_xform(uint32_t mode, uint32_t oh, uint32_t ow, uint32_t resize_shorter);

#endif

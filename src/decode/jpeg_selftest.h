/*
 * jpeg_selftest.h - the run-time check of libfeed's Huffman decoder against
 * the libjpeg-turbo loaded now (option jpeg_entropy=auto, feed.h).
 *
 * libfeed's decoder (jpeg_huff.h) sits in libjpeg-turbo's private
 * entropy-decoder slot and is bit-exact with the version it was built
 * against; a library swapped under it (a system upgrade without a rebuild)
 * can make it decode some progressive files to other pixels, with no error.
 * So a worker, before it takes work, decodes a few small built-in JPEGs with
 * both decoders (region.libjpeg_entropy 0 and 2) and compares: libfeed's
 * runs only where they agree (pixels/pipeline.h, feed__image_entropy).
 */
#ifndef FEED_JPEG_SELFTEST_H
#define FEED_JPEG_SELFTEST_H

#include <stddef.h>

#include "decode/jpeg.h"

/* 1 when this build has libfeed's Huffman decoder (FEED_OWN_ENTROPY,
 * jpeg_abi.h), else 0. Test builds: 0 also under
 * FEED_TEST_ENTROPY=compiled_out (tests/hooks/fault.h). */
int feed__jpeg_entropy_built(void);

/*
 * Decodes each built-in file (sequential with restart markers; progressive
 * with full successive approximation and restart markers; progressive
 * without refinement scans, an incomplete progression; progressive cut at
 * a scan boundary with EOI appended) with j twice: libfeed's decoder, and
 * libjpeg-turbo's exact path, the reference. Returns 0 when every file gave
 * the same status, message and pixels and libfeed's decoder did decode it;
 * else 1, with the first difference in what ("the progressive file without
 * refinement scans: 12 of 1920 pixels differ, the first at (5, 7)").
 * Decodes memory only: any process state, the sandbox's included. Test
 * builds: FEED_TEST_ENTROPY=differ changes a pixel of libfeed's side.
 */
int feed__jpeg_selftest(feed__jpeg *j, char *what, size_t whatlen);

/* Built-in file k (0, 1, ...), for tests: its bytes into *data and *len,
 * and what it is ("progressive file cut at a scan boundary"); NULL past the
 * last. */
const char *feed__jpeg_selftest_file(int k, const uint8_t **data, size_t *len);

/* The libjpeg-turbo of the build and the one loaded: "libjpeg-turbo
 * 2.1.5 at build, loaded from /usr/lib/x86_64-linux-gnu/libjpeg.so.8.2.2"
 * (the file as far as it can tell). Reads /proc and the file system: call
 * it before the sandbox closes them. */
void feed__jpeg_lib_version(char *buf, size_t len);

#endif /* FEED_JPEG_SELFTEST_H */

/*
 * jpeg_abi.h - whether libfeed's own Huffman decoder (jpeg_huff.c,
 * jpeg_phuff.c) is compiled in: FEED_OWN_ENTROPY, 1 or 0.
 *
 * The decoder lives in libjpeg-turbo's private entropy-decoder slot: it
 * embeds struct jpeg_entropy_decoder (jpegint.h, which libjpeg-turbo does not
 * install and does not keep stable), writes its insufficient_data, calls
 * libjpeg's progressive start_pass and reads the input and marker
 * controllers. libjpeg-turbo 3.0 added decode_mcus and process_restart to
 * that struct (24 -> 40 bytes on LP64; insufficient_data moved from offset
 * 16 to 32), so code built with 2.1's jpegint.h and run on 3.x decodes some
 * progressive files to wrong pixels without an error. So it is a pinned
 * dependency (docs/design.md, "libjpeg-turbo: pinned"): the build's gate
 * (third_party/libjpeg-turbo.cmake) sets FEED_OWN_ENTROPY to 1 only when the
 * jpegint.h used belongs to the jpeglib.h and the library found, and that
 * version is one the decoder was checked against; otherwise to 0, and
 * decode/jpeg.c never installs it (jpeg_huff.c and jpeg_phuff.c are still
 * compiled, and never called): libjpeg's own decoder decodes every scan.
 *
 * FEED_OWN_ENTROPY 1: compiled in; the option jpeg_entropy (feed.h) and the
 * worker's self-check (jpeg_selftest.h) decide whether it runs. 0: compiled
 * out; every JPEG is decoded by libjpeg-turbo's own Huffman decoder and
 * jpeg_entropy=libfeed fails create.
 *
 * No codec header here (tests/includes.py): anything may read
 * FEED_OWN_ENTROPY. A decode/jpeg*.c file that includes this after
 * jpeglib.h and jpegint.h also gets the compile-time checks below.
 */
#ifndef FEED_JPEG_ABI_H
#define FEED_JPEG_ABI_H

#ifndef FEED_OWN_ENTROPY
#error "FEED_OWN_ENTROPY is the libjpeg-turbo gate's verdict (third_party/libjpeg-turbo.cmake)"
#endif

#endif /* FEED_JPEG_ABI_H */

/* jpegint.h is in (DSTATE_START is one of its macros in every version):
 * the layout the decoder was compiled for is the one the version implies. */
#if FEED_OWN_ENTROPY && defined(DSTATE_START) && defined(LIBJPEG_TURBO_VERSION_NUMBER) && \
    !defined(FEED_JPEG_ABI_CHECKED)
#define FEED_JPEG_ABI_CHECKED 1
#if !((LIBJPEG_TURBO_VERSION_NUMBER >= 2001000 && LIBJPEG_TURBO_VERSION_NUMBER <= 2001999) || \
      (LIBJPEG_TURBO_VERSION_NUMBER >= 3001000 && LIBJPEG_TURBO_VERSION_NUMBER <= 3001999))
#error "FEED_OWN_ENTROPY=1 with a libjpeg-turbo the decoder was not checked against (2.1.x, 3.1.x)"
#endif
/* start_pass and decode_mcu; 3.0 added decode_mcus and process_restart */
#if LIBJPEG_TURBO_VERSION_NUMBER >= 3000000
#define FEED_JPEG_ENTROPY_FNS 4
#else
#define FEED_JPEG_ENTROPY_FNS 2
#endif
_Static_assert(__builtin_offsetof(struct jpeg_entropy_decoder, insufficient_data) ==
                   FEED_JPEG_ENTROPY_FNS * sizeof(void (*)(void)),
               "jpegint.h is not the one of this libjpeg-turbo version (jpeg_entropy_decoder)");
_Static_assert(sizeof(struct jpeg_entropy_decoder) ==
                   FEED_JPEG_ENTROPY_FNS * sizeof(void (*)(void)) + sizeof(void (*)(void)),
               "jpegint.h is not the one of this libjpeg-turbo version (jpeg_entropy_decoder)");
#endif

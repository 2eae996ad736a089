/*
 * jpeg_abi.h - whether this build carries libfeed's own Huffman decoder
 * (jpeg_huff.h), which sits in libjpeg-turbo's private entropy-decoder slot.
 *
 * FEED_OWN_ENTROPY 1: compiled in; the option jpeg_entropy (feed.h) and the
 * worker's self-check (jpeg_selftest.h) decide whether it runs. 0: compiled
 * out (the build cannot vouch for the libjpeg-turbo internals it would plug
 * into); every JPEG is decoded by libjpeg-turbo's own Huffman decoder and
 * jpeg_entropy=libfeed fails create.
 */
#ifndef FEED_JPEG_ABI_H
#define FEED_JPEG_ABI_H

#ifndef FEED_OWN_ENTROPY
#define FEED_OWN_ENTROPY 1
#endif

#endif /* FEED_JPEG_ABI_H */

/*
 * jpeg_huff.h - libfeed's own Huffman (entropy) decoder for sequential and
 * progressive JPEG scans, put in place of libjpeg-turbo's inside a libjpeg
 * decompression.
 *
 * Why: on the photos libfeed is built for, the entropy decoding is 67-72% of
 * a region decode (decodebench's *-entropy rows) and the rest of the
 * pipeline cannot go below it. Ours decodes a coefficient's code and value
 * with one table lookup when both fit in FEED_HUFF_FAST bits (most do) and
 * refills eight bytes at a time where none is 0xFF; libjpeg-turbo 2.1 looks
 * the code up, then reads the value, and refills byte by byte (and decodes
 * every restart-marker file on its slow path). The output is the
 * coefficients of libjpeg-turbo's exact (slow) path, bit for bit, and
 * damaged data stops where it stops, with the same warning
 * (tests/test_jpeg_huff.c, fuzz/fuzz_jpeghuff.c). Its fast path agrees on
 * clean files but not on some damaged ones: it turns a code that is in no
 * table into a silent zero, and leaves stale coefficients when a marker lies
 * within the 512 bytes a block it reads ahead.
 *
 * Progressive files: libjpeg-turbo 2.1's progressive decoder (jdphuff.c) has
 * no fast path at all, a bit and a branch at a time; on the generated
 * dataset its 5% progressive files took 14% of the workers' time (perf of
 * feedbench's train run). Ours reads the codes as
 * above and passes a refinement scan's correction bits by a bit mask of the
 * block's non-zero coefficients instead of a branch on each.
 *
 * It plugs into libjpeg's entropy-decoder interface (jpeg_entropy_decoder in
 * jpegint.h, private: libjpeg-turbo 3.0 added two members to it, so the
 * build pins the version and checks the header, jpeg_abi.h), the way
 * jpeg_planes.c replaces the post-processing step. Split as libjpeg-turbo
 * splits jdhuff.c and jdphuff.c: jpeg_huff.c decodes sequential scans,
 * jpeg_phuff.c progressive ones, on the bit reader and tables of
 * jpeg_huff_int.h.
 */
#ifndef FEED_JPEG_HUFF_H
#define FEED_JPEG_HUFF_H

struct jpeg_decompress_struct;
typedef struct feed__huff feed__huff;

/* Returns NULL on out of memory. */
feed__huff *feed__huff_create(void);
void feed__huff_destroy(feed__huff *h); /* accepts NULL */

/*
 * Call right after jpeg_start_decompress(), before any scanline is read or
 * skipped. Takes over the entropy decoding of ci's scan when ci is a
 * single-scan sequential Huffman JPEG of 8-bit samples whose source is in
 * memory (jpeg_mem_src: fill_input_buffer never suspends); returns 1 then,
 * 0 (nothing changed: libjpeg's decoder stays) otherwise. h must outlive the
 * decompression (until jpeg_abort_decompress/jpeg_finish_decompress).
 */
int feed__huff_install(feed__huff *h, struct jpeg_decompress_struct *ci);

/*
 * Progressive Huffman JPEG of 8-bit samples, source in memory: call when
 * jpeg_start_decompress() has set up the first scan and decoded nothing of
 * it (its first progress_monitor call). Takes over the entropy decoding of
 * every scan: libjpeg's progressive decoder stays behind it and still checks
 * each scan's parameters and keeps the progression (cinfo->coef_bits) in its
 * start_pass, and gets the scan back when a table is one libfeed's lookup
 * cannot take (feed__huff_handed_back() says so then). Returns 1 when
 * installed, 0 (nothing changed) otherwise.
 */
int feed__huff_install_progressive(feed__huff *h, struct jpeg_decompress_struct *ci);
int feed__huff_handed_back(const feed__huff *h);

/*
 * The refinement-scan kernel: -1 the best this CPU runs well (the default),
 * 0 plain C, 1 with popcnt, 2 with popcnt and pdep (x86-64). For tests and
 * side-by-side runs; set before decoding, not while another thread decodes.
 * Returns the level now in force, or -1 (nothing changed) for one this CPU
 * lacks.
 */
int feed__huff_refine_level(int level);

#endif /* FEED_JPEG_HUFF_H */

/*
 * decodebench.h - what decodebench.c (the JPEG rows, the file loading) shares
 * with decodebench_formats.c (the PNG and WebP mode, against PIL).
 */
#ifndef FEED_DECODEBENCH_H
#define FEED_DECODEBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef struct db_file {
    uint8_t *data;
    size_t len;
    char *path;
} db_file;

/* The files loaded (in memory, in a fixed order). */
extern db_file *g_files;
extern size_t g_nfiles;

double db_now(clockid_t c);

/* --format png|webp: libfeed's decoder and pipeline against PIL's decode of
 * the same files (pil: the pil_decode.py script), single core, S seconds of
 * thread CPU time per configuration in alternating rounds. Returns the exit
 * status. */
int db_formats_main(const char *format, const char *pil, const char *json, double seconds,
                    uint32_t size, int quiet);

#endif

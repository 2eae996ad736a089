/*
 * decodebench.h - what decodebench.c (the JPEG rows, the file loading) shares
 * with decodebench_formats.c (the PNG and WebP mode, against PIL).
 */
#ifndef FEED_DECODEBENCH_H
#define FEED_DECODEBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "decode/jpeg.h"
#include "pixels/pipeline.h"

typedef struct db_file {
    uint8_t *data;
    size_t len;
    char *path;
} db_file;

/* The files loaded (in memory, in a fixed order). */
extern db_file *g_files;
extern size_t g_nfiles;

double db_now(clockid_t c);

/* The train and val transforms both modes measure, for size x size output:
 * RandomResizedCrop (0.08..1, 3/4..4/3) + flip 0.5; Resize(size*8/7) +
 * CenterCrop(size); EXIF and region decoding on. */
void db_xforms(uint32_t size, feed__xform *train, feed__xform *val);

/* A decoder plan for the whole image at full size (the "full" rows). */
int db_plan_full(void *arg, const feed__decode_info *info, feed__decode_region *reg, char *msg,
                 size_t msglen);

/* --format png|webp: libfeed's decoder and pipeline against PIL's decode of
 * the same files (pil: the pil_decode.py script), single core, S seconds of
 * thread CPU time per configuration in alternating rounds. Returns the exit
 * status. */
int db_formats_main(const char *format, const char *pil, const char *json, double seconds,
                    uint32_t size, int quiet);

#endif

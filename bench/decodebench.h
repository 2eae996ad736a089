/*
 * decodebench.h - what the files of decodebench share:
 *
 *   decodebench.c          main, the JPEG rows and their measurement
 *   decodebench_formats.c  --format png|webp: libfeed against PIL
 *   decodebench_common.c   the files in memory, the transforms, the clock
 *
 * decodebench.c calls the other two, decodebench_formats.c calls
 * decodebench_common.c, which calls neither.
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

/* ---- decodebench_common.c ---------------------------------------------------- */

/* The files loaded (in memory, in a fixed order). */
extern db_file *g_files;
extern size_t g_nfiles;
/* What db_load takes: at most g_max files (--max), named for g_format (jpeg,
 * png or webp; --format), only progressive JPEGs if g_progressive_only. */
extern size_t g_max;
extern const char *g_format;
extern int g_progressive_only;

/* Loads DIR's files.txt, or else the files under DIR (sorted walk) named for
 * g_format, into g_files. */
void db_load(const char *dir);

/* Seconds on clock c. */
double db_now(clockid_t c);

/* The train and val transforms both modes measure, for size x size output:
 * RandomResizedCrop (0.08..1, 3/4..4/3) + flip 0.5; Resize(size*8/7) +
 * CenterCrop(size); EXIF and region decoding on. */
void db_xforms(uint32_t size, feed__xform *train, feed__xform *val);

/* A decoder plan for the whole image at full size (the "full" rows). */
int db_plan_full(void *arg, const feed__decode_info *info, feed__decode_region *reg, char *msg,
                 size_t msglen);

/* ---- decodebench_formats.c --------------------------------------------------- */

/* --format png|webp: libfeed's decoder and pipeline against PIL's decode of
 * the same files (pil: the pil_decode.py script), single core, S seconds of
 * thread CPU time per configuration in alternating rounds. Returns the exit
 * status. */
int db_formats_main(const char *format, const char *pil, const char *json, double seconds,
                    uint32_t size, int quiet);

#endif

/*
 * decodebench_common.c - what both modes of decodebench use: the files,
 * loaded into memory in a fixed order (files.txt or a sorted walk of the
 * tree), the train and val transforms, the full-image decoder plan and the
 * clock. It calls nothing in decodebench.c or decodebench_formats.c.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "decodebench.h"
#include "decode/jpeg.h"
#include "feed.h"
#include "pixels/pipeline.h"

db_file *g_files;
size_t g_nfiles;
static size_t g_capfiles;
size_t g_max = 500;
const char *g_format = "jpeg";
int g_progressive_only; /* --progressive-only */

/* A progressive JPEG, as libfeed's decoder reads the header (the plan sees
 * feed__decode_info and stops the decode there). */
static int plan_is_progressive(void *arg, const feed__decode_info *info, feed__decode_region *r, char *msg,
                               size_t msglen)
{
    (void)r, (void)msg, (void)msglen;
    *(int *)arg = info->progressive != 0;
    return FEED_E_DECODE; /* header only */
}

static int is_progressive_jpeg(const uint8_t *d, size_t n)
{
    static feed__jpeg *j;
    if (!j && !(j = feed__jpeg_create()))
        return 0;
    int prog = 0;
    feed__decode_image img;
    feed__jpeg_decode(j, d, n, plan_is_progressive, &prog, &img, NULL, 0);
    return prog;
}

static int add_file(const char *path)
{
    if (g_nfiles >= g_max)
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size <= 0) {
        fclose(f);
        return -1;
    }
    uint8_t *d = malloc((size_t)st.st_size);
    if (!d || fread(d, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        free(d);
        fclose(f);
        return -1;
    }
    fclose(f);
    if (g_progressive_only && !is_progressive_jpeg(d, (size_t)st.st_size)) {
        free(d);
        return 0;
    }
    if (g_nfiles == g_capfiles) {
        g_capfiles = g_capfiles ? g_capfiles * 2 : 256;
        g_files = realloc(g_files, g_capfiles * sizeof *g_files);
        if (!g_files) {
            perror("realloc");
            exit(1);
        }
    }
    g_files[g_nfiles].path = strdup(path);
    g_files[g_nfiles].data = d;
    g_files[g_nfiles].len = (size_t)st.st_size;
    g_nfiles++;
    return 0;
}

static int is_jpeg_name(const char *n)
{
    const char *dot = strrchr(n, '.');
    if (dot && strcmp(g_format, "jpeg"))
        return !strcasecmp(dot + 1, g_format);
    return dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str); /* the same files in the same order */
    for (size_t i = 0; i < n; i++) {
        char path[FEED_PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                walk(path);
            else if (S_ISREG(st.st_mode) && is_jpeg_name(names[i]))
                add_file(path);
        }
        free(names[i]);
    }
    free(names);
}

void db_load(const char *dir)
{
    char list[FEED_PATH_MAX];
    snprintf(list, sizeof list, "%s/files.txt", dir);
    FILE *f = fopen(list, "r");
    if (f) {
        char line[FEED_PATH_MAX + 64];
        while (fgets(line, sizeof line, f)) {
            char *sp = strpbrk(line, " \t\r\n");
            if (sp)
                *sp = '\0';
            if (!line[0])
                continue;
            char path[2 * FEED_PATH_MAX + 128];
            snprintf(path, sizeof path, "%s/%s", dir, line);
            add_file(path);
        }
        fclose(f);
    } else {
        walk(dir);
    }
}

void db_xforms(uint32_t size, feed__xform *train, feed__xform *val)
{
    feed__xform x;
    memset(&x, 0, sizeof x);
    x.out_h = x.out_w = size;
    x.resize_shorter = size * 8 / 7; /* 256 for 224 */
    x.scale_min = 0.08f;
    x.scale_max = 1.0f;
    x.ratio_min = 3.0f / 4.0f;
    x.ratio_max = 4.0f / 3.0f;
    x.exif = 1;
    x.roi_decode = 1;
    x.max_pixels = 100000000;
    x.aa_num_ops = 2; /* the policy rows: RandAugment's defaults (torchvision's) */
    x.aa_num_bins = 31;
    x.aa_magnitude = 9;
    x.aa_interp = FEED_INTERP_NEAREST;
    *train = x;
    train->mode = FEED_AUGMENT_TRAIN;
    train->flip_p = 0.5f;
    *val = x;
    val->mode = FEED_AUGMENT_VAL;
}

int db_plan_full(void *arg, const feed__decode_info *info, feed__decode_region *reg, char *msg,
                 size_t msglen)
{
    (void)arg, (void)msg, (void)msglen;
    reg->scale = 8;
    reg->x0 = reg->y0 = 0;
    reg->x1 = info->width;
    reg->y1 = info->height;
    return 0;
}

double db_now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

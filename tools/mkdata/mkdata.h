/*
 * mkdata.h - what the parts of feed-mkdata share. main.c says what the
 * program writes and how the pictures look; each part, in the order it
 * depends on the ones before it:
 *
 *   rng.h      splitmix64, the one source of randomness
 *   field.c    the 1/f texture field
 *   shapes.c   regions and the shapes rasterised into the region map
 *   scene.c    one picture: its size and quality, the scene, composed into RGB
 *   encode.c   RGB to JPEG (TurboJPEG), PNG (libspng) or WebP (libwebp) bytes
 *   files.c    atomic writes, mkdir -p
 *   shards.c   WebDataset tar shards
 *   options.c  the command line
 *   output.c   the dataset on disk: image files + files.txt, or shards + shards.txt
 *   main.c     the loop over the images
 */
#ifndef FEED_MKDATA_H
#define FEED_MKDATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <turbojpeg.h>

#include "rng.h"

#define PROG "feed-mkdata"
#define MAX_REGIONS 64
#define MAX_SIDE 1000 /* longest side of the largest image: 1000 * 4/3 */
#define MAX_CLASSES 1000
#define MAX_COUNT 100000000u
#define MAX_LABELS 16 /* --multi-label */

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* ---- field.c: the 1/f field ------------------------------------------------------ */

typedef struct field_ws {
    float *a, *b, *t; /* ping-pong grids and the horizontal pass, (w+8)*(h+8) each */
} field_ws;

/* Fills out (w x h) with noise whose octave l (cell 2^l px) has amplitude
 * 2^(l*beta), for l from the coarsest down to finest, normalised to mean 0,
 * standard deviation 1. */
void mk_fractal(float *out, int w, int h, int finest, float beta, rng *r, field_ws *ws);

/* ---- shapes.c: regions and shapes, rasterised as spans into a region map ---------- */

typedef struct region {
    float base[3];      /* colour at the origin, 0..255 */
    float gx[3], gy[3]; /* shading: colour change per pixel */
    float gain;         /* texture amplitude, grey levels per unit of the field */
    float tint[3];      /* texture colour balance */
    int dx, dy;         /* where this region reads the texture field */
} region;

typedef struct image {
    int w, h;
    uint8_t *id; /* region of each pixel */
    float *tex, *ca, *cb, *il;
    uint8_t *rgb;
    region reg[MAX_REGIONS];
    int nreg;
} image;

/* Even-odd fill of a polygon, sampled at pixel centres. */
void mk_fill_polygon(image *im, const float *px, const float *py, int n, uint8_t id);
/* A blob: kind 0 ellipse, 1 irregular polygon, 2 star, 3 rectangle-ish. */
void mk_fill_shape(image *im, rng *r, int kind, float cx, float cy, float rad, uint8_t id);
/* A new region: colour from (h, s, v), shading, texture settings. */
uint8_t mk_add_region(image *im, rng *r, float h, float s, float v, float gain);

/* ---- scene.c: one picture ----------------------------------------------------------- */

typedef struct spec {
    int w, h, quality, progressive, grey;
} spec;

/* The picture's size (ImageNet-like), JPEG quality, progressive, greyscale. */
void mk_draw_spec(rng *r, spec *sp);
/* Paints im->rgb (im->w x im->h): a scene whose object is class cls's. */
void mk_render(image *im, rng *r, int cls, int nclasses, field_ws *ws);
/* The buffers of the largest picture; 0, or -1 (out of memory). */
int mk_canvas_alloc(image *im, field_ws *ws);
void mk_canvas_free(image *im, field_ws *ws);

/* ---- encode.c: picture to file bytes --------------------------------------------------- */

enum { IMG_JPEG, IMG_PNG, IMG_WEBP, IMG_MIXED };

typedef struct mk_encoder {
    /* Two compressors: with libjpeg-turbo 2.1.5, a handle that has made a
     * progressive JPEG makes corrupt baseline ones afterwards ("extraneous
     * bytes before marker 0xd9"), so each handle keeps to one mode. */
    tjhandle tj, tjp;
    unsigned char *jpeg; /* the JPEG of the current picture */
    unsigned long jpeg_cap;
} mk_encoder;

typedef struct mk_encoded {
    int fmt;            /* IMG_JPEG, IMG_PNG or IMG_WEBP */
    const void *bytes;
    unsigned long size;
    void *other;        /* a PNG or WebP, malloc'ed by its encoder (mk_encoded_free) */
} mk_encoded;

/* 0, or -1 (out of memory); mk_encoder_free() either way. */
int mk_encoder_init(mk_encoder *e);
void mk_encoder_free(mk_encoder *e);
/* Image i's picture (im->rgb, sp) as fmt; 0, or -1 after saying why. */
int mk_encode(mk_encoder *e, const image *im, const spec *sp, int fmt, uint64_t i, mk_encoded *out);
void mk_encoded_free(mk_encoded *enc);

/* ---- files.c ------------------------------------------------------------------------------ */

/* Writes data to path through a temporary name and a rename. 0 or errno. */
int mk_write_atomic(const char *path, const void *data, size_t n);
/* mkdir, fine if it is there; 0 or errno (ENOTDIR for a file in the way). */
int mk_make_dir(const char *path);
/* mkdir -p; 0 or errno. */
int mk_make_dirs(const char *path);

/* ---- shards.c: a WebDataset tar shard --------------------------------------------------- */

typedef struct shard_writer {
    FILE *f;
    char path[4200], tmp[4300];
    int err;
} shard_writer;

/* Opens DIR/shard-K.tar (under a temporary name). 0 or errno. */
int mk_shard_open(shard_writer *w, const char *dir, int dirlen, uint64_t k);
/* One member: header, data, zero padding to the next block (errors kept in w->err). */
void mk_shard_member(shard_writer *w, const char *name, const void *data, size_t n);
/* Ends the archive (two zero blocks) and moves it into place. 0 or errno. */
int mk_shard_close(shard_writer *w);
/* Drops a shard left open (an error elsewhere): its temporary file goes. */
void mk_shard_abandon(shard_writer *w);

/* ---- options.c: the command line ---------------------------------------------------------- */

typedef struct mk_options {
    const char *out; /* DIR as given */
    size_t outlen;   /* its length without trailing slashes */
    uint64_t count, seed, classes, shard_size;
    uint64_t multi_label; /* 0: one label an image; L: 1..L of them */
    int image_fmt;   /* IMG_JPEG, IMG_PNG, IMG_WEBP or IMG_MIXED */
    int tar, quiet;
    int targets;     /* --targets: DIR/targets.npy */
    int meta;        /* --meta: KEY.json and KEY.txt members in the shards */
} mk_options;

/* Reads argv into o: -1 to go on, else the exit status (0 after --help, 2
 * after a usage error, said on stderr with the usage). */
int mk_options_parse(mk_options *o, int argc, char **argv);

/* ---- output.c: the dataset on disk ------------------------------------------------------- */

typedef struct mk_output {
    const mk_options *o;
    int digits;          /* of the image numbers in the file names */
    char *list;          /* files.txt or shards.txt */
    size_t listcap, listlen;
    shard_writer sw;
    double total_bytes;  /* of the images written */
    float *targets;      /* --targets: 3 a sample, in the order written */
    uint64_t ntargets;
    char path[4200];
} mk_output;

/* Makes DIR (and the class folders); 0, or 1 after saying why. */
int mk_output_open(mk_output *w, const mk_options *o);
/* Image i of class c: its file, or its members of the current shard. 0, or -1 after saying why. */
int mk_output_image(mk_output *w, uint64_t i, uint64_t c, const mk_encoded *enc);
/* --targets: the next sample's row (its mean R, G, B / 255). 0, or -1 out of memory. */
int mk_output_target(mk_output *w, const image *im);
/* The last shard and files.txt / shards.txt (and targets.npy). 0, or -1 after saying why. */
int mk_output_finish(mk_output *w);
void mk_output_close(mk_output *w);

#endif

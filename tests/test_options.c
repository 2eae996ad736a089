/* test_options.c - defaults, key=value parsing, validation messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "feed.h"
#include "loader/options.h"

static void test_parse(void **state)
{
    feed_options o;
    char err[256];
    assert_int_equal(feed_options_init(&o, sizeof o), FEED_OK);
    assert_int_equal(o.batch_size, 32);
    assert_int_equal(feed_options_parse(&o, "source=/d, batch_size=64,augment=train,dtype=bfloat16,"
                                            "mean=0.5:0.25:0.125,fill=#ff8000,shuffle=false,seed=0x10",
                                        err, sizeof err),
                     FEED_OK);
    assert_string_equal(o.source, "/d");
    assert_int_equal(o.batch_size, 64);
    assert_int_equal(o.augment, FEED_AUGMENT_TRAIN);
    assert_int_equal(o.dtype, FEED_DTYPE_BFLOAT16);
    assert_true(o.mean[2] == 0.125f);
    assert_int_equal(o.fill, 0xff8000);
    assert_int_equal(o.shuffle, 0);
    assert_int_equal(o.seed, 16);
    assert_int_equal(feed__options_validate(&o, err, sizeof err), FEED_OK);
    assert_int_equal(o.layout, FEED_LAYOUT_CHW); /* float default */
}

static void expect_set_error(const char *k, const char *v, const char *needle)
{
    feed_options o;
    char err[256] = "";
    feed_options_init(&o, sizeof o);
    assert_int_equal(feed_options_set(&o, k, v, err, sizeof err), FEED_E_INVALID);
    if (!strstr(err, needle))
        fail_msg("'%s' lacks '%s'", err, needle);
}

/* A value may be double-quoted to hold commas (a path like /data/a,b), with
 * \" and \\ inside; an unterminated quote or text after the closing one is
 * an error that says how to quote. */
static void test_parse_quoted(void **state)
{
    feed_options o;
    char err[512];
    feed_options_init(&o, sizeof o);
    assert_int_equal(feed_options_parse(&o, "source=\"/data/a,b\", batch_size=7,file_list=\"l \\\"x\\\" \\\\.txt\","
                                            "worker_path=\"\",height=9", err, sizeof err), FEED_OK);
    assert_string_equal(o.source, "/data/a,b");
    assert_string_equal(o.file_list, "l \"x\" \\.txt");
    assert_string_equal(o.worker_path, "");
    assert_int_equal(o.batch_size, 7);
    assert_int_equal(o.height, 9);
    /* '=' inside a value is the value's */
    assert_int_equal(feed_options_parse(&o, "source=/data/k=v", err, sizeof err), FEED_OK);
    assert_string_equal(o.source, "/data/k=v");
    static const char *const bad[] = {"source=\"/data/a,b", "source=\"/a\"b,height=2", "height"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        assert_int_equal(feed_options_parse(&o, bad[i], err, sizeof err), FEED_E_INVALID);
        if (!strstr(err, "is not key=value") || !strstr(err, "quote a value that holds a comma"))
            fail_msg("%s: %s", bad[i], err);
    }
}

static void test_set_errors(void **state)
{
    expect_set_error("batch", "3", "unknown key 'batch'");
    expect_set_error("batch_size", "-3", "batch_size='-3'");
    expect_set_error("batch_size", "99999999999", "32-bit");
    expect_set_error("augment", "flip", "none|val|train");
    expect_set_error("mean", "1:2", "r:g:b");
    expect_set_error("flip_p", "abc", "a number");
}

static void expect_invalid(const char *text, const char *needle)
{
    feed_options o;
    char err[256] = "";
    feed_options_init(&o, sizeof o);
    assert_int_equal(feed_options_parse(&o, "source=/x", err, sizeof err), FEED_OK);
    assert_int_equal(feed_options_parse(&o, text, err, sizeof err), FEED_OK);
    assert_int_equal(feed__options_validate(&o, err, sizeof err), FEED_E_INVALID);
    if (!strstr(err, needle))
        fail_msg("'%s' lacks '%s'", err, needle);
}

static void test_validate(void **state)
{
    expect_invalid("batch_size=0", "batch_size=0");
    expect_invalid("workers=0", "workers=0");
    expect_invalid("prefetch=1", "prefetch=1");
    expect_invalid("rank=2,world_size=2", "rank=2");
    expect_invalid("scale_min=0.9,scale_max=0.5", "scale_min");
    expect_invalid("flip_p=1.5", "flip_p");
    expect_invalid("augment=val,resize_shorter=0", "resize_shorter=0");
    expect_invalid("std=1:0:1", "std");
    feed_options o;
    char err[256];
    feed_options_init(&o, sizeof o);
    assert_int_equal(feed__options_validate(&o, err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "source"));
}

/* Defaults + source=/x, changed by stmt (on o), then validated: refused
 * with a message naming the option and what it may be (both needles), or
 * accepted. */
static void fresh_options(feed_options *o)
{
    feed_options_init(o, sizeof *o);
    strcpy(o->source, "/x");
}

static void check_struct(feed_options *o, const char *what, const char *needle1, const char *needle2)
{
    char err[512] = "";
    feed_status st = feed__options_validate(o, err, sizeof err);
    if (!needle1) {
        if (st != FEED_OK)
            fail_msg("%s refused: %s", what, err);
        return;
    }
    if (st != FEED_E_INVALID)
        fail_msg("%s accepted (status %d)", what, st);
    if (!strstr(err, needle1) || !strstr(err, needle2))
        fail_msg("'%s' lacks '%s' or '%s' (%s)", err, needle1, needle2, what);
}

#define EXPECT_STRUCT_INVALID(stmt, needle1, needle2) \
    do {                                              \
        feed_options o_;                              \
        fresh_options(&o_);                           \
        {                                             \
            feed_options *o = &o_;                    \
            stmt;                                     \
        }                                             \
        check_struct(&o_, #stmt, needle1, needle2);   \
    } while (0)
#define EXPECT_STRUCT_OK(stmt) EXPECT_STRUCT_INVALID(stmt, NULL, NULL)

static void expect_invalid2(const char *text, const char *needle1, const char *needle2)
{
    expect_invalid(text, needle1);
    expect_invalid(text, needle2);
}

/* Every value a worker refuses or that breaks every sample is refused at
 * create, with the option named and its allowed range; the edges that work
 * are accepted. Field by field in feed_options order. */
static void test_validate_every_field(void **state)
{
    /* booleans */
    EXPECT_STRUCT_INVALID(o->shuffle = 2, "shuffle=2", "0 or 1");
    EXPECT_STRUCT_INVALID(o->drop_last = 7, "drop_last=7", "0 or 1");
    EXPECT_STRUCT_INVALID(o->exif = 2, "exif=2", "0 or 1");
    EXPECT_STRUCT_INVALID(o->roi_decode = 3, "roi_decode=3", "0 or 1");
    EXPECT_STRUCT_INVALID(o->sync = 0xffffffffu, "sync=4294967295", "0 or 1");
    /* sizes */
    expect_invalid2("batch_size=65537", "batch_size=65537", "1..65536");
    expect_invalid2("workers=251", "workers=251", "1..250");
    expect_invalid2("prefetch=1025", "prefetch=1025", "2..1024");
    expect_invalid2("height=0", "height=0", "1..8192");
    expect_invalid2("width=8193", "width=8193", "1..8192");
    expect_invalid2("world_size=0", "world_size=0", ">= 1");
    /* resize_shorter: the worker refuses 0 for augment=val (feed__xform_check);
     * below the crop is fine (the crop is padded). Unused by none and train. */
    expect_invalid2("augment=val,resize_shorter=0", "resize_shorter=0", ">= 1");
    EXPECT_STRUCT_OK(o->augment = FEED_AUGMENT_VAL; o->height = 300; o->resize_shorter = 250);
    EXPECT_STRUCT_OK(o->resize_shorter = 224);
    EXPECT_STRUCT_OK(o->augment = FEED_AUGMENT_TRAIN; o->resize_shorter = 0);
    EXPECT_STRUCT_OK(o->augment = FEED_AUGMENT_NONE; o->resize_shorter = 0);
    EXPECT_STRUCT_INVALID(o->augment = 3, "augment=3", "none|val|train");
    /* RandomResizedCrop */
    expect_invalid2("scale_min=0", "scale_min=0", "0 < scale_min <= scale_max <= 1");
    expect_invalid2("scale_max=1.5", "scale_max=1.5", "<= 1");
    EXPECT_STRUCT_INVALID(o->scale_min = NAN, "scale_min=nan", "scale_max");
    expect_invalid2("ratio_min=0", "ratio_min=0", "0 < ratio_min <= ratio_max");
    expect_invalid2("ratio_min=2,ratio_max=1", "ratio_min=2", "ratio_max=1");
    EXPECT_STRUCT_INVALID(o->ratio_max = INFINITY, "ratio_max=inf", "finite");
    EXPECT_STRUCT_INVALID(o->ratio_min = NAN, "ratio_min=nan", "0 < ratio_min");
    /* flips, rotation, jitter */
    expect_invalid2("flip_p=-0.1", "flip_p=-0.1", "[0, 1]");
    EXPECT_STRUCT_INVALID(o->flip_p = NAN, "flip_p=nan", "[0, 1]");
    expect_invalid2("rotate_deg=181", "rotate_deg=181", "[0, 180]");
    EXPECT_STRUCT_INVALID(o->fill = 0x1000000, "fill=0x1000000", "0xRRGGBB");
    expect_invalid2("brightness=-1", "brightness=-1", ">= 0");
    EXPECT_STRUCT_INVALID(o->brightness = INFINITY, "brightness=inf", "finite number >= 0");
    EXPECT_STRUCT_INVALID(o->contrast = NAN, "contrast=nan", "finite number >= 0");
    EXPECT_STRUCT_INVALID(o->saturation = INFINITY, "saturation=inf", "finite number >= 0");
    expect_invalid2("hue=0.6", "hue=0.6", "[0, 0.5]");
    expect_invalid2("grayscale_p=2", "grayscale_p=2", "[0, 1]");
    EXPECT_STRUCT_OK(o->augment = FEED_AUGMENT_TRAIN; o->brightness = 100; o->hue = 0.5f;
                     o->rotate_deg = 180; o->ratio_min = 1e-3f; o->ratio_max = 1e3f);
    /* output */
    EXPECT_STRUCT_INVALID(o->dtype = 4, "dtype=4", "uint8|float32|float16|bfloat16");
    EXPECT_STRUCT_INVALID(o->layout = 2, "layout=2", "hwc|chw");
    EXPECT_STRUCT_INVALID(o->mean[1] = NAN, "mean: g=nan", "finite");
    EXPECT_STRUCT_INVALID(o->std[2] = INFINITY, "std: b=inf", "> 0");
    expect_invalid2("std=1:0:1", "std: g=0", "> 0");
    /* normalisation that overflows the dtype: every pixel would be inf */
    EXPECT_STRUCT_INVALID(o->dtype = FEED_DTYPE_FLOAT16; o->std[0] = 1e-6f, "mean/std: r",
                          "float16's finite range (+-65504)");
    EXPECT_STRUCT_OK(o->dtype = FEED_DTYPE_FLOAT32; o->std[0] = 1e-5f);
    EXPECT_STRUCT_OK(o->dtype = FEED_DTYPE_UINT8; o->std[0] = 1e-30f); /* not normalised */
    EXPECT_STRUCT_INVALID(o->dtype = FEED_DTYPE_FLOAT32; o->std[1] = 1e-44f, "mean/std: g",
                          "float32's finite range");
    EXPECT_STRUCT_INVALID(o->dtype = FEED_DTYPE_BFLOAT16; o->mean[2] = 3.4e38f; o->std[2] = 1.0f,
                          "mean/std: b", "bfloat16's finite range");
    EXPECT_STRUCT_OK(o->dtype = FEED_DTYPE_FLOAT16; o->mean[0] = 0; o->std[0] = 1.0f / 256);
    /* pipeline and robustness */
    expect_invalid2("device_prefetch=0", "device_prefetch=0", "1..64");
    EXPECT_STRUCT_INVALID(o->bad_policy = 2, "bad_policy=2", "replace|fail");
    expect_invalid2("max_retries=101", "max_retries=101", "0..100");
    expect_invalid2("sample_timeout_ms=5", "sample_timeout_ms=5", "0 (never) or >= 100");
    EXPECT_STRUCT_OK(o->sample_timeout_ms = 0);
    EXPECT_STRUCT_OK(o->sample_timeout_ms = 100);
    expect_invalid2("max_pixels=0", "max_pixels=0", ">= 1");
    expect_invalid2("max_file_bytes=0", "max_file_bytes=0", ">= 1");
    EXPECT_STRUCT_INVALID(o->reader = 3, "reader=3", "auto|uring|pread");
    expect_invalid2("readahead=4097", "readahead=4097", "0..4096");
    EXPECT_STRUCT_INVALID(o->sandbox = 2, "sandbox=2", "0 or 1");
    expect_invalid2("max_worker_memory=1000", "max_worker_memory=1000", "0 (no cap) or >= 16777216");
    EXPECT_STRUCT_OK(o->max_worker_memory = 0);
    EXPECT_STRUCT_OK(o->max_worker_memory = 16u << 20);
    EXPECT_STRUCT_INVALID(memset(o->device, 'c', sizeof o->device), "device is not NUL-terminated",
                          "31 bytes");
    EXPECT_STRUCT_INVALID(memset(o->worker_path, 'w', sizeof o->worker_path),
                          "worker_path is not NUL-terminated", "4095 bytes");
}

/* sandbox is on, max_worker_memory "auto" follows max_pixels and
 * max_file_bytes: 12 bytes a pixel + the file + 64 MiB. */
static void test_worker_limits(void **state)
{
    feed_options o;
    char err[512];
    assert_int_equal(feed_options_init(&o, sizeof o), FEED_OK);
    assert_int_equal(o.sandbox, 1);
    assert_int_equal(o.max_worker_memory, FEED_WORKER_MEMORY_AUTO);
    strcpy(o.source, "/x");
    assert_int_equal(feed_options_parse(&o, "max_pixels=1000000,max_file_bytes=1048576", err, sizeof err), FEED_OK);
    assert_int_equal(feed__options_validate(&o, err, sizeof err), FEED_OK);
    assert_int_equal(o.max_worker_memory, 12000000ull + (1u << 20) + (64u << 20));
    assert_int_equal(feed_options_parse(&o, "max_worker_memory=auto,sandbox=off", err, sizeof err), FEED_OK);
    assert_int_equal(o.max_worker_memory, FEED_WORKER_MEMORY_AUTO);
    assert_int_equal(o.sandbox, 0);
    assert_int_equal(feed_options_set(&o, "max_worker_memory", "lots", err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "a number of bytes or auto"));
}

static void test_struct_size(void **state)
{
    /* A caller built against a newer header (a bigger struct) gets every
     * field this library knows, and struct_size says how many bytes that is;
     * a struct smaller than the first release's is refused with a message. */
    char big[sizeof(feed_options) + 64];
    feed_options *o = (feed_options *)big;
    char err[256];
    memset(big, 0xAB, sizeof big);
    assert_int_equal(feed_options_init(o, sizeof big), FEED_OK);
    assert_int_equal(o->struct_size, sizeof(feed_options));
    assert_int_equal((unsigned char)big[sizeof(feed_options)], 0xAB); /* untouched */
    feed_options copy;
    assert_int_equal(feed__options_copy(&copy, o, err, sizeof err), FEED_OK);
    assert_int_equal(copy.batch_size, 32);
    assert_int_equal(feed_options_init(o, 16), FEED_E_INVALID);
    o->struct_size = 16;
    assert_int_equal(feed__options_copy(&copy, o, err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "struct_size 16"));
    assert_string_equal(feed_strerror(FEED_E_IO), "I/O error");
    assert_string_equal(feed_status_name(FEED_E_TIMEOUT), "FEED_E_TIMEOUT");
    assert_string_equal(feed_strerror(999), "unknown status");
    assert_int_equal(feed_version(), FEED_VERSION_NUMBER);
}

/* shuffle_window: 0 by default (also for a caller whose struct ends before
 * it), set by key, a negative or fractional value refused naming it. */
static void test_shuffle_window(void **state)
{
    (void)state;
    feed_options o, copy;
    char err[256] = "";
    assert_int_equal(feed_options_init(&o, sizeof o), FEED_OK);
    assert_int_equal(o.shuffle_window, 0);
    assert_int_equal(feed_options_parse(&o, "shuffle_window=16", err, sizeof err), FEED_OK);
    assert_int_equal(o.shuffle_window, 16);
    o.struct_size = (uint32_t)offsetof(feed_options, shuffle_window);
    assert_int_equal(feed__options_copy(&copy, &o, err, sizeof err), FEED_OK);
    assert_int_equal(copy.shuffle_window, 0);
    expect_set_error("shuffle_window", "-1", "shuffle_window");
    expect_set_error("shuffle_window", "2.5", "shuffle_window");
}

/* fetch_ranges: whole by default (also for a caller whose struct ends
 * before it), its words, and ranges refused without fetch_ahead. */
static void test_fetch_ranges(void **state)
{
    (void)state;
    feed_options o, copy;
    char err[256] = "";
    assert_int_equal(feed_options_init(&o, sizeof o), FEED_OK);
    assert_int_equal(o.fetch_ranges, FEED_FETCH_WHOLE);
    assert_int_equal(feed_options_parse(&o, "fetch_ranges=ranges", err, sizeof err), FEED_OK);
    assert_int_equal(o.fetch_ranges, FEED_FETCH_RANGES);
    assert_int_equal(feed_options_parse(&o, "fetch_ranges=whole", err, sizeof err), FEED_OK);
    assert_int_equal(o.fetch_ranges, FEED_FETCH_WHOLE);
    assert_int_equal(feed_options_parse(&o, "fetch_ranges=ranges", err, sizeof err), FEED_OK);
    assert_int_equal(o.fetch_ranges, FEED_FETCH_RANGES);
    o.struct_size = (uint32_t)offsetof(feed_options, fetch_ranges);
    assert_int_equal(feed__options_copy(&copy, &o, err, sizeof err), FEED_OK);
    assert_int_equal(copy.fetch_ranges, FEED_FETCH_WHOLE);
    expect_set_error("fetch_ranges", "auto", "fetch_ranges='auto': expected one of whole|ranges");
    expect_invalid("source=/x,fetch_ranges=ranges", "fetch_ranges=ranges needs fetch_ahead > 0");
    feed_options_init(&o, sizeof o);
    assert_int_equal(feed_options_parse(&o, "source=/x,fetch_ranges=ranges,fetch_ahead=2", err, sizeof err), FEED_OK);
    assert_int_equal(feed__options_validate(&o, err, sizeof err), FEED_OK);
}

/* jpeg_entropy: its words, its default (also for a caller whose struct
 * ends before it), and what validation refuses. */
static void test_jpeg_entropy(void **state)
{
    feed_options o;
    char err[256];
    feed_options_init(&o, sizeof o);
    assert_int_equal(o.jpeg_entropy, FEED_JPEG_ENTROPY_AUTO);
    static const struct {
        const char *text;
        uint32_t v;
    } words[] = {{"libjpeg", FEED_JPEG_ENTROPY_LIBJPEG}, {"LibFeed", FEED_JPEG_ENTROPY_LIBFEED},
                 {"auto", FEED_JPEG_ENTROPY_AUTO}};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        assert_int_equal(feed_options_set(&o, "jpeg_entropy", words[i].text, err, sizeof err), FEED_OK);
        assert_int_equal(o.jpeg_entropy, words[i].v);
    }
    expect_set_error("jpeg_entropy", "turbo", "jpeg_entropy='turbo': expected one of auto|libfeed|libjpeg");
    assert_int_equal(feed_options_parse(&o, "source=/x,jpeg_entropy=libjpeg", err, sizeof err), FEED_OK);
    assert_int_equal(feed__options_validate(&o, err, sizeof err), FEED_OK);
    o.jpeg_entropy = 3;
    assert_int_equal(feed__options_validate(&o, err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "jpeg_entropy=3 unknown (auto|libfeed|libjpeg, 0..2)"));
    /* an older caller's struct stops before the field: the default */
    feed_options old, copy;
    memset(&old, 0xAB, sizeof old);
    assert_int_equal(feed_options_init(&old, offsetof(feed_options, jpeg_entropy)), FEED_OK);
    assert_int_equal(feed_options_set(&old, "jpeg_entropy", "libjpeg", err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "past this caller's struct_size"));
    assert_int_equal(feed__options_copy(&copy, &old, err, sizeof err), FEED_OK);
    assert_int_equal(copy.jpeg_entropy, FEED_JPEG_ENTROPY_AUTO);
}

/* What each launcher sets, as their documentation names it (written out here,
 * not taken from src/loader/options.c, so a typo there fails). */
static const struct {
    const char *rank, *size, *local, *name;
} env[] = {
    {"RANK", "WORLD_SIZE", "LOCAL_RANK", "torchrun"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "openmpi"},
    {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "pmi"},
    {"MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK", "mvapich"},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "slurm"},
};

static void clear_launchers(void)
{
    for (size_t i = 0; i < sizeof env / sizeof *env; i++) {
        unsetenv(env[i].rank);
        unsetenv(env[i].size);
        unsetenv(env[i].local);
    }
}

/* Validates text over source=/x; returns the status, err filled. */
static feed_status auto_ranks(const char *text, feed_options *o, char *err, size_t errlen)
{
    feed_options_init(o, sizeof *o);
    assert_int_equal(feed_options_parse(o, "source=/x", err, errlen), FEED_OK);
    assert_int_equal(feed_options_parse(o, text, err, errlen), FEED_OK);
    return feed__options_validate(o, err, errlen);
}

/* rank/world_size=auto from each launcher's variables, their precedence, and
 * every way it can fail (with a message that says what to set). */
static void test_ranks_from_launcher(void **state)
{
    feed_options o;
    char err[512];
    clear_launchers();
    assert_int_equal(auto_ranks("rank=auto,world_size=auto", &o, err, sizeof err), FEED_E_INVALID);
    if (!strstr(err, "no launcher") || !strstr(err, "WORLD_SIZE") || !strstr(err, "SLURM_PROCID"))
        fail_msg("message: %s", err);
    for (size_t i = 0; i < sizeof env / sizeof *env; i++) {
        clear_launchers();
        setenv(env[i].rank, "3", 1);
        setenv(env[i].size, "8", 1);
        setenv(env[i].local, "1", 1);
        assert_int_equal(auto_ranks("rank=auto,world_size=auto", &o, err, sizeof err), FEED_OK);
        assert_int_equal(o.rank, 3);
        assert_int_equal(o.world_size, 8);
        feed__launcher l;
        assert_int_equal(feed__launcher_find(&l, err, sizeof err), 1);
        assert_string_equal(l.name, env[i].name);
        assert_int_equal(l.local, 1);
        /* one of them given: it must agree */
        assert_int_equal(auto_ranks("rank=auto,world_size=8", &o, err, sizeof err), FEED_OK);
        assert_int_equal(o.rank, 3);
        assert_int_equal(auto_ranks("rank=3,world_size=auto", &o, err, sizeof err), FEED_OK);
        assert_int_equal(o.world_size, 8);
        assert_int_equal(auto_ranks("rank=auto,world_size=4", &o, err, sizeof err), FEED_E_INVALID);
        if (!strstr(err, "world_size=4") || !strstr(err, env[i].size) || !strstr(err, env[i].name))
            fail_msg("message: %s", err);
        /* unusable values */
        setenv(env[i].rank, "8", 1);
        assert_int_equal(auto_ranks("rank=auto,world_size=auto", &o, err, sizeof err), FEED_E_INVALID);
        if (!strstr(err, env[i].rank) || !strstr(err, "=8"))
            fail_msg("message: %s", err);
        setenv(env[i].rank, "x1", 1);
        assert_int_equal(auto_ranks("rank=auto", &o, err, sizeof err), FEED_E_INVALID);
        unsetenv(env[i].rank);
        assert_int_equal(auto_ranks("world_size=auto", &o, err, sizeof err), FEED_E_INVALID);
        if (!strstr(err, "(unset)"))
            fail_msg("message: %s", err);
    }
    /* torchrun inside srun: torchrun's ranks, not Slurm's (one task per node). */
    clear_launchers();
    setenv("SLURM_PROCID", "1", 1);
    setenv("SLURM_NTASKS", "2", 1);
    setenv("RANK", "5", 1);
    setenv("WORLD_SIZE", "16", 1);
    assert_int_equal(auto_ranks("rank=auto,world_size=auto", &o, err, sizeof err), FEED_OK);
    assert_int_equal(o.rank, 5);
    assert_int_equal(o.world_size, 16);
    /* explicit ranks ignore the environment */
    assert_int_equal(auto_ranks("rank=1,world_size=3", &o, err, sizeof err), FEED_OK);
    assert_int_equal(o.rank, 1);
    assert_int_equal(o.world_size, 3);
    clear_launchers();
    feed_options_init(&o, sizeof o);
    assert_int_equal(feed_options_set(&o, "rank", "4294967295", err, sizeof err), FEED_E_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_quoted),
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_validate_every_field),
        cmocka_unit_test(test_worker_limits),
        cmocka_unit_test(test_struct_size),
        cmocka_unit_test(test_jpeg_entropy),
        cmocka_unit_test(test_shuffle_window),
        cmocka_unit_test(test_fetch_ranges),
        cmocka_unit_test(test_ranks_from_launcher),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

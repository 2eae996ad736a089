/* test_options.c - defaults, key=value parsing, validation messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "feed.h"
#include "options.h"

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
    expect_invalid("resize_shorter=100", "resize_shorter=100");
    expect_invalid("std=1:0:1", "std");
    feed_options o;
    char err[256];
    feed_options_init(&o, sizeof o);
    assert_int_equal(feed__options_validate(&o, err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "source"));
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

/* What each launcher sets, as their documentation names it (written out here,
 * not taken from src/options.c, so a typo there fails). */
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
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_struct_size),
        cmocka_unit_test(test_ranks_from_launcher),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_fault_claim.c - the claim timer against a worker that hides its
 * hang: it keeps its claim on a sample for ever but writes FREE over it 9 ms
 * in every 10 ("flicker", tests/hooks/fault.h), so no two looks of the
 * supervisor in a row need see it. A timer that starts afresh whenever it
 * sees no claim never fires and the ring stalls; the claim timer goes on from
 * the claim's first look, kills the worker and has the sample done again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/internal.h"
#include "faultutil.h"

#define NIMG 16

static int setup(void **state)
{
    (void)state;
    fu_setup_data("fclaim", NIMG, 2);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fu_teardown_data();
    return 0;
}

/* One worker, so the sample it flickers over is taken by no one else; it
 * flickers the first time only (a marker): the retry delivers the sample as
 * a clean run does. */
static void flicker_once(const char *opts)
{
    static fu_run ref, got;
    feed_loader *R = fu_make(opts, NULL);
    fu_collect(R, 1, &ref, NULL, NULL);
    fu_destroy(R);
    char fault[4400];
    snprintf(fault, sizeof fault, "flicker1:%s:%s/f1", fu_name(6), fu_marks);
    feed_loader *L = fu_make(opts, fault);
    fu_collect(L, 1, &got, NULL, NULL);
    fu_assert_exactly_once(&got);
    fu_assert_same(&ref, &got, NULL);
    feed_stats s = fu_stats(L);
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    /* A sanitizer's worker, beside the other tests, can take longer than the
     * shortest timeout over a plain sample too: that is one more hang, timed
     * and redone as this one (the data checks above still hold). */
    assert_true(s.worker_hangs >= 1);
    assert_int_equal(s.worker_restarts, s.worker_hangs);
#else
    assert_int_equal(s.worker_hangs, 1);
    assert_int_equal(s.worker_restarts, 1);
#endif
    assert_int_equal(feed_loader_bad_count(L), 0);
    fu_destroy(L);
    fu_assert_no_children();
    char p[4200];
    snprintf(p, sizeof p, "%s/f1", fu_marks);
    assert_int_equal(unlink(p), 0); /* the fault fired */
}

static void test_flickering_claim_killed(void **state)
{
    (void)state;
    flicker_once("workers=1,sample_timeout_ms=300");
}

/* The same with the timer's tick at its shortest (a timeout of 100 ms: a
 * look every 12 ms, so most looks see FREE). */
static void test_flickering_claim_short_timeout(void **state)
{
    (void)state;
    flicker_once("workers=1,sample_timeout_ms=100");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flickering_claim_killed),
        cmocka_unit_test(test_flickering_claim_short_timeout),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * test_fault_hang.c - hang detection. A worker stuck on one sample longer
 * than sample_timeout_ms is killed and counted as a hang; the sample is
 * retried (and delivered exactly as without the hang), or, when it hangs
 * every time, quarantined after max_retries retries and reported.
 * feed_loader_next()'s timeout returns FEED_E_TIMEOUT, and calling again
 * delivers the batch once it is ready.
 */
#include <poll.h>
#include <sched.h>
#include <sys/inotify.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/internal.h"
#include "faultutil.h"

#define NIMG 24

static int setup(void **state)
{
    fu_setup_data("fhang", NIMG, 3);
    return 0;
}

static int teardown(void **state)
{
    fu_teardown_data();
    return 0;
}

static void reference(const char *opts, fu_run *ref)
{
    feed_loader *L = fu_make(opts, NULL);
    fu_collect(L, 1, ref, NULL, NULL);
    fu_assert_exactly_once(ref);
    fu_destroy(L);
}

/* Hangs the first time only: killed after the timeout, retried, exact. The
 * 800 ms budget is a hundred times what a sample takes here, so no other
 * sample is taken for a hang on a loaded machine. */
static void test_hang_once_retried(void **state)
{
    static fu_run ref, got;
    const char *opts = "workers=2,sample_timeout_ms=800";
    reference(opts, &ref);
    char fault[4400];
    snprintf(fault, sizeof fault, "hang1:%s:%s/h1", fu_name(5), fu_marks);
    feed_loader *L = fu_make(opts, fault);
    uint64_t t0 = feed__now_ns();
    fu_collect(L, 1, &got, NULL, NULL);
    uint64_t dt = feed__now_ns() - t0;
    fu_assert_exactly_once(&got);
    fu_assert_same(&ref, &got, NULL);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_hangs, 1);
    assert_int_equal(s.worker_restarts, 1);
    assert_int_equal(s.samples_redone, 1);
    assert_int_equal(feed_loader_bad_count(L), 0);
    assert_true(dt >= 800000000ull); /* it was stuck for the timeout first */
    fu_destroy(L);
    char p[4200];
    snprintf(p, sizeof p, "%s/h1", fu_marks);
    assert_int_equal(unlink(p), 0);
}

/* Sample 9 hangs every time under action ("hang", "hangidle"): killed
 * max_retries + 1 times, then replaced by its first substitute and reported
 * as a hang; the rest is exact. */
static void hang_always_quarantined(const char *action)
{
    static fu_run ref, got;
    const char *opts = "workers=2,sample_timeout_ms=600,max_retries=1";
    reference(opts, &ref);
    uint64_t stuck = 9;
    char fault[256];
    snprintf(fault, sizeof fault, "%s:%s", action, fu_name(stuck));
    feed_loader *L = fu_make(opts, fault);
    fu_collect(L, 1, &got, NULL, NULL);
    static uint8_t q[FU_MAX_N];
    memset(q, 0, sizeof q);
    q[stuck] = 1;
    fu_assert_same(&ref, &got, q);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_hangs, 2);
    assert_int_equal(s.worker_restarts, 2);
    assert_int_equal(s.samples_bad, 1);
    assert_int_equal(feed_loader_bad_count(L), 1);
    feed_bad_sample b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_bad_sample(L, 0, &b), FEED_OK);
    assert_int_equal(b.sample_id, stuck);
    assert_int_equal(b.status, FEED_E_WORKER);
    assert_non_null(strstr(b.path, fu_name(stuck)));
    if (!strstr(b.message, "died 2 times") || !strstr(b.message, "sample_timeout_ms=600"))
        fail_msg("%s: message: %s", action, b.message);
    fu_destroy(L);
    fu_assert_no_children();
}

static void test_hang_always_quarantined(void **state)
{
    hang_always_quarantined("hang");
}

/* The same while the hung worker keeps every worker record saying "idle"
 * ("hangidle"): the parent times the claim it sees in the ring, not what a
 * record says. */
static void test_hang_hidden_in_record(void **state)
{
    hang_always_quarantined("hangidle");
}

/* Slow but good: every attempt sleeps 700 ms against sample_timeout_ms=500.
 * The first attempt is killed (it sleeps longer than its budget, whatever
 * the machine's speed); its retry gets twice the time (then four times), so
 * the sample is delivered as itself, not quarantined. The retry's 1000 ms
 * leave 300 ms for decoding one small sample on a loaded machine, and the
 * third try's 2000 ms more: one hang or two, never a bad sample. */
static void test_slow_sample_longer_budget(void **state)
{
    static fu_run ref, got;
    const char *opts = "workers=2,sample_timeout_ms=500";
    reference(opts, &ref);
    char fault[256];
    snprintf(fault, sizeof fault, "slow:%s", fu_name(7));
    setenv("FEED_TEST_SLOW_MS", "700", 1);
    feed_loader *L = fu_make(opts, fault);
    fu_collect(L, 1, &got, NULL, NULL);
    unsetenv("FEED_TEST_SLOW_MS");
    fu_assert_same(&ref, &got, NULL);
    fu_assert_exactly_once(&got);
    feed_stats s = fu_stats(L);
    assert_int_equal(feed_loader_bad_count(L), 0);
    assert_int_equal(s.samples_bad, 0);
    assert_true(s.worker_hangs >= 1 && s.worker_hangs <= 2);
    fu_destroy(L);
    fu_assert_no_children();
}

/* Waits until the hook's once-only marker fu_marks/mark exists: the hang has
 * started (the hook makes the marker, then hangs). An inotify event, not a
 * guess at how long a worker takes to get there; 60 s at most. */
static void wait_marker(const char *mark)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", fu_marks, mark);
    int fd = inotify_init1(IN_CLOEXEC);
    assert_true(fd >= 0);
    assert_true(inotify_add_watch(fd, fu_marks, IN_CREATE | IN_MOVED_TO) >= 0);
    uint64_t t0 = feed__now_ns();
    while (access(p, F_OK) != 0) { /* watched before looking: no event is missed */
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        char buf[4096];
        if (poll(&pf, 1, 1000) > 0 && read(fd, buf, sizeof buf) < 0)
            break;
        if (feed__now_ns() - t0 > 60000000000ull)
            break;
    }
    close(fd);
    if (access(p, F_OK) != 0)
        fail_msg("the hang (marker %s) did not start within 60 s", mark);
}

/* A loader of opts over which sample 2 * FU_BATCH + 1 (in batch 2) hangs
 * once (marker fu_marks/mark), after batches 0 and 1 were taken and given
 * back; *ref is a clean run of opts. */
static feed_loader *stuck_in_batch_2(const char *opts, const char *mark, fu_run *ref)
{
    reference(opts, ref);
    char fault[4400];
    snprintf(fault, sizeof fault, "hang1:%s:%s/%s", fu_name(2 * FU_BATCH + 1), fu_marks, mark);
    feed_loader *L = fu_make(opts, fault);
    feed_batch b = {.struct_size = sizeof b};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
        assert_int_equal(b.index, (uint64_t)i);
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    return L;
}

/* Ends a stuck_in_batch_2 loader: no bad sample, no process left, and the
 * hang did fire (its marker exists). */
static void done_stuck(feed_loader *L, const char *mark)
{
    assert_int_equal(feed_loader_bad_count(L), 0);
    fu_destroy(L);
    fu_assert_no_children();
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", fu_marks, mark);
    assert_int_equal(unlink(p), 0);
}

/* next() with a timeout on a batch that cannot complete (hang detection off):
 * FEED_E_TIMEOUT, not before the time is up, again on the next call; the
 * position does not move. Once the stuck worker is killed, the sample is
 * retried and the very same batch comes, exact. */
static void test_next_timeout(void **state)
{
    static fu_run ref;
    feed_loader *L = stuck_in_batch_2("workers=2,shuffle=false,sample_timeout_ms=0,prefetch=2", "t1", &ref);
    feed_batch b = {.struct_size = sizeof b};
    wait_marker("t1"); /* stuck for good now: the kills below must find it hung */
    uint64_t t0 = feed__now_ns();
    assert_int_equal(feed_loader_next(L, &b, 200), FEED_E_TIMEOUT);
    assert_true(feed__now_ns() - t0 >= 200000000ull); /* a lower bound: the clock only adds */
    assert_int_equal(feed_loader_next(L, &b, 0), FEED_E_TIMEOUT); /* poll */
    assert_int_equal(feed_loader_next(L, &b, 50), FEED_E_TIMEOUT);
    uint64_t e, pos;
    assert_int_equal(feed_loader_position(L, &e, &pos), FEED_OK);
    assert_int_equal(pos, 2);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_hangs, 0); /* nobody is watching the clock */
    assert_int_equal(s.batches_delivered, 2);

    /* Find the stuck worker: the one whose sample is not done. Kill both
     * workers in turn; only a retry gets the batch through. */
    fu_kill_worker(L, 0, SIGKILL);
    fu_kill_worker(L, 1, SIGKILL);
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_int_equal(b.index, 2);
    for (uint32_t i = 0; i < b.count; i++) {
        assert_int_equal(b.sample_ids[i], ref.id[0][2 * FU_BATCH + i]);
        assert_int_equal(b.flags[i], ref.flags[0][2 * FU_BATCH + i]);
        assert_int_equal(fu_sample_hash(&b, i), ref.hash[0][2 * FU_BATCH + i]);
    }
    feed_batch_release(L, &b, NULL);
    s = fu_stats(L);
    assert_int_equal(s.worker_restarts, 2);
    assert_true(s.samples_redone >= 1);
    done_stuck(L, "t1");
}

/* A seek while a worker hangs on a sample of a batch in the ring: the seek
 * drains that slot, waiting for the claim, and the claim is still timed
 * there (a drained slot's claims were once not: the seek waited for ever).
 * After it, the epoch from the start is the reference's. The hang's start is
 * an event (its marker); the 2 s budget is the point (the seek must come
 * while the claim runs, and wait for its timeout): generous, so that a
 * stalled machine still gets from the marker to the seek well within it. */
static void test_seek_past_hung_worker(void **state)
{
    static fu_run ref;
    feed_loader *L = stuck_in_batch_2("workers=2,shuffle=false,sample_timeout_ms=2000,prefetch=2", "s1", &ref);
    feed_batch b = {.struct_size = sizeof b};
    wait_marker("s1");
    assert_int_equal(feed_loader_next(L, &b, 0), FEED_E_TIMEOUT); /* batch 2 is stuck */
    assert_int_equal(fu_stats(L).worker_hangs, 0);
    assert_int_equal(feed_loader_seek(L, 0, 0), FEED_OK);
    assert_int_equal(fu_stats(L).worker_hangs, 1);
    for (uint64_t k = 0; k < NIMG / FU_BATCH; k++) {
        assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
        assert_int_equal(b.index, k);
        for (uint32_t i = 0; i < b.count; i++) {
            assert_int_equal(b.sample_ids[i], ref.id[0][k * FU_BATCH + i]);
            assert_int_equal(fu_sample_hash(&b, i), ref.hash[0][k * FU_BATCH + i]);
        }
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    done_stuck(L, "s1");
}

/* A new batch wakes one sleeping worker, which wakes the next (ring.c): with
 * every worker asleep when a slot is given back, more than one decodes the
 * new batch. 20 ms a sample, 12 samples: one worker alone would take the
 * batch's 240 ms (the others sleep up to a second between looks). The time
 * is the point here (the woken second worker must join within the batch):
 * 240 ms is ten times the scheduler's period (24 ms) in which a woken task
 * runs on a busy 2-core machine; a longer batch would let a sleeper's own
 * once-a-second look hide the missing wake-up more often. */
static void test_new_batch_wakes_the_sleepers(void **state)
{
    setenv("FEED_TEST_SLOW_MS", "20", 1);
    feed_loader *L = fu_make("workers=2,prefetch=2,batch_size=12,shuffle=false,epochs=3", "slow:img_");
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    /* Every slot done: nothing to claim, the workers go to sleep. */
    uint64_t t0 = feed__now_ns();
    feed_stats s;
    for (;;) {
        s = fu_stats(L);
        if (s.ring_ready == s.ring_slots)
            break;
        assert_true(feed__now_ns() - t0 < 30000000000ull);
        sched_yield();
    }
    static feed_trace_event ev[256];
    while (feed_loader_trace_read(L, ev, 256, NULL) > 0) /* what came before */
        ;
    uint64_t want_epoch = s.ring_slots / 2, want_batch = s.ring_slots % 2; /* 2 batches an epoch */
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK); /* assigns batch seq ring_slots */
    /* The batches before it are held, not given back: a release would
     * assign one more batch and wake one more worker, chain or not. */
    feed_batch held[8];
    assert_true(s.ring_slots <= 8);
    for (uint32_t k = 1; k <= s.ring_slots; k++) {
        feed_status st;
        held[k - 1] = (feed_batch){.struct_size = sizeof b};
        while ((st = feed_loader_next(L, &held[k - 1], 60000)) == FEED_END_OF_EPOCH)
            ;
        assert_int_equal(st, FEED_OK);
    }
    b = held[s.ring_slots - 1];
    assert_int_equal(b.epoch, want_epoch);
    assert_int_equal(b.index, want_batch);
    uint32_t workers = 0, n = 0;
    uint64_t got;
    while ((got = feed_loader_trace_read(L, ev, 256, NULL)) > 0)
        for (uint64_t i = 0; i < got; i++)
            if (ev[i].epoch == want_epoch && ev[i].batch == want_batch)
                workers |= 1u << ev[i].worker, n++;
    assert_int_equal(n, 12);
    if (workers != 3)
        fail_msg("the new batch was decoded by worker mask 0x%x only", workers);
    for (uint32_t k = 0; k < s.ring_slots; k++)
        assert_int_equal(feed_batch_release(L, &held[k], NULL), FEED_OK);
    fu_destroy(L);
    unsetenv("FEED_TEST_SLOW_MS");
    fu_assert_no_children();
}

/* Destroy while a worker hangs (no timeout): returns, kills it, leaves no
 * process behind. */
static void test_destroy_with_hung_worker(void **state)
{
    char fault[256];
    snprintf(fault, sizeof fault, "hang:%s", fu_name(0));
    feed_loader *L = fu_make("workers=1,shuffle=false,sample_timeout_ms=0", fault);
    pid_t pid = fu_running(L, 0, 0);
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 100), FEED_E_TIMEOUT);
    fu_destroy(L);
    assert_true(fu_gone(pid));
    fu_assert_no_children();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_hang_once_retried),
        TU_TEST(test_hang_always_quarantined),
        TU_TEST(test_hang_hidden_in_record),
        TU_TEST(test_slow_sample_longer_budget),
        TU_TEST(test_next_timeout),
        TU_TEST(test_seek_past_hung_worker),
        TU_TEST(test_new_batch_wakes_the_sleepers),
        TU_TEST(test_destroy_with_hung_worker),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

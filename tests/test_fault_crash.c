/*
 * test_fault_crash.c - crash isolation: workers killed at random, or made to
 * die at a chosen point (read, decode, publish, on a substitute) by the
 * FEED_TEST_FAULT hooks, are replaced; every sample is still delivered
 * exactly once, in the same order, with the same pixels and labels as a run
 * without the crashes. A sample that kills every worker (a poison pill) is
 * quarantined after max_retries retries and reported; workers that die on
 * everything make next() fail with a clear error instead of looping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>

#include "common/rng.h"
#include "faultutil.h"
#include "hooks/fault.h"

#define NIMG 40
#define EPOCHS 4

static int setup(void **state)
{
    fu_setup_data("fcrash", NIMG, 4);
    return 0;
}

static int teardown(void **state)
{
    fu_teardown_data();
    return 0;
}

/* The reference: the same options, no faults. */
static void reference(const char *opts, uint32_t epochs, fu_run *ref)
{
    feed_loader *L = fu_make(opts, NULL);
    fu_collect(L, epochs, ref, NULL, NULL);
    fu_assert_exactly_once(ref);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_restarts, 0);
    assert_int_equal(feed_loader_bad_count(L), 0);
    fu_destroy(L);
}

typedef struct killer {
    feed__rng rng;
    uint32_t every, workers, kills;
} killer;

/* After every few batches: a random worker dies by a random signal, right
 * after the release has posted new work (so it is usually mid-sample). */
static void kill_some(feed_loader *L, uint64_t batch_no, void *ctx)
{
    killer *k = ctx;
    if (batch_no % k->every)
        return;
    static const int sigs[] = {SIGKILL, SIGSEGV, SIGABRT, SIGTERM, SIGBUS};
    uint32_t w = (uint32_t)feed__rng_below(&k->rng, k->workers);
    int sig = sigs[feed__rng_below(&k->rng, sizeof sigs / sizeof sigs[0])];
    fu_kill_worker(L, w, sig);
    k->kills++;
}

static void test_random_kills_exact(void **state)
{
    static fu_run ref, got;
    /* Random kills are no poison pill: a sample held by max_retries + 1 killed
     * workers in a row would rightly be quarantined, so allow many. */
    const char *opts = "workers=3,prefetch=3,max_retries=100";
    reference(opts, EPOCHS, &ref);

    feed_loader *L = fu_make(opts, NULL);
    killer k = {.every = 2, .workers = 3};
    feed__rng_init(&k.rng, 9, 0, 0, 0);
    fu_collect(L, EPOCHS, &got, kill_some, &k);
    fu_assert_exactly_once(&got);
    fu_assert_same(&ref, &got, NULL);
    feed_stats s = fu_stats(L);
    assert_int_equal(k.kills, EPOCHS * ((NIMG / FU_BATCH) / 2));
    assert_int_equal(s.worker_restarts, k.kills);
    assert_int_equal(s.worker_hangs, 0);
    assert_int_equal(s.samples_bad, 0);
    assert_int_equal(feed_loader_bad_count(L), 0);
    assert_int_equal(s.samples_delivered, EPOCHS * NIMG);
    print_message("kills drawn with seed 9: %u kills, %llu samples redone\n", k.kills, (unsigned long long)s.samples_redone);
    fu_destroy(L);
    fu_assert_no_children();
}

/* Deterministic death points: before the read, after the read (mid-decode),
 * and after the pixels are written but before the sample is marked done. */
static void test_crash_phases(void **state)
{
    static fu_run ref, got;
    const char *opts = "workers=2,shuffle=false";
    reference(opts, 1, &ref);
    char fault[2048];
    snprintf(fault, sizeof fault,
             "exit1@read:%s:%s/m1;segv1@decode:%s:%s/m2;abort1@publish:%s:%s/m3;exit1@publish:%s:%s/m4",
             fu_name(3), fu_marks, fu_name(10), fu_marks, fu_name(17), fu_marks, fu_name(NIMG - 1), fu_marks);
    feed_loader *L = fu_make(opts, fault);
    fu_collect(L, 1, &got, NULL, NULL);
    fu_assert_exactly_once(&got);
    fu_assert_same(&ref, &got, NULL);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_restarts, 4);
    assert_int_equal(s.samples_redone, 4); /* each died holding its sample */
    assert_int_equal(feed_loader_bad_count(L), 0);
    fu_destroy(L);
    for (int i = 1; i <= 4; i++) { /* every hook fired */
        char p[4200];
        snprintf(p, sizeof p, "%s/m%d", fu_marks, i);
        assert_int_equal(access(p, F_OK), 0);
        unlink(p);
    }
}

/* A poison pill: aborts every worker that touches it. Quarantined after
 * max_retries retries in the first epoch and for good after that, replaced
 * by its first substitute, reported with the reason in every epoch; every
 * other sample is exact. */
static void run_poison(uint32_t max_retries)
{
    static fu_run ref, got;
    char opts[128];
    snprintf(opts, sizeof opts, "workers=2,max_retries=%u", max_retries);
    reference(opts, 2, &ref);
    uint64_t pill = 13;
    char fault[256];
    snprintf(fault, sizeof fault, "abort:%s", fu_name(pill));
    feed_loader *L = fu_make(opts, fault);
    fu_collect(L, 2, &got, NULL, NULL);
    static uint8_t quarantined[FU_MAX_N];
    memset(quarantined, 0, sizeof quarantined);
    quarantined[pill] = 1;
    fu_assert_same(&ref, &got, quarantined);
    feed_stats s = fu_stats(L);
    /* Quarantined for good: epoch 1 sends it straight to a substitute,
     * without killing another worker. */
    assert_int_equal(s.worker_restarts, max_retries + 1);
    assert_int_equal(s.samples_bad, 2);
    assert_int_equal(feed_loader_bad_count(L), 2); /* one report per epoch */
    for (uint64_t e = 0; e < 2; e++) {
        feed_bad_sample b = {.struct_size = sizeof b};
        assert_int_equal(feed_loader_bad_sample(L, e, &b), FEED_OK);
        assert_int_equal(b.sample_id, pill);
        assert_int_equal(b.epoch, e);
        uint64_t pos = 0;
        while (ref.id[e][pos] != pill)
            pos++;
        assert_int_equal(b.batch, pos / FU_BATCH);
        assert_int_equal(b.status, FEED_E_WORKER);
        assert_non_null(strstr(b.path, fu_name(pill)));
        assert_int_equal(b.path[0], '/');
        char want[64];
        snprintf(want, sizeof want, "died %u time", max_retries + 1);
        if (e == 1 && !strstr(b.message, "in an earlier epoch"))
            fail_msg("epoch 1 report '%s' does not say it was quarantined earlier", b.message);
        if (!strstr(b.message, want) || !strstr(b.message, "quarantined"))
            fail_msg("report message '%s' lacks '%s'", b.message, want);
        if (!FU_SANITIZED && !strstr(b.message, "signal 6"))
            fail_msg("report message '%s' does not say how the worker died", b.message);
    }
    assert_int_equal(feed_loader_bad_sample(L, 2, &(feed_bad_sample){.struct_size = sizeof(feed_bad_sample)}),
                     FEED_E_INVALID); /* no report 2 */
    feed_bad_sample small = {.struct_size = sizeof small - 1};
    assert_int_equal(feed_loader_bad_sample(L, 0, &small), FEED_E_INVALID); /* too small */
    feed_bad_sample ok = {.struct_size = sizeof ok + 64}; /* a newer caller's size */
    assert_int_equal(feed_loader_bad_sample(L, 0, &ok), FEED_OK);
    assert_int_equal(ok.struct_size, sizeof ok);
    fu_destroy(L);
    fu_assert_no_children();
}

static void test_poison_pill(void **state)
{
    run_poison(2);
}

static void test_poison_pill_no_retries(void **state)
{
    run_poison(0);
}

/* This process's resident memory, KiB. */
static long self_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            v = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

/* A leak stays inside its worker: a worker that allocates memory without
 * end on sample 13 ("leak", fault.h) is refused more at its cap
 * (max_worker_memory, its address space limit), dies as the out-of-memory
 * killer would make it (SIGKILL), and takes nothing else with it: its sample
 * is quarantined (max_retries=0) and reported, every other sample is exact,
 * the trainer's memory did not grow. Without the cap (max_worker_memory=0)
 * the same worker gets its 768 MiB and exits FEED_FAULT_ESCAPED: the report
 * says so, and the test can fail. */
static void run_leak(const char *cap, const char *want)
{
    static fu_run ref, got;
    char opts[128];
    snprintf(opts, sizeof opts, "workers=2,max_retries=0,max_worker_memory=%s", cap);
    reference(opts, 1, &ref);
    uint64_t leaky = 13;
    char fault[256];
    snprintf(fault, sizeof fault, "leak:%s", fu_name(leaky));
    long rss0 = self_rss_kib();
    feed_loader *L = fu_make(opts, fault);
    fu_collect(L, 1, &got, NULL, NULL);
    static uint8_t quarantined[FU_MAX_N];
    memset(quarantined, 0, sizeof quarantined);
    quarantined[leaky] = 1;
    fu_assert_same(&ref, &got, quarantined);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_restarts, 1);
    assert_int_equal(s.samples_bad, 1);
    feed_bad_sample b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_bad_sample(L, 0, &b), FEED_OK);
    assert_int_equal(b.sample_id, leaky);
    if (!strstr(b.message, want))
        fail_msg("max_worker_memory=%s: report '%s', want '%s'", cap, b.message, want);
    long grew = self_rss_kib() - rss0;
    if (grew > 64 * 1024)
        fail_msg("the trainer grew by %ld KiB while a worker leaked", grew);
    fu_destroy(L);
    fu_assert_no_children();
}

static void test_leak_stays_in_its_worker(void **state)
{
    if (FU_SANITIZED) {
        print_message("skipped: sanitizers leave the workers' address space uncapped\n");
        skip();
    }
    run_leak("268435456", "killed by signal 9");
    char want[64];
    snprintf(want, sizeof want, "exited with status %d", FEED_FAULT_ESCAPED);
    run_leak("0", want);
}

/* A worker that dies while it decodes a substitute must not change which
 * sample replaces the bad one: the retry decodes the same substitute. */
static void test_crash_on_substitute(void **state)
{
    /* A copy of the dataset with sample 0 corrupt (shuffle off, one worker:
     * sample 0 is the first thing decoded, so the substitute is first met as
     * a substitute, not as itself). */
    char *dir = tu_mkdtemp("fcrash-sub");
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "cp -r '%s/.' '%s/'", fu_data, dir);
    assert_int_equal(system(cmd), 0);
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, feed__index_path(fu_ix.hdr, 0));
    tu_write(p, "\xff\xd8\xff\xe0 not really", 15);
    uint64_t sub = feed__substitute(FU_SEED, 0, 0, 1, fu_nsamples());
    assert_true(sub >= FU_BATCH * 3); /* not in a batch filled before it */

    const char *opts = "workers=1,shuffle=false,prefetch=2";
    static fu_run ref, got;
    feed_loader *L = fu_make_src(dir, opts, NULL);
    fu_collect(L, 1, &ref, NULL, NULL);
    assert_int_equal(ref.id[0][0], sub);
    assert_int_equal(ref.flags[0][0], FEED_SAMPLE_REPLACED);
    fu_destroy(L);

    char fault[4400];
    snprintf(fault, sizeof fault, "exit1@decode:%s:%s/sub", fu_name(sub), fu_marks);
    L = fu_make_src(dir, opts, fault);
    fu_collect(L, 1, &got, NULL, NULL);
    fu_assert_same(&ref, &got, NULL);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_restarts, 1);
    assert_int_equal(feed_loader_bad_count(L), 1);
    feed_bad_sample b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_bad_sample(L, 0, &b), FEED_OK);
    assert_int_equal(b.sample_id, 0);
    assert_int_equal(b.status, FEED_E_DECODE); /* the sample's own fault, not the crash */
    fu_destroy(L);
    snprintf(p, sizeof p, "%s/sub", fu_marks);
    assert_int_equal(unlink(p), 0); /* the hook did fire */
    tu_rmtree(dir);
    free(dir);
}

/* create with opts and the worker executable script (text written to it):
 * it must fail with FEED_E_WORKER, leave no loader and no process; err gets
 * the message. */
static void create_with_worker(const char *script, const char *text, const char *opts, char *err, size_t errlen)
{
    feed_options o;
    tu_write(script, text, strlen(text));
    chmod(script, 0755);
    fu_options(&o, NULL, opts);
    snprintf(o.worker_path, sizeof o.worker_path, "%s", script);
    feed_loader *L = (feed_loader *)1;
    assert_int_equal(feed_loader_create(&L, &o, err, errlen), FEED_E_WORKER);
    assert_null(L);
    fu_assert_no_children();
    unlink(script);
}

/* Workers that die on every sample under fault: next() (or create, if it
 * happens while workers start) fails with FEED_E_WORKER and says so after
 * FEED_BARREN_DEATH_LIMIT (32) deaths in a row; no loop. */
static void crash_storm(const char *fault)
{
    feed_options o;
    fu_options(&o, NULL, "workers=2");
    setenv("FEED_TEST_FAULT", fault, 1);
    char err[1024];
    feed_loader *L = NULL;
    feed_status st = feed_loader_create(&L, &o, err, sizeof err);
    tu_hold(L);
    const char *msg = err;
    if (st == FEED_OK) {
        feed_batch b = {.struct_size = sizeof b};
        st = feed_loader_next(L, &b, 60000);
        msg = feed_loader_last_error(L);
    }
    if (st != FEED_E_WORKER || !strstr(msg, "keep dying") || !strstr(msg, "exited with status 3"))
        fail_msg("%s: %s: %s", fault, feed_status_name(st), msg);
    if (L) {
        feed_stats s = fu_stats(L);
        if (s.worker_restarts < 32 || s.worker_restarts > 40)
            fail_msg("%s: %llu restarts", fault, (unsigned long long)s.worker_restarts);
        /* It stays failed. */
        feed_batch b = {.struct_size = sizeof b};
        assert_int_equal(feed_loader_next(L, &b, 0), FEED_E_WORKER);
    }
    tu_drop(L);
    unsetenv("FEED_TEST_FAULT");
    fu_assert_no_children();
}

static void test_crash_storm_fails(void **state)
{
    crash_storm("exit:.jpg");
    /* Each worker, before it dies, makes every worker record say a sample
     * was done: progress is what the parent sees in the ring, not that. */
    crash_storm("exitlie:.jpg");

    /* A broken install: the worker executable crashes at start. */
    char script[4000], err[1024];
    snprintf(script, sizeof script, "%s/crashing-worker.sh", fu_marks);
    create_with_worker(script, "#!/bin/sh\nkill -SEGV $$\n", "workers=2", err, sizeof err);
    if (!strstr(err, "fail to start") || !strstr(err, "signal 11") || !strstr(err, script))
        fail_msg("message: %s", err);

    /* A worker that cannot start says why (its report pipe, fd 5), and the
     * error carries it. Here the real feed-worker under an address-space
     * limit too small for the arena, the libraries still fitting. */
    if (!FU_SANITIZED) { /* sanitizers reserve terabytes of address space */
        char real[PATH_MAX];
        assert_non_null(realpath(getenv("FEED_WORKER"), real));
        char text[PATH_MAX + 64];
        snprintf(text, sizeof text, "#!/bin/sh\nulimit -v 81920\nexec '%s' \"$@\"\n", real);
        create_with_worker(script, text, "workers=1,batch_size=256,height=224,width=224,prefetch=4", err,
                           sizeof err);
        if (!strstr(err, "fail to start") || !strstr(err, "exited with status 3") ||
            !strstr(err, "arena: mmap of") || !strstr(err, "ulimit -v"))
            fail_msg("message: %s", err);
    }

    /* What a worker says on its report pipe is untrusted: a terminal's
     * escape sequence in it comes back as \x1b, never as the byte. */
    create_with_worker(script, "#!/bin/sh\nprintf 'cannot \\033[2Jstart\\n' >&5\nexit 3\n", "workers=1", err,
                       sizeof err);
    if (!strstr(err, "fail to start") || !strstr(err, ": cannot \\x1b[2Jstart") || strchr(err, 0x1b) ||
        strchr(err, '\n'))
        fail_msg("message: %s", err);

    /* One that cannot even be loaded (exit 127, as from the dynamic loader). */
    create_with_worker(script, "#!/bin/sh\necho 'error while loading shared libraries' >&2\nexit 127\n",
                       "workers=1", err, sizeof err);
    if (!strstr(err, "status 127") || !strstr(err, "missing shared library"))
        fail_msg("message: %s", err);
}

/* Workers, first and respawned, are the feed-worker executable (posix_spawn
 * + exec, never a fork of this process), children of this process. */
static void test_workers_are_exec(void **state)
{
    char want[PATH_MAX], exe[PATH_MAX], p[64];
    assert_non_null(realpath(getenv("FEED_WORKER"), want));
    feed_loader *L = fu_make("workers=2", NULL);
    for (int round = 0; round < 3; round++) {
        for (uint32_t i = 0; i < 2; i++) {
            pid_t pid = fu_running(L, i, 0);
            snprintf(p, sizeof p, "/proc/%d/exe", (int)pid);
            ssize_t n = readlink(p, exe, sizeof exe - 1);
            assert_true(n > 0);
            exe[n] = 0;
            assert_string_equal(exe, want);
            /* its parent is this process */
            snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
            FILE *f = fopen(p, "r");
            assert_non_null(f);
            int ppid = 0;
            assert_int_equal(fscanf(f, "%*d (%*[^)]) %*c %d", &ppid), 1);
            fclose(f);
            assert_int_equal(ppid, getpid());
        }
        fu_kill_worker(L, (uint32_t)round % 2, SIGKILL);
    }
    fu_destroy(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_random_kills_exact),
        TU_TEST(test_crash_phases),
        TU_TEST(test_poison_pill),
        TU_TEST(test_poison_pill_no_retries),
        TU_TEST(test_crash_on_substitute),
        TU_TEST(test_leak_stays_in_its_worker),
        TU_TEST(test_crash_storm_fails),
        TU_TEST(test_workers_are_exec),
    };
    const char *filter = getenv("FEED_TEST_FILTER"); /* scripts/mutants: one case */
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * test_fault_hostile.c - workers are untrusted: hostile workers
 * (FEED_TEST_SCRIBBLE, fault.h) scribble random bytes, at random moments,
 * over everything they can write: their samples' state words, ids, labels,
 * flags, records and pixels, the slot headers, their trace rings and worker
 * records, the sealed configuration page, and (another run) the arena
 * header's control words: the futex words and every worker's record. Others
 * make the configuration page writable and keep rewriting it, or try to. The
 * trainer never crashes or hangs (ASan also checks it writes nothing outside
 * its memory), and every epoch still delivers each sample exactly once, with
 * the pixels and labels of a run without hostility: every scribbled sample
 * is caught, its worker killed and replaced, and the sample done again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/internal.h"
#include "faultutil.h"
#include "hooks/fault.h"

#define NIMG 96
#define EPOCHS (FU_SANITIZED ? 3 : 8) /* sanitized workers respawn slowly */

static int setup(void **state)
{
    fu_setup_data("fhostile", NIMG, 4);
    return 0;
}

static int teardown(void **state)
{
    fu_teardown_data();
    return 0;
}

typedef struct tracer {
    uint64_t events, workers;
} tracer;

/* After every batch: read the timeline (whose rings the workers scribble
 * too); whatever comes out names a worker and a sample that exist. */
static void read_trace(feed_loader *L, uint64_t batch_no, void *ctx)
{
    tracer *tr = ctx;
    static feed_trace_event ev[4096];
    uint64_t lost = 0, n = feed_loader_trace_read(L, ev, 4096, &lost);
    for (uint64_t k = 0; k < n; k++) {
        assert_true(ev[k].worker < tr->workers);
        assert_true(ev[k].sample_id < fu_nsamples());
        assert_int_equal(ev[k].flags & ~(uint32_t)(FEED_SAMPLE_REPLACED | FEED_SAMPLE_FLIPPED |
                                                   FEED__SAMPLE_NO_SUBSTITUTE), 0);
    }
    tr->events += n;
}

/* The scribbles and the fields scribbled, as the workers counted them. */
static void count_scribbles(const char *path, uint64_t *events, uint64_t *fields)
{
    uint64_t c[2] = {0, 0};
    FILE *f = fopen(path, "rb");
    if (f && fread(c, sizeof c, 1, f) != 1)
        c[0] = c[1] = 0;
    if (f)
        fclose(f);
    *events = c[0], *fields = c[1];
}

/* area: FEED_TEST_SCRIBBLE_AREA (NULL: the samples and the rest, fault.h);
 * fault: FEED_TEST_FAULT of the hostile run (NULL: none). min_events says the
 * run exercised the checks at scale. How many scribbles fit in a run depends
 * on how fast workers respawn, which a loaded machine slows; so hostile runs
 * (each a new loader, each compared with the clean run) go on until the
 * workers have counted min_events scribbles, 8 runs at most (one is enough
 * on a 2-core VM: 438-2408 scribbles a run with other builds going on). */
static void run_hostile(const char *opts, uint32_t workers, const char *scribble, const char *area,
                        const char *fault, uint64_t min_events)
{
    static fu_run ref, got;
    feed_loader *L = fu_make(opts, NULL);
    fu_collect(L, EPOCHS, &ref, NULL, NULL);
    fu_assert_exactly_once(&ref);
    fu_destroy(L);

    char *dir = tu_mkdtemp("fhostile-count"), count[4200];
    snprintf(count, sizeof count, "%s/count", dir);
    setenv("FEED_TEST_SCRIBBLE", scribble, 1);
    setenv("FEED_TEST_SCRIBBLE_COUNT", count, 1);
    if (area)
        setenv("FEED_TEST_SCRIBBLE_AREA", area, 1);
    tracer tr = {.workers = workers};
    uint64_t events = 0, fields = 0, misbehaved = 0, restarts = 0, redone = 0;
    uint32_t runs = 0;
    do {
        uint64_t t0 = feed__now_ns();
        L = fu_make(opts, fault);
        fu_collect(L, EPOCHS, &got, read_trace, &tr);
        fu_assert_exactly_once(&got);
        fu_assert_same(&ref, &got, NULL);
        feed_stats s = fu_stats(L);
        /* Stage times come from what workers wrote: each worker's no more than
         * it lived, so all of them no more than one loader lifetime per worker
         * process there ever was. */
        uint64_t bound = (workers + s.worker_restarts) * (feed__now_ns() - t0);
        if (s.read_ns > bound || s.decode_ns > bound || s.augment_ns > bound || s.convert_ns > bound)
            fail_msg("stage times past %llu ns: read %llu, decode %llu, augment %llu, convert %llu",
                     (unsigned long long)bound, (unsigned long long)s.read_ns, (unsigned long long)s.decode_ns,
                     (unsigned long long)s.augment_ns, (unsigned long long)s.convert_ns);
        uint64_t m = feed__loader_pool(L)->misbehaved;
        assert_int_equal(s.samples_bad, 0);
        assert_int_equal(feed_loader_bad_count(L), 0);
        assert_int_equal(s.samples_delivered, EPOCHS * NIMG);
        assert_true(m > 0);
        assert_true(s.worker_restarts >= m);
        misbehaved += m, restarts += s.worker_restarts, redone += s.samples_redone;
        fu_destroy(L);
        fu_assert_no_children();
        count_scribbles(count, &events, &fields);
        runs++;
    } while (events < min_events && runs < 8);
    unsetenv("FEED_TEST_SCRIBBLE");
    unsetenv("FEED_TEST_SCRIBBLE_COUNT");
    unsetenv("FEED_TEST_SCRIBBLE_AREA");
    tu_rmtree(dir);
    free(dir);
    print_message("%s%s%s: %u run(s), %llu scribbles (%llu fields), %llu workers killed for invalid values, "
                  "%llu restarts, %llu samples redone, %llu trace events read; 0 lost, 0 duplicated\n",
                  scribble, area ? " " : "", area ? area : "", runs, (unsigned long long)events,
                  (unsigned long long)fields, (unsigned long long)misbehaved, (unsigned long long)restarts,
                  (unsigned long long)redone, (unsigned long long)tr.events);
    if (events < min_events)
        fail_msg("only %llu scribbles in %u runs", (unsigned long long)events, runs);
}

/* One hostile worker among healthy ones: it scribbles at every chance. */
static void test_one_hostile_worker(void **state)
{
    run_hostile("workers=3,prefetch=3,max_retries=100", 3, "11:1000:0", NULL, NULL, FU_SANITIZED ? 20 : 200);
}

/* Every worker hostile now and then: retries succeed. */
static void test_all_workers_sometimes(void **state)
{
    run_hostile("workers=3,prefetch=3,max_retries=100", 3, "12:300", NULL, NULL, FU_SANITIZED ? 200 : 600);
}

/* Every worker hostile now and then, over the header's control words only:
 * the futex words, which may cost a wake-up (the sleepers look again
 * anyway), and the worker records, where a state out of range has the
 * record's worker killed (the parent cannot tell who wrote it); nothing
 * else there decides a hang or progress. Nothing there stops a
 * worker or the loader (a shutdown word there once did: the workers obeyed
 * it, and only a worker ever wrote it). */
static void test_control_words_scribbled(void **state)
{
    /* 10 ms a sample: the run lasts a few of the supervisor's 250 ms
     * rounds, so it sees records made invalid (else it is over first). */
    setenv("FEED_TEST_SLOW_MS", "10", 1);
    run_hostile("workers=3,prefetch=3,max_retries=100", 3, "13:300", "control", "slow:img_",
                FU_SANITIZED ? 20 : 200);
    unsetenv("FEED_TEST_SLOW_MS");
}

/* A clean run of opts, then one with fault: every epoch must be the clean
 * run's, each sample exactly once. Returns the faulty run's loader, for
 * the caller's own checks (it destroys it). */
static feed_loader *same_as_clean(const char *opts, const char *fault)
{
    static fu_run ref, got;
    feed_loader *L = fu_make(opts, NULL);
    fu_collect(L, EPOCHS, &ref, NULL, NULL);
    fu_assert_exactly_once(&ref);
    fu_destroy(L);
    L = fu_make(opts, fault);
    fu_collect(L, EPOCHS, &got, NULL, NULL);
    fu_assert_exactly_once(&got);
    fu_assert_same(&ref, &got, NULL);
    return L;
}

/* Code run by a codec bug stores 1 in every word of the header between the
 * configuration page and the worker records ("poke", fault.h) whenever its
 * worker decodes one of two samples. Nothing may follow from it: every epoch
 * is the clean run's, no worker dies. (It once set a shutdown word that
 * every worker and every replacement obeyed: next() failed for good with
 * "workers keep dying without finishing a sample".) */
static void test_control_words_poked(void **state)
{
    char fault[256];
    snprintf(fault, sizeof fault, "poke@publish:%s;poke@read:%s", fu_name(5), fu_name(NIMG / 2));
    feed_loader *L = same_as_clean("workers=3,prefetch=3", fault);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_restarts, 0);
    assert_int_equal(s.samples_delivered, EPOCHS * NIMG);
    /* It did poke: the last word before the records is padding no one else writes. */
    const char *h = (const char *)feed__loader_pool(L)->h;
    assert_int_equal(atomic_load((const _Atomic uint32_t *)(h + offsetof(feed__arena_hdr, workers) - 4)), 1);
    fu_destroy(L);
    fu_assert_no_children();
}

/* Code run by a codec bug makes its worker's configuration page writable
 * and keeps rewriting its layout version, seed and transform ("unseal",
 * fault.h: mprotect, else a fresh writable mapping of the arena's first
 * page) for 5 ms at every sample, in every worker; three workers also die
 * once each, so replacements attach while the others rewrite. Every epoch is
 * the clean run's and each replacement starts. (With the page only
 * mprotect'ed read-only, the rewritten seed and transform changed what every
 * worker produced, and replacements refused to start: "workers fail to
 * start ... arena: layout mismatch".) */
static void test_config_page_rewritten(void **state)
{
    char fault[4096];
    int n = 0;
    for (int k = 0; k < 3; k++)
        n += snprintf(fault + n, sizeof fault - (size_t)n, "exit1@decode:%s:%s/unseal-%d;", fu_name(7 + 29 * k),
                      fu_marks, k);
    snprintf(fault + n, sizeof fault - (size_t)n, "unseal:img_");
    feed_loader *L = same_as_clean("workers=3,prefetch=3", fault);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_restarts, 3);
    assert_int_equal(s.samples_delivered, EPOCHS * NIMG);
    assert_int_equal(feed_loader_bad_count(L), 0);
    /* It did rewrite: what the workers wrote is in the arena's own first page. */
    const feed__arena_hdr *h = feed__loader_pool(L)->h;
    assert_int_equal(h->layout_version, FEED_ARENA_VERSION + 1);
    assert_int_equal(h->seed, 0x5eed5eedull);
    fu_destroy(L);
    fu_assert_no_children();
}

/* The report of the one bad sample whose path ends with name (fails if none). */
static feed_bad_sample bad_report(feed_loader *L, const char *name)
{
    uint64_t n = feed_loader_bad_count(L);
    for (uint64_t i = 0; i < n; i++) {
        feed_bad_sample r = {.struct_size = sizeof r};
        assert_int_equal(feed_loader_bad_sample(L, i, &r), FEED_OK);
        size_t pl = strlen(r.path), nl = strlen(name);
        if (pl >= nl && !strcmp(r.path + pl - nl, name))
            return r;
    }
    fail_msg("no report for %s", name);
    feed_bad_sample none = {0};
    return none;
}

/* Runs an epoch with fault (an escape action on sample 3, fault.h) and
 * asserts the action was refused: the worker exited FEED_FAULT_REFUSED, the
 * sample quarantined (max_retries=0), every other sample delivered. */
static void expect_refused(const char *opts, const char *fault)
{
    char want[64];
    snprintf(want, sizeof want, "exited with status %d", FEED_FAULT_REFUSED);
    feed_loader *L = fu_make(opts, fault);
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    uint64_t n = 0;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        n += b.count;
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    if (st != FEED_END_OF_EPOCH)
        fail_msg("next: %s: %s", feed_status_name(st), feed_loader_last_error(L));
    assert_int_equal(n, feed_loader_samples_per_epoch(L));
    feed_bad_sample r = bad_report(L, fu_name(3));
    assert_int_equal(r.status, FEED_E_WORKER);
    if (!strstr(r.message, want))
        fail_msg("%s: %s", opts, r.message);
    fu_destroy(L);
}

/* A worker cannot make its configuration page writable: mprotect and a fresh
 * writable shared mapping of its memfd both fail ("mprotect", fault.h), with
 * the sandbox and without: the worker exits FEED_FAULT_REFUSED, and its
 * sample is quarantined (max_retries=0). (mprotect worked while the page was
 * only mprotect'ed read-only: FEED_FAULT_ESCAPED.) */
static void test_config_page_stays_sealed(void **state)
{
    char fault[256];
    snprintf(fault, sizeof fault, "mprotect:%s", fu_name(3));
    expect_refused("workers=1,max_retries=0,shuffle=false,sandbox=0", fault);
    expect_refused("workers=1,max_retries=0,shuffle=false,sandbox=1", fault);
    fu_assert_no_children();
}

/* Without the sandbox (which refuses ftruncate), a worker cannot change the
 * arena's size: shrunk, the parent would SIGBUS on the pages cut off. */
static void test_arena_size_sealed(void **state)
{
    char fault[256];
    snprintf(fault, sizeof fault, "resize:%s", fu_name(3));
    expect_refused("workers=1,max_retries=0,shuffle=false,sandbox=0", fault);
    fu_assert_no_children();
}

/* The boundary values of every slot-header field the parent reads (count,
 * seq, epoch, index, gen, phase, ticket: 0, 1, batch_size - 1 and + 1, the
 * largest), written by a worker into every slot header as it publishes one
 * sample ("hdr@publish", fault.h): the parent puts each header back, and the
 * epochs deliver every sample exactly once with the pixels of a clean run.
 * Each run writes once (a marker file), after which the sample is done
 * again. (A count of 1 left in place makes the workers stop claiming after the
 * first sample of a batch: next() would wait for ever, and time out here.) */
static void test_slot_header_boundaries(void **state)
{
    static fu_run ref, got;
    const char *opts = "workers=2,shuffle=false";
    feed_loader *L = fu_make(opts, NULL);
    fu_collect(L, 2, &ref, NULL, NULL);
    fu_destroy(L);
    static const char *const fields[] = {"count", "seq", "epoch", "index", "gen", "phase", "ticket"};
    static const char *const values[] = {"0", "1", "bs-1", "bs+1", "max"};
    char *dir = tu_mkdtemp("fhostile-hdr");
    char fault[8400], hdr[64];
    for (size_t f = 0; f < FEED_ARRAY_SIZE(fields); f++)
        for (size_t v = 0; v < FEED_ARRAY_SIZE(values); v++) {
            /* once per run (the marker file): a worker that wrote the header on
             * every try of the sample would have the batch redone for ever */
            snprintf(fault, sizeof fault, "hdr1@publish:%s:%s/once-%zu-%zu", fu_name(5), dir, f, v);
            snprintf(hdr, sizeof hdr, "%s=%s", fields[f], values[v]);
            setenv("FEED_TEST_HDR", hdr, 1);
            print_message("slot header %s\n", hdr);
            L = fu_make(opts, fault);
            fu_collect(L, 2, &got, NULL, NULL);
            fu_assert_exactly_once(&got);
            fu_assert_same(&ref, &got, NULL);
            fu_destroy(L);
        }
    unsetenv("FEED_TEST_HDR");
    tu_rmtree(dir);
    free(dir);
    fu_assert_no_children();
}

/* The dataset index a worker gets is a memfd sealed against writes, growth,
 * shrinking and new seals (dataset/index.c): in the worker, F_GET_SEALS says
 * so and a writable shared mapping, a pwrite and an ftruncate of fd 4 all
 * fail ("index", fault.h; sandbox=0, which would refuse pwrite and ftruncate
 * on its own). The control: the same tries on this process's own memfds,
 * one unsealed and one sealed but for F_SEAL_WRITE, find what they leave
 * open, so the check can fail. */
static void test_index_sealed(void **state)
{
    int open_fd = memfd_create("ix-control", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    assert_true(open_fd >= 0);
    assert_int_equal(write(open_fd, "libfeed index control", 21), 21);
    assert_int_equal(feed__fault_index_writable(open_fd),
                     FEED_FAULT_IX_SEALS | FEED_FAULT_IX_MMAP | FEED_FAULT_IX_PWRITE | FEED_FAULT_IX_RESIZE);
    assert_int_equal(fcntl(open_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
    assert_int_equal(feed__fault_index_writable(open_fd),
                     FEED_FAULT_IX_SEALS | FEED_FAULT_IX_MMAP | FEED_FAULT_IX_PWRITE);
    close(open_fd);

    char fault[256];
    snprintf(fault, sizeof fault, "index:%s", fu_name(3));
    expect_refused("workers=1,max_retries=0,shuffle=false,sandbox=0", fault);
    fu_assert_no_children();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_one_hostile_worker),
        TU_TEST(test_all_workers_sometimes),
        TU_TEST(test_control_words_poked),
        TU_TEST(test_control_words_scribbled),
        TU_TEST(test_config_page_rewritten),
        TU_TEST(test_config_page_stays_sealed),
        TU_TEST(test_arena_size_sealed),
        TU_TEST(test_index_sealed),
        TU_TEST(test_slot_header_boundaries),
    };
    const char *filter = getenv("FEED_TEST_FILTER"); /* scripts/mutants: one case */
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, setup, teardown);
}

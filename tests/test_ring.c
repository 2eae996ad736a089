/*
 * test_ring.c - the slot state machine and tickets, with producers in several
 * processes (forked from this single-threaded test, which is safe here).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/arena.h"
#include "arena/ring.h"

#define SAMPLE_BYTES 64

static feed__arena make_arena(uint32_t nslots, uint32_t batch, uint32_t workers)
{
    feed__arena a;
    char err[256];
    feed__arena_geom g = {nslots, batch, workers, SAMPLE_BYTES, 0, 0};
    assert_int_equal(feed__arena_create(&a, &g, err, sizeof err), FEED_OK);
    a.cfg->max_retries = 2;
    return a;
}

/* What a producer writes for (seq, t): every byte depends on both. */
static uint8_t pattern(uint64_t seq, uint32_t t, uint32_t k)
{
    return (uint8_t)(seq * 131 + t * 7 + k * 3 + 1);
}

static void fill(feed__arena *h, const feed__claim *c)
{
    feed__slot_hdr *s = feed__slot(h, c->slot);
    uint8_t *px = feed__slot_pixels(h, c->slot) + (uint64_t)c->t * h->lay.sample_bytes;
    for (uint32_t k = 0; k < h->lay.sample_bytes; k++)
        px[k] = pattern(s->seq, c->t, k);
    feed__slot_labels(h, c->slot)[c->t] = (int32_t)feed__slot_recs(h, c->slot)[c->t].sample_id;
}

/* A mapping of the test's own, shared with the producers: the arena has no
 * word that stops a worker (see arena/arena.h), nor a tally of samples it keeps. */
typedef struct {
    _Atomic uint32_t stop;
    _Atomic uint64_t done; /* samples the producers filled */
} shared_ctl;

/* A producer process: claim, fill, complete until ctl->stop. */
static void producer(feed__arena *h, uint32_t w, shared_ctl *ctl)
{
    while (!atomic_load(&ctl->stop)) {
        uint32_t seen = atomic_load(&h->hdr->work_seq);
        feed__claim c;
        if (!feed__ring_claim(h, w, &c)) {
            feed__futex_wait(&h->hdr->work_seq, seen, 200000000ll);
            continue;
        }
        fill(h, &c);
        atomic_fetch_add(&ctl->done, 1);
        if (feed__ring_complete(h, w, &c) != 0)
            _exit(9);
    }
    _exit(0);
}

static void wait_ready(feed__arena *h, uint32_t slot, uint64_t seq)
{
    for (;;) {
        uint32_t seen = atomic_load(&h->hdr->done_seq);
        if (feed__ring_ready(h, slot, seq))
            return;
        atomic_store(&h->hdr->consumer_waiting, 1);
        if (atomic_load(&h->hdr->done_seq) == seen)
            feed__futex_wait(&h->hdr->done_seq, seen, 1000000000ll);
        atomic_store(&h->hdr->consumer_waiting, 0);
    }
}

static void assign(feed__arena *h, uint64_t seq, uint32_t count)
{
    uint64_t ids[256];
    for (uint32_t t = 0; t < count; t++)
        ids[t] = seq * 1000 + t;
    assert_int_equal(feed__ring_assign(h, (uint32_t)(seq % h->lay.nslots), seq, 0, seq, count, ids, NULL, NULL), 0);
}

static void check_batch(feed__arena *h, uint64_t seq, uint32_t count)
{
    uint32_t slot = (uint32_t)(seq % h->lay.nslots);
    for (uint32_t t = 0; t < count; t++) {
        const uint8_t *px = feed__slot_pixels(h, slot) + (uint64_t)t * h->lay.sample_bytes;
        for (uint32_t k = 0; k < h->lay.sample_bytes; k++)
            if (px[k] != pattern(seq, t, k))
                fail_msg("seq %llu sample %u byte %u: %u != %u", (unsigned long long)seq, t, k, px[k],
                         pattern(seq, t, k));
        assert_int_equal(feed__slot_labels(h, slot)[t], (int32_t)(seq * 1000 + t));
    }
}

/* Single process: claims come in ticket order, an unfilled ring has nothing
 * to claim, a batch is ready only when all samples are done and only for its
 * own seq, and a slot with a claim cannot be reassigned. */
static void test_single_process_states(void **state)
{
    feed__arena a = make_arena(2, 4, 1);
    feed__arena *h = &a;
    feed__claim c;
    assert_int_equal(feed__ring_claim(h, 0, &c), 0); /* empty */
    assign(h, 0, 3);
    assign(h, 1, 4);
    assert_int_equal(feed__ring_ready(h, 0, 0), 0);
    /* Oldest batch first, in ticket order. */
    for (uint32_t t = 0; t < 3; t++) {
        assert_int_equal(feed__ring_claim(h, 0, &c), 1);
        assert_int_equal(c.slot, 0);
        assert_int_equal(c.t, t);
        fill(h, &c);
        assert_int_equal(feed__ring_ready(h, 0, 0), 0);
        assert_int_equal(feed__ring_complete(h, 0, &c), 0);
    }
    assert_int_equal(feed__ring_ready(h, 0, 0), 1);
    assert_int_equal(feed__ring_ready(h, 0, 2), 0); /* not that seq */
    check_batch(h, 0, 3);
    /* Next claim goes to batch 1; while claimed its slot cannot be reassigned. */
    assert_int_equal(feed__ring_claim(h, 0, &c), 1);
    assert_int_equal(c.slot, 1);
    uint64_t ids[4] = {0};
    assert_int_equal(feed__ring_assign(h, 1, 3, 0, 3, 4, ids, NULL, NULL), -1);
    /* Completing with a stale gen fails. */
    feed__claim stale = c;
    stale.gen ^= 1;
    assert_int_equal(feed__ring_complete(h, 0, &stale), -1);
    assert_int_equal(feed__ring_complete(h, 0, &c), 0);
    /* Full: slot 0 is ready and unreleased, batch 1 claimed out: nothing more
     * after the remaining three samples of batch 1. */
    for (int k = 0; k < 3; k++) {
        assert_int_equal(feed__ring_claim(h, 0, &c), 1);
        assert_int_equal(feed__ring_complete(h, 0, &c), 0);
    }
    assert_int_equal(feed__ring_claim(h, 0, &c), 0);
    assert_int_equal(feed__ring_ready_count(h), 2);
    /* Release slot 0 by reassigning it: ready no more, claimable again. */
    assign(h, 2, 4);
    assert_int_equal(feed__ring_ready(h, 0, 2), 0);
    assert_int_equal(feed__ring_claim(h, 0, &c), 1);
    assert_int_equal(c.slot, 0);
    feed__arena_close(&a);
}

/* A dead worker's claims go back to the pool and count an attempt; past
 * max_retries the sample is poisoned. */
static void test_reclaim(void **state)
{
    feed__arena a = make_arena(2, 4, 2);
    feed__arena *h = &a;
    assign(h, 0, 4);
    feed__claim c0, c1;
    assert_int_equal(feed__ring_claim(h, 0, &c0), 1);
    assert_int_equal(feed__ring_claim(h, 1, &c1), 1);
    assert_int_equal(feed__ring_reclaim(h, 0), 1); /* worker 0 "died" */
    assert_int_equal(feed__ring_complete(h, 0, &c0), -1); /* its claim is void */
    assert_int_equal(feed__ring_complete(h, 1, &c1), 0);
    feed__sample_rec *r = &feed__slot_recs(h, 0)[c0.t];
    assert_int_equal(atomic_load(&r->attempts), 1);
    assert_int_equal(atomic_load(&r->poisoned), 0);
    /* The reclaimed sample is found again by the fallback scan; die twice more. */
    int seen_again = 0;
    for (int round = 0; round < 2; round++) {
        feed__claim c;
        for (;;) {
            assert_int_equal(feed__ring_claim(h, 1, &c), 1);
            if (c.t == c0.t)
                break;
            assert_int_equal(feed__ring_complete(h, 1, &c), 0);
        }
        seen_again++;
        assert_int_equal(feed__ring_reclaim(h, 1), 1);
    }
    assert_int_equal(seen_again, 2);
    assert_int_equal(atomic_load(&r->attempts), 3);
    assert_int_equal(atomic_load(&r->poisoned), 1); /* 3 > max_retries 2 */
    feed__claim c;
    assert_int_equal(feed__ring_claim(h, 0, &c), 1);
    assert_int_equal(c.t, c0.t);
    assert_int_equal(feed__ring_complete(h, 0, &c), 0);
    assert_int_equal(feed__ring_ready(h, 0, 0), 1);
    feed__arena_close(&a);
}

/* Drain: a FILLING slot stops handing out samples; drain reports busy while a
 * claim is out and succeeds once it completes. */
static void test_drain(void **state)
{
    feed__arena a = make_arena(2, 4, 1);
    feed__arena *h = &a;
    assign(h, 0, 4);
    feed__claim c;
    assert_int_equal(feed__ring_claim(h, 0, &c), 1);
    assert_int_equal(feed__ring_drain(h, 0), -1);
    feed__claim d;
    assert_int_equal(feed__ring_claim(h, 0, &d), 0); /* nothing more from it */
    assert_int_equal(feed__ring_complete(h, 0, &c), 0);
    assert_int_equal(feed__ring_drain(h, 0), 0);
    assign(h, 2, 4); /* reusable */
    assert_int_equal(feed__ring_claim(h, 0, &d), 1);
    assert_int_equal(d.slot, 0);
    feed__arena_close(&a);
}

/* Producers in several processes fill many batches through a small ring;
 * batches are consumed in order, every sample exactly once with its own
 * bytes. One producer is SIGKILLed part-way and its claims reclaimed. */
static void run_multiprocess(uint32_t nworkers, int kill_one)
{
    const uint32_t B = 16, S = 3, NB = 200;
    feed__arena a = make_arena(S, B, nworkers);
    feed__arena *h = &a;
    shared_ctl *ctl = mmap(NULL, sizeof *ctl, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(ctl != MAP_FAILED);
    atomic_store(&ctl->stop, 0);
    atomic_store(&ctl->done, 0);
    pid_t pids[8];
    for (uint32_t w = 0; w < nworkers; w++) {
        pids[w] = fork();
        assert_true(pids[w] >= 0);
        if (pids[w] == 0)
            producer(h, w, ctl);
    }
    for (uint64_t seq = 0; seq < S; seq++)
        assign(h, seq, B);
    uint64_t total = 0;
    for (uint64_t seq = 0; seq < NB; seq++) {
        if (kill_one && seq == NB / 3) {
            kill(pids[0], SIGKILL);
            int st;
            assert_int_equal(waitpid(pids[0], &st, 0), pids[0]);
            assert_true(WIFSIGNALED(st));
            feed__ring_reclaim(h, 0);
            pids[0] = 0;
        }
        uint32_t count = seq == NB - 1 ? B - 5 : B;
        wait_ready(h, (uint32_t)(seq % S), seq);
        check_batch(h, seq, seq == NB - 1 ? B - 5 : B);
        total += count;
        if (seq + S < NB)
            assign(h, seq + S, seq + S == NB - 1 ? B - 5 : B);
    }
    assert_int_equal(total, (uint64_t)(NB - 1) * B + B - 5);
    atomic_store(&ctl->stop, 1);
    feed__futex_bump(&h->hdr->work_seq);
    for (uint32_t w = 0; w < nworkers; w++) {
        if (!pids[w])
            continue;
        int st;
        assert_int_equal(waitpid(pids[w], &st, 0), pids[w]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
    uint64_t done = atomic_load(&ctl->done);
    /* Without a kill every sample is produced exactly once; a killed producer
     * may have filled a sample and died before completing it (redone). */
    if (!kill_one)
        assert_int_equal(done, total);
    else
        assert_true(done >= total && done <= total + 1);
    /* The ring's own count has each sample once, killed producer or not. */
    assert_int_equal(feed__ring_progress(h), total);
    munmap(ctl, sizeof *ctl);
    feed__arena_close(&a);
}

static void test_multiprocess_4(void **state)
{
    run_multiprocess(4, 0);
}

static void test_multiprocess_1(void **state)
{
    run_multiprocess(1, 0);
}

static void test_multiprocess_kill(void **state)
{
    run_multiprocess(3, 1);
}

/* The configuration is FEED_ARENA_PAGE_MAX (64 KiB) bytes and the header and
 * every slot start on a multiple of it: whole pages on 4, 16 and 64 KiB
 * kernels, so a worker can map the sealed configuration over the start of
 * its arena mapping on any of them (this machine has 4 KiB pages: the
 * layout is what can be checked here). */
static void test_layout_whole_largest_pages(void **state)
{
    feed__arena a = make_arena(3, 5, 2), b;
    assert_int_equal(FEED_ARENA_CFG_BYTES, 65536);
    assert_int_equal(offsetof(feed__arena_hdr, work_seq) % 65536, 0);
    assert_int_equal(a.lay.hdr_bytes % 65536, 0);
    assert_int_equal(a.lay.slot_stride % 65536, 0);
    a.cfg->seed = 0x1234567890abcdefull;
    char err[256];
    assert_int_equal(feed__arena_seal_config(&a, err, sizeof err), FEED_OK);
    struct stat sb;
    assert_int_equal(fstat(a.cfg_fd, &sb), 0);
    assert_int_equal(sb.st_size, 65536);
    /* A worker's view: the sealed copy over the first 64 KiB, read-only. */
    assert_int_equal(feed__arena_attach(&b, dup(a.fd), dup(a.cfg_fd), err, sizeof err), FEED_OK);
    assert_int_equal(b.hdr->seed, 0x1234567890abcdefull);
    assert_int_equal(b.lay.slot_stride, a.lay.slot_stride);
    feed__arena_close(&b);
    feed__arena_close(&a);
}

/* Workers choose among FILLING slots by the seq in each slot's shared
 * header, which a worker can write: when several headers show the same seq
 * (or any order), every slot is still offered, so no batch is left unclaimed
 * (the parent puts the headers back only for the batch it waits on). */
static void test_claim_visits_equal_seqs(void **state)
{
    feed__arena a = make_arena(4, 2, 1);
    feed__arena *h = &a;
    for (uint64_t seq = 0; seq < 4; seq++)
        assign(h, seq, 2);
    static const uint64_t shown[][4] = {{7, 7, 7, 7}, {1, 1, 0, 0}, {9, 3, 3, 1}};
    for (size_t k = 0; k < sizeof shown / sizeof *shown; k++) {
        for (uint32_t i = 0; i < 4; i++)
            feed__slot(h, i)->seq = shown[k][i];
        feed__claim c[8];
        uint32_t per_slot[4] = {0};
        for (int n = 0; n < 8; n++) {
            if (!feed__ring_claim(h, 0, &c[n]))
                fail_msg("headers %llu %llu %llu %llu: claim %d of 8 found nothing",
                         (unsigned long long)shown[k][0], (unsigned long long)shown[k][1],
                         (unsigned long long)shown[k][2], (unsigned long long)shown[k][3], n);
            per_slot[c[n].slot]++;
        }
        for (uint32_t i = 0; i < 4; i++)
            assert_int_equal(per_slot[i], 2);
        /* give the claims back as a dead worker's, for the next headers */
        assert_int_equal(feed__ring_reclaim(h, 0), 8);
        for (uint32_t i = 0; i < 4; i++)
            atomic_store(&feed__slot(h, i)->ticket, 0);
    }
    feed__arena_close(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_process_states),
        cmocka_unit_test(test_reclaim),
        cmocka_unit_test(test_drain),
        cmocka_unit_test(test_multiprocess_1),
        cmocka_unit_test(test_multiprocess_4),
        cmocka_unit_test(test_multiprocess_kill),
        cmocka_unit_test(test_layout_whole_largest_pages),
        cmocka_unit_test(test_claim_visits_equal_seqs),
    };
    const char *filter = getenv("FEED_TEST_FILTER"); /* scripts/mutants: one case */
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, NULL);
}

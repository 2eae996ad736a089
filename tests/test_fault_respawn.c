/*
 * test_fault_respawn.c - respawning is safe in a multithreaded host. Two host
 * threads hammer locks a fork()ed child would inherit held (malloc's arenas,
 * stdio's list lock, the dynamic loader's lock) while workers are killed and
 * respawned 500 times and the consumer keeps taking batches: no deadlock,
 * every respawn runs, every sample of every epoch is delivered exactly once
 * with its label, and the counters agree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>

#include "faultutil.h"

#define NIMG 16
#define RESPAWNS 500

static int setup(void **state)
{
    fu_setup_data("frespawn", NIMG, 2);
    return 0;
}

static int teardown(void **state)
{
    fu_teardown_data();
    return 0;
}

static atomic_int stop;
static atomic_ulong hammered;

static void *hammer(void *arg)
{
    uint64_t x = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
    void *keep[64] = {0};
    while (!atomic_load(&stop)) {
        for (int i = 0; i < 64; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t n = (size_t)(x % 65536) + 1;
            free(keep[i]);
            keep[i] = malloc(n);
            if (keep[i])
                memset(keep[i], (int)i, n < 64 ? n : 64);
        }
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            fprintf(f, "%llu\n", (unsigned long long)x);
            fclose(f);
        }
        if ((x & 7) == 0) {
            void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
            if (h)
                dlclose(h);
        }
        atomic_fetch_add(&hammered, 1);
    }
    for (int i = 0; i < 64; i++)
        free(keep[i]);
    return NULL;
}

typedef struct tally {
    uint64_t epoch;
    uint8_t seen[FU_MAX_N];
    uint64_t epochs_done, batches;
} tally;

static void take_batch(feed_loader *L, tally *t)
{
    feed_batch b = {.struct_size = sizeof b};
    feed_status st = feed_loader_next(L, &b, 60000);
    if (st == FEED_END_OF_EPOCH) {
        for (uint64_t id = 0; id < NIMG; id++)
            assert_int_equal(t->seen[id], 1);
        memset(t->seen, 0, sizeof t->seen);
        t->epochs_done++;
        t->epoch++;
        st = feed_loader_next(L, &b, 60000);
    }
    if (st != FEED_OK)
        fail_msg("next: %s: %s", feed_status_name(st), feed_loader_last_error(L));
    assert_int_equal(b.epoch, t->epoch);
    assert_int_equal(b.bad, 0);
    for (uint32_t i = 0; i < b.count; i++) {
        uint64_t id = b.sample_ids[i];
        assert_true(id < NIMG);
        assert_int_equal(t->seen[id], 0);
        t->seen[id] = 1;
        assert_int_equal(b.labels[i], feed__index_label(fu_ix.hdr, id));
    }
    t->batches++;
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
}

static void test_respawn_500_with_hammering_threads(void **state)
{
    /* max_retries at its maximum: a sample held by three killed workers in a row
     * is legitimately quarantined, and kills here come right after respawns. */
    feed_loader *L = fu_make("workers=2,prefetch=2,max_retries=100", NULL);
    pthread_t th[2];
    atomic_store(&stop, 0);
    for (uintptr_t i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, hammer, (void *)(i + 1)), 0);
    tally t = {0};
    for (uint32_t k = 0; k < RESPAWNS; k++) {
        fu_kill_worker(L, k % 2, SIGKILL);
        if (k % 3 == 0) /* work arrives right after a respawn */
            take_batch(L, &t);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    assert_true(atomic_load(&hammered) > 0);
    /* Finish this epoch, then one more whole one. */
    const uint64_t nb = NIMG / FU_BATCH;
    while (t.batches % nb)
        take_batch(L, &t);
    for (uint64_t i = 0; i < nb; i++)
        take_batch(L, &t);
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_END_OF_EPOCH);
    for (uint64_t id = 0; id < NIMG; id++)
        assert_int_equal(t.seen[id], 1);
    assert_true(t.epochs_done >= 2);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_restarts, RESPAWNS);
    assert_int_equal(s.samples_delivered, t.batches * FU_BATCH);
    print_message("%d respawns, %llu batches, %llu samples redone, %lu hammer rounds\n", RESPAWNS,
                  (unsigned long long)t.batches, (unsigned long long)s.samples_redone,
                  atomic_load(&hammered));
    fu_destroy(L);
    fu_assert_no_children();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_respawn_500_with_hammering_threads),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

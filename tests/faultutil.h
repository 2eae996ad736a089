/*
 * faultutil.h - shared by the fault tests (test_fault_*.c): a small dataset,
 * loaders with test hooks, and exact-delivery checks against a run without
 * faults. Include after <cmocka.h>.
 *
 * Exact delivery is checked per sample: a reference run records, for every
 * (epoch, batch, position), the sample id, its flags and a hash of its pixels
 * and label, and for every (epoch, id) the hash that id's pixels have in that
 * epoch (pixels depend only on seed, epoch and id). A faulty run must give
 * the same ids, flags and hashes at the same positions; where the test says a
 * sample is quarantined, the position must instead hold the sample's first
 * substitute, flagged, with exactly the pixels that substitute has in the
 * reference.
 */
#ifndef FEED_FAULTUTIL_H
#define FEED_FAULTUTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dataset/index.h"
#include "feed.h"
#include "hooks/loader_test.h"
#include "supervise/pool.h"
#include "testutil.h"
#include "worker/loop.h"

#define FU_SIDE 48
#define FU_BATCH 4
#define FU_SEED 77
#define FU_MAX_N 128
#define FU_MAX_EPOCHS 8

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FU_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FU_SANITIZED 1
#endif
#endif
#ifndef FU_SANITIZED
#define FU_SANITIZED 0
#endif

static char *fu_data;     /* the dataset: ROOT/class_k/img_NNNNNN.jpg */
static feed__index fu_ix; /* the test's own index of it (paths, labels) */
static char *fu_marks;    /* a folder for the fault hooks' once-only markers */

/* Makes the dataset (n images, k classes) and indexes it; exits on failure
 * (cmocka 1.1.5 counts a failing group setup as a pass). */
static inline void fu_setup_data(const char *tag, int n, int classes)
{
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* crashing workers write no core files */
    fu_data = tu_mkdtemp(tag);
    chmod(fu_data, 0755);
    char mtag[64];
    snprintf(mtag, sizeof mtag, "%s-marks", tag);
    fu_marks = tu_mkdtemp(mtag);
    char err[512];
    if (tu_mkdata(fu_data, n, 5, classes) != 0) {
        fprintf(stderr, "feed-mkdata failed\n");
        exit(1);
    }
    if (feed__index_build(&fu_ix, fu_data, "", err, sizeof err) != FEED_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    if (fu_ix.hdr->count > FU_MAX_N) {
        fprintf(stderr, "dataset too large for the tests\n");
        exit(1);
    }
}

static inline void fu_teardown_data(void)
{
    feed__index_free(&fu_ix);
    tu_rmtree(fu_data);
    free(fu_data);
    tu_rmtree(fu_marks);
    free(fu_marks);
}

static inline uint64_t fu_nsamples(void)
{
    return fu_ix.hdr->count;
}

/* Index of the sample whose path ends with name (a test bug if none). */
static inline uint64_t fu_id_of(const char *name)
{
    size_t nl = strlen(name);
    for (uint64_t i = 0; i < fu_ix.hdr->count; i++) {
        const char *p = feed__index_path(fu_ix.hdr, i);
        size_t pl = strlen(p);
        if (pl >= nl && !strcmp(p + pl - nl, name))
            return i;
    }
    fail_msg("no sample named %s", name);
    return 0;
}

/* The file name (after the last '/') of sample id. */
static inline const char *fu_name(uint64_t id)
{
    const char *p = feed__index_path(fu_ix.hdr, id);
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Options for the tests: small output, a fixed seed, train augmentation (so
 * pixels depend on (seed, epoch, id) through random crops and flips), then
 * extra ("key=value,..."). */
static inline void fu_options(feed_options *o, const char *source, const char *extra)
{
    char err[512];
    feed_options_init(o, sizeof *o);
    snprintf(o->source, sizeof o->source, "%s", source ? source : fu_data);
    o->batch_size = FU_BATCH;
    o->height = o->width = FU_SIDE;
    o->resize_shorter = 56;
    o->seed = FU_SEED;
    o->augment = FEED_AUGMENT_TRAIN;
    o->workers = 2;
    o->prefetch = 3;
    if (extra && feed_options_parse(o, extra, err, sizeof err) != FEED_OK)
        fail_msg("options '%s': %s", extra, err);
}

/* Creates a loader with FEED_TEST_FAULT=fault (NULL: none) in the
 * environment the workers inherit; the variable stays set until
 * fu_destroy(), so respawned workers get it too. */
static inline feed_loader *fu_make_src(const char *source, const char *extra, const char *fault)
{
    feed_options o;
    fu_options(&o, source, extra);
    if (fault)
        setenv("FEED_TEST_FAULT", fault, 1);
    else
        unsetenv("FEED_TEST_FAULT");
    char err[1024];
    feed_loader *L = NULL;
    feed_status st = feed_loader_create(&L, &o, err, sizeof err);
    if (st != FEED_OK)
        fail_msg("create (%s): %s: %s", extra ? extra : "", feed_status_name(st), err);
    return tu_hold(L);
}

static inline feed_loader *fu_make(const char *extra, const char *fault)
{
    return fu_make_src(NULL, extra, fault);
}

static inline void fu_destroy(feed_loader *L)
{
    tu_drop(L);
    unsetenv("FEED_TEST_FAULT");
}

static inline uint64_t fu_hash(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Hash of sample i of a batch: pixels and label. */
static inline uint64_t fu_sample_hash(const feed_batch *b, uint32_t i)
{
    uint64_t h = fu_hash(0xcbf29ce484222325ull, (const uint8_t *)b->data + i * b->sample_bytes,
                         b->sample_bytes);
    return fu_hash(h, &b->labels[i], sizeof b->labels[i]);
}

/* What a run delivered, position by position. */
typedef struct fu_run {
    uint32_t epochs;
    uint64_t epoch0;               /* the first epoch's number */
    uint64_t nbatches;             /* per epoch */
    uint64_t n;                    /* samples per epoch */
    uint64_t id[FU_MAX_EPOCHS][FU_MAX_N];
    uint64_t hash[FU_MAX_EPOCHS][FU_MAX_N];
    uint8_t flags[FU_MAX_EPOCHS][FU_MAX_N];
    uint64_t by_id[FU_MAX_EPOCHS][FU_MAX_N]; /* hash of id's pixels in that epoch (0: not seen) */
    uint32_t delivered[FU_MAX_EPOCHS][FU_MAX_N]; /* times id was delivered (not as a substitute) */
    uint64_t batches;
} fu_run;

/* Called after each batch is released (kills go here). */
typedef void (*fu_between_fn)(feed_loader *L, uint64_t batch_no, void *ctx);

/* Runs `epochs` epochs (next with a generous timeout, release at once) into
 * r, calling between() after each release. Checks the shape of every batch
 * and the epoch boundaries; returns the statuses other than OK/END_OF_EPOCH
 * only through a test failure. */
static inline void fu_collect(feed_loader *L, uint32_t epochs, fu_run *r, fu_between_fn between,
                              void *ctx)
{
    memset(r, 0, sizeof *r);
    r->epochs = epochs;
    r->nbatches = feed_loader_batches_per_epoch(L);
    r->n = feed_loader_samples_per_epoch(L);
    assert_true(r->n <= FU_MAX_N && epochs <= FU_MAX_EPOCHS);
    uint64_t at;
    assert_int_equal(feed_loader_position(L, &r->epoch0, &at), FEED_OK);
    assert_int_equal(at, 0); /* whole epochs only */
    for (uint32_t e = 0; e < epochs; e++) {
        feed_batch b = {.struct_size = sizeof b};
        feed_status st;
        uint64_t pos = 0, nb = 0;
        while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
            assert_int_equal(b.epoch, r->epoch0 + e);
            assert_int_equal(b.index, nb);
            assert_int_equal(b.height, FU_SIDE);
            assert_int_equal(b.sample_bytes, FU_SIDE * FU_SIDE * 3);
            uint32_t bad = 0;
            for (uint32_t i = 0; i < b.count; i++, pos++) {
                assert_true(pos < r->n);
                uint64_t id = b.sample_ids[i];
                assert_true(id < fu_nsamples());
                assert_int_equal(b.labels[i], feed__index_label(fu_ix.hdr, id));
                uint64_t h = fu_sample_hash(&b, i);
                r->id[e][pos] = id;
                r->hash[e][pos] = h;
                r->flags[e][pos] = b.flags[i];
                if (b.flags[i] & FEED_SAMPLE_REPLACED)
                    bad++;
                else
                    r->delivered[e][id]++;
                if (r->by_id[e][id])
                    assert_int_equal(r->by_id[e][id], h); /* an id has one look per epoch */
                r->by_id[e][id] = h;
            }
            assert_int_equal(b.bad, bad);
            assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
            r->batches++;
            nb++;
            if (between)
                between(L, r->batches, ctx);
        }
        if (st != FEED_END_OF_EPOCH)
            fail_msg("epoch %u batch %llu: next returned %s: %s", e, (unsigned long long)nb,
                     feed_status_name(st), feed_loader_last_error(L));
        assert_int_equal(nb, r->nbatches);
        assert_int_equal(pos, r->n);
    }
}

/* Every sample of every epoch delivered exactly once, nothing replaced. */
static inline void fu_assert_exactly_once(const fu_run *r)
{
    for (uint32_t e = 0; e < r->epochs; e++)
        for (uint64_t id = 0; id < fu_nsamples(); id++)
            if (r->delivered[e][id] != 1)
                fail_msg("epoch %u: sample %llu (%s) delivered %u times", e, (unsigned long long)id,
                         fu_name(id), r->delivered[e][id]);
}

/* got equals ref position by position, except that each sample id with
 * quarantined[id] set must be replaced by its first substitute (flagged,
 * with the substitute's reference pixels). */
static inline void fu_assert_same(const fu_run *ref, const fu_run *got, const uint8_t *quarantined)
{
    assert_int_equal(got->epochs, ref->epochs);
    assert_int_equal(got->epoch0, ref->epoch0);
    assert_int_equal(got->n, ref->n);
    for (uint32_t e = 0; e < ref->epochs; e++)
        for (uint64_t p = 0; p < ref->n; p++) {
            uint64_t want = ref->id[e][p];
            if (quarantined && quarantined[want]) {
                uint64_t s = feed__substitute(FU_SEED, ref->epoch0 + e, want, 1, fu_nsamples());
                if (got->id[e][p] != s || !(got->flags[e][p] & FEED_SAMPLE_REPLACED) ||
                    got->hash[e][p] != ref->by_id[e][s])
                    fail_msg("epoch %u pos %llu: quarantined %s should be replaced by %s (flags %u), got "
                             "%s flags %u%s",
                             e, (unsigned long long)p, fu_name(want), fu_name(s), FEED_SAMPLE_REPLACED,
                             fu_name(got->id[e][p]), got->flags[e][p],
                             got->hash[e][p] != ref->by_id[e][s] ? " with other pixels" : "");
                continue;
            }
            if (got->id[e][p] != want || got->flags[e][p] != ref->flags[e][p] ||
                got->hash[e][p] != ref->hash[e][p])
                fail_msg("epoch %u pos %llu: want %s flags %u, got %s flags %u%s", e,
                         (unsigned long long)p, fu_name(want), ref->flags[e][p], fu_name(got->id[e][p]),
                         got->flags[e][p], got->hash[e][p] != ref->hash[e][p] ? ", pixels differ" : "");
        }
}

static inline feed_stats fu_stats(feed_loader *L)
{
    feed_stats s = {.struct_size = sizeof s};
    assert_int_equal(feed_loader_stats(L, &s), FEED_OK);
    return s;
}

/* Waits until worker i runs (a process other than not_pid), returns its pid. */
static inline pid_t fu_running(feed_loader *L, uint32_t i, pid_t not_pid)
{
    pid_t pid = feed__pool_wait_running(feed__loader_pool(L), i, not_pid, 30000);
    if (!pid)
        fail_msg("worker %u did not (re)start: %s", i, feed_loader_last_error(L));
    return pid;
}

/* Kills worker i with sig and waits for its replacement to run. */
static inline pid_t fu_kill_worker(feed_loader *L, uint32_t i, int sig)
{
    pid_t pid = fu_running(L, i, 0);
    assert_int_equal(kill(pid, sig), 0);
    return fu_running(L, i, pid);
}

/* Open file descriptors of this process. */
static inline int fu_count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *de;
    while ((de = readdir(d)))
        n += de->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the DIR's own */
}

/* Shared with test_loader.c: see testutil.h. */
#define fu_count_memfds tu_count_memfds
#define fu_count_dev_shm tu_count_dev_shm

/* No child process left, not even a zombie. */
static inline void fu_assert_no_children(void)
{
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

/* pid is no process at all (reaped, not a zombie). */
static inline int fu_gone(pid_t pid)
{
    return kill(pid, 0) == -1 && errno == ESRCH;
}

static inline void fu_copy_file(const char *from, const char *to)
{
    FILE *f = fopen(from, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    tu_write(to, b, (size_t)n);
    free(b);
}

/* Reads the whole file. */
static inline uint8_t *fu_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len + 1);
    assert_int_equal(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

#endif

/* test_sampler.c - the epoch order (a keyed bijection), rank shares, batch
 * boundaries, parts of an epoch (resume at another world or batch size), the
 * shard-window order (shuffle_window) and its per-thread tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/internal.h"
#include "loader/sampler.h"

static char *self_exe;

/* Every index in [0, n) exactly once: a bitmap of n bits. */
static void check_bijection(uint64_t n, uint64_t seed, uint64_t epoch)
{
    uint8_t *seen = calloc(n / 8 + 1, 1);
    assert_non_null(seen);
    feed__order o;
    feed__order_init(&o, n, seed, epoch, 1);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = feed__order_at(&o, i);
        if (v >= n || (seen[v / 8] >> (v % 8) & 1))
            fail_msg("n %llu seed %llu: position %llu -> %llu is out of range or taken twice",
                     (unsigned long long)n, (unsigned long long)seed, (unsigned long long)i,
                     (unsigned long long)v);
        seen[v / 8] |= (uint8_t)(1u << (v % 8));
    }
    free(seen);
}

static void test_bijection_many_n(void **state)
{
    static const uint64_t small[] = {1, 2, 3, 5, 7, 11, 13, 17, 31, 61, 97, 101, 1000, 1009, 4093, 65521};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        for (uint64_t seed = 0; seed < 4; seed++)
            check_bijection(small[i], seed, seed * 7);
    for (int k = 1; k <= 20; k++) { /* powers of two and their neighbours */
        uint64_t p = 1ull << k;
        check_bijection(p - 1, 11, 1);
        check_bijection(p, 11, 2);
        check_bijection(p + 1, 11, 3);
    }
    check_bijection(3000017, 5, 0); /* a few million */
}

static void test_keyed(void **state)
{
    const uint64_t n = 1000;
    uint64_t *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8);
    feed__sampler_permutation(n, 42, 3, 1, a);
    feed__sampler_permutation(n, 42, 3, 1, b);
    assert_memory_equal(a, b, n * 8); /* same seed and epoch: same order */
    feed__sampler_permutation(n, 42, 4, 1, c);
    uint64_t same = 0;
    for (uint64_t i = 0; i < n; i++)
        same += a[i] == c[i];
    assert_true(same < 20); /* another epoch: another order (expected ~1 in the same place) */
    feed__sampler_permutation(n, 43, 3, 1, c);
    same = 0;
    for (uint64_t i = 0; i < n; i++)
        same += a[i] == c[i];
    assert_true(same < 20); /* another seed too */
    uint64_t moved = 0;
    for (uint64_t i = 0; i < n; i++)
        moved += a[i] != i;
    assert_true(moved > n * 9 / 10);
    feed__sampler_permutation(n, 42, 3, 0, c); /* no shuffle: identity */
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(c[i], i);
    free(a), free(b), free(c);
}

/* Statistical sanity: bounds a correct shuffle fails with probability below
 * about 1e-5 each, and a degenerate one (a fixed first element, a rotation,
 * a handful of distinct orders, ascending runs) fails for sure. */
static void test_statistics(void **state)
{
    /* The first position's sample over 20000 seeds, n = 10: chi-square, 9 d.f. */
    enum { N10 = 10, SEEDS = 20000 };
    uint64_t cnt[N10] = {0};
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        feed__order o;
        feed__order_init(&o, N10, seed, 0, 1);
        cnt[feed__order_at(&o, 0)]++;
    }
    double chi = 0, e = (double)SEEDS / N10;
    for (int i = 0; i < N10; i++)
        chi += (cnt[i] - e) * (cnt[i] - e) / e;
    assert_true(chi < 40.0); /* P(chi2_9 > 40) ~ 7e-6 */

    /* Position x value for n = 5 over the seeds: every cell near 1/5. */
    enum { N5 = 5 };
    uint64_t cell[N5][N5] = {{0}};
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        feed__order o;
        feed__order_init(&o, N5, seed, 1, 1);
        for (uint64_t p = 0; p < N5; p++)
            cell[p][feed__order_at(&o, p)]++;
    }
    chi = 0, e = (double)SEEDS / N5;
    for (int p = 0; p < N5; p++)
        for (int v = 0; v < N5; v++)
            chi += (cell[p][v] - e) * (cell[p][v] - e) / e;
    assert_true(chi < 55.0); /* 16 d.f.: P(> 55) ~ 4e-6 */

    /* Within one order of 100000: ascending neighbours about half (sd ~ 91)
     * and the sum of |v - p| near n/3 per element. */
    const uint64_t n = 100000;
    feed__order o;
    feed__order_init(&o, n, 77, 5, 1);
    uint64_t up = 0, prev = feed__order_at(&o, 0);
    double disp = 0;
    for (uint64_t p = 1; p < n; p++) {
        uint64_t v = feed__order_at(&o, p);
        up += v > prev;
        disp += v > p ? (double)(v - p) : (double)(p - v);
        prev = v;
    }
    assert_true(up > (n - 1) / 2 - 500 && up < (n - 1) / 2 + 500);
    assert_true(disp / n > n / 3.0 * 0.97 && disp / n < n / 3.0 * 1.03);
}

/* O(1) memory: a sampler and an order are small fixed structs, nothing is
 * allocated (every allocation fails meanwhile), and a dataset of 10^12 or
 * 2^62 samples costs what one of 10 does. */
static void test_constant_memory(void **state)
{
    assert_true(sizeof(feed__sampler) <= 96 && sizeof(feed__order) <= 96);
    feed__alloc_fail_after(0);
    static const uint64_t huge[] = {1000000000000ull, 1ull << 62};
    for (int h = 0; h < 2; h++) {
        feed__sampler s;
        char err[128];
        assert_int_equal(feed__sampler_init(&s, huge[h], 256, 1, 0, 3, 8, 1, err, sizeof err), FEED_OK);
        uint64_t ids[256], seen = 0;
        for (uint64_t b = 0; b < 4; b++) {
            assert_int_equal(feed__sampler_batch(&s, 9, b * 1000003, ids), 256);
            for (int i = 0; i < 256; i++) {
                assert_true(ids[i] < huge[h]);
                seen ^= ids[i];
            }
        }
        assert_true(seen != 0);
    }
    feed__alloc_fail_after(-1);
}

/* The order computed by another process (this program, run again) is the
 * same: nothing but (n, seed, epoch) goes into it. */
static void test_same_in_another_process(void **state)
{
    const uint64_t n = 123457, seed = 2024, epoch = 17;
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        execl(self_exe, self_exe, "--order", "123457", "2024", "17", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    feed__order o;
    feed__order_init(&o, n, seed, epoch, 1);
    unsigned long long v;
    uint64_t p = 0;
    while (fscanf(f, "%llu", &v) == 1) {
        assert_int_equal(v, feed__order_at(&o, p));
        p++;
    }
    fclose(f);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    assert_int_equal(p, n);
}

static void test_batches(void **state)
{
    feed__sampler s;
    char err[256];
    uint64_t ids[64];
    /* 103 samples, batch 10: 11 batches, the last of 3. */
    assert_int_equal(feed__sampler_init(&s, 103, 10, 1, 0, 0, 1, 7, err, sizeof err), FEED_OK);
    assert_int_equal(s.nbatches, 11);
    char *seen = calloc(103, 1);
    uint64_t total = 0, perm[103];
    feed__sampler_permutation(103, 7, 5, 1, perm);
    for (uint64_t b = 0; b < s.nbatches; b++) {
        uint32_t n = feed__sampler_batch(&s, 5, b, ids);
        assert_int_equal(n, b == 10 ? 3 : 10);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(ids[i], perm[b * 10 + i]); /* the order, in order */
            assert_int_equal(seen[ids[i]], 0);
            seen[ids[i]] = 1;
        }
        total += n;
    }
    assert_int_equal(total, 103);
    assert_int_equal(feed__sampler_batch(&s, 5, 11, ids), 0);
    /* Interleaving epochs (the ring spans a boundary) gives the same batches. */
    uint64_t x[10], y[10];
    feed__sampler_batch(&s, 5, 2, x);
    feed__sampler_batch(&s, 6, 0, y);
    feed__sampler_batch(&s, 7, 0, y);
    feed__sampler_batch(&s, 5, 2, y);
    assert_memory_equal(x, y, sizeof x);
    /* drop_last: 10 full batches only. */
    assert_int_equal(feed__sampler_init(&s, 103, 10, 1, 1, 0, 1, 7, err, sizeof err), FEED_OK);
    assert_int_equal(s.nbatches, 10);
    assert_int_equal(feed__sampler_batch(&s, 0, 9, ids), 10);
    /* Too few samples for one batch with drop_last: an error naming the counts. */
    assert_int_equal(feed__sampler_init(&s, 5, 10, 1, 1, 0, 1, 7, err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "5 samples"));
    free(seen);
}

static void test_ranks(void **state)
{
    /* 4 ranks over 1001 samples: shares are disjoint but for the wrap-around
     * padding, equal in length, and cover everything. */
    const uint64_t n = 1001;
    const uint32_t W = 4, B = 16;
    uint32_t *hits = calloc(n, sizeof *hits);
    uint64_t nb = 0;
    for (uint32_t r = 0; r < W; r++) {
        feed__sampler s;
        char err[256];
        assert_int_equal(feed__sampler_init(&s, n, B, 1, 0, r, W, 99, err, sizeof err), FEED_OK);
        assert_int_equal(s.per_rank, 251);
        if (r == 0)
            nb = s.nbatches;
        assert_int_equal(s.nbatches, nb); /* ranks stay in step */
        uint64_t ids[16];
        for (uint64_t b = 0; b < s.nbatches; b++) {
            uint32_t c = feed__sampler_batch(&s, 2, b, ids);
            for (uint32_t i = 0; i < c; i++)
                hits[ids[i]]++;
        }
    }
    uint32_t twice = 0;
    for (uint64_t i = 0; i < n; i++) {
        assert_true(hits[i] >= 1);
        twice += hits[i] - 1;
    }
    assert_int_equal(twice, 4 * 251 - n); /* exactly the padding */
    free(hits);
}

/*
 * A run at world W, batch B stopped after k batches of every rank; the rest
 * of the epoch from consumed = k*B*W at world W2, batch B2. Within the
 * epoch: every sample is delivered, and the only repeats are the second
 * part's padding (or, with drop_last, nothing repeats and only the cut tail
 * is missing); the ranks of each part stay in step.
 */
static void check_resume(uint64_t n, uint32_t W, uint32_t B, uint64_t k, uint32_t W2, uint32_t B2,
                         uint32_t drop_last)
{
    const uint64_t epoch = 3, seed = 8;
    uint32_t *hits = calloc(n, sizeof *hits);
    uint64_t *ids = malloc((B > B2 ? B : B2) * sizeof *ids);
    char err[128];
    uint64_t before = 0, after = 0, nb2 = 0;
    for (uint32_t r = 0; r < W; r++) {
        feed__sampler s;
        assert_int_equal(feed__sampler_init(&s, n, B, 1, drop_last, r, W, seed, err, sizeof err), FEED_OK);
        assert_true(k < s.nbatches);
        for (uint64_t b = 0; b < k; b++) {
            uint32_t c = feed__sampler_batch(&s, epoch, b, ids);
            assert_int_equal(c, B);
            for (uint32_t i = 0; i < c; i++)
                hits[ids[i]]++;
            before += c;
        }
        assert_int_equal(feed__sampler_consumed(&s, 0, k), k * B * W);
    }
    const uint64_t start = k * B * W;
    for (uint32_t r = 0; r < W2; r++) {
        feed__sampler s;
        assert_int_equal(feed__sampler_init(&s, n, B2, 1, drop_last, r, W2, seed, err, sizeof err), FEED_OK);
        uint64_t nb = feed__sampler_batches_from(&s, start);
        if (r == 0)
            nb2 = nb;
        assert_int_equal(nb, nb2); /* the new ranks stay in step */
        for (uint64_t b = 0; b < nb; b++) {
            uint32_t c = feed__sampler_batch_from(&s, epoch, start, b, ids);
            assert_true(c >= 1 && c <= B2);
            for (uint32_t i = 0; i < c; i++)
                hits[ids[i]]++;
            after += c;
            /* Numbered by strides: index of batch b is (start + b*B2*W2) / (B2*W2). */
            assert_int_equal(feed__sampler_index(&s, start, b), (start + b * B2 * W2) / (B2 * W2));
        }
        assert_int_equal(feed__sampler_batch_from(&s, epoch, start, nb, ids), 0);
    }
    assert_int_equal(before, start);
    uint64_t once = 0, more = 0, none = 0;
    for (uint64_t i = 0; i < n; i++) {
        once += hits[i] == 1;
        more += hits[i] > 1 ? hits[i] - 1 : 0;
        none += hits[i] == 0;
    }
    uint64_t rest = n - start;
    if (!drop_last) {
        uint64_t share = (rest + W2 - 1) / W2;
        assert_int_equal(after, share * W2);
        assert_int_equal(none, 0);
        assert_int_equal(more, share * W2 - rest); /* the padding, nothing else */
    } else {
        assert_int_equal(more, 0);
        assert_int_equal(none, rest - after);
        assert_true(after % (B2 * (uint64_t)W2) == 0);
        assert_true(rest - after < B2 * (uint64_t)W2); /* less than one more batch per rank */
    }
    free(hits);
    free(ids);
}

static void test_resume_other_world(void **state)
{
    static const uint32_t pairs[][2] = {{2, 4}, {4, 2}, {4, 3}, {1, 5}, {3, 1}, {2, 2}, {8, 7}};
    static const uint64_t sizes[] = {1000, 1001, 997, 64};
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (uint32_t dl = 0; dl < 2; dl++) {
                uint32_t W = pairs[p][0], W2 = pairs[p][1], B = 4;
                uint64_t nb = dl ? sizes[z] / W / B : (sizes[z] + W - 1) / W / B;
                for (uint64_t k = 0; k + 1 < nb; k += 1 + nb / 5) /* several positions */
                    check_resume(sizes[z], W, B, k, W2, B, dl);
            }
    /* Batch size changes too (and both at once). */
    check_resume(1000, 2, 8, 7, 2, 5, 0);
    check_resume(1000, 4, 3, 20, 3, 16, 0);
    check_resume(1001, 4, 3, 20, 3, 16, 1);
    check_resume(999, 3, 10, 1, 6, 7, 0);
}

/* A part from k*B*W at the same world and batch size is batches k, k+1, ...
 * of the whole epoch, bitwise, so the old (epoch, batch) positions resume as
 * before; locate carries runs over epochs, passing empty parts. */
static void test_parts_and_locate(void **state)
{
    feed__sampler s;
    char err[128];
    uint64_t x[8], y[8];
    for (uint32_t dl = 0; dl < 2; dl++) {
        assert_int_equal(feed__sampler_init(&s, 203, 8, 1, dl, 2, 3, 4, err, sizeof err), FEED_OK);
        for (uint64_t k = 0; k < s.nbatches; k++) {
            uint64_t start = feed__sampler_consumed(&s, 0, k);
            assert_int_equal(feed__sampler_batches_from(&s, start), s.nbatches - k);
            for (uint64_t j = 0; k + j < s.nbatches; j++) {
                uint32_t a = feed__sampler_batch(&s, 1, k + j, x);
                assert_int_equal(feed__sampler_batch_from(&s, 1, start, j, y), a);
                assert_memory_equal(x, y, a * sizeof *x);
                assert_int_equal(feed__sampler_index(&s, start, j), k + j);
            }
        }
    }
    /* locate: a run from (5, start) has nb0 batches in epoch 5, then whole epochs. */
    assert_int_equal(feed__sampler_init(&s, 100, 4, 1, 0, 0, 2, 4, err, sizeof err), FEED_OK);
    assert_int_equal(s.nbatches, 13);
    uint64_t e, st, k;
    uint64_t nb0 = feed__sampler_batches_from(&s, 37); /* 63 left, 32 per rank: 8 batches */
    assert_int_equal(nb0, 8);
    feed__sampler_locate(&s, 5, 37, 7, &e, &st, &k);
    assert_true(e == 5 && st == 37 && k == 7);
    feed__sampler_locate(&s, 5, 37, 8, &e, &st, &k);
    assert_true(e == 6 && st == 0 && k == 0);
    feed__sampler_locate(&s, 5, 37, 8 + 13 + 2, &e, &st, &k);
    assert_true(e == 7 && st == 0 && k == 2);
    /* drop_last: a part too short for a batch of every rank is empty. */
    assert_int_equal(feed__sampler_init(&s, 100, 4, 1, 1, 0, 2, 4, err, sizeof err), FEED_OK);
    assert_int_equal(feed__sampler_batches_from(&s, 95), 0);
    feed__sampler_locate(&s, 5, 95, 0, &e, &st, &k);
    assert_true(e == 6 && st == 0 && k == 0);
}

/* One rank's samples of an epoch by torchvision's RASampler, written from its
 * definition: the epoch's permutation, each index `reps` times in a row
 * (with its repeat number), padded by wrapping to the list's start to a
 * multiple of W (cut to one with drop_last, as DistributedSampler cuts), rank r
 * taking r, r + W, ...; then whole batches only with drop_last. Returns the
 * count. */
static uint64_t ra_reference(uint64_t n, uint32_t reps, uint32_t B, uint32_t dl, uint32_t r, uint32_t W,
                             uint64_t seed, uint64_t epoch, uint64_t *ids, uint32_t *js)
{
    uint64_t *perm = malloc(n * sizeof *perm), N = n * reps;
    feed__sampler_permutation(n, seed, epoch, 1, perm);
    uint64_t *list = malloc((N + W) * sizeof *list);
    uint32_t *rep = malloc((N + W) * sizeof *rep);
    uint64_t len = 0;
    for (uint64_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < reps; j++)
            list[len] = perm[i], rep[len++] = j;
    uint64_t total = dl ? N / W * W : (N + W - 1) / W * W;
    for (uint64_t i = N; i < total; i++)
        list[i] = list[i - N], rep[i] = rep[i - N];
    uint64_t c = 0;
    for (uint64_t i = r; i < total; i += W)
        ids[c] = list[i], js[c++] = rep[i];
    if (dl)
        c = c / B * B;
    free(rep);
    free(list);
    free(perm);
    return c;
}

/* repeats=k is RASampler's order, rank shares and padding (every rank, with
 * and without drop_last, k from 1, n and W that pad and that do not); a
 * sample's repeats land on k different ranks when W >= k; the epoch is n * k
 * positions, each consumed once; repeats=1 is the sampler without it. */
static void test_repeats(void **state)
{
    (void)state;
    static const uint64_t ns[] = {1, 7, 100, 101};
    static const uint32_t reps[] = {1, 2, 3, 4}, worlds[] = {1, 2, 3, 4, 5};
    char err[128];
    uint64_t *want = malloc(2000 * sizeof *want), *got = malloc(2000 * sizeof *got);
    uint32_t *wj = malloc(2000 * sizeof *wj), *gj = malloc(2000 * sizeof *gj);
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t b = 0; b < sizeof reps / sizeof *reps; b++)
            for (size_t c = 0; c < sizeof worlds / sizeof *worlds; c++)
                for (uint32_t dl = 0; dl < 2; dl++) {
                    uint64_t n = ns[a];
                    uint32_t k = reps[b], W = worlds[c], B = 6;
                    uint32_t rank_of[101][4];
                    for (uint32_t r = 0; r < W; r++) {
                        feed__sampler s;
                        feed_status st = feed__sampler_init_repeats(&s, n, k, B, 1, dl, r, W, 42, err,
                                                                    sizeof err);
                        uint64_t cw = ra_reference(n, k, B, dl, r, W, 42, 3, want, wj);
                        if (cw == 0) { /* this rank's share makes no batch: refused */
                            assert_int_equal(st, FEED_E_DATASET);
                            continue;
                        }
                        assert_int_equal(st, FEED_OK);
                        assert_int_equal(s.positions, n * k);
                        uint64_t cg = 0;
                        for (uint64_t bi = 0; bi < s.nbatches; bi++) {
                            uint32_t m = feed__sampler_batch_reps(&s, 3, 0, bi, got + cg, gj + cg);
                            uint64_t plain[8];
                            assert_int_equal(feed__sampler_batch(&s, 3, bi, plain), m);
                            assert_memory_equal(plain, got + cg, m * sizeof *plain);
                            cg += m;
                        }
                        if (cg != cw || memcmp(got, want, cw * sizeof *got) || memcmp(gj, wj, cw * sizeof *gj))
                            fail_msg("n %llu repeats %u W %u rank %u drop_last %u: not RASampler's "
                                     "(%llu vs %llu samples)", (unsigned long long)n, k, W, r, dl,
                                     (unsigned long long)cg, (unsigned long long)cw);
                        assert_int_equal(s.per_rank, dl ? n * k / W : (n * k + W - 1) / W);
                        if (!dl && n * k % W == 0)
                            for (uint64_t i = 0; i < cg; i++)
                                rank_of[got[i]][gj[i]] = r;
                    }
                    if (!dl && n * k % W == 0 && W >= k) /* every repeat once, on k ranks */
                        for (uint64_t id = 0; id < n; id++)
                            for (uint32_t j = 0; j < k; j++)
                                for (uint32_t i = j + 1; i < k; i++)
                                    assert_int_not_equal(rank_of[id][j], rank_of[id][i]);
                }
    /* parts: from k*B*W, the whole epoch's batches k, k+1, ... with their repeats */
    feed__sampler s;
    assert_int_equal(feed__sampler_init_repeats(&s, 203, 3, 8, 1, 0, 2, 3, 4, err, sizeof err), FEED_OK);
    assert_int_equal(s.nbatches, (203 * 3 / 3 + 7) / 8);
    for (uint64_t k = 0; k < s.nbatches; k += 5) {
        uint64_t start = feed__sampler_consumed(&s, 0, k);
        for (uint64_t j = 0; k + j < s.nbatches; j++) {
            uint32_t m = feed__sampler_batch_reps(&s, 1, 0, k + j, want, wj);
            assert_int_equal(feed__sampler_batch_reps(&s, 1, start, j, got, gj), m);
            assert_memory_equal(want, got, m * sizeof *want);
            assert_memory_equal(wj, gj, m * sizeof *wj);
        }
    }
    assert_int_equal(feed__sampler_batches_from(&s, 203 * 3 - 1), 1);
    assert_int_equal(feed__sampler_batches_from(&s, 203 * 3), 0);
    /* refused: no repeat, and an order past 2^64 positions; a dataset that
     * makes a batch only repeated is taken */
    assert_int_equal(feed__sampler_init_repeats(&s, 203, 0, 8, 1, 0, 0, 1, 4, err, sizeof err),
                     FEED_E_INVALID);
    assert_int_equal(feed__sampler_init_repeats(&s, UINT64_MAX / 2, 3, 8, 1, 0, 0, 1, 4, err, sizeof err),
                     FEED_E_INVALID);
    assert_non_null(strstr(err, "repeats=3"));
    assert_int_equal(feed__sampler_init(&s, 5, 8, 1, 1, 0, 1, 4, err, sizeof err), FEED_E_DATASET);
    assert_int_equal(feed__sampler_init_repeats(&s, 5, 2, 8, 1, 1, 0, 1, 4, err, sizeof err), FEED_OK);
    assert_int_equal(s.nbatches, 1);
    free(want);
    free(got);
    free(wj);
    free(gj);
}

/* ---- shard windows (shuffle_window) ------------------------------------------------ */

/* The order before shuffle_window existed, as 0.2.0's sampler.c computed it
 * (FNV-1a of feed__sampler_permutation): shuffle_window=0 must stay it. */
static const uint64_t golden[][4] = {
    {1ull, 0ull, 0ull, 0x44bd2bd473ccf799ull},         {2ull, 1ull, 1ull, 0x9a691200c548b748ull},
    {7ull, 42ull, 3ull, 0x642d563e33befdacull},        {1000ull, 42ull, 3ull, 0x96abb1c0d2ccb67full},
    {1009ull, 5ull, 0ull, 0x19c594afeb75f7f9ull},      {65536ull, 11ull, 2ull, 0xe2679cfd238a82bbull},
    {123457ull, 2024ull, 17ull, 0x5b15cff0a459f93dull},
};
/* ... and the batches (and repeats) of parts from position 5 of epochs 0..2,
 * n 1003, repeats 2, batch 16, rank 1 of 3, seed 77. */
#define GOLDEN_BATCHES 0xe99f72b08b95bdc2ull

static uint64_t fnv(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211ull;
}

/* A tar-shard index of the given shard sizes, laid out as the shard builder
 * lays one out as far as the order reads it: sample ids contiguous per shard,
 * in shard order, path_off = shard << 40 | an offset. */
static feed__index_hdr *fake_shards(const uint32_t *sizes, uint64_t ns)
{
    uint64_t n = 0;
    for (uint64_t s = 0; s < ns; s++)
        n += sizes[s];
    feed__index_hdr *h = calloc(1, sizeof *h + n * sizeof(feed__index_entry));
    assert_non_null(h);
    h->kind = FEED_INDEX_SHARDS, h->count = n, h->nshards = ns, h->entries_off = sizeof *h;
    feed__index_entry *e = (feed__index_entry *)(h + 1);
    uint64_t i = 0;
    for (uint64_t s = 0; s < ns; s++)
        for (uint32_t j = 0; j < sizes[s]; j++, i++)
            e[i].path_off = s << FEED_INDEX_SHARD_SHIFT | (1024ull * j + 512);
    return h;
}

static uint64_t shard_of(const feed__index_hdr *h, uint64_t id)
{
    return feed__index_entries(h)[id].path_off >> FEED_INDEX_SHARD_SHIFT;
}

/* Shard layouts: empty shards first, last, in runs, one shard, one sample. */
static const uint32_t layout_sizes[][9] = {
    {5, 3, 8, 1, 13, 2, 7}, {0, 4, 0, 0, 9, 3, 0, 1, 0}, {17}, {1}, {0, 0, 6},
    {3, 3, 3, 3, 3, 3, 3, 3, 3}, {40, 1, 0, 25}, {2, 0, 0, 0, 0, 0, 0, 0, 5},
};
static const uint64_t layout_n[] = {7, 9, 1, 1, 3, 9, 4, 9};
#define NLAYOUTS (sizeof layout_n / sizeof *layout_n)

static void window_sampler(feed__sampler *s, const feed__index_hdr *h, uint32_t k, uint64_t seed)
{
    char err[160];
    assert_int_equal(feed__sampler_init(s, h->count, 1, 1, 0, 0, 1, seed, err, sizeof err), FEED_OK);
    assert_int_equal(feed__sampler_window(s, h, k, err, sizeof err), FEED_OK);
}

/* (1) For every layout, K in 1..nshards + 2, seeds and epochs, the order is
 * a permutation of [0, n), and the batches of the epoch (4 ranks, batch 3)
 * are that order. (2) Window w's positions are one run holding exactly the
 * samples of its K shards (the permuted shards w*K ..), and the shard order is
 * a permutation of the shards. */
static void test_window_order(void **state)
{
    (void)state;
    for (size_t l = 0; l < NLAYOUTS; l++) {
        feed__index_hdr *h = fake_shards(layout_sizes[l], layout_n[l]);
        const uint64_t n = h->count, ns = h->nshards;
        uint64_t *perm = malloc(n * 8), *sh = malloc(ns * 8), *starts = malloc((ns + 1) * 8);
        uint8_t *seen = malloc(n > ns ? n : ns);
        feed__index_shard_starts(h, starts);
        for (uint64_t s = 0; s < ns; s++)
            assert_int_equal(starts[s + 1] - starts[s], layout_sizes[l][s]);
        for (uint32_t k = 1; k <= ns + 2; k++)
            for (uint64_t seed = 0; seed < 3; seed++)
                for (uint64_t epoch = 0; epoch < 3; epoch++) {
                    feed__sampler s;
                    window_sampler(&s, h, k, seed);
                    feed__sampler_order(&s, epoch, perm);
                    memset(seen, 0, n);
                    for (uint64_t p = 0; p < n; p++) {
                        if (perm[p] >= n || seen[perm[p]])
                            fail_msg("layout %zu K %u seed %llu epoch %llu: position %llu -> %llu out of "
                                     "range or taken twice", l, k, (unsigned long long)seed,
                                     (unsigned long long)epoch, (unsigned long long)p,
                                     (unsigned long long)perm[p]);
                        seen[perm[p]] = 1;
                    }
                    feed__sampler_shard_order(&s, epoch, sh);
                    memset(seen, 0, ns);
                    for (uint64_t j = 0; j < ns; j++) {
                        assert_true(sh[j] < ns && !seen[sh[j]]);
                        seen[sh[j]] = 1;
                    }
                    uint64_t base = 0;
                    for (uint64_t a = 0; a < ns; a += k) {
                        uint64_t b = a + k < ns ? a + k : ns, m = 0;
                        for (uint64_t j = a; j < b; j++)
                            m += layout_sizes[l][sh[j]];
                        for (uint64_t p = base; p < base + m; p++) {
                            uint64_t j = a, at = shard_of(h, perm[p]);
                            while (j < b && sh[j] != at)
                                j++;
                            if (j == b)
                                fail_msg("layout %zu K %u seed %llu epoch %llu: position %llu of window "
                                         "%llu holds sample %llu of shard %llu, not one of its shards",
                                         l, k, (unsigned long long)seed, (unsigned long long)epoch,
                                         (unsigned long long)p, (unsigned long long)(a / k),
                                         (unsigned long long)perm[p], (unsigned long long)at);
                        }
                        base += m;
                    }
                    assert_int_equal(base, n);
                    /* the batches of 4 ranks (batch 3) are the order's strided shares */
                    char err[160];
                    for (uint32_t r = 0; r < 4; r++) {
                        feed__sampler q;
                        if (feed__sampler_init(&q, n, 3, 1, 0, r, 4, seed, err, sizeof err) != FEED_OK)
                            continue;
                        assert_int_equal(feed__sampler_window(&q, h, k, err, sizeof err), FEED_OK);
                        uint64_t ids[3];
                        for (uint64_t bi = 0; bi < q.nbatches; bi++) {
                            uint32_t c = feed__sampler_batch(&q, epoch, bi, ids);
                            for (uint32_t i = 0; i < c; i++)
                                assert_int_equal(ids[i], perm[((bi * 3 + i) * 4 + r) % n]);
                        }
                    }
                }
        free(perm), free(sh), free(starts), free(seen), free(h);
    }
}

/* Within a window the samples are shuffled, not shard after shard: with one
 * window over 6 shards of 50, far more neighbours differ in shard than the 5
 * an unshuffled window would have; and windows of 2 shards of the 6 hold the
 * 2 shards' samples interleaved too. */
static void test_window_mixes(void **state)
{
    (void)state;
    const uint32_t sizes[6] = {50, 50, 50, 50, 50, 50};
    feed__index_hdr *h = fake_shards(sizes, 6);
    uint64_t perm[300];
    for (uint32_t k = 2; k <= 8; k += 6) {
        feed__sampler s;
        window_sampler(&s, h, k, 9);
        feed__sampler_order(&s, 4, perm);
        int changes = 0;
        for (int p = 0; p + 1 < 300; p++)
            changes += shard_of(h, perm[p]) != shard_of(h, perm[p + 1]);
        assert_true(changes > 100); /* about 150 for shuffled windows of 2 (half the pairs), 250 of 6 */
        /* nor the window's concatenation: a sample's place in its shard is not its offset */
        int in_place = 0;
        for (int p = 0; p < 300; p++)
            in_place += perm[p] % 50 == (uint64_t)p % 50;
        assert_true(in_place < 30);
    }
    free(h);
}

/* (3) Epochs draw different shard orders; the same (seed, epoch) gives the
 * same order from independent samplers (each its own layout id, its own
 * tables), a struct copy, after the tables were replaced (more epochs and
 * layouts than a thread keeps), in another thread, and in a thread with no
 * memory for a table (the order computed without one). */
typedef struct order_job {
    const feed__sampler *s;
    uint64_t epoch;
    uint64_t *perm;
    int no_memory;
} order_job;

static void *order_thread(void *arg)
{
    order_job *j = arg;
    if (j->no_memory)
        feed__alloc_fail_after(0);
    feed__sampler_order(j->s, j->epoch, j->perm);
    if (j->no_memory)
        feed__alloc_fail_after(-1);
    return NULL;
}

static void test_window_keyed(void **state)
{
    (void)state;
    const uint32_t sizes[20] = {9, 4, 0, 7, 12, 3, 3, 8, 1, 0, 15, 6, 6, 2, 9, 11, 5, 4, 7, 10};
    feed__index_hdr *h = fake_shards(sizes, 20);
    const uint64_t n = h->count;
    uint64_t sh[10][20], *want[10], *got = malloc(n * 8);
    feed__sampler a, b;
    window_sampler(&a, h, 3, 5);
    window_sampler(&b, h, 3, 5);
    assert_int_not_equal(a.layout, b.layout);
    for (uint64_t e = 0; e < 10; e++) {
        feed__sampler_shard_order(&a, e, sh[e]);
        for (uint64_t f = 0; f < e; f++)
            assert_memory_not_equal(sh[e], sh[f], sizeof sh[e]);
        want[e] = malloc(n * 8);
        feed__sampler_order(&a, e, want[e]);
    }
    /* a sampler of another seed: another order (of the same layout) */
    feed__sampler c = a;
    c.seed = 6;
    feed__sampler_order(&c, 0, got);
    assert_memory_not_equal(got, want[0], n * 8);
    for (int round = 0; round < 3; round++)
        for (uint64_t e = 0; e < 10; e++) { /* 10 epochs of two layouts: more than the tables kept */
            feed__sampler copy = round == 1 ? a : b;
            feed__sampler_order(&copy, e, got);
            assert_memory_equal(got, want[e], n * 8);
            feed__sampler_order(&c, e % 3, got);
        }
    for (int no_memory = 0; no_memory < 2; no_memory++) {
        order_job j = {&b, 7, got, no_memory};
        memset(got, 0xff, n * 8);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, order_thread, &j), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_memory_equal(got, want[7], n * 8);
    }
    for (uint64_t e = 0; e < 10; e++)
        free(want[e]);
    free(got);
    free(h);
}

/* (4) shuffle_window 0 is the order as it was, bitwise (golden hashes of
 * 0.2.0's sampler), and what feed__sampler_permutation gives; shuffle 0 is the
 * identity with windows too; a source that is not tar shards is refused,
 * naming shuffle_window. */
static void test_window_zero_and_refusals(void **state)
{
    (void)state;
    for (size_t g = 0; g < sizeof golden / sizeof *golden; g++) {
        uint64_t n = golden[g][0], *p = malloc(n * 8), *q = malloc(n * 8), hash = 1469598103934665603ull;
        feed__sampler_permutation(n, golden[g][1], golden[g][2], 1, p);
        for (uint64_t i = 0; i < n; i++)
            hash = fnv(hash, p[i]);
        assert_int_equal(hash, golden[g][3]);
        feed__sampler s;
        char err[160];
        assert_int_equal(feed__sampler_init(&s, n, 1, 1, 0, 0, 1, golden[g][1], err, sizeof err), FEED_OK);
        feed__sampler_order(&s, golden[g][2], q);
        assert_memory_equal(p, q, n * 8);
        free(p), free(q);
    }
    feed__sampler s;
    char err[160];
    assert_int_equal(feed__sampler_init_repeats(&s, 1003, 2, 16, 1, 0, 1, 3, 77, err, sizeof err), FEED_OK);
    uint64_t hash = 1469598103934665603ull, ids[16];
    uint32_t reps[16];
    for (uint64_t e = 0; e < 3; e++)
        for (uint64_t b = 0; b < s.nbatches; b++) {
            uint32_t m = feed__sampler_batch_reps(&s, e, 5, b, ids, reps);
            for (uint32_t i = 0; i < m; i++)
                hash = fnv(hash, ids[i] ^ (uint64_t)reps[i] << 40);
        }
    assert_int_equal(hash, GOLDEN_BATCHES);
    /* shuffle 0: the identity, windows or not */
    const uint32_t sizes[5] = {3, 0, 5, 2, 4};
    feed__index_hdr *h = fake_shards(sizes, 5);
    uint64_t perm[14];
    assert_int_equal(feed__sampler_init(&s, 14, 1, 0, 0, 0, 1, 3, err, sizeof err), FEED_OK);
    assert_int_equal(feed__sampler_window(&s, h, 2, err, sizeof err), FEED_OK);
    feed__sampler_order(&s, 1, perm);
    for (uint64_t i = 0; i < 14; i++)
        assert_int_equal(perm[i], i);
    /* another source: refused by name, and the sampler left without windows */
    static const struct {
        uint32_t kind, named;
        const char *what;
    } others[] = {{FEED_INDEX_FILES, 1, "an ImageFolder"}, {FEED_INDEX_FILES, 0, "a file list"},
                  {FEED_INDEX_NPY, 0, "a .npy array"}};
    for (size_t i = 0; i < 3; i++) {
        h->kind = others[i].kind, h->named_classes = others[i].named;
        assert_int_equal(feed__sampler_window(&s, h, 2, err, sizeof err), FEED_E_INVALID);
        assert_non_null(strstr(err, "shuffle_window=2"));
        assert_non_null(strstr(err, others[i].what));
        assert_int_equal(s.window, 0);
        assert_int_equal(feed__sampler_window(&s, h, 0, err, sizeof err), FEED_OK);
    }
    free(h);
}

/* Threads computing batches of one sampler (and a copy) at once, across
 * epochs: each has its own tables (TSan: no race), every batch as the
 * order says. */
typedef struct batch_job {
    const feed__sampler *s;
    const uint64_t *want; /* epochs 0..3, n each */
    int bad;
} batch_job;

static void *batch_thread(void *arg)
{
    batch_job *j = arg;
    const feed__sampler *s = j->s;
    uint64_t ids[8];
    for (int round = 0; round < 3; round++)
        for (uint64_t e = 0; e < 4; e++)
            for (uint64_t b = 0; b < s->nbatches; b++) {
                uint32_t m = feed__sampler_batch(s, e, b, ids);
                for (uint32_t i = 0; i < m; i++)
                    j->bad += ids[i] != j->want[e * s->n + (b * 8 + i) % s->n];
            }
    return NULL;
}

static void test_window_threads(void **state)
{
    (void)state;
    uint32_t sizes[64];
    for (int i = 0; i < 64; i++)
        sizes[i] = (uint32_t)(i * 7 % 11);
    feed__index_hdr *h = fake_shards(sizes, 64);
    feed__sampler s;
    char err[160];
    assert_int_equal(feed__sampler_init(&s, h->count, 8, 1, 0, 0, 1, 12, err, sizeof err), FEED_OK);
    assert_int_equal(feed__sampler_window(&s, h, 5, err, sizeof err), FEED_OK);
    uint64_t *want = malloc(4 * h->count * 8);
    for (uint64_t e = 0; e < 4; e++)
        feed__sampler_order(&s, e, want + e * h->count);
    feed__sampler copy = s;
    batch_job jobs[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (batch_job){i % 2 ? &copy : &s, want, 0};
        assert_int_equal(pthread_create(&t[i], NULL, batch_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(jobs[i].bad, 0);
    }
    free(want);
    free(h);
}

/* Repeats and parts count positions of the window order as of any: batch k
 * of the part from c is positions c + (k*B + i)*W + r, each repeat of the
 * sample at position / repeats. */
static void test_window_positions(void **state)
{
    (void)state;
    const uint32_t sizes[7] = {11, 0, 6, 9, 14, 0, 3};
    feed__index_hdr *h = fake_shards(sizes, 7);
    const uint64_t n = h->count;
    uint64_t perm[43], ids[5];
    uint32_t reps[5];
    char err[160];
    for (uint32_t rep = 1; rep <= 3; rep++)
        for (uint32_t r = 0; r < 3; r++) {
            feed__sampler s;
            assert_int_equal(feed__sampler_init_repeats(&s, n, rep, 5, 1, 0, r, 3, 21, err, sizeof err), FEED_OK);
            assert_int_equal(feed__sampler_window(&s, h, 2, err, sizeof err), FEED_OK);
            feed__sampler_order(&s, 2, perm);
            for (uint64_t c = 0; c < s.positions; c += 7)
                for (uint64_t k = 0; k < feed__sampler_batches_from(&s, c); k++) {
                    uint32_t m = feed__sampler_batch_reps(&s, 2, c, k, ids, reps);
                    for (uint32_t i = 0; i < m; i++) {
                        uint64_t pos = (c + (k * 5 + i) * 3 + r) % s.positions;
                        assert_int_equal(ids[i], perm[pos / rep]);
                        assert_int_equal(reps[i], pos % rep);
                    }
                }
        }
    free(h);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--order") == 0) { /* test_same_in_another_process */
        feed__order o;
        uint64_t n = strtoull(argv[2], NULL, 10);
        feed__order_init(&o, n, strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10), 1);
        for (uint64_t p = 0; p < n; p++)
            printf("%llu\n", (unsigned long long)feed__order_at(&o, p));
        return 0;
    }
    self_exe = realpath("/proc/self/exe", NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bijection_many_n),
        cmocka_unit_test(test_keyed),
        cmocka_unit_test(test_statistics),
        cmocka_unit_test(test_constant_memory),
        cmocka_unit_test(test_same_in_another_process),
        cmocka_unit_test(test_batches),
        cmocka_unit_test(test_ranks),
        cmocka_unit_test(test_resume_other_world),
        cmocka_unit_test(test_parts_and_locate),
        cmocka_unit_test(test_repeats),
        cmocka_unit_test(test_window_order),
        cmocka_unit_test(test_window_mixes),
        cmocka_unit_test(test_window_keyed),
        cmocka_unit_test(test_window_zero_and_refusals),
        cmocka_unit_test(test_window_threads),
        cmocka_unit_test(test_window_positions),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(self_exe);
    return rc;
}

/*
 * test_verify.c - the parent's check of a replaced sample's id
 * (supervise/verify.h) with substitutes from the sample's own batch
 * (FEED_SUBSTITUTE_BATCH): the test plays the worker, writing the slot by
 * hand, and the parent must accept exactly the ids its own records asked
 * at the positions feed__substitute_pos draws, whatever the shared records
 * and header say.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/protocol.h"
#include "arena/ring.h"
#include "dataset/index.h"
#include "supervise/verify.h"
#include "testutil.h"

#define NFILES 150u /* the dataset */
#define BATCH 100u  /* more positions than 64 draws reach */
#define SEED 5u
#define EPOCH 3u
#define BAD_T 2u /* the bad sample's position: checked before most others */

static char *root;
static feed__index ix;
static feed__arena a;
static uint64_t asked[BATCH]; /* what slot 0 asks, each id once */
static uint8_t in_batch[NFILES];

static int setup(void **state)
{
    root = tu_mkdtemp("verify");
    char p[4000];
    for (uint32_t c = 0; c < 3; c++) {
        snprintf(p, sizeof p, "%s/class_%u", root, c);
        tu_mkdirs(p);
    }
    for (uint32_t i = 0; i < NFILES; i++) {
        snprintf(p, sizeof p, "%s/class_%u/img_%03u.jpg", root, i % 3, i);
        tu_write(p, "x", 1); /* never decoded here */
    }
    char err[512];
    if (feed__index_build(&ix, root, "", err, sizeof err) != FEED_OK || ix.hdr->count != NFILES) {
        fprintf(stderr, "index: %s\n", err);
        return 1;
    }
    feed__arena_geom g = {1, BATCH, 1, 64, 0, 0};
    if (feed__arena_create(&a, &g, err, sizeof err) != FEED_OK) {
        fprintf(stderr, "arena: %s\n", err);
        return 1;
    }
    a.cfg->seed = SEED;
    a.cfg->dataset_size = NFILES;
    a.cfg->max_retries = 2;
    /* a fixed scatter of ids: 1 + 7j mod 150, all distinct */
    for (uint32_t t = 0; t < BATCH; t++) {
        asked[t] = (1 + 7ull * t) % NFILES;
        in_batch[asked[t]] = 1;
    }
    return 0;
}

static int teardown(void **state)
{
    feed__arena_close(&a);
    feed__index_free(&ix);
    tu_rmtree(root);
    free(root);
    return 0;
}

/* Assigns slot 0 afresh and writes every sample as itself, as a worker
 * would; sample BAD_T then says it was bad and delivers got instead. */
static void fill(uint32_t from, uint64_t got)
{
    a.cfg->substitute_from = from;
    assert_int_equal(feed__ring_assign(&a, 0, 1, EPOCH, 0, BATCH, asked, NULL, NULL), 0);
    for (uint32_t t = 0; t < BATCH; t++) {
        uint64_t id = t == BAD_T ? got : asked[t];
        feed__slot_ids(&a, 0)[t] = id;
        feed__slot_labels(&a, 0)[t] = feed__index_label(ix.hdr, id < NFILES ? id : 0);
        feed__slot_flags(&a, 0)[t] = t == BAD_T ? FEED_SAMPLE_REPLACED : 0;
    }
    feed__sample_rec *r = &feed__slot_recs(&a, 0)[BAD_T];
    r->status = FEED_E_DECODE;
    r->sys_errno = 0;
    snprintf(r->message, sizeof r->message, "Premature end of JPEG file");
}

/* 0 if the parent accepts the slot, else 1 with the verdict's words. */
static int verify(char *what, size_t len)
{
    feed__verdict v;
    memset(&v, 0, sizeof v);
    int bad = feed__verify_slot(&a, 0, ix.hdr, &v);
    snprintf(what, len, "%s", bad ? v.what : "");
    if (bad)
        assert_int_equal(v.t, BAD_T);
    return bad;
}

static void assert_rejected(uint64_t got)
{
    char what[256];
    if (!verify(what, sizeof what))
        fail_msg("id %llu accepted as a substitute of sample %llu", (unsigned long long)got,
                 (unsigned long long)asked[BAD_T]);
    char want[128];
    snprintf(want, sizeof want, "an invalid id %llu for sample %llu (no substitute of it)", (unsigned long long)got,
             (unsigned long long)asked[BAD_T]);
    if (!strstr(what, want))
        fail_msg("verdict '%s', not '%s'", what, want);
}

/* The positions of the bad sample's 64 substitutes. */
static void positions(uint32_t n, uint8_t *is_u)
{
    memset(is_u, 0, BATCH);
    for (uint32_t k = 1; k <= FEED_SUBSTITUTE_MAX; k++)
        is_u[feed__substitute_pos(SEED, EPOCH, asked[BAD_T], k, BAD_T, n)] = 1;
}

static void test_batch_substitutes(void **state)
{
    uint8_t is_u[BATCH];
    positions(BATCH, is_u);
    assert_int_equal(is_u[BAD_T], 0);
    char what[256];
    uint32_t accepted = 0, rejected = 0;
    for (uint32_t u = 0; u < BATCH; u++) {
        if (u == BAD_T)
            continue;
        fill(FEED_SUBSTITUTE_BATCH, asked[u]);
        if (is_u[u]) {
            if (verify(what, sizeof what))
                fail_msg("the sample asked at position %u (id %llu) refused: %s", u, (unsigned long long)asked[u],
                         what);
            assert_int_equal(a.meta[0].ids[BAD_T], asked[u]); /* delivered */
            accepted++;
        } else {
            assert_rejected(asked[u]); /* of the batch, but no draw's */
            rejected++;
        }
    }
    /* 64 draws over 99 positions: about 47 reached, never all */
    assert_true(accepted >= 20 && accepted <= FEED_SUBSTITUTE_MAX);
    assert_true(rejected >= 20);
    /* ids outside the batch, which a dataset-wide draw could give */
    for (uint64_t id = 0; id < NFILES; id++)
        if (!in_batch[id]) {
            fill(FEED_SUBSTITUTE_BATCH, id);
            assert_rejected(id);
        }
    /* itself: nothing decoded (no substitute) */
    fill(FEED_SUBSTITUTE_BATCH, asked[BAD_T]);
    assert_int_equal(verify(what, sizeof what), 0);
}

/* A worker that rewrites the shared record at a drawn position, or the
 * slot's count, gains nothing: the parent's own copies decide. */
static void test_scribbled_records(void **state)
{
    uint8_t is_u[BATCH];
    positions(BATCH, is_u);
    uint32_t u = BAD_T + 1;
    while (!is_u[u])
        u++; /* a drawn position after the bad one: checked later */
    uint64_t outside = 0;
    while (in_batch[outside])
        outside++;
    fill(FEED_SUBSTITUTE_BATCH, outside);
    feed__slot_recs(&a, 0)[u].sample_id = outside;
    assert_rejected(outside);

    /* the shared count says 50: positions drawn among 50, not 100 */
    uint8_t is_u50[BATCH];
    positions(50, is_u50);
    uint32_t w = 0;
    while (w < 50 && (w == BAD_T || is_u[w] || !is_u50[w]))
        w++;
    assert_true(w < 50); /* 64 draws among 49 and among 99 differ */
    fill(FEED_SUBSTITUTE_BATCH, asked[w]);
    feed__slot(&a, 0)->count = 50;
    assert_rejected(asked[w]);
}

/* The other modes keep their draws: over the dataset, a sample of the
 * batch at a drawn position is no substitute unless the dataset draw says so. */
static void test_dataset_mode(void **state)
{
    char what[256];
    const uint64_t id = asked[BAD_T];
    uint64_t s1 = feed__substitute(SEED, EPOCH, id, 1, NFILES);
    fill(FEED_SUBSTITUTE_DATASET, s1);
    if (verify(what, sizeof what))
        fail_msg("the first dataset substitute %llu refused: %s", (unsigned long long)s1, what);
    uint8_t is_s[NFILES] = {0};
    for (uint32_t k = 1; k <= FEED_SUBSTITUTE_MAX; k++)
        is_s[feed__substitute(SEED, EPOCH, id, k, NFILES)] = 1;
    uint32_t refused = 0;
    for (uint32_t k = 1; k <= FEED_SUBSTITUTE_MAX; k++) {
        uint64_t got = asked[feed__substitute_pos(SEED, EPOCH, id, k, BAD_T, BATCH)];
        if (is_s[got])
            continue;
        fill(FEED_SUBSTITUTE_DATASET, got);
        assert_rejected(got);
        refused++;
    }
    assert_true(refused > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_substitutes),
        cmocka_unit_test(test_scribbled_records),
        cmocka_unit_test(test_dataset_mode),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * test_meta.c - metadata members of tar shards (meta_members): each
 * delivered sample carries the bytes of its own KEY.json and KEY.txt, as
 * the shard holds them, whatever the worker count; a replaced sample its
 * substitute's; a missing member is a bad sample or empty by meta_missing;
 * members over meta_max_bytes make a bad sample; a worker that writes a
 * length its index does not give is killed and the sample done again; a
 * sample whose members lie far from its image (read one by one) as one
 * whose members follow it (one read). The expected bytes come from the
 * formula the test wrote the shard with.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dataset/tar.h"
#include "hooks/loader_test.h"
#include "supervise/pool.h"
#include "testutil.h"

#define NIMG 30
#define BASE "batch_size=4,height=24,width=24,resize_shorter=28,seed=5,device=host,shuffle=1,report_bad=0"
#define CORRUPT 3 /* its image is not a JPEG */
#define NO_TXT 4  /* it has no .txt member */
#define BIG 6     /* its .json is over meta_max_bytes=2048 */
#define APART 8   /* a 200 KB member between its image and its others: each read on its own */

static char *data, *shard;
static feed__index ix;

/* The .json member of sample k: its length varies with k. */
static size_t json_of(uint32_t k, char *out, size_t cap)
{
    size_t pad = k == BIG ? 3000 : (k * 37) % 300;
    int n = snprintf(out, cap, "{\"id\": %u, \"caption\": \"", k);
    for (size_t i = 0; i < pad; i++)
        out[n++] = (char)('a' + (k + i) % 26);
    n += snprintf(out + n, cap - (size_t)n, "\"}");
    return (size_t)n;
}

static size_t txt_of(uint32_t k, char *out, size_t cap)
{
    return (size_t)snprintf(out, cap, "text of sample %u\n", k);
}

static int setup(void **state)
{
    data = tu_dataset("meta", NIMG, 17, 3, &ix);
    shard = malloc(4200);
    snprintf(shard, 4200, "%s/m-000000.tar", data);
    FILE *f = fopen(shard, "wb");
    for (uint32_t i = 0; i < NIMG; i++) {
        char name[64], src[8700], cls[16], text[4096];
        size_t n;
        snprintf(src, sizeof src, "%s/%s", data, feed__index_path(ix.hdr, i));
        uint8_t *img = tu_read_file(src, &n);
        snprintf(name, sizeof name, "s%03u.jpg", i);
        assert_int_equal(tu_tar_member(f, name, i == CORRUPT ? (const void *)"not a jpeg at all" : img, i == CORRUPT ? 17 : n), 0);
        free(img);
        snprintf(name, sizeof name, "s%03u.cls", i);
        snprintf(cls, sizeof cls, "%d", feed__index_label(ix.hdr, i));
        assert_int_equal(tu_tar_member(f, name, cls, strlen(cls)), 0);
        if (i == APART) {
            uint8_t *pad = calloc(1, 200000);
            snprintf(name, sizeof name, "s%03u.bin", i);
            assert_int_equal(tu_tar_member(f, name, pad, 200000), 0);
            free(pad);
        }
        snprintf(name, sizeof name, "s%03u.json", i);
        assert_int_equal(tu_tar_member(f, name, text, json_of(i, text, sizeof text)), 0);
        if (i != NO_TXT) {
            snprintf(name, sizeof name, "s%03u.txt", i);
            assert_int_equal(tu_tar_member(f, name, text, txt_of(i, text, sizeof text)), 0);
        }
    }
    uint8_t end[1024] = {0};
    fwrite(end, 1, sizeof end, f);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    feed__index_free(&ix);
    tu_rmtree(data);
    free(data);
    free(shard);
    return 0;
}

/* The shard key's number of a delivered id (SHARD.tar:sNNN). */
static uint32_t key_of(feed_loader *L, uint64_t id)
{
    char path[8700];
    int32_t label;
    assert_int_equal(feed_loader_sample_info(L, id, path, sizeof path, &label), FEED_OK);
    const char *key = strrchr(path, ':');
    assert_non_null(key);
    return (uint32_t)atoi(key + 2);
}

typedef struct seen {
    uint64_t samples, replaced, hash; /* hash: every delivered id and member byte, in order */
} seen;

static void mix(uint64_t *h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ b[i]) * 1099511628211ull;
}

/* One epoch: every member of every sample is what the test wrote for the
 * sample delivered (its key), the empty txt with meta_missing=empty. */
static void check_epoch(feed_loader *L, int missing_empty, seen *s)
{
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        assert_non_null(b.meta);
        assert_int_equal(b.meta_members, 2);
        for (uint32_t i = 0; i < b.count; i++) {
            uint32_t k = key_of(L, b.sample_ids[i]);
            char want[4096];
            size_t wj = json_of(k, want, sizeof want);
            assert_true(k != CORRUPT && k != BIG);
            assert_true(missing_empty || k != NO_TXT);
            assert_int_equal(b.meta_lengths[i * 2], wj);
            assert_memory_equal(b.meta + b.meta_offsets[i * 2], want, wj);
            size_t wt = k == NO_TXT ? 0 : txt_of(k, want, sizeof want);
            assert_int_equal(b.meta_lengths[i * 2 + 1], wt);
            if (wt)
                assert_memory_equal(b.meta + b.meta_offsets[i * 2 + 1], want, wt);
            mix(&s->hash, &b.sample_ids[i], sizeof b.sample_ids[i]);
            mix(&s->hash, b.meta + b.meta_offsets[i * 2], b.meta_lengths[i * 2]);
            mix(&s->hash, b.meta + b.meta_offsets[i * 2 + 1], b.meta_lengths[i * 2 + 1]);
            s->replaced += (b.flags[i] & FEED_SAMPLE_REPLACED) != 0;
        }
        s->samples += b.count;
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    assert_int_equal(st, FEED_END_OF_EPOCH);
}

/* Runs epochs with opts; returns what was seen, every epoch NIMG samples. */
static seen run(const char *opts, uint32_t epochs, int missing_empty)
{
    feed_loader *L;
    char err[1024];
    if (tu_loader(&L, shard, BASE, opts, err, sizeof err) != FEED_OK)
        fail_msg("create: %s", err);
    assert_int_equal(feed_loader_num_samples(L), NIMG);
    seen s = {0, 0, 14695981039346656037ull};
    for (uint32_t e = 0; e < epochs; e++) {
        uint64_t before = s.samples;
        check_epoch(L, missing_empty, &s);
        assert_int_equal(s.samples - before, NIMG);
    }
    feed_loader_destroy(L);
    return s;
}

/* Each sample's members, its substitute's when replaced; the same bytes
 * and order whatever the worker count. */
static void test_members_delivered(void **state)
{
    seen one = run("meta_members=json:txt,meta_max_bytes=2048,meta_missing=empty,workers=1,epochs=2", 2, 1);
    seen three = run("meta_members=json:txt,meta_max_bytes=2048,meta_missing=empty,workers=3,epochs=2", 2, 1);
    assert_int_equal(one.replaced, 2 * 2); /* CORRUPT and BIG, each epoch */
    assert_int_equal(one.hash, three.hash);
    assert_int_equal(one.replaced, three.replaced);
}

/* meta_missing=bad: the sample without a .txt is a bad sample, reported
 * naming the member; a sample too large for meta_max_bytes names it. */
static void test_missing_is_bad(void **state)
{
    feed_loader *L;
    char err[1024];
    assert_int_equal(tu_loader(&L, shard, BASE, "meta_members=json:txt,meta_max_bytes=2048,workers=2", err,
                               sizeof err),
                     FEED_OK);
    seen s = {0, 0, 0};
    check_epoch(L, 0, &s);
    assert_int_equal(s.samples, NIMG);
    assert_int_equal(s.replaced, 3);
    int said_txt = 0, said_big = 0;
    for (uint64_t i = 0; i < feed_loader_bad_count(L); i++) {
        feed_bad_sample r = {.struct_size = sizeof r};
        assert_int_equal(feed_loader_bad_sample(L, i, &r), FEED_OK);
        if (strstr(r.path, ":s004")) {
            assert_non_null(strstr(r.message, "no .txt member"));
            said_txt = 1;
        }
        if (strstr(r.path, ":s006")) {
            assert_int_equal(r.status, FEED_E_TOO_LARGE);
            assert_non_null(strstr(r.message, "meta_max_bytes 2048"));
            said_big = 1;
        }
    }
    assert_true(said_txt && said_big);
    feed_loader_destroy(L);
}

/* Bad options fail at create, saying why. */
static void test_refused(void **state)
{
    static const struct {
        const char *opts, *says;
    } bad[] = {
        {"meta_members=jpg", "read otherwise"},
        {"meta_members=json:cls", "read otherwise"},
        {"meta_members=json:JSON", "named twice"},
        {"meta_members=a:b:c:d:e", "more than 4"},
        {"meta_members=json::txt", "1..31 bytes"},
        {"meta_members=.json", "letters, digits"},
        {"meta_members=npy,target_member=npy", "read otherwise"},
        {"meta_members=json,meta_max_bytes=0", "meta_max_bytes=0"},
        {"meta_members=json,meta_max_bytes=16777217", "meta_max_bytes=16777217"},
    };
    feed_loader *L;
    char err[1024];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(tu_loader(&L, shard, BASE, bad[i].opts, err, sizeof err), FEED_E_INVALID);
        if (!strstr(err, bad[i].says))
            fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].opts, err, bad[i].says);
    }
    assert_int_equal(tu_loader(&L, data, BASE, "meta_members=json", err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "only tar shards have members"));
}

/* Workers that lie about a member's length are caught every time: killed,
 * their samples done again, and every epoch still delivers each sample
 * once with its own bytes. */
static void test_lying_lengths(void **state)
{
    char *dir = tu_mkdtemp("meta-count"), count[4200];
    snprintf(count, sizeof count, "%s/count", dir);
    setenv("FEED_TEST_SCRIBBLE", "21:200", 1);
    setenv("FEED_TEST_SCRIBBLE_AREA", "meta", 1);
    setenv("FEED_TEST_SCRIBBLE_COUNT", count, 1);
    feed_loader *L;
    char err[1024];
    if (tu_loader(&L, shard, BASE, "meta_members=json:txt,meta_max_bytes=2048,meta_missing=empty,workers=3,"
                  "max_retries=100", err, sizeof err) != FEED_OK)
        fail_msg("create: %s", err);
    seen s = {0, 0, 0};
    for (int e = 0; e < 4; e++)
        check_epoch(L, 1, &s);
    assert_int_equal(s.samples, 4 * NIMG);
    assert_int_equal(s.replaced, 4 * 2);
    uint64_t killed = feed__loader_pool(L)->misbehaved;
    feed_loader_destroy(L);
    unsetenv("FEED_TEST_SCRIBBLE");
    unsetenv("FEED_TEST_SCRIBBLE_AREA");
    unsetenv("FEED_TEST_SCRIBBLE_COUNT");
    uint64_t c[2] = {0, 0};
    FILE *f = fopen(count, "rb");
    assert_non_null(f);
    assert_int_equal(fread(c, sizeof c, 1, f), 1);
    fclose(f);
    tu_rmtree(dir);
    free(dir);
    print_message("%llu length scribbles, %llu workers killed\n", (unsigned long long)c[0],
                  (unsigned long long)killed);
    assert_true(c[0] > 0);
    assert_true(killed > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_members_delivered),
        cmocka_unit_test(test_missing_is_bad),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_lying_lengths),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

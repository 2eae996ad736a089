/*
 * test_shardcache.c - the saved tar-shard index (src/dataset/shardcache.c): an
 * index built from generated shards (labels, multi-labels, target rows, two
 * metadata members, malformed members) saved and loaded again is the same
 * bytes, with the same first problem and targets; another key, other shard
 * paths or count, other options are refused with a reason, a missing file
 * with none; every single-byte change of a saved file is refused (the
 * checksums), and with the checksums made right again each structural check
 * refuses a file crafted to break it, while anything accepted still reads
 * inside itself; truncated, empty, extended and oversized files are refused;
 * a load or a save whose allocations fail in turn says so and leaks nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/internal.h"
#include "dataset/npy.h"
#include "dataset/shardcache.h"
#include "dataset/shards.h"
#include "dataset/tar.h"
#include "testutil.h"

#define NSHARDS 3
#define KEY "https://data.example/a-0.tar etag=\"e1\" 81920\n\0https://data.example/b-1.tar 2026-12-01 40960"

static char *dir, *paths[NSHARDS], cache[4200];
static const char *exts[2] = {"json", "txt"};
static feed__targets tg;
static feed__shard_members mem = {1, "npy", &tg, exts, 2};
static feed__index ix; /* built with mem */

/* A .npy member of two float32 values (a, b), as numpy writes one. */
static size_t npy_pair(uint8_t out[136], float a, float b)
{
    static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    memset(out, ' ', 128);
    memcpy(out, "\x93NUMPY\x01\x00\x76\x00", 10); /* header length 118: data at 128 */
    memcpy(out + 10, dict, sizeof dict - 1);
    out[127] = '\n';
    memcpy(out + 128, &a, 4), memcpy(out + 132, &b, 4);
    return 136;
}

static void member(FILE *f, const char *key, const char *ext, const void *data, size_t n)
{
    char name[128];
    snprintf(name, sizeof name, "%s.%s", key, ext);
    assert_int_equal(tu_tar_member(f, name, data, n), 0);
}

/* Shard s: samples k0..; cls[k] its label text (NULL: no label member, a
 * malformed sample), a .txt for every other one, a large member between one
 * sample's image and its others. */
static void write_shard(int s, const char *const *cls, int n)
{
    FILE *f = fopen(paths[s], "wb");
    assert_non_null(f);
    uint8_t img[2000], npy[136], pad[9000] = {0};
    for (int k = 0; k < n; k++) {
        char key[16], json[64];
        snprintf(key, sizeof key, "k%d%02d", s, k);
        size_t len = 100 + (size_t)(37 * k + 411 * s) % 1800;
        for (size_t i = 0; i < len; i++)
            img[i] = (uint8_t)(i * 7 + k);
        member(f, key, "jpg", img, len);
        if (cls[k])
            member(f, key, "cls", cls[k], strlen(cls[k]));
        if (k == 1)
            member(f, key, "bin", pad, sizeof pad);
        member(f, key, "npy", npy, npy_pair(npy, (float)k, (float)s));
        member(f, key, "json", json, (size_t)snprintf(json, sizeof json, "{\"k\": %d, \"s\": %d}", k, s));
        if (k % 2 == 0)
            member(f, key, "txt", "text", 4);
    }
    uint8_t end[1024] = {0};
    fwrite(end, 1, sizeof end, f);
    fclose(f);
}

static feed_status build(feed__index *out, const feed__shard_members *m)
{
    static const feed__shard_members none;
    m = m ? m : &none;
    char err[1024];
    int saved = tu_stderr_to("/dev/null"); /* the malformed members are reported there */
    feed_status st = feed__index_build_shards_with(out, "/", paths, NSHARDS, feed__shards_open,
                                                   feed__shards_close, paths, m, err, sizeof err);
    if (saved >= 0)
        tu_stderr_back(saved);
    if (st != FEED_OK)
        fail_msg("build: %s", err);
    return st;
}

/* The three shards: 9 samples, 2 malformed ones. */
static void setup_shards(void)
{
    static const char *const c0[] = {"0", "1,4", "2", "2 0 3", NULL, "1"};
    static const char *const c1[] = {"5", "not a label"};
    static const char *const c2[] = {"3", "0", "4 1"};
    write_shard(0, c0, 6);
    write_shard(1, c1, 2);
    write_shard(2, c2, 3);
}

static int setup(void **state)
{
    dir = tu_mkdtemp("shardcache");
    for (int s = 0; s < NSHARDS; s++) {
        paths[s] = malloc(4200);
        snprintf(paths[s], 4200, "%s/%c-%d.tar", dir, 'a' + s, s);
    }
    setup_shards();
    snprintf(cache, sizeof cache, "%s/index.shards", dir);
    build(&ix, &mem);
    return 0;
}

static int teardown(void **state)
{
    feed__index_free(&ix);
    feed__targets_free(&tg);
    tu_rmtree(dir);
    free(dir);
    for (int s = 0; s < NSHARDS; s++)
        free(paths[s]);
    return 0;
}

/* Reads every part of the index through the accessors the worker and the
 * loader use: under ASan a read outside its bytes fails the test. */
static void walk(const feed__index_hdr *h)
{
    const char *lo = (const char *)h, *hi = lo + h->total_bytes;
    for (uint64_t i = 0; i < h->count; i++) {
        const char *p = feed__index_path(h, i), *k = feed__index_key(h, i);
        assert_true(p >= lo && p + strlen(p) < hi);
        assert_true(!k || (k >= lo && k + strlen(k) < hi));
        const int32_t *x;
        uint32_t nl = feed__index_labels(h, i, &x);
        assert_true(nl >= 1 && nl <= h->max_labels);
        assert_true(feed__index_label(h, i) >= 0 && (uint32_t)feed__index_label(h, i) < h->nclasses);
        for (uint32_t j = 0; j + 1 < nl; j++)
            assert_true(x[j] >= 0 && (uint32_t)x[j] < h->nclasses);
        uint64_t off, len;
        assert_int_equal(feed__index_range(h, i, &off, &len), 1);
        assert_true(off + len <= FEED_INDEX_MAX_SHARD_OFFSET + UINT32_MAX);
        for (uint32_t j = 0; j < h->nmeta; j++) {
            uint32_t ml;
            if (feed__index_member(h, i, j, &off, &ml))
                assert_true(off % 512 == 0);
        }
        char name[8200];
        assert_true(feed__index_name(h, i, name, sizeof name) > 0);
    }
}

static void save_ok(const feed__index *x, const feed__shard_members *m)
{
    char why[512] = "x";
    if (feed__shardcache_save(cache, x, m, KEY, sizeof KEY, why, sizeof why) != 0)
        fail_msg("save: %s", why);
    assert_string_equal(why, "");
}

static void assert_same_targets(const feed__targets *a, const feed__targets *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->dim, b->dim);
    assert_int_equal(a->dtype, b->dtype);
    assert_int_equal(a->elem, b->elem);
    assert_memory_equal(a->data, b->data, a->n * feed__targets_row(a));
}

/* 1: the built index and what the loader reports beside it come back the same. */
static void test_round_trip(void **state)
{
    const feed__index_hdr *h = ix.hdr;
    assert_int_equal(h->nshards, NSHARDS);
    assert_int_equal(h->count, 9);         /* 11 written, 2 malformed */
    assert_int_equal(h->problems, 2);
    assert_true(h->nextra > 0);            /* "1,4", "2 0 3", "4 1" */
    assert_int_equal(h->nmeta, 2);
    assert_int_equal(tg.dim, 2);
    assert_non_null(strstr(ix.first_problem, "has no label member"));
    walk(h);

    save_ok(&ix, &mem);
    feed__targets tg2 = {0};
    feed__shard_members m2 = mem;
    m2.targets = &tg2;
    feed__index got;
    char why[512] = "x";
    assert_int_equal(feed__shardcache_load(cache, KEY, sizeof KEY, paths, NSHARDS, &m2, &got, why, sizeof why), 1);
    assert_string_equal(why, "");
    assert_int_equal(got.fd, -1);
    assert_int_equal(got.hdr->total_bytes, h->total_bytes);
    assert_memory_equal(got.hdr, h, h->total_bytes);
    assert_string_equal(got.first_problem, ix.first_problem);
    assert_int_equal(got.skipped, 0);
    assert_same_targets(&tg2, &tg);
    walk(got.hdr);
    /* the loaded index is an ordinary one: shared with the workers as a built one */
    char err[256];
    assert_int_equal(feed__index_share(&got, err, sizeof err), FEED_OK);
    assert_memory_equal(got.hdr, h, h->total_bytes);
    feed__index_free(&got);
    feed__targets_free(&tg2);

    /* the shards not there (not fetched yet): the saved index is all a load reads */
    char elsewhere[4300];
    snprintf(elsewhere, sizeof elsewhere, "%s.index", dir);
    assert_int_equal(rename(cache, elsewhere), 0);
    for (int s = 0; s < NSHARDS; s++)
        assert_int_equal(unlink(paths[s]), 0);
    int rc = feed__shardcache_load(elsewhere, KEY, sizeof KEY, paths, NSHARDS, &m2, &got, why, sizeof why);
    assert_int_equal(rename(elsewhere, cache), 0);
    assert_int_equal(rc, 1);
    assert_memory_equal(got.hdr, h, h->total_bytes);
    feed__index_free(&got);
    feed__targets_free(&tg2);
    setup_shards();

    /* without targets kept: the rows are not loaded, the index is */
    m2.targets = NULL;
    assert_int_equal(feed__shardcache_load(cache, KEY, sizeof KEY, paths, NSHARDS, &m2, &got, why, sizeof why), 1);
    assert_memory_equal(got.hdr, h, h->total_bytes);
    feed__index_free(&got);

    /* the plainest options: one label, no targets, no members (multi-labels are problems then) */
    feed__index plain;
    build(&plain, NULL);
    assert_int_equal(plain.hdr->nextra, 0);
    assert_int_equal(plain.hdr->problems, 5);
    save_ok(&plain, NULL);
    assert_int_equal(feed__shardcache_load(cache, KEY, sizeof KEY, paths, NSHARDS, NULL, &got, why, sizeof why), 1);
    assert_memory_equal(got.hdr, plain.hdr, plain.hdr->total_bytes);
    assert_string_equal(got.first_problem, plain.first_problem);
    feed__index_free(&got);
    feed__index_free(&plain);

    /* a save replaces the file and leaves no temporary file */
    save_ok(&ix, &mem);
    save_ok(&ix, &mem);
    DIR *d = opendir(dir);
    struct dirent *de;
    int files = 0;
    while ((de = readdir(d)))
        files += de->d_name[0] != '.';
    closedir(d);
    assert_int_equal(files, NSHARDS + 1);
}

/* Loads the saved file for key/paths/options: 0 with want in why. */
static void expect_refused_with(const void *key, size_t keylen, char *const *p, size_t n, const feed__shard_members *m,
                                const char *want)
{
    feed__index got = {.hdr = (feed__index_hdr *)1};
    feed__targets t = {.n = 7};
    feed__shard_members mm = m ? *m : (feed__shard_members){0};
    mm.targets = &t;
    char why[512] = "x";
    assert_int_equal(feed__shardcache_load(cache, key, keylen, p, n, &mm, &got, why, sizeof why), 0);
    if (!strstr(why, want))
        fail_msg("why '%s', wanted '%s'", why, want);
    assert_null(got.hdr);
    assert_null(t.data);
    assert_int_equal(t.n, 0);
}

static void expect_refused(const char *want)
{
    expect_refused_with(KEY, sizeof KEY, paths, NSHARDS, &mem, want);
}

/* 2: another key, other shard paths, count or options; a missing file. */
static void test_mismatch(void **state)
{
    save_ok(&ix, &mem);
    char key[sizeof KEY];
    memcpy(key, KEY, sizeof key);
    key[30] ^= 1; /* another ETag */
    expect_refused_with(key, sizeof key, paths, NSHARDS, &mem, "another key");
    expect_refused_with(KEY, sizeof KEY - 1, paths, NSHARDS, &mem, "another key");
    expect_refused_with(NULL, 0, paths, NSHARDS, &mem, "another key");

    char other[4200], *p2[NSHARDS + 1] = {paths[0], other, paths[2], paths[2]};
    snprintf(other, sizeof other, "%s/b-1.tar.x", dir);
    expect_refused_with(KEY, sizeof KEY, p2, NSHARDS, &mem, "shard 1 is");
    snprintf(other, sizeof other, "%s/b-1.ta", dir);
    expect_refused_with(KEY, sizeof KEY, p2, NSHARDS, &mem, "shard 1 is");
    expect_refused_with(KEY, sizeof KEY, paths, NSHARDS - 1, &mem, "3 shards, not 2");
    expect_refused_with(KEY, sizeof KEY, p2, NSHARDS + 1, &mem, "3 shards, not 4");

    feed__shard_members m = mem;
    m.multi_label = 0;
    expect_refused_with(KEY, sizeof KEY, paths, NSHARDS, &m, "other options");
    m = mem, m.target_ext = NULL;
    expect_refused_with(KEY, sizeof KEY, paths, NSHARDS, &m, "other options");
    m = mem, m.target_ext = "npz";
    expect_refused_with(KEY, sizeof KEY, paths, NSHARDS, &m, "other options");
    m = mem, m.nmeta = 1;
    expect_refused_with(KEY, sizeof KEY, paths, NSHARDS, &m, "other options");
    static const char *swapped[2] = {"txt", "json"};
    m = mem, m.meta_exts = swapped;
    expect_refused_with(KEY, sizeof KEY, paths, NSHARDS, &m, "other options");
    expect_refused_with(KEY, sizeof KEY, paths, NSHARDS, NULL, "other options");

    unlink(cache);
    expect_refused("");
    char why[512] = "x";
    feed__index got;
    feed__shard_members mt = mem;
    feed__targets t;
    mt.targets = &t;
    assert_int_equal(feed__shardcache_load(cache, KEY, sizeof KEY, paths, NSHARDS, &mt, &got, why, sizeof why), 0);
    assert_string_equal(why, "");
    mkdir(cache, 0755); /* a folder where the file should be */
    expect_refused("not a regular file");
    rmdir(cache);

    /* what save refuses */
    assert_int_equal(feed__shardcache_save(cache, &ix, NULL, KEY, 3, why, sizeof why), -1);
    assert_non_null(strstr(why, "would not load again"));         /* its options are not these */
    feed__shard_members m3 = mem;
    m3.targets = NULL;
    assert_int_equal(feed__shardcache_save(cache, &ix, &m3, KEY, 3, why, sizeof why), -1);
    assert_non_null(strstr(why, "target rows"));
    char deep[4300];
    snprintf(deep, sizeof deep, "%s/no/such/folder/x", dir);
    assert_int_equal(feed__shardcache_save(deep, &ix, &mem, KEY, 3, why, sizeof why), -1);
    if (!strstr(why, "cannot write"))
        fail_msg("why '%s'", why);
    assert_int_equal(access(cache, F_OK), -1);
}

static uint8_t *saved(size_t *n)
{
    save_ok(&ix, &mem);
    return tu_read_file(cache, n);
}

/* 3a: every single-byte change is refused by the checksums, in memory
 * (every byte, three changes each) and through the file (every 37th). */
static void test_every_byte(void **state)
{
    size_t n;
    uint8_t *good = saved(&n), *buf = malloc(n);
    feed__shardcache_view v;
    char why[256];
    assert_int_equal(feed__shardcache_parse(good, n, &v, why, sizeof why), 0);
    static const uint8_t flips[] = {0x01, 0x80, 0xff};
    for (size_t k = 0; k < n; k++)
        for (size_t f = 0; f < sizeof flips; f++) {
            memcpy(buf, good, n);
            buf[k] ^= flips[f];
            why[0] = 0;
            if (feed__shardcache_parse(buf, n, &v, why, sizeof why) != -1 || !why[0])
                fail_msg("byte %zu ^ 0x%02x accepted", k, flips[f]);
        }
    for (size_t k = 0; k < n; k += 37) {
        memcpy(buf, good, n);
        buf[k] ^= 0x10;
        tu_write(cache, buf, n);
        expect_refused(k < 8 ? "not a libfeed shard index" : k < 16 ? "another libfeed version"
                       : k < 24 ? "truncated or extended" : "checksum mismatch");
    }
    free(buf);
    free(good);
}

/* 3b: every single-byte change with the checksums made right again: refused
 * with a reason, or accepted and still reading inside itself. */
static void test_every_byte_resealed(void **state)
{
    size_t n;
    uint8_t *good = saved(&n), *buf = malloc(n);
    feed__shardcache_view v;
    char why[256];
    size_t refused = 0, accepted = 0;
    for (size_t k = 0; k < n; k++)
        for (int f = 0; f < 2; f++) {
            memcpy(buf, good, n);
            buf[k] ^= f ? 0x01 : 0x40;
            feed__shardcache_seal(buf, n);
            why[0] = 0;
            if (feed__shardcache_parse(buf, n, &v, why, sizeof why) != 0) {
                assert_true(why[0]);
                refused++;
                continue;
            }
            accepted++;
            walk(v.index);
        }
    print_message("resealed single-byte changes: %zu refused, %zu accepted\n", refused, accepted);
    assert_true(refused > accepted);
    free(buf);
    free(good);
}

/* The saved file, its index and tables, to forge. */
typedef struct forged {
    uint8_t *buf;
    size_t n;
    feed__index_hdr *h;
    feed__index_entry *e;
    uint64_t *shard, *moffs;
    uint32_t *keys, *mlens, *xst;
    int32_t *xl;
    char *pool;
} forged;

static void forge_begin(forged *f, const uint8_t *good, size_t n)
{
    f->buf = malloc(n);
    memcpy(f->buf, good, n);
    f->n = n;
    f->h = (feed__index_hdr *)(f->buf + FEED_SHARDCACHE_HEADER_BYTES);
    char *b = (char *)f->h;
    f->e = (feed__index_entry *)(b + f->h->entries_off);
    f->shard = (uint64_t *)(b + f->h->shards_off);
    f->pool = b + f->h->pool_off;
    f->keys = (uint32_t *)(b + f->h->keys_off);
    f->moffs = (uint64_t *)(b + f->h->moffs_off);
    f->mlens = (uint32_t *)(b + f->h->mlens_off);
    f->xst = (uint32_t *)(b + f->h->xstarts_off);
    f->xl = (int32_t *)(b + f->h->xlabels_off);
}

/* Seals the forged file: refused with want, in memory and through a load. */
static void forge_end(forged *f, const char *want)
{
    feed__shardcache_seal(f->buf, f->n);
    feed__shardcache_view v;
    char why[256] = "";
    if (feed__shardcache_parse(f->buf, f->n, &v, why, sizeof why) != -1 || !strstr(why, want))
        fail_msg("forged file: why '%s', wanted '%s'", why, want);
    tu_write(cache, f->buf, f->n);
    expect_refused(want);
    free(f->buf);
}

/* The file good[0..n) with its options replaced by o[0..on), unsealed; *out_n its size. */
static uint8_t *with_options(const uint8_t *good, size_t n, const void *o, uint64_t on, size_t *out_n)
{
    uint64_t ib, tb, kb, ob, pb;
    memcpy(&ib, good + 32, 8), memcpy(&tb, good + 48, 8), memcpy(&kb, good + 72, 8);
    memcpy(&ob, good + 80, 8), memcpy(&pb, good + 88, 8);
    size_t at = FEED_SHARDCACHE_HEADER_BYTES + ib + tb + kb;
    *out_n = n - ob + on;
    uint8_t *b = malloc(*out_n);
    memcpy(b, good, at);
    memcpy(b + at, o, on);
    memcpy(b + at + on, good + at + ob, pb);
    uint64_t total = *out_n;
    memcpy(b + 16, &total, 8), memcpy(b + 80, &on, 8);
    return b;
}

/* 3c: each structural check, on a file crafted to break it (checksums right). */
static void test_structure(void **state)
{
    size_t n;
    uint8_t *good = saved(&n);
    forged f;
    const feed__index_hdr *h = (const feed__index_hdr *)(good + FEED_SHARDCACHE_HEADER_BYTES);
    uint64_t mask = FEED_INDEX_MAX_SHARD_OFFSET;
    /* sanity: the untouched file, sealed again, loads */
    forge_begin(&f, good, n);
    feed__shardcache_seal(f.buf, n);
    assert_memory_equal(f.buf, good, n);
    free(f.buf);

    /* the sample -> shard mapping */
    forge_begin(&f, good, n);
    f.e[1].path_off = (uint64_t)NSHARDS << FEED_INDEX_SHARD_SHIFT | (f.e[1].path_off & mask);
    forge_end(&f, "sample 1: shard 3 out of range or order");
    forge_begin(&f, good, n);
    f.e[h->count - 1].path_off &= mask; /* the last sample (shard 2) in shard 0: out of order */
    forge_end(&f, "out of range or order");
    /* image ranges: overlapping the previous sample's, not at a member's data */
    forge_begin(&f, good, n);
    f.e[1].path_off = f.e[0].path_off + 512;
    forge_end(&f, "sample 1: its image member");
    forge_begin(&f, good, n);
    f.e[2].path_off += 100;
    forge_end(&f, "sample 2: its image member");
    forge_begin(&f, good, n);
    f.e[0].path_off &= ~mask; /* offset 0: no header before it */
    forge_end(&f, "sample 0: its image member");

    /* offsets past the pool or the index */
    forge_begin(&f, good, n);
    f.shard[1] = f.h->pool_bytes;
    forge_end(&f, "shard 1: a bad path");
    forge_begin(&f, good, n);
    f.shard[1] = f.h->keys_off - f.h->pool_off; /* into the key table: not a string of the pool */
    forge_end(&f, "shard 1: a bad path");
    forge_begin(&f, good, n);
    f.shard[1] = 1ull << 62;
    forge_end(&f, "shard 1: a bad path");
    forge_begin(&f, good, n);
    f.pool[f.shard[0]] = 0; /* an empty path */
    forge_end(&f, "shard 0: a bad path");
    forge_begin(&f, good, n);
    f.keys[3] = (uint32_t)f.h->pool_bytes;
    forge_end(&f, "sample 3: its key is outside the pool");
    forge_begin(&f, good, n);
    f.h->pool_bytes += 4096;
    forge_end(&f, "index offsets out of bounds");
    forge_begin(&f, good, n);
    f.h->count = 1ull << 60;
    forge_end(&f, "index offsets out of bounds");
    forge_begin(&f, good, n);
    f.h->keys_off = f.h->pool_off; /* overlapping the pool */
    forge_end(&f, "index offsets out of bounds");
    forge_begin(&f, good, n);
    f.h->mlens_off = f.h->total_bytes - 4;
    forge_end(&f, "index offsets out of bounds");
    forge_begin(&f, good, n);
    f.h->shards_off += 4; /* misaligned */
    forge_end(&f, "index offsets out of bounds");

    /* strings without their NUL */
    forge_begin(&f, good, n);
    f.pool[f.h->pool_bytes - 1] = 'x';
    forge_end(&f, "string pool not terminated");
    forge_begin(&f, good, n);
    memset(f.h->root, '/', sizeof f.h->root);
    forge_end(&f, "a bad root");
    forge_begin(&f, good, n);
    f.h->root[0] = 'x'; /* not absolute */
    forge_end(&f, "a bad root");
    forge_begin(&f, good, n);
    f.h->root[100] = 'x'; /* past its NUL */
    forge_end(&f, "a bad root");
    forge_begin(&f, good, n);
    f.pool[-1] = 1; /* between the shard table and the pool */
    forge_end(&f, "not zero");
    forge_begin(&f, good, n);
    ((char *)f.h)[f.h->total_bytes - 1] = 1; /* the last page's tail */
    forge_end(&f, "not zero");

    /* labels */
    forge_begin(&f, good, n);
    f.e[4].label = (int32_t)f.h->nclasses;
    forge_end(&f, "sample 4: a label out of range");
    forge_begin(&f, good, n);
    f.e[4].label = -1;
    forge_end(&f, "sample 4: a label out of range");
    forge_begin(&f, good, n);
    f.xl[0] = (int32_t)f.h->nclasses + 7;
    forge_end(&f, "sample 1: a label out of range");
    forge_begin(&f, good, n);
    f.xl[0] = f.e[1].label; /* sample 1's "1,4": 1 twice */
    forge_end(&f, "sample 1: a label twice");
    forge_begin(&f, good, n);
    f.h->nclasses += 1;
    forge_end(&f, "7 classes, the largest label 5");
    forge_begin(&f, good, n);
    assert_int_equal(f.xst[2], 1);
    f.xst[3] = 0; /* starts going back: sample 2's */
    forge_end(&f, "sample 2: its extra label start goes back");
    forge_begin(&f, good, n);
    f.xst[2] = (uint32_t)f.h->nextra + 1; /* sample 1's labels past the table */
    forge_end(&f, "sample 1: more labels than a sample has or the index holds");
    forge_begin(&f, good, n);
    f.xst[f.h->count] -= 1;
    forge_end(&f, "extra label starts do not span");
    forge_begin(&f, good, n);
    f.h->max_labels += 1;
    forge_end(&f, "at most 3 labels a sample, the header says 4");

    /* member ranges */
    forge_begin(&f, good, n);
    f.moffs[0] = f.e[0].path_off & mask; /* sample 0's json at its image */
    forge_end(&f, "sample 0: a member range is inconsistent");
    forge_begin(&f, good, n);
    f.moffs[2 * 2 + 1] = f.moffs[2 * 2]; /* sample 2's txt at its json */
    forge_end(&f, "sample 2: a member range is inconsistent");
    forge_begin(&f, good, n);
    f.moffs[2 * 3] += 8;
    forge_end(&f, "sample 3: a member range is inconsistent");
    forge_begin(&f, good, n);
    assert_int_equal(f.moffs[2 * 1 + 1], FEED_INDEX_NO_MEMBER); /* sample 1 has no txt */
    f.mlens[2 * 1 + 1] = 5;
    forge_end(&f, "sample 1: a member range is inconsistent");
    forge_begin(&f, good, n);
    f.mlens[0] = (uint32_t)((f.e[1].path_off & mask) - f.moffs[0]); /* sample 0's json over its txt */
    forge_end(&f, "sample 0: a member range is inconsistent");

    forge_begin(&f, good, n);
    f.h->count = 0;
    forge_end(&f, "0 samples of 3 shards in 6 classes");
    forge_begin(&f, good, n);
    f.h->nclasses = 0;
    forge_end(&f, "9 samples of 3 shards in 0 classes");
    forge_begin(&f, good, n);
    f.h->nshards = 0;
    forge_end(&f, "9 samples of 0 shards");
    forge_begin(&f, good, n);
    f.h->entries_off -= 64; /* over the header */
    forge_end(&f, "index offsets out of bounds");
    forge_begin(&f, good, n);
    f.h->entries_off += 64; /* into the gap before the (empty) class table: entries overlap the shard table */
    forge_end(&f, "index offsets out of bounds");

    /* the header's fields against the options */
    forge_begin(&f, good, n);
    f.h->nmeta = 1;
    forge_end(&f, "1 metadata members a sample, the options 2");
    forge_begin(&f, good, n);
    f.h->kind = FEED_INDEX_FILES;
    forge_end(&f, "not a shard index of this version");
    forge_begin(&f, good, n);
    f.h->labels_off = 64;
    forge_end(&f, "not a shard index of this version");
    forge_begin(&f, good, n);
    f.h->npy.h = 1;
    forge_end(&f, "not a shard index of this version");
    forge_begin(&f, good, n);
    f.h->reserved2 = 1;
    forge_end(&f, "not a shard index of this version");
    forge_begin(&f, good, n);
    f.h->named_classes = 1;
    forge_end(&f, "not a shard index of this version");
    forge_begin(&f, good, n);
    f.h->total_bytes -= 4096;
    forge_end(&f, "not a shard index of this version");
    forge_begin(&f, good, n);
    f.h->problems = 0; /* a first problem kept, none counted */
    forge_end(&f, "a bad first problem");
    /* the options: multi_label off under extra labels; bad option bytes */
    uint64_t ib, tb, kb, ob, pb; /* the options follow the index, the targets and the key */
    memcpy(&ib, good + 32, 8), memcpy(&tb, good + 48, 8), memcpy(&kb, good + 72, 8);
    memcpy(&ob, good + 80, 8), memcpy(&pb, good + 88, 8);
    uint64_t opt_at = FEED_SHARDCACHE_HEADER_BYTES + ib + tb + kb;
    assert_int_equal(opt_at + ob + pb, n);
    assert_memory_equal(good + opt_at, "1npy\0json\0txt\0", ob);
    forge_begin(&f, good, n);
    f.buf[opt_at] = '0';
    forge_end(&f, "extra labels without multi_label");
    forge_begin(&f, good, n);
    f.buf[opt_at] = '2';
    forge_end(&f, "bad options");
    forge_begin(&f, good, n);
    f.buf[opt_at + 5] = 0; /* "json" -> "" */
    forge_end(&f, "bad options");
    /* the first problem with a NUL in it */
    forge_begin(&f, good, n);
    f.buf[n - 3] = 0;
    forge_end(&f, "a bad first problem");
    /* targets: another row width */
    forge_begin(&f, good, n);
    f.buf[64] = 3; /* dim 3: 9 x 2 values are not rows of 3 */
    forge_end(&f, "targets are not one row a sample");
    forge_begin(&f, good, n);
    f.buf[64] = 1, f.buf[68] = 7; /* no such dtype, of rows that would fit as 8-byte ones */
    forge_end(&f, "targets are not one row a sample");
    forge_begin(&f, good, n);
    f.buf[64] = 0; /* no rows */
    forge_end(&f, "targets are not one row a sample");
    forge_begin(&f, good, n);
    f.buf[104] = 1; /* the reserved bytes */
    forge_end(&f, "sizes do not add up");
    forge_begin(&f, good, n);
    f.buf[88] -= 1; /* a byte of the file in no piece */
    forge_end(&f, "sizes do not add up");

    /* options longer than any a caller has */
    char longer[FEED_SHARDCACHE_OPTIONS_MAX + 16] = "1npy\0json\0";
    memset(longer + 10, 't', sizeof longer - 11);
    longer[sizeof longer - 1] = 0;
    size_t nl;
    forged l = {.buf = with_options(good, n, longer, sizeof longer, &nl), .n = nl};
    forge_end(&l, "bad options");
    /* an index whose size is not the builder's (whole pages): its last 8 bytes cut */
    uint8_t *cut = malloc(n - 8);
    memcpy(cut, good, FEED_SHARDCACHE_HEADER_BYTES + ib - 8);
    memcpy(cut + FEED_SHARDCACHE_HEADER_BYTES + ib - 8, good + FEED_SHARDCACHE_HEADER_BYTES + ib,
           n - FEED_SHARDCACHE_HEADER_BYTES - ib);
    memcpy(cut + 16, &(uint64_t){n - 8}, 8), memcpy(cut + 32, &(uint64_t){ib - 8}, 8);
    ((feed__index_hdr *)(cut + FEED_SHARDCACHE_HEADER_BYTES))->total_bytes = ib - 8;
    forged c = {.buf = cut, .n = n - 8};
    forge_end(&c, "not a shard index of this version");
    forge_begin(&f, good, n);
    f.h->version += 1;
    forge_end(&f, "not a shard index of this version");
    forge_begin(&f, good, n);
    f.h->magic ^= 1;
    forge_end(&f, "not a shard index of this version");

    /* rows of more values than a target has (the file made anew around them) */
    uint64_t dim = FEED_NPY_MAX_TARGET_DIM + 1, tbytes = h->count * dim * 4;
    uint8_t *big = calloc(1, n + tbytes);
    memcpy(big, good, FEED_SHARDCACHE_HEADER_BYTES + ib);
    memcpy(big + FEED_SHARDCACHE_HEADER_BYTES + ib + tbytes, good + FEED_SHARDCACHE_HEADER_BYTES + ib + tb,
           n - FEED_SHARDCACHE_HEADER_BYTES - ib - tb);
    uint64_t total = n - tb + tbytes;
    memcpy(big + 16, &total, 8), memcpy(big + 48, &tbytes, 8), memcpy(big + 64, &(uint32_t){(uint32_t)dim}, 4);
    forged g = {.buf = big, .n = total};
    forge_end(&g, "targets are not one row a sample");
    free(good);
}

/* 3d: the checks that only an index without members, targets or extra labels reaches. */
static void test_structure_plain(void **state)
{
    feed__index plain;
    build(&plain, NULL);
    save_ok(&plain, NULL);
    size_t n;
    uint8_t *good = tu_read_file(cache, &n);
    feed__index_free(&plain);
    forged f;
    forge_begin(&f, good, n);
    f.buf[64] = 1; /* targets none asked for */
    feed__shardcache_seal(f.buf, n);
    feed__shardcache_view v;
    char why[256] = "";
    assert_int_equal(feed__shardcache_parse(f.buf, n, &v, why, sizeof why), -1);
    assert_non_null(strstr(why, "targets are not one row a sample"));
    free(f.buf);
    static const struct {
        size_t field;
        const char *want;
    } bad[] = {
        {offsetof(feed__index_hdr, max_labels), "extra label tables without extra labels"},
        {offsetof(feed__index_hdr, xstarts_off), "extra label tables without extra labels"},
        {offsetof(feed__index_hdr, xlabels_off), "extra label tables without extra labels"},
        {offsetof(feed__index_hdr, moffs_off), "member tables without members"},
        {offsetof(feed__index_hdr, mlens_off), "member tables without members"},
    };
    /* five metadata members a sample (the index holds four at most), their tables in place */
    static const char five[] = "0\0a\0b\0c\0d\0e";
    size_t n5;
    f.buf = with_options(good, n, five, sizeof five, &n5);
    f.n = n5;
    f.h = (feed__index_hdr *)(f.buf + FEED_SHARDCACHE_HEADER_BYTES);
    f.h->nmeta = 5;
    f.h->moffs_off = FEED_ALIGN_UP(f.h->keys_off + f.h->count * 4, 64);
    f.h->mlens_off = f.h->moffs_off + f.h->count * 5 * 8;
    assert_true(f.h->mlens_off + f.h->count * 5 * 4 <= f.h->total_bytes);
    memset((char *)f.h + f.h->moffs_off, 0xff, f.h->count * 5 * 8); /* none: FEED_INDEX_NO_MEMBER */
    forge_end(&f, "bad options");
    for (size_t i = 0; i < FEED_ARRAY_SIZE(bad); i++) {
        forge_begin(&f, good, n);
        ((uint8_t *)f.h)[bad[i].field] += 64;
        feed__shardcache_seal(f.buf, n);
        why[0] = 0;
        assert_int_equal(feed__shardcache_parse(f.buf, n, &v, why, sizeof why), -1);
        if (!strstr(why, bad[i].want))
            fail_msg("field at %zu: '%s'", bad[i].field, why);
        free(f.buf);
    }
    free(good);
}

/* 4: truncated, empty, extended, oversized. */
static void test_truncated(void **state)
{
    size_t n;
    uint8_t *good = saved(&n), *buf = malloc(n + 1);
    feed__shardcache_view v;
    char why[256];
    for (size_t k = 0; k < n; k++) {
        why[0] = 0;
        if (feed__shardcache_parse(good, k, &v, why, sizeof why) != -1 || !strstr(why, "truncated"))
            fail_msg("%zu bytes of %zu: '%s'", k, n, why);
    }
    for (size_t k = 0; k < n; k += k < 200 ? 1 : 509) {
        tu_write(cache, good, k);
        expect_refused("truncated");
    }
    tu_write(cache, "", 0);
    expect_refused("truncated (0 bytes)");
    memcpy(buf, good, n);
    buf[n] = 0;
    tu_write(cache, buf, n + 1);
    expect_refused("truncated or extended");
    /* sizes far past the file, the checksums right */
    const size_t at[] = {16, 32, 48, 72, 80, 88};
    for (size_t i = 0; i < FEED_ARRAY_SIZE(at); i++) {
        memcpy(buf, good, n);
        memcpy(buf + at[i], &(uint64_t){1ull << 62}, 8);
        feed__shardcache_seal(buf, n);
        tu_write(cache, buf, n);
        expect_refused(at[i] == 16 ? "truncated or extended" : "sizes do not add up");
        /* the declared total matching the others: still the file's size that counts */
        uint64_t total = (1ull << 62) + n;
        memcpy(buf + 16, &total, 8);
        feed__shardcache_seal(buf, n);
        tu_write(cache, buf, n);
        expect_refused("truncated or extended");
    }
    /* two sizes that overflow to the right sum */
    memcpy(buf, good, n);
    uint64_t kb, big = 1ull << 63;
    memcpy(&kb, buf + 72, 8);
    memcpy(buf + 72, &(uint64_t){kb + big}, 8);
    memcpy(buf + 80, &(uint64_t){*(uint64_t *)(good + 80) + big}, 8);
    feed__shardcache_seal(buf, n);
    tu_write(cache, buf, n);
    expect_refused("sizes do not add up");
    free(buf);
    free(good);
}

/* Each allocation of a load failing in turn: refused with a reason, nothing leaked (ASan). */
static void test_alloc_fail(void **state)
{
    save_ok(&ix, &mem);
    feed__targets t;
    feed__shard_members m = mem;
    m.targets = &t;
    feed__index got;
    char why[256];
    long k;
    for (k = 0; k < 100; k++) {
        feed__alloc_fail_after(k);
        int rc = feed__shardcache_load(cache, KEY, sizeof KEY, paths, NSHARDS, &m, &got, why, sizeof why);
        feed__alloc_fail_after(-1);
        if (rc == 1)
            break;
        assert_non_null(strstr(why, "no memory"));
    }
    assert_true(k >= 3);
    assert_memory_equal(got.hdr, ix.hdr, ix.hdr->total_bytes);
    feed__index_free(&got);
    feed__targets_free(&t);
    for (k = 0; k < 100; k++) {
        feed__alloc_fail_after(k);
        int rc = feed__shardcache_save(cache, &ix, &mem, KEY, sizeof KEY, why, sizeof why);
        feed__alloc_fail_after(-1);
        if (rc == 0)
            break;
        assert_non_null(strstr(why, "out of memory"));
    }
    assert_true(k >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),     cmocka_unit_test(test_mismatch),
        cmocka_unit_test(test_every_byte),     cmocka_unit_test(test_every_byte_resealed),
        cmocka_unit_test(test_structure),      cmocka_unit_test(test_structure_plain),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_alloc_fail),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

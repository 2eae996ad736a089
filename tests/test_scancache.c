/*
 * test_scancache.c - the saved ImageFolder scan (src/dataset/scancache.c): a reload
 * gives the identical index; adding, removing or renaming a file, a nested
 * folder or a class makes it stale (the folder is scanned again and the
 * result equals a fresh scan); a file rewritten in place keeps it; a
 * corrupt, truncated or forged file is refused with a reason and rebuilt;
 * an unwritable place is reported and the scan goes on.
 */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <time.h>

#include "dataset/scancache.h"
#include "testutil.h"

static char *root;

static void mkfile(const char *rel, const char *content)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    tu_write(p, content, strlen(content));
}

static void mkdir_rel(const char *rel)
{
    char p[3000];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    tu_mkdirs(p);
}

/* A small tree: three classes, one with nested folders, one empty. */
static void make_tree(void)
{
    root = tu_mkdtemp("scan");
    mkdir_rel("ant/sub/deeper");
    mkdir_rel("bee");
    mkdir_rel("cat");
    mkdir_rel("empty");
    mkfile("ant/a1.jpg", "a1");
    mkfile("ant/a2.JPEG", "a2");
    mkfile("ant/sub/s1.jpg", "s1");
    mkfile("ant/sub/deeper/d1.jpg", "d1");
    mkfile("ant/notes.txt", "not an image");
    mkfile("bee/b1.jpg", "b1");
    mkfile("cat/c1.jpg", "c1");
    mkfile("cat/c2.jpg", "c2");
}

static int age_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= 3600;
    t[1] = t[0];
    utimensat(AT_FDCWD, p, t, AT_SYMLINK_NOFOLLOW);
    return 0;
}

/* Every file and folder an hour old: the scan is quiet enough to save. */
static void age_tree(void)
{
    nftw(root, age_one, 16, FTW_PHYS);
}

static int setup_tree(void **state)
{
    make_tree();
    age_tree();
    return 0;
}

static int teardown_tree(void **state)
{
    tu_rmtree(root);
    free(root);
    return 0;
}

typedef struct result {
    feed__index ix;
    int hit;
    char note[1024];
} result;

static void build(result *r, int cache, const char *path)
{
    char err[512];
    memset(r, 0, sizeof *r);
    feed__index_spec s = {.source = root, .scan_cache = (uint32_t)cache, .scan_cache_path = path,
                          .note = r->note, .notelen = sizeof r->note, .cache_hit = &r->hit,
                          .allow_empty_classes = 1}; /* the tree's "empty" class */
    if (feed__index_build_spec(&r->ix, &s, err, sizeof err) != FEED_OK)
        fail_msg("build: %s", err);
}

static void assert_same_index(const feed__index_hdr *a, const feed__index_hdr *b)
{
    assert_int_equal(a->total_bytes, b->total_bytes);
    assert_int_equal(a->count, b->count);
    assert_memory_equal(a, b, a->total_bytes);
}

/* The saved scan, as a fresh scan sees the folder now. */
static void assert_matches_fresh(const feed__index_hdr *h)
{
    result f;
    build(&f, 0, NULL);
    assert_same_index(h, f.ix.hdr);
    feed__index_free(&f.ix);
}

static void test_reload_identical(void **state)
{
    result a, b;
    build(&a, 1, NULL);
    assert_int_equal(a.hit, 0);
    assert_non_null(strstr(a.note, "folder scan saved to"));
    assert_non_null(strstr(a.note, FEED_SCAN_CACHE_NAME));
    assert_int_equal(a.ix.hdr->count, 7);
    assert_int_equal(a.ix.skipped, 1);
    assert_string_equal(a.ix.skipped_names, "ant/notes.txt");
    build(&b, 1, NULL);
    assert_int_equal(b.hit, 1);
    assert_string_equal(b.note, "");
    assert_same_index(a.ix.hdr, b.ix.hdr);
    /* what the scan left out is said again from the saved one */
    assert_int_equal(b.ix.skipped, 1);
    assert_string_equal(b.ix.skipped_names, "ant/notes.txt");
    assert_matches_fresh(b.ix.hdr);
    /* shared with the workers like a scanned one */
    char err[256];
    assert_int_equal(feed__index_share(&b.ix, err, sizeof err), FEED_OK);
    assert_same_index(a.ix.hdr, b.ix.hdr);
    feed__index_free(&a.ix);
    feed__index_free(&b.ix);
}

/* What changes the folder, and what does not. */
static void mutate(int k)
{
    char a[4200], b[4200];
    switch (k) {
    case 0: mkfile("bee/b2.jpg", "new"); break;                                  /* a file added */
    case 1: snprintf(a, sizeof a, "%s/cat/c2.jpg", root); unlink(a); break;      /* removed */
    case 2: snprintf(a, sizeof a, "%s/cat/c2.jpg", root);                        /* renamed */
            snprintf(b, sizeof b, "%s/cat/c0.jpg", root); rename(a, b); break;
    case 3: mkdir_rel("dog"); break;                                             /* a class added */
    case 4: snprintf(a, sizeof a, "%s/empty", root); rmdir(a); break;           /* a class removed */
    case 5: snprintf(a, sizeof a, "%s/bee", root);                               /* a class renamed */
            snprintf(b, sizeof b, "%s/bug", root); rename(a, b); break;
    case 6: mkfile("ant/sub/deeper/d2.jpg", "new"); break;                       /* deep inside */
    case 7: mkdir_rel("ant/sub/new"); break;                                     /* a folder added */
    case 8: snprintf(a, sizeof a, "%s/ant/sub/deeper/d1.jpg", root);             /* moved up a level */
            snprintf(b, sizeof b, "%s/ant/d1.jpg", root); rename(a, b); break;
    case 9: mkfile("ant/x.png.jpg", "new"); break;
    }
}
#define NMUTATIONS 10

static void test_changes_invalidate(void **state)
{
    teardown_tree(NULL); /* a fresh tree for each change */
    for (int k = 0; k < NMUTATIONS; k++) {
        make_tree();
        age_tree();
        result a, b;
        build(&a, 1, NULL);
        assert_non_null(strstr(a.note, "saved"));
        mutate(k);
        build(&b, 1, NULL);
        if (b.hit || !strstr(b.note, "out of date"))
            fail_msg("change %d: not seen (hit %d, note '%s')", k, b.hit, b.note);
        assert_matches_fresh(b.ix.hdr);
        /* saved again only when no folder it read is recent (case 4 removes a
         * class: the root's listing, not a time, shows that) */
        if (k != 4 && k != 5 && !strstr(b.note, "not saved"))
            fail_msg("change %d: a recent folder saved: '%s'", k, b.note);
        age_tree();
        result c, d;
        build(&c, 1, NULL);
        build(&d, 1, NULL);
        assert_int_equal(d.hit, 1);
        assert_same_index(c.ix.hdr, d.ix.hdr);
        feed__index_free(&a.ix), feed__index_free(&b.ix), feed__index_free(&c.ix), feed__index_free(&d.ix);
        teardown_tree(NULL);
    }
    setup_tree(NULL); /* for the tests after this one */
}

static void test_in_place_keeps(void **state)
{
    result a, b;
    build(&a, 1, NULL);
    assert_true(a.hit || strstr(a.note, "saved"));
    char p[4200];
    snprintf(p, sizeof p, "%s/cat/c1.jpg", root);
    int fd = open(p, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "rewritten", 9), 9);
    close(fd);
    mkfile("README", "a file at the root is no sample");
    mkdir_rel(".hidden");
    build(&b, 1, NULL);
    assert_int_equal(b.hit, 1);
    assert_same_index(a.ix.hdr, b.ix.hdr);
    feed__index_free(&a.ix), feed__index_free(&b.ix);
}

static uint8_t *read_cache(const char *path, size_t *n)
{
    return tu_read_file(path, n);
}

/* Writes buf back with its checksum made right again: a forged file. */
static void forge(const char *path, uint8_t *buf, size_t n)
{
    uint64_t c = feed__scancache_checksum(buf + FEED_SCAN_HEADER_BYTES, n - FEED_SCAN_HEADER_BYTES);
    memcpy(buf + FEED_SCAN_CHECKSUM_AT, &c, 8);
    tu_write(path, buf, n);
}

static void expect_refused(const char *path, const char *want)
{
    result r;
    build(&r, 1, path);
    if (r.hit || !strstr(r.note, "not usable") || !strstr(r.note, want))
        fail_msg("hit %d, note '%s' (wanted '%s')", r.hit, r.note, want);
    assert_matches_fresh(r.ix.hdr);
    feed__index_free(&r.ix);
}

static void test_corrupt_refused(void **state)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/.scan-copy", root);
    result a;
    build(&a, 1, path);
    assert_non_null(strstr(a.note, "saved"));
    feed__index_free(&a.ix);
    size_t n;
    uint8_t *good = read_cache(path, &n), *buf = malloc(n);
    uint64_t index_off, ndirs;
    memcpy(&index_off, good + 64, 8);
    memcpy(&ndirs, good + 32, 8);
    assert_true(ndirs >= 6);
    feed__index_hdr h;
    memcpy(&h, good + index_off, sizeof h);
    feed__index_entry *e;

    memcpy(buf, good, n);
    buf[n / 2] ^= 1;
    tu_write(path, buf, n);
    expect_refused(path, "checksum mismatch");

    tu_write(path, good, n - 7);
    expect_refused(path, "truncated");
    tu_write(path, good, 100);
    expect_refused(path, "truncated");
    tu_write(path, "garbage, not a scan file at all, but long enough to have a header of 128 bytes: "
                   "................................................", 128);
    expect_refused(path, "not a libfeed scan file");

    /* forged, with a right checksum: every offset is checked */
    memcpy(buf, good, n);
    e = (feed__index_entry *)(buf + index_off + h.entries_off);
    e[2].path_off = 1ull << 40;
    forge(path, buf, n);
    expect_refused(path, "sample 2: a bad path");

    memcpy(buf, good, n);
    e = (feed__index_entry *)(buf + index_off + h.entries_off);
    memcpy(buf + index_off + h.pool_off + e[0].path_off, "ant/../../x", 11); /* as long as "ant/a1.jpg"+1 */
    e[0].path_len = 11;
    buf[index_off + h.pool_off + e[0].path_off + 11] = 0;
    forge(path, buf, n);
    expect_refused(path, "a bad path");

    memcpy(buf, good, n);
    e = (feed__index_entry *)(buf + index_off + h.entries_off);
    e[5].label = 4;
    forge(path, buf, n);
    expect_refused(path, "label 4 out of order or range");

    memcpy(buf, good, n);
    ((feed__index_hdr *)(buf + index_off))->count = 1ull << 60;
    forge(path, buf, n);
    expect_refused(path, "offsets out of bounds");

    memcpy(buf, good, n);
    memcpy(buf + 40, &(uint64_t){1ull << 50}, 8); /* dirs_off */
    forge(path, buf, n);
    expect_refused(path, "offsets out of bounds");

    memcpy(buf, good, n);
    memcpy(buf + 12, &(uint32_t){feed__index_scan_rules() ^ 1}, 4); /* other scan rules */
    forge(path, buf, n);
    expect_refused(path, "another libfeed version");

    /* the pure check on each prefix of the file: refused, never a crash */
    feed__scancache_view v;
    char why[256];
    for (size_t k = 0; k < n; k += 7)
        assert_int_equal(feed__scancache_parse(good, k, feed__index_scan_rules(), &v, why, sizeof why), -1);
    assert_int_equal(feed__scancache_parse(good, n, feed__index_scan_rules(), &v, why, sizeof why), 0);
    free(buf);
    free(good);
}

static void test_recent_not_saved(void **state)
{
    mkfile("bee/fresh.jpg", "now");
    result a;
    char path[4200];
    snprintf(path, sizeof path, "%s/.recent", root);
    build(&a, 1, path);
    assert_non_null(strstr(a.note, "not saved"));
    assert_non_null(strstr(a.note, "bee"));
    assert_int_equal(access(path, F_OK), -1);
    feed__index_free(&a.ix);
    age_tree();
}

static void test_unwritable(void **state)
{
    result a;
    build(&a, 1, "/nonexistent-libfeed-dir/scan");
    assert_non_null(strstr(a.note, "cannot save the folder scan to /nonexistent-libfeed-dir/scan"));
    assert_non_null(strstr(a.note, "No such file"));
    assert_matches_fresh(a.ix.hdr);
    feed__index_free(&a.ix);
    if (geteuid() == 0) {
        print_message("running as root: a read-only folder cannot be made with chmod; not checked\n");
        return;
    }
    char p[4200];
    snprintf(p, sizeof p, "%s/" FEED_SCAN_CACHE_NAME, root);
    unlink(p);
    chmod(root, 0555);
    build(&a, 1, NULL);
    chmod(root, 0755);
    assert_non_null(strstr(a.note, "read-only folder"));
    feed__index_free(&a.ix);
}

static void test_loader_option(void **state)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/" FEED_SCAN_CACHE_NAME, root);
    unlink(p);
    result fresh;
    build(&fresh, 0, NULL);
    for (int k = 0; k < 2; k++) {
        feed_options o;
        char err[1024];
        feed_options_init(&o, sizeof o);
        snprintf(o.source, sizeof o.source, "%s", root);
        assert_int_equal(feed_options_parse(&o, "scan_cache=1,workers=1,height=8,width=8,allow_empty_classes=1",
                                            err, sizeof err), FEED_OK);
        feed_loader *L;
        assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_OK);
        assert_int_equal(feed_loader_num_samples(L), fresh.ix.hdr->count);
        assert_string_equal(feed_loader_class_name(L, 3), "empty");
        char path[8400];
        int32_t label;
        assert_int_equal(feed_loader_sample_info(L, 2, path, sizeof path, &label), FEED_OK);
        char want[8400];
        snprintf(want, sizeof want, "%s/ant/sub/deeper/d1.jpg", root);
        assert_string_equal(path, want);
        assert_int_equal(label, 0);
        feed_loader_destroy(L);
        assert_int_equal(access(p, R_OK), 0);
    }
    /* the saved scan (there now) is held to the empty-class rule as a fresh scan is */
    feed_options o;
    char err[1024];
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", root);
    assert_int_equal(feed_options_parse(&o, "scan_cache=1,workers=1,height=8,width=8", err, sizeof err), FEED_OK);
    feed_loader *L;
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_E_DATASET);
    if (!strstr(err, "class folder 'empty' has no images"))
        fail_msg("%s", err);
    assert_int_equal(access(p, R_OK), 0);
    feed__index_free(&fresh.ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reload_identical),
        cmocka_unit_test(test_changes_invalidate),
        cmocka_unit_test(test_in_place_keeps),
        cmocka_unit_test(test_corrupt_refused),
        cmocka_unit_test(test_recent_not_saved),
        cmocka_unit_test(test_unwritable),
        cmocka_unit_test(test_loader_option),
    };
    return cmocka_run_group_tests(tests, setup_tree, teardown_tree);
}

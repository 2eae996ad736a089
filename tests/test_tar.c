/*
 * test_tar.c - WebDataset tar shards: the header scan (tar.c), malformed
 * shards, the source patterns (shards.c), shards written by GNU tar, and the
 * loader over shards against the same images as loose files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>

#include "dataset/index.h"
#include "dataset/shards.h"
#include "dataset/tar.h"
#include "testutil.h"

/* ---- a tar in memory ------------------------------------------------------------ */

typedef struct tbuf {
    uint8_t *p;
    size_t n, cap;
} tbuf;

static void tb_put(tbuf *t, const void *d, size_t n)
{
    if (t->n + n > t->cap) {
        t->cap = (t->n + n) * 2 + 4096;
        t->p = realloc(t->p, t->cap);
        assert_non_null(t->p);
    }
    memcpy(t->p + t->n, d, n);
    t->n += n;
}

/* Appends a member; returns its header offset. */
static size_t tb_member(tbuf *t, const char *name, const char *data)
{
    static const uint8_t zero[512];
    uint8_t h[512];
    size_t n = strlen(data), at = t->n;
    assert_int_equal(feed__tar_header(h, name, n, 0), 0);
    tb_put(t, h, 512);
    tb_put(t, data, n);
    tb_put(t, zero, (512 - n % 512) % 512);
    return at;
}

static void tb_end(tbuf *t)
{
    static const uint8_t zero[1024];
    tb_put(t, zero, sizeof zero);
}

static int64_t mem_read(void *ctx, void *buf, size_t n, uint64_t off)
{
    tbuf *t = ctx;
    if (off >= t->n)
        return 0;
    if (n > t->n - off)
        n = t->n - off;
    memcpy(buf, t->p + off, n);
    return (int64_t)n;
}

/* ---- what a scan found ---------------------------------------------------------- */

typedef struct found {
    uint64_t off[64], len[64];
    int32_t label[64];
    int n;
    char problems[8][1024];
    int np;
} found;

static int on_sample(void *ctx, const char *member, uint64_t hdr_off, uint64_t off, uint64_t len,
                     const int32_t *labels, uint32_t nlabels)
{
    found *f = ctx;
    assert_int_equal(nlabels, 1); /* multi_label is off in these scans */
    int32_t label = labels[0];
    assert_int_equal(off, hdr_off + 512);
    assert_non_null(strstr(member, "."));
    assert_true(f->n < 64);
    f->off[f->n] = off, f->len[f->n] = len, f->label[f->n] = label;
    f->n++;
    return 0;
}

static void on_problem(void *ctx, const char *shard, const char *member, uint64_t off, const char *what)
{
    found *f = ctx;
    if (f->np < 8)
        snprintf(f->problems[f->np], sizeof f->problems[0], "%s: member '%s' at offset %llu: %s", shard,
                 member, (unsigned long long)off, what);
    f->np++;
}

static void scan(tbuf *t, found *f)
{
    memset(f, 0, sizeof *f);
    feed__tar_io io = {mem_read, t, t->n};
    feed__tar_sink sink = {.sample = on_sample, .problem = on_problem, .ctx = f};
    char err[256];
    assert_int_equal(feed__tar_scan(&io, "/d/s.tar", &sink, err, sizeof err), FEED_OK);
}

/* The sample's bytes are data. */
static void assert_sample(const tbuf *t, const found *f, int i, const char *data, int32_t label)
{
    assert_true(i < f->n);
    assert_int_equal(f->len[i], strlen(data));
    assert_memory_equal(t->p + f->off[i], data, strlen(data));
    assert_int_equal(f->label[i], label);
}

/* Three samples a, b, c; hoff[k] = header offset of member k. */
static void three(tbuf *t, size_t hoff[6], int skip)
{
    const char *names[6] = {"a.jpg", "a.cls", "b.jpg", "b.cls", "c.jpg", "c.cls"};
    const char *data[6] = {"JPEG of a", "3", "JPEG of b", " 17\n", "JPEG of c", "0"};
    for (int k = 0; k < 6; k++)
        if (k != skip)
            hoff[k] = tb_member(t, names[k], data[k]);
}

static void test_scan_well_formed(void **state)
{
    (void)state;
    tbuf t = {0};
    size_t h[6];
    tb_member(&t, "dir/x01.jpeg", "first");
    tb_member(&t, "dir/x01.json", "{}");
    tb_member(&t, "dir/x01.cls", "5");
    three(&t, h, -1);
    tb_member(&t, "dir/y.seg.png", "a mask: field seg.png, not the image");
    tb_member(&t, "dir/y.PNG", "png bytes");
    tb_member(&t, "dir/y.cls", "9");
    tb_member(&t, "__meta__.txt", "ignored: no image, no label");
    tb_end(&t);
    found f;
    scan(&t, &f);
    if (f.np)
        fail_msg("%s", f.problems[0]);
    assert_int_equal(f.n, 5);
    assert_sample(&t, &f, 0, "first", 5);
    assert_sample(&t, &f, 1, "JPEG of a", 3);
    assert_sample(&t, &f, 2, "JPEG of b", 17);
    assert_sample(&t, &f, 3, "JPEG of c", 0);
    /* The key is up to the first dot of the name ("dir/y"), the extension
     * the rest ("seg.png" is another field), in any case ("PNG"). */
    assert_sample(&t, &f, 4, "png bytes", 9);
    free(t.p);
}

static void test_scan_bad_checksum(void **state)
{
    (void)state;
    tbuf t = {0};
    size_t h[6];
    three(&t, h, -1);
    tb_end(&t);
    t.p[h[2] + 10] ^= 0x55; /* b.jpg's header, inside its name: the checksum no longer matches */
    found f;
    scan(&t, &f);
    assert_int_equal(f.n, 2);
    assert_sample(&t, &f, 0, "JPEG of a", 3);
    assert_sample(&t, &f, 1, "JPEG of c", 0);
    assert_true(f.np >= 1);
    char want[128];
    snprintf(want, sizeof want, "/d/s.tar: member 'b.jpg");
    assert_non_null(strstr(f.problems[0], want));
    snprintf(want, sizeof want, "at offset %zu: bad tar header", h[2]);
    assert_non_null(strstr(f.problems[0], want));
    free(t.p);
}

static void test_scan_truncated(void **state)
{
    (void)state;
    tbuf t = {0};
    size_t h[6];
    three(&t, h, -1);
    t.n = h[4] + 512 + 4; /* cut inside c.jpg's data */
    found f;
    scan(&t, &f);
    assert_int_equal(f.n, 2);
    assert_sample(&t, &f, 0, "JPEG of a", 3);
    assert_sample(&t, &f, 1, "JPEG of b", 17);
    assert_int_equal(f.np, 1);
    char want[256];
    snprintf(want, sizeof want, "/d/s.tar: member 'c.jpg' at offset %zu: member of 9 bytes at offset %zu runs past the end",
             h[4], h[4] + 512);
    assert_non_null(strstr(f.problems[0], want));
    free(t.p);
}

static void test_scan_missing_label(void **state)
{
    (void)state;
    tbuf t = {0};
    size_t h[6];
    three(&t, h, 3); /* no b.cls */
    tb_end(&t);
    found f;
    scan(&t, &f);
    assert_int_equal(f.n, 2);
    assert_sample(&t, &f, 0, "JPEG of a", 3);
    assert_sample(&t, &f, 1, "JPEG of c", 0);
    assert_int_equal(f.np, 1);
    char want[256];
    snprintf(want, sizeof want, "/d/s.tar: member 'b.jpg' at offset %zu: sample 'b' has no label member (b.cls)", h[2]);
    assert_string_equal(f.problems[0], want);
    free(t.p);
}

static void test_scan_duplicate_and_bad_label(void **state)
{
    (void)state;
    tbuf t = {0};
    size_t h[6];
    three(&t, h, -1);
    size_t dup = tb_member(&t, "a.jpg", "again");
    tb_member(&t, "a.cls", "4");
    size_t bad = tb_member(&t, "d.cls", "x1");
    tb_member(&t, "d.jpg", "JPEG of d");
    tb_member(&t, "e.jpg", "JPEG of e");
    tb_member(&t, "e.cls", "2");
    tb_end(&t);
    found f;
    scan(&t, &f);
    assert_int_equal(f.n, 4);
    assert_sample(&t, &f, 0, "JPEG of a", 3);
    assert_sample(&t, &f, 1, "JPEG of b", 17);
    assert_sample(&t, &f, 2, "JPEG of c", 0);
    assert_sample(&t, &f, 3, "JPEG of e", 2);
    assert_int_equal(f.np, 2);
    char want[256];
    snprintf(want, sizeof want, "/d/s.tar: member 'a.jpg' at offset %zu: duplicate key 'a'", dup);
    assert_non_null(strstr(f.problems[0], want));
    snprintf(want, sizeof want, "/d/s.tar: member 'd.cls' at offset %zu: label 'x1' is not an integer", bad);
    assert_non_null(strstr(f.problems[1], want));
    free(t.p);
}

/* Checksums: names with bytes >= 0x80 (UTF-8), summed unsigned as POSIX says
 * or signed as some old tars did, are both accepted; off by one is not. */
static void test_scan_checksums(void **state)
{
    (void)state;
    for (int mode = 0; mode < 3; mode++) {
        tbuf t = {0};
        size_t h = tb_member(&t, "caf\xc3\xa9/\xe5\x9b\xbe.jpg", "JPEG");
        tb_member(&t, "caf\xc3\xa9/\xe5\x9b\xbe.cls", "8");
        tb_end(&t);
        uint8_t *hdr = t.p + h;
        if (mode) {
            int sum = 0;
            for (int k = 0; k < 512; k++)
                sum += k >= 148 && k < 156 ? ' ' : (int8_t)hdr[k];
            snprintf((char *)hdr + 148, 8, "%06o", (unsigned)(sum + (mode == 2)) & 0777777u);
            hdr[155] = ' ';
        }
        found f;
        scan(&t, &f);
        if (mode < 2) {
            assert_int_equal(f.np, 0);
            assert_int_equal(f.n, 1);
            assert_sample(&t, &f, 0, "JPEG", 8);
        } else {
            assert_int_equal(f.n, 0);
            assert_non_null(strstr(f.problems[0], "bad tar header"));
        }
        free(t.p);
    }
}

/* ---- files: patterns, lists, GNU tar --------------------------------------------------- */

static char *dir;

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp("tar");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree(dir);
    free(dir);
    return 0;
}

/* A shard of n samples, labels first_label.. */
static void write_shard(const char *path, int n, int first_label)
{
    tbuf t = {0};
    for (int i = 0; i < n; i++) {
        char name[64], lab[16], body[4400];
        snprintf(name, sizeof name, "k%03d.jpg", i);
        snprintf(body, sizeof body, "image %d of %.4000s", i, path);
        tb_member(&t, name, body);
        snprintf(name, sizeof name, "k%03d.cls", i);
        snprintf(lab, sizeof lab, "%d", first_label + i);
        tb_member(&t, name, lab);
    }
    tb_end(&t);
    tu_write(path, t.p, t.n);
    free(t.p);
}

static void build(const char *source, feed__index *ix, feed_status want, const char *errpart)
{
    char err[1024] = "";
    feed_status st = feed__index_build(ix, source, "", err, sizeof err);
    if (st != want)
        fail_msg("%s: status %d (%s)", source, st, err);
    if (errpart && !strstr(err, errpart))
        fail_msg("error '%s' does not contain '%s'", err, errpart);
}

static void test_patterns(void **state)
{
    (void)state;
    char p[9000];
    for (int s = 0; s < 3; s++) {
        snprintf(p, sizeof p, "%s/train-%04d.tar", dir, s);
        write_shard(p, 4, 10 * s);
    }
    feed__index ix;
    snprintf(p, sizeof p, "%s/train-{0000..0002}.tar", dir);
    build(p, &ix, FEED_OK, NULL);
    assert_int_equal(ix.hdr->count, 12);
    assert_int_equal(ix.hdr->kind, FEED_INDEX_SHARDS);
    assert_int_equal(ix.hdr->nshards, 3);
    for (uint64_t i = 0; i < 12; i++) {
        assert_int_equal(feed__index_label(ix.hdr, i), 10 * (int)(i / 4) + (int)(i % 4));
        char want[9000];
        snprintf(want, sizeof want, "%s/train-%04d.tar", dir, (int)(i / 4));
        char real[PATH_MAX];
        assert_non_null(realpath(want, real));
        assert_string_equal(feed__index_path(ix.hdr, i), real);
        uint64_t off = 0, len = 0;
        assert_true(feed__index_range(ix.hdr, i, &off, &len));
        /* the bytes at (off, len) are that sample's image member */
        size_t flen;
        uint8_t *bytes = tu_read_file(real, &flen);
        char body[9100];
        snprintf(body, sizeof body, "image %d of %s", (int)(i % 4), want);
        assert_int_equal(len, strlen(body));
        assert_memory_equal(bytes + off, body, len);
        free(bytes);
        char key[8];
        snprintf(key, sizeof key, "k%03d", (int)(i % 4));
        assert_non_null(feed__index_key(ix.hdr, i));
        assert_string_equal(feed__index_key(ix.hdr, i), key);
    }
    /* the index costs 16 bytes a sample and its key (4 bytes, "k000" and
     * its NUL), the paths once per shard */
    assert_int_equal(ix.hdr->pool_bytes, 3 * (strlen(feed__index_path(ix.hdr, 0)) + 1) + 12 * 5);
    feed__index_free(&ix);

    snprintf(p, sizeof p, "%s/train-{0002,0000}.tar", dir);
    build(p, &ix, FEED_OK, NULL);
    assert_int_equal(ix.hdr->count, 8);
    assert_int_equal(feed__index_label(ix.hdr, 0), 20);
    feed__index_free(&ix);

    snprintf(p, sizeof p, "%s/train-*.tar", dir);
    build(p, &ix, FEED_OK, NULL);
    assert_int_equal(ix.hdr->count, 12);
    assert_int_equal(feed__index_label(ix.hdr, 11), 23);
    feed__index_free(&ix);

    snprintf(p, sizeof p, "%s/train-0001.tar", dir);
    build(p, &ix, FEED_OK, NULL);
    assert_int_equal(ix.hdr->count, 4);
    feed__index_free(&ix);

    /* a list of shards, relative to its folder */
    char list[20000];
    snprintf(list, sizeof list, "%s/shards.txt", dir);
    const char *text = "# shards\n\ntrain-0001.tar\ntrain-0000.tar\n";
    tu_write(list, text, strlen(text));
    build(list, &ix, FEED_OK, NULL);
    assert_int_equal(ix.hdr->count, 8);
    assert_int_equal(feed__index_label(ix.hdr, 0), 10);
    feed__index_free(&ix);

    /* the list as file_list, relative to a directory source */
    char sub[3000];
    snprintf(sub, sizeof sub, "%.2000s/sub", dir);
    tu_mkdirs(sub);
    snprintf(list, sizeof list, "%s/sub/list.txt", dir);
    text = "train-0002.tar\n";
    tu_write(list, text, strlen(text));
    char err[1024];
    assert_int_equal(feed__index_build(&ix, dir, list, err, sizeof err), FEED_OK);
    assert_int_equal(ix.hdr->count, 4);
    assert_int_equal(feed__index_label(ix.hdr, 0), 20);
    feed__index_free(&ix);

    /* errors */
    snprintf(p, sizeof p, "%s/train-*.tar", dir);
    assert_int_equal(feed__index_build(&ix, p, list, err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "is a shard pattern: file_list"));
    snprintf(p, sizeof p, "%s/nothing-*.tar", dir);
    build(p, &ix, FEED_E_DATASET, "matches no files");
    snprintf(p, sizeof p, "%s/train-{0000..0005}.tar", dir);
    snprintf(list, sizeof list, "%s/train-0003.tar (from pattern %s): No such file", dir, p);
    build(p, &ix, FEED_E_DATASET, list);
    snprintf(p, sizeof p, "%s/train-{0000..0002.tar", dir);
    build(p, &ix, FEED_E_DATASET, "a brace must be a range");
    snprintf(list, sizeof list, "%s/bad.txt", dir);
    text = "train-0000.tar\nmissing.tar\n";
    tu_write(list, text, strlen(text));
    char want[20100];
    snprintf(want, sizeof want, "(%s:2): No such file", list);
    build(list, &ix, FEED_E_DATASET, want);
    snprintf(p, sizeof p, "%s/empty.tar", dir);
    tu_write(p, "", 0);
    build(p, &ix, FEED_E_DATASET, "hold no samples");
}

/* A malformed shard among good ones: its good samples and all the others load. */
static void test_malformed_shard_in_index(void **state)
{
    (void)state;
    char p[4200];
    snprintf(p, sizeof p, "%s/m-0.tar", dir);
    write_shard(p, 3, 0);
    snprintf(p, sizeof p, "%s/m-1.tar", dir);
    tbuf t = {0};
    size_t h[6];
    three(&t, h, -1);
    t.p[h[2] + 10] ^= 0x55;
    tb_end(&t);
    tu_write(p, t.p, t.n);
    free(t.p);
    snprintf(p, sizeof p, "%s/m-2.tar", dir);
    write_shard(p, 3, 100);
    feed__index ix;
    snprintf(p, sizeof p, "%s/m-{0..2}.tar", dir);
    build(p, &ix, FEED_OK, NULL);
    assert_int_equal(ix.hdr->count, 3 + 2 + 3);
    assert_true(ix.hdr->problems >= 1);
    /* the first report is kept for feed_loader_shard_problems */
    assert_non_null(strstr(ix.first_problem, "m-1.tar: member '"));
    assert_int_equal(feed__index_label(ix.hdr, 3), 3);
    assert_int_equal(feed__index_label(ix.hdr, 4), 0);
    assert_int_equal(feed__index_label(ix.hdr, 7), 102);
    feed__index_free(&ix);
}

/* Shards written by GNU tar from a folder: gnu (long names as 'L' members),
 * posix (pax headers), ustar (name + prefix). */
static void test_gnu_tar(void **state)
{
    (void)state;
    if (system("tar --version >/dev/null 2>&1") != 0) {
        print_message("skipped: no GNU tar here (apt-get install tar)\n");
        skip();
    }
    char src[3000], cmd[9000];
    const char *longdir = "a_directory_name_long_enough_that_the_whole_member_path_is_over_one_hundred_bytes";
    snprintf(src, sizeof src, "%.2000s/g/%s", dir, longdir);
    tu_mkdirs(src);
    for (int i = 0; i < 5; i++) {
        char f[4400], body[64];
        snprintf(f, sizeof f, "%s/sample%02d.jpg", src, i);
        snprintf(body, sizeof body, "bytes of image %d", i);
        tu_write(f, body, strlen(body));
        snprintf(f, sizeof f, "%s/sample%02d.cls", src, i);
        snprintf(body, sizeof body, "%d\n", 7 * i);
        tu_write(f, body, strlen(body));
    }
    const char *formats[] = {"gnu", "posix", "ustar"};
    for (int k = 0; k < 3; k++) {
        snprintf(cmd, sizeof cmd, "cd '%s/g' && tar --format=%s --sort=name -cf '%s/%s.tar' %s", dir,
                 formats[k], dir, formats[k], longdir);
        assert_int_equal(system(cmd), 0);
        char p[4200];
        snprintf(p, sizeof p, "%s/%s.tar", dir, formats[k]);
        feed__index ix;
        build(p, &ix, FEED_OK, NULL);
        assert_int_equal(ix.hdr->count, 5);
        assert_int_equal(ix.hdr->problems, 0);
        size_t flen;
        uint8_t *bytes = tu_read_file(p, &flen);
        for (int i = 0; i < 5; i++) {
            char body[64];
            snprintf(body, sizeof body, "bytes of image %d", i);
            uint64_t off = 0, len = 0;
            assert_true(feed__index_range(ix.hdr, (uint64_t)i, &off, &len));
            assert_int_equal(len, strlen(body));
            assert_memory_equal(bytes + off, body, len);
            assert_int_equal(feed__index_label(ix.hdr, (uint64_t)i), 7 * i);
        }
        free(bytes);
        feed__index_free(&ix);
    }
}


/* ---- the loader over shards ----------------------------------------------------------- */

static feed_loader *open_loader(const char *source, uint32_t rank, uint32_t world, const char *extra)
{
    feed_options o;
    char err[1024];
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", source);
    if (feed_options_parse(&o, "batch_size=5,shuffle=1,seed=7,augment=train,height=32,width=32,"
                               "resize_shorter=40,workers=2",
                           err, sizeof err) != FEED_OK)
        fail_msg("%s", err);
    if (extra && feed_options_parse(&o, extra, err, sizeof err) != FEED_OK)
        fail_msg("%s", err);
    o.rank = rank;
    o.world_size = world;
    feed_loader *L = NULL;
    if (feed_loader_create(&L, &o, err, sizeof err) != FEED_OK)
        fail_msg("create %s: %s", source, err);
    return L;
}

/* feed-mkdata --format tar makes the same images as shards; the loader over
 * them gives, batch for batch, the same ids, labels and pixels as over the
 * loose files listed in the same order (so shuffling, augmentation, rank
 * shares and determinism are those of any source), each sample exactly once
 * an epoch. */
static void test_loader_shards_equal_loose_files(void **state)
{
    (void)state;
    enum { N = 37, K = 4 };
    const char *bin = getenv("FEED_BIN");
    char shards[4200], loose[4200], cmd[9000], src_a[4400], src_b[4400];
    snprintf(shards, sizeof shards, "%s/mk-tar", dir);
    snprintf(loose, sizeof loose, "%s/mk-folder", dir);
    snprintf(cmd, sizeof cmd,
             "'%s/feed-mkdata' --out '%s' --count %d --seed 3 --classes %d --format tar "
             "--shard-size 8 --quiet && '%s/feed-mkdata' --out '%s' --count %d --seed 3 --classes %d --quiet",
             bin ? bin : "build/bin", shards, N, K, bin ? bin : "build/bin", loose, N, K);
    assert_int_equal(system(cmd), 0);
    /* the loose files in image order (the shards' order) */
    snprintf(src_b, sizeof src_b, "%s/order.txt", loose);
    FILE *f = fopen(src_b, "w");
    assert_non_null(f);
    for (int i = 0; i < N; i++)
        fprintf(f, "class_%03d/img_%06d.jpg %d\n", i % K, i, i % K);
    fclose(f);
    snprintf(src_a, sizeof src_a, "%s/shards.txt", shards);
    uint64_t epoch1[N];
    uint32_t n1 = 0;
    for (uint32_t world = 1; world <= 2; world++) {
        uint32_t seen[2][N] = {{0}};
        for (uint32_t rank = 0; rank < world; rank++) {
            feed_loader *A = open_loader(src_a, rank, world, NULL), *B = open_loader(src_b, rank, world, NULL);
            for (uint32_t e = 0; e < 2; e++) {
                feed_batch a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b};
                feed_status sa, sb;
                while ((sa = feed_loader_next(A, &a, 60000)) == FEED_OK) {
                    sb = feed_loader_next(B, &b, 60000);
                    assert_int_equal(sb, FEED_OK);
                    assert_int_equal(a.count, b.count);
                    assert_int_equal(a.bad, 0);
                    assert_memory_equal(a.sample_ids, b.sample_ids, a.count * sizeof(uint64_t));
                    assert_memory_equal(a.labels, b.labels, a.count * sizeof(int32_t));
                    assert_memory_equal(a.data, b.data, a.count * a.sample_bytes);
                    for (uint32_t i = 0; i < a.count; i++) {
                        assert_true(a.sample_ids[i] < N);
                        assert_int_equal(a.labels[i], (int32_t)(a.sample_ids[i] % K));
                        seen[e][a.sample_ids[i]]++;
                        if (world == 1 && e == 1)
                            epoch1[n1++] = a.sample_ids[i];
                    }
                    assert_int_equal(feed_batch_release(A, &a, NULL), FEED_OK);
                    assert_int_equal(feed_batch_release(B, &b, NULL), FEED_OK);
                }
                assert_int_equal(sa, FEED_END_OF_EPOCH);
                assert_int_equal(feed_loader_next(B, &b, 60000), FEED_END_OF_EPOCH);
            }
            feed_loader_destroy(A);
            feed_loader_destroy(B);
        }
        for (uint32_t e = 0; e < 2; e++)
            for (int i = 0; i < N; i++)
                if (world == 1)
                    assert_int_equal(seen[e][i], 1); /* exactly once */
                else
                    assert_true(seen[e][i] >= 1); /* rank shares cover every sample */
    }
    /* resuming at epoch 1 gives epoch 1's order */
    assert_int_equal(n1, N);
    feed_loader *R = open_loader(src_a, 0, 1, "start_epoch=1");
    feed_batch r = {.struct_size = sizeof r};
    uint32_t k = 0;
    while (feed_loader_next(R, &r, 60000) == FEED_OK) {
        assert_int_equal(r.epoch, 1);
        assert_memory_equal(r.sample_ids, epoch1 + k, r.count * sizeof(uint64_t));
        k += r.count;
        assert_int_equal(feed_batch_release(R, &r, NULL), FEED_OK);
    }
    assert_int_equal(k, N);
    feed_loader_destroy(R);
}

/* A shard cut short after it was indexed: the samples past the cut become
 * bad samples (replaced, reported), their report naming the shard and the
 * member's offset; every other sample is delivered. */
static void test_shard_changed_after_indexing(void **state)
{
    (void)state;
    const char *bin = getenv("FEED_BIN");
    char out[4200], cmd[9000], src[4400], last[4400];
    snprintf(out, sizeof out, "%s/mk-cut", dir);
    snprintf(cmd, sizeof cmd, "'%s/feed-mkdata' --out '%s' --count 12 --seed 4 --classes 3 --format tar "
             "--shard-size 6 --quiet", bin ? bin : "build/bin", out);
    assert_int_equal(system(cmd), 0);
    snprintf(src, sizeof src, "%s/shards.txt", out);
    /* cut shard 1 inside its last image member */
    snprintf(last, sizeof last, "%s/shard-000001.tar", out);
    feed__index ix;
    build(src, &ix, FEED_OK, NULL);
    uint64_t off = 0, len = 0;
    assert_true(feed__index_range(ix.hdr, 11, &off, &len));
    char real[PATH_MAX];
    assert_non_null(realpath(last, real));
    assert_string_equal(feed__index_path(ix.hdr, 11), real);
    feed__index_free(&ix);
    feed_loader *L = open_loader(src, 0, 1, "prefetch=2");
    /* Named by its WebDataset key (img_000011.jpg + .cls: the 12th sample),
     * its bytes where sample_range says. */
    char name[4500], file[4500];
    snprintf(name, sizeof name, "%s:img_000011", real);
    char got[2 * FEED_PATH_MAX + 32];
    assert_int_equal(feed_loader_sample_info(L, 11, got, sizeof got, NULL), FEED_OK);
    assert_string_equal(got, name);
    uint64_t roff = 0, rlen = 0;
    assert_int_equal(feed_loader_sample_range(L, 11, file, sizeof file, &roff, &rlen), FEED_OK);
    assert_string_equal(file, real);
    assert_int_equal(roff, off);
    assert_int_equal(rlen, len);
    /* Cut it after epoch 0 (3 batches): the ring, 2 batches ahead, may have
     * read epoch 1's first samples already, not any of epoch 2's. */
    uint32_t delivered[3] = {0}, bad[3] = {0};
    for (uint32_t e = 0; e < 3; e++) {
        feed_batch b = {.struct_size = sizeof b};
        feed_status st;
        while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
            delivered[e] += b.count;
            bad[e] += b.bad;
            assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
        }
        assert_int_equal(st, FEED_END_OF_EPOCH);
        if (e == 0)
            assert_int_equal(truncate(last, (off_t)(off + len / 2)), 0);
    }
    assert_int_equal(delivered[0] + delivered[1] + delivered[2], 3 * 12);
    assert_int_equal(bad[0], 0);
    assert_int_equal(bad[2], 1);
    feed_bad_sample r = {.struct_size = sizeof r};
    assert_int_equal(feed_loader_bad_sample(L, 0, &r), FEED_OK);
    assert_int_equal(r.sample_id, 11);
    assert_int_equal(r.status, FEED_E_IO);
    assert_string_equal(r.path, name);
    char want[128];
    snprintf(want, sizeof want, "member at offset %llu (%llu bytes): bytes %llu..%llu are past the end",
             (unsigned long long)off, (unsigned long long)len, (unsigned long long)off,
             (unsigned long long)(off + len));
    if (!strstr(r.message, want))
        fail_msg("'%s' does not contain '%s'", r.message, want);
    feed_loader_destroy(L);
}

/* ---- a shard bigger than the index holds (virtual: no disk) ---------------------------- */

typedef struct vblock {
    uint64_t off;
    uint8_t b[512];
} vblock;

typedef struct vshard {
    vblock blk[12];
    int n;
    uint64_t size;
} vshard;

static int64_t vread(void *ctx, void *buf, size_t n, uint64_t off)
{
    const vshard *v = ctx;
    if (off >= v->size)
        return 0;
    if (n > v->size - off)
        n = (size_t)(v->size - off);
    memset(buf, 0, n);
    for (int i = 0; i < v->n; i++) {
        uint64_t a = v->blk[i].off;
        if (a + 512 <= off || a >= off + n)
            continue;
        uint64_t from = a > off ? a : off, to = a + 512 < off + n ? a + 512 : off + n;
        memcpy((uint8_t *)buf + (from - off), v->blk[i].b + (from - a), (size_t)(to - from));
    }
    return (int64_t)n;
}

static void vmember(vshard *v, uint64_t *at, const char *name, uint64_t size, const char *data)
{
    assert_true(v->n + 2 <= (int)(sizeof v->blk / sizeof v->blk[0]));
    vblock *h = &v->blk[v->n++];
    h->off = *at;
    if (size < 077777777777ull) {
        assert_int_equal(feed__tar_header(h->b, name, size, 0), 0);
    } else { /* base-256 size (GNU): feed__tar_header writes octal only */
        assert_int_equal(feed__tar_header(h->b, name, 0, 0), 0);
        memset(h->b + 124, 0, 12);
        h->b[124] = 0x80;
        for (int k = 0; k < 8; k++)
            h->b[135 - k] = (uint8_t)(size >> (8 * k));
        memset(h->b + 148, ' ', 8);
        unsigned sum = 0;
        for (int k = 0; k < 512; k++)
            sum += h->b[k];
        snprintf((char *)h->b + 148, 8, "%06o", sum);
        h->b[155] = ' ';
    }
    if (data) {
        vblock *d = &v->blk[v->n++];
        d->off = *at + 512;
        memset(d->b, 0, 512);
        memcpy(d->b, data, strlen(data));
    }
    *at += 512 + (size + 511) / 512 * 512;
}

static feed_status vopen(void *ctx, uint32_t i, feed__tar_io *io, char *err, size_t errlen)
{
    (void)i, (void)err, (void)errlen;
    vshard *v = ctx;
    *io = (feed__tar_io){vread, v, v->size};
    return FEED_OK;
}

static void vclose(void *ctx, feed__tar_io *io)
{
    (void)ctx, (void)io;
}

/* A sample past 1 TiB into its shard (after a 1.1 TiB member with a base-256
 * size) cannot be indexed: it is reported and skipped, the one before it kept. */
static void test_shard_past_index_limits(void **state)
{
    (void)state;
    vshard v = {0};
    uint64_t at = 0;
    vmember(&v, &at, "a.jpg", 5, "aaaaa");
    vmember(&v, &at, "a.cls", 1, "4");
    vmember(&v, &at, "big.bin", 1100ull << 30, NULL);
    uint64_t past = at;
    vmember(&v, &at, "k.jpg", 3, "kkk");
    vmember(&v, &at, "k.cls", 1, "6");
    v.size = at + 1024;
    feed__index ix;
    char err[256];
    char *paths[] = {"/virtual/big.tar"};
    assert_int_equal(feed__index_build_shards(&ix, "/", paths, 1, vopen, vclose, &v, 0, err, sizeof err), FEED_OK);
    assert_int_equal(ix.hdr->count, 1);
    assert_int_equal(ix.hdr->problems, 1);
    assert_true(past > (1ull << 40)); /* k.jpg's header; its report names it (stderr) */
    uint64_t off = 0, len = 0;
    assert_true(feed__index_range(ix.hdr, 0, &off, &len));
    assert_int_equal(off, 512);
    assert_int_equal(len, 5);
    assert_int_equal(feed__index_label(ix.hdr, 0), 4);
    assert_true(past > (1ull << 40));
    feed__index_free(&ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_well_formed),
        cmocka_unit_test(test_scan_bad_checksum),
        cmocka_unit_test(test_scan_truncated),
        cmocka_unit_test(test_scan_missing_label),
        cmocka_unit_test(test_scan_duplicate_and_bad_label),
        cmocka_unit_test(test_scan_checksums),
        cmocka_unit_test(test_patterns),
        cmocka_unit_test(test_malformed_shard_in_index),
        cmocka_unit_test(test_gnu_tar),
        cmocka_unit_test(test_shard_past_index_limits),
        cmocka_unit_test(test_loader_shards_equal_loose_files),
        cmocka_unit_test(test_shard_changed_after_indexing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

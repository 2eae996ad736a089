/*
 * test_fetch_cache.c - feed-fetch's cache directory (src/remote/fetch_cache.c):
 * the tar check of a download (a whole tar passes; a changed header byte, a cut
 * file, a member past the end do not), the records, and eviction: least
 * recently used first, never a version of a URL this run keeps or a running
 * loader holds (a flocked .inuse list), a list whose owner is gone removed,
 * and "no room" when what is kept does not leave enough; the chain check of
 * a range (whole members from its start to its end, nothing else) and the
 * .ranges files (named after the .tar, counted by the blocks they have,
 * evicted as a .tar is).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dataset/tar.h"
#include "remote/fetch.h"
#include "remote/fetch_cache.h"
#include "testutil.h"

/* A tar of members of the given sizes (each with its data), two zero blocks. */
static size_t make_tar(uint8_t *buf, const uint64_t *sizes, int n)
{
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "s%05d.jpg", i);
        assert_int_equal(feed__tar_header(buf + off, name, sizes[i], 0), 0);
        off += 512;
        memset(buf + off, 'a' + i, sizes[i]);
        off += (sizes[i] + 511) / 512 * 512;
    }
    memset(buf + off, 0, 1024);
    return off + 1024;
}

static int check_bytes(const uint8_t *buf, size_t len, char *why, size_t whylen)
{
    char path[] = "/tmp/feed-tarcheck-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    int rc = fetch_tar_check(fd, len, why, whylen);
    close(fd);
    return rc;
}

static void test_tar_check(void **state)
{
    (void)state;
    static uint8_t buf[64 * 1024];
    const uint64_t sizes[] = {1000, 0, 513, 4096};
    size_t len = make_tar(buf, sizes, 4);
    char why[256] = "";
    assert_int_equal(check_bytes(buf, len, why, sizeof why), 0);
    /* a tar that ends at a header boundary without the zero blocks is whole too */
    assert_int_equal(check_bytes(buf, len - 1024, why, sizeof why), 0);
    /* one byte of the second header changed */
    size_t h2 = 512 + 1024;
    buf[h2 + 5] ^= 0x20;
    assert_int_equal(check_bytes(buf, len, why, sizeof why), -1);
    assert_non_null(strstr(why, "checksum wrong at offset 1536"));
    buf[h2 + 5] ^= 0x20;
    /* cut inside the last member's data: past the end */
    size_t last = len - 1024 - 4096;
    assert_int_equal(check_bytes(buf, last + 1024, why, sizeof why), -1);
    assert_non_null(strstr(why, "runs past the end"));
    /* not a whole number of blocks */
    assert_int_equal(check_bytes(buf, len - 100, why, sizeof why), -1);
    assert_non_null(strstr(why, "512-byte"));
}

static void test_tar_chain(void **state)
{
    (void)state;
    static uint8_t buf[64 * 1024];
    const uint64_t sizes[] = {1000, 0, 513, 4096};
    make_tar(buf, sizes, 4);
    /* the members' headers: 0, 1536, 2048, 3584; the last ends at 3584 + 512 + 4096 = 8192 */
    char why[256] = "";
    assert_int_equal(fetch_tar_chain(buf, 8192, 0, why, sizeof why), 0);
    assert_int_equal(fetch_tar_chain(buf + 1536, 512, 1536, why, sizeof why), 0); /* the empty member */
    assert_int_equal(fetch_tar_chain(buf + 1536, 8192 - 1536, 1536, why, sizeof why), 0);
    /* not at a header */
    assert_int_equal(fetch_tar_chain(buf + 512, 1024, 512, why, sizeof why), -1);
    assert_non_null(strstr(why, "no tar header at offset 512"));
    /* ends inside a member's data, or inside a header, or past the last member into the zero blocks */
    assert_int_equal(fetch_tar_chain(buf, 1024, 0, why, sizeof why), -1);
    assert_non_null(strstr(why, "runs past the range's end (1024)"));
    assert_int_equal(fetch_tar_chain(buf, 1536 + 100, 0, why, sizeof why), -1);
    assert_non_null(strstr(why, "ends inside it"));
    assert_int_equal(fetch_tar_chain(buf + 3584, 4608 + 512, 3584, why, sizeof why), -1);
    assert_non_null(strstr(why, "offset 8192 (zero blocks)"));
    /* one byte of the third header changed */
    buf[2048 + 7] ^= 1;
    assert_int_equal(fetch_tar_chain(buf, 8192, 0, why, sizeof why), -1);
    assert_non_null(strstr(why, "offset 2048 (its checksum is wrong)"));
}

/* A cached shard of url (version v) of `bytes` bytes, last used at `used`. */
static void put(const char *dir, const char *url, const char *v, size_t bytes, time_t used, char *tar_out)
{
    char tar[4200], meta[4200];
    cache_names(dir, url, v, tar, meta, sizeof tar);
    char *data = calloc(1, bytes);
    tu_write(tar, data, bytes);
    free(data);
    cache_rec r = {.size = bytes};
    snprintf(r.url, sizeof r.url, "%s", url);
    snprintf(r.etag, sizeof r.etag, "\"%s\"", v);
    assert_int_equal(cache_meta_write(meta, &r), 0);
    struct timespec ts[2] = {{used, 0}, {used, 0}};
    assert_int_equal(utimensat(AT_FDCWD, meta, ts, 0), 0);
    if (tar_out)
        strcpy(tar_out, tar);
}

static int exists(const char *p)
{
    return access(p, F_OK) == 0;
}

/* A running loader's held list DIR/.inuse/1-0.list holding text (under a
 * shared flock while the returned fd is open), its path in list. */
static int hold_list(const char *dir, const char *text, char list[4400])
{
    char inuse[4300];
    snprintf(inuse, sizeof inuse, "%s/.inuse", dir);
    mkdir(inuse, 0755);
    snprintf(list, 4400, "%s/1-0.list", inuse);
    int fd = open(list, O_CREAT | O_RDWR, 0644);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_SH), 0);
    assert_true(dprintf(fd, "%s", text) > 0);
    return fd;
}

static void test_records_and_names(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("feed-cache");
    char tar[4200], meta[4200], tar2[4200], meta2[4200];
    cache_names(dir, "https://h/a/train-000001.tar?x=1", "\"e1\"\n\n100", tar, meta, sizeof tar);
    assert_non_null(strstr(tar, "-train-000001.tar"));  /* the URL's own name, readable */
    cache_names(dir, "https://h/a/train-000001.tar?x=1", "\"e2\"\n\n100", tar2, meta2, sizeof tar2);
    assert_string_not_equal(tar, tar2);                   /* another version, another file */
    assert_memory_equal(tar, tar2, strlen(dir) + 1 + CACHE_KEY_LEN); /* the same key */
    cache_rec r = {.size = 12345}, back;
    strcpy(r.url, "s3://b/k.tar");
    strcpy(r.etag, "\"abc\"");
    strcpy(r.last_modified, "Mon, 01 Jan 2024 00:00:00 GMT");
    assert_int_equal(cache_meta_write(meta, &r), 0);
    assert_int_equal(cache_meta_read(meta, &back), 0);
    assert_string_equal(back.url, r.url);
    assert_string_equal(back.etag, r.etag);
    assert_string_equal(back.last_modified, r.last_modified);
    assert_int_equal(back.size, 12345);
    tu_write(meta, "s3://b/k.tar\n\"abc\"\n", 19); /* cut short */
    assert_int_equal(cache_meta_read(meta, &back), -1);
    char ranges[4200];
    assert_int_equal(cache_ranges_name(tar, ranges, sizeof ranges), 0);
    assert_int_equal(strlen(ranges), strlen(tar) + 3);
    assert_memory_equal(ranges, tar, strlen(tar) - 4);
    assert_string_equal(ranges + strlen(tar) - 4, ".ranges");
    assert_int_equal(cache_ranges_name(meta, ranges, sizeof ranges), -1); /* not a .tar */
    assert_int_equal(cache_ranges_name(tar, ranges, strlen(tar) + 3), -1); /* no room */
    tu_rmtree(dir);
    free(dir);
}

static void test_eviction(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("feed-cache");
    char a[4200], b[4200], c[4200], d[4200], why[512];
    put(dir, "http://h/a.tar", "1", 1000, 1000, a); /* oldest */
    put(dir, "http://h/b.tar", "1", 1000, 2000, b);
    put(dir, "http://h/c.tar", "1", 1000, 3000, c);
    put(dir, "http://h/d.tar", "1", 1000, 4000, d); /* newest */
    uint64_t kept = 0;
    /* 4000 used, limit 3500, 1000 more: two go, the oldest first, but a.tar is kept */
    char ka[CACHE_KEY_LEN + 1];
    cache_key("http://h/a.tar", ka);
    char *keep[] = {ka};
    int saved = tu_stderr_to("/dev/null");
    int rc = cache_make_room(dir, 3500, 1000, keep, 1, &kept, why, sizeof why);
    tu_stderr_back(saved);
    assert_int_equal(rc, 0);
    assert_int_equal(kept, 1000);
    assert_true(exists(a) && !exists(b) && !exists(c) && exists(d));
    /* d.tar held by a running loader (a list under a shared flock), a.tar kept:
     * nothing can go, and 3000 do not fit under 4500 */
    char list[4400];
    int fd = hold_list(dir, "http://h/d.tar\n", list);
    rc = cache_make_room(dir, 4500, 3000, keep, 1, &kept, why, sizeof why);
    assert_int_equal(rc, 1);
    assert_true(exists(a) && exists(d) && exists(list));
    /* the loader is gone (its lock with it): its list is removed, d.tar may go */
    close(fd);
    saved = tu_stderr_to("/dev/null");
    rc = cache_make_room(dir, 4500, 3000, keep, 1, &kept, why, sizeof why);
    tu_stderr_back(saved);
    assert_int_equal(rc, 0);
    assert_true(exists(a) && !exists(d) && !exists(list));
    /* no limit: nothing is looked at or removed */
    assert_int_equal(cache_make_room(dir, 0, 1ull << 50, NULL, 0, &kept, why, sizeof why), 0);
    assert_true(exists(a));
    tu_rmtree(dir);
    free(dir);
}

/* A .ranges file of a version of url: size bytes, written [off, off+len), last used at used. */
static void put_ranges(const char *dir, const char *url, uint64_t size, uint64_t off, uint64_t len, time_t used,
                       char *out)
{
    char tar[4200], meta[4200];
    cache_names(dir, url, "1", tar, meta, sizeof tar);
    assert_int_equal(cache_ranges_name(tar, out, 4200), 0);
    int fd = open(out, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    char *data = malloc(len);
    memset(data, 'x', len);
    assert_int_equal(pwrite(fd, data, len, (off_t)off), (ssize_t)len);
    free(data);
    close(fd);
    struct timespec ts[2] = {{used, 0}, {used, 0}};
    assert_int_equal(utimensat(AT_FDCWD, out, ts, 0), 0);
}

static uint64_t blocks_of(const char *p)
{
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    return (uint64_t)st.st_blocks * 512;
}

static void test_ranges_eviction(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("feed-cache");
    char a[4200], r1[4200], r2[4200], why[512];
    uint64_t kept = 0;
    put(dir, "http://h/a.tar", "1", 8192, 2000, a);
    put_ranges(dir, "http://h/r1.tar", 1 << 24, 1 << 20, 8192, 1000, r1); /* oldest */
    put_ranges(dir, "http://h/r2.tar", 1 << 24, 0, 8192, 3000, r2);       /* newest */
    uint64_t b1 = blocks_of(r1), b2 = blocks_of(r2);
    if (b1 >= 1 << 24 || b2 >= 1 << 24) { /* a file system without holes: nothing to tell apart */
        tu_rmtree(dir);
        free(dir);
        skip();
    }
    /* what they hold, not their 16 MiB: all fit */
    assert_int_equal(cache_make_room(dir, 8192 + b1 + b2 + 100, 100, NULL, 0, &kept, why, sizeof why), 0);
    assert_true(exists(a) && exists(r1) && exists(r2));
    /* 100 more than fit: the least recently used goes, a .ranges (it has no record) */
    int saved = tu_stderr_to("/dev/null");
    int rc = cache_make_room(dir, 8192 + b1 + b2 + 100, 200, NULL, 0, &kept, why, sizeof why);
    tu_stderr_back(saved);
    assert_int_equal(rc, 0);
    assert_true(exists(a) && !exists(r1) && exists(r2));
    /* r2 kept (its key), a.tar goes before it although newer */
    char k2[CACHE_KEY_LEN + 1];
    cache_key("http://h/r2.tar", k2);
    char *keep[] = {k2};
    saved = tu_stderr_to("/dev/null");
    rc = cache_make_room(dir, b2 + 100, 100, keep, 1, &kept, why, sizeof why);
    tu_stderr_back(saved);
    assert_int_equal(rc, 0);
    assert_int_equal(kept, b2);
    assert_true(!exists(a) && exists(r2));
    tu_rmtree(dir);
    free(dir);
}

/* A held list's "tar <TAB> URL" line holds the URL's .tar files only,
 * "ranges <TAB> URL" its .ranges files only, a bare URL both: a loader
 * reading by range does not keep a shard's whole copy from eviction. */
static void test_held_forms(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("feed-cache");
    char t[3][4200], r[3][4200], why[512], list[4400], text[200];
    const char *urls[3] = {"http://h/x.tar", "http://h/y.tar", "http://h/z.tar"};
    for (int i = 0; i < 3; i++) {
        put(dir, urls[i], "1", 4096, 1000 + i, t[i]);
        put_ranges(dir, urls[i], 4096, 0, 4096, 1000 + i, r[i]);
    }
    snprintf(text, sizeof text, "tar\t%s\nranges\t%s\n%s\n", urls[0], urls[1], urls[2]);
    int fd = hold_list(dir, text, list);
    uint64_t kept;
    int saved = tu_stderr_to("/dev/null");
    int rc = cache_make_room(dir, 1, 1ull << 40, NULL, 0, &kept, why, sizeof why); /* evict all it may */
    tu_stderr_back(saved);
    assert_int_equal(rc, 1);
    assert_true(exists(t[0]) && !exists(r[0]));
    assert_true(!exists(t[1]) && exists(r[1]));
    assert_true(exists(t[2]) && exists(r[2]));
    close(fd); /* the list's loader gone; a keep of z's key with 'r' keeps its .ranges only */
    char kz[CACHE_KEY_LEN + 2];
    cache_key(urls[2], kz);
    kz[CACHE_KEY_LEN] = 'r', kz[CACHE_KEY_LEN + 1] = 0;
    char *keep[] = {kz};
    saved = tu_stderr_to("/dev/null");
    rc = cache_make_room(dir, 1, 1ull << 40, keep, 1, &kept, why, sizeof why);
    tu_stderr_back(saved);
    assert_int_equal(rc, 1);
    assert_true(!exists(t[0]) && !exists(r[1]) && !exists(t[2]) && exists(r[2]));
    assert_int_equal(kept, blocks_of(r[2]));
    tu_rmtree(dir);
    free(dir);
}

/* A saved index (index-<hash>.shards) counts and is evicted, whatever is
 * kept or held (no loader needs it after create), but only after every shard
 * nobody holds, however recently used: without it a create scans them all. */
static void test_index_eviction(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("feed-cache");
    char a[4200], ix[4300], other[4300], why[512], key[CACHE_KEY_LEN + 1];
    uint64_t kept = 0;
    put(dir, "http://h/a.tar", "1", 8192, 2000, a);
    snprintf(ix, sizeof ix, "%s/index-0123456789abcdef.shards", dir);
    snprintf(other, sizeof other, "%s/index-0123.shards", dir); /* not an index name: never touched */
    char data[4096] = {0};
    tu_write(ix, data, sizeof data);
    tu_write(other, data, sizeof data);
    struct timespec ts[2] = {{1000, 0}, {1000, 0}};
    assert_int_equal(utimensat(AT_FDCWD, ix, ts, 0), 0);
    /* it counts: the shard and it fit exactly, one byte more does not */
    assert_int_equal(cache_make_room(dir, 8192 + 4096, 0, NULL, 0, &kept, why, sizeof why), 0);
    assert_true(exists(ix) && exists(a));
    /* an unheld shard goes before it, though more recently used */
    char b[4200];
    put(dir, "http://h/b.tar", "1", 4096, 3000, b);
    cache_key("http://h/a.tar", key);
    char *keep[] = {key};
    int saved = tu_stderr_to("/dev/null");
    int rc = cache_make_room(dir, 8192 + 4096, 0, keep, 1, &kept, why, sizeof why);
    tu_stderr_back(saved);
    assert_int_equal(rc, 0);
    assert_true(exists(ix) && exists(a) && !exists(b));
    /* then it goes, though its name starts like no key kept */
    saved = tu_stderr_to("/dev/null");
    rc = cache_make_room(dir, 8192 + 4096, 1, keep, 1, &kept, why, sizeof why);
    tu_stderr_back(saved);
    assert_int_equal(rc, 0);
    assert_true(!exists(ix) && exists(a) && exists(other));
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tar_check),
        cmocka_unit_test(test_tar_chain),
        cmocka_unit_test(test_ranges_eviction),
        cmocka_unit_test(test_index_eviction),
        cmocka_unit_test(test_held_forms),
        cmocka_unit_test(test_records_and_names),
        cmocka_unit_test(test_eviction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

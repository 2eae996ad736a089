/*
 * test_readahead.c - read-ahead (src/loader/readahead.c) asks the kernel for exactly
 * the files the workers will read next: after evicting the dataset from the
 * page cache (fadvise DONTNEED, no privileges needed), a loader whose
 * consumer does not move has the files of the ring's batches plus
 * `readahead` batches resident (mincore), and not one file beyond; each
 * consumed batch moves the window by one batch; a seek moves it to the new
 * position. With io_uring and with the one-file-at-a-time path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dataset/index.h"
#include "feed.h"
#include "testutil.h"

#define NIMG 64
#define BATCH 4
#define SLOTS 2
#define AHEAD 3

static char *data;
static feed__index ix;

static void file_path(uint64_t id, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", ix.hdr->root, feed__index_path(ix.hdr, id));
}

/* 1: every page of sample id's file is in the page cache; 0: none is;
 * -1: some are. */
static int resident(uint64_t id)
{
    char p[8192];
    file_path(id, p, sizeof p);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    assert_true(fd >= 0 && fstat(fd, &sb) == 0 && sb.st_size > 0);
    void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(m != MAP_FAILED);
    size_t pages = ((size_t)sb.st_size + 4095) / 4096, in = 0;
    unsigned char vec[4096];
    assert_true(pages <= sizeof vec);
    assert_int_equal(mincore(m, (size_t)sb.st_size, vec), 0);
    for (size_t i = 0; i < pages; i++)
        in += vec[i] & 1;
    munmap(m, (size_t)sb.st_size);
    close(fd);
    return in == pages ? 1 : in == 0 ? 0 : -1;
}

/* Drops every file of the dataset from the page cache; 0 if that worked. */
static int evict_all(void)
{
    for (uint64_t id = 0; id < NIMG; id++) {
        char p[8192];
        file_path(id, p, sizeof p);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return -1;
        fdatasync(fd);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
    for (uint64_t id = 0; id < NIMG; id++)
        if (resident(id) != 0)
            return -1;
    return 0;
}

static int setup(void **state)
{
    data = tu_dataset("readahead", NIMG, 5, 4, &ix);
    return 0;
}

static int teardown(void **state)
{
    feed__index_free(&ix);
    tu_rmtree(data);
    free(data);
    return 0;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static feed_stats stats(feed_loader *L)
{
    feed_stats s = {.struct_size = sizeof s};
    assert_int_equal(feed_loader_stats(L, &s), FEED_OK);
    return s;
}

/* Waits (up to 20 s) until the read-ahead has advised `files` files and the
 * files of positions [lo, hi) are resident; then checks that no file at or
 * past `none_from` (which nothing has touched) is. */
static void expect_window(feed_loader *L, uint64_t files, uint64_t lo, uint64_t hi, uint64_t none_from)
{
    uint64_t deadline = now_ms() + 20000;
    for (;;) {
        feed_stats s = stats(L);
        uint64_t missing = hi - lo;
        if (s.readahead_files == files) {
            missing = 0;
            for (uint64_t id = lo; id < hi; id++)
                missing += resident(id) != 1;
        }
        if (missing == 0 && s.readahead_files == files)
            break;
        if (now_ms() > deadline)
            fail_msg("read-ahead: %llu files advised (want %llu), %llu of positions %llu..%llu not resident",
                     (unsigned long long)s.readahead_files, (unsigned long long)files,
                     (unsigned long long)missing, (unsigned long long)lo, (unsigned long long)hi - 1);
        struct timespec ts = {0, 2000000}; /* polling a condition, with a deadline */
        nanosleep(&ts, NULL);
    }
    for (uint64_t id = none_from; id < NIMG; id++)
        if (resident(id) != 0)
            fail_msg("position %llu is in the page cache; read-ahead should stop at %llu",
                     (unsigned long long)id, (unsigned long long)none_from);
}

static void window(const char *reader, const char *want_mode)
{
    if (evict_all() != 0) {
        print_message("skipped: this file system keeps everything cached (tmpfs): nothing to see\n");
        skip();
    }
    feed_options o;
    char err[512];
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", data);
    char opts[256];
    snprintf(opts, sizeof opts,
             "batch_size=%d,prefetch=%d,readahead=%d,workers=1,shuffle=0,height=16,width=16,"
             "resize_shorter=16,reader=%s",
             BATCH, SLOTS, AHEAD, reader);
    assert_int_equal(feed_options_parse(&o, opts, err, sizeof err), FEED_OK);
    feed_loader *L = NULL;
    if (feed_loader_create(&L, &o, err, sizeof err) != FEED_OK)
        fail_msg("create: %s", err);
    feed_stats s0 = stats(L);
    if (strcmp(s0.readahead, want_mode) != 0 && !(want_mode[0] == '*' && strcmp(s0.readahead, "off")))
        fail_msg("readahead mode %s, want %s", s0.readahead, want_mode);
    print_message("read-ahead mode: %s\n", s0.readahead);
    /* shuffle=0: position p is sample p. The ring holds batches 0..SLOTS-1,
     * read-ahead AHEAD more: files 0 .. (SLOTS+AHEAD)*BATCH-1, nothing past. */
    const uint64_t w = (SLOTS + AHEAD) * BATCH;
    expect_window(L, w, SLOTS * BATCH, w, w);
    /* One batch consumed and given back: one more batch read ahead. */
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_int_equal(b.index, 0);
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    expect_window(L, w + BATCH, w, w + BATCH, w + BATCH);
    /* A seek: the window starts over at the new position. */
    const uint64_t at = 10;
    assert_int_equal(feed_loader_seek(L, 0, at), FEED_OK);
    expect_window(L, w + BATCH + w, at * BATCH, at * BATCH + w, at * BATCH + w);
    for (uint64_t id = w + BATCH; id < at * BATCH; id++) /* skipped over: never read */
        assert_int_equal(resident(id), 0);
    feed_loader_destroy(L);
}

static void test_window_uring(void **state)
{
    window("auto", "*"); /* io_uring where the kernel allows it, else sync */
}

static void test_window_sync(void **state)
{
    window("pread", "sync");
}

static void test_off(void **state)
{
    feed_options o;
    char err[512];
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", data);
    assert_int_equal(feed_options_parse(&o, "readahead=0,workers=1,height=16,width=16,resize_shorter=16,"
                                            "epochs=1", err, sizeof err), FEED_OK);
    feed_loader *L = NULL;
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_OK);
    feed_batch b = {.struct_size = sizeof b};
    uint64_t n = 0;
    feed_status st;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        n += b.count;
        feed_batch_release(L, &b, NULL);
    }
    assert_int_equal(st, FEED_END_OF_EPOCH);
    assert_int_equal(n, NIMG);
    feed_stats s = stats(L);
    assert_string_equal(s.readahead, "off");
    assert_int_equal(s.readahead_files, 0);
    feed_loader_destroy(L);
    assert_int_equal(feed_options_set(&o, "readahead", "5000", err, sizeof err), FEED_OK);
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "readahead=5000"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_uring),
        cmocka_unit_test(test_window_sync),
        cmocka_unit_test(test_off),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

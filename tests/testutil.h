/* testutil.h - small helpers shared by the tests. */
#ifndef FEED_TESTUTIL_H
#define FEED_TESTUTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataset/index.h"
#include "dataset/tar_header.h"
#include "feed.h"
#include "pixels/pipeline.h"

/* A fresh temporary directory under $FEED_TEST_TMP (or /tmp). */
static inline char *tu_mkdtemp(const char *tag)
{
    const char *base = getenv("FEED_TEST_TMP");
    if (!base || !*base)
        base = "/tmp";
    mkdir(base, 0755);
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/%s-XXXXXX", base, tag);
    if (!mkdtemp(p)) {
        perror("mkdtemp");
        abort();
    }
    return p;
}

static inline void tu_write(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

static inline void tu_mkdirs(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

/* rm -rf */
static inline void tu_rmtree(const char *path)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", path);
}

/* Runs feed-mkdata (from $FEED_BIN) into dir; returns 0 on success. */
static inline int tu_mkdata(const char *dir, int count, int seed, int classes)
{
    const char *bin = getenv("FEED_BIN");
    char cmd[4600];
    snprintf(cmd, sizeof cmd, "'%s/feed-mkdata' --out '%s' --count %d --seed %d --classes %d --quiet",
             bin ? bin : "build/bin", dir, count, seed, classes);
    return system(cmd);
}

/* This process's fds whose /proc/self/fd link contains needle; *last (if
 * not NULL) is set to the number of the last one found. */
static inline int tu_fds_with(const char *needle, int *last)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *de;
    char p[512], t[512];
    while ((de = readdir(d))) {
        snprintf(p, sizeof p, "/proc/self/fd/%s", de->d_name);
        ssize_t k = readlink(p, t, sizeof t - 1);
        if (k > 0 && (t[k] = 0, strstr(t, needle))) {
            n++;
            if (last)
                *last = atoi(de->d_name);
        }
    }
    closedir(d);
    return n;
}

/* This process's fds that are libfeed memfds. */
static inline int tu_count_memfds(void)
{
    return tu_fds_with("libfeed", NULL);
}

/* Entries in /dev/shm that libfeed could have made (it must never leave
 * one): names with "feed" in them, as every name libfeed gives (its memfds
 * are "libfeed-arena", "libfeed-index"). Not the whole folder: other jobs on
 * the machine (a PyTorch DataLoader's torch_* segments, sem.* semaphores)
 * come and go while a test runs. */
static inline int tu_count_dev_shm(void)
{
    int n = 0;
    DIR *d = opendir("/dev/shm");
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += de->d_name[0] != '.' && strstr(de->d_name, "feed") != NULL;
    closedir(d);
    return n;
}

/* Reads a whole file; aborts if it cannot. The caller frees. */
/* Sends this process's stderr (fd 2) to the file path (made anew), for a test
 * that checks what was said there; returns the saved fd for tu_stderr_back,
 * or -1 (stderr unchanged). */
static inline int tu_stderr_to(const char *path)
{
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (saved < 0 || fd < 0) {
        if (saved >= 0)
            close(saved);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    dup2(fd, 2);
    close(fd);
    return saved;
}

/* Puts back the stderr tu_stderr_to saved. */
static inline void tu_stderr_back(int saved)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

static inline uint8_t *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) {
        perror(path);
        abort();
    }
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len ? *len : 1);
    if (!b || fread(b, 1, *len, f) != *len) {
        perror(path);
        abort();
    }
    fclose(f);
    return b;
}

/* A generated dataset of n images in a fresh temp dir, indexed into *ix.
 * Exits on failure: cmocka counts a failed group setup as no failure. */
static inline char *tu_dataset(const char *tag, int n, int seed, int classes, feed__index *ix)
{
    char *dir = tu_mkdtemp(tag);
    char err[512] = "feed-mkdata failed";
    if (tu_mkdata(dir, n, seed, classes) != 0 || feed__index_build(ix, dir, "", err, sizeof err) != FEED_OK) {
        fprintf(stderr, "cannot make the test dataset: %s\n", err);
        exit(1);
    }
    return dir;
}

/* tu_dataset's folder and index gone (a group teardown's). */
static inline void tu_dataset_free(char *dir, feed__index *ix)
{
    feed__index_free(ix);
    tu_rmtree(dir);
    free(dir);
}

/* The pixels sample id of epoch should have: an in-process decode of its file
 * with the loader's transform x. Returns the feed_status (message in msg). */
static inline int tu_reference(const feed__index_hdr *ix, const feed__xform *x, uint64_t seed, uint64_t epoch,
                               uint64_t id, uint8_t *out, char *msg, size_t msglen)
{
    static feed__image_ctx *ctx;
    if (!ctx)
        ctx = feed__image_ctx_create();
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", ix->root, feed__index_path(ix, id));
    size_t len;
    uint8_t *b = tu_read_file(p, &len);
    feed__image_info info;
    int st = feed__image_process(ctx, x, b, len, seed, epoch, id, out, &info, msg, msglen);
    free(b);
    return st;
}

/* A loader over source: the options "base" (the test's own geometry: batch
 * size, output size, seed, ...), then "extra" on top. FEED_OK, or the status
 * of whichever step refused, with its message in err. */
static inline feed_status tu_loader(feed_loader **L, const char *source, const char *base, const char *extra,
                                    char *err, size_t errlen)
{
    feed_options o;
    feed_status st;
    *L = NULL;
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", source);
    if ((st = feed_options_parse(&o, base, err, errlen)) != FEED_OK ||
        (st = feed_options_parse(&o, extra, err, errlen)) != FEED_OK)
        return st;
    return feed_loader_create(L, &o, err, errlen);
}

/* Writes a version 1.0 .npy at path: the header dict (numpy's own text,
 * e.g. "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }"),
 * space-padded so that the data starts at a multiple of 64, then len bytes. */
static inline void tu_npy_write(const char *path, const char *dict, const void *data, size_t len)
{
    size_t dl = strlen(dict), hlen = (10 + dl + 1 + 63) / 64 * 64 - 10;
    uint8_t *b = calloc(1, 10 + hlen + len);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (uint8_t)hlen, b[9] = (uint8_t)(hlen >> 8);
    memset(b + 10, ' ', hlen - 1);
    memcpy(b + 10, dict, dl);
    b[10 + hlen - 1] = '\n';
    if (len)
        memcpy(b + 10 + hlen, data, len);
    tu_write(path, b, 10 + hlen + len);
    free(b);
}

/* Loaders a test holds: tu_hold registers one, tu_drop destroys it. A test
 * that fails (cmocka longjmps out of it) leaves its loaders and the variables
 * it set for the workers; tu_test_clean, each test's setup and teardown by
 * TU_TEST, destroys the loaders and puts the variables back, so that one
 * failure stays one. */
static inline feed_loader **tu_held(void)
{
    static feed_loader *held[16];
    return held;
}

static inline feed_loader *tu_hold(feed_loader *L)
{
    feed_loader **h = tu_held();
    for (int i = 0; L && i < 16; i++)
        if (!h[i]) {
            h[i] = L;
            break;
        }
    return L;
}

static inline void tu_drop(feed_loader *L)
{
    feed_loader **h = tu_held();
    for (int i = 0; L && i < 16; i++)
        if (h[i] == L)
            h[i] = NULL;
    feed_loader_destroy(L);
}

/* The variables tests set for the workers and the library: put back as they
 * were when the program started (a run may set one for the whole program:
 * scripts/valgrind sets FEED_FORCE_PREAD=1). */
static inline int tu_test_clean(void **state)
{
    static const char *const vars[] = {"FEED_TEST_FAULT",    "FEED_TEST_SCRIBBLE", "FEED_TEST_SCRIBBLE_COUNT",
                                       "FEED_TEST_SCRIBBLE_AREA", "FEED_TEST_SLOW_MS", "FEED_TEST_HDR",
                                       "FEED_FORCE_PREAD",   "FEED_TEST_ENTROPY",  "FEED_TEST_NO_CLOSEFROM",
                                       "FEED_TEST_NO_CLOSE_RANGE"};
    enum { NVARS = sizeof vars / sizeof vars[0] };
    static char *start[NVARS];
    static int seen;
    feed_loader **h = tu_held();
    int n = 0;
    (void)state;
    if (!seen) { /* the first call, before any test: the program's own values */
        for (size_t i = 0; i < NVARS; i++)
            start[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
        seen = 1;
    }
    for (int i = 0; i < 16; i++)
        if (h[i]) {
            feed_loader_destroy(h[i]);
            h[i] = NULL;
            n++;
        }
    if (n)
        fprintf(stderr, "teardown: destroyed %d loader(s) the test left\n", n);
    for (size_t i = 0; i < NVARS; i++) {
        if (start[i])
            setenv(vars[i], start[i], 1);
        else
            unsetenv(vars[i]);
    }
    return 0;
}

/* A cmocka test with tu_test_clean before and after it. */
#define TU_TEST(f) cmocka_unit_test_setup_teardown(f, tu_test_clean, tu_test_clean)

/* One member of a tar being written: its ustar header, its n bytes, the
 * padding to a block. 0, or -1 (a name too long, a short write). */
static inline int tu_tar_member(FILE *f, const char *name, const void *data, size_t n)
{
    uint8_t h[512], pad[512] = {0};
    if (feed__tar_header(h, name, n, 0))
        return -1;
    size_t p = (512 - n % 512) % 512;
    return fwrite(h, 1, 512, f) == 512 && fwrite(data, 1, n, f) == n && fwrite(pad, 1, p, f) == p ? 0 : -1;
}

#endif

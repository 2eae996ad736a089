/* testutil.h - small helpers shared by the tests. */
#ifndef FEED_TESTUTIL_H
#define FEED_TESTUTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* This process's fds that are libfeed memfds. */
static inline int tu_count_memfds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *de;
    char p[512], t[512];
    while ((de = readdir(d))) {
        snprintf(p, sizeof p, "/proc/self/fd/%s", de->d_name);
        ssize_t k = readlink(p, t, sizeof t - 1);
        if (k > 0) {
            t[k] = 0;
            n += strstr(t, "libfeed") != NULL;
        }
    }
    closedir(d);
    return n;
}

/* Entries in /dev/shm (libfeed must never leave one). */
static inline int tu_count_dev_shm(void)
{
    int n = 0;
    DIR *d = opendir("/dev/shm");
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

#endif

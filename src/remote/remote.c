/*
 * remote.c - remote shard sources (remote.h): the URLs they name, and
 * feed-fetch run as a child to bring them into the cache.
 *
 * feed-fetch is posix_spawn'ed (never fork: the host may have threads) with
 * its requests in a memfd as stdin and its answers on a pipe; this process
 * only parses lines, and checks that every path it is given is a regular file
 * of the announced size inside the cache directory.
 */
#include "remote/remote.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/internal.h"
#include "dataset/index.h"
#include "dataset/shards.h"
#include "remote/fetch_cache.h"

extern char **environ;

#ifndef FEED_HAVE_CURL /* CMake says; a program compiled from the sources alone looks for feed-fetch */
#define FEED_HAVE_CURL 1
#endif

int feed__remote_is_url(const char *s)
{
    return s && (!strncmp(s, "http://", 7) || !strncmp(s, "https://", 8) || !strncmp(s, "s3://", 5));
}

/* The first meaningful line of a local text file, if it is a URL: 1. */
static int is_url_list(const char *path)
{
    struct stat sb;
    if (!path || !*path || feed__remote_is_url(path) || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char line[4096];
    int yes = 0;
    while (fgets(line, sizeof line, f)) {
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '#')
            continue;
        yes = feed__remote_is_url(s);
        break;
    }
    fclose(f);
    return yes;
}

static int ends_tar(const char *s, size_t n)
{
    return n > 4 && !strncasecmp(s + n - 4, ".tar", 4);
}

static feed_status read_url_list(const char *list, feed__pathlist *out, char *err, size_t errlen)
{
    FILE *f = fopen(list, "re");
    if (!f)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: cannot open shard list %s: %s", list, strerror(errno));
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    feed_status st = FEED_OK;
    while (st == FEED_OK && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        char *s = line, *e = line + len;
        while (isspace((unsigned char)*s))
            s++;
        while (e > s && isspace((unsigned char)e[-1]))
            *--e = 0;
        if (!*s || *s == '#')
            continue;
        if (!feed__remote_is_url(s) || strpbrk(s, " \t") || !ends_tar(s, strlen(s)) || strlen(s) >= FEED_PATH_MAX)
            st = feed__err(FEED_E_DATASET, err, errlen,
                           "dataset: %s:%zu: expected one shard URL a line (http://, https:// or s3://, ending "
                           "in .tar)", list, lineno);
        else if (feed__pathlist_add(out, s, strlen(s)))
            st = feed__err(FEED_E_DATASET, err, errlen, "dataset: %s: too many shards or out of memory", list);
    }
    free(line);
    fclose(f);
    if (st == FEED_OK && out->n == 0)
        st = feed__err(FEED_E_DATASET, err, errlen, "dataset: shard list %s names no shards", list);
    return st;
}

static int try_exe(char *out, size_t cap, const char *dir, const char *rel)
{
    if (!dir || !*dir)
        return 0;
    int n = snprintf(out, cap, "%s%s", dir, rel);
    return n > 0 && (size_t)n < cap && access(out, X_OK) == 0;
}

static feed_status find_fetch(const feed__remote_cfg *c, char *out, size_t cap, char *err, size_t errlen)
{
    const char *envp = getenv("FEED_FETCH");
    if (envp && *envp) {
        if (access(envp, X_OK) == 0) {
            snprintf(out, cap, "%s", envp);
            return FEED_OK;
        }
        return feed__err(FEED_E_RESOURCE, err, errlen, "FEED_FETCH=%s is not an executable file", envp);
    }
    char dirs[2][PATH_MAX] = {"", ""};
    if (c->worker_path && *c->worker_path) {
        snprintf(dirs[0], sizeof dirs[0], "%s", c->worker_path);
        char *slash = strrchr(dirs[0], '/');
        slash ? (void)(*slash = 0) : (void)(dirs[0][0] = 0);
    }
    Dl_info info;
    if (dladdr((void *)feed__remote_is_url, &info) && info.dli_fname && realpath(info.dli_fname, dirs[1])) {
        char *slash = strrchr(dirs[1], '/');
        slash ? (void)(*slash = 0) : (void)(dirs[1][0] = 0);
    }
    static const char *const rel[] = {"/feed-fetch", "/../bin/feed-fetch", "/../libexec/libfeed/feed-fetch"};
    for (int d = 0; d < 2; d++)
        for (size_t i = 0; i < FEED_ARRAY_SIZE(rel); i++)
            if (try_exe(out, cap, dirs[d], rel[i]))
                return FEED_OK;
    if (try_exe(out, cap, FEED_LIBEXECDIR, "/feed-fetch"))
        return FEED_OK;
    return feed__err(FEED_E_UNSUPPORTED, err, errlen,
                     "remote shards need the feed-fetch executable (built where libcurl is found): not beside "
                     "%s, the library or in %s; set FEED_FETCH", dirs[0][0] ? dirs[0] : "feed-worker",
                     FEED_LIBEXECDIR);
}

static feed_status cache_dir_of(const feed__remote_cfg *c, char *out, size_t cap, char *err, size_t errlen)
{
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (c->cache_dir && *c->cache_dir)
        snprintf(out, cap, "%s", c->cache_dir);
    else if (x && *x)
        snprintf(out, cap, "%s/libfeed/shards", x);
    else if (home && *home)
        snprintf(out, cap, "%s/.cache/libfeed/shards", home);
    else
        return feed__err(FEED_E_INVALID, err, errlen, "remote shards: set cache_dir (no HOME or XDG_CACHE_HOME)");
    /* mkdir -p */
    for (char *p = out + 1;; p++) {
        if (*p == '/' || !*p) {
            char ch = *p;
            *p = 0;
            int r = mkdir(out, 0755);
            *p = ch;
            if (r != 0 && errno != EEXIST)
                return feed__err(FEED_E_RESOURCE, err, errlen, "cache_dir %s: cannot make it: %s", out, strerror(errno));
            if (!ch)
                break;
        }
    }
    char real[PATH_MAX];
    if (!realpath(out, real) || strlen(real) >= cap || access(real, W_OK) != 0)
        return feed__err(FEED_E_RESOURCE, err, errlen, "cache_dir %s: not a writable directory: %s", out,
                         strerror(errno));
    snprintf(out, cap, "%s", real);
    return FEED_OK;
}

void feed__remote_release(feed__remote_hold *h)
{
    if (h->fd >= 0) {
        if (h->path)
            unlink(h->path);
        close(h->fd);
    }
    feed__free(h->path);
    h->fd = -1;
    h->path = NULL;
}

/* Writes the URLs to a new list in DIR/.inuse and holds it (remote.h). */
static feed_status make_list(const char *dir, char *const *urls, size_t n, const char *form, feed__remote_hold *h,
                             char *err, size_t errlen)
{
    static unsigned counter;
    char path[PATH_MAX];
    int len = snprintf(path, sizeof path, "%s/.inuse", dir);
    if (len < 0 || (size_t)len + 64 >= sizeof path)
        return feed__err(FEED_E_RESOURCE, err, errlen, "cache_dir %s: path too long", dir);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return feed__err(FEED_E_RESOURCE, err, errlen, "cache_dir %s: cannot make %s: %s", dir, path, strerror(errno));
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        snprintf(path + len, sizeof path - (size_t)len, "/%ld-%u.list", (long)getpid(),
                 __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
        fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return feed__err(FEED_E_RESOURCE, err, errlen, "cache_dir %s: cannot make %s: %s", dir, path, strerror(errno));
    int ok = flock(fd, LOCK_SH) == 0; /* held: its loader is alive */
    for (size_t i = 0; ok && i < n; i++)
        ok = (form && *form ? dprintf(fd, "%s\t%s\n", form, urls[i]) : dprintf(fd, "%s\n", urls[i])) > 0;
    size_t plen = strlen(path) + 1;
    if (!ok || !(h->path = feed__malloc(plen))) {
        int e = errno;
        unlink(path);
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen, "cache_dir %s: cannot write %s: %s", dir, path, strerror(e));
    }
    memcpy(h->path, path, plen);
    h->fd = fd;
    return FEED_OK;
}

feed_status feed__remote_hold_urls(const char *dir, char *const *urls, size_t n, const char *form,
                                   feed__remote_hold *h, feed__remote_hold *old, char *err, size_t errlen)
{
    int lock = cache_lock(dir); /* an evictor sees the old list or the new one, whole */
    feed_status st = make_list(dir, urls, n, form, h, err, errlen);
    if (st == FEED_OK && old)
        feed__remote_release(old);
    cache_unlock(lock);
    return st;
}

/* Starts feed-fetch (mode "batch" or "stream") on stdin fd in, stdout fd
 * out; closes neither. 0 and *pid, else an errno. */
int feed__remote_spawn(const char *exe, const feed__remote_cfg *c, const char *dir, const char *mode, int in, int out,
                       pid_t *pid)
{
    char size[32], retries[16], timeout[16], parallel[16];
    snprintf(size, sizeof size, "%llu", (unsigned long long)c->cache_size);
    snprintf(retries, sizeof retries, "%u", c->retries);
    snprintf(timeout, sizeof timeout, "%u", c->timeout_ms);
    snprintf(parallel, sizeof parallel, "%u", c->parallel ? c->parallel : 1);
    char *argv[] = {(char *)exe, "--cache", (char *)dir, "--cache-size", size, "--retries", retries,
                    "--timeout-ms", timeout, "--parallel", parallel, "--mode", (char *)mode, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in, 0);
    posix_spawn_file_actions_adddup2(&fa, out, 1);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    posix_spawnattr_init(&at);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int e = posix_spawn(pid, exe, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return e;
}

/* Runs feed-fetch on the requests in reqs; its stdout into *answer (NUL-ended). */
static feed_status run_fetch(const char *exe, const feed__remote_cfg *c, const char *dir, const char *reqs,
                             size_t reqlen, char **answer, char *err, size_t errlen)
{
    *answer = NULL;
    int in = memfd_create("feed-fetch-requests", MFD_CLOEXEC), out[2] = {-1, -1};
    if (in < 0 || pipe2(out, O_CLOEXEC) != 0) {
        if (in >= 0)
            close(in);
        return feed__err(FEED_E_RESOURCE, err, errlen, "remote shards: %s", strerror(errno));
    }
    size_t done = 0;
    while (done < reqlen) {
        ssize_t w = write(in, reqs + done, reqlen - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    lseek(in, 0, SEEK_SET);
    pid_t pid;
    int e = feed__remote_spawn(exe, c, dir, "batch", in, out[1], &pid);
    close(in);
    close(out[1]);
    if (e != 0) {
        close(out[0]);
        return feed__err(FEED_E_RESOURCE, err, errlen, "cannot start %s: %s", exe, strerror(e));
    }
    size_t len = 0, cap = 4096;
    char *buf = feed__malloc(cap);
    feed_status st = buf ? FEED_OK : feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
    for (;;) {
        if (st == FEED_OK && len + 1 == cap) {
            char *nb = feed__realloc(buf, cap * 2);
            if (!nb)
                st = feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
            else
                buf = nb, cap *= 2;
        }
        char sink[4096];
        ssize_t r = st == FEED_OK ? read(out[0], buf + len, cap - 1 - len) : read(out[0], sink, sizeof sink);
        if (r < 0 && errno == EINTR) {
            /* a handler installed without SA_RESTART ran (Python's Ctrl-C): the
             * download stops with create */
            if (st == FEED_OK)
                st = feed__err(FEED_E_INTERRUPTED, err, errlen, "interrupted while fetching remote shards");
            kill(pid, SIGKILL);
            continue;
        }
        if (r <= 0)
            break;
        if (st == FEED_OK)
            len += (size_t)r;
    }
    close(out[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (st == FEED_OK && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        st = feed__err(FEED_E_IO, err, errlen, "%s %s (fetching remote shards)", exe,
                       WIFSIGNALED(status) ? "was killed by a signal" : "failed");
    if (st != FEED_OK) {
        feed__free(buf);
        return st;
    }
    buf[len] = 0;
    *answer = buf;
    return FEED_OK;
}

/* The next line of *p (NUL-ended in place), NULL at the end. */
static char *next_line(char **p)
{
    if (!**p)
        return NULL;
    char *s = *p, *nl = strchr(s, '\n');
    if (nl)
        *nl = 0, *p = nl + 1;
    else
        *p = s + strlen(s);
    return s;
}

feed_status feed__remote_error(const char *kind, const char *msg, char *err, size_t errlen)
{
    feed_status st = !strcmp(kind, "resource") ? FEED_E_RESOURCE : !strcmp(kind, "io") ? FEED_E_IO : FEED_E_DATASET;
    return feed__err(st, err, errlen, "%s: %s", st == FEED_E_DATASET ? "dataset" : "remote shards",
                     msg ? msg : "feed-fetch failed");
}

static feed_status answer_error(char *line, char *err, size_t errlen)
{
    char *kind = line + 4, *msg = strchr(kind, '\t');
    if (msg)
        *msg++ = 0;
    return feed__remote_error(kind, msg, err, errlen);
}

feed_status feed__remote_urls(const feed__remote_cfg *c, const char *source, const char *file_list,
                              feed__pathlist *out, int *is_remote, char *exe, char *dir, char *err, size_t errlen)
{
    *is_remote = 0;
    memset(out, 0, sizeof *out);
    const char *src = source && *source ? source : NULL, *list = file_list && *file_list ? file_list : NULL;
    int url_src = feed__remote_is_url(src), url_list = !url_src && (is_url_list(src) || (!src && is_url_list(list)));
    if (!url_src && !url_list && !feed__remote_is_url(list))
        return FEED_OK;
    *is_remote = 1;
    if (feed__remote_is_url(list) || (url_src && list))
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: a remote source is a URL pattern in source or a local list file of URLs; "
                         "source=%s with file_list=%s is neither", src ? src : "", list);
    if (!FEED_HAVE_CURL)
        return feed__err(FEED_E_UNSUPPORTED, err, errlen,
                         "dataset: %s names remote shards, and this libfeed was built without libcurl (no "
                         "feed-fetch): install libcurl's headers (libcurl4-openssl-dev) and rebuild", src ? src : list);
    feed__pathlist u = {0};
    char *answer = NULL, *reqs = NULL;
    feed_status st = FEED_OK;
    if ((st = find_fetch(c, exe, PATH_MAX, err, errlen)) != FEED_OK ||
        (st = cache_dir_of(c, dir, PATH_MAX, err, errlen)) != FEED_OK)
        return st;
    if (url_list) {
        st = read_url_list(src ? src : list, &u, err, errlen);
    } else {
        char **pieces = NULL;
        size_t np = 0;
        int rc = feed__shards_braces(src, &pieces, &np);
        if (rc)
            st = rc == -1 ? feed__err(FEED_E_NOMEM, err, errlen, "out of memory")
                 : rc == -2 ? feed__err(FEED_E_DATASET, err, errlen, "dataset: %s gives more than %u shards", src,
                                        FEED_INDEX_MAX_SHARDS)
                            : feed__err(FEED_E_DATASET, err, errlen,
                                        "dataset: shard pattern %s: a brace must be a range {000..099} or a list "
                                        "{a,b}, closed and not nested", src);
        /* globs: s3:// only, by a listing */
        size_t reqlen = 0;
        for (size_t i = 0; st == FEED_OK && i < np; i++) {
            int glob = strpbrk(pieces[i], "*?[") != NULL;
            if (glob && strncmp(pieces[i], "s3://", 5))
                st = feed__err(FEED_E_DATASET, err, errlen,
                               "dataset: %s: a glob in a URL needs a listing, which only s3:// has; name the "
                               "shards with braces ({000000..000999}) or a list file of URLs", pieces[i]);
            else if (!glob && !ends_tar(pieces[i], strlen(pieces[i])))
                st = feed__err(FEED_E_DATASET, err, errlen, "dataset: %s is not a .tar shard URL", pieces[i]);
            reqlen += strlen(pieces[i]) + 8;
        }
        if (st == FEED_OK && !(reqs = feed__malloc(reqlen + 1)))
            st = feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
        size_t nlist = 0, at = 0;
        for (size_t i = 0; st == FEED_OK && i < np; i++)
            if (strpbrk(pieces[i], "*?["))
                at += (size_t)sprintf(reqs + at, "list\t%s\n", pieces[i]), nlist++;
        if (st == FEED_OK && nlist)
            st = run_fetch(exe, c, dir, reqs, at, &answer, err, errlen);
        char *p = answer, *line;
        for (size_t i = 0; st == FEED_OK && i < np; i++) {
            if (!strpbrk(pieces[i], "*?[")) {
                if (feed__pathlist_add(&u, pieces[i], strlen(pieces[i])))
                    st = feed__err(FEED_E_DATASET, err, errlen, "dataset: %s: too many shards or out of memory", src);
                continue;
            }
            size_t before = u.n;
            while (st == FEED_OK && (line = next_line(&p)) && strcmp(line, "end")) {
                if (!strncmp(line, "err\t", 4))
                    st = answer_error(line, err, errlen);
                else if (!strncmp(line, "url\t", 4) && ends_tar(line + 4, strlen(line + 4)) &&
                         feed__pathlist_add(&u, line + 4, strlen(line + 4)))
                    st = feed__err(FEED_E_DATASET, err, errlen, "dataset: %s: too many shards or out of memory", src);
            }
            if (st == FEED_OK && !line)
                st = feed__err(FEED_E_IO, err, errlen, "%s: its listing of %s ended early", exe, pieces[i]);
            if (st == FEED_OK && u.n == before)
                st = feed__err(FEED_E_DATASET, err, errlen, "dataset: shard pattern %s matches no objects", pieces[i]);

        }
        feed__free(answer);
        answer = NULL;
        feed__free(reqs);
        reqs = NULL;
        feed__shards_free(pieces, np);
    }
    if (st != FEED_OK) {
        feed__shards_free(u.v, u.n);
        return st;
    }
    *out = u;
    return FEED_OK;
}

feed_status feed__remote_shards(const feed__remote_cfg *c, const char *source, const char *file_list, char ***paths,
                                char ***urls, size_t *n, int *is_remote, feed__remote_hold *hold, char *err,
                                size_t errlen)
{
    hold->fd = -1;
    hold->path = NULL;
    *paths = *urls = NULL;
    *n = 0;
    feed__pathlist u, got = {0};
    char exe[PATH_MAX], dir[PATH_MAX], *answer = NULL, *reqs = NULL;
    feed_status st = feed__remote_urls(c, source, file_list, &u, is_remote, exe, dir, err, errlen);
    if (st != FEED_OK || !*is_remote)
        return st;
    /* the shards themselves */
    size_t reqlen = 0;
    for (size_t i = 0; st == FEED_OK && i < u.n; i++)
        reqlen += strlen(u.v[i]) + 8;
    if (st == FEED_OK && !(reqs = feed__malloc(reqlen + 1)))
        st = feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
    size_t at = 0;
    for (size_t i = 0; st == FEED_OK && i < u.n; i++)
        at += (size_t)sprintf(reqs + at, "get\t%s\n", u.v[i]);
    if (st == FEED_OK)
        st = feed__remote_hold_urls(dir, u.v, u.n, NULL, hold, NULL, err, errlen);
    if (st == FEED_OK)
        st = run_fetch(exe, c, dir, reqs, at, &answer, err, errlen);
    char *p = answer, *line;
    size_t dlen = strlen(dir);
    for (size_t i = 0; st == FEED_OK && i < u.n; i++) {
        if (!(line = next_line(&p))) {
            st = feed__err(FEED_E_IO, err, errlen, "%s: no answer for %s", exe, u.v[i]);
            break;
        }
        if (!strncmp(line, "err\t", 4)) {
            st = answer_error(line, err, errlen);
            break;
        }
        char *path = line + 3, *sz = strchr(path, '\t');
        struct stat sb;
        unsigned long long size = sz ? strtoull(sz + 1, NULL, 10) : 0;
        if (sz)
            *sz = 0;
        if (strncmp(line, "ok\t", 3) || !sz || strncmp(path, dir, dlen) || path[dlen] != '/' ||
            strchr(path + dlen + 1, '/') || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
            (unsigned long long)sb.st_size != size) {
            st = feed__err(FEED_E_IO, err, errlen, "%s: a wrong answer for %s: %.200s", exe, u.v[i], line);
            break;
        }
        if (feed__pathlist_add(&got, path, strlen(path)))
            st = feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
    }
    feed__free(answer);
    feed__free(reqs);
    if (st != FEED_OK) {
        feed__remote_release(hold);
        feed__shards_free(u.v, u.n);
        feed__shards_free(got.v, got.n);
        return st;
    }
    *paths = got.v;
    *urls = u.v;
    *n = got.n;
    return FEED_OK;
}

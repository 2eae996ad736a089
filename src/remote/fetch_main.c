/*
 * fetch_main.c - feed-fetch: the requests, the retries, the cache (fetch.h
 * says what it reads and writes).
 *
 * A shard is asked for with HEAD (size, ETag, Last-Modified); a cached copy
 * whose record matches all three is used as it is. Else it is downloaded with
 * If-Match on that ETag into a temporary file, checked (its length against
 * the HEAD's, every tar header's checksum) and renamed. Timeouts, resets,
 * 5xx and bad downloads are tried again after 100 ms, 200 ms, ... (at most
 * 5 s), each try reported; a 4xx is final.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "remote/fetch.h"
#include "remote/fetch_cache.h"

typedef struct req {
    int list;
    char *url;
} req;

static void clean(char *s) /* one line, no tabs: the answer's fields */
{
    for (; *s; s++)
        if (*s == '\t' || *s == '\n' || *s == '\r')
            *s = ' ';
}

static void answer_err(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void answer_err(const char *kind, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    clean(msg);
    printf("err\t%s\t%s\n", kind, msg);
    fflush(stdout);
}

static void backoff(const char *url, const char *what, uint32_t try, uint32_t tries)
{
    uint32_t ms = 100u << (try < 6 ? try : 6);
    if (ms > 5000)
        ms = 5000;
    fprintf(stderr, "libfeed: fetch: %s: %s; try %u of %u failed, again in %u ms\n", url, what, try + 1, tries, ms);
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* HEAD with retries: 0 and *h, else answered. */
static int head(const fetch_cfg *c, const char *url, fetch_head *h)
{
    uint32_t tries = c->retries + 1;
    for (uint32_t t = 0; t < tries; t++) {
        int rc = fetch_http_head(c, url, h);
        if (rc == 0 && h->code >= 200 && h->code < 300)
            return 0;
        if (!h->retryable) {
            answer_err("dataset", "%s: %s%s", url, h->why,
                       h->code == 404 ? " (not found)" : h->code == 403 ? " (forbidden: check the credentials)" : "");
            return -1;
        }
        if (t + 1 < tries)
            backoff(url, h->why, t, tries);
    }
    answer_err("io", "%s: %s (tried %u times)", url, h->why, tries);
    return -1;
}

static void get(const fetch_cfg *c, const char *url, char *const *keep, size_t nkeep)
{
    char tar[4200], meta[4200], tmp[4300], why[1024], version[512];
    fetch_head h;
    if (head(c, url, &h))
        return;
    snprintf(version, sizeof version, "%s\n%s\n%lld", h.etag, h.last_modified, (long long)h.size);
    cache_names(c->cache_dir, url, version, tar, meta, sizeof tar);
    if (h.size < 0) {
        answer_err("dataset", "%s: the server gives no Content-Length", url);
        return;
    }
    uint64_t size = (uint64_t)h.size;
    cache_rec r;
    struct stat sb;
    if (cache_meta_read(meta, &r) == 0 && !strcmp(r.url, url) && r.size == size && !strcmp(r.etag, h.etag) &&
        !strcmp(r.last_modified, h.last_modified) && stat(tar, &sb) == 0 && (uint64_t)sb.st_size == size) {
        cache_touch(meta);
        printf("ok\t%s\t%llu\t0\n", tar, (unsigned long long)size);
        fflush(stdout);
        return;
    }
    uint64_t kept = 0;
    int room = cache_make_room(c->cache_dir, c->cache_size, size, keep, nkeep, &kept, why, sizeof why);
    if (room < 0) {
        answer_err("resource", "%s", why);
        return;
    }
    if (room > 0) {
        answer_err("resource",
                   "cache_dir %s: cache_size %llu cannot hold %s (%llu bytes) beside this loader's other shards "
                   "(%llu bytes) and those other running loaders hold: raise cache_size",
                   c->cache_dir, (unsigned long long)c->cache_size, url, (unsigned long long)size,
                   (unsigned long long)kept);
        return;
    }
    snprintf(tmp, sizeof tmp, "%s.part.%ld", tar, (long)getpid());
    uint32_t tries = c->retries + 1;
    const char *problem = "";
    for (uint32_t t = 0; t < tries; t++) {
        int fd = open(tmp, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0) {
            answer_err("resource", "cache_dir %s: cannot write %s: %s", c->cache_dir, tmp, strerror(errno));
            return;
        }
        fetch_head g;
        uint64_t written = 0;
        int werr = 0;
        int rc = fetch_http_get(c, url, h.etag, fd, &g, &written, &werr);
        if (!werr && fsync(fd) != 0)
            werr = errno;
        if (close(fd) != 0 && !werr)
            werr = errno;
        if (werr) {
            unlink(tmp);
            answer_err("resource", "cache_dir %s: writing %s: %s%s", c->cache_dir, url, strerror(werr),
                       werr == ENOSPC || werr == EDQUOT ? " (the cache's disk is full)" : "");
            return;
        }
        int changed = rc == 0 && (g.code == 412 || (g.code < 300 && g.etag[0] && h.etag[0] && strcmp(g.etag, h.etag)));
        if (changed) {
            unlink(tmp);
            answer_err("dataset", "%s changed while it was read: its ETag was %s, now %s", url, h.etag,
                       g.code == 412 ? "another (412 Precondition Failed)" : g.etag);
            return;
        }
        if (rc == 0 && g.code >= 300 && !g.retryable) {
            unlink(tmp);
            answer_err("dataset", "%s: %s", url, g.why);
            return;
        }
        problem = NULL;
        if (rc != 0 || g.code >= 300)
            problem = g.why;
        else if (written != size)
            snprintf(why, sizeof why, "truncated download: %llu of %llu bytes", (unsigned long long)written,
                     (unsigned long long)size), problem = why;
        else {
            int rfd = open(tmp, O_RDONLY | O_CLOEXEC);
            char twhy[512];
            if (rfd < 0 || fetch_tar_check(rfd, size, twhy, sizeof twhy) != 0)
                snprintf(why, sizeof why, "corrupt download: %s", rfd < 0 ? strerror(errno) : twhy), problem = why;
            if (rfd >= 0)
                close(rfd);
        }
        if (!problem) {
            snprintf(r.url, sizeof r.url, "%s", url);
            snprintf(r.etag, sizeof r.etag, "%s", h.etag);
            snprintf(r.last_modified, sizeof r.last_modified, "%s", h.last_modified);
            r.size = size;
            if (rename(tmp, tar) != 0 || cache_meta_write(meta, &r) != 0) {
                int e = errno;
                unlink(tmp);
                answer_err("resource", "cache_dir %s: keeping %s: %s", c->cache_dir, url, strerror(e));
                return;
            }
            printf("ok\t%s\t%llu\t1\n", tar, (unsigned long long)size);
            fflush(stdout);
            return;
        }
        unlink(tmp);
        char what[1100];
        snprintf(what, sizeof what, "%s", problem);
        if (t + 1 < tries)
            backoff(url, what, t, tries);
    }
    answer_err("io", "%s: %s (tried %u times)", url, problem, tries);
}

static void list(const fetch_cfg *c, const char *url)
{
    char **v = NULL, why[1024];
    size_t n = 0;
    if (fetch_s3_list(c, url, &v, &n, why, sizeof why) != 0) {
        answer_err("dataset", "%s", why);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        clean(v[i]);
        printf("url\t%s\n", v[i]);
        free(v[i]);
    }
    free(v);
    printf("end\n");
    fflush(stdout);
}

static int usage(void)
{
    fprintf(stderr, "usage: feed-fetch --cache DIR [--cache-size BYTES] [--retries N] [--timeout-ms MS] "
                    "< requests (fetch.h)\n");
    return 2;
}

int main(int argc, char **argv)
{
    fetch_cfg c = {.retries = 4, .timeout_ms = 30000};
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--cache"))
            c.cache_dir = v;
        else if (!strcmp(k, "--cache-size"))
            c.cache_size = strtoull(v, NULL, 10);
        else if (!strcmp(k, "--retries"))
            c.retries = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(k, "--timeout-ms"))
            c.timeout_ms = (uint32_t)strtoul(v, NULL, 10);
        else
            return usage();
    }
    if (!c.cache_dir || argc % 2 == 0)
        return usage();
    req *reqs = NULL;
    size_t n = 0, cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, stdin)) > 0) {
        line[strcspn(line, "\r\n")] = 0;
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = 0;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            req *nr = realloc(reqs, cap * sizeof *nr);
            if (!nr)
                return 1;
            reqs = nr;
        }
        reqs[n].list = !strcmp(line, "list");
        if (!(reqs[n].url = strdup(tab + 1)))
            return 1;
        n++;
    }
    free(line);
    /* this loader's shards: never evicted to make room for one another */
    char **keep = calloc(n ? n : 1, sizeof *keep);
    size_t nkeep = 0;
    for (size_t i = 0; keep && i < n; i++) {
        if (reqs[i].list)
            continue;
        if (!(keep[nkeep] = malloc(CACHE_KEY_LEN + 1)))
            return 1;
        cache_key(reqs[i].url, keep[nkeep]);
        nkeep++;
    }
    if (!keep || fetch_http_init() != 0) {
        fprintf(stderr, "feed-fetch: cannot start libcurl\n");
        return 1;
    }
    char why[512];
    if (fetch_sandbox(c.cache_dir, why, sizeof why) != 0) {
        fprintf(stderr, "feed-fetch: sandbox: %s\n", why);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].list)
            list(&c, reqs[i].url);
        else
            get(&c, reqs[i].url, keep, nkeep);
        free(reqs[i].url);
    }
    fetch_http_done();
    for (size_t i = 0; i < nkeep; i++)
        free(keep[i]);
    free(keep);
    free(reqs);
    return 0;
}

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
#include <pthread.h>
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

typedef fetch_answer answer; /* a request's, written when the answers before it are (batch) */

void fetch_answer_err(answer *a, const char *kind, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    clean(msg);
    snprintf(a->text, sizeof a->text, "err\t%s\t%s\n", kind, msg);
}

void fetch_backoff(const char *url, const char *what, uint32_t try, uint32_t tries)
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
static int head(const fetch_cfg *c, const char *url, fetch_head *h, answer *a)
{
    uint32_t tries = c->retries + 1;
    for (uint32_t t = 0; t < tries; t++) {
        int rc = fetch_http_head(c, url, h);
        if (rc == 0 && h->code >= 200 && h->code < 300)
            return 0;
        /* HEAD refused (a presigned URL is signed for GET only): ask for byte 0 */
        if (rc == 0 && (h->code == 403 || h->code == 405 || h->code == 501) && strncmp(url, "s3://", 5)) {
            fetch_head p;
            rc = fetch_http_probe(c, url, &p);
            if (rc == 0 || p.code || p.retryable)
                *h = p;
            if (rc == 0)
                return 0;
        }
        if (!h->retryable) {
            fetch_answer_err(a, "dataset", "%s: %s%s", url, h->why,
                             h->code == 404   ? " (not found)"
                             : h->code == 403 ? " (forbidden: check the credentials)"
                                              : "");
            return -1;
        }
        if (t + 1 < tries)
            fetch_backoff(url, h->why, t, tries);
    }
    fetch_answer_err(a, "io", "%s: %s (tried %u times)", url, h->why, tries);
    return -1;
}

/* Downloads url (HEAD's answer h) to tar, checked, and its record to meta. */
/* *reserved_size: the bytes reserved for it, given back (under room_mu) as
 * the file takes its place in the cache, where it counts by itself. */
static void download(const fetch_cfg *c, const char *url, const fetch_head *h, uint64_t size, const char *tar,
                     const char *meta, answer *a, uint64_t *reserved_size)
{
    static unsigned counter;
    char tmp[4300], why[1024];
    cache_rec r;
    snprintf(tmp, sizeof tmp, "%s.part.%ld.%u", tar, (long)getpid(), __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
    uint32_t tries = c->retries + 1;
    const char *problem = "";
    for (uint32_t t = 0; t < tries; t++) {
        int fd = open(tmp, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0) {
            fetch_answer_err(a, "resource", "cache_dir %s: cannot write %s: %s", c->cache_dir, tmp, strerror(errno));
            return;
        }
        fetch_head g;
        uint64_t written = 0;
        int werr = 0;
        int rc = fetch_http_get(c, url, h->etag, fd, &g, &written, &werr);
        if (!werr && fsync(fd) != 0)
            werr = errno;
        if (close(fd) != 0 && !werr)
            werr = errno;
        if (werr) {
            unlink(tmp);
            fetch_answer_err(a, "resource", "cache_dir %s: writing %s: %s%s", c->cache_dir, url, strerror(werr),
                             werr == ENOSPC || werr == EDQUOT ? " (the cache's disk is full)" : "");
            return;
        }
        int changed = rc == 0 && (g.code == 412 || (g.code < 300 && g.etag[0] && h->etag[0] && strcmp(g.etag, h->etag)));
        /* no ETag to ask If-Match with: the Last-Modified must be the version's */
        int lm_changed = rc == 0 && g.code < 300 && !h->etag[0] && h->last_modified[0] && g.last_modified[0] &&
                         strcmp(g.last_modified, h->last_modified);
        if (changed || lm_changed) {
            unlink(tmp);
            if (changed)
                fetch_answer_err(a, "dataset", "%s changed while it was read: its ETag was %s, now %s", url, h->etag,
                                 g.code == 412 ? "another (412 Precondition Failed)" : g.etag);
            else
                fetch_answer_err(a, "dataset", "%s changed while it was read: Last-Modified was %s, now %s", url,
                                 h->last_modified, g.last_modified);
            return;
        }
        if (rc == 0 && g.code >= 300 && !g.retryable) {
            unlink(tmp);
            fetch_answer_err(a, "dataset", "%s: %s", url, g.why);
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
            snprintf(r.etag, sizeof r.etag, "%s", h->etag);
            snprintf(r.last_modified, sizeof r.last_modified, "%s", h->last_modified);
            r.size = size;
            cache_room_lock(); /* never counted twice: as the file and as reserved */
            int renamed = rename(tmp, tar) == 0, rename_errno = errno;
            cache_room_unlock(renamed ? *reserved_size : 0);
            if (renamed)
                *reserved_size = 0;
            if (!renamed || cache_meta_write(meta, &r) != 0) {
                int e = renamed ? errno : rename_errno;
                unlink(tmp);
                fetch_answer_err(a, "resource", "cache_dir %s: keeping %s: %s", c->cache_dir, url, strerror(e));
                return;
            }
            snprintf(a->text, sizeof a->text, "ok\t%s\t%llu\t1\n", tar, (unsigned long long)size);
            return;
        }
        unlink(tmp);
        char what[1100];
        snprintf(what, sizeof what, "%s", problem);
        if (t + 1 < tries)
            fetch_backoff(url, what, t, tries);
    }
    fetch_answer_err(a, "io", "%s: %s (tried %u times)", url, problem, tries);
}

/* The shard of url in the version h (a HEAD's answer, or the one the loader
 * was created with) into the cache, or found there. */
static void get_version(const fetch_cfg *c, const char *url, const fetch_head *hv, char *const *keep, size_t nkeep,
                        answer *a)
{
    char tar[4200], meta[4200], why[1024];
    fetch_head h = *hv;
    cache_version_names(c->cache_dir, url, h.etag, h.last_modified, h.size, tar, meta, sizeof tar);
    if (h.size < 0) {
        fetch_answer_err(a, "dataset", "%s: the server gives no Content-Length", url);
        return;
    }
    uint64_t size = (uint64_t)h.size;
    if (cache_has(tar, meta, url, h.etag, h.last_modified, size)) {
        cache_touch(meta);
        snprintf(a->text, sizeof a->text, "ok\t%s\t%llu\t0\n", tar, (unsigned long long)size);
        return;
    }
    /* room for it and for the downloads under way (on no disk yet) */
    uint64_t kept = 0;
    int room = cache_reserve(c->cache_dir, c->cache_size, size, keep, nkeep, &kept, why, sizeof why);
    if (room < 0) {
        fetch_answer_err(a, "resource", "%s", why);
        return;
    }
    if (room > 0) {
        fetch_answer_err(a, "resource",
                         "cache_dir %s: cache_size %llu cannot hold %s (%llu bytes) beside this loader's other shards "
                         "(%llu bytes) and those other running loaders hold: raise cache_size",
                         c->cache_dir, (unsigned long long)c->cache_size, url, (unsigned long long)size,
                         (unsigned long long)kept);
        return;
    }
    uint64_t mine = size;
    download(c, url, &h, size, tar, meta, a, &mine);
    cache_room_lock();
    cache_room_unlock(mine);
}

static void get(const fetch_cfg *c, const char *url, char *const *keep, size_t nkeep, answer *a)
{
    fetch_head h;
    if (head(c, url, &h, a) == 0)
        get_version(c, url, &h, keep, nkeep, a);
}

/* What a run will read of url: the cache file of its current version and
 * whether it is there already (a --stream "head"). */
static void version(const fetch_cfg *c, const char *url, answer *a)
{
    char tar[4200], meta[4200];
    fetch_head h;
    if (head(c, url, &h, a))
        return;
    if (h.size < 0) {
        fetch_answer_err(a, "dataset", "%s: the server gives no Content-Length", url);
        return;
    }
    cache_version_names(c->cache_dir, url, h.etag, h.last_modified, h.size, tar, meta, sizeof tar);
    cache_rec r;
    struct stat sb;
    int cached = cache_meta_read(meta, &r) == 0 && !strcmp(r.url, url) && r.size == (uint64_t)h.size &&
                 stat(tar, &sb) == 0 && (uint64_t)sb.st_size == (uint64_t)h.size;
    clean(h.etag);
    clean(h.last_modified);
    snprintf(a->text, sizeof a->text, "ver\t%s\t%lld\t%d\t%s\t%s\n", tar, (long long)h.size, cached,
             h.etag[0] ? h.etag : "-", h.last_modified[0] ? h.last_modified : "-");
}

static void list(const fetch_cfg *c, const char *url)
{
    char **v = NULL, why[1024];
    size_t n = 0;
    if (fetch_s3_list(c, url, &v, &n, why, sizeof why) != 0) {
        answer a;
        fetch_answer_err(&a, "dataset", "%s", why);
        fputs(a.text, stdout);
        fflush(stdout);
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

typedef struct pool {
    const fetch_cfg *c;
    const req *reqs;
    answer *ans;
    size_t n, next, printed;
    char *const *keep;
    size_t nkeep;
    unsigned char *done;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} pool;

static void *get_loop(void *arg)
{
    pool *p = arg;
    for (;;) {
        size_t i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (i >= p->n)
            return NULL;
        get(p->c, p->reqs[i].url, p->keep, p->nkeep, &p->ans[i]);
        pthread_mutex_lock(&p->mu);
        p->done[i] = 1;
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

/* The gets, c->parallel at a time; the answers in request order, each as
 * soon as those before it are in. */
static int get_all(const fetch_cfg *c, const req *reqs, size_t n, char *const *keep, size_t nkeep)
{
    pool p = {.c = c, .reqs = reqs, .n = n, .keep = keep, .nkeep = nkeep, .ans = calloc(n ? n : 1, sizeof(answer)),
              .done = calloc(n ? n : 1, 1)};
    uint32_t nt = c->parallel ? c->parallel : 1;
    if (nt > n)
        nt = n ? (uint32_t)n : 1;
    pthread_t *t = calloc(nt, sizeof *t);
    if (!p.ans || !p.done || !t) {
        fprintf(stderr, "feed-fetch: out of memory\n");
        return 1;
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    uint32_t started = 0;
    for (; started < nt; started++)
        if (pthread_create(&t[started], NULL, get_loop, &p) != 0)
            break;
    if (!started) /* no thread: this one does them */
        get_loop(&p);
    pthread_mutex_lock(&p.mu);
    while (p.printed < n) {
        while (!p.done[p.printed])
            pthread_cond_wait(&p.cv, &p.mu);
        fputs(p.ans[p.printed].text, stdout);
        fflush(stdout);
        p.printed++;
    }
    pthread_mutex_unlock(&p.mu);
    for (uint32_t i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
    free(t);
    free(p.ans);
    free(p.done);
    return 0;
}

/* ---- --stream: requests as they come, answers as they are done --------------- */

typedef struct sreq {
    struct sreq *next;
    int head, range;
    char *id, *url;
    int known;    /* a get with the version the loader was created with: no HEAD first */
    fetch_head h; /* that version (a range's too) */
    uint64_t off, len;
} sreq;

typedef struct stream {
    const fetch_cfg *c;
    sreq *first, **last;
    int closed;
    pthread_mutex_t mu, out;
    pthread_cond_t cv;
} stream;

static void *stream_loop(void *arg)
{
    stream *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (!q->first && !q->closed)
            pthread_cond_wait(&q->cv, &q->mu);
        sreq *r = q->first;
        if (r && !(q->first = r->next))
            q->last = &q->first;
        pthread_mutex_unlock(&q->mu);
        if (!r)
            return NULL;
        answer a;
        if (r->head)
            version(q->c, r->url, &a);
        else if (r->range)
            fetch_range(q->c, r->url, &r->h, r->off, r->len, &a);
        else if (r->known) /* the parent's held list keeps its shards */
            get_version(q->c, r->url, &r->h, NULL, 0, &a);
        else
            get(q->c, r->url, NULL, 0, &a);
        char *tab = strchr(a.text, '\t');
        pthread_mutex_lock(&q->out);
        if (tab)
            printf("%.*s\t%s%s", (int)(tab - a.text), a.text, r->id, tab);
        fflush(stdout);
        pthread_mutex_unlock(&q->out);
        free(r->id);
        free(r->url);
        free(r);
    }
}

/* Reads "get|head|range <TAB> ID <TAB> URL ..." lines until stdin ends;
 * each answer's first field is followed by ID (fetch.h). */
static int stream_run(const fetch_cfg *c)
{
    stream q = {.c = c};
    q.last = &q.first;
    pthread_mutex_init(&q.mu, NULL);
    pthread_mutex_init(&q.out, NULL);
    pthread_cond_init(&q.cv, NULL);
    uint32_t nt = c->parallel ? c->parallel : 1, started = 0;
    pthread_t *t = calloc(nt, sizeof *t);
    for (; t && started < nt; started++)
        if (pthread_create(&t[started], NULL, stream_loop, &q) != 0)
            break;
    if (!started) {
        fprintf(stderr, "feed-fetch: cannot start a thread\n");
        return 1;
    }
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, stdin)) > 0) {
        line[strcspn(line, "\r\n")] = 0;
        char *id = strchr(line, '\t'), *url = id ? strchr(id + 1, '\t') : NULL;
        if (!url)
            continue;
        *id = 0, *url++ = 0;
        int range = !strcmp(line, "range");
        if (strcmp(line, "get") && strcmp(line, "head") && !range)
            continue;
        char *f[5] = {NULL}, *p = strchr(url, '\t'); /* SIZE ETAG LAST-MODIFIED, a range's OFF LEN */
        for (int k = 0; p && k < 5; k++) {
            *p++ = 0;
            f[k] = p;
            p = strchr(p, '\t');
        }
        if (range && (!f[4] || p))
            continue;
        sreq *r = calloc(1, sizeof *r);
        if (!r || !(r->id = strdup(id + 1)) || !(r->url = strdup(url)))
            return 1;
        if (range) {
            r->range = 1;
            r->off = strtoull(f[3], NULL, 10);
            r->len = strtoull(f[4], NULL, 10);
        }
        if (f[2] && (range || !f[3])) {
            r->known = !range;
            r->h.code = 200;
            r->h.size = strtoll(f[0], NULL, 10);
            r->h.range_total = -1;
            snprintf(r->h.etag, sizeof r->h.etag, "%s", strcmp(f[1], "-") ? f[1] : "");
            snprintf(r->h.last_modified, sizeof r->h.last_modified, "%s", strcmp(f[2], "-") ? f[2] : "");
        }
        r->head = line[0] == 'h';
        pthread_mutex_lock(&q.mu);
        *q.last = r;
        q.last = &r->next;
        pthread_cond_signal(&q.cv);
        pthread_mutex_unlock(&q.mu);
    }
    free(line);
    pthread_mutex_lock(&q.mu);
    q.closed = 1;
    pthread_cond_broadcast(&q.cv);
    pthread_mutex_unlock(&q.mu);
    for (uint32_t i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    free(t);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: feed-fetch --cache DIR [--cache-size BYTES] [--retries N] [--timeout-ms MS] [--parallel N] "
                    "[--mode batch|stream] < requests (fetch.h)\n");
    return 2;
}

int main(int argc, char **argv)
{
    fetch_cfg c = {.retries = 4, .timeout_ms = 30000, .parallel = 8};
    int streaming = 0;
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
        else if (!strcmp(k, "--parallel"))
            c.parallel = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(k, "--mode") && (!strcmp(v, "stream") || !strcmp(v, "batch")))
            streaming = !strcmp(v, "stream");
        else
            return usage();
    }
    if (!c.cache_dir || argc % 2 == 0)
        return usage();
    if (streaming) {
        char why[512];
        if (fetch_http_init() != 0) {
            fprintf(stderr, "feed-fetch: cannot start libcurl\n");
            return 1;
        }
        cache_clean_parts(c.cache_dir);
        if (fetch_sandbox(c.cache_dir, why, sizeof why) != 0) {
            fprintf(stderr, "feed-fetch: sandbox: %s\n", why);
            return 1;
        }
        int rc = stream_run(&c);
        fetch_http_done();
        return rc;
    }
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
    cache_clean_parts(c.cache_dir);
    char why[512];
    if (fetch_sandbox(c.cache_dir, why, sizeof why) != 0) {
        fprintf(stderr, "feed-fetch: sandbox: %s\n", why);
        return 1;
    }
    size_t nlist = 0;
    for (size_t i = 0; i < n; i++)
        nlist += reqs[i].list;
    int rc = 0;
    if (nlist) { /* listings: one after another */
        for (size_t i = 0; i < n; i++) {
            if (reqs[i].list) {
                list(&c, reqs[i].url);
            } else {
                answer a;
                get(&c, reqs[i].url, keep, nkeep, &a);
                fputs(a.text, stdout);
                fflush(stdout);
            }
        }
    } else {
        rc = get_all(&c, reqs, n, keep, nkeep);
    }
    for (size_t i = 0; i < n; i++)
        free(reqs[i].url);
    fetch_http_done();
    for (size_t i = 0; i < nkeep; i++)
        free(keep[i]);
    free(keep);
    free(reqs);
    return rc;
}

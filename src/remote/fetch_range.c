/*
 * fetch_range.c - feed-fetch's "range" request (fetch.h): bytes of one
 * version of a shard, whole tar members, into that version's sparse .ranges
 * file (fetch_cache.c), written in place with pwrite so that other processes
 * may write other ranges of it at the same time.
 *
 * The bytes come from the complete .tar where the cache has it, else from a
 * GET with a Range header (If-Match on the ETag) into memory, at most the
 * range's length. Either way they are checked before they are written: a
 * tar header with a right checksum at the start, each next header after its
 * member's data, the last member ending where the range does. A bad chain, a
 * short answer, a wrong Content-Range total, a timeout, a reset or a 5xx is
 * tried again as a download is (fetch_main.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remote/fetch.h"
#include "remote/fetch_cache.h"

static int pread_all(int fd, unsigned char *buf, uint64_t len, uint64_t off)
{
    for (uint64_t done = 0; done < len;) {
        ssize_t r = pread(fd, buf + done, len - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO; /* the file is shorter than its record says */
            return -1;
        }
        done += (uint64_t)r;
    }
    return 0;
}

static int pwrite_all(int fd, const unsigned char *buf, uint64_t len, uint64_t off)
{
    for (uint64_t done = 0; done < len;) {
        ssize_t w = pwrite(fd, buf + done, len - done, (off_t)(off + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return -1;
        }
        done += (uint64_t)w;
    }
    return 0;
}

/* buf into rpath at off (the file made size bytes long where it is shorter);
 * *mine: the bytes reserved for them, given back as they land. 0, else
 * answered. */
static int write_range(const fetch_cfg *c, const char *url, const char *rpath, uint64_t size, uint64_t off,
                       uint64_t len, const unsigned char *buf, uint64_t *mine, fetch_answer *a)
{
    int fd = open(rpath, O_CREAT | O_WRONLY | O_CLOEXEC, 0644), e = 0;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        e = errno;
        if (fd >= 0)
            close(fd);
        fetch_answer_err(a, "resource", "cache_dir %s: cannot write %s: %s", c->cache_dir, rpath, strerror(e));
        return -1;
    }
    if ((uint64_t)st.st_size > size) {
        close(fd);
        fetch_answer_err(a, "io", "cache_dir %s: %s is %llu bytes, longer than %s (%llu bytes)", c->cache_dir, rpath,
                         (unsigned long long)st.st_size, url, (unsigned long long)size);
        return -1;
    }
    /* never shorter: other processes' ranges are in it */
    if ((uint64_t)st.st_size < size && ftruncate(fd, (off_t)size) != 0)
        e = errno;
    if (!e) {
        cache_room_lock(); /* never counted twice: as the file's blocks and as reserved */
        if (pwrite_all(fd, buf, len, off) != 0)
            e = errno;
        cache_room_unlock(e ? 0 : *mine);
        if (!e)
            *mine = 0;
    }
    if (!e && fdatasync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (e) {
        fetch_answer_err(a, "resource", "cache_dir %s: writing %s: %s%s", c->cache_dir, url, strerror(e),
                         e == ENOSPC || e == EDQUOT ? " (the cache's disk is full)" : "");
        return -1;
    }
    return 0;
}

/* The range from the network into buf, checked: 0, 1 when answered. */
static int download_range(const fetch_cfg *c, const char *url, const fetch_head *v, uint64_t off, uint64_t len,
                          unsigned char *buf, fetch_answer *a)
{
    uint32_t tries = c->retries + 1;
    char why[1024], twhy[512];
    const char *problem = "";
    for (uint32_t t = 0; t < tries; t++) {
        fetch_head g;
        uint64_t got = 0;
        int rc = fetch_http_get_range(c, url, v->etag, off, len, buf, &g, &got);
        int answered = rc >= 0;
        int changed = answered && (g.code == 412 ||
                                   (g.code < 300 && g.etag[0] && v->etag[0] && strcmp(g.etag, v->etag)));
        /* no ETag to ask If-Match with: the Last-Modified must be the version's */
        int lm_changed = answered && g.code < 300 && !v->etag[0] && v->last_modified[0] && g.last_modified[0] &&
                         strcmp(g.last_modified, v->last_modified);
        if (changed) {
            fetch_answer_err(a, "dataset", "%s changed while it was read: its ETag was %s, now %s", url, v->etag,
                             g.code == 412 ? "another (412 Precondition Failed)" : g.etag);
            return 1;
        }
        if (lm_changed) {
            fetch_answer_err(a, "dataset", "%s changed while it was read: Last-Modified was %s, now %s", url,
                             v->last_modified, g.last_modified);
            return 1;
        }
        if (answered && g.code == 200) {
            fetch_answer_err(a, "dataset",
                             "%s: the server ignores Range requests (HTTP 200 to a ranged GET); set fetch_ranges=whole",
                             url);
            return 1;
        }
        if (answered && g.code >= 300 && !g.retryable) {
            fetch_answer_err(a, "dataset", "%s: %s", url, g.why);
            return 1;
        }
        problem = why;
        if (!answered || g.code >= 300)
            problem = g.why;
        else if (g.code != 206)
            snprintf(why, sizeof why, "HTTP %ld to a ranged GET", g.code);
        else if (g.range_total != v->size)
            snprintf(why, sizeof why, "the answer's Content-Range total is %lld, not %lld bytes",
                     (long long)g.range_total, (long long)v->size);
        else if (rc == 1)
            snprintf(why, sizeof why, "an answer longer than the %llu bytes asked for", (unsigned long long)len);
        else if (got != len)
            snprintf(why, sizeof why, "truncated download: %llu of %llu bytes", (unsigned long long)got,
                     (unsigned long long)len);
        else if (fetch_tar_chain(buf, len, off, twhy, sizeof twhy) == 0)
            return 0;
        else
            snprintf(why, sizeof why, "corrupt download: %s", twhy);
        if (t + 1 < tries)
            fetch_backoff(url, problem, t, tries);
    }
    fetch_answer_err(a, "io", "%s: %s (tried %u times)", url, problem, tries);
    return 1;
}

void fetch_range(const fetch_cfg *c, const char *url, const fetch_head *v, uint64_t off, uint64_t len,
                 fetch_answer *a)
{
    char tar[4200], meta[4200], rpath[4300], why[1024], key[CACHE_KEY_LEN + 2];
    if (v->size < 0 || !len || off > (uint64_t)v->size || len > (uint64_t)v->size - off) {
        fetch_answer_err(a, "io", "%s: bytes %llu to %llu are not inside its %lld bytes", url,
                         (unsigned long long)off, (unsigned long long)(off + len), (long long)v->size);
        return;
    }
    uint64_t size = (uint64_t)v->size;
    cache_version_names(c->cache_dir, url, v->etag, v->last_modified, v->size, tar, meta, sizeof tar);
    if (cache_ranges_name(tar, rpath, sizeof rpath) != 0) {
        fetch_answer_err(a, "resource", "cache_dir %s: a path too long for %s", c->cache_dir, url);
        return;
    }
    unsigned char *buf = malloc(len);
    if (!buf) {
        fetch_answer_err(a, "resource", "%s: no memory for %llu bytes of it", url, (unsigned long long)len);
        return;
    }
    uint64_t mine = 0;
    int fetched = 0, rc = 0;
    int fd = cache_has(tar, meta, url, v->etag, v->last_modified, size) ? open(tar, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        rc = pread_all(fd, buf, len, off);
        int e = errno;
        close(fd);
        if (rc != 0)
            fetch_answer_err(a, "io", "cache_dir %s: reading %s: %s", c->cache_dir, tar, strerror(e));
        else if ((rc = fetch_tar_chain(buf, len, off, why, sizeof why)) != 0)
            fetch_answer_err(a, "io", "%s: bytes %llu to %llu of %s are not whole tar members: %s", url,
                             (unsigned long long)off, (unsigned long long)(off + len), tar, why);
        else
            cache_touch(meta);
    } else {
        /* the file written into is never evicted to make room for its own range
         * (its key, form 'r': a whole copy of it may go) */
        cache_key(url, key);
        key[CACHE_KEY_LEN] = 'r', key[CACHE_KEY_LEN + 1] = 0;
        char *keep[1] = {key};
        uint64_t kept = 0;
        int room = cache_reserve(c->cache_dir, c->cache_size, len, keep, 1, &kept, why, sizeof why);
        if (room < 0)
            fetch_answer_err(a, "resource", "%s", why);
        else if (room > 0)
            fetch_answer_err(a, "resource",
                             "cache_dir %s: cache_size %llu cannot hold %llu bytes of %s beside its other bytes "
                             "(%llu) and what running loaders hold: raise cache_size",
                             c->cache_dir, (unsigned long long)c->cache_size, (unsigned long long)len, url,
                             (unsigned long long)kept);
        else
            mine = len;
        rc = room != 0 || download_range(c, url, v, off, len, buf, a);
        fetched = 1;
    }
    if (!rc && write_range(c, url, rpath, size, off, len, buf, &mine, a) == 0)
        snprintf(a->text, sizeof a->text, "ok\t%s\t%llu\t%d\n", rpath, (unsigned long long)size, fetched);
    if (mine) {
        cache_room_lock();
        cache_room_unlock(mine);
    }
    free(buf);
}

/*
 * index.c - the built index (index.h) moved into a sealed memfd for the
 * workers, a worker's read-only map of it, and freeing either.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataset/index.h"

#include "common/internal.h"

feed_status feed__index_share(feed__index *ix, char *err, size_t errlen)
{
    uint64_t total = ix->hdr->total_bytes;
    int fd0 = memfd_create("libfeed-index", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd0 < 0)
        return feed__err(FEED_E_RESOURCE, err, errlen, "index: memfd_create: %s%s", strerror(errno),
                         errno == EMFILE || errno == ENFILE ? " (raise ulimit -n)" : "");
    /* A high number, so posix_spawn's dup2 to a worker's fds 3..6
     * (arena/protocol.h) cannot clobber it. */
    int fd = fcntl(fd0, F_DUPFD_CLOEXEC, 10);
    int e = fd < 0 ? errno : 0;
    close(fd0);
    if (fd < 0)
        return feed__err(FEED_E_RESOURCE, err, errlen, "index: out of file descriptors: %s (raise ulimit -n)",
                         strerror(e));
    /* Over RLIMIT_FSIZE ftruncate would raise SIGXFSZ (fatal by default). */
    struct rlimit fsz;
    if (getrlimit(RLIMIT_FSIZE, &fsz) == 0 && fsz.rlim_cur != RLIM_INFINITY && total > fsz.rlim_cur)
        e = EFBIG;
    else if (ftruncate(fd, (off_t)total) != 0)
        e = errno;
    void *p = e ? MAP_FAILED : mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (!e && p == MAP_FAILED)
        e = errno;
    if (e) {
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen,
                         "index: cannot map %llu bytes of shared memory: %s%s",
                         (unsigned long long)total, strerror(e),
                         e == EFBIG ? " (over the file size limit: raise ulimit -f)"
                         : e == ENOMEM || e == ENOSPC ? " (free memory or raise ulimit -v)" : "");
    }
    memcpy(p, ix->hdr, total);
    munmap(p, total);
    /* Read-only for everyone from now on: a worker bug cannot corrupt it. */
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    p = mmap(NULL, total, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        e = errno;
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen, "index: mmap: %s%s", strerror(e),
                         e == ENOMEM ? " (free memory or raise ulimit -v)" : "");
    }
    feed__free(ix->hdr);
    ix->hdr = p;
    ix->fd = fd;
    ix->owned_map = 1;
    return FEED_OK;
}

feed_status feed__index_attach(feed__index *ix, int fd, char *err, size_t errlen)
{
    memset(ix, 0, sizeof *ix);
    ix->fd = -1;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < sizeof(feed__index_hdr))
        return feed__err(FEED_E_INTERNAL, err, errlen, "index: bad shared index fd");
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return feed__err(FEED_E_RESOURCE, err, errlen, "index: mmap: %s", strerror(errno));
    feed__index_hdr *h = p;
    if (h->magic != FEED_INDEX_MAGIC || h->version != FEED_INDEX_VERSION ||
        h->total_bytes != (uint64_t)sb.st_size) {
        munmap(p, (size_t)sb.st_size);
        return feed__err(FEED_E_INTERNAL, err, errlen, "index: layout mismatch (version skew?)");
    }
    ix->hdr = h;
    ix->owned_map = 1;
    return FEED_OK;
}

int feed__index_name(const feed__index_hdr *h, uint64_t i, char *buf, size_t len)
{
    const char *rel = feed__index_path(h, i);
    /* a relative path is under the root ("/" has its slash already) */
    const char *root = rel[0] == '/' ? "" : h->root;
    const char *sep = rel[0] == '/' || !strcmp(h->root, "/") ? "" : "/";
    const char *key = feed__index_key(h, i);
    uint64_t off, n;
    if (h->kind == FEED_INDEX_NPY)
        return snprintf(buf, len, "%s%s%s[%llu]", root, sep, rel, (unsigned long long)i);
    if (key)
        return snprintf(buf, len, "%s%s%s:%s", root, sep, rel, key);
    if (feed__index_range(h, i, &off, &n)) /* no key kept: its bytes, as a slice */
        return snprintf(buf, len, "%s%s%s[%llu:%llu]", root, sep, rel, (unsigned long long)off,
                        (unsigned long long)(off + n));
    return snprintf(buf, len, "%s%s%s", root, sep, rel);
}

uint64_t feed__index_shard_start(const feed__index_hdr *h, uint64_t s)
{
    const feed__index_entry *e = feed__index_entries(h);
    uint64_t lo = 0, hi = h->count; /* the first sample of shard s or later is in [lo, hi] */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (e[mid].path_off >> FEED_INDEX_SHARD_SHIFT < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void feed__index_shard_starts(const feed__index_hdr *h, uint64_t *starts)
{
    for (uint64_t s = 0; s < h->nshards; s++)
        starts[s] = feed__index_shard_start(h, s);
    starts[h->nshards] = h->count;
}

void feed__index_free(feed__index *ix)
{
    if (!ix)
        return;
    if (ix->hdr) {
        if (ix->owned_map)
            munmap(ix->hdr, ix->hdr->total_bytes);
        else
            feed__free(ix->hdr);
    }
    if (ix->fd >= 0)
        close(ix->fd);
    ix->hdr = NULL;
    ix->fd = -1;
}

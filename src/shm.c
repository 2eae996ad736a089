/* shm.c - create, size, reserve and map the shared arena; check it on attach. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "shm.h"

static void layout(feed__arena_hdr *h, const feed__arena_geom *g)
{
    uint64_t B = g->batch_size;
    h->magic = FEED_ARENA_MAGIC;
    h->layout_version = FEED_ARENA_VERSION;
    h->off_trace = FEED_ALIGN_UP(sizeof(feed__arena_hdr), 64);
    h->trace_stride = FEED_ALIGN_UP(sizeof(feed__trace_ring) + FEED_TRACE_RING * sizeof(feed_trace_event), 64);
    h->hdr_bytes = (uint32_t)FEED_ALIGN_UP(h->off_trace + g->nworkers * h->trace_stride, 4096);
    h->nslots = g->nslots;
    h->batch_size = g->batch_size;
    h->nworkers = g->nworkers;
    h->sample_bytes = g->sample_bytes;
    uint64_t off = FEED_ALIGN_UP(sizeof(feed__slot_hdr), 64);
    h->off_states = off;
    off = FEED_ALIGN_UP(off + B * sizeof(uint32_t), 64);
    h->off_recs = off;
    off = FEED_ALIGN_UP(off + B * sizeof(feed__sample_rec), 64);
    h->off_labels = off;
    off = FEED_ALIGN_UP(off + B * sizeof(int32_t), 64);
    h->off_ids = off;
    off = FEED_ALIGN_UP(off + B * sizeof(uint64_t), 64);
    h->off_flags = off;
    off = FEED_ALIGN_UP(off + B, 4096);
    h->off_pixels = off;
    h->slot_stride = FEED_ALIGN_UP(off + B * g->sample_bytes, 4096);
    h->total_bytes = h->hdr_bytes + (uint64_t)g->nslots * h->slot_stride;
}

/* What to raise or lower when making the arena failed with errno e. */
static const char *hint(int e)
{
    switch (e) {
    case EMFILE:
    case ENFILE:
        return " (out of file descriptors: raise ulimit -n)";
    case EFBIG:
        return " (over the file size limit: raise ulimit -f)";
    case ENOSPC:
    case ENOMEM:
        return " (free memory, raise ulimit -v or the memory cgroup limit, or lower "
               "prefetch/batch_size/height/width)";
    default:
        return "";
    }
}

feed_status feed__arena_create(feed__arena *a, const feed__arena_geom *g, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    feed__arena_hdr tmp;
    memset(&tmp, 0, sizeof tmp);
    layout(&tmp, g);
    uint64_t total = tmp.total_bytes;

    /* memfd: no name in /dev/shm, nothing to clean up after a crash. Kept at
     * a high fd number so posix_spawn can dup2 it to 3 unambiguously. */
    int fd0 = memfd_create("libfeed-arena", MFD_CLOEXEC);
    if (fd0 < 0)
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: memfd_create failed: %s%s", strerror(errno),
                         errno == ENOSYS ? " (is this Linux >= 3.17?)" : hint(errno));
    int fd = fcntl(fd0, F_DUPFD_CLOEXEC, 10);
    int e = fd < 0 ? errno : 0;
    close(fd0);
    if (fd < 0)
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: out of file descriptors: %s (raise ulimit -n)",
                         strerror(e));
    /* Over RLIMIT_FSIZE, ftruncate would also raise SIGXFSZ, which kills
     * the host process by default: check first. */
    struct rlimit fsz;
    if (getrlimit(RLIMIT_FSIZE, &fsz) == 0 && fsz.rlim_cur != RLIM_INFINITY && total > fsz.rlim_cur) {
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: cannot size %llu MiB of shared memory: %s%s",
                         (unsigned long long)(total >> 20), strerror(EFBIG), hint(EFBIG));
    }
    if (ftruncate(fd, (off_t)total) != 0) {
        e = errno;
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: cannot size %llu MiB of shared memory: %s%s",
                         (unsigned long long)(total >> 20), strerror(e), hint(e));
    }
    /* Reserve every page now: on a full tmpfs this fails with ENOSPC here,
     * instead of a SIGBUS in a worker on first touch. */
    e = posix_fallocate(fd, 0, (off_t)total);
    if (e != 0 && e != EOPNOTSUPP && e != EINVAL) {
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: cannot reserve %llu MiB of shared memory: %s%s",
                         (unsigned long long)(total >> 20), strerror(e),
                         e == EFBIG ? hint(e) : hint(ENOSPC));
    }
    void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
        e = errno;
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: mmap of %llu MiB failed: %s%s",
                         (unsigned long long)(total >> 20), strerror(e), hint(e));
    }
    memcpy(p, &tmp, sizeof tmp);
    a->hdr = p;
    a->bytes = total;
    a->fd = fd;
    return FEED_OK;
}

feed_status feed__arena_attach(feed__arena *a, int fd, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < sizeof(feed__arena_hdr))
        return feed__err(FEED_E_INTERNAL, err, errlen, "arena: fd %d is not an arena", fd);
    /* MAP_POPULATE: map every page now, so the first pass over the ring does
     * not take a minor fault per page in every worker. */
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: mmap of %.1f MiB: %s%s",
                         (double)sb.st_size / 1048576.0, strerror(e),
                         e == ENOMEM ? " (address-space limit? raise ulimit -v, or lower prefetch or batch_size)"
                                     : "");
    }
    feed__arena_hdr *h = p;
    feed__arena_hdr want;
    memset(&want, 0, sizeof want);
    feed__arena_geom g = {h->nslots, h->batch_size, h->nworkers, h->sample_bytes};
    layout(&want, &g);
    if (h->magic != FEED_ARENA_MAGIC || h->layout_version != FEED_ARENA_VERSION ||
        h->total_bytes != (uint64_t)sb.st_size || h->hdr_bytes != want.hdr_bytes || h->off_trace != want.off_trace ||
        h->slot_stride != want.slot_stride || h->off_pixels != want.off_pixels) {
        munmap(p, (size_t)sb.st_size);
        return feed__err(FEED_E_INTERNAL, err, errlen,
                         "arena: layout mismatch (worker and library from different builds?)");
    }
    a->hdr = h;
    a->bytes = (size_t)sb.st_size;
    a->fd = fd;
    return FEED_OK;
}

void feed__arena_close(feed__arena *a)
{
    if (!a)
        return;
    if (a->hdr)
        munmap(a->hdr, a->bytes);
    if (a->fd >= 0)
        close(a->fd);
    a->hdr = NULL;
    a->fd = -1;
}

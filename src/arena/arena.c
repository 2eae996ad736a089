/* arena.c - create, size and map the shared arena; check it on attach. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena/arena.h"
#include "common/internal.h"

_Static_assert(FEED_ARENA_CFG_BYTES == FEED_ARENA_PAGE_MAX,
               "the configuration is one largest page, before the control words");
_Static_assert(_Alignof(feed__arena_hdr) <= 4096, "the header asks for no more alignment than a mapping has");

static void layout(feed__layout *l, const feed__arena_geom *g)
{
    uint64_t B = g->batch_size;
    memset(l, 0, sizeof *l);
    l->off_trace = FEED_ALIGN_UP(sizeof(feed__arena_hdr), 64);
    l->trace_stride = FEED_ALIGN_UP(sizeof(feed__trace_ring) + FEED_TRACE_RING * sizeof(feed_trace_event), 64);
    l->hdr_bytes = FEED_ALIGN_UP(l->off_trace + (uint64_t)g->nworkers * l->trace_stride, FEED_ARENA_PAGE_MAX);
    l->nslots = g->nslots;
    l->batch_size = g->batch_size;
    l->nworkers = g->nworkers;
    l->sample_bytes = g->sample_bytes;
    uint64_t off = FEED_ALIGN_UP(sizeof(feed__slot_hdr), 64);
    l->off_states = off;
    off = FEED_ALIGN_UP(off + B * sizeof(uint32_t), 64);
    l->off_recs = off;
    off = FEED_ALIGN_UP(off + B * sizeof(feed__sample_rec), 64);
    l->off_labels = off;
    off = FEED_ALIGN_UP(off + B * sizeof(int32_t), 64);
    l->off_ids = off;
    off = FEED_ALIGN_UP(off + B * sizeof(uint64_t), 64);
    l->off_flags = off;
    off = FEED_ALIGN_UP(off + B, 4096);
    l->off_pixels = off;
    off += B * g->sample_bytes;
    if (g->nmeta) { /* after the pixels: paged in only where a worker writes */
        l->nmeta = g->nmeta;
        l->meta_bytes = g->meta_bytes;
        l->off_mlens = off = FEED_ALIGN_UP(off, 64);
        l->off_meta = off = FEED_ALIGN_UP(off + B * g->nmeta * sizeof(uint32_t), 64);
        off += B * g->meta_bytes;
    }
    l->slot_stride = FEED_ALIGN_UP(off, FEED_ARENA_PAGE_MAX);
    l->total_bytes = l->hdr_bytes + (uint64_t)g->nslots * l->slot_stride;
}

/* The header's copy of the layout (workers check it on attach). */
static void write_layout(feed__arena_hdr *h, const feed__layout *l)
{
    h->magic = FEED_ARENA_MAGIC;
    h->layout_version = FEED_ARENA_VERSION;
    h->hdr_bytes = (uint32_t)l->hdr_bytes;
    h->total_bytes = l->total_bytes;
    h->nslots = l->nslots, h->batch_size = l->batch_size, h->nworkers = l->nworkers;
    h->slot_stride = l->slot_stride, h->sample_bytes = l->sample_bytes;
    h->off_trace = l->off_trace, h->trace_stride = l->trace_stride;
    h->off_states = l->off_states, h->off_recs = l->off_recs, h->off_labels = l->off_labels;
    h->off_ids = l->off_ids, h->off_flags = l->off_flags, h->off_pixels = l->off_pixels;
    h->nmeta = l->nmeta, h->meta_bytes = l->meta_bytes, h->off_mlens = l->off_mlens, h->off_meta = l->off_meta;
}

static feed_status alloc_private(feed__arena *a)
{
    const feed__layout *l = &a->lay;
    /* Aligned as the header is (the control words start a page). */
    if (!(a->cfg_mem = feed__calloc(1, sizeof *a->cfg + _Alignof(feed__arena_hdr))))
        return FEED_E_NOMEM;
    a->cfg = (feed__arena_hdr *)FEED_ALIGN_UP((uintptr_t)a->cfg_mem, _Alignof(feed__arena_hdr));
    pthread_mutex_init(&a->mu, NULL); /* destroyed with cfg */
    write_layout(a->cfg, l);
    if (!(a->meta = feed__calloc(l->nslots, sizeof *a->meta)))
        return FEED_E_NOMEM;
    for (uint32_t i = 0; i < l->nslots; i++) {
        feed__slot_meta *m = &a->meta[i];
        if (!(m->s = feed__calloc(l->batch_size, sizeof *m->s)) ||
            !(m->labels = feed__calloc(l->batch_size, sizeof *m->labels)) ||
            !(m->ids = feed__calloc(l->batch_size, sizeof *m->ids)) ||
            !(m->flags = feed__calloc(l->batch_size, sizeof *m->flags)))
            return FEED_E_NOMEM;
        if (l->nmeta && (!(m->meta_off = feed__calloc((size_t)l->batch_size * l->nmeta, sizeof *m->meta_off)) ||
                         !(m->meta_len = feed__calloc((size_t)l->batch_size * l->nmeta, sizeof *m->meta_len))))
            return FEED_E_NOMEM;
    }
    return FEED_OK;
}

static void free_private(feed__arena *a)
{
    if (a->cfg)
        pthread_mutex_destroy(&a->mu);
    for (uint32_t i = 0; a->meta && i < a->lay.nslots; i++) {
        feed__free(a->meta[i].s);
        feed__free(a->meta[i].labels);
        feed__free(a->meta[i].ids);
        feed__free(a->meta[i].flags);
        feed__free(a->meta[i].meta_off);
        feed__free(a->meta[i].meta_len);
    }
    feed__free(a->meta);
    feed__free(a->cfg_mem);
    a->meta = NULL;
    a->cfg = NULL;
    a->cfg_mem = NULL;
}

/* Maps in the control words (the header, the trace rings, each slot's
 * states, records, labels, ids and flags), not the pixels: those are written
 * once per pass by one worker, and a page's first write pays for zeroing it
 * wherever it happens. Populating them at create (MAP_POPULATE, 154 MiB for
 * 4 slots of 64 float32 224x224 images) would zero the whole ring in the
 * parent and map it again in every worker before the first batch could
 * start (bench/startupbench: 61 of the 80 ms of create); the workers fault
 * the pixel pages in as they fill the first pass, in parallel, and the first
 * batch waits only for its own slot's. Best effort: without
 * MADV_POPULATE_WRITE (Linux < 5.14) the control words fault in on use. */
static void populate_control(void *base, const feed__layout *l, uint64_t from)
{
#ifdef MADV_POPULATE_WRITE
    char *p = base;
    madvise(p + from, l->hdr_bytes - from, MADV_POPULATE_WRITE);
    for (uint64_t i = 0; i < l->nslots; i++)
        madvise(p + l->hdr_bytes + i * l->slot_stride, l->off_pixels, MADV_POPULATE_WRITE);
#else
    (void)base, (void)l, (void)from;
#endif
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

/* A sealable memfd: no name in /dev/shm, nothing to clean up after a crash.
 * Kept at a high fd number so posix_spawn's dup2s to 3..6 cannot clobber it. */
static feed_status memfd_high(const char *name, int *out, char *err, size_t errlen)
{
    int fd0 = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd0 < 0)
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: memfd_create failed: %s%s", strerror(errno),
                         errno == ENOSYS ? " (is this Linux >= 3.17?)" : hint(errno));
    int fd = fcntl(fd0, F_DUPFD_CLOEXEC, 10);
    int e = fd < 0 ? errno : 0;
    close(fd0);
    if (fd < 0)
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: out of file descriptors: %s (raise ulimit -n)",
                         strerror(e));
    *out = fd;
    return FEED_OK;
}

static feed_status create_map(feed__arena *a, char *err, size_t errlen)
{
    uint64_t total = a->lay.total_bytes;

    int fd, e;
    feed_status st = memfd_high("libfeed-arena", &fd, err, errlen);
    if (st != FEED_OK)
        return st;
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
    /* Its size is fixed from here on: a worker (without the sandbox, which
     * refuses ftruncate) that shrank it would have the parent SIGBUS on the
     * pages it cut off. */
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        e = errno;
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: cannot seal its size: %s", strerror(e));
    }
    void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        e = errno;
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: mmap of %llu MiB failed: %s%s",
                         (unsigned long long)(total >> 20), strerror(e), hint(e));
    }
    populate_control(p, &a->lay, 0);
    a->hdr = p;
    a->bytes = total;
    a->fd = fd;
    return FEED_OK;
}

feed_status feed__arena_seal_config(feed__arena *a, char *err, size_t errlen)
{
    int fd, e = 0;
    feed_status st = memfd_high("libfeed-config", &fd, err, errlen);
    if (st != FEED_OK)
        return st;
    /* Written, not mapped: F_SEAL_WRITE is refused while a writable shared
     * mapping exists. */
    const char *src = (const char *)a->cfg;
    size_t done = 0;
    while (!e && done < FEED_ARENA_CFG_BYTES) {
        ssize_t k = pwrite(fd, src + done, FEED_ARENA_CFG_BYTES - done, (off_t)done);
        if (k > 0)
            done += (size_t)k;
        else if (k < 0 && errno != EINTR)
            e = errno;
        else if (k == 0)
            e = EIO;
    }
    /* From here on no process can write it, map it writable or mprotect a
     * mapping of it writable (a worker's included): what every worker
     * reads is what the parent wrote. */
    int seals = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
    if (!e && fcntl(fd, F_ADD_SEALS, seals) != 0)
        e = errno;
    if (!e && (fcntl(fd, F_GET_SEALS) & seals) != seals)
        e = EPERM;
    if (e) {
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: cannot seal the configuration: %s%s",
                         strerror(e), hint(e));
    }
    a->cfg_fd = fd;
    return FEED_OK;
}

feed_status feed__arena_create(feed__arena *a, const feed__arena_geom *g, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->fd = a->cfg_fd = -1;
    layout(&a->lay, g);
    feed_status st = alloc_private(a) != FEED_OK ? feed__err(FEED_E_NOMEM, err, errlen, "arena: out of memory")
                                                 : create_map(a, err, errlen);
    if (st != FEED_OK)
        free_private(a);
    return st;
}

feed_status feed__arena_attach(feed__arena *a, int fd, int cfg_fd, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->fd = a->cfg_fd = -1;
    struct stat sb, cb;
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < sizeof(feed__arena_hdr))
        return feed__err(FEED_E_INTERNAL, err, errlen, "arena: fd %d is not an arena", fd);
    if (fstat(cfg_fd, &cb) != 0 || (uint64_t)cb.st_size != FEED_ARENA_CFG_BYTES)
        return feed__err(FEED_E_INTERNAL, err, errlen,
                         "arena: fd %d is not the configuration (worker and library from different builds?)",
                         cfg_fd);
    /* The sealed pages replace exactly the configuration: whole pages. */
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || page > (long)FEED_ARENA_PAGE_MAX || FEED_ARENA_PAGE_MAX % (unsigned long)page)
        return feed__err(FEED_E_INTERNAL, err, errlen,
                         "arena: page size %ld not supported (4, 16 or 64 KiB pages only)", page);
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: mmap of %.1f MiB: %s%s",
                         (double)sb.st_size / 1048576.0, strerror(e),
                         e == ENOMEM ? " (address-space limit? raise ulimit -v, or lower prefetch or batch_size)"
                                     : "");
    }
    /* The configuration is the parent's sealed copy, over the arena's own
     * first 64 KiB (which any worker can write, and no one reads): every read
     * of hdr's configuration fields here, and the checks below, see only
     * what the parent wrote. No process can make this page writable. */
    if (mmap(p, FEED_ARENA_CFG_BYTES, PROT_READ, MAP_SHARED | MAP_FIXED, cfg_fd, 0) != p) {
        int e = errno;
        munmap(p, (size_t)sb.st_size);
        return feed__err(FEED_E_RESOURCE, err, errlen, "arena: cannot map the configuration: %s", strerror(e));
    }
    feed__arena_hdr *h = p;
    feed__arena_geom g = {h->nslots, h->batch_size, h->nworkers, h->sample_bytes, h->nmeta, h->meta_bytes};
    layout(&a->lay, &g);
    const feed__layout *l = &a->lay;
    if (h->magic != FEED_ARENA_MAGIC || h->layout_version != FEED_ARENA_VERSION ||
        h->total_bytes != (uint64_t)sb.st_size || l->total_bytes != (uint64_t)sb.st_size ||
        h->hdr_bytes != l->hdr_bytes || h->off_trace != l->off_trace || h->trace_stride != l->trace_stride ||
        h->slot_stride != l->slot_stride || h->off_states != l->off_states || h->off_recs != l->off_recs ||
        h->off_labels != l->off_labels || h->off_ids != l->off_ids || h->off_flags != l->off_flags ||
        h->off_pixels != l->off_pixels || h->off_mlens != l->off_mlens || h->off_meta != l->off_meta ||
        !l->nslots || !l->batch_size || !l->nworkers) {
        munmap(p, (size_t)sb.st_size);
        memset(&a->lay, 0, sizeof a->lay);
        return feed__err(FEED_E_INTERNAL, err, errlen,
                         "arena: layout mismatch (worker and library from different builds?)");
    }
    populate_control(p, l, FEED_ARENA_CFG_BYTES);
    a->hdr = h;
    a->bytes = (size_t)sb.st_size;
    a->fd = fd;
    a->cfg_fd = cfg_fd;
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
    if (a->cfg_fd >= 0)
        close(a->cfg_fd);
    free_private(a);
    a->hdr = NULL;
    a->fd = a->cfg_fd = -1;
}

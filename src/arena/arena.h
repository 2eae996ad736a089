/*
 * arena.h - the shared arena: one memfd mapped MAP_SHARED by the parent and by
 * every worker (each maps it from the fd itself; nothing relies on a mapping
 * inherited through fork).
 *
 * Layout (all offsets from the arena's start; every live word is a C11
 * atomic that lives in the memfd, so it works across processes):
 *
 *   feed__arena_hdr        configuration (geometry, transform: its first 64 KiB),
 *                          control words, worker records
 *   trace rings            one per worker: feed__trace_ring + FEED_TRACE_RING events
 *   slot 0 .. nslots-1     each slot_stride bytes, FEED_ARENA_PAGE_MAX aligned:
 *       feed__slot_hdr
 *       states[B]          _Atomic uint32_t: gen << 8 | owner   (see ring.c)
 *       recs[B]            feed__sample_rec
 *       labels[B]          int32_t
 *       ids[B]             uint64_t
 *       flags[B]           uint8_t
 *       pixels             B * sample_bytes, 4 KiB aligned
 *       mlens[B * nmeta]   uint32_t: the metadata members' lengths (nmeta > 0 only)
 *       meta               B * meta_bytes: sample t's members at t * meta_bytes, one after another
 *
 * The header begins with magic, layout version and sizes; a worker checks
 * them on attach and refuses a layout it was not built for.
 *
 * Trust: workers are untrusted (a codec bug may run code in one). Every
 * process computes addresses from its own feed__layout, made from the
 * geometry (the parent at create, a worker at attach), never from the
 * shared header afterwards. The parent keeps what it assigned (feed__arena's
 * cfg and meta) in private memory and treats every shared word as input to
 * check (verify.h). The configuration page(s) (everything before work_seq,
 * FEED_ARENA_PAGE_MAX bytes: whole pages on any supported kernel) are
 * the parent's: written once from the private copy into a memfd of its own,
 * sealed (F_SEAL_WRITE: no process, the parent included, can write it or map
 * it writable again), handed to every worker on fd FEED_WORKER_CONFIG_FD
 * (arena/protocol.h) and mapped by the worker over the start of its arena mapping
 * (MAP_FIXED, read-only), so a worker's hdr->seed, ->xform, ... are the
 * sealed copy's. The arena memfd's own first 64 KiB are read by no one: a
 * worker may write it (it maps the arena read-write), the parent reads its
 * private cfg, never the shared header's configuration fields.
 */
#ifndef FEED_ARENA_ARENA_H
#define FEED_ARENA_ARENA_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "feed.h"
#include "pixels/xform.h"

#define FEED_ARENA_MAGIC 0x414e455241454546ull /* "FEEDAREN" */
#define FEED_ARENA_VERSION 11u
#define FEED_ARENA_MAX_WORKERS 250u
/* The largest page size supported (4, 16 and 64 KiB kernels: x86-64, and
 * arm64 such as Grace, which ships with 64 KiB pages): the configuration,
 * the header and every slot start on a multiple of it, so the sealed
 * configuration can replace the arena's first page(s) whatever the page. */
#define FEED_ARENA_PAGE_MAX 65536u

/* owner byte of a sample state word */
#define FEED_OWNER_FREE 0u
#define FEED_OWNER_DONE 255u

/* A slot flag beside the public FEED_SAMPLE_* ones: the sample was bad and
 * no substitute could be read either (its pixels are not an image). The
 * loader fails the batch instead of delivering it. */
#define FEED__SAMPLE_NO_SUBSTITUTE 0x80u

/* slot phases */
enum { FEED_SLOT_IDLE = 0, FEED_SLOT_ASSIGNING = 1, FEED_SLOT_FILLING = 2, FEED_SLOT_DRAINING = 3 };

/* worker record states */
enum { FEED_WREC_EMPTY = 0, FEED_WREC_STARTING = 1, FEED_WREC_RUNNING = 2 };

typedef struct feed__worker_rec {
    _Atomic uint32_t state;
    int32_t pid;
    _Atomic uint32_t reader_kind;   /* FEED__READER_KIND_* the worker got */
    _Atomic uint32_t entropy;       /* FEED__ENTROPY_* (pixels/xform.h): its JPEG Huffman
                                       decoder and why, set before RUNNING (the parent
                                       condemns a worker that writes >= FEED__ENTROPY_CODES) */
    /* Stage times and bytes, for feed_loader_stats only (the parent bounds
     * them). Nothing here decides a hang or progress: those the parent
     * reads from the ring (feed__ring_claims, feed__ring_progress). */
    _Atomic uint64_t read_ns, decode_ns, augment_ns, convert_ns, read_bytes;
    char pad2[56];
} feed__worker_rec;

typedef struct feed__sample_rec {
    uint64_t sample_id;         /* parent: the dataset index asked for */
    _Atomic uint32_t attempts;  /* parent: workers that died holding this sample */
    _Atomic uint32_t subst_k;   /* substitute being tried (0 = the sample itself) */
    _Atomic uint32_t poisoned;  /* parent: crashed too often; go straight to a substitute */
    int32_t status;             /* worker: error of the original sample (0 = none) */
    int32_t sys_errno;
    _Atomic uint32_t subst_deaths; /* parent: workers that died on substitute subst_k */
    _Atomic uint32_t filler;       /* worker: w + 1 of the worker that claimed it last */
    uint32_t repeat;    /* parent: which of the epoch's repeats of the sample (0..repeats-1):
                           the worker keys its draws by sample_id + repeat * dataset_size */
    char message[200];
} feed__sample_rec;

/* One worker's timeline ring (FEED_TRACE_RING events after it). The worker
 * writes event head % FEED_TRACE_RING, then publishes head + 1 (release). */
typedef struct feed__trace_ring {
    _Atomic uint64_t head;
    char pad[56];
} feed__trace_ring;

typedef struct feed__slot_hdr {
    _Atomic uint32_t phase;  /* FEED_SLOT_* */
    _Atomic uint32_t gen;    /* bumped at every assignment; low 24 bits in the states */
    _Atomic uint32_t ticket; /* next sample to claim (a hint: states decide) */
    uint32_t count;          /* samples in this batch */
    uint64_t seq, epoch, index;
    char pad[24];
} feed__slot_hdr;

typedef struct feed__arena_hdr {
    /* The configuration: FEED_ARENA_PAGE_MAX bytes (padded by the union,
     * not by an alignment: the mapping is aligned to the page, which may be
     * 4 KiB, and the type must not ask for more than the memory has). */
    union {
        struct {
            uint64_t magic;
            uint32_t layout_version;
            uint32_t hdr_bytes;
            uint64_t total_bytes;
            uint32_t nslots, batch_size, nworkers, channels;
            uint64_t slot_stride, sample_bytes;
            uint64_t off_trace, trace_stride; /* worker w's feed__trace_ring at off_trace + w * trace_stride */
            uint64_t off_states, off_recs, off_labels, off_ids, off_flags, off_pixels; /* within a slot */
            /* what the workers produce */
            uint32_t out_dtype, out_layout;
            float conv_scale[3], conv_bias[3];
            uint64_t seed;
            feed__xform xform;
            uint32_t bad_policy, max_retries, reader;
            uint32_t sandbox; /* 1: workers enter the seccomp sandbox after setup (sandbox.h) */
            uint64_t max_file_bytes;
            uint64_t dataset_size;
            /* metadata members (meta_members): nmeta a sample, meta_bytes of room each */
            uint32_t nmeta, meta_missing; /* FEED_META_MISSING_* */
            uint64_t meta_bytes, off_mlens, off_meta; /* offsets within a slot */
            char meta_exts[4][32];                    /* their extensions, for reports */
            /* where a bad sample's substitutes come from: FEED_SUBSTITUTE_*
             * (arena/protocol.h); the shard or the batch when only those are
             * sure to be in the cache */
            uint32_t substitute_from;
        };
        char cfg_pages[FEED_ARENA_PAGE_MAX];
    };
    /* control words, one cache line each; the FEED_ARENA_PAGE_MAX bytes
     * before them are the configuration (the sealed copy in workers). Any
     * worker can write them, so nothing here stops a worker: the pool ends
     * workers with SIGKILL, the kernel (PR_SET_PDEATHSIG) when the parent
     * dies. */
    _Alignas(64) _Atomic uint32_t work_seq; /* bumped when there is new work */
    _Alignas(64) _Atomic uint32_t done_seq; /* bumped when a sample completes */
    _Atomic uint32_t consumer_waiting;
    _Atomic uint32_t entropy_said; /* 1 once a worker has said on stderr that its
                                      self-check failed (the others keep quiet) */
    _Alignas(64) feed__worker_rec workers[FEED_ARENA_MAX_WORKERS];
} feed__arena_hdr;

/* Where everything is, computed from the geometry (never read back). */
typedef struct feed__layout {
    uint64_t total_bytes, hdr_bytes, slot_stride, sample_bytes;
    uint64_t off_trace, trace_stride;
    uint64_t off_states, off_recs, off_labels, off_ids, off_flags, off_pixels;
    uint64_t meta_bytes, off_mlens, off_meta;
    uint32_t nslots, batch_size, nworkers, nmeta;
} feed__layout;

/* The parent's own record of sample t of a slot: what it asked for and the
 * counters only it keeps; the shared record's parent fields are rewritten
 * from it whenever a sample is handed out again. */
typedef struct feed__sample_priv {
    uint64_t id;
    uint32_t repeat;
    uint32_t attempts, poisoned, subst_k, subst_deaths;
    int32_t status; /* FEED_E_WORKER when poisoned by the parent (why holds the reason) */
    char why[200];
    /* the worker's report, checked and copied when the batch was (verify.h) */
    int32_t got_status, got_errno;
    char got_message[200]; /* NUL-terminated, non-printables escaped */
} feed__sample_priv;

/* The parent's own record of a slot. The delivered arrays are copies of
 * what the workers wrote, taken when the batch was checked: the caller reads
 * those, never words a worker can still change. */
typedef struct feed__slot_meta {
    uint64_t seq, epoch, index;
    uint32_t count, gen;
    uint32_t tampered;      /* the shared header was found changed while this batch filled */
    _Atomic uint32_t phase; /* FEED_SLOT_*: drain changes it without the loader's lock */
    feed__sample_priv *s; /* batch_size */
    int32_t *labels;      /* batch_size, delivered */
    uint64_t *ids;
    uint8_t *flags;
    /* metadata members (nmeta > 0): where sample t's member j is in the
     * slot's meta region and how long, [t * nmeta + j], from the index and
     * the lengths the worker wrote, checked */
    uint64_t *meta_off;
    uint32_t *meta_len;
} feed__slot_meta;

typedef struct feed__arena {
    feed__arena_hdr *hdr; /* the shared mapping (control words, worker records) */
    feed__layout lay;     /* this process's copy */
    size_t bytes;
    int fd;
    int cfg_fd; /* the sealed configuration memfd (-1 until sealed) */
    /* parent only (NULL in workers) */
    feed__arena_hdr *cfg;  /* the configuration (fields before work_seq), private */
    void *cfg_mem;         /* its allocation */
    feed__slot_meta *meta; /* nslots */
    uint64_t retired;      /* samples seen done in batches reassigned or drained since (ring.c) */
    pthread_mutex_t mu;    /* guards meta: the ring's parent side takes it (the pool's thread too) */
} feed__arena;

/* Bytes of feed__arena_hdr before the control words: the configuration page. */
#define FEED_ARENA_CFG_BYTES offsetof(feed__arena_hdr, work_seq)

/* Geometry the loader asks for. */
typedef struct feed__arena_geom {
    uint32_t nslots, batch_size, nworkers;
    uint64_t sample_bytes;
    uint32_t nmeta;      /* metadata members a sample (0: none) */
    uint64_t meta_bytes; /* room for one sample's */
} feed__arena_geom;

/* Creates the memfd, sizes it, maps it (the control words populated, the
 * pixels left to the workers' first touch) and allocates the parent's
 * private copies. The caller fills a->cfg, then seals it. Whether the
 * pages will fit is the caller's question (memroom.h): nothing here can
 * reserve them (fallocate on a memfd over a memory cgroup's limit is an OOM
 * kill, not an error). */
feed_status feed__arena_create(feed__arena *a, const feed__arena_geom *g, char *err, size_t errlen);
/* Copies the private configuration (a->cfg, filled) into a new memfd and
 * seals it for good (a->cfg_fd), once, before the first spawn. */
feed_status feed__arena_seal_config(feed__arena *a, char *err, size_t errlen);
/* Maps an arena from fd and the sealed configuration from cfg_fd read-only
 * over its first FEED_ARENA_PAGE_MAX bytes, and checks the magic, version and sizes of that
 * sealed copy (workers). Owns both fds from then on (closed by close). */
feed_status feed__arena_attach(feed__arena *a, int fd, int cfg_fd, char *err, size_t errlen);
void feed__arena_close(feed__arena *a);

static inline char *feed__slot_base(const feed__arena *a, uint32_t i)
{
    return (char *)a->hdr + a->lay.hdr_bytes + (uint64_t)i * a->lay.slot_stride;
}
static inline feed__trace_ring *feed__trace(const feed__arena *a, uint32_t w)
{
    return (feed__trace_ring *)((char *)a->hdr + a->lay.off_trace + (uint64_t)w * a->lay.trace_stride);
}
static inline feed_trace_event *feed__trace_events(const feed__arena *a, uint32_t w)
{
    return (feed_trace_event *)((char *)feed__trace(a, w) + sizeof(feed__trace_ring));
}
static inline feed__slot_hdr *feed__slot(const feed__arena *a, uint32_t i)
{
    return (feed__slot_hdr *)feed__slot_base(a, i);
}
static inline _Atomic uint32_t *feed__slot_states(const feed__arena *a, uint32_t i)
{
    return (_Atomic uint32_t *)(feed__slot_base(a, i) + a->lay.off_states);
}
static inline feed__sample_rec *feed__slot_recs(const feed__arena *a, uint32_t i)
{
    return (feed__sample_rec *)(feed__slot_base(a, i) + a->lay.off_recs);
}
static inline int32_t *feed__slot_labels(const feed__arena *a, uint32_t i)
{
    return (int32_t *)(feed__slot_base(a, i) + a->lay.off_labels);
}
static inline uint64_t *feed__slot_ids(const feed__arena *a, uint32_t i)
{
    return (uint64_t *)(feed__slot_base(a, i) + a->lay.off_ids);
}
static inline uint8_t *feed__slot_flags(const feed__arena *a, uint32_t i)
{
    return (uint8_t *)(feed__slot_base(a, i) + a->lay.off_flags);
}
static inline uint8_t *feed__slot_pixels(const feed__arena *a, uint32_t i)
{
    return (uint8_t *)(feed__slot_base(a, i) + a->lay.off_pixels);
}
static inline uint32_t *feed__slot_mlens(const feed__arena *a, uint32_t i)
{
    return (uint32_t *)(feed__slot_base(a, i) + a->lay.off_mlens);
}
static inline uint8_t *feed__slot_members(const feed__arena *a, uint32_t i)
{
    return (uint8_t *)(feed__slot_base(a, i) + a->lay.off_meta);
}

#endif

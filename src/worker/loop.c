/*
 * loop.c - the worker loop. One process, one sample at a time:
 * claim -> read -> decode+augment (-> convert) straight into the slot ->
 * complete. A bad sample is reported in its record and replaced by a
 * deterministic substitute, so the batch keeps its shape.
 *
 * Test builds (FEED_TEST_HOOKS) can make a worker crash, exit or hang on
 * chosen samples: FEED_TEST_FAULT in the environment, see fault.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena/ring.h"
#include "common/internal.h"
#include "common/rng.h"
#include "decode/jpeg_selftest.h"
#include "io/reader.h"
#include "pixels/convert.h"
#include "pixels/erase.h"
#include "pixels/pipeline.h"
#include "worker/loop.h"

#if FEED_TEST_HOOKS
#include "hooks/fault.h"
#define maybe_fault(c, path, phase) feed__fault_maybe((c)->fault, (c)->a, path, phase)
#define maybe_scribble(c, cl) feed__scribble_maybe(&(c)->scribble, (c)->a, (c)->w, cl)
#else
#define maybe_fault(c, path, phase) ((void)0)
#define maybe_scribble(c, cl) ((void)0)
#endif

void feed__worker_fail(const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "feed-worker: %s\n", msg);
    ssize_t n = write(FEED_WORKER_REPORT_FD, msg, strlen(msg)); /* one write: the pipe keeps it whole */
    (void)n;
}

typedef struct wctx {
    const feed__arena *a;
    feed__arena_hdr *h; /* a->hdr: configuration (read-only here) and control words */
    const feed__index_hdr *ix;
    uint32_t w;
    feed__worker_rec *rec;
    int rootfd;
    int npy_fd; /* a .npy source's array file, opened at setup (-1: none) */
    feed__reader *reader;
    feed__image_ctx *img;
    uint8_t *buf; /* file bytes */
    size_t cap;
    uint8_t *scratch; /* uint8 HWC when the slot wants another dtype */
    uint64_t draw_off; /* the sample's repeat * dataset_size: added to an id, the key of its draws */
    uint8_t *mdst;     /* metadata members (h->nmeta > 0): this sample's room in the slot */
    uint32_t *mlens;   /* and its lengths there */
    uint8_t *mbuf;     /* a member's bytes as read */
    size_t mcap;
#if FEED_TEST_HOOKS
    const char *fault;
    feed__scribbler scribble;
#endif
} wctx;

/* RandomErasing on the sample as delivered (after the conversion, so after
 * normalisation), with the draws of the sample it is. */
static void erase(wctx *c, uint64_t epoch, uint64_t id, uint8_t *out)
{
    if (!(c->h->xform.erase_p > 0))
        return;
    uint64_t t0 = feed__now_ns();
    feed__erase_sample(&c->h->xform, c->h->seed, epoch, id, c->h->out_dtype, c->h->out_layout, out);
    atomic_fetch_add_explicit(&c->rec->augment_ns, feed__now_ns() - t0, memory_order_relaxed);
}

/* Sample id of a .npy source: its bytes, copied into the slot. */
static int do_npy_sample(wctx *c, uint64_t epoch, uint64_t id, uint8_t *out, uint8_t *flags, int *sys_errno,
                         char *msg, size_t msglen)
{
    feed__arena_hdr *h = c->h;
    const feed__npy_images *a = &c->ix->npy;
    const feed__xform *x = &h->xform;
    int direct = h->out_dtype == FEED_DTYPE_UINT8 && h->out_layout == FEED_LAYOUT_HWC;
    /* The whole sample as it is: read straight into the slot. */
    int exact = direct && a->c == 3 && x->mode == FEED_AUGMENT_NONE && a->h == x->out_h && a->w == x->out_w;
    size_t len = (size_t)a->sample_bytes;
    uint64_t t0 = feed__now_ns();
    int st = FEED_OK;
    if (!exact && len > c->cap) {
        uint8_t *p = realloc(c->buf, len);
        if (!p) {
            snprintf(msg, msglen, "out of memory for a %zu-byte sample", len);
            return FEED_E_NOMEM;
        }
        c->buf = p, c->cap = len;
    }
    st = feed__reader_pread(c->npy_fd, exact ? out : c->buf, len, a->data_off + id * a->sample_bytes, sys_errno,
                            msg, msglen);
    atomic_fetch_add_explicit(&c->rec->read_ns, feed__now_ns() - t0, memory_order_relaxed);
    if (st != FEED_OK)
        return st;
    atomic_fetch_add_explicit(&c->rec->read_bytes, len, memory_order_relaxed);
    if (exact)
        return FEED_OK;
    feed__image_info info = {0};
    st = feed__image_process_pixels(c->img, x, c->buf, a->w, a->h, a->c, h->seed, epoch,
                                    id + c->draw_off, direct ? out : c->scratch, &info, msg, msglen);
    atomic_fetch_add_explicit(&c->rec->augment_ns, info.augment_ns, memory_order_relaxed);
    if (st != FEED_OK)
        return st;
    if (!direct) {
        uint64_t t2 = feed__now_ns();
        feed__convert_sample(c->scratch, x->out_h, x->out_w, h->out_dtype, h->out_layout, h->conv_scale,
                             h->conv_bias, 0, out);
        atomic_fetch_add_explicit(&c->rec->convert_ns, feed__now_ns() - t2, memory_order_relaxed);
    }
    erase(c, epoch, id + c->draw_off, out); /* repeat j: its own box */
    if (info.flipped)
        *flags |= FEED_SAMPLE_FLIPPED;
    return FEED_OK;
}

/* Sample id's metadata members (meta_members), before anything is read: a
 * missing one is a bad sample or empty (meta_missing), members over
 * meta_bytes together a bad sample; [*lo, *hi) grows to hold them all. The
 * lengths go into the slot (0 for now: copy_members writes them). */
static int plan_members(wctx *c, uint64_t id, uint64_t *lo, uint64_t *hi, char *msg, size_t msglen)
{
    const feed__arena_hdr *h = c->h;
    uint64_t used = 0;
    for (uint32_t j = 0; j < h->nmeta; j++)
        c->mlens[j] = 0;
    for (uint32_t j = 0; j < h->nmeta; j++) {
        uint64_t off;
        uint32_t len;
        const char *ext = h->meta_exts[j];
        if (!feed__index_member(c->ix, id, j, &off, &len)) {
            if (h->meta_missing == FEED_META_MISSING_EMPTY)
                continue;
            snprintf(msg, msglen, "the sample has no .%.31s member (meta_missing=bad)", ext);
            return FEED_E_DATASET;
        }
        if (len > h->meta_bytes - used) {
            snprintf(msg, msglen, "its meta_members hold %llu bytes or more (the .%.31s member %u), over "
                     "meta_max_bytes %llu", (unsigned long long)(used + len), ext, len,
                     (unsigned long long)h->meta_bytes);
            return FEED_E_TOO_LARGE;
        }
        used += len;
        *lo = off < *lo ? off : *lo;
        *hi = off + len > *hi ? off + len : *hi;
    }
    return FEED_OK;
}

/* The members into the sample's room in the slot, one after another, and
 * their lengths beside them, from buf: the shard's bytes from lo on, or
 * (buf NULL) each read on its own. The parent checks the lengths against
 * its index. */
static int copy_members(wctx *c, uint64_t id, const char *path, const uint8_t *buf, uint64_t lo, int *sys_errno,
                        char *msg, size_t msglen)
{
    uint64_t used = 0;
    for (uint32_t j = 0; j < c->h->nmeta; j++) {
        uint64_t off;
        uint32_t len;
        if (!feed__index_member(c->ix, id, j, &off, &len))
            continue;
        size_t got = 0;
        int st = buf || !len ? FEED_OK
                             : feed__reader_read_range(c->reader, c->rootfd, path, off, len, c->h->meta_bytes,
                                                       &c->mbuf, &c->mcap, &got, sys_errno, msg, msglen);
        if (st != FEED_OK)
            return st;
        memcpy(c->mdst + used, buf ? buf + (off - lo) : c->mbuf, len);
        c->mlens[j] = len;
        used += len;
    }
    return FEED_OK;
}

/* Reads and transforms dataset sample id into the slot. */
static int do_sample(wctx *c, uint64_t epoch, uint64_t id, uint8_t *out, uint8_t *flags, int *sys_errno,
                     char *msg, size_t msglen)
{
    feed__arena_hdr *h = c->h;
    if (c->ix->kind == FEED_INDEX_NPY) {
        maybe_fault(c, feed__index_path(c->ix, id), FAULT_READ);
        return do_npy_sample(c, epoch, id, out, flags, sys_errno, msg, msglen);
    }
    const char *path = feed__index_path(c->ix, id);
    maybe_fault(c, path, FAULT_READ);
    size_t len = 0;
    uint64_t t0 = feed__now_ns();
    uint64_t off = 0, rlen = 0;
    int ranged = feed__index_range(c->ix, id, &off, &rlen);
    uint64_t lo = off, hi = off + rlen;
    int st = h->nmeta ? plan_members(c, id, &lo, &hi, msg, msglen) : FEED_OK;
    if (st != FEED_OK)
        return st;
    /* With members, one read when they lie close to the image (WebDataset
     * writes a sample's members one after another: headers and the label
     * between them), else a read each. */
    int span = h->nmeta && rlen <= h->max_file_bytes && hi - lo - rlen <= h->meta_bytes + 65536;
    if (span)
        st = feed__reader_read_range(c->reader, c->rootfd, path, lo, hi - lo, hi - lo, &c->buf, &c->cap, &len,
                                     sys_errno, msg, msglen);
    else if (h->nmeta && (st = copy_members(c, id, path, NULL, 0, sys_errno, msg, msglen)) != FEED_OK)
        return st;
    else if (ranged)
        st = feed__reader_read_range(c->reader, c->rootfd, path, off, rlen, h->max_file_bytes, &c->buf, &c->cap,
                                     &len, sys_errno, msg, msglen);
    else
        st = feed__reader_read(c->reader, c->rootfd, path, h->max_file_bytes, &c->buf, &c->cap, &len, sys_errno,
                               msg, msglen);
    uint64_t t1 = feed__now_ns();
    atomic_fetch_add_explicit(&c->rec->read_ns, t1 - t0, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->rec->read_bytes, len, memory_order_relaxed);
    if (st != FEED_OK)
        return st;
    const uint8_t *img = c->buf;
    if (span) {
        copy_members(c, id, path, c->buf, lo, sys_errno, msg, msglen); /* from the buffer: cannot fail */
        img = c->buf + (off - lo);
        len = (size_t)rlen;
    }
    maybe_fault(c, path, FAULT_DECODE);
    int direct = h->out_dtype == FEED_DTYPE_UINT8 && h->out_layout == FEED_LAYOUT_HWC;
    feed__image_info info = {0};
    /* Out of memory is transient (a neighbour's peak): tried again, with the
     * reader's backoff, before the sample counts as bad. */
    for (int t = 1;; t++) {
#if FEED_TEST_HOOKS
        if (feed__fault_nomem) { /* FEED_TEST_FAULT "nomem"/"nomemall" (fault.h) */
            feed__fault_nomem = feed__fault_nomem > 0 ? 0 : feed__fault_nomem;
            st = FEED_E_NOMEM;
            snprintf(msg, msglen, "out of memory (FEED_TEST_FAULT)");
        } else
#endif
            st = feed__image_process(c->img, &h->xform, img, len, h->seed, epoch, id + c->draw_off,
                                     direct ? out : c->scratch, &info, msg, msglen);
        if (st != FEED_E_NOMEM)
            break;
        if (t == FEED_READER_TRIES) {
            size_t n = strlen(msg);
            if (n + 1 < msglen)
                snprintf(msg + n, msglen - n, " (%d tries)", t);
            break;
        }
        feed__reader_backoff(t);
    }
    atomic_fetch_add_explicit(&c->rec->decode_ns, info.decode_ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->rec->augment_ns, info.augment_ns, memory_order_relaxed);
    if (st != FEED_OK)
        return st;
    if (!direct) {
        uint64_t t2 = feed__now_ns();
        feed__convert_sample(c->scratch, h->xform.out_h, h->xform.out_w, h->out_dtype, h->out_layout,
                             h->conv_scale, h->conv_bias, 0, out);
        atomic_fetch_add_explicit(&c->rec->convert_ns, feed__now_ns() - t2, memory_order_relaxed);
    }
    erase(c, epoch, id + c->draw_off, out); /* repeat j: its own box */
    if (info.flipped)
        *flags |= FEED_SAMPLE_FLIPPED;
    return FEED_OK;
}

static void process(wctx *c, const feed__claim *cl)
{
    const feed__arena *a = c->a;
    feed__slot_hdr *s = feed__slot(a, cl->slot);
    feed__sample_rec *r = &feed__slot_recs(a, cl->slot)[cl->t];
    uint64_t epoch = s->epoch;
    uint64_t id = r->sample_id;
    uint8_t *out = feed__slot_pixels(a, cl->slot) + (uint64_t)cl->t * a->lay.sample_bytes;
    uint8_t flags = 0;
    uint64_t got = id;
    int st = -1;
    char msg[sizeof r->message];
    int sys_errno = 0;

    uint32_t k = atomic_load_explicit(&r->subst_k, memory_order_relaxed);
    /* Repeat j of a sample (repeats > 1) draws as sample id + j * n would:
     * keys no other sample or repeat has, and repeat 0's are the sample's own
     * (a substitute's repeats differ the same way). */
    c->draw_off = (uint64_t)r->repeat * c->h->dataset_size;
    if (c->h->nmeta) {
        c->mdst = feed__slot_members(a, cl->slot) + (uint64_t)cl->t * c->h->meta_bytes;
        c->mlens = feed__slot_mlens(a, cl->slot) + (uint64_t)cl->t * c->h->nmeta;
    }
    if (id >= c->ix->count) {
        /* The record is shared: another worker may have scribbled on it.
         * Deliver nothing; the parent sees an id it did not ask for and
         * has the sample done again. */
        memset(out, 0, a->lay.sample_bytes);
        feed__slot_flags(a, cl->slot)[cl->t] = FEED_SAMPLE_REPLACED;
        feed__slot_ids(a, cl->slot)[cl->t] = id;
        return;
    }
    if (k == 0 && !atomic_load_explicit(&r->poisoned, memory_order_relaxed)) {
        msg[0] = 0;
        st = do_sample(c, epoch, id, out, &flags, &sys_errno, msg, sizeof msg);
        if (st != FEED_OK) {
            r->status = st;
            r->sys_errno = sys_errno;
            snprintf(r->message, sizeof r->message, "%s", msg[0] ? msg : feed_strerror(st));
        }
    } else if (r->status == 0) { /* poisoned: the parent normally wrote why */
        uint32_t n = atomic_load_explicit(&r->attempts, memory_order_relaxed);
        r->status = FEED_E_WORKER;
        snprintf(r->message, sizeof r->message,
                 "worker process died %u time%s on this sample (crash or hang); quarantined", n,
                 n == 1 ? "" : "s");
    }
    if (st != FEED_OK) {
        flags = FEED_SAMPLE_REPLACED;
        const uint32_t from = c->h->substitute_from;
        uint64_t first = 0, count = c->h->dataset_size;
        if (from == FEED_SUBSTITUTE_SHARD)
            feed__index_shard_span(c->ix, id, &first, &count);
        /* The slot header is shared: a count past the batch size is no
         * batch (no substitute; the parent checks against its own). */
        uint32_t n = from == FEED_SUBSTITUTE_BATCH ? s->count : 0;
        if (n > a->lay.batch_size)
            n = 0;
        /* Resume at the substitute a dead worker was on (the parent counts
         * deaths per substitute and moves on only past max_retries), so a
         * crash does not change which sample replaces this one. */
        for (k = k ? k : 1; k <= FEED_SUBSTITUTE_MAX; k++) {
            if (atomic_load_explicit(&r->subst_k, memory_order_relaxed) != k) {
                atomic_store_explicit(&r->subst_deaths, 0, memory_order_relaxed);
                atomic_store_explicit(&r->subst_k, k, memory_order_relaxed);
            }
            if (from == FEED_SUBSTITUTE_BATCH) {
                uint32_t u = feed__substitute_pos(c->h->seed, epoch, id, k, cl->t, n);
                if (u == cl->t) /* no other sample in the batch */
                    break;
                /* what the batch asks at u, read once: a record another
                 * worker may scribble (the parent checks the id it gets) */
                got = *(const volatile uint64_t *)&feed__slot_recs(a, cl->slot)[u].sample_id;
                if (got >= c->ix->count)
                    continue;
            } else {
                got = feed__substitute_in(c->h->seed, epoch, id, k, first, count);
            }
            uint8_t f2 = 0;
            if (do_sample(c, epoch, got, out, &f2, &sys_errno, msg, sizeof msg) == FEED_OK) {
                flags |= f2;
                st = FEED_OK;
                break;
            }
        }
        if (st != FEED_OK) { /* nothing decodes: no image to give, the loader fails the batch */
            memset(out, 0, a->lay.sample_bytes);
            for (uint32_t j = 0; j < c->h->nmeta; j++)
                c->mlens[j] = 0;
            got = id;
            flags |= FEED__SAMPLE_NO_SUBSTITUTE;
        }
    }
    feed__slot_labels(a, cl->slot)[cl->t] = feed__index_label(c->ix, got);
    feed__slot_ids(a, cl->slot)[cl->t] = got;
    feed__slot_flags(a, cl->slot)[cl->t] = flags;
    maybe_fault(c, feed__index_path(c->ix, id), FAULT_PUBLISH);
}

int feed__worker_run(const feed__arena *a, const feed__index_hdr *ix, uint32_t w, feed__worker_ready_fn ready)
{
    feed__arena_hdr *h = a->hdr;
    wctx c = {.a = a, .h = h, .ix = ix, .w = w, .rec = &h->workers[w], .rootfd = -1, .npy_fd = -1};
#if FEED_TEST_HOOKS
    c.fault = getenv("FEED_TEST_FAULT");
    feed__scribble_init(&c.scribble, w);
#endif
    c.rootfd = open(ix->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (c.rootfd < 0) {
        feed__worker_fail("cannot open dataset root %.200s: %s", ix->root, strerror(errno));
        return 4;
    }
    if (ix->kind == FEED_INDEX_NPY) {
        /* Opened before the sandbox, read by range from then on. */
        const char *name = feed__index_path(ix, 0);
        struct stat sb;
        c.npy_fd = openat(c.rootfd, name, O_RDONLY | O_CLOEXEC);
        if (c.npy_fd < 0 || fstat(c.npy_fd, &sb) != 0) {
            feed__worker_fail("cannot open array %.200s/%.200s: %s", ix->root, name, strerror(errno));
            return 4;
        }
        if ((uint64_t)sb.st_size != ix->npy.file_bytes) {
            feed__worker_fail("array %.200s/%.200s changed since the loader was created (%llu bytes, was %llu)",
                              ix->root, name, (unsigned long long)sb.st_size,
                              (unsigned long long)ix->npy.file_bytes);
            return 4;
        }
    }
    c.reader = feed__reader_create(h->reader);
    c.img = feed__image_ctx_create();
    c.scratch = malloc((size_t)h->xform.out_h * h->xform.out_w * 3);
    if (!c.reader || !c.img || !c.scratch) {
        feed__worker_fail("out of memory at start (raise ulimit -v or free memory)");
        return 5;
    }
    char why[256];
    /* The JPEG Huffman decoder, before the sandbox (the self-check's report
     * names the library file) and before any work. */
    int code = feed__image_entropy(c.img, h->xform.jpeg_entropy, why, sizeof why);
    if (code < 0) {
        feed__worker_fail("%s", why);
        return 6;
    }
    if (code == FEED__ENTROPY_CHECK_FAILED && !atomic_exchange(&h->entropy_said, 1)) {
        char lib[PATH_MAX + 64];
        feed__jpeg_lib_version(lib, sizeof lib);
        fprintf(stderr, "feed-worker: jpeg_entropy=auto: libfeed's Huffman decoder and libjpeg-turbo's "
                "disagree on %s (%s); the workers decode with libjpeg-turbo's\n", why, lib);
    }
    atomic_store(&c.rec->entropy, (uint32_t)code);
    if (ready && ready(h, why, sizeof why) != 0) {
        feed__worker_fail("%s", why);
        return 6;
    }
    atomic_store(&c.rec->reader_kind, (uint32_t)feed__reader_kind(c.reader));
    atomic_store(&c.rec->state, FEED_WREC_RUNNING);
    feed__futex_bump(&h->done_seq); /* the parent may wait for workers to start */

    uint64_t idle_since = feed__now_ns();
    int slept = 0;
    for (;;) {
        uint32_t seen = atomic_load(&h->work_seq);
        feed__claim cl;
        if (!feed__ring_claim(a, w, &cl)) {
            /* Nothing to do: sleep until the parent posts work. The word is
             * shared, so another worker could put back the value seen here
             * after the parent's bump and hold back its wake-up: look again
             * at least every second. */
            feed__futex_wait(&h->work_seq, seen, 1000000000ll);
            slept = 1;
            continue;
        }
        if (slept) /* a new batch woke one worker: pass it on */
            feed__ring_pass_wake(a);
        slept = 0;
        uint64_t start = feed__now_ns();
        /* This worker is the only writer of its counters: their deltas are
         * this sample's stage times (substitutes included). */
        uint64_t r0 = atomic_load_explicit(&c.rec->read_ns, memory_order_relaxed);
        uint64_t d0 = atomic_load_explicit(&c.rec->decode_ns, memory_order_relaxed);
        uint64_t a0 = atomic_load_explicit(&c.rec->augment_ns, memory_order_relaxed);
        uint64_t v0 = atomic_load_explicit(&c.rec->convert_ns, memory_order_relaxed);
        maybe_scribble(&c, &cl);
        process(&c, &cl);
        feed__trace_ring *tr = feed__trace(a, w);
        uint64_t head = atomic_load_explicit(&tr->head, memory_order_relaxed);
        feed_trace_event *ev = &feed__trace_events(a, w)[head % FEED_TRACE_RING];
        feed__slot_hdr *s = feed__slot(a, cl.slot);
        /* The head published last is seen before this overwrites event head - RING (src/supervise/trace.c). */
        atomic_thread_fence(memory_order_release);
        *ev = (feed_trace_event){
            .start_ns = start,
            .sample_id = feed__slot_ids(a, cl.slot)[cl.t],
            .epoch = s->epoch,
            .batch = s->index,
            .wait_ns = (uint32_t)(start - idle_since < UINT32_MAX ? start - idle_since : UINT32_MAX),
            .read_ns = (uint32_t)(atomic_load_explicit(&c.rec->read_ns, memory_order_relaxed) - r0),
            .decode_ns = (uint32_t)(atomic_load_explicit(&c.rec->decode_ns, memory_order_relaxed) - d0),
            .augment_ns = (uint32_t)(atomic_load_explicit(&c.rec->augment_ns, memory_order_relaxed) - a0),
            .convert_ns = (uint32_t)(atomic_load_explicit(&c.rec->convert_ns, memory_order_relaxed) - v0),
            .worker = w,
            .flags = feed__slot_flags(a, cl.slot)[cl.t],
        };
        atomic_store_explicit(&tr->head, head + 1, memory_order_release);
        maybe_scribble(&c, &cl);
        feed__ring_complete(a, w, &cl);
        idle_since = feed__now_ns();
    }
}

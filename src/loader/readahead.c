/*
 * readahead.c - read-ahead of the files the workers will read next (see
 * readahead.h).
 *
 * One thread. Under mu it takes a snapshot of what the loader told it (the
 * position mapping, how far the ring is assigned, where the consumer is);
 * outside mu it advises files, the cursor (seq, t) walking batch by batch
 * through its own sampler. A reset (seek) bumps gen: the cursor restarts at
 * the new position; files still in flight for the old one just finish.
 *
 * io_uring path, per file: OPENAT; on its completion FADVISE(WILLNEED)
 * hard-linked to CLOSE (the close runs even if the advice fails). A slot of
 * the in-flight table is busy from the OPENAT to the CLOSE completion, so at
 * most FEED_READAHEAD_DEPTH files (fds) are open at once.
 */
#include "loader/readahead.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/internal.h"

#define RA_OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
/* How often an idle read-ahead thread looks at the consumer's progress. */
#define FEED_READAHEAD_POLL_MS 5
#define FEED_READAHEAD_NICE 10
/* user_data: slot index in the low 32 bits, the operation above */
enum { OP_OPEN = 1, OP_ADVISE, OP_CLOSE };

struct feed__readahead {
    const feed__index_hdr *ix;
    feed__sampler s;
    uint32_t ahead;
    int rootfd;
    int uring;
    struct io_uring ring;
    uint8_t busy[FEED_READAHEAD_DEPTH]; /* in-flight table (thread only) */
    uint64_t off[FEED_READAHEAD_DEPTH], len[FEED_READAHEAD_DEPTH]; /* the range to advise; len 0: all */
    uint32_t inflight;

    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    uint64_t gen;
    uint64_t seq0, epoch0, start0, end_seq;
    uint64_t assigned, next_seq;

    _Atomic uint64_t files;
    /* thread only (cur_* read by the thread under mu too) */
    uint64_t my_gen, cur_seq;
    uint32_t cur_t, cur_count;
    uint64_t *ids;
};

static void seq_batch(feed__readahead *p, uint64_t seq, uint64_t seq0, uint64_t epoch0,
                      uint64_t start0)
{
    uint64_t epoch, start, k;
    feed__sampler_locate(&p->s, epoch0, start0, seq - seq0, &epoch, &start, &k);
    p->cur_count = feed__sampler_batch_from(&p->s, epoch, start, k, p->ids);
    p->cur_t = 0;
}

/* ---- one file ------------------------------------------------------------------ */

/* A shard member is advised as its byte range: the kernel reads just it. */
static void advise_sync(feed__readahead *p, const char *path, uint64_t off, uint64_t len)
{
    int fd = openat(p->rootfd, path, RA_OPEN_FLAGS);
    if (fd < 0)
        return; /* the worker will say why when it reads it */
    posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_WILLNEED);
    close(fd);
    atomic_fetch_add_explicit(&p->files, 1, memory_order_relaxed);
}

static int free_slot(feed__readahead *p)
{
    for (int i = 0; i < FEED_READAHEAD_DEPTH; i++)
        if (!p->busy[i])
            return i;
    return -1;
}

/* Queues the OPENAT of path in a free slot; 0 if the ring is full. */
static int advise_uring(feed__readahead *p, const char *path, uint64_t off, uint64_t len)
{
    int i = free_slot(p);
    struct io_uring_sqe *sqe = i >= 0 ? io_uring_get_sqe(&p->ring) : NULL;
    if (!sqe)
        return 0;
    io_uring_prep_openat(sqe, p->rootfd, path, RA_OPEN_FLAGS, 0);
    io_uring_sqe_set_data64(sqe, ((uint64_t)OP_OPEN << 32) | (uint32_t)i);
    p->busy[i] = 1;
    p->off[i] = off, p->len[i] = len;
    p->inflight++;
    return 1;
}

/* Handles one completion. */
static void complete(feed__readahead *p, const struct io_uring_cqe *cqe)
{
    uint64_t ud = io_uring_cqe_get_data64(cqe);
    uint32_t i = (uint32_t)ud, op = (uint32_t)(ud >> 32);
    if (op == OP_OPEN) {
        int fd = cqe->res;
        struct io_uring_sqe *a = fd >= 0 ? io_uring_get_sqe(&p->ring) : NULL;
        struct io_uring_sqe *c = a ? io_uring_get_sqe(&p->ring) : NULL;
        if (fd < 0 || !c) {
            if (fd >= 0)
                close(fd); /* no room in the submission queue: do it here */
            if (a)         /* (cannot happen: the queue has 2 entries per slot) */
                io_uring_prep_nop(a), io_uring_sqe_set_data64(a, 0);
            p->busy[i] = 0;
            p->inflight--;
            return;
        }
        io_uring_prep_fadvise(a, fd, p->off[i], (off_t)p->len[i], POSIX_FADV_WILLNEED);
        io_uring_sqe_set_data64(a, ((uint64_t)OP_ADVISE << 32) | i);
        a->flags |= IOSQE_IO_HARDLINK; /* close even if the advice fails */
        io_uring_prep_close(c, fd);
        io_uring_sqe_set_data64(c, ((uint64_t)OP_CLOSE << 32) | i);
    } else if (op == OP_ADVISE) {
        if (cqe->res >= 0)
            atomic_fetch_add_explicit(&p->files, 1, memory_order_relaxed);
    } else if (op == OP_CLOSE) {
        p->busy[i] = 0;
        p->inflight--;
    }
}

static void reap(feed__readahead *p, int wait)
{
    struct io_uring_cqe *cqe;
    if (wait && p->inflight) {
        io_uring_submit(&p->ring);
        struct __kernel_timespec ts = {.tv_sec = 0, .tv_nsec = 20 * 1000000L};
        if (io_uring_wait_cqe_timeout(&p->ring, &cqe, &ts) != 0)
            return;
    }
    unsigned head, n = 0;
    io_uring_for_each_cqe(&p->ring, head, cqe)
    {
        complete(p, cqe);
        n++;
    }
    io_uring_cq_advance(&p->ring, n);
    io_uring_submit(&p->ring);
}

/* ---- the thread ---------------------------------------------------------------- */

static void *readahead_main(void *arg)
{
    feed__readahead *p = arg;
    /* Low priority (this thread, and the io_uring workers it spawns, which
     * inherit it): on a busy machine the workers and the consumer go first;
     * when the workers wait on the disk, the cores are idle and it runs. */
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), FEED_READAHEAD_NICE) != 0) {
        /* not allowed (a sandbox): it runs at normal priority */
    }
    int have = 0;            /* ids hold batch cur_seq */
    uint64_t next_batch = 0; /* the next batch to load */
    for (;;) {
        pthread_mutex_lock(&p->mu);
        if (p->stop) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        if (p->gen != p->my_gen) { /* created or sought: start at the new position */
            p->my_gen = p->gen;
            have = 0;
            next_batch = p->seq0;
        }
        if (have && p->cur_seq < p->next_seq)
            have = 0; /* the consumer is past it: its files were read already */
        if (have && p->cur_t < p->cur_count) {
            pthread_mutex_unlock(&p->mu);
            /* Advise the rest of the batch, as far as the in-flight table
             * allows, a few at a time (stop and seek are checked between). */
            for (int k = 0; k < FEED_READAHEAD_DEPTH && p->cur_t < p->cur_count; k++) {
                uint64_t id = p->ids[p->cur_t], off = 0, len = 0;
                const char *path = feed__index_path(p->ix, id);
                feed__index_range(p->ix, id, &off, &len);
                if (p->uring) {
                    if (!advise_uring(p, path, off, len)) {
                        reap(p, 1);
                        break;
                    }
                } else {
                    advise_sync(p, path, off, len);
                }
                p->cur_t++;
            }
            if (p->uring)
                reap(p, 0);
            continue;
        }
        uint64_t target = p->assigned + p->ahead;
        if (target > p->end_seq)
            target = p->end_seq;
        uint64_t nb = next_batch > p->next_seq ? next_batch : p->next_seq;
        if (nb < target) {
            uint64_t s0 = p->seq0, e0 = p->epoch0, c0 = p->start0;
            pthread_mutex_unlock(&p->mu);
            p->cur_seq = nb;
            seq_batch(p, nb, s0, e0, c0); /* a reset meanwhile is seen above next time */
            next_batch = nb + 1;
            have = 1;
            continue;
        }
        if (p->uring && p->inflight) {
            pthread_mutex_unlock(&p->mu);
            reap(p, 1);
            continue;
        }
        /* Nothing to do: look again in a while. The consumer's progress does
         * not wake this thread (see feed__readahead_progress); a reset or stop
         * does. */
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_nsec += FEED_READAHEAD_POLL_MS * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cv, &p->mu, &dl);
        pthread_mutex_unlock(&p->mu);
    }
    /* Let what is in flight finish, so no fd stays open (bounded: a file
     * system that never answers keeps at most FEED_READAHEAD_DEPTH fds). */
    for (int k = 0; p->uring && p->inflight && k < 100; k++)
        reap(p, 1);
    return NULL;
}

/* ---- the interface ----------------------------------------------------------- */

static int uring_usable(struct io_uring *ring)
{
    struct io_uring_probe *pr = io_uring_get_probe_ring(ring);
    if (!pr)
        return 0;
    int ok = io_uring_opcode_supported(pr, IORING_OP_OPENAT) &&
             io_uring_opcode_supported(pr, IORING_OP_FADVISE) &&
             io_uring_opcode_supported(pr, IORING_OP_CLOSE);
    io_uring_free_probe(pr);
    return ok;
}

feed__readahead *feed__readahead_start(const feed__index_hdr *ix, const feed__sampler *s,
                                       uint32_t ahead, int use_uring)
{
    feed__readahead *p = feed__calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ix = ix;
    p->ahead = ahead;
    p->rootfd = -1;
    p->s = *s; /* holds no resources */
    p->ids = feed__calloc(s->batch, sizeof *p->ids);
    p->rootfd = open(ix->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!p->ids || p->rootfd < 0)
        goto fail;
    /* Keep our fds clear of the low numbers the host may want. */
    if (p->rootfd < 10) {
        int hi = fcntl(p->rootfd, F_DUPFD_CLOEXEC, 10);
        if (hi >= 0) {
            close(p->rootfd);
            p->rootfd = hi;
        }
    }
    if (use_uring && io_uring_queue_init(2 * FEED_READAHEAD_DEPTH, &p->ring, 0) == 0) {
        p->uring = uring_usable(&p->ring);
        if (!p->uring)
            io_uring_queue_exit(&p->ring);
    }
    pthread_mutex_init(&p->mu, NULL);
    feed__cond_init_monotonic(&p->cv);
    int rc = feed__thread_start(&p->thread, readahead_main, p, "feed-readahead");
    if (rc != 0) {
        if (p->uring)
            io_uring_queue_exit(&p->ring);
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        goto fail;
    }
    return p;
fail:
    if (p->rootfd >= 0)
        close(p->rootfd);
    feed__free(p->ids);
    feed__free(p);
    return NULL;
}

void feed__readahead_stop(feed__readahead *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    if (p->uring)
        io_uring_queue_exit(&p->ring);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    close(p->rootfd);
    feed__free(p->ids);
    feed__free(p);
}

void feed__readahead_reset(feed__readahead *p, uint64_t seq0, uint64_t epoch0, uint64_t start0,
                           uint64_t end_seq)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->gen++;
    p->seq0 = seq0;
    p->epoch0 = epoch0;
    p->start0 = start0;
    p->end_seq = end_seq;
    p->assigned = p->next_seq = seq0;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* No wakeup here: this runs on the consumer's path for every batch, and a
 * wakeup there costs the consumer time it would otherwise spend training;
 * the thread polls every FEED_READAHEAD_POLL_MS instead. */
void feed__readahead_progress(feed__readahead *p, uint64_t assigned, uint64_t next_seq)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    if (assigned > p->assigned)
        p->assigned = assigned;
    if (next_seq > p->next_seq)
        p->next_seq = next_seq;
    pthread_mutex_unlock(&p->mu);
}

uint64_t feed__readahead_files(const feed__readahead *p)
{
    return p ? atomic_load_explicit(&((feed__readahead *)p)->files, memory_order_relaxed) : 0;
}

int feed__readahead_uring(const feed__readahead *p)
{
    return p && p->uring;
}

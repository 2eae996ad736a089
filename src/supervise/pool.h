/*
 * pool.h - start, supervise, replace and stop the worker processes.
 *
 * Workers are started with posix_spawn of the feed-worker executable (vfork +
 * exec; spawn.c), never a bare fork: that is safe when the host process has other
 * threads holding locks, or has initialised CUDA. Every spawn, including
 * respawns after a crash, happens on the pool's supervisor thread, which
 * lives as long as the pool: PR_SET_PDEATHSIG in the worker fires when the
 * thread that spawned it ends, so it must not be a caller's thread.
 *
 * The supervisor waits on pidfds (epoll), so a death is noticed at once; it
 * then reaps the worker, hands its claimed samples back to the ring, and
 * starts a replacement. It also kills workers stuck on one sample longer
 * than sample_timeout_ms, doubled for each worker that already died on that
 * sample (or substitute), so a slow but good sample gets through on a retry
 * instead of being quarantined (the claim timer, claims.c).
 */
#ifndef FEED_POOL_H
#define FEED_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "arena/arena.h"
#include "feed.h"

typedef struct feed__pool {
    feed__arena *a;
    feed__arena_hdr *h; /* a->hdr: the worker records */
    int arena_fd, index_fd;
    uint32_t n;
    uint32_t timeout_ms;
    char worker_path[FEED_PATH_MAX];
    pid_t parent;

    pthread_t thread;
    int thread_started;
    int epfd, evfd;
    int use_pidfd;

    pthread_mutex_t mu; /* guards everything below and the arrays */
    pthread_cond_t cv;
    int started;        /* the supervisor has spawned the first workers */
    int stopping;
    pid_t pids[FEED_ARENA_MAX_WORKERS];
    int pidfds[FEED_ARENA_MAX_WORKERS];
    int errfds[FEED_ARENA_MAX_WORKERS]; /* read ends of the workers' report pipes (arena/protocol.h) */
    int outfds[FEED_ARENA_MAX_WORKERS]; /* read ends of the workers' stderr pipes (output.c) */
    struct feed__worker_out *out;       /* their lines, rate limits (output.c) */
    uint8_t hung[FEED_ARENA_MAX_WORKERS];
    uint64_t hung_ms[FEED_ARENA_MAX_WORKERS]; /* the time it had, when hung */
    char *invalid[FEED_ARENA_MAX_WORKERS]; /* what a worker killed for misbehaving wrote (else NULL) */
    uint8_t ever_ran[FEED_ARENA_MAX_WORKERS];
    uint8_t up[FEED_ARENA_MAX_WORKERS]; /* slot i has had a worker that ran (for start) */
    /* The claim timer (claims.c): per sample of the ring (slot * batch_size
     * + t), the claim last seen there (its state word and the process's
     * spawn time) and since when (the parent's clock); scratch for the look */
    struct feed__claim_seen {
        uint32_t word;
        uint64_t life, since;
    } *claim_seen;
    uint32_t *claim_words, *claim_deaths;
    uint64_t spawned_ns[FEED_ARENA_MAX_WORKERS]; /* bounds the stage times a worker reports; names a process */
    uint64_t restarts, hangs, redone;
    uint64_t misbehaved; /* workers killed for writing a value no healthy worker writes */
    uint64_t acc_read_ns, acc_decode_ns, acc_augment_ns, acc_convert_ns, acc_read_bytes;
    uint32_t start_failures;  /* consecutive deaths of workers that never ran */
    uint32_t barren_deaths;   /* consecutive deaths with no sample completed between them */
    uint64_t last_done;       /* the most samples seen done (feed__ring_progress) at a death */
    /* Poison pills: samples that killed max_retries + 1 workers. Later
     * epochs send them straight to a substitute (feed__pool_quarantined). */
    struct feed__quarantined {
        uint64_t id;
        char why[200];
    } *quar;
    _Atomic uint32_t nquar;
    uint32_t capquar;
    feed_status fatal;
    char fatal_msg[768];
} feed__pool;

/* Finds the feed-worker executable: explicit path, $FEED_WORKER, next to the
 * library (., ../bin, ../libexec/libfeed), then the install libexec dir
 * (spawn.c). */
feed_status feed__pool_find_worker(const char *explicit_path, char *out, size_t outlen, char *err,
                                   size_t errlen);

/* Starts the supervisor and n workers; returns once all of them run (or
 * fail to: the error says how the worker ended). */
feed_status feed__pool_start(feed__pool *p, feed__arena *a, int arena_fd, int index_fd, uint32_t n,
                             const char *worker_path, uint32_t timeout_ms, char *err, size_t errlen);
/* Kills and reaps every worker and stops the supervisor. Safe to call twice. */
void feed__pool_stop(feed__pool *p);
/* Worker w (0-based) wrote a value no healthy worker writes (what says
 * which): it is killed and, as after a crash, replaced and its samples done
 * again; its death is reported as "wrote <what>". No-op if w is not running.
 * Any thread. */
void feed__pool_condemn(feed__pool *p, uint32_t w, const char *what);
/* How long worker w (its current process) has lived, with p->mu held: the
 * bound on each stage time it reports (a worker writes its counters). */
uint64_t feed__pool_lifetime_ns(const feed__pool *p, uint32_t w);
/* FEED_OK, or the async error that stopped the pool (message in msg). */
feed_status feed__pool_fatal(feed__pool *p, char *msg, size_t msglen);
/* 1 if sample id was quarantined as a poison pill (why gets the reason). */
int feed__pool_quarantined(feed__pool *p, uint64_t id, char *why, size_t whylen);
/* For tests: pid of worker i (0 if none right now). */
pid_t feed__pool_pid(feed__pool *p, uint32_t i);
/* For tests: waits until worker i is a running process other than not_pid
 * (started and attached: killing it now counts as a crash, not a failure to
 * start). Returns its pid, or 0 after timeout_ms or if the pool gave up. */
pid_t feed__pool_wait_running(feed__pool *p, uint32_t i, pid_t not_pid, int64_t timeout_ms);

/* Within supervise/ (spawn.c, for pool.c): spawns worker i with posix_spawn
 * of p->worker_path, its fds 3 to 6 as arena/protocol.h says (its record
 * STARTING, its pid, pidfd and report pipe in p). Called on the supervisor
 * thread with p->mu held. Returns 0, or -1 with msg saying why (the record
 * back to EMPTY). */
int feed__pool_spawn(feed__pool *p, uint32_t i, char *msg, size_t msglen);
/* SIGKILL to worker i (pool.c; p->mu held): the supervisor reaps it,
 * reclaims its samples and replaces it. */
void feed__pool_kill(feed__pool *p, uint32_t i);
/* Workers' stderr (output.c): epoll tag of worker i's pipe (FEED_OUT_TAG |
 * i); init and free the line buffers; read what worker i wrote (the
 * supervisor, p->mu held, at its pipe's event); close: read the rest of a
 * worker that is gone, say it, close the pipe. */
#define FEED_OUT_TAG 0x10000u
feed_status feed__output_init(feed__pool *p);
void feed__output_free(feed__pool *p);
void feed__output_read(feed__pool *p, uint32_t i);
void feed__output_close(feed__pool *p, uint32_t i);
/* The claim timer (claims.c): its arrays for p->a's ring, freed by
 * feed__claims_free; feed__claims_check, on the supervisor thread with p->mu
 * held, kills every worker that has held a sample past its time (marked
 * hung). */
feed_status feed__claims_init(feed__pool *p);
void feed__claims_free(feed__pool *p);
void feed__claims_check(feed__pool *p);

#endif

/* pool.c - supervise, replace and shut down the worker processes: the
 * supervisor thread (pidfds, polling, hangs), the accounting of a death
 * (only once the worker is reaped: then its samples go back to the ring), the
 * pool's start and stop. Spawning one worker is spawn.c's. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/futex.h"
#include "arena/protocol.h"
#include "arena/ring.h"
#include "common/internal.h"
#include "supervise/pool.h"
#include "supervise/verify.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* Deaths in a row without a single sample completed before the pool gives
 * up: a broken install or a poisoned environment, not a bad sample (those
 * are quarantined after max_retries; the limit is raised to 4 * (max_retries
 * + 1) when that is more, so one poison pill never trips it). Progress is
 * counted in samples the parent saw done in the ring (feed__ring_progress). */
#define FEED_BARREN_DEATH_LIMIT 32u
#define FEED_START_FAILURE_LIMIT 3u

static void describe_exit(int status, char *buf, size_t len)
{
    if (status == -1) /* see reap() */
        snprintf(buf, len, "ended (exit status unknown: SIGCHLD is ignored or it was reaped elsewhere)");
    else if (WIFSIGNALED(status))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(buf, len, "ended (status 0x%x)", status);
}

static void set_fatal(feed__pool *p, feed_status st, const char *msg)
{
    if (p->fatal == FEED_OK) {
        p->fatal = st;
        snprintf(p->fatal_msg, sizeof p->fatal_msg, "%s", msg);
    }
}

/* Worker i has ended with status: account for it, hand its samples back,
 * replace it. Supervisor thread, p->mu held. */
static void handle_death(feed__pool *p, uint32_t i, int status)
{
    feed__arena_hdr *h = p->h;
    feed__worker_rec *rec = &h->workers[i];
    /* A worker that was condemned, or held a sample, ran (whatever its
     * record, which it can write, says). */
    int ran = atomic_load(&rec->state) == FEED_WREC_RUNNING || p->ever_ran[i] || p->invalid[i];
    feed__output_close(p, i); /* what it wrote before it died, all of it */
    if (p->pidfds[i] >= 0) {
        epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->pidfds[i], NULL);
        close(p->pidfds[i]);
        p->pidfds[i] = -1;
    }
    p->pids[i] = 0;
    rec->pid = 0;
    /* Keep the dead worker's counters (its stage times no more than it lived). */
    uint64_t lived = feed__pool_lifetime_ns(p, i);
    p->acc_read_ns += feed__min_u64(atomic_exchange(&rec->read_ns, 0), lived);
    p->acc_decode_ns += feed__min_u64(atomic_exchange(&rec->decode_ns, 0), lived);
    p->acc_augment_ns += feed__min_u64(atomic_exchange(&rec->augment_ns, 0), lived);
    p->acc_convert_ns += feed__min_u64(atomic_exchange(&rec->convert_ns, 0), lived);
    p->acc_read_bytes += atomic_exchange(&rec->read_bytes, 0);
    atomic_store(&rec->entropy, FEED__ENTROPY_UNKNOWN); /* the next one decides afresh */
    atomic_store(&rec->state, FEED_WREC_EMPTY);
    if (p->stopping)
        return;

    char how[128], msg[700], said[4 * 255 + 1] = "";
    if (p->errfds[i] >= 0) {
        /* The worker's words, untrusted: what is not printable ASCII (a
         * terminal's escape sequences, newlines) is shown as \xNN. */
        char raw[255];
        ssize_t k = read(p->errfds[i], raw, sizeof raw);
        while (k > 0 && (raw[k - 1] == '\n' || raw[k - 1] == 0))
            k--;
        feed__copy_untrusted(said, sizeof said, raw, k > 0 ? (size_t)k : 0);
        close(p->errfds[i]);
        p->errfds[i] = -1;
    }
    const char *sbx = strstr(said, FEED_SANDBOX_REPORT);
    if (p->invalid[i])
        snprintf(how, sizeof how, "wrote %.100s and was killed", p->invalid[i]);
    else if (p->hung[i])
        snprintf(how, sizeof how, "hung for more than %llu ms (sample_timeout_ms=%u, doubled per retry) and was killed",
                 (unsigned long long)p->hung_ms[i], p->timeout_ms);
    else if (sbx && status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
        snprintf(how, sizeof how, "worker %u killed by the sandbox (%.80s)", i,
                 sbx + strlen(FEED_SANDBOX_REPORT));
    else
        describe_exit(status, how, sizeof how);
    /* The ring poisons a sample at its max_retries + 1st death; the words
     * of the report are the supervisor's, which alone knows how it died. */
    uint32_t deaths = p->a->cfg->max_retries + 1;
    char report[sizeof ((feed__sample_rec *)0)->message];
    snprintf(report, sizeof report,
             "worker process died %u time%s on this sample (last: %.120s); quarantined", deaths,
             deaths == 1 ? "" : "s", how);
    uint64_t pill;
    uint32_t held = feed__ring_reclaim_why(p->a, i, report, &pill);
    p->redone += held;
    ran |= held > 0;
    p->up[i] |= (uint8_t)ran;
    if (pill != UINT64_MAX) {
        uint32_t n = atomic_load(&p->nquar);
        if (n == p->capquar) {
            uint32_t cap = p->capquar ? p->capquar * 2 : 8;
            struct feed__quarantined *q = feed__realloc(p->quar, cap * sizeof *q);
            if (q)
                p->quar = q, p->capquar = cap;
        }
        if (n < p->capquar) {
            p->quar[n].id = pill;
            snprintf(p->quar[n].why, sizeof p->quar[n].why,
                     "quarantined: worker processes died %u times on this sample in an earlier "
                     "epoch (last: %.100s)",
                     deaths, how);
            atomic_store(&p->nquar, n + 1);
        }
    }
    p->restarts++;
    if (p->hung[i])
        p->hangs++;
    if (p->invalid[i])
        p->misbehaved++;
    feed__free(p->invalid[i]);
    p->invalid[i] = NULL;

    /* Progress since the last death: samples the parent saw done in the
     * ring (done_seq is none: deaths and starts bump it too, and a worker
     * can write it, as it can any tally of its own). */
    uint64_t done = feed__ring_progress(p->a);
    p->barren_deaths = done > p->last_done ? 1 : p->barren_deaths + 1;
    p->last_done = done > p->last_done ? done : p->last_done;
    p->start_failures = ran ? 0 : p->start_failures + 1;
    /* A poison pill alone costs max_retries + 1 deaths in a row (and as many
     * per substitute that also crashes): never mistake that for a broken
     * install. */
    uint32_t barren_limit = FEED_BARREN_DEATH_LIMIT;
    if (barren_limit < 4 * deaths)
        barren_limit = 4 * deaths;
    if (p->start_failures >= FEED_START_FAILURE_LIMIT) {
        /* What the worker said on its report pipe, else where to look. */
        const char *hint = said[0] ? ""
                           : status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127
                               ? "; it could not be loaded (a missing shared library?): see its stderr"
                               : "; see its stderr";
        snprintf(msg, sizeof msg, "workers fail to start: %.200s %s (%u times in a row)%s%.200s%s",
                 p->worker_path, how, p->start_failures, said[0] ? ": " : "", said, hint);
        set_fatal(p, FEED_E_WORKER, msg);
    } else if (p->barren_deaths >= barren_limit) {
        snprintf(msg, sizeof msg, "workers keep dying without finishing a sample (%u in a row, last %s%s%.200s)",
                 p->barren_deaths, how, said[0] ? ": " : "", said);
        set_fatal(p, FEED_E_WORKER, msg);
    } else if (feed__pool_spawn(p, i, msg, sizeof msg) != 0) {
        set_fatal(p, FEED_E_RESOURCE, msg);
    }
    feed__futex_bump(&h->done_seq); /* the consumer re-checks (and sees a fatal error) */
    pthread_cond_broadcast(&p->cv);
}

static void reap(feed__pool *p, uint32_t i, int block)
{
    pid_t pid = p->pids[i];
    if (!pid)
        return;
    int status = 0;
    pid_t r = waitpid(pid, &status, block ? 0 : WNOHANG);
    if (r == 0)
        return;
    if (r < 0 && errno != ECHILD)
        return;
    if (r < 0) /* someone else reaped it (SIGCHLD ignored): it is gone all the same */
        status = -1;
    handle_death(p, i, status);
}

/* SIGKILL to worker i through its pidfd where it has one: a raw pid can name
 * another process once the worker is reaped behind our back (a host that
 * ignores SIGCHLD has its children reaped by the kernel). */
void feed__pool_kill(feed__pool *p, uint32_t i)
{
    if (p->pidfds[i] >= 0 && syscall(SYS_pidfd_send_signal, p->pidfds[i], SIGKILL, NULL, 0) == 0)
        return;
    if (p->pidfds[i] >= 0 && errno == ESRCH)
        return; /* gone already */
    kill(p->pids[i], SIGKILL);
}

uint64_t feed__pool_lifetime_ns(const feed__pool *p, uint32_t w)
{
    uint64_t now = feed__now_ns();
    return w < p->n && p->spawned_ns[w] && now > p->spawned_ns[w] ? now - p->spawned_ns[w] : 0;
}

/* feed__pool_condemn with p->mu held. */
static void condemn_locked(feed__pool *p, uint32_t w, const char *what)
{
    if (w < p->n && p->pids[w] && !p->invalid[w] && !p->stopping) {
        size_t n = strlen(what) + 1;
        p->invalid[w] = feed__malloc(n);
        if (p->invalid[w])
            memcpy(p->invalid[w], what, n);
        feed__pool_kill(p, w); /* the supervisor reaps it, reclaims its samples, respawns */
    }
}

static void *supervisor(void *arg)
{
    feed__pool *p = arg;
    char msg[400];

    pthread_mutex_lock(&p->mu);
    for (uint32_t i = 0; i < p->n && p->fatal == FEED_OK; i++)
        if (feed__pool_spawn(p, i, msg, sizeof msg) != 0)
            set_fatal(p, FEED_E_RESOURCE, msg);
    p->started = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    feed__futex_bump(&p->h->done_seq); /* feed__pool_start re-checks */

    int tick = -1;
    if (p->timeout_ms)
        /* An eighth of the timeout: a claim is first seen up to a tick
         * after it was made and found over the limit up to a tick after
         * that, so a hang is killed at most a quarter of sample_timeout_ms
         * (500 ms) past it. */
        tick = (int)(p->timeout_ms / 8 < 250 ? (p->timeout_ms / 8 ? p->timeout_ms / 8 : 1) : 250);
    for (;;) {
        /* A worker without a pidfd (no pidfd_open, or it failed: fd table
         * full) is polled with waitpid(WNOHANG) every 20 ms instead. */
        int t = tick;
        for (uint32_t i = 0; i < p->n; i++)
            if (p->pids[i] && p->pidfds[i] < 0)
                t = t < 0 || t > 20 ? 20 : t;
        struct epoll_event evs[16];
        int n = epoll_wait(p->epfd, evs, 16, t);
        pthread_mutex_lock(&p->mu);
        if (p->stopping) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        for (int k = 0; k < n; k++)
            if (evs[k].data.u32 != UINT32_MAX && (evs[k].data.u32 & FEED_OUT_TAG))
                feed__output_read(p, evs[k].data.u32 & ~FEED_OUT_TAG);
        for (int k = 0; k < n; k++)
            if (evs[k].data.u32 != UINT32_MAX && !(evs[k].data.u32 & FEED_OUT_TAG))
                reap(p, evs[k].data.u32, 1);
        for (uint32_t i = 0; i < p->n; i++)
            if (p->pids[i] && p->pidfds[i] < 0)
                reap(p, i, 0);
        for (uint32_t i = 0; i < p->n; i++) {
            uint32_t ws = atomic_load(&p->h->workers[i].state);
            if (p->pids[i] && !p->ever_ran[i] && ws == FEED_WREC_RUNNING)
                p->ever_ran[i] = p->up[i] = 1;
            if (p->pids[i] && ws > FEED_WREC_RUNNING) { /* it ran, and wrote that */
                p->up[i] = 1;
                condemn_locked(p, i, "an invalid state in its worker record");
            } else if (p->pids[i] && atomic_load(&p->h->workers[i].entropy) >= FEED__ENTROPY_CODES) {
                p->up[i] = 1;
                condemn_locked(p, i, "an invalid JPEG decoder code in its worker record");
            }
        }
        feed__claims_check(p);
        pthread_mutex_unlock(&p->mu);
    }

    /* Stop: kill and reap every worker. They hold nothing that needs a
     * graceful exit (the arena and index are the parent's). */
    pthread_mutex_lock(&p->mu);
    for (uint32_t i = 0; i < p->n; i++)
        if (p->pids[i])
            feed__pool_kill(p, i);
    for (uint32_t i = 0; i < p->n; i++)
        if (p->pids[i]) {
            int status = 0; /* stays 0 if SIGCHLD is ignored (ECHILD) */
            while (waitpid(p->pids[i], &status, 0) < 0 && errno == EINTR)
                ;
            handle_death(p, i, status);
        }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

feed_status feed__pool_start(feed__pool *p, feed__arena *a, int arena_fd, int index_fd, uint32_t n,
                             const char *worker_path, uint32_t timeout_ms, char *err, size_t errlen)
{
    /* They are dup2'ed onto 3 to 6 in the child: none may be one of those. */
    if (arena_fd <= FEED_WORKER_CONFIG_FD || index_fd <= FEED_WORKER_CONFIG_FD ||
        a->cfg_fd <= FEED_WORKER_CONFIG_FD)
        return feed__err(FEED_E_INTERNAL, err, errlen, "pool: shared fds must be > %d (configuration sealed?)",
                         FEED_WORKER_CONFIG_FD);
    memset(p, 0, sizeof *p);
    feed__arena_hdr *h = a->hdr;
    p->a = a;
    p->h = h;
    p->arena_fd = arena_fd;
    p->index_fd = index_fd;
    p->n = n;
    p->timeout_ms = timeout_ms;
    p->parent = getpid();
    p->epfd = p->evfd = -1;
    snprintf(p->worker_path, sizeof p->worker_path, "%s", worker_path);
    for (uint32_t i = 0; i < FEED_ARENA_MAX_WORKERS; i++)
        p->pidfds[i] = p->errfds[i] = p->outfds[i] = -1;
    pthread_mutex_init(&p->mu, NULL);
    feed__cond_init_monotonic(&p->cv);

    p->epfd = epoll_create1(EPOLL_CLOEXEC);
    p->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (p->epfd < 0 || p->evfd < 0) {
        feed_status st = feed__err(FEED_E_RESOURCE, err, errlen, "pool: epoll/eventfd: %s (raise ulimit -n)",
                                   strerror(errno));
        feed__pool_stop(p);
        return st;
    }
    if (feed__claims_init(p) != FEED_OK || feed__output_init(p) != FEED_OK) {
        feed__pool_stop(p);
        return feed__err(FEED_E_NOMEM, err, errlen, "pool: out of memory");
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->evfd, &ev);
    int probe = (int)syscall(SYS_pidfd_open, getpid(), 0);
    p->use_pidfd = probe >= 0;
    if (probe >= 0)
        close(probe);

    int e = feed__thread_start(&p->thread, supervisor, p, "feed-supervisor");
    if (e != 0) {
        feed__pool_stop(p);
        return feed__err(FEED_E_RESOURCE, err, errlen, "pool: cannot start a thread: %s%s", strerror(e),
                         e == EAGAIN ? " (process/thread limit: raise ulimit -u)"
                         : e == ENOMEM ? " (out of memory: raise ulimit -v or free memory)" : "");
    }
    p->thread_started = 1;

    /* Wait until every worker runs, or the pool gives up. Whatever changes
     * the answer bumps done_seq: a worker that starts, a death, a fatal
     * error, the end of the first spawns. */
    uint64_t deadline = feed__now_ns() + 60ull * 1000000000ull;
    feed_status st = FEED_OK;
    for (;;) {
        uint32_t seen = atomic_load(&h->done_seq);
        pthread_mutex_lock(&p->mu);
        feed_status fatal = p->fatal;
        if (fatal != FEED_OK)
            st = feed__err(fatal, err, errlen, "%s", p->fatal_msg);
        int started = p->started;
        pthread_mutex_unlock(&p->mu);
        if (fatal != FEED_OK)
            break;
        uint32_t running = 0;
        pthread_mutex_lock(&p->mu);
        for (uint32_t i = 0; i < n; i++)
            running += atomic_load(&h->workers[i].state) == FEED_WREC_RUNNING || p->up[i];
        pthread_mutex_unlock(&p->mu);
        if (started && running == n)
            break;
        uint64_t now = feed__now_ns();
        if (now >= deadline) {
            st = feed__err(FEED_E_WORKER, err, errlen, "workers did not start within 60 s (%u of %u running)",
                           running, n);
            break;
        }
        feed__futex_wait(&h->done_seq, seen, (int64_t)(deadline - now));
    }
    if (st != FEED_OK)
        feed__pool_stop(p);
    return st;
}

void feed__pool_stop(feed__pool *p)
{
    if (p->thread_started) {
        pthread_mutex_lock(&p->mu);
        p->stopping = 1;
        pthread_mutex_unlock(&p->mu);
        uint64_t one = 1;
        if (write(p->evfd, &one, sizeof one) < 0) {
            /* cannot happen with a valid eventfd; the tick still ends the wait */
        }
        pthread_join(p->thread, NULL);
        p->thread_started = 0;
    }
    if (p->epfd >= 0)
        close(p->epfd);
    if (p->evfd >= 0)
        close(p->evfd);
    p->epfd = p->evfd = -1;
    for (uint32_t i = 0; i < FEED_ARENA_MAX_WORKERS; i++) {
        if (p->errfds[i] >= 0)
            close(p->errfds[i]);
        p->errfds[i] = -1;
    }
    for (uint32_t i = 0; i < FEED_ARENA_MAX_WORKERS; i++) {
        feed__free(p->invalid[i]);
        p->invalid[i] = NULL;
    }
    feed__claims_free(p);
    feed__output_free(p);
    feed__free(p->quar);
    p->quar = NULL;
    p->capquar = 0;
    atomic_store(&p->nquar, 0);
}

void feed__pool_condemn(feed__pool *p, uint32_t w, const char *what)
{
    pthread_mutex_lock(&p->mu);
    condemn_locked(p, w, what);
    pthread_mutex_unlock(&p->mu);
}

feed_status feed__pool_fatal(feed__pool *p, char *msg, size_t msglen)
{
    pthread_mutex_lock(&p->mu);
    feed_status st = p->fatal;
    if (st != FEED_OK && msg)
        snprintf(msg, msglen, "%s", p->fatal_msg);
    pthread_mutex_unlock(&p->mu);
    return st;
}

int feed__pool_quarantined(feed__pool *p, uint64_t id, char *why, size_t whylen)
{
    if (atomic_load(&p->nquar) == 0)
        return 0;
    int found = 0;
    pthread_mutex_lock(&p->mu);
    for (uint32_t q = 0; q < p->nquar && !found; q++)
        if (p->quar[q].id == id) {
            snprintf(why, whylen, "%s", p->quar[q].why);
            found = 1;
        }
    pthread_mutex_unlock(&p->mu);
    return found;
}

pid_t feed__pool_pid(feed__pool *p, uint32_t i)
{
    pthread_mutex_lock(&p->mu);
    pid_t pid = i < p->n ? p->pids[i] : 0;
    pthread_mutex_unlock(&p->mu);
    return pid;
}

pid_t feed__pool_wait_running(feed__pool *p, uint32_t i, pid_t not_pid, int64_t timeout_ms)
{
    /* Workers bump done_seq when they start, the supervisor after each
     * respawn: sleep on it between checks. */
    feed__arena_hdr *h = p->h;
    uint64_t deadline = feed__now_ns() + (uint64_t)timeout_ms * 1000000ull;
    for (;;) {
        uint32_t seen = atomic_load(&h->done_seq);
        pthread_mutex_lock(&p->mu);
        pid_t pid = i < p->n ? p->pids[i] : 0;
        int fatal = p->fatal != FEED_OK;
        pthread_mutex_unlock(&p->mu);
        if (fatal)
            return 0;
        if (pid && pid != not_pid && atomic_load(&h->workers[i].state) == FEED_WREC_RUNNING)
            return pid;
        uint64_t now = feed__now_ns();
        if (now >= deadline)
            return 0;
        feed__futex_wait(&h->done_seq, seen, (int64_t)(deadline - now));
    }
}

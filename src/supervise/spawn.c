/* spawn.c - posix_spawn of one feed-worker, and where its executable is. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena/protocol.h"
#include "common/internal.h"
#include "supervise/pool.h"

extern char **environ;

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static int try_path(char *out, size_t outlen, const char *path)
{
    if (!path || !*path || access(path, X_OK) != 0)
        return 0;
    if (!realpath(path, out)) {
        if (strlen(path) >= outlen)
            return 0;
        strcpy(out, path);
    }
    return 1;
}

feed_status feed__pool_find_worker(const char *explicit_path, char *out, size_t outlen, char *err,
                                   size_t errlen)
{
    if (explicit_path && *explicit_path) {
        if (try_path(out, outlen, explicit_path))
            return FEED_OK;
        return feed__err(FEED_E_RESOURCE, err, errlen, "worker_path %s is not an executable file: %s",
                         explicit_path, strerror(errno));
    }
    if (try_path(out, outlen, getenv("FEED_WORKER")))
        return FEED_OK;
    Dl_info info;
    char dir[PATH_MAX] = "";
    if (dladdr((void *)feed__pool_find_worker, &info) && info.dli_fname) {
        char tmp[PATH_MAX];
        if (realpath(info.dli_fname, tmp)) {
            char *slash = strrchr(tmp, '/');
            if (slash) {
                *slash = 0;
                snprintf(dir, sizeof dir, "%s", tmp);
            }
        }
    }
    static const char *const rel[] = {"/feed-worker", "/../bin/feed-worker",
                                      "/../libexec/libfeed/feed-worker"};
    char cand[PATH_MAX + 64];
    for (size_t i = 0; dir[0] && i < FEED_ARRAY_SIZE(rel); i++) {
        snprintf(cand, sizeof cand, "%s%s", dir, rel[i]);
        if (try_path(out, outlen, cand))
            return FEED_OK;
    }
    if (try_path(out, outlen, FEED_LIBEXECDIR "/feed-worker"))
        return FEED_OK;
    return feed__err(FEED_E_RESOURCE, err, errlen,
                     "cannot find the feed-worker executable (looked next to %s and in %s); set "
                     "worker_path or FEED_WORKER",
                     dir[0] ? dir : "the library", FEED_LIBEXECDIR);
}

int feed__pool_spawn(feed__pool *p, uint32_t i, char *msg, size_t msglen)
{
    feed__worker_rec *rec = &p->h->workers[i];
    feed__output_close(p, i); /* the last one's, if still open */
    atomic_store(&rec->state, FEED_WREC_STARTING);
    p->spawned_ns[i] = feed__now_ns();
    char idbuf[16], ppbuf[24];
    snprintf(idbuf, sizeof idbuf, "%u", i);
    snprintf(ppbuf, sizeof ppbuf, "%ld", (long)p->parent);
    char *argv[] = {p->worker_path, "--id", idbuf, "--parent", ppbuf, NULL};

    /* The report pipe: the worker writes why it cannot start on its fd 5.
     * Without one (fd table full) the worker only has its stderr. */
    int rep[2] = {-1, -1};
    if (pipe2(rep, O_CLOEXEC | O_NONBLOCK) == 0) {
        /* Both ends >= 10: low fds stay free for the host, and the write end
         * cannot be one of the child's 3 to 6 before the dup2s below. */
        for (int k = 0; k < 2; k++) {
            if (rep[k] >= 10)
                continue;
            int hi = fcntl(rep[k], F_DUPFD_CLOEXEC, 10);
            close(rep[k]);
            rep[k] = hi;
        }
        if (rep[0] < 0 || rep[1] < 0) {
            if (rep[0] >= 0)
                close(rep[0]);
            if (rep[1] >= 0)
                close(rep[1]);
            rep[0] = rep[1] = -1;
        }
    }
    /* Its stderr: a pipe the supervisor reads (output.c), never the host's
     * own; without one, /dev/null. */
    int out[2] = {-1, -1};
    if (pipe2(out, O_CLOEXEC) == 0) {
        for (int k = 0; k < 2; k++) {
            if (out[k] >= 10)
                continue;
            int hi = fcntl(out[k], F_DUPFD_CLOEXEC, 10);
            close(out[k]);
            out[k] = hi;
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = FEED_OUT_TAG | i};
        if (out[0] < 0 || out[1] < 0 || fcntl(out[0], F_SETFL, O_NONBLOCK) != 0 ||
            epoll_ctl(p->epfd, EPOLL_CTL_ADD, out[0], &ev) != 0) {
            if (out[0] >= 0)
                close(out[0]);
            if (out[1] >= 0)
                close(out[1]);
            out[0] = out[1] = -1;
        }
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    if (out[1] >= 0)
        posix_spawn_file_actions_adddup2(&fa, out[1], 2);
    else
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p->arena_fd, FEED_WORKER_ARENA_FD);
    posix_spawn_file_actions_adddup2(&fa, p->index_fd, FEED_WORKER_INDEX_FD);
    if (rep[1] >= 0)
        posix_spawn_file_actions_adddup2(&fa, rep[1], FEED_WORKER_REPORT_FD);
    else /* no pipe: nothing of the host's as the worker's report fd */
        posix_spawn_file_actions_addclose(&fa, FEED_WORKER_REPORT_FD);
    posix_spawn_file_actions_adddup2(&fa, p->a->cfg_fd, FEED_WORKER_CONFIG_FD);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    /* Nothing else of the host's: fds it leaked without O_CLOEXEC could
     * fill the worker's fd table before main() (the worker closes them too,
     * but only once it runs) and would be held open by every worker. */
#if FEED_TEST_HOOKS
    if (!getenv("FEED_TEST_NO_CLOSEFROM")) /* the worker's own fallback, tested alone */
#endif
        posix_spawn_file_actions_addclosefrom_np(&fa, FEED_WORKER_CONFIG_FD + 1);
#endif
    posix_spawnattr_init(&at);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    /* Own process group: a terminal's Ctrl-C goes to the host, which then
     * destroys the loader; workers do not die half-way on their own. */
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    pid_t pid;
    int e = posix_spawn(&pid, p->worker_path, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rep[1] >= 0)
        close(rep[1]); /* the worker's end only: EOF once it is gone */
    if (out[1] >= 0)
        close(out[1]);
    if (e != 0 && out[0] >= 0) {
        epoll_ctl(p->epfd, EPOLL_CTL_DEL, out[0], NULL);
        close(out[0]);
        out[0] = -1;
    }
    p->outfds[i] = out[0];
    if (p->errfds[i] >= 0)
        close(p->errfds[i]);
    p->errfds[i] = e == 0 ? rep[0] : -1;
    if (e != 0 && rep[0] >= 0)
        close(rep[0]);
    if (e != 0) {
        snprintf(msg, msglen, "cannot start worker %.300s: %s%s", p->worker_path, strerror(e),
                 e == EAGAIN ? " (process limit: raise ulimit -u)"
                 : e == ENOMEM ? " (out of memory: raise ulimit -v or free memory)"
                 : e == EMFILE || e == ENFILE ? " (out of file descriptors: raise ulimit -n)" : "");
        atomic_store(&rec->state, FEED_WREC_EMPTY);
        return -1;
    }
    rec->pid = pid;
    p->pids[i] = pid;
    p->hung[i] = 0;
    p->ever_ran[i] = 0;
    p->pidfds[i] = -1;
    if (p->use_pidfd) {
        int fd = (int)syscall(SYS_pidfd_open, pid, 0);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};
        if (fd >= 0 && epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev) == 0)
            p->pidfds[i] = fd;
        else if (fd >= 0)
            close(fd); /* polled instead (the supervisor loop, pool.c) */
    }
    return 0;
}

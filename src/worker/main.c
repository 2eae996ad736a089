/*
 * main.c - the feed-worker executable. The loader starts it with
 * posix_spawn (never a bare fork, so a parent with CUDA or other threads is
 * safe): fd 3 is the arena, fd 4 the index, fd 5 the report pipe, fd 6 the
 * arena's sealed configuration page (arena/protocol.h). Once set up, it locks
 * itself down (sandbox.h): oom_score_adj, the memory cap, the seccomp
 * sandbox.
 *
 *   feed-worker --id W --parent PID
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena/arena.h"
#include "dataset/index.h"
#include "worker/loop.h"
#include "worker/sandbox.h"

/* Closes every fd >= first: nothing else of the host's (3 arena, 4 index,
 * 5 the report pipe, 6 the configuration stay). close_range where the
 * kernel has it (5.9+) and a seccomp profile allows it; else the fds /proc
 * lists; else every fd below the fd limit. The spawn closed them too where glibc can (closefrom), but
 * not every libc can. */
static void close_inherited(int first)
{
#ifdef SYS_close_range
#if FEED_TEST_HOOKS
    if (!getenv("FEED_TEST_NO_CLOSE_RANGE"))
#endif
        if (syscall(SYS_close_range, (unsigned)first, ~0u, 0u) == 0)
            return;
#endif
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        int fds[256], n;
        do { /* a batch at a time: closing while reading the directory is not reliable */
            n = 0;
            rewinddir(d);
            struct dirent *de;
            while (n < 256 && (de = readdir(d))) {
                int fd = atoi(de->d_name);
                if (de->d_name[0] != '.' && fd >= first && fd != dirfd(d))
                    fds[n++] = fd;
            }
            for (int k = 0; k < n; k++)
                close(fds[k]);
        } while (n == 256);
        closedir(d);
        return;
    }
    struct rlimit rl;
    long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : 65536;
    for (long fd = first; fd < max && fd < (1L << 20); fd++)
        close((int)fd);
}

static int lock_down(const feed__arena_hdr *h, char *err, size_t errlen)
{
    return feed__sandbox_enter(h->sandbox, h->xform.max_memory, err, errlen);
}

int main(int argc, char **argv)
{
    long id = -1, parent = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--id"))
            id = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--parent"))
            parent = strtol(argv[i + 1], NULL, 10);
    }
    if (id < 0 || parent <= 0) {
        fprintf(stderr, "feed-worker: started by libfeed only (--id W --parent PID, fds 3 to 6)\n");
        return 2;
    }
    /* Die with the parent; if it is already gone, stop now. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != (pid_t)parent)
        return 0;
    close_inherited(FEED_WORKER_CONFIG_FD + 1);
    char err[256];
    feed__arena a;
    feed__index ix;
    if (feed__arena_attach(&a, FEED_WORKER_ARENA_FD, FEED_WORKER_CONFIG_FD, err, sizeof err) != 0 ||
        feed__index_attach(&ix, FEED_WORKER_INDEX_FD, err, sizeof err) != 0) {
        feed__worker_fail("%s", err);
        return 3;
    }
    if ((uint32_t)id >= a.lay.nworkers) {
        feed__worker_fail("id %ld out of range (a feed-worker of another libfeed version?)", id);
        return 2;
    }
    return feed__worker_run(&a, ix.hdr, (uint32_t)id, lock_down);
}

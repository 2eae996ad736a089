/*
 * worker_main.c - the feed-worker executable. The loader starts it with
 * posix_spawn (never a bare fork, so a parent with CUDA or other threads is
 * safe): fd 3 is the arena, fd 4 the index.
 *
 * fd 5 the report pipe (worker.h).
 *
 *   feed-worker --id W --parent PID
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "index.h"
#include "shm.h"
#include "worker.h"

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
        fprintf(stderr, "feed-worker: started by libfeed only (--id W --parent PID, fds 3 and 4)\n");
        return 2;
    }
    /* Die with the parent; if it is already gone, stop now. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != (pid_t)parent)
        return 0;
#ifdef SYS_close_range
    /* nothing else of the parent's: 3 arena, 4 index, 5 the report pipe */
    syscall(SYS_close_range, FEED_WORKER_REPORT_FD + 1u, ~0u, 0u);
#endif
    char err[256];
    feed__arena a;
    feed__index ix;
    if (feed__arena_attach(&a, 3, err, sizeof err) != 0 || feed__index_attach(&ix, 4, err, sizeof err) != 0) {
        feed__worker_fail("%s", err);
        return 3;
    }
    if ((uint32_t)id >= a.hdr->nworkers) {
        feed__worker_fail("id %ld out of range (a feed-worker of another libfeed version?)", id);
        return 2;
    }
    return feed__worker_run(a.hdr, ix.hdr, (uint32_t)id);
}

/* futex.c - sleeping on and waking words of the shared arena (futex.h). */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arena/futex.h"

int feed__futex_wait(_Atomic uint32_t *w, uint32_t expected, int64_t timeout_ns)
{
    struct timespec ts, *tp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = (time_t)(timeout_ns / 1000000000);
        ts.tv_nsec = (long)(timeout_ns % 1000000000);
        tp = &ts;
    }
    long r = syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, expected, tp, NULL, 0);
    if (r == 0 || errno == EAGAIN)
        return 0;
    return errno;
}

void feed__futex_wake(_Atomic uint32_t *w, int n)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, n, NULL, NULL, 0);
}

void feed__futex_bump(_Atomic uint32_t *w)
{
    atomic_fetch_add(w, 1);
    feed__futex_wake(w, INT_MAX);
}

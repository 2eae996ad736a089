/*
 * internal.h - small helpers shared by the library's files (not installed).
 */
#ifndef FEED_INTERNAL_H
#define FEED_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "feed.h"

#define FEED_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FEED_ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((uint64_t)(a)-1))

/* snprintf into err (if not NULL) and return st: `return feed__err(st, err, len, "...")`. */
feed_status feed__err(feed_status st, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline uint64_t feed__min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static inline uint64_t feed__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Starts one of the library's threads with every signal blocked (the host's
 * handlers run on the host's threads, never on ours) and names it (15 chars
 * at most). Returns pthread_create's error number. */
static inline int feed__thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *name)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
#if defined(__GLIBC__)
    if (rc == 0 && name)
        pthread_setname_np(*t, name);
#endif
    return rc;
}

/* A condition variable whose timed waits use CLOCK_MONOTONIC. */
static inline void feed__cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
}

/* The library's allocator. All allocations on create paths go through these
 * so that the fault test can walk every failure point: in test builds
 * (FEED_TEST_HOOKS) feed__alloc_fail_after makes them fail after N calls. */
void *feed__malloc(size_t n);
void *feed__calloc(size_t n, size_t size);
void *feed__realloc(void *p, size_t n);
void feed__free(void *p);
#if FEED_TEST_HOOKS
/* Next n allocations succeed, then every one fails (n < 0: never fail). */
void feed__alloc_fail_after(long n);
#endif

#endif /* FEED_INTERNAL_H */

/*
 * futex.h - sleeping on words of the shared arena. Not FUTEX_PRIVATE: the
 * words are in the memfd and the sleepers in other processes. The ring's
 * sleepers are workers on work_seq and the consumer on done_seq ("Sleeping"
 * in ring.c says who wakes whom).
 */
#ifndef FEED_ARENA_FUTEX_H
#define FEED_ARENA_FUTEX_H

#include <stdatomic.h>
#include <stdint.h>

/* Sleeps while *w == expected, at most timeout_ns (< 0: for ever). Returns 0
 * when woken or the value differed, ETIMEDOUT, or EINTR. */
int feed__futex_wait(_Atomic uint32_t *w, uint32_t expected, int64_t timeout_ns);
void feed__futex_wake(_Atomic uint32_t *w, int n);
/* Bumps *w and wakes every sleeper. */
void feed__futex_bump(_Atomic uint32_t *w);

#endif

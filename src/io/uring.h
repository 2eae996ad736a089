/*
 * uring.h - the reader's io_uring: a ring of 8 entries, created disabled and
 * restricted to READ, CLOSE and NOP (no register operation) before its first
 * use, so that code that took over a worker can do nothing else through it
 * that seccomp would not see; and the one operation the reader asks of it, a
 * read hard linked to the close of its file. Files, sizes and messages are
 * reader.c's; this knows the ring only.
 *
 * A ring belongs to the process that set it up (it is not shared across fork)
 * and to one thread at a time.
 */
#ifndef FEED_URING_H
#define FEED_URING_H

#include <liburing.h>
#include <stdint.h>

typedef struct feed__uring {
    struct io_uring ring;
} feed__uring;

/* Sets up u and checks that it works (a NOP's round trip, in case a sandbox
 * lets the setup pass only). 1, or 0: no ring here (seccomp, gVisor,
 * kernel.io_uring_disabled, the memlock limit, a kernel before 5.10, which
 * has no restrictions), nothing to undo. */
int feed__uring_init(feed__uring *u);
/* Tears down a ring feed__uring_init set up. */
void feed__uring_exit(feed__uring *u);

/*
 * Reads want bytes at off of fd into buf, the close of fd hard linked to it
 * (it runs even when the read fails or comes back short): fd is closed
 * whatever happens. Returns 0 with the read's result in *n (the bytes read,
 * maybe short, or a negative errno), or -1 when the ring itself failed: it is
 * then torn down (feed__uring_exit done) and must not be used again.
 */
int feed__uring_read_close(feed__uring *u, int fd, uint8_t *buf, unsigned want, uint64_t off, int *n);

#if FEED_TEST_HOOKS
/* Submits IORING_OP_OPENAT as code that took over a worker could: the result
 * (a negative errno when the ring refuses it). */
int feed__uring_test_openat(feed__uring *u, int dirfd, const char *path, int flags);
#endif

#endif /* FEED_URING_H */

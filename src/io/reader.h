/*
 * reader.h - read whole files or byte ranges of them: io_uring (liburing) where the kernel allows it,
 * pread otherwise.
 *
 * io_uring is refused by Docker's default seccomp profile, by
 * kernel.io_uring_disabled and by gVisor: feed__reader_create() probes it once
 * and falls back to pread silently; feed__reader_kind() says which one is in
 * use. FEED_FORCE_PREAD=1 in the environment forces the fallback (tests).
 */
#ifndef FEED_READER_H
#define FEED_READER_H

#include <stddef.h>
#include <stdint.h>

typedef struct feed__reader feed__reader;

enum { FEED__READER_KIND_PREAD = 0, FEED__READER_KIND_URING = 1 };

/* want: FEED_READER_AUTO / URING / PREAD (feed.h). URING that cannot be had
 * falls back to pread too (the kind says so). Returns NULL on out of memory. */
feed__reader *feed__reader_create(uint32_t want);
void feed__reader_destroy(feed__reader *r); /* accepts NULL */
int feed__reader_kind(const feed__reader *r);

/*
 * Reads the whole file at path (relative to dirfd, as openat) into *buf,
 * growing *buf and *cap with realloc as needed (the reader owns nothing; the
 * caller frees *buf). Sets *len. Files over max_bytes fail with
 * FEED_E_TOO_LARGE without reading them. Returns 0 or a feed_status
 * (FEED_E_IO with *sys_errno set, FEED_E_TOO_LARGE, FEED_E_NOMEM) and a
 * message in msg.
 */
int feed__reader_read(feed__reader *r, int dirfd, const char *path, uint64_t max_bytes,
                      uint8_t **buf, size_t *cap, size_t *len, int *sys_errno, char *msg,
                      size_t msglen);

/*
 * Reads bytes [off, off + rlen) of the file at path (a member of a tar shard)
 * the same way: io_uring or pread, the same retries and messages. Exactly
 * rlen bytes or an error: FEED_E_IO naming the bytes when the file is shorter
 * (it changed since it was indexed), FEED_E_TOO_LARGE when rlen is over
 * max_bytes.
 */
int feed__reader_read_range(feed__reader *r, int dirfd, const char *path, uint64_t off, uint64_t rlen,
                            uint64_t max_bytes, uint8_t **buf, size_t *cap, size_t *len,
                            int *sys_errno, char *msg, size_t msglen);

/* len bytes at off of an open file (a .npy source's array) into buf, with
 * the retries and messages of feed__reader_read_range (pread: one file kept
 * open, no open per sample). */
int feed__reader_pread(int fd, uint8_t *buf, size_t len, uint64_t off, int *sys_errno, char *msg,
                       size_t msglen);

/* feed__reader_read tries a file this many times when the error is
 * transient (EIO, EAGAIN, ENOMEM, ENFILE, EMFILE, or out of memory for the
 * buffer), sleeping feed__reader_backoff between tries; the message of a
 * file that failed every try ends with " (3 tries)". */
#define FEED_READER_TRIES 3
/* Sleeps after failed try t (1-based): t * t ms. */
void feed__reader_backoff(int t);

/* "io_uring" or "pread" (the kind in use): a static string, for feed_stats.reader. */
const char *feed__reader_kind_name(const feed__reader *r);

/* ---- testing --------------------------------------------------------------- */

#include <sys/types.h>
struct stat;

/*
 * The system calls of the pread path, replaceable so tests can inject EINTR,
 * EIO and short reads (the io_uring path does not use them, except when it
 * falls back to pread for one file). They follow the libc calls' conventions
 * (-1 and errno). Replaceable in test builds (FEED_TEST_HOOKS) only; not
 * thread-safe.
 */
typedef struct feed__reader_syscalls {
    int (*openat)(int dirfd, const char *path, int flags, mode_t mode);
    ssize_t (*pread)(int fd, void *buf, size_t count, off_t offset);
    int (*fstat)(int fd, struct stat *st);
    int (*close)(int fd);
} feed__reader_syscalls;

#if FEED_TEST_HOOKS
/* Installs s (copied; NULL members keep the real call); NULL restores all. */
void feed__reader_test_syscalls(const feed__reader_syscalls *s);
/* Submits IORING_OP_OPENAT on r's ring as code that took over a worker could:
 * the result (a negative errno when the ring refuses it; -ENOSYS: no ring). */
int feed__reader_test_ring_openat(feed__reader *r, int dirfd, const char *path, int flags);
#endif

#endif /* FEED_READER_H */

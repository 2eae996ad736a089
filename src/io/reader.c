/*
 * reader.c - read whole files with io_uring where the kernel allows it, pread
 * otherwise.
 *
 * The pread path is openat, fstat, pread until end of file, close: four system
 * calls for a file that does not change while it is read. The io_uring path
 * is openat and fstat (system calls, see open_file), then one submission: the
 * read hard linked to the close (so the kernel closes the file whatever the
 * read returns). Anything unexpected
 * there (a short read, a file that changed size since fstat, EINTR/EAGAIN, a
 * file of 1 GiB or more) makes that one file go through the pread path from
 * scratch: the pread path handles every corner, the ring is only a faster
 * route for the common case. On cached files the copy dominates and the two
 * paths cost about the same (the ring saves system calls, not time); the win
 * is on cold storage with several files in flight, which this one-file-at-a-
 * time interface cannot express (the read-ahead thread does that instead).
 *
 * End of file: a read asks for at least one byte more than the size stat gave.
 * When it comes back short with the total exactly at that size, the file ended
 * there and no extra read is spent to see 0. The only way to be fooled is a
 * file that grows after stat *and* a short read that stops exactly at the old
 * size; such a file is read as it was at stat time.
 *
 * The ring itself (its restrictions, the read linked to the close) is
 * uring.c's; this file decides which path a file takes and checks what comes
 * back. A reader belongs to the process that created it (the ring is not
 * shared across fork) and to one thread at a time.
 */
#include "io/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/internal.h"
#include "io/uring.h"

/* One io_uring read covers files below this; larger ones use pread. */
#define READER_URING_MAX_READ (1u << 30)
/* pread may move at most this much per call (Linux caps at 0x7ffff000). */
#define READER_PREAD_MAX (1ull << 30)
/* O_NONBLOCK: opening a FIFO named in a file list must not block the worker
 * until the hang timeout (it is then refused as not a regular file); it has
 * no effect on regular files. */
#define READER_OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* read_uring's "do this file with pread" (never a feed_status) */
#define READ_FALLBACK (-1)

struct feed__reader {
    int kind;
    feed__uring ring; /* kind URING only */
};

/* ---- the replaceable system calls ------------------------------------------ */

static int sys_openat(int dirfd, const char *path, int flags, mode_t mode)
{
    return openat(dirfd, path, flags, mode);
}

#if FEED_TEST_HOOKS
static const feed__reader_syscalls real_calls = {sys_openat, pread, fstat, close};
static feed__reader_syscalls sys = {sys_openat, pread, fstat, close};

void feed__reader_test_syscalls(const feed__reader_syscalls *s)
{
    sys = real_calls;
    if (!s)
        return;
    if (s->openat)
        sys.openat = s->openat;
    if (s->pread)
        sys.pread = s->pread;
    if (s->fstat)
        sys.fstat = s->fstat;
    if (s->close)
        sys.close = s->close;
}
#else
static const feed__reader_syscalls sys = {sys_openat, pread, fstat, close};
#endif

/* ---- helpers ------------------------------------------------------------------ */

static int io_error(int e, const char *op, int *sys_errno, char *msg, size_t msglen)
{
    char b[128];
    if (sys_errno)
        *sys_errno = e;
    return feed__err(FEED_E_IO, msg, msglen, "%s: %s", op, strerror_r(e, b, sizeof b));
}

/* size: what stat said, or 0 for a file that grew past the limit while read. */
static int too_large(uint64_t size, uint64_t max_bytes, int *sys_errno, char *msg, size_t msglen)
{
    if (sys_errno)
        *sys_errno = 0;
    if (!size)
        return feed__err(FEED_E_TOO_LARGE, msg, msglen,
                         "file grew past the limit of %llu bytes (max_file_bytes) while being read",
                         (unsigned long long)max_bytes);
    return feed__err(FEED_E_TOO_LARGE, msg, msglen,
                     "file is %llu bytes, over the limit of %llu bytes (max_file_bytes)",
                     (unsigned long long)size, (unsigned long long)max_bytes);
}

/* Non-regular files are refused: a directory with EISDIR as read(2) would,
 * anything else (fifo, device, socket) with EINVAL. */
static int check_type(mode_t mode, int *sys_errno, char *msg, size_t msglen)
{
    if (S_ISREG(mode))
        return 0;
    if (S_ISDIR(mode))
        return io_error(EISDIR, "read", sys_errno, msg, msglen);
    if (sys_errno)
        *sys_errno = EINVAL;
    return feed__err(FEED_E_IO, msg, msglen, "read: not a regular file");
}

/* Makes *cap >= need (need >= 1), rounded up to a page, never over limit
 * unless need itself is. */
static int ensure_cap(uint8_t **buf, size_t *cap, uint64_t need, uint64_t limit, int *sys_errno,
                      char *msg, size_t msglen)
{
    if (*buf && *cap >= need)
        return 0;
    if (need > SIZE_MAX - 4096) {
        if (sys_errno)
            *sys_errno = ENOMEM;
        return feed__err(FEED_E_NOMEM, msg, msglen, "out of memory (%llu bytes)",
                         (unsigned long long)need);
    }
    uint64_t want = FEED_ALIGN_UP(need, 4096);
    if (want > limit && limit >= need)
        want = limit;
    uint8_t *p = feed__realloc(*buf, (size_t)want);
    if (!p) {
        if (sys_errno)
            *sys_errno = ENOMEM;
        return feed__err(FEED_E_NOMEM, msg, msglen, "out of memory (%llu bytes)",
                         (unsigned long long)want);
    }
    *buf = p;
    *cap = (size_t)want;
    return 0;
}

/* Opens path under dirfd to read it (EINTR retried). Returns 0 with *fd, or
 * a status as feed__reader_read. A system call on every path, never
 * IORING_OP_OPENAT: the worker's seccomp filter sees system calls only, so
 * the ring may not open anything (it is restricted to READ, CLOSE and NOP,
 * see feed__uring_init) and the filter checks the open's flags. */
static int open_file(int dirfd, const char *path, int *fd, int *sys_errno, char *msg, size_t msglen)
{
    do
        *fd = sys.openat(dirfd, path, READER_OPEN_FLAGS, 0);
    while (*fd < 0 && errno == EINTR);
    if (*fd < 0)
        return io_error(errno, "open", sys_errno, msg, msglen);
    return 0;
}

/* ---- the pread path ----------------------------------------------------------- */

static int read_fd(int fd, uint64_t max_bytes, uint8_t **buf, size_t *cap, size_t *len,
                   int *sys_errno, char *msg, size_t msglen)
{
    struct stat st;
    if (sys.fstat(fd, &st) < 0)
        return io_error(errno, "stat", sys_errno, msg, msglen);
    int rc = check_type(st.st_mode, sys_errno, msg, msglen);
    if (rc)
        return rc;
    uint64_t expect = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    if (expect > max_bytes)
        return too_large(expect, max_bytes, sys_errno, msg, msglen);
    /* Room for one byte more than the limit: reading it means over the limit. */
    uint64_t limit = max_bytes < UINT64_MAX ? max_bytes + 1 : max_bytes;
    rc = ensure_cap(buf, cap, expect + 1, limit, sys_errno, msg, msglen);
    if (rc)
        return rc;
    uint64_t total = 0;
    for (;;) {
        if (total == *cap) { /* the file grew past what stat said */
            if (total >= limit)
                return too_large(0, max_bytes, sys_errno, msg, msglen);
            uint64_t grow = total + total / 2;
            rc = ensure_cap(buf, cap, grow < limit ? grow : limit, limit, sys_errno, msg, msglen);
            if (rc)
                return rc;
        }
        size_t want = *cap - total;
        if (want > READER_PREAD_MAX)
            want = READER_PREAD_MAX;
        ssize_t n = sys.pread(fd, *buf + total, want, (off_t)total);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return io_error(errno, "read", sys_errno, msg, msglen);
        }
        if (n == 0)
            break;
        total += (uint64_t)n;
        if (total > max_bytes)
            return too_large(0, max_bytes, sys_errno, msg, msglen);
        if (total == expect && (size_t)n < want)
            break;
    }
    *len = (size_t)total;
    return 0;
}

static int read_pread(int dirfd, const char *path, uint64_t max_bytes, uint8_t **buf,
                      size_t *cap, size_t *len, int *sys_errno, char *msg, size_t msglen)
{
    int fd;
    int rc = open_file(dirfd, path, &fd, sys_errno, msg, msglen);
    if (rc)
        return rc;
    rc = read_fd(fd, max_bytes, buf, cap, len, sys_errno, msg, msglen);
    sys.close(fd); /* read-only: nothing to lose; never retried (Linux frees the fd anyway) */
    return rc;
}

/* ---- the io_uring path --------------------------------------------------------- */

/* Opens path (open_file) and fstats it for a read through the ring. fstat,
 * not IORING_OP_STATX: statx always goes through an io-wq thread, which made
 * the ring slower than pread when we measured it; through the syscall table,
 * so tests can lie about the size here too. Returns 0 with *fd and *st, a
 * status as feed__reader_read, or READ_FALLBACK (fstat failed: pread will
 * say why). */
static int uring_open(int dirfd, const char *path, int *fd, struct stat *st, int *sys_errno, char *msg,
                      size_t msglen)
{
    int rc = open_file(dirfd, path, fd, sys_errno, msg, msglen);
    if (rc)
        return rc;
    if (sys.fstat(*fd, st) < 0) {
        close(*fd);
        return READ_FALLBACK;
    }
    return 0;
}

/*
 * Reads want bytes at off of fd into buf through the ring, the close of fd
 * hard linked to it (feed__uring_read_close: fd is closed whatever happens).
 * Returns 0 with the bytes read in *n (maybe short), a status as
 * feed__reader_read, or READ_FALLBACK (the read was interrupted, or the ring
 * failed and is given up).
 */
static int uring_read_close(feed__reader *r, int fd, uint8_t *buf, unsigned want, uint64_t off, int *n,
                            int *sys_errno, char *msg, size_t msglen)
{
    if (feed__uring_read_close(&r->ring, fd, buf, want, off, n) != 0) {
        /* The ring failed under us (not a file's error): from now on use pread. */
        r->kind = FEED__READER_KIND_PREAD;
        return READ_FALLBACK;
    }
    if (*n < 0) {
        if (*n == -EINTR || *n == -EAGAIN || *n == -ECANCELED)
            return READ_FALLBACK;
        return io_error(-*n, "read", sys_errno, msg, msglen);
    }
    return 0;
}

/* Returns 0, a status as feed__reader_read, or READ_FALLBACK. */
static int read_uring(feed__reader *r, int dirfd, const char *path, uint64_t max_bytes,
                      uint8_t **buf, size_t *cap, size_t *len, int *sys_errno, char *msg,
                      size_t msglen)
{
    int fd;
    struct stat st;
    int rc = uring_open(dirfd, path, &fd, &st, sys_errno, msg, msglen);
    if (rc)
        return rc;
    uint64_t expect = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    rc = check_type(st.st_mode, sys_errno, msg, msglen);
    if (!rc && expect > max_bytes)
        rc = too_large(expect, max_bytes, sys_errno, msg, msglen);
    if (!rc && expect >= READER_URING_MAX_READ)
        rc = READ_FALLBACK;
    if (!rc) {
        uint64_t limit = max_bytes < UINT64_MAX ? max_bytes + 1 : max_bytes;
        rc = ensure_cap(buf, cap, expect + 1, limit, sys_errno, msg, msglen);
    }
    if (rc) {
        close(fd);
        return rc;
    }

    unsigned want = *cap < READER_URING_MAX_READ ? (unsigned)*cap : READER_URING_MAX_READ;
    int n;
    rc = uring_read_close(r, fd, *buf, want, 0, &n, sys_errno, msg, msglen);
    if (rc)
        return rc;
    if ((uint64_t)n == expect && (unsigned)n < want) {
        *len = (size_t)n;
        return 0;
    }
    return READ_FALLBACK; /* short read, or the file changed size: pread does it from scratch */
}

/* ---- byte ranges (members of tar shards) ------------------------------------------ */

/* fstat'ed fd: the checks a range needs. */
static int range_check(const struct stat *st, uint64_t off, uint64_t len, uint64_t max_bytes,
                       int *sys_errno, char *msg, size_t msglen)
{
    int rc = check_type(st->st_mode, sys_errno, msg, msglen);
    if (rc)
        return rc;
    if (len > max_bytes)
        return too_large(len, max_bytes, sys_errno, msg, msglen);
    uint64_t size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
    if (off > size || len > size - off) {
        if (sys_errno)
            *sys_errno = 0;
        return feed__err(FEED_E_IO, msg, msglen,
                         "bytes %llu..%llu are past the end of the file (%llu bytes): it changed "
                         "since it was indexed",
                         (unsigned long long)off, (unsigned long long)(off + len),
                         (unsigned long long)size);
    }
    return 0;
}

/* Exactly len bytes of fd at off into buf, or an error naming them (a file
 * that ends inside them changed since it was indexed). */
static int pread_all(int fd, uint8_t *buf, uint64_t len, uint64_t off, int *sys_errno, char *msg,
                     size_t msglen)
{
    uint64_t total = 0;
    while (total < len) {
        size_t want = len - total > READER_PREAD_MAX ? READER_PREAD_MAX : (size_t)(len - total);
        ssize_t n = sys.pread(fd, buf + total, want, (off_t)(off + total));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return io_error(errno, "read", sys_errno, msg, msglen);
        if (n == 0) {
            if (sys_errno)
                *sys_errno = 0;
            return feed__err(FEED_E_IO, msg, msglen,
                             "the file ended at byte %llu, inside bytes %llu..%llu: it changed since "
                             "it was indexed",
                             (unsigned long long)(off + total), (unsigned long long)off,
                             (unsigned long long)(off + len));
        }
        total += (uint64_t)n;
    }
    return 0;
}

static int range_pread(int dirfd, const char *path, uint64_t off, uint64_t len, uint64_t max_bytes,
                       uint8_t **buf, size_t *cap, size_t *got, int *sys_errno, char *msg, size_t msglen)
{
    int fd;
    int rc = open_file(dirfd, path, &fd, sys_errno, msg, msglen);
    if (rc)
        return rc;
    struct stat st;
    rc = sys.fstat(fd, &st) < 0 ? io_error(errno, "stat", sys_errno, msg, msglen) : 0;
    if (!rc)
        rc = range_check(&st, off, len, max_bytes, sys_errno, msg, msglen);
    if (!rc)
        rc = ensure_cap(buf, cap, len ? len : 1, len ? len : 1, sys_errno, msg, msglen);
    if (!rc)
        rc = pread_all(fd, *buf, len, off, sys_errno, msg, msglen);
    sys.close(fd);
    if (!rc)
        *got = (size_t)len;
    return rc;
}

/* As read_uring, for a range: one read at off, hard linked to the close. */
static int range_uring(feed__reader *r, int dirfd, const char *path, uint64_t off, uint64_t len,
                       uint64_t max_bytes, uint8_t **buf, size_t *cap, size_t *got, int *sys_errno,
                       char *msg, size_t msglen)
{
    int fd;
    struct stat st;
    int rc = uring_open(dirfd, path, &fd, &st, sys_errno, msg, msglen);
    if (rc)
        return rc;
    rc = range_check(&st, off, len, max_bytes, sys_errno, msg, msglen);
    if (!rc && (len >= READER_URING_MAX_READ || len == 0))
        rc = READ_FALLBACK;
    if (!rc)
        rc = ensure_cap(buf, cap, len, len, sys_errno, msg, msglen);
    if (rc) {
        close(fd);
        return rc;
    }
    int n;
    rc = uring_read_close(r, fd, *buf, (unsigned)len, off, &n, sys_errno, msg, msglen);
    if (rc)
        return rc;
    if ((uint64_t)n == len) {
        *got = (size_t)len;
        return 0;
    }
    return READ_FALLBACK; /* short or interrupted: pread does it from scratch */
}

/* ---- the interface ------------------------------------------------------------- */

/* Worth another try: the file may read fine in a moment. */
static int transient(int rc, int e)
{
    return rc == FEED_E_NOMEM ||
           (rc == FEED_E_IO && (e == EIO || e == EAGAIN || e == ENOMEM || e == ENFILE || e == EMFILE));
}

void feed__reader_backoff(int t)
{
    struct timespec ts = {0, (long)t * t * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int env_force_pread(void)
{
    const char *v = getenv("FEED_FORCE_PREAD");
    return v && *v && strcmp(v, "0") != 0;
}

#if FEED_TEST_HOOKS
int feed__reader_test_ring_openat(feed__reader *r, int dirfd, const char *path, int flags)
{
    if (r->kind != FEED__READER_KIND_URING)
        return -ENOSYS;
    return feed__uring_test_openat(&r->ring, dirfd, path, flags);
}
#endif

feed__reader *feed__reader_create(uint32_t want)
{
    feed__reader *r = feed__calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->kind = FEED__READER_KIND_PREAD;
    if (want != FEED_READER_PREAD && !env_force_pread() && feed__uring_init(&r->ring))
        r->kind = FEED__READER_KIND_URING;
    return r;
}

void feed__reader_destroy(feed__reader *r)
{
    if (!r)
        return;
    if (r->kind == FEED__READER_KIND_URING)
        feed__uring_exit(&r->ring);
    feed__free(r);
}

int feed__reader_kind(const feed__reader *r)
{
    return r->kind;
}

const char *feed__reader_kind_name(const feed__reader *r)
{
    return r->kind == FEED__READER_KIND_URING ? "io_uring" : "pread";
}

/* The retry loop of both: whole file (ranged = 0) or [off, off + rlen). */
static int read_any(feed__reader *r, int dirfd, const char *path, int ranged, uint64_t off,
                    uint64_t rlen, uint64_t max_bytes, uint8_t **buf, size_t *cap, size_t *len,
                    int *sys_errno, char *msg, size_t msglen)
{
    int e = 0, rc = 0;
    if (!sys_errno)
        sys_errno = &e;
    for (int t = 1;; t++) {
        *len = 0;
        *sys_errno = 0;
        if (msg && msglen)
            msg[0] = '\0';
        rc = READ_FALLBACK;
        if (r->kind == FEED__READER_KIND_URING)
            rc = ranged ? range_uring(r, dirfd, path, off, rlen, max_bytes, buf, cap, len, sys_errno,
                                      msg, msglen)
                        : read_uring(r, dirfd, path, max_bytes, buf, cap, len, sys_errno, msg, msglen);
        if (rc == READ_FALLBACK)
            rc = ranged ? range_pread(dirfd, path, off, rlen, max_bytes, buf, cap, len, sys_errno, msg,
                                      msglen)
                        : read_pread(dirfd, path, max_bytes, buf, cap, len, sys_errno, msg, msglen);
        if (!rc || !transient(rc, *sys_errno))
            break;
        if (t == FEED_READER_TRIES) {
            size_t n = msg ? strlen(msg) : 0;
            if (msg && n + 1 < msglen)
                snprintf(msg + n, msglen - n, " (%d tries)", t);
            break;
        }
        feed__reader_backoff(t);
    }
    if (rc)
        *len = 0;
    return rc;
}

int feed__reader_pread(int fd, uint8_t *buf, size_t len, uint64_t off, int *sys_errno, char *msg,
                       size_t msglen)
{
    int e = 0, rc = 0;
    if (!sys_errno)
        sys_errno = &e;
    for (int t = 1;; t++) {
        *sys_errno = 0;
        rc = pread_all(fd, buf, len, off, sys_errno, msg, msglen);
        if (!rc || !transient(rc, *sys_errno))
            return rc;
        if (t == FEED_READER_TRIES) {
            size_t n = msg ? strlen(msg) : 0;
            if (msg && n + 1 < msglen)
                snprintf(msg + n, msglen - n, " (%d tries)", t);
            return rc;
        }
        feed__reader_backoff(t);
    }
}

int feed__reader_read(feed__reader *r, int dirfd, const char *path, uint64_t max_bytes,
                      uint8_t **buf, size_t *cap, size_t *len, int *sys_errno, char *msg,
                      size_t msglen)
{
    return read_any(r, dirfd, path, 0, 0, 0, max_bytes, buf, cap, len, sys_errno, msg, msglen);
}

int feed__reader_read_range(feed__reader *r, int dirfd, const char *path, uint64_t off, uint64_t rlen,
                            uint64_t max_bytes, uint8_t **buf, size_t *cap, size_t *len,
                            int *sys_errno, char *msg, size_t msglen)
{
    return read_any(r, dirfd, path, 1, off, rlen, max_bytes, buf, cap, len, sys_errno, msg, msglen);
}

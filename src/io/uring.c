/*
 * uring.c - the reader's io_uring (uring.h): a small ring, restricted before
 * its first use, and the one thing reader.c asks of it, a read hard linked to
 * the close of its file.
 */
#include "io/uring.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { UD_OPEN = 1, UD_READ, UD_CLOSE };

#define RES_NONE INT32_MIN /* no completion came for this op */

/*
 * Submits the n queued ops and waits for the completions of those submitted,
 * storing each result by user_data (RES_NONE where none came). Returns how
 * many were submitted; *err is a negative errno if the ring itself failed
 * (then the caller gives the ring up: what is left in it is discarded).
 */
static int uring_run(struct io_uring *ring, int n, int res[4], int *err)
{
    for (int i = 0; i < 4; i++)
        res[i] = RES_NONE;
    *err = 0;
    int s;
    do
        s = io_uring_submit(ring);
    while (s == -EINTR);
    if (s < 0) {
        *err = s;
        return 0;
    }
    for (int i = 0; i < s; i++) {
        struct io_uring_cqe *cqe;
        int e;
        do
            e = io_uring_wait_cqe(ring, &cqe);
        while (e == -EINTR);
        if (e < 0) {
            *err = e;
            return s;
        }
        uint64_t ud = io_uring_cqe_get_data64(cqe);
        if (ud >= UD_OPEN && ud <= UD_CLOSE)
            res[ud] = cqe->res;
        io_uring_cqe_seen(ring, cqe);
    }
    if (s < n)
        *err = -EAGAIN;
    return s;
}

/* io_uring_register(2) itself: Debian's liburing 2.3 declares
 * io_uring_register_restrictions() and io_uring_enable_rings() but its
 * shared library does not export them. */
static int uring_register(struct io_uring *ring, unsigned op, void *arg, unsigned n)
{
    return syscall(__NR_io_uring_register, ring->ring_fd, op, arg, n) < 0 ? -errno : 0;
}

int feed__uring_init(feed__uring *u)
{
    /* Created disabled, so that it can be restricted before its first use:
     * READ, CLOSE and NOP only, with no register operation at all. Code that
     * took over a worker then cannot open, write, connect or do anything else
     * through the ring, which seccomp would not see. No restrictions (a
     * kernel before 5.10): no ring; pread is as fast on cached files. */
    if (io_uring_queue_init(8, &u->ring, IORING_SETUP_R_DISABLED) < 0)
        return 0; /* ENOSYS (seccomp, gVisor), EPERM (io_uring_disabled), ENOMEM (memlock), EINVAL (old) */
    int ok = 0;
    struct io_uring_probe *p = io_uring_get_probe_ring(&u->ring);
    if (p) {
        ok = io_uring_opcode_supported(p, IORING_OP_READ) &&
             io_uring_opcode_supported(p, IORING_OP_CLOSE);
        io_uring_free_probe(p);
    }
    if (ok) {
        struct io_uring_restriction rs[4];
        memset(rs, 0, sizeof rs);
        rs[0].opcode = IORING_RESTRICTION_SQE_OP, rs[0].sqe_op = IORING_OP_READ;
        rs[1].opcode = IORING_RESTRICTION_SQE_OP, rs[1].sqe_op = IORING_OP_CLOSE;
        rs[2].opcode = IORING_RESTRICTION_SQE_OP, rs[2].sqe_op = IORING_OP_NOP;
        rs[3].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED, rs[3].sqe_flags = IOSQE_IO_HARDLINK;
        ok = uring_register(&u->ring, IORING_REGISTER_RESTRICTIONS, rs, 4) == 0 &&
             uring_register(&u->ring, IORING_REGISTER_ENABLE_RINGS, NULL, 0) == 0;
    }
    if (ok) { /* a round trip through the ring, in case a sandbox lets setup pass only */
        struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
        io_uring_prep_nop(sqe);
        io_uring_sqe_set_data64(sqe, UD_OPEN);
        int res[4], err;
        ok = uring_run(&u->ring, 1, res, &err) == 1 && !err && res[UD_OPEN] == 0;
    }
    if (!ok)
        io_uring_queue_exit(&u->ring);
    return ok;
}

void feed__uring_exit(feed__uring *u)
{
    io_uring_queue_exit(&u->ring);
}

int feed__uring_read_close(feed__uring *u, int fd, uint8_t *buf, unsigned want, uint64_t off, int *n)
{
    struct io_uring *ring = &u->ring;
    int res[4], err;
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    io_uring_prep_read(sqe, fd, buf, want, off);
    io_uring_sqe_set_data64(sqe, UD_READ);
    sqe->flags |= IOSQE_IO_HARDLINK;
    sqe = io_uring_get_sqe(ring);
    io_uring_prep_close(sqe, fd);
    io_uring_sqe_set_data64(sqe, UD_CLOSE);
    int submitted = uring_run(ring, 2, res, &err);
    if (err) {
        /* Close it here only when the ring surely will not: nothing went in,
         * or the read completed and the close never went in. Otherwise leak
         * the fd rather than risk closing a number that was reused. */
        if (submitted == 0 || (submitted == 1 && res[UD_READ] != RES_NONE))
            close(fd);
        io_uring_queue_exit(ring);
        return -1;
    }
    if (res[UD_CLOSE] == -ECANCELED) /* never ran: the fd is still open */
        close(fd);
    *n = res[UD_READ];
    return 0;
}

#if FEED_TEST_HOOKS
int feed__uring_test_openat(feed__uring *u, int dirfd, const char *path, int flags)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    io_uring_prep_openat(sqe, dirfd, path, flags, 0600);
    io_uring_sqe_set_data64(sqe, UD_OPEN);
    int res[4], err;
    if (uring_run(&u->ring, 1, res, &err) != 1 || err)
        return err ? err : -EIO;
    return res[UD_OPEN];
}
#endif

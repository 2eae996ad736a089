/*
 * test_reader.c - the file reader (src/io/reader.c): both kinds, byte for byte,
 * limits, errors, and faults injected through the syscall table.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "feed.h"
#include "io/reader.h"

/* ---- fixture: a temp dir with files of awkward sizes ------------------------ */

static const size_t sizes[] = {0, 1, 4095, 4096, 4097, (1u << 20) + 3};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static char tmpdir[4096];
/* FEED_FORCE_PREAD as the suite was started with (the whole suite may be
 * rerun with it set: the io_uring cases then skip). */
static char force_env[16];
static int force_set;

static int dirfd_ = -1;
static uint8_t *content[NSIZES];
static char names[NSIZES][32];

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void write_file(const char *name, const uint8_t *p, size_t n)
{
    int fd = openat(dirfd_, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, p + off, n - off);
        assert_true(w > 0);
        off += (size_t)w;
    }
    assert_int_equal(close(fd), 0);
}

static int group_setup(void **state)
{
    const char *force = getenv("FEED_FORCE_PREAD");
    if ((force_set = force != NULL))
        snprintf(force_env, sizeof force_env, "%s", force);
    const char *base = getenv("FEED_TEST_TMP");
    if (!base || !*base)
        base = "/tmp";
    mkdir(base, 0755); /* CTest's testtmp may not exist yet */
    snprintf(tmpdir, sizeof tmpdir, "%s/reader.XXXXXX", base);
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "mkdtemp %s: %s\n", tmpdir, strerror(errno));
        return -1;
    }
    dirfd_ = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd_ < 0)
        return -1;
    uint64_t seed = 12345;
    for (size_t i = 0; i < NSIZES; i++) {
        content[i] = malloc(sizes[i] + 1);
        for (size_t j = 0; j < sizes[i]; j++)
            content[i][j] = (uint8_t)(splitmix(&seed) >> 56);
        snprintf(names[i], sizeof names[i], "f%zu.bin", sizes[i]);
        write_file(names[i], content[i], sizes[i]);
    }
    if (mkdirat(dirfd_, "adir", 0755) < 0)
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    for (size_t i = 0; i < NSIZES; i++) {
        unlinkat(dirfd_, names[i], 0);
        free(content[i]);
    }
    unlinkat(dirfd_, "adir", AT_REMOVEDIR);
    close(dirfd_);
    if (rmdir(tmpdir) < 0)
        fprintf(stderr, "rmdir %s: %s\n", tmpdir, strerror(errno));
    return 0;
}

/* ---- fault injection ----------------------------------------------------------- */

static struct {
    int n_open, n_close, n_pread, n_fstat;
    int open_eintr;     /* openat fails with EINTR this many times first */
    int open_errno;     /* openat fails with this */
    int pread_eintr;    /* every other pread fails with EINTR */
    size_t pread_short; /* pread moves at most this many bytes (0: no cap) */
    int pread_fail_at;  /* pread call number (1-based) that fails ... */
    int pread_errno;    /* ... with this errno */
    int pread_fail_all; /* every pread fails with pread_errno */
    int fstat_errno;
    long long fstat_delta; /* added to st_size */
    int fstat_set;         /* if set, st_size = fstat_size */
    long long fstat_size;
} inj;

static int f_openat(int dirfd, const char *path, int flags, mode_t mode)
{
    inj.n_open++;
    if (inj.open_eintr > 0) {
        inj.open_eintr--;
        errno = EINTR;
        return -1;
    }
    if (inj.open_errno) {
        errno = inj.open_errno;
        return -1;
    }
    return openat(dirfd, path, flags, mode);
}

static ssize_t f_pread(int fd, void *buf, size_t count, off_t off)
{
    inj.n_pread++;
    if (inj.pread_fail_all || (inj.pread_fail_at && inj.n_pread == inj.pread_fail_at)) {
        errno = inj.pread_errno;
        return -1;
    }
    if (inj.pread_eintr && (inj.n_pread & 1)) {
        errno = EINTR;
        return -1;
    }
    if (inj.pread_short && count > inj.pread_short)
        count = inj.pread_short;
    return pread(fd, buf, count, off);
}

static int f_fstat(int fd, struct stat *st)
{
    inj.n_fstat++;
    if (inj.fstat_errno) {
        errno = inj.fstat_errno;
        return -1;
    }
    int rc = fstat(fd, st);
    if (rc == 0) {
        if (inj.fstat_set)
            st->st_size = inj.fstat_size;
        st->st_size += inj.fstat_delta;
    }
    return rc;
}

static int f_close(int fd)
{
    inj.n_close++;
    return close(fd);
}

static void inject(void)
{
    static const feed__reader_syscalls s = {f_openat, f_pread, f_fstat, f_close};
    feed__reader_test_syscalls(&s);
}

static void restore_force_env(void)
{
    if (force_set)
        setenv("FEED_FORCE_PREAD", force_env, 1);
    else
        unsetenv("FEED_FORCE_PREAD");
}

static int test_setup(void **state)
{
    memset(&inj, 0, sizeof inj);
    return 0;
}

static int test_teardown(void **state)
{
    feed__reader_test_syscalls(NULL);
    restore_force_env();
    return 0;
}

/* ---- helpers ---------------------------------------------------------------------- */

/* A reader of the kind asked for, or skip() if io_uring is asked and absent. */
static feed__reader *make_reader(int kind)
{
    feed__reader *r =
        feed__reader_create(kind == FEED__READER_KIND_URING ? FEED_READER_URING : FEED_READER_PREAD);
    assert_non_null(r);
    if (feed__reader_kind(r) != kind) {
        feed__reader_destroy(r);
        if (getenv("FEED_FORCE_PREAD"))
            fprintf(stderr, "FEED_FORCE_PREAD is set: skipping the io_uring case\n");
        else
            fprintf(stderr, "io_uring is not available here (seccomp, kernel.io_uring_disabled, "
                            "old kernel or sandbox): skipping the io_uring case\n");
        skip();
    }
    return r;
}

/* Reads every fixture file into one reused buffer and compares every byte. */
static void read_all_sizes(feed__reader *r)
{
    uint8_t *buf = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < NSIZES; i++) {
        size_t len = 12345;
        int err = -1;
        char msg[256] = "x";
        int rc = feed__reader_read(r, dirfd_, names[i], UINT64_MAX, &buf, &cap, &len, &err, msg,
                                   sizeof msg);
        assert_int_equal(rc, FEED_OK);
        assert_int_equal(err, 0);
        assert_string_equal(msg, "");
        assert_int_equal(len, sizes[i]);
        assert_non_null(buf);
        assert_true(cap >= len);
        if (len)
            assert_memory_equal(buf, content[i], len);
    }
    free(buf);
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static size_t find_size(size_t want)
{
    for (size_t i = 0; i < NSIZES; i++)
        if (sizes[i] == want)
            return i;
    fail();
    return 0;
}

/* ---- tests: both kinds -------------------------------------------------------------- */

static void sizes_kind(int kind)
{
    feed__reader *r = make_reader(kind);
    inject(); /* only counts here */
    read_all_sizes(r);
    if (kind == FEED__READER_KIND_URING) {
        /* the open is a system call (seccomp sees it), the read the ring's: no pread fallback */
        assert_int_equal(inj.n_open, (int)NSIZES);
        assert_int_equal(inj.n_pread, 0);
        assert_int_equal(inj.n_fstat, (int)NSIZES);
    }
    else
        assert_int_equal(inj.n_pread, (int)NSIZES); /* one pread per file: EOF seen by size */
    /* and again, in reverse, with a fresh buffer each time */
    for (size_t k = NSIZES; k-- > 0;) {
        uint8_t *buf = NULL;
        size_t cap = 0, len = 0;
        assert_int_equal(feed__reader_read(r, dirfd_, names[k], sizes[k], &buf, &cap, &len, NULL,
                                           NULL, 0),
                         FEED_OK);
        assert_int_equal(len, sizes[k]);
        if (len)
            assert_memory_equal(buf, content[k], len);
        free(buf);
    }
    feed__reader_destroy(r);
}
static void test_sizes_pread(void **state) { sizes_kind(FEED__READER_KIND_PREAD); }
static void test_sizes_uring(void **state) { sizes_kind(FEED__READER_KIND_URING); }

static void limit_kind(int kind)
{
    feed__reader *r = make_reader(kind);
    if (kind == FEED__READER_KIND_PREAD)
        inject();
    uint8_t *buf = NULL;
    size_t cap = 0, len = 99;
    int err = -1;
    char msg[256];
    size_t i = find_size(4097);
    int rc = feed__reader_read(r, dirfd_, names[i], 4096, &buf, &cap, &len, &err, msg, sizeof msg);
    assert_int_equal(rc, FEED_E_TOO_LARGE);
    assert_int_equal(len, 0);
    assert_int_equal(err, 0);
    assert_non_null(strstr(msg, "4097"));
    assert_non_null(strstr(msg, "4096"));
    if (kind == FEED__READER_KIND_PREAD) {
        assert_int_equal(inj.n_pread, 0); /* refused without reading */
        assert_int_equal(inj.n_close, inj.n_open);
        assert_null(buf); /* nor allocating */
    }
    /* exactly at the limit is fine */
    rc = feed__reader_read(r, dirfd_, names[i], 4097, &buf, &cap, &len, &err, msg, sizeof msg);
    assert_int_equal(rc, FEED_OK);
    assert_int_equal(len, 4097);
    assert_memory_equal(buf, content[i], 4097);
    /* an empty file passes a limit of 0; one byte does not */
    rc = feed__reader_read(r, dirfd_, names[find_size(0)], 0, &buf, &cap, &len, &err, msg,
                           sizeof msg);
    assert_int_equal(rc, FEED_OK);
    assert_int_equal(len, 0);
    rc = feed__reader_read(r, dirfd_, names[find_size(1)], 0, &buf, &cap, &len, &err, msg,
                           sizeof msg);
    assert_int_equal(rc, FEED_E_TOO_LARGE);
    free(buf);
    feed__reader_destroy(r);
}
static void test_limit_pread(void **state) { limit_kind(FEED__READER_KIND_PREAD); }
static void test_limit_uring(void **state) { limit_kind(FEED__READER_KIND_URING); }

static void errors_kind(int kind)
{
    feed__reader *r = make_reader(kind);
    uint8_t *buf = NULL;
    size_t cap = 0, len = 99;
    int err = 0;
    char msg[256], want[256];

    int rc = feed__reader_read(r, dirfd_, "no/such/file.jpg", UINT64_MAX, &buf, &cap, &len, &err,
                               msg, sizeof msg);
    assert_int_equal(rc, FEED_E_IO);
    assert_int_equal(err, ENOENT);
    assert_int_equal(len, 0);
    snprintf(want, sizeof want, "open: %s", strerror(ENOENT));
    assert_string_equal(msg, want);

    rc = feed__reader_read(r, dirfd_, "adir", UINT64_MAX, &buf, &cap, &len, &err, msg, sizeof msg);
    assert_int_equal(rc, FEED_E_IO);
    assert_int_equal(err, EISDIR);
    snprintf(want, sizeof want, "read: %s", strerror(EISDIR));
    assert_string_equal(msg, want);

    /* a FIFO (in a file list, say) is refused at once, without blocking */
    assert_int_equal(mkfifoat(dirfd_, "afifo", 0600), 0);
    rc = feed__reader_read(r, dirfd_, "afifo", UINT64_MAX, &buf, &cap, &len, &err, msg, sizeof msg);
    assert_int_equal(rc, FEED_E_IO);
    assert_int_equal(err, EINVAL);
    unlinkat(dirfd_, "afifo", 0);

    /* a small msg buffer is truncated, not overrun; NULL msg and errno are fine */
    char tiny[6] = "zzzzz";
    rc = feed__reader_read(r, dirfd_, "missing", UINT64_MAX, &buf, &cap, &len, &err, tiny, 5);
    assert_int_equal(rc, FEED_E_IO);
    assert_string_equal(tiny, "open");
    assert_int_equal(tiny[5], 0);
    rc = feed__reader_read(r, dirfd_, "missing", UINT64_MAX, &buf, &cap, &len, NULL, NULL, 0);
    assert_int_equal(rc, FEED_E_IO);

    /* an absolute path ignores dirfd */
    char abs[sizeof tmpdir + 40];
    snprintf(abs, sizeof abs, "%.4095s/%.31s", tmpdir, names[find_size(4095)]);
    rc = feed__reader_read(r, -1, abs, UINT64_MAX, &buf, &cap, &len, &err, msg, sizeof msg);
    assert_int_equal(rc, FEED_OK);
    assert_int_equal(len, 4095);
    assert_memory_equal(buf, content[find_size(4095)], 4095);
    free(buf);
    feed__reader_destroy(r);
}
static void test_errors_pread(void **state) { errors_kind(FEED__READER_KIND_PREAD); }
static void test_errors_uring(void **state) { errors_kind(FEED__READER_KIND_URING); }

/* procfs files say size 0 and are not empty: the stat size is wrong, so the
 * io_uring path must hand the file to pread, and pread must read to EOF. */
static void procfs_kind(int kind)
{
    feed__reader *r = make_reader(kind);
    FILE *f = fopen("/proc/self/cmdline", "rb");
    assert_non_null(f);
    char ref[8192];
    size_t nref = fread(ref, 1, sizeof ref, f);
    fclose(f);
    assert_true(nref > 0);
    struct stat st;
    assert_int_equal(stat("/proc/self/cmdline", &st), 0);
    assert_int_equal(st.st_size, 0);

    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    inject(); /* counts only */
    int rc = feed__reader_read(r, AT_FDCWD, "/proc/self/cmdline", UINT64_MAX, &buf, &cap, &len,
                               NULL, NULL, 0);
    assert_int_equal(rc, FEED_OK);
    /* io_uring handed it to pread, which starts from scratch: the ring's own
     * open (a system call) and pread's */
    assert_int_equal(inj.n_open, kind == FEED__READER_KIND_URING ? 2 : 1);
    assert_int_equal(inj.n_close, 1);
    assert_true(inj.n_pread >= 1);
    assert_int_equal(len, nref);
    assert_memory_equal(buf, ref, nref);
    free(buf);
    feed__reader_destroy(r);
}
/* The ring may read and close, nothing else: an OPENAT submitted on it (as
 * code that took over a worker could, out of seccomp's sight) is refused and
 * creates nothing. */
static void test_ring_restricted(void **state)
{
    feed__reader *r = make_reader(FEED__READER_KIND_URING);
    int rc = feed__reader_test_ring_openat(r, dirfd_, "ring-made", O_WRONLY | O_CREAT | O_TRUNC);
    if (rc >= 0)
        close(rc);
    assert_int_equal(rc, -EACCES);
    assert_int_equal(faccessat(dirfd_, "ring-made", F_OK, 0), -1);
    assert_int_equal(errno, ENOENT);
    /* and it still reads */
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    assert_int_equal(feed__reader_read(r, dirfd_, names[1], UINT64_MAX, &buf, &cap, &len, NULL, NULL, 0),
                     FEED_OK);
    assert_int_equal(len, sizes[1]);
    assert_memory_equal(buf, content[1], len);
    free(buf);
    feed__reader_destroy(r);
}

static void test_procfs_pread(void **state) { procfs_kind(FEED__READER_KIND_PREAD); }
static void test_procfs_uring(void **state) { procfs_kind(FEED__READER_KIND_URING); }

static void reuse_kind(int kind)
{
    feed__reader *r = make_reader(kind);
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    const size_t order[] = {1, 4096, 0, (1u << 20) + 3, 4097, 1, 4095};
    size_t last_cap = 0;
    uint8_t *last_buf = NULL;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        size_t i = find_size(order[k]);
        int rc = feed__reader_read(r, dirfd_, names[i], UINT64_MAX, &buf, &cap, &len, NULL,
                                   NULL, 0);
        assert_int_equal(rc, FEED_OK);
        assert_int_equal(len, sizes[i]);
        if (len)
            assert_memory_equal(buf, content[i], len);
        assert_true(cap >= last_cap); /* never shrinks */
        assert_true(cap > len);       /* room for the EOF probe byte */
        if (last_buf && last_cap > sizes[i])
            assert_ptr_equal(buf, last_buf); /* big enough: no realloc */
        last_cap = cap;
        last_buf = buf;
    }
    assert_true(cap >= sizes[find_size((1u << 20) + 3)]);
    free(buf); /* the caller owns it; ASan's leak check sees the rest */
    feed__reader_destroy(r);
}
static void test_reuse_pread(void **state) { reuse_kind(FEED__READER_KIND_PREAD); }
static void test_reuse_uring(void **state) { reuse_kind(FEED__READER_KIND_URING); }

static void fds_kind(int kind)
{
    int before = count_fds();
    feed__reader *r = make_reader(kind);
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    for (int k = 0; k < 50; k++) {
        for (size_t i = 0; i < NSIZES; i++)
            assert_int_equal(feed__reader_read(r, dirfd_, names[i], 5000, &buf, &cap, &len, NULL,
                                               NULL, 0),
                             sizes[i] > 5000 ? FEED_E_TOO_LARGE : FEED_OK);
        assert_int_equal(feed__reader_read(r, dirfd_, "adir", 5000, &buf, &cap, &len, NULL, NULL,
                                           0),
                         FEED_E_IO);
        assert_int_equal(feed__reader_read(r, dirfd_, "nope", 5000, &buf, &cap, &len, NULL, NULL,
                                           0),
                         FEED_E_IO);
    }
    free(buf);
    feed__reader_destroy(r);
    assert_int_equal(count_fds(), before); /* includes the ring's own fd */
}
static void test_fds_pread(void **state) { fds_kind(FEED__READER_KIND_PREAD); }
static void test_fds_uring(void **state) { fds_kind(FEED__READER_KIND_URING); }

/* ---- tests: kind selection -------------------------------------------------------------- */

static void test_force_pread(void **state)
{
    unsetenv("FEED_FORCE_PREAD");
    feed__reader *r = feed__reader_create(FEED_READER_PREAD);
    assert_int_equal(feed__reader_kind(r), FEED__READER_KIND_PREAD);
    assert_string_equal(feed__reader_kind_name(r), "pread");
    feed__reader_destroy(r);

    feed__reader *a = feed__reader_create(FEED_READER_AUTO);
    feed__reader *u = feed__reader_create(FEED_READER_URING);
    assert_int_equal(feed__reader_kind(a), feed__reader_kind(u)); /* same probe */
    assert_string_equal(feed__reader_kind_name(a),
                        feed__reader_kind(a) == FEED__READER_KIND_URING ? "io_uring" : "pread");
    fprintf(stderr, "reader kind here: %s\n", feed__reader_kind_name(a));
    feed__reader_destroy(a);
    feed__reader_destroy(u);

    setenv("FEED_FORCE_PREAD", "1", 1);
    a = feed__reader_create(FEED_READER_AUTO);
    u = feed__reader_create(FEED_READER_URING);
    assert_int_equal(feed__reader_kind(a), FEED__READER_KIND_PREAD);
    assert_int_equal(feed__reader_kind(u), FEED__READER_KIND_PREAD);
    read_all_sizes(a);
    feed__reader_destroy(a);
    feed__reader_destroy(u);
    feed__reader_destroy(NULL);
}

/* io_uring refused the way Docker's seccomp profile (ENOSYS) or
 * kernel.io_uring_disabled (EPERM) refuse it: the reader falls back quietly. */
static void test_uring_refused(void **state)
{
    const int errs[] = {ENOSYS, EPERM};
    for (size_t k = 0; k < 2; k++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)errs[k] & SECCOMP_RET_DATA)),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            };
            struct sock_fprog prog = {sizeof f / sizeof f[0], f};
            if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
                _exit(77);
            feed__reader *r = feed__reader_create(FEED_READER_URING);
            if (!r || feed__reader_kind(r) != FEED__READER_KIND_PREAD)
                _exit(1);
            uint8_t *buf = NULL;
            size_t cap = 0, len = 0;
            size_t i = NSIZES - 1;
            if (feed__reader_read(r, dirfd_, names[i], UINT64_MAX, &buf, &cap, &len, NULL, NULL,
                                  0) != FEED_OK ||
                len != sizes[i] || memcmp(buf, content[i], len) != 0)
                _exit(2);
            free(buf);
            feed__reader_destroy(r);
            _exit(0);
        }
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st));
        if (WEXITSTATUS(st) == 77) {
            fprintf(stderr, "cannot install a seccomp filter here: skipping\n");
            skip();
        }
        assert_int_equal(WEXITSTATUS(st), 0);
    }
}

/* ---- tests: the pread path under injected faults ---------------------------------------- */

static void test_eintr(void **state)
{
    inject();
    inj.pread_eintr = 1;
    inj.open_eintr = 1 << 30; /* reset per file below */
    feed__reader *r = make_reader(FEED__READER_KIND_PREAD);
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    for (size_t i = 0; i < NSIZES; i++) {
        inj.open_eintr = 2;
        int rc = feed__reader_read(r, dirfd_, names[i], UINT64_MAX, &buf, &cap, &len, NULL,
                                   NULL, 0);
        assert_int_equal(rc, FEED_OK);
        assert_int_equal(len, sizes[i]);
        if (len)
            assert_memory_equal(buf, content[i], len);
    }
    assert_int_equal(inj.n_open, 3 * (int)NSIZES);
    assert_int_equal(inj.n_close, (int)NSIZES);
    assert_true(inj.n_pread >= 2 * (int)NSIZES); /* every other call was an EINTR */
    free(buf);
    feed__reader_destroy(r);
}

static void test_short_reads(void **state)
{
    inject();
    feed__reader *r = make_reader(FEED__READER_KIND_PREAD);
    const size_t caps[] = {1, 7, 1000, 4095, 65537};
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        for (size_t i = 0; i < NSIZES; i++) {
            if (caps[c] < 100 && sizes[i] > 5000)
                continue; /* a million 1-byte reads prove nothing more */
            inj.pread_short = caps[c];
            inj.pread_eintr = (c & 1);
            inj.n_pread = 0;
            int rc = feed__reader_read(r, dirfd_, names[i], UINT64_MAX, &buf, &cap, &len, NULL,
                                       NULL, 0);
            assert_int_equal(rc, FEED_OK);
            assert_int_equal(len, sizes[i]);
            if (len)
                assert_memory_equal(buf, content[i], len);
            assert_true(inj.n_pread >= (int)(sizes[i] / caps[c]));
        }
    }
    assert_int_equal(inj.n_close, inj.n_open);
    free(buf);
    feed__reader_destroy(r);
}

/* Which read errors are tried again (README: "in these cases only"): EIO,
 * EAGAIN, ENOMEM, ENFILE, EMFILE may pass in a moment; any other (NFS's
 * ESTALE, ETIMEDOUT) makes the sample bad at the first try. */
static void test_which_errors_retried(void **state)
{
    inject();
    feed__reader *r = make_reader(FEED__READER_KIND_PREAD);
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    int err = 0;
    char msg[256];
    size_t big = find_size((1u << 20) + 3);
    const int again[] = {EIO, EAGAIN, ENOMEM, ENFILE, EMFILE}, once[] = {ESTALE, ETIMEDOUT, EACCES, EINVAL};
    for (size_t i = 0; i < sizeof again / sizeof again[0]; i++) {
        memset(&inj, 0, sizeof inj);
        inj.pread_fail_at = 1;
        inj.pread_errno = again[i];
        int rc = feed__reader_read(r, dirfd_, names[big], UINT64_MAX, &buf, &cap, &len, &err, msg, sizeof msg);
        if (rc != FEED_OK)
            fail_msg("%s once, then fine: %s: %s", strerror(again[i]), feed_status_name(rc), msg);
        assert_int_equal(len, sizes[big]);
        assert_memory_equal(buf, content[big], len);
        assert_int_equal(inj.n_open, 2); /* read again from scratch */
    }
    for (size_t i = 0; i < sizeof once / sizeof once[0]; i++) {
        memset(&inj, 0, sizeof inj);
        inj.pread_fail_all = 1;
        inj.pread_errno = once[i];
        int rc = feed__reader_read(r, dirfd_, names[big], UINT64_MAX, &buf, &cap, &len, &err, msg, sizeof msg);
        assert_int_equal(rc, FEED_E_IO);
        assert_int_equal(err, once[i]);
        if (inj.n_pread != 1)
            fail_msg("%s: %d reads, want 1", strerror(once[i]), inj.n_pread);
    }
    free(buf);
    feed__reader_destroy(r);
}

static void test_eio(void **state)
{
    inject();
    feed__reader *r = make_reader(FEED__READER_KIND_PREAD);
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    int err = 0;
    char msg[256], want[256];
    size_t big = find_size((1u << 20) + 3);
    /* A transient EIO (first read, a later one, one after EINTR): the file
     * is read again from scratch, and right. */
    for (int at = 1; at <= 3; at++) {
        memset(&inj, 0, sizeof inj);
        inj.pread_short = 100000;
        inj.pread_eintr = (at == 3);
        inj.pread_fail_at = at == 3 ? 4 : at;
        inj.pread_errno = EIO;
        int rc = feed__reader_read(r, dirfd_, names[big], UINT64_MAX, &buf, &cap, &len, &err, msg,
                                   sizeof msg);
        if (rc != FEED_OK)
            fail_msg("EIO at pread %d, then fine: %s: %s", inj.pread_fail_at, feed_status_name(rc), msg);
        assert_int_equal(err, 0);
        assert_int_equal(len, sizes[big]);
        assert_memory_equal(buf, content[big], len);
        assert_int_equal(inj.n_open, 2);
        assert_int_equal(inj.n_close, 2);
    }
    /* EIO every time: FEED_READER_TRIES tries, then the error. */
    memset(&inj, 0, sizeof inj);
    inj.pread_fail_all = 1;
    inj.pread_errno = EIO;
    int rc = feed__reader_read(r, dirfd_, names[big], UINT64_MAX, &buf, &cap, &len, &err, msg, sizeof msg);
    assert_int_equal(rc, FEED_E_IO);
    assert_int_equal(err, EIO);
    assert_int_equal(len, 0);
    snprintf(want, sizeof want, "read: %s (%d tries)", strerror(EIO), FEED_READER_TRIES);
    assert_string_equal(msg, want);
    assert_int_equal(inj.n_pread, FEED_READER_TRIES);
    assert_int_equal(inj.n_close, FEED_READER_TRIES);

    memset(&inj, 0, sizeof inj);
    inj.fstat_errno = EIO;
    rc = feed__reader_read(r, dirfd_, names[big], UINT64_MAX, &buf, &cap, &len, &err, msg,
                           sizeof msg);
    assert_int_equal(rc, FEED_E_IO);
    assert_int_equal(err, EIO);
    snprintf(want, sizeof want, "stat: %s (%d tries)", strerror(EIO), FEED_READER_TRIES);
    assert_string_equal(msg, want);
    assert_int_equal(inj.n_close, FEED_READER_TRIES);
    assert_int_equal(inj.n_pread, 0);

    memset(&inj, 0, sizeof inj);
    inj.open_errno = EACCES; /* not transient: one try */
    rc = feed__reader_read(r, dirfd_, names[big], UINT64_MAX, &buf, &cap, &len, &err, msg,
                           sizeof msg);
    assert_int_equal(rc, FEED_E_IO);
    assert_int_equal(err, EACCES);
    assert_int_equal(inj.n_open, 1);
    snprintf(want, sizeof want, "open: %s", strerror(EACCES));
    assert_string_equal(msg, want);
    assert_int_equal(inj.n_close, 0);

    /* and the reader still works afterwards */
    memset(&inj, 0, sizeof inj);
    rc = feed__reader_read(r, dirfd_, names[big], UINT64_MAX, &buf, &cap, &len, &err, msg,
                           sizeof msg);
    assert_int_equal(rc, FEED_OK);
    assert_int_equal(len, sizes[big]);
    assert_memory_equal(buf, content[big], len);
    free(buf);
    feed__reader_destroy(r);
}

/* fstat says less than the file holds (it grew) or more (it shrank). The
 * io_uring path sees the read disagree with fstat and hands the file to pread. */
static void grow_shrink_kind(int kind)
{
    feed__reader *r = make_reader(kind);
    inject();
    const long long deltas[] = {-1, -100, -4096, -(1 << 20), 1, 100, 5000, 1 << 21};
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    for (size_t d = 0; d < sizeof deltas / sizeof deltas[0]; d++) {
        for (size_t i = 0; i < NSIZES; i++) {
            if ((long long)sizes[i] + deltas[d] < 0)
                continue;
            memset(&inj, 0, sizeof inj);
            inj.fstat_delta = deltas[d];
            inj.pread_short = (d & 1) ? 3000 : 0;
            int rc = feed__reader_read(r, dirfd_, names[i], UINT64_MAX, &buf, &cap, &len, NULL,
                                       NULL, 0);
            assert_int_equal(rc, FEED_OK);
            assert_int_equal(len, sizes[i]);
            if (len)
                assert_memory_equal(buf, content[i], len);
            if (kind == FEED__READER_KIND_URING) { /* the pread fallback did it, from scratch */
                assert_int_equal(inj.n_open, 2);
                assert_true(inj.n_pread >= 1);
            }
        }
    }
    /* a file that grows past the limit while read is refused, reading at most limit+1 */
    memset(&inj, 0, sizeof inj);
    inj.fstat_set = 1;
    inj.fstat_size = 10;
    int err = -1;
    char msg[256];
    size_t big = find_size((1u << 20) + 3);
    free(buf);
    buf = NULL;
    cap = 0;
    int rc = feed__reader_read(r, dirfd_, names[big], 100000, &buf, &cap, &len, &err, msg,
                               sizeof msg);
    assert_int_equal(rc, FEED_E_TOO_LARGE);
    assert_int_equal(len, 0);
    assert_non_null(strstr(msg, "100000"));
    assert_true(cap <= 100001);
    free(buf);
    feed__reader_destroy(r);
}
static void test_grow_shrink_pread(void **state) { grow_shrink_kind(FEED__READER_KIND_PREAD); }
static void test_grow_shrink_uring(void **state) { grow_shrink_kind(FEED__READER_KIND_URING); }

/* Byte ranges (tar shard members): every range of a fixture file reads its
 * bytes; one past the end says so, naming the bytes; over the limit refuses. */
static void range_kind(int kind)
{
    feed__reader *r = make_reader(kind);
    uint8_t *buf = NULL;
    size_t cap = 0, len = 99;
    int err = -1;
    char msg[256];
    size_t i = find_size(4097);
    const uint64_t offs[] = {0, 1, 511, 512, 4000, 4096};
    for (size_t k = 0; k < sizeof offs / sizeof offs[0]; k++) {
        uint64_t n = 4097 - offs[k];
        int rc = feed__reader_read_range(r, dirfd_, names[i], offs[k], n, 1u << 20, &buf, &cap, &len,
                                         &err, msg, sizeof msg);
        assert_int_equal(rc, FEED_OK);
        assert_int_equal(len, n);
        assert_memory_equal(buf, content[i] + offs[k], n);
        rc = feed__reader_read_range(r, dirfd_, names[i], offs[k], 1, 1u << 20, &buf, &cap, &len, &err,
                                     msg, sizeof msg);
        assert_int_equal(rc, FEED_OK);
        assert_int_equal(len, 1);
        assert_int_equal(buf[0], content[i][offs[k]]);
    }
    int rc = feed__reader_read_range(r, dirfd_, names[i], 4000, 98, 1u << 20, &buf, &cap, &len, &err,
                                     msg, sizeof msg);
    assert_int_equal(rc, FEED_E_IO);
    assert_int_equal(len, 0);
    assert_non_null(strstr(msg, "bytes 4000..4098 are past the end of the file (4097 bytes)"));
    rc = feed__reader_read_range(r, dirfd_, names[i], 0, 4097, 4096, &buf, &cap, &len, &err, msg,
                                 sizeof msg);
    assert_int_equal(rc, FEED_E_TOO_LARGE);
    free(buf);
    feed__reader_destroy(r);
}
static void test_range_pread(void **state) { range_kind(FEED__READER_KIND_PREAD); }
static void test_range_uring(void **state) { range_kind(FEED__READER_KIND_URING); }

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
        T(test_sizes_pread),   T(test_sizes_uring),  T(test_limit_pread), T(test_limit_uring),
        T(test_errors_pread),  T(test_errors_uring), T(test_procfs_pread), T(test_procfs_uring),
        T(test_reuse_pread),   T(test_reuse_uring),  T(test_fds_pread),   T(test_fds_uring),
        T(test_force_pread),   T(test_uring_refused),   T(test_eintr),        T(test_short_reads), T(test_eio), T(test_which_errors_retried),
        T(test_grow_shrink_pread), T(test_grow_shrink_uring), T(test_ring_restricted),
        T(test_range_pread), T(test_range_uring),
#undef T
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

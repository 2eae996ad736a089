/*
 * test_fault_resource.c - resource errors are errors.
 *
 * - An allocator that fails after N allocations, for N = 0, 1, 2, ... until
 *   create succeeds: every failure is FEED_E_NOMEM with a message, leaves no
 *   fd, process or memory behind (LSan checks the memory in the ASan build),
 *   and the loader that finally comes up delivers exactly.
 * - System limits, each in a forked child that lowers one rlimit and calls
 *   create: open files (every limit from 3 up until create succeeds), user
 *   processes (as the unprivileged "nobody", when run as root), file size (the
 *   memfds are files: SIGXFSZ must not kill the host) and address space. Each
 *   failure is a status with a message naming the ulimit to raise.
 * - A memory cgroup limit below the arena: an error from create naming the
 *   cgroup (as root, where a memory cgroup can be made).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>

#include <grp.h>
#include <pwd.h>

#include "common/internal.h"
#include "faultutil.h"
#include "loader/memroom.h"

#define NIMG 16

static int setup(void **state)
{
    fu_setup_data("fres", NIMG, 2);
    return 0;
}

static int teardown(void **state)
{
    fu_teardown_data();
    return 0;
}

static void test_alloc_fail_loop(void **state)
{
    static fu_run ref, got;
    feed_loader *L = fu_make("workers=2,epochs=1", NULL);
    fu_collect(L, 1, &ref, NULL, NULL);
    fu_destroy(L);

    int fds = fu_count_fds();
    feed_options o;
    fu_options(&o, NULL, "workers=2,epochs=1");
    char err[1024];
    long n;
    feed_status st = FEED_E_NOMEM;
    for (n = 0; n < 10000; n++) {
        err[0] = 0;
        L = (feed_loader *)1;
        feed__alloc_fail_after(n);
        st = feed_loader_create(&L, &o, err, sizeof err);
        feed__alloc_fail_after(-1);
        if (st == FEED_OK)
            break;
        if (st != FEED_E_NOMEM || !strstr(err, "out of memory"))
            fail_msg("allocation %ld failing: %s: %s", n, feed_status_name(st), err);
        assert_null(L);
        assert_int_equal(fu_count_fds(), fds);
        fu_assert_no_children();
    }
    assert_int_equal(st, FEED_OK);
    print_message("create makes %ld allocations\n", n);
    assert_true(n >= 8); /* loader, options, index, names, sampler, ids, backend... */
    fu_collect(L, 1, &got, NULL, NULL);
    fu_assert_same(&ref, &got, NULL);
    fu_destroy(L);
    assert_int_equal(fu_count_fds(), fds);
}

/* Runs create in a child after prep(arg) (which lowers a limit); returns the
 * status, and the message in msg. The child reports through a pipe. */
typedef void (*prep_fn)(long arg);

static feed_status create_in_child(prep_fn prep, long arg, const char *opts, char *msg, size_t msglen)
{
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    fflush(NULL);
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        close(pfd[0]);
        feed_options o;
        fu_options(&o, NULL, opts);
        char err[1024] = "";
        prep(arg);
        feed_loader *L = NULL;
        int32_t st = feed_loader_create(&L, &o, err, sizeof err);
        if (st == FEED_OK) { /* and it works */
            feed_batch b = {.struct_size = sizeof b};
            st = feed_loader_next(L, &b, 60000);
            if (st != FEED_OK)
                snprintf(err, sizeof err, "next: %s", feed_loader_last_error(L));
            else if (b.bad)
                st = -1, snprintf(err, sizeof err, "%u bad samples in a good dataset", b.bad);
            feed_loader_destroy(L);
        }
        if (write(pfd[1], &st, sizeof st) < 0 || write(pfd[1], err, sizeof err) < 0)
            _exit(3);
        _exit(0);
    }
    close(pfd[1]);
    int32_t st = -2;
    char err[1024] = "(no report)";
    ssize_t r1 = read(pfd[0], &st, sizeof st);
    ssize_t r2 = read(pfd[0], err, sizeof err);
    close(pfd[0]);
    int ws;
    assert_int_equal(waitpid(c, &ws, 0), c);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0 || r1 != sizeof st || r2 != sizeof err)
        fail_msg("child (limit %ld) died: status 0x%x: %s", arg, ws, err);
    fu_assert_no_children();
    snprintf(msg, msglen, "%s", err);
    if (getenv("FU_VERBOSE"))
        print_message("limit %ld: %s: %s\n", arg, feed_status_name((feed_status)st), err);
    return (feed_status)st;
}

static void lower_nofile(long n)
{
    struct rlimit r = {(rlim_t)n, (rlim_t)n};
    setrlimit(RLIMIT_NOFILE, &r);
}

static void test_rlimit_nofile(void **state)
{
    char msg[1024];
    long n;
    int failures = 0;
    for (n = 3; n < 200; n++) {
        feed_status st = create_in_child(lower_nofile, n, "workers=2", msg, sizeof msg);
        if (getenv("FU_VERBOSE"))
            print_message("nofile %ld: %s: %s\n", n, feed_status_name(st), msg);
        if (st == FEED_OK)
            break;
        failures++;
        if (st != FEED_E_RESOURCE || !strstr(msg, "ulimit -n"))
            fail_msg("RLIMIT_NOFILE=%ld: %s: %s", n, feed_status_name(st), msg);
    }
    assert_true(n < 200);
    assert_true(failures >= 5);
}

static void lower_fsize(long n)
{
    struct rlimit r = {(rlim_t)n, (rlim_t)n};
    setrlimit(RLIMIT_FSIZE, &r);
}

static void test_rlimit_fsize(void **state)
{
    char msg[1024];
    /* The index does not fit in 4 KiB, the arena not in 256 KiB. */
    assert_int_equal(create_in_child(lower_fsize, 4096, "workers=1", msg, sizeof msg), FEED_E_RESOURCE);
    if (!strstr(msg, "index") || !strstr(msg, "ulimit -f"))
        fail_msg("%s", msg);
    assert_int_equal(create_in_child(lower_fsize, 256 << 10, "workers=1,batch_size=64,height=64,width=64",
                                     msg, sizeof msg),
                     FEED_E_RESOURCE);
    if (!strstr(msg, "arena") || !strstr(msg, "ulimit -f"))
        fail_msg("%s", msg);
    assert_int_equal(create_in_child(lower_fsize, 64 << 20, "workers=1", msg, sizeof msg), FEED_OK);
}

static void lower_nproc(long n)
{
    /* root ignores RLIMIT_NPROC: become a user of our own, with no process
     * but ours (the limit counts every process of the user: "nobody" may
     * have others on a shared machine). Files are read as "other", as nobody. */
    uid_t uid = (uid_t)(2000000000u + (unsigned)getppid() % 1000000u);
    if (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid(uid) != 0) {
        fprintf(stderr, "cannot become uid %u\n", (unsigned)uid);
        _exit(5);
    }
    struct rlimit r = {(rlim_t)n, (rlim_t)n};
    setrlimit(RLIMIT_NPROC, &r);
}

/* One sweep of RLIMIT_NPROC = 1, 2, ... until create works; every failure
 * must be FEED_E_RESOURCE naming "ulimit -u". Counts the failures at the
 * supervisor thread and at a worker. */
static long nproc_sweep(const char *opts, int *no_thread, int *no_worker)
{
    char msg[1024];
    long n;
    *no_thread = *no_worker = 0;
    for (n = 1; n <= 16; n++) {
        feed_status st = create_in_child(lower_nproc, n, opts, msg, sizeof msg);
        if (getenv("FU_VERBOSE"))
            print_message("nproc %ld (%s): %s: %s\n", n, opts, feed_status_name(st), msg);
        if (st == FEED_OK)
            break;
        if (st != FEED_E_RESOURCE || !strstr(msg, "ulimit -u"))
            fail_msg("RLIMIT_NPROC=%ld (%s): %s: %s", n, opts, feed_status_name(st), msg);
        if (strstr(msg, "cannot start a thread"))
            ++*no_thread;
        else if (strstr(msg, "cannot start worker"))
            ++*no_worker;
        else
            fail_msg("RLIMIT_NPROC=%ld (%s): %s", n, opts, msg);
    }
    assert_true(n <= 16);
    return n;
}

static void test_rlimit_nproc(void **state)
{
    if (geteuid() != 0) {
        print_message("skipped: needs root to drop to a user of its own\n");
        skip();
    }
    int no_thread, no_worker;
    /* Without read-ahead the parent's tasks are fixed (the process, the
     * supervisor thread, and TSan's own thread where it runs), so the sweep
     * is exact: first not even the supervisor can start, then not the first
     * worker, then not the second; then it works. */
    nproc_sweep("workers=2,readahead=0", &no_thread, &no_worker);
    assert_true(no_thread >= 1);
    assert_int_equal(no_worker, 2);
    /* With read-ahead (its thread fails silently: read-ahead is advice) its
     * io_uring may or may not have started a kernel worker thread, which
     * counts against the limit too, by the time the pool starts: only the
     * kinds of failure are fixed, not how many of each. */
    nproc_sweep("workers=2", &no_thread, &no_worker);
    assert_true(no_thread >= 1);
    assert_true(no_worker >= 1);
}

/* Address space: current size + 64 MiB, with an arena of about 150 MiB. */
static void lower_as(long extra)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f || fscanf(f, "%lu", &pages) != 1)
        _exit(6);
    fclose(f);
    rlim_t lim = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (rlim_t)extra;
    struct rlimit r = {lim, lim};
    setrlimit(RLIMIT_AS, &r);
}

static void test_rlimit_as(void **state)
{
    if (FU_SANITIZED) {
        print_message("skipped: sanitizers reserve terabytes of address space\n");
        skip();
    }
    char msg[1024];
    feed_status st = create_in_child(lower_as, 64l << 20,
                                     "workers=1,batch_size=256,height=224,width=224,prefetch=4", msg,
                                     sizeof msg);
    if ((st != FEED_E_RESOURCE && st != FEED_E_NOMEM) || !strstr(msg, "ulimit -v"))
        fail_msg("RLIMIT_AS: %s: %s", feed_status_name(st), msg);
}

/* A memory cgroup of its own whose limit is below the arena: create says so,
 * naming the cgroup, where the first touch of the pages (or a fallocate of
 * them) got the cgroup's OOM kill; with room, the same loader delivers.
 * Needs root and a memory cgroup it can make children in, else skipped. */
static char cg_new[1200];

static void join_cgroup(long unused)
{
    char p[1300], v[32];
    snprintf(p, sizeof p, "%s/cgroup.procs", cg_new);
    snprintf(v, sizeof v, "%d\n", (int)getpid());
    FILE *f = fopen(p, "w");
    if (!f || fputs(v, f) < 0 || fclose(f) != 0)
        _exit(7);
}

static int set_limit(int ver, unsigned long long bytes)
{
    char p[1300];
    snprintf(p, sizeof p, "%s/%s", cg_new, ver == 2 ? "memory.max" : "memory.limit_in_bytes");
    FILE *f = fopen(p, "w");
    return f && fprintf(f, "%llu\n", bytes) > 0 && fclose(f) == 0 ? 0 : -1;
}

static void test_memory_cgroup_limit(void **state)
{
    char dir[1040], mnt[512];
    int ver = feed__memroom_dir("/proc/self", dir, sizeof dir, mnt, sizeof mnt);
    if (geteuid() != 0 || !ver) {
        print_message("skipped: needs root and a memory cgroup (v1 or v2) to make one of its own\n");
        skip();
    }
    snprintf(cg_new, sizeof cg_new, "%s/feedtest-%d", dir, (int)getpid());
    if (mkdir(cg_new, 0755) != 0) {
        print_message("skipped: cannot make the cgroup %s: %s\n", cg_new, strerror(errno));
        skip();
    }
    if (set_limit(ver, 24ull << 20) != 0) { /* cgroup2 without the memory controller delegated */
        rmdir(cg_new);
        print_message("skipped: cannot set a memory limit in %s (memory controller not delegated)\n", cg_new);
        skip();
    }
    /* 4 slots of 64 224x224 uint8 images: 37 MiB of arena */
    const char *opts = "workers=1,batch_size=64,height=224,width=224,prefetch=4";
    char msg[1024];
    feed_status st = create_in_child(join_cgroup, 24l << 20, opts, msg, sizeof msg);
    int ok1 = st == FEED_E_RESOURCE && strstr(msg, "memory cgroup") && strstr(msg, cg_new) &&
              strstr(msg, "limit 24 MiB") && strstr(msg, "prefetch");
    char msg1[1100];
    snprintf(msg1, sizeof msg1, "%s: %s", feed_status_name(st), msg);
    int ok2 = set_limit(ver, 512ull << 20) == 0;
    st = ok2 ? create_in_child(join_cgroup, 512l << 20, opts, msg, sizeof msg) : FEED_E_INTERNAL;
    rmdir(cg_new);
    if (!ok1)
        fail_msg("24 MiB cgroup: %s", msg1);
    if (st != FEED_OK)
        fail_msg("512 MiB cgroup: %s: %s", feed_status_name(st), msg);
}

/* With the fd table full, a respawned worker gets no pidfd: the supervisor
 * must still notice when it dies (it polls such workers). */
static void test_respawn_with_fd_table_full(void **state)
{
    static fu_run ref, got;
    /* Low fds taken while the loader starts, so its pidfd gets a number
     * high enough for a worker to live under a limit just below it. */
    int pad[32];
    for (int i = 0; i < 32; i++)
        assert_true((pad[i] = dup(0)) >= 0);
    feed_loader *L = fu_make("workers=1", NULL);
    for (int i = 0; i < 32; i++)
        close(pad[i]);
    fu_collect(L, 1, &ref, NULL, NULL);
    fu_running(L, 0, 0);
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    /* The limit goes down to the worker's pidfd: once the supervisor closes
     * it, no fd at all can be had, not even that one. */
    int pidfd = -1;
    tu_fds_with("pidfd", &pidfd);
    if (pidfd < 0) {
        fu_destroy(L);
        print_message("skipped: the supervisor holds no pidfd here (no pidfd_open; the pool polls anyway)\n");
        skip();
    }
    assert_true(pidfd >= 32);
    low = old;
    low.rlim_cur = (rlim_t)pidfd;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    static int holes[4096];
    int nholes = 0, fd;
    while (nholes < 4096 && (fd = dup(0)) >= 0) /* fill the holes below the limit too */
        holes[nholes++] = fd;
    assert_int_equal(errno, EMFILE);
    pid_t a = fu_kill_worker(L, 0, SIGKILL); /* noticed by its pidfd; the new one has none */
    pid_t b = fu_kill_worker(L, 0, SIGKILL); /* noticed by polling */
    assert_int_not_equal(a, b);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    while (nholes)
        close(holes[--nholes]);
    fu_collect(L, 1, &got, NULL, NULL);
    fu_assert_exactly_once(&got);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_restarts, 2);
    fu_destroy(L);
    fu_assert_no_children();
}

/* Worker pid's fds whose link contains needle. */
static int fds_of_with(pid_t pid, const char *needle)
{
    char dir[64], p[320], t[512];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        ssize_t k = readlink(p, t, sizeof t - 1);
        if (k > 0 && (t[k] = 0, strstr(t, needle)))
            n++;
    }
    closedir(d);
    return n;
}

/* An fd the host leaked without O_CLOEXEC never reaches a worker: closed at
 * spawn (closefrom) and by the worker itself (close_range, or its fallback
 * over /proc/self/fd where close_range is missing: forced here). */
static void test_host_fds_not_inherited(void **state)
{
    static const char *const modes[][2] = {
        {NULL, NULL},
        {"FEED_TEST_NO_CLOSEFROM", "FEED_TEST_NO_CLOSE_RANGE"},
    };
    char path[4200];
    snprintf(path, sizeof path, "%s/leak-probe", fu_data);
    int low = open(path, O_RDWR | O_CREAT, 0600);
    assert_true(low >= 0);
    int leak = fcntl(low, F_DUPFD, 100); /* no O_CLOEXEC, on purpose; above the worker's 3-5 */
    assert_true(leak >= 100);
    close(low);
    for (size_t m = 0; m < 2; m++) {
        for (int k = 0; k < 2; k++)
            if (modes[m][k])
                setenv(modes[m][k], "1", 1);
        feed_loader *L = fu_make("workers=2", NULL);
        for (uint32_t i = 0; i < 2; i++) {
            pid_t pid = fu_running(L, i, 0);
            assert_int_equal(fds_of_with(pid, "leak-probe"), 0);
            assert_true(fds_of_with(pid, "libfeed") >= 1); /* it is a worker: the arena is there */
        }
        fu_destroy(L);
        for (int k = 0; k < 2; k++)
            if (modes[m][k])
                unsetenv(modes[m][k]);
    }
    close(leak);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_alloc_fail_loop),
        TU_TEST(test_rlimit_nofile),
        TU_TEST(test_rlimit_fsize),
        TU_TEST(test_rlimit_nproc),
        TU_TEST(test_rlimit_as),
        TU_TEST(test_memory_cgroup_limit),
        TU_TEST(test_respawn_with_fd_table_full),
        TU_TEST(test_host_fds_not_inherited),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

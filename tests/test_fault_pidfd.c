/*
 * test_fault_pidfd.c - the pool signals its workers through their pidfds, not
 * by raw pid (a raw pid can name another process once the worker has been
 * reaped behind the pool's back, as in a host that ignores SIGCHLD).
 *
 * The proof: this process installs a seccomp filter under which kill(2)
 * fails with EPERM. A worker that hangs must still be killed (by
 * pidfd_send_signal) after sample_timeout_ms, its sample retried and the
 * epoch delivered exactly as without the hang; destroy must still stop every
 * worker. With kill(2) the hung worker would never die and next() would time
 * out. Its own program: the filter cannot be removed once installed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "faultutil.h"

#define NIMG 16

static int setup(void **state)
{
    fu_setup_data("fpidfd", NIMG, 2);
    return 0;
}

static int teardown(void **state)
{
    fu_teardown_data();
    return 0;
}

/* kill(2) -> EPERM for this process and every thread and child it has. */
static int forbid_kill(void)
{
#if defined(__x86_64__)
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_kill, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = (unsigned short)(sizeof f / sizeof f[0]), .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
#else
    errno = ENOSYS;
    return -1;
#endif
}

static void test_hung_worker_killed_without_kill(void **state)
{
    static fu_run ref, got;
    const char *opts = "workers=2,sample_timeout_ms=600";
    feed_loader *L = fu_make(opts, NULL);
    fu_collect(L, 1, &ref, NULL, NULL);
    fu_assert_exactly_once(&ref);
    fu_destroy(L);

    if (forbid_kill() != 0) {
        print_message("skip: cannot install a seccomp filter here: %s\n", strerror(errno));
        skip();
    }
    errno = 0;
    assert_int_equal(kill(getpid(), 0), -1); /* the filter is in force */
    assert_int_equal(errno, EPERM);

    char fault[4400];
    snprintf(fault, sizeof fault, "hang1:%s:%s/h1", fu_name(3), fu_marks);
    L = fu_make(opts, fault);
    fu_collect(L, 1, &got, NULL, NULL);
    fu_assert_exactly_once(&got);
    fu_assert_same(&ref, &got, NULL);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.worker_hangs, 1);
    assert_int_equal(s.worker_restarts, 1);
    pid_t w0 = feed__loader_worker_pid(L, 0), w1 = feed__loader_worker_pid(L, 1);
    assert_true(w0 > 0 && w1 > 0);
    fu_destroy(L);
    fu_assert_no_children(); /* every worker killed and reaped (fu_gone needs kill(2)) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_hung_worker_killed_without_kill),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

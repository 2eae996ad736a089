/*
 * test_fault_exit.c - clean exits. Destroy at any moment (right after create,
 * mid-epoch, during a respawn, with workers blocked on a full ring, after the
 * pool gave up) and the death of the host process (SIGTERM, SIGINT, SIGKILL,
 * exit() from a signal handler without destroy) leave no worker process, no
 * zombie, no libfeed fd and nothing in /dev/shm.
 *
 * The host-death cases run the host in a forked child; this test process is
 * a child subreaper, so the orphaned workers are re-parented to it and it can
 * wait for each of them (no polling) and see it was killed (PR_SET_PDEATHSIG).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/prctl.h>

#include "faultutil.h"

#define NIMG 24

static int shm_before;

static int setup(void **state)
{
    fu_setup_data("fexit", NIMG, 3);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        perror("PR_SET_CHILD_SUBREAPER");
        exit(1);
    }
    shm_before = fu_count_dev_shm();
    return 0;
}

static int teardown(void **state)
{
    fu_teardown_data();
    return 0;
}

static void workers_of(feed_loader *L, uint32_t n, pid_t *pids)
{
    for (uint32_t i = 0; i < n; i++)
        pids[i] = feed__loader_worker_pid(L, i);
}

/* Nothing of L is left: its workers (pids, plus any respawned ones: no child
 * at all), fds, shared memory. */
static void assert_clean(const pid_t *pids, uint32_t n, int fds_before)
{
    for (uint32_t i = 0; i < n; i++)
        if (pids[i])
            assert_true(fu_gone(pids[i]));
    fu_assert_no_children();
    assert_int_equal(fu_count_memfds(), 0);
    assert_int_equal(fu_count_fds(), fds_before);
    assert_int_equal(fu_count_dev_shm(), shm_before);
}

static void test_destroy_races(void **state)
{
    int fds = fu_count_fds();
    pid_t pids[4];
    for (int round = 0; round < 8; round++) {
        /* 1. at once: workers may still be starting, the ring filling */
        feed_loader *L = fu_make("workers=3,prefetch=3", NULL);
        assert_int_equal(fu_count_memfds(), 3); /* arena, configuration and index, all memfds */
        workers_of(L, 3, pids);
        fu_destroy(L);
        assert_clean(pids, 3, fds);

        /* 2. during a respawn: a worker was just killed */
        L = fu_make("workers=3", NULL);
        workers_of(L, 3, pids);
        pid_t victim = fu_running(L, (uint32_t)round % 3, 0);
        assert_int_equal(kill(victim, round % 2 ? SIGKILL : SIGSEGV), 0);
        fu_destroy(L);
        assert_clean(pids, 3, fds);
        assert_true(fu_gone(victim));

        /* 3. mid-epoch, batches held, workers blocked on a full ring */
        L = fu_make("workers=4,prefetch=3", NULL);
        feed_batch a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b};
        assert_int_equal(feed_loader_next(L, &a, 60000), FEED_OK);
        assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
        workers_of(L, 4, pids);
        fu_destroy(L);
        assert_clean(pids, 4, fds);
    }
}

/* Destroy after the pool has given up (workers die on every sample), and
 * with a worker stuck in a hang. */
static void test_destroy_after_failure(void **state)
{
    int fds = fu_count_fds();
    pid_t pids[2];
    feed_options o;
    fu_options(&o, NULL, "workers=2");
    setenv("FEED_TEST_FAULT", "exit:.jpg", 1);
    char err[1024];
    feed_loader *L = NULL;
    if (feed_loader_create(&L, &o, err, sizeof err) == FEED_OK) {
        feed_batch b = {.struct_size = sizeof b};
        assert_int_equal(feed_loader_next(L, &b, 60000), FEED_E_WORKER);
        workers_of(L, 2, pids);
        fu_destroy(L);
        assert_clean(pids, 2, fds);
    }
    unsetenv("FEED_TEST_FAULT");
    fu_assert_no_children();

    char fault[256];
    snprintf(fault, sizeof fault, "hang:%s", fu_name(1));
    L = fu_make("workers=2,shuffle=false,sample_timeout_ms=0", fault);
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 100), FEED_E_TIMEOUT);
    workers_of(L, 2, pids);
    fu_destroy(L);
    assert_clean(pids, 2, fds);
}

enum { DIE_SIGNAL, DIE_EXIT_IN_HANDLER };

static void exit_handler(int sig)
{
    exit(0); /* like a host that exits on SIGTERM without destroying the loader */
}

/* A host process (forked child) with a loader mid-epoch dies by sig. Its
 * workers must die with it: each is waited for here (subreaper) and must
 * have been killed by SIGKILL. */
static void run_host_death(int sig, int how)
{
    int shm0 = fu_count_dev_shm();
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    fflush(NULL);
    pid_t host = fork();
    assert_true(host >= 0);
    if (host == 0) {
        close(pfd[0]);
        if (how == DIE_EXIT_IN_HANDLER)
            signal(sig, exit_handler);
        feed_options o;
        fu_options(&o, NULL, "workers=3,prefetch=2");
        char err[1024];
        static feed_loader *L; /* reachable at exit: not a leak to LSan */
        if (feed_loader_create(&L, &o, err, sizeof err) != FEED_OK) {
            fprintf(stderr, "host: %s\n", err);
            _exit(2);
        }
        feed_batch b = {.struct_size = sizeof b};
        if (feed_loader_next(L, &b, 60000) != FEED_OK) /* one held, the ring full */
            _exit(3);
        pid_t pids[3];
        for (uint32_t i = 0; i < 3; i++)
            pids[i] = feed__loader_worker_pid(L, i);
        if (write(pfd[1], pids, sizeof pids) != (ssize_t)sizeof pids)
            _exit(4);
        for (;;)
            pause();
    }
    close(pfd[1]);
    pid_t pids[3];
    assert_int_equal(read(pfd[0], pids, sizeof pids), (ssize_t)sizeof pids);
    close(pfd[0]);
    for (int i = 0; i < 3; i++)
        assert_true(pids[i] > 0);
    assert_int_equal(kill(host, sig), 0);
    int st;
    assert_int_equal(waitpid(host, &st, 0), host);
    if (how == DIE_SIGNAL) {
        assert_true(WIFSIGNALED(st));
        assert_int_equal(WTERMSIG(st), sig);
    } else {
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
    /* The workers are ours now; each dies (by the parent-death signal). */
    for (int i = 0; i < 3; i++) {
        int ws;
        assert_int_equal(waitpid(pids[i], &ws, 0), pids[i]);
        assert_true(WIFSIGNALED(ws));
        assert_int_equal(WTERMSIG(ws), SIGKILL);
        assert_true(fu_gone(pids[i]));
    }
    fu_assert_no_children();
    assert_int_equal(fu_count_dev_shm(), shm0);
}

static void test_host_sigterm(void **state)
{
    run_host_death(SIGTERM, DIE_SIGNAL);
}

static void test_host_sigint(void **state)
{
    run_host_death(SIGINT, DIE_SIGNAL);
}

static void test_host_sigkill(void **state)
{
    run_host_death(SIGKILL, DIE_SIGNAL);
}

static void test_host_exits_in_handler(void **state)
{
    run_host_death(SIGTERM, DIE_EXIT_IN_HANDLER);
}

static void reap_all(int sig)
{
    int e = errno;
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
    errno = e;
}

/* Hosts that ignore SIGCHLD (children reaped by the kernel) or reap every
 * child in a handler: the pool still notices each death (pidfd), replaces
 * the worker, and delivery stays exact. */
static void test_host_reaps_children(void **state)
{
    static fu_run ref, got;
    feed_loader *L = fu_make("workers=2", NULL);
    fu_collect(L, 1, &ref, NULL, NULL);
    fu_destroy(L);
    for (int how = 0; how < 2; how++) {
        struct sigaction sa = {0}, old;
        sa.sa_handler = how == 0 ? SIG_IGN : reap_all;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        assert_int_equal(sigaction(SIGCHLD, &sa, &old), 0);
        L = fu_make("workers=2", NULL);
        fu_kill_worker(L, 0, SIGKILL);
        fu_kill_worker(L, 1, SIGKILL);
        fu_collect(L, 1, &got, NULL, NULL);
        fu_assert_same(&ref, &got, NULL);
        assert_int_equal(fu_stats(L).worker_restarts, 2);
        pid_t pids[2];
        workers_of(L, 2, pids);
        fu_destroy(L);
        assert_int_equal(sigaction(SIGCHLD, &old, NULL), 0);
        assert_true(fu_gone(pids[0]) && fu_gone(pids[1]));
        fu_assert_no_children();
    }
}

/* The arena, its sealed configuration and the index are memfds: no name
 * anywhere, gone with their fds. */
static void test_memfd_only(void **state)
{
    feed_loader *L = fu_make("workers=1", NULL);
    /* the arena, the configuration and the index, and all are memfds */
    assert_int_equal(tu_fds_with("libfeed", NULL), 3);
    assert_int_equal(tu_fds_with("memfd:libfeed-", NULL), 3);
    assert_int_equal(fu_count_dev_shm(), shm_before);
    fu_destroy(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_destroy_races),
        TU_TEST(test_destroy_after_failure),
        TU_TEST(test_host_sigterm),
        TU_TEST(test_host_sigint),
        TU_TEST(test_host_sigkill),
        TU_TEST(test_host_exits_in_handler),
        TU_TEST(test_host_reaps_children),
        TU_TEST(test_memfd_only),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

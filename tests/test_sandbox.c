/*
 * test_sandbox.c - workers are locked down once set up (src/worker/sandbox.h).
 *
 *   - a running worker is under seccomp with no_new_privs, its oom_score_adj
 *     is 1000 and its address space is capped (max_worker_memory);
 *     sandbox=0 leaves seccomp off;
 *   - a worker that opens a socket, creates a file for writing, execs a
 *     program, forks, clones (clone3) or asks to be traced (FEED_TEST_FAULT
 *     "socket", "write", "exec", "fork", "clone", "ptrace") is killed, and the
 *     report of the sample says "killed by the sandbox" and names the call;
 *     so is one that takes the arena's pages from its memfd (FEED_TEST_FAULT
 *     "madvise": MADV_REMOVE; "punch": fallocate(PUNCH_HOLE));
 *     with sandbox=0 the same attempt succeeds (the worker exits
 *     FEED_FAULT_ESCAPED, the file is there), so the test can fail;
 *   - under the sandbox the io_uring and the pread readers deliver exactly
 *     the pixels of a run without it;
 *   - a progressive CMYK JPEG whose decode needs more than a small
 *     max_worker_memory is a bad sample saying so (and decodes with no cap);
 *     a progressive JPEG with thousands of scans is refused with a "scans"
 *     message (one with ten scans of the same pixels decodes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <turbojpeg.h>

#include "faultutil.h"
#include "hooks/fault.h"
#include "test_image_util.h"

#define NIMG 12

static char *tmp; /* scratch: escape targets, the memory dataset */

static int setup(void **state)
{
    fu_setup_data("sbx", NIMG, 3);
    tmp = tu_mkdtemp("sbx-tmp");
    return 0;
}

static int teardown(void **state)
{
    fu_teardown_data();
    tu_rmtree(tmp);
    free(tmp);
    return 0;
}

/* The value of "Key:" in /proc/pid/status, or -1. */
static long proc_status(pid_t pid, const char *key)
{
    char p[64], line[256];
    snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
    FILE *f = fopen(p, "r");
    long v = -1;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':')
            v = strtol(line + kl + 1, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

static void proc_line(pid_t pid, const char *file, const char *starts, char *out, size_t outlen)
{
    char p[64], line[256];
    snprintf(p, sizeof p, "/proc/%d/%s", (int)pid, file);
    FILE *f = fopen(p, "r");
    out[0] = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, starts, strlen(starts)))
            snprintf(out, outlen, "%s", line);
    if (f)
        fclose(f);
}

/* Runs one epoch (next + release), ignoring what is delivered. */
static void run_epoch(feed_loader *L)
{
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK)
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    if (st != FEED_END_OF_EPOCH)
        fail_msg("next: %s: %s", feed_status_name(st), feed_loader_last_error(L));
}

/* The report of the bad sample whose path ends with name: 1 and *out, or 0. */
static int bad_report(feed_loader *L, const char *name, feed_bad_sample *out)
{
    uint64_t n = feed_loader_bad_count(L);
    for (uint64_t i = 0; i < n; i++) {
        feed_bad_sample r = {.struct_size = sizeof r};
        assert_int_equal(feed_loader_bad_sample(L, i, &r), FEED_OK);
        size_t pl = strlen(r.path), nl = strlen(name);
        if (pl >= nl && !strcmp(r.path + pl - nl, name)) {
            *out = r;
            return 1;
        }
    }
    return 0;
}

static void test_worker_locked_down(void **state)
{
    for (int sandbox = 0; sandbox <= 1; sandbox++) {
        char opts[128];
        snprintf(opts, sizeof opts, "workers=1,sandbox=%d,max_worker_memory=268435456", sandbox);
        feed_loader *L = fu_make(opts, NULL);
        pid_t pid = fu_running(L, 0, 0);
        assert_int_equal(proc_status(pid, "Seccomp"), sandbox ? 2 : 0); /* 2: filter mode */
        assert_int_equal(proc_status(pid, "NoNewPrivs"), sandbox ? 1 : 0);
        char line[256];
        proc_line(pid, "oom_score_adj", "", line, sizeof line);
        assert_int_equal(atoi(line), 1000);
        proc_line(pid, "limits", "Max address space", line, sizeof line);
        if (!FU_SANITIZED && strstr(line, "unlimited"))
            fail_msg("worker's address space is not capped: %s", line);
        fu_destroy(L);
    }
    if (!FU_SANITIZED) { /* max_worker_memory=0: no cap */
        feed_loader *L = fu_make("workers=1,max_worker_memory=0", NULL);
        char line[256];
        proc_line(fu_running(L, 0, 0), "limits", "Max address space", line, sizeof line);
        assert_non_null(strstr(line, "unlimited"));
        fu_destroy(L);
    }
}

/* One epoch with fault ACTION on sample 3; returns its report's message. */
static void escape(const char *action, const char *target, int sandbox, feed_bad_sample *r)
{
    char fault[512], opts[128];
    snprintf(fault, sizeof fault, "%s:%s%s%s", action, fu_name(3), target ? ":" : "", target ? target : "");
    snprintf(opts, sizeof opts, "workers=1,max_retries=0,shuffle=false,sandbox=%d", sandbox);
    feed_loader *L = fu_make(opts, fault);
    run_epoch(L);
    if (!bad_report(L, fu_name(3), r))
        fail_msg("%s (sandbox=%d): no report for %s", action, sandbox, fu_name(3));
    assert_int_equal(r->status, FEED_E_WORKER);
    fu_destroy(L);
}

static void check_escape(const char *action, const char *syscall_name, const char *target)
{
    feed_bad_sample r;
    escape(action, target, 1, &r);
    if (!strstr(r.message, "killed by the sandbox") || !strstr(r.message, syscall_name))
        fail_msg("%s under the sandbox: %s", action, r.message);
    if (target)
        assert_int_equal(access(target, F_OK), -1);
    char want[64];
    snprintf(want, sizeof want, "exited with status %d", FEED_FAULT_ESCAPED);
    escape(action, target, 0, &r); /* the same attempt works without it */
    if (!strstr(r.message, want))
        fail_msg("%s with sandbox=0: %s", action, r.message);
    if (target) {
        assert_int_equal(access(target, F_OK), 0);
        unlink(target);
    }
}

static void test_no_socket(void **state)
{
    check_escape("socket", "socket", NULL);
}

static void test_no_write(void **state)
{
    char target[4200];
    snprintf(target, sizeof target, "%s/escaped", tmp);
    check_escape("write", "openat for writing", target);
}

static void test_no_exec(void **state)
{
    check_escape("exec", "execve", NULL);
}

/* No new processes, however made: glibc's fork() (the clone system call),
 * clone3 made directly, and no ptrace (PTRACE_TRACEME: a traced worker
 * could be steered from outside). Each works with sandbox=0 (check_escape's
 * control run), so the test can fail. */
static void test_no_fork(void **state)
{
    check_escape("fork", "clone", NULL);
}

static void test_no_clone3(void **state)
{
    check_escape("clone", "clone3", NULL);
}

static void test_no_ptrace(void **state)
{
    check_escape("ptrace", "ptrace", NULL);
}

/* The arena's pages stay its own: no MADV_REMOVE on it and no hole punched
 * in its memfd (pages pinned for DMA would be orphaned, the device reading
 * stale ones). Both work with sandbox=0 (the control run). */
static void test_no_madvise_remove(void **state)
{
    check_escape("madvise", "madvise", NULL);
}

static void test_no_hole_punch(void **state)
{
    check_escape("punch", "fallocate", NULL);
}

/* Both readers give, under the sandbox, the pixels of a run without it. */
static void test_readers_under_sandbox(void **state)
{
    static fu_run ref, got;
    feed_loader *L = fu_make("sandbox=0,reader=pread", NULL);
    fu_collect(L, 2, &ref, NULL, NULL);
    fu_destroy(L);
    L = fu_make("sandbox=1", NULL);
    feed_stats s = fu_stats(L);
    int uring = !strcmp(s.reader, "io_uring");
    fu_collect(L, 2, &got, NULL, NULL);
    fu_destroy(L);
    fu_assert_same(&ref, &got, NULL);
    setenv("FEED_FORCE_PREAD", "1", 1);
    L = fu_make("sandbox=1", NULL);
    s = fu_stats(L);
    assert_string_equal(s.reader, "pread");
    fu_collect(L, 2, &got, NULL, NULL);
    fu_destroy(L);
    unsetenv("FEED_FORCE_PREAD");
    fu_assert_same(&ref, &got, NULL);
    if (!uring)
        print_message("io_uring unavailable here: only the pread reader was checked\n");
}

/* A progressive 64x64 JPEG: ten scans, or 2090 (bitwise). */
static uint8_t *progressive(int bitwise, size_t *len)
{
    uint8_t *rgb = ti_photo(64, 64, 3);
    uint8_t *j = ti_jpeg_progressive(rgb, 64, 64, bitwise, len);
    free(rgb);
    return j;
}

static void test_memory_and_scans(void **state)
{
    char dir[2048], p[2200];
    snprintf(dir, sizeof dir, "%s/mem", tmp);
    tu_mkdirs(dir);
    assert_int_equal(tu_mkdata(dir, 6, 9, 2), 0);
    /* 2048x2048 CMYK, progressive: a 32 MiB coefficient buffer */
    uint8_t *rgb = ti_photo(2048, 2048, 5);
    size_t len;
    uint8_t *big = ti_jpeg(rgb, 2048, 2048, TI_CMYK, 85, TJFLAG_PROGRESSIVE, &len);
    snprintf(p, sizeof p, "%s/class_000/big_cmyk.jpg", dir);
    tu_write(p, big, len);
    tjFree(big);
    free(rgb);
    uint8_t *j = progressive(1, &len);
    snprintf(p, sizeof p, "%s/class_001/many_scans.jpg", dir);
    tu_write(p, j, len);
    free(j);
    j = progressive(0, &len);
    snprintf(p, sizeof p, "%s/class_001/ten_scans.jpg", dir);
    tu_write(p, j, len);
    free(j);

    for (int cap = 0; cap <= 1; cap++) {
        feed_loader *L = fu_make_src(dir, cap ? "max_worker_memory=16777216" : "max_worker_memory=0", NULL);
        run_epoch(L);
        feed_bad_sample r;
        if (cap) {
            if (!bad_report(L, "big_cmyk.jpg", &r))
                fail_msg("big_cmyk.jpg decoded under max_worker_memory=16 MiB");
            assert_int_equal(r.status, FEED_E_TOO_LARGE);
            if (!strstr(r.message, "to decode") || !strstr(r.message, "over max_worker_memory 16.0 MiB"))
                fail_msg("message: %s", r.message);
        } else if (bad_report(L, "big_cmyk.jpg", &r)) {
            fail_msg("big_cmyk.jpg is bad without a cap: %s", r.message);
        }
        if (!bad_report(L, "many_scans.jpg", &r))
            fail_msg("a JPEG with 2090 scans was decoded");
        assert_int_equal(r.status, FEED_E_DECODE);
        if (!strstr(r.message, "more than 500 scans"))
            fail_msg("message: %s", r.message);
        if (bad_report(L, "ten_scans.jpg", &r))
            fail_msg("ten_scans.jpg: %s", r.message);
        assert_int_equal(feed_loader_bad_count(L), (uint64_t)(1 + cap));
        fu_destroy(L);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_worker_locked_down), TU_TEST(test_no_socket),
        TU_TEST(test_no_fork), TU_TEST(test_no_clone3), TU_TEST(test_no_ptrace),
        TU_TEST(test_no_madvise_remove), TU_TEST(test_no_hole_punch),
        TU_TEST(test_no_write),           TU_TEST(test_no_exec),
        TU_TEST(test_readers_under_sandbox), TU_TEST(test_memory_and_scans),
    };
    const char *filter = getenv("FEED_TEST_FILTER"); /* scripts/mutants: one case */
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, setup, teardown);
}

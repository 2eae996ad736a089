/*
 * sandbox.c - a worker locks itself down (sandbox.h).
 *
 * libseccomp builds the filter: it checks the architecture (and x32) for us
 * and compiles argument checks, which a hand-written BPF program would have
 * to get right per architecture. Only feed-worker links it.
 *
 * Violations trap (SECCOMP_RET_TRAP) rather than fail with EPERM: a worker
 * that makes a call outside its job is running code it should not, and an
 * error return would let that code go on probing. The trap's SIGSYS carries
 * the call's number, which the handler reports before the worker dies by
 * SIGSYS; the handler cannot be replaced (rt_sigaction on SIGSYS is refused).
 */
#include "worker/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "worker/loop.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FEED_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FEED_SANITIZED 1
#endif
#endif
#ifndef FEED_SANITIZED
#define FEED_SANITIZED 0
#endif

/* Names for the report, of the calls a misbehaving worker is likeliest to
 * make; others are reported by number. */
static const struct {
    int nr;
    const char *name;
} sys_names[] = {
    {SYS_socket, "socket"},       {SYS_connect, "connect"},     {SYS_bind, "bind"},
    {SYS_sendto, "sendto"},       {SYS_sendmsg, "sendmsg"},     {SYS_execve, "execve"},
    {SYS_execveat, "execveat"},   {SYS_clone, "clone"},         {SYS_clone3, "clone3"},
    {SYS_ptrace, "ptrace"},       {SYS_openat, "openat for writing"},
    {SYS_unlinkat, "unlinkat"},   {SYS_renameat, "renameat"},   {SYS_mkdirat, "mkdirat"},
    {SYS_write, "write"},         {SYS_pwrite64, "pwrite64"},   {SYS_ioctl, "ioctl"},
    {SYS_kill, "kill"},           {SYS_tgkill, "tgkill"},       {SYS_rt_sigaction, "rt_sigaction"},
    {SYS_prctl, "prctl"},         {SYS_prlimit64, "prlimit64"},
    {SYS_io_uring_setup, "io_uring_setup"}, {SYS_io_uring_register, "io_uring_register"},
    {SYS_madvise, "madvise"},     {SYS_fallocate, "fallocate"},
#ifdef SYS_open /* the legacy calls: x86-64, not arm64 */
    {SYS_open, "open for writing"}, {SYS_creat, "creat"},       {SYS_fork, "fork"},
    {SYS_vfork, "vfork"},         {SYS_unlink, "unlink"},       {SYS_rename, "rename"},
    {SYS_mkdir, "mkdir"},
#endif
};

static size_t put_str(char *b, size_t at, size_t cap, const char *s)
{
    while (*s && at + 1 < cap)
        b[at++] = *s++;
    return at;
}

/* Async-signal-safe: no stdio, no allocation. */
static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int nr = si->si_syscall;
    char num[16], b[128];
    size_t k = sizeof num, n = 0;
    unsigned v = nr < 0 ? 0u : (unsigned)nr;
    num[--k] = 0;
    do
        num[--k] = (char)('0' + v % 10);
    while ((v /= 10) && k);
    n = put_str(b, n, sizeof b, FEED_SANDBOX_REPORT "syscall ");
    for (size_t i = 0; i < sizeof sys_names / sizeof sys_names[0]; i++)
        if (sys_names[i].nr == nr) {
            n = put_str(b, n, sizeof b, sys_names[i].name);
            n = put_str(b, n, sizeof b, ", ");
        }
    n = put_str(b, n, sizeof b, "nr ");
    n = put_str(b, n, sizeof b, num + k);
    ssize_t w = write(FEED_WORKER_REPORT_FD, b, n);
    static const char pre[] = "feed-worker: killed by the ";
    w = write(2, pre, sizeof pre - 1);
    b[n++] = '\n';
    w = write(2, b, n);
    (void)w;
    /* SA_RESETHAND made the action the default again: die by SIGSYS once
     * this handler returns and unblocks it. */
    raise(sig);
}

#define ALLOW(call, ...)                                                                         \
    do {                                                                                         \
        if (rc == 0)                                                                             \
            rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(call), __VA_ARGS__);             \
    } while (0)

/* Opened with one of these, a file could be written: refused. */
#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

static int build_filter(scmp_filter_ctx ctx)
{
    int rc = 0;
    pid_t self = getpid();
    /* Reading files: the pread path (openat, fstat, pread, close) and the
     * io_uring path (io_uring_enter on the ring made at setup). open and
     * openat only without a flag that could write; sanitizer runtimes use
     * open, glibc openat. */
    ALLOW(openat, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, WRITE_FLAGS, 0));
#ifdef SYS_open
    ALLOW(open, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, WRITE_FLAGS, 0));
#endif
#if FEED_TEST_HOOKS
    /* The test hooks' "fire once" markers (fault.c) are made O_EXCL; these
     * exact flags only, so "write:SUB" (O_TRUNC) is still refused. */
    ALLOW(openat, 1, SCMP_A2(SCMP_CMP_EQ, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC));
#endif
    ALLOW(read, 0);
    ALLOW(pread64, 0);
    ALLOW(readv, 0);
    ALLOW(lseek, 0);
#ifdef SYS_fstat
    ALLOW(fstat, 0);
#endif
#ifdef SYS_newfstatat
    ALLOW(newfstatat, 0);
#endif
    ALLOW(statx, 0);
    ALLOW(close, 0);
    ALLOW(io_uring_enter, 0);
#ifdef SYS_readlink
    ALLOW(readlink, 0); /* sanitizers: /proc/self/exe for a report */
#endif
    ALLOW(readlinkat, 0);
    /* Memory: malloc (brk, mmap, munmap, mremap, madvise), libjpeg's pools,
     * glibc's mprotect of a grown heap. madvise only with the advice malloc
     * gives (and hints): MADV_REMOVE would free the arena's pages under the
     * parent's feet (pinned for DMA, they would be orphaned and the device
     * would copy stale ones); fallocate (punching a hole) is not allowed at
     * all. */
    ALLOW(brk, 0);
    ALLOW(mmap, 0);
    ALLOW(munmap, 0);
    ALLOW(mremap, 0);
    ALLOW(mprotect, 0);
#if FEED_SANITIZED
    /* the sanitizers' runtimes use more advice; never MADV_REMOVE */
    ALLOW(madvise, 1, SCMP_A2(SCMP_CMP_NE, (scmp_datum_t)MADV_REMOVE));
#else
    static const int advice[] = {MADV_NORMAL,   MADV_RANDOM,    MADV_SEQUENTIAL, MADV_WILLNEED,
                                 MADV_DONTNEED, MADV_FREE,      MADV_DONTDUMP,   MADV_DODUMP,
                                 MADV_HUGEPAGE, MADV_NOHUGEPAGE};
    for (size_t i = 0; i < sizeof advice / sizeof advice[0]; i++)
        ALLOW(madvise, 1, SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)advice[i]));
#endif
    /* Publishing: the ring's futex waits and wakes, the clock (vDSO, with a
     * system call fallback), stderr and the report pipe only. */
    ALLOW(futex, 0);
    ALLOW(clock_gettime, 0);
    ALLOW(gettimeofday, 0);
    ALLOW(clock_nanosleep, 0);
    ALLOW(nanosleep, 0);
    ALLOW(sched_yield, 0);
    ALLOW(getrandom, 0);
    ALLOW(write, 1, SCMP_A0(SCMP_CMP_EQ, 2));
    ALLOW(write, 1, SCMP_A0(SCMP_CMP_EQ, FEED_WORKER_REPORT_FD));
    ALLOW(writev, 1, SCMP_A0(SCMP_CMP_EQ, 2)); /* glibc's fatal messages */
    /* Ending: exit, and the signals abort() and raise() send to this
     * process (the fault tests' abort and segv too); SIGSYS keeps its
     * handler. A hung worker waits in pause (the "hang" fault). */
    ALLOW(exit, 0);
    ALLOW(exit_group, 0);
    ALLOW(rt_sigreturn, 0);
    ALLOW(restart_syscall, 0);
    ALLOW(rt_sigprocmask, 0);
    ALLOW(rt_sigaction, 1, SCMP_A0(SCMP_CMP_NE, SIGSYS));
    ALLOW(sigaltstack, 0);
    ALLOW(getpid, 0);
    ALLOW(gettid, 0);
    ALLOW(tgkill, 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    ALLOW(kill, 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
#ifdef SYS_pause
    ALLOW(pause, 0);
#endif
    ALLOW(rt_sigsuspend, 0);
    ALLOW(ppoll, 0);
    /* Reading limits only (a new one is refused; RLIMIT_AS's hard limit is
     * set already, so it could not be raised anyway). */
#ifdef SYS_getrlimit
    ALLOW(getrlimit, 0);
#endif
    ALLOW(prlimit64, 1, SCMP_A2(SCMP_CMP_EQ, 0));
#if FEED_SANITIZED
    /* The sanitizers' runtimes, reporting or in their background thread. */
    ALLOW(sched_getaffinity, 0);
    ALLOW(getrusage, 0);
    ALLOW(uname, 0);
    ALLOW(pipe2, 0);
#endif
    return rc;
}

/* Mapped bytes now (VmSize), 0 if unknown. */
static uint64_t mapped_now(void)
{
    FILE *f = fopen("/proc/self/statm", "re");
    unsigned long long pages = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%llu", &pages) != 1)
        pages = 0;
    fclose(f);
    return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

int feed__sandbox_enter(uint32_t sandbox, uint64_t max_memory, char *err, size_t errlen)
{
    /* The kernel kills a worker before the trainer. Raising one's own
     * oom_score_adj needs no privilege; where /proc is missing, go on. */
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = write(fd, "1000", 4);
        (void)n;
        close(fd);
    }
    if (max_memory && !FEED_SANITIZED) {
        uint64_t now = mapped_now();
        struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
        if (now && max_memory < RLIM_INFINITY - now)
            rl.rlim_cur = rl.rlim_max = now + max_memory;
        if (rl.rlim_cur != RLIM_INFINITY && setrlimit(RLIMIT_AS, &rl) != 0) {
            snprintf(err, errlen, "cannot set RLIMIT_AS to %llu bytes (max_worker_memory): %s",
                     (unsigned long long)rl.rlim_cur, strerror(errno));
            return -1;
        }
    }
    if (!sandbox)
        return 0;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, NULL) != 0) {
        snprintf(err, errlen, "sandbox: cannot handle SIGSYS: %s", strerror(errno));
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        fprintf(stderr, "feed-worker: no_new_privs unavailable (%s): running without the sandbox\n",
                strerror(errno));
        return 0;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
    if (!ctx) {
        snprintf(err, errlen, "sandbox: seccomp_init failed (out of memory?)");
        return -1;
    }
    int rc = build_filter(ctx);
    if (rc != 0) {
        seccomp_release(ctx);
        snprintf(err, errlen, "sandbox: building the seccomp filter failed: %s", strerror(-rc));
        return -1;
    }
    rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0) /* the kernel has no seccomp filters (or a container forbids them) */
        fprintf(stderr, "feed-worker: seccomp unavailable (%s): running without the sandbox\n",
                strerror(-rc));
    return 0;
}

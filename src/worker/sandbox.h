/*
 * sandbox.h - what a worker does to itself once it is set up (arena and
 * index mapped, dataset root open, reader and decoder made) and before it
 * takes work. Linked into the feed-worker executables only (it needs
 * libseccomp; libfeed.so does not).
 *
 *   - oom_score_adj 1000: under memory pressure the kernel kills a worker
 *     (which the pool replaces) before the trainer;
 *   - max_memory > 0: RLIMIT_AS, soft and hard, at what is mapped now plus
 *     max_memory, so a decode that gets past the header check
 *     (jpeg.c) fails its allocation instead of growing without bound (not
 *     under ASan/TSan, whose allocators map shadow and quarantine on the way
 *     and abort on a failed allocation);
 *   - sandbox: PR_SET_NO_NEW_PRIVS and a seccomp filter that allows the
 *     read, decode and publish path only (the list and why each entry is in
 *     sandbox.c). Any other system call traps: a SIGSYS handler writes
 *     "sandbox: syscall NAME, nr NR" on the report pipe (arena/protocol.h) and the
 *     worker dies by SIGSYS, which the pool reports as "worker N killed by the
 *     sandbox (syscall NAME, nr NR)". Where the kernel refuses seccomp filters the
 *     worker says so on stderr and runs without one.
 *
 * io_uring requests are not system calls and seccomp never sees them: the
 * reader's ring only ever opens files O_RDONLY (READER_OPEN_FLAGS in
 * reader.c), and the filter refuses io_uring_setup and io_uring_register, so
 * no other ring can be made or reconfigured once the sandbox is on.
 */
#ifndef FEED_SANDBOX_H
#define FEED_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

/* Applies the above (sandbox: 0 or 1; max_memory: bytes, 0 = no cap).
 * Returns 0, or -1 with the reason in err. */
int feed__sandbox_enter(uint32_t sandbox, uint64_t max_memory, char *err, size_t errlen);

#endif

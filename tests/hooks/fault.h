/*
 * fault.h - fault injection for the test worker (FEED_TEST_HOOKS builds only).
 *
 * FEED_TEST_FAULT in the worker's environment: "abort:SUB", "segv:SUB",
 * "exit:SUB" or "hang:SUB" makes the worker abort, crash, exit(3) or hang on
 * any sample whose path contains SUB; several may be given separated by ';'.
 * The general form is ACTION[1][@PHASE]:SUB[:MARKER]:
 *   - a "1" after the action ("hang1", "exit1", ...) fires only once: the
 *     worker creates MARKER (O_EXCL) first and does nothing if it exists, so
 *     the retry of the sample succeeds;
 *   - PHASE is where it fires: "read" (default: before the file is read, for
 *     the sample and for any substitute), "decode" (after the read, before
 *     the decode) or "publish" (after the pixels, label, id and flags of the
 *     slot's own sample are written, before the sample is marked done).
 * Actions besides those: "slow" sleeps $FEED_TEST_SLOW_MS (default 1000) ms
 * and goes on; "eio" makes the next pread of the reader's table fail once
 * with EIO (then the real calls are back); "ioerr" makes every pread of
 * this file fail with EIO. Both act through feed__reader_test_syscalls, so
 * with reader=pread only; they are undone when the next file is read.
 * "nomem" makes the file's next decode return FEED_E_NOMEM (as a decoder
 * out of memory would), once; "nomemall" every decode of it (the worker
 * tries FEED_READER_TRIES times); both end when the next file is read.
 * "hangidle" hangs while every worker record keeps saying "nothing busy"
 * (all but its state and pid zeroed every millisecond); "exitlie" zeroes
 * them too, adds one to each of their 64-bit words (every counter: "one
 * more sample") and exits(3). What a worker writes in a record must neither
 * hide a hang nor feign progress.
 * "flicker" keeps its claim for ever while writing FREE over it 9 ms in
 * every 10 (the claim again for 1 ms): a hang that a timer starting afresh
 * whenever it sees no claim would never find.
 * "spew" writes on its stderr a line of terminal escape sequences (ESC
 * [31m, BEL, an OSC title), a line of 3000 bytes, then
 * $FEED_TEST_SPEW_LINES (default 5000) lines "flood N" as fast as it can,
 * and goes on.
 * "leak" allocates memory 1 MiB at a time, touches it and never frees it:
 * when an allocation is refused (the worker's address space cap,
 * max_worker_memory) the worker dies by SIGKILL, as the kernel's
 * out-of-memory killer would make it; once it holds 768 MiB it exits
 * FEED_FAULT_ESCAPED instead (no cap stopped it).
 * "poke" stores 1 in every 32-bit word of the arena header between the
 * configuration page and the worker records (the futex words and whatever
 * else lies there) and goes on: nothing there may stop a healthy worker.
 * "hdr" writes $FEED_TEST_HDR ("FIELD=VALUE": count, seq, epoch, index,
 * gen, phase or ticket; VALUE a number, bs-1, bs+1 or max) into that field
 * of every slot header and goes on: the boundary values a random scribble
 * almost never makes.
 * "unseal" makes the configuration page writable (mprotect; where that is
 * refused, a fresh writable shared mapping of the arena's first page, fd 3)
 * and rewrites its layout version, seed and transform (flip_p) again and
 * again for $FEED_TEST_UNSEAL_MS (default 5) ms, then goes on.
 * "socket:SUB", "write:SUB:PATH" and "exec:SUB" try what the sandbox
 * (sandbox.h) refuses: open a TCP socket, create PATH for writing, exec
 * /bin/sh; "mprotect:SUB" what the seal (arena/arena.h) refuses: mprotect the
 * configuration page writable, map its memfd writable afresh. The worker
 * then exits FEED_FAULT_ESCAPED if that worked, FEED_FAULT_REFUSED if the
 * call failed; under the sandbox it is killed by SIGSYS instead (not for
 * "mprotect", which the sandbox allows). Likewise "fork:SUB" (glibc's fork,
 * the clone system call), "clone:SUB" (clone3, raw), "ptrace:SUB"
 * (PTRACE_TRACEME); and "index:SUB" what the dataset index's seals refuse
 * (feed__fault_index_writable on fd 4).
 *
 * FEED_TEST_SCRIBBLE="SEED:PERMILLE[:W]" makes worker W (every worker if no
 * W) hostile: right after each claim and again just before it completes,
 * with probability PERMILLE/1000, it scribbles random bytes over its
 * sample's pixels and over one word the parent checks (its state word, id
 * or label), and over up to three more of what it can write: flags, the
 * record's status, errno, message, substitute counters, sample_id, the slot
 * header's fields, its trace ring's head or an event, its worker record, or
 * the sealed configuration page (which kills it: SIGSEGV). It never
 * touches another sample, nor the record's filler (the parent's way to
 * tell who wrote a sample). With FEED_TEST_SCRIBBLE_COUNT=PATH the file's
 * first two uint64 count the scribbles and the fields scribbled (a shared
 * mapping: the sandbox allows no write() there). With
 * FEED_TEST_SCRIBBLE_AREA=control it scribbles the arena header's control
 * words instead, and nothing else: each time 1 to 64 random bytes anywhere
 * from the first word after the configuration page to the end of the last
 * worker's record (the futex words and every worker's record, not only its
 * own), counted as one field. With FEED_TEST_SCRIBBLE_AREA=meta (an arena
 * with metadata members) it changes one of its sample's member lengths
 * (adds 1 to 255 to it) and scribbles the member bytes, nothing else.
 */
#ifndef FEED_FAULT_H
#define FEED_FAULT_H

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena/arena.h"
#include "arena/ring.h"
#include "common/rng.h"

enum { FAULT_READ, FAULT_DECODE, FAULT_PUBLISH };

#define FEED_FAULT_ESCAPED 42
#define FEED_FAULT_REFUSED 43
typedef struct feed__scribbler {
    int on;
    int control; /* FEED_TEST_SCRIBBLE_AREA=control */
    int meta;    /* FEED_TEST_SCRIBBLE_AREA=meta */
    uint32_t permille;
    feed__rng rng;
    _Atomic uint64_t *counts; /* FEED_TEST_SCRIBBLE_COUNT mapped: scribbles, fields */
} feed__scribbler;

/* Reads FEED_TEST_SCRIBBLE for worker w (off when unset or not w). */
void feed__scribble_init(feed__scribbler *s, uint32_t w);
/* Maybe scribbles over claim c of worker w (see above). */
void feed__scribble_maybe(feed__scribbler *s, const feed__arena *a, uint32_t w, const feed__claim *c);

/* What of a sealed, read-only memfd fd can be changed: a mask of
 * FEED_FAULT_IX_* (0: nothing; the index a worker gets must give 0). */
enum {
    FEED_FAULT_IX_SEALS = 1,  /* F_GET_SEALS lacks SHRINK, GROW, WRITE or SEAL */
    FEED_FAULT_IX_MMAP = 2,   /* a writable shared mapping was made */
    FEED_FAULT_IX_PWRITE = 4, /* a byte was written with pwrite */
    FEED_FAULT_IX_RESIZE = 8  /* ftruncate grew or shrank it */
};
/* Static: the worker tries it on its index, a test on its own memfds (the control). */
static inline int feed__fault_index_writable(int fd)
{
    int got = 0;
    const int want = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & want) != want)
        got |= FEED_FAULT_IX_SEALS;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || sb.st_size <= 0)
        return got | FEED_FAULT_IX_SEALS; /* nothing to try on */
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p != MAP_FAILED) {
        got |= FEED_FAULT_IX_MMAP;
        munmap(p, (size_t)sb.st_size);
    }
    char first;
    if (pread(fd, &first, 1, 0) == 1 && pwrite(fd, &first, 1, 0) == 1) /* the same byte back */
        got |= FEED_FAULT_IX_PWRITE;
    if (ftruncate(fd, sb.st_size + 4096) == 0 || ftruncate(fd, sb.st_size - 1) == 0) {
        got |= FEED_FAULT_IX_RESIZE;
        if (ftruncate(fd, sb.st_size) != 0) /* as it was, for the control's own memfd */
            got |= FEED_FAULT_IX_RESIZE;
    }
    return got;
}

/* Decodes left to fail with FEED_E_NOMEM ("nomem": 1, "nomemall": -1, for
 * ever); the worker's decode loop reads it. */
extern int feed__fault_nomem;

/* Fires the first fault of faults (the FEED_TEST_FAULT text, may be NULL)
 * that matches path at phase; a is the worker's arena ("poke"). */
void feed__fault_maybe(const char *faults, const feed__arena *a, const char *path, int phase);

#endif

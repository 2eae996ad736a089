/*
 * fault.c - the worker's fault injection, compiled into the test worker only
 * (feed-worker-test, FEED_TEST_HOOKS): the fault tests make a worker crash,
 * exit or hang on chosen samples to prove the pool recovers. See fault.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"
#include "reader.h"

static int io_armed; /* a pread override of "eio"/"ioerr" is installed */

static ssize_t pread_eio_once(int fd, void *buf, size_t n, off_t off)
{
    feed__reader_test_syscalls(NULL);
    io_armed = 0;
    errno = EIO;
    return -1;
}

static ssize_t pread_eio(int fd, void *buf, size_t n, off_t off)
{
    errno = EIO;
    return -1;
}

/* What a worker must not be able to do (the sandbox tests): exits
 * FEED_FAULT_ESCAPED if it could, FEED_FAULT_REFUSED if the call failed.
 * Under the sandbox the call traps and the worker dies by SIGSYS first. */
static void try_escape(const char *what, const char *path)
{
    int ok = 0;
    if (!strcmp(what, "socket")) {
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ok = s >= 0;
    } else if (!strcmp(what, "write")) {
        int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
        ok = fd >= 0 && write(fd, "escaped\n", 8) == 8;
    } else if (!strcmp(what, "exec")) {
        char code[8];
        snprintf(code, sizeof code, "exit %d", FEED_FAULT_ESCAPED);
        execl("/bin/sh", "sh", "-c", code, (char *)NULL);
    }
    _exit(ok ? FEED_FAULT_ESCAPED : FEED_FAULT_REFUSED);
}

void feed__fault_maybe(const char *faults, const char *path, int phase)
{
    if (!faults)
        return;
    if (phase == FAULT_READ && io_armed) { /* a new file: the last one's override ends */
        feed__reader_test_syscalls(NULL);
        io_armed = 0;
    }
    char spec[1024];
    snprintf(spec, sizeof spec, "%s", faults);
    char *save = NULL;
    for (char *it = strtok_r(spec, ";", &save); it; it = strtok_r(NULL, ";", &save)) {
        char *sub = strchr(it, ':');
        if (!sub || !sub[1])
            continue;
        *sub++ = 0;
        int at = FAULT_READ;
        char *ph = strchr(it, '@');
        if (ph) {
            *ph++ = 0;
            at = !strcmp(ph, "decode") ? FAULT_DECODE : !strcmp(ph, "publish") ? FAULT_PUBLISH : FAULT_READ;
        }
        if (at != phase)
            continue;
        size_t alen = strlen(it);
        int once = alen > 1 && it[alen - 1] == '1';
        char *marker = NULL;
        int escape = !strcmp(it, "socket") || !strcmp(it, "write") || !strcmp(it, "exec");
        if (escape) { /* "write:SUB:PATH": the file to create */
            marker = strchr(sub, ':');
            if (marker)
                *marker++ = 0;
        }
        if (once && !escape) {
            it[alen - 1] = 0;
            marker = strchr(sub, ':');
            if (!marker || !marker[1])
                continue;
            *marker++ = 0;
        }
        if (!strstr(path, sub))
            continue;
        if (escape)
            try_escape(it, marker);
        if (once && !escape) {
            int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd < 0)
                continue; /* fired before (or cannot tell): behave */
            close(fd);
        }
        if (!strcmp(it, "abort"))
            abort();
        if (!strcmp(it, "segv"))
            raise(SIGSEGV);
        if (!strcmp(it, "exit"))
            _exit(3);
        if (!strcmp(it, "hang"))
            for (;;)
                pause();
        if (!strcmp(it, "slow")) {
            const char *ms = getenv("FEED_TEST_SLOW_MS");
            long v = ms ? atol(ms) : 1000;
            struct timespec ts = {v / 1000, (v % 1000) * 1000000L};
            while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
                ;
            return;
        }
        if (!strcmp(it, "eio") || !strcmp(it, "ioerr")) {
            feed__reader_syscalls s = {.pread = it[1] == 'i' ? pread_eio_once : pread_eio};
            feed__reader_test_syscalls(&s);
            io_armed = 1;
            return;
        }
    }
}


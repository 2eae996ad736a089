/*
 * fault.c - the worker's fault injection, compiled into the test worker only
 * (feed-worker-test, FEED_TEST_HOOKS): the fault tests make a worker crash,
 * exit or hang on chosen samples to prove the pool recovers. See fault.h.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"

void feed__fault_maybe(const char *faults, const char *path, int phase)
{
    if (!faults)
        return;
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
        if (once) {
            it[alen - 1] = 0;
            marker = strchr(sub, ':');
            if (!marker || !marker[1])
                continue;
            *marker++ = 0;
        }
        if (!strstr(path, sub))
            continue;
        if (once) {
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
    }
}


/*
 * output.c - what workers write on their stderr reaches the host's only
 * through the parent: each worker's fd 2 is a pipe the supervisor reads
 * (epoll), and each line is shown as "libfeed: worker N: LINE", its bytes
 * outside printable ASCII as \xNN (no terminal escape sequence, no forged
 * line of the host's), at most FEED_OUT_LINE bytes of it, at most
 * FEED_OUT_BURST lines at once and FEED_OUT_PER_S a second after that per
 * worker; the lines over that are counted and said ("N lines dropped")
 * before the next one shown, or when the worker ends.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common/internal.h"
#include "supervise/pool.h"
#include "supervise/verify.h"

/* One line's bytes shown (the rest of a longer one is cut, and says so). */
#define FEED_OUT_LINE 1024u
#define FEED_OUT_BURST 20u
#define FEED_OUT_PER_S 5u
/* Read per wake-up and worker: a flood cannot keep the supervisor from its
 * other work (epoll says again that there is more). */
#define FEED_OUT_READ 65536u

struct feed__worker_out {
    uint32_t len;      /* bytes of the line so far in buf */
    uint8_t cut;       /* the line is longer than buf: the rest is skipped */
    uint32_t tokens;   /* lines that may be shown now */
    uint64_t refill_ns; /* when the next token comes */
    uint64_t dropped;  /* lines not shown since the last one that was */
    char buf[FEED_OUT_LINE];
};

feed_status feed__output_init(feed__pool *p)
{
    p->out = feed__calloc(FEED_ARENA_MAX_WORKERS, sizeof *p->out);
    for (uint32_t i = 0; p->out && i < FEED_ARENA_MAX_WORKERS; i++)
        p->out[i].tokens = FEED_OUT_BURST;
    return p->out ? FEED_OK : FEED_E_NOMEM;
}

static void say_dropped(feed__pool *p, uint32_t i)
{
    struct feed__worker_out *o = &p->out[i];
    if (o->dropped)
        fprintf(stderr, "libfeed: worker %u: %llu line%s dropped (more than %u a second)\n", i,
                (unsigned long long)o->dropped, o->dropped == 1 ? "" : "s", FEED_OUT_PER_S);
    o->dropped = 0;
}

/* The line in o->buf is complete: show it or count it. */
static void line_done(feed__pool *p, uint32_t i)
{
    struct feed__worker_out *o = &p->out[i];
    uint64_t now = feed__now_ns(), step = 1000000000ull / FEED_OUT_PER_S;
    if (o->tokens >= FEED_OUT_BURST)
        o->refill_ns = now + step;
    while (o->tokens < FEED_OUT_BURST && now >= o->refill_ns)
        o->tokens++, o->refill_ns += step;
    if (o->tokens == 0) {
        o->dropped++;
    } else {
        o->tokens--;
        say_dropped(p, i);
        char shown[4 * FEED_OUT_LINE + 1];
        feed__copy_untrusted(shown, sizeof shown, o->buf, o->len);
        fprintf(stderr, "libfeed: worker %u: %s%s\n", i, shown, o->cut ? " [line cut]" : "");
    }
    o->len = 0, o->cut = 0;
}

/* Reads what worker i wrote (at most max bytes); returns what read returned
 * last (0: end of file, the worker is gone). */
static ssize_t pump(feed__pool *p, uint32_t i, size_t max)
{
    struct feed__worker_out *o = &p->out[i];
    char chunk[4096];
    ssize_t k = -1;
    size_t got = 0;
    while (got < max && (k = read(p->outfds[i], chunk, sizeof chunk)) > 0) {
        got += (size_t)k;
        for (ssize_t j = 0; j < k; j++) {
            if (chunk[j] == '\n') {
                line_done(p, i);
            } else if (o->len < sizeof o->buf) {
                o->buf[o->len++] = chunk[j] ? chunk[j] : ' '; /* a NUL would end the copy */
            } else {
                o->cut = 1;
            }
        }
    }
    return k;
}

void feed__output_read(feed__pool *p, uint32_t i)
{
    if (i < p->n && p->outfds[i] >= 0)
        pump(p, i, FEED_OUT_READ);
}

void feed__output_close(feed__pool *p, uint32_t i)
{
    if (p->outfds[i] < 0)
        return;
    /* The worker is gone: what it wrote is all in the pipe (no other
     * process holds its write end), so read to the end, then say the rest. */
    ssize_t k;
    size_t left = 16 * FEED_OUT_READ; /* bounded: a child it left (sandbox=0) may still write */
    do
        k = pump(p, i, left), left -= FEED_OUT_READ;
    while (k < 0 && errno == EINTR && left);
    if (p->out[i].len || p->out[i].cut)
        line_done(p, i);
    say_dropped(p, i);
    epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->outfds[i], NULL);
    close(p->outfds[i]);
    p->outfds[i] = -1;
}

void feed__output_free(feed__pool *p)
{
    for (uint32_t i = 0; i < FEED_ARENA_MAX_WORKERS; i++)
        if (p->outfds[i] >= 0) {
            close(p->outfds[i]);
            p->outfds[i] = -1;
        }
    feed__free(p->out);
    p->out = NULL;
}

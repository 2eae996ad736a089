/*
 * fault.c - the worker's fault injection, compiled into the test worker only
 * (feed-worker-test, FEED_TEST_HOOKS): the fault tests make a worker crash,
 * exit or hang on chosen samples to prove the pool recovers, or scribble
 * over what they can write to prove the parent does not trust it. See fault.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <linux/sched.h> /* struct clone_args */
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hooks/fault.h"
#include "arena/protocol.h"
#include "common/internal.h"
#include "io/reader.h"

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
 * Under the sandbox the call traps and the worker dies by SIGSYS first
 * ("mprotect" excepted: the sandbox allows it, the seal refuses it; and
 * "resize", the arena's size sealed, for sandbox=0). */
static void try_escape(const feed__arena *a, const char *what, const char *path)
{
    int ok = 0;
    if (!strcmp(what, "mprotect")) {
        /* The configuration page writable, in place or mapped afresh. */
        ok = mprotect(a->hdr, FEED_ARENA_CFG_BYTES, PROT_READ | PROT_WRITE) == 0;
        void *p = mmap(NULL, FEED_ARENA_CFG_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, a->cfg_fd, 0);
        ok |= p != MAP_FAILED;
    } else if (!strcmp(what, "resize")) {
        /* The arena shorter (the parent would SIGBUS on the lost pages) or longer. */
        struct stat sb;
        ok = fstat(a->fd, &sb) == 0 && (ftruncate(a->fd, sb.st_size / 2) == 0 ||
                                         ftruncate(a->fd, sb.st_size + 4096) == 0);
    } else if (!strcmp(what, "socket")) {
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ok = s >= 0;
    } else if (!strcmp(what, "write")) {
        int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
        ok = fd >= 0 && write(fd, "escaped\n", 8) == 8;
    } else if (!strcmp(what, "fork")) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(0);
        ok = pid > 0 && waitpid(pid, NULL, 0) == pid;
    } else if (!strcmp(what, "clone")) {
        struct clone_args ca = {.exit_signal = SIGCHLD};
        long pid = syscall(SYS_clone3, &ca, sizeof ca);
        if (pid == 0)
            _exit(0);
        ok = pid > 0 && waitpid((pid_t)pid, NULL, 0) == pid;
    } else if (!strcmp(what, "ptrace")) {
        ok = ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0;
    } else if (!strcmp(what, "madvise")) {
        /* The arena's last page taken from its memfd (MADV_REMOVE): pages
         * another process pinned for DMA would be orphaned, and the device
         * would read stale ones with no error. */
        size_t pg = (size_t)sysconf(_SC_PAGESIZE);
        uint8_t *last = (uint8_t *)a->hdr + ((a->bytes - 1) & ~(pg - 1));
        ok = madvise(last, pg, MADV_REMOVE) == 0;
    } else if (!strcmp(what, "punch")) {
        /* The same through the file: a hole punched in the arena's memfd. */
        size_t pg = (size_t)sysconf(_SC_PAGESIZE);
        ok = fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)((a->bytes - 1) & ~(pg - 1)),
                       (off_t)pg) == 0;
    } else if (!strcmp(what, "index")) {
        ok = feed__fault_index_writable(FEED_WORKER_INDEX_FD) != 0;
    } else if (!strcmp(what, "exec")) {
        char code[8];
        snprintf(code, sizeof code, "exit %d", FEED_FAULT_ESCAPED);
        execl("/bin/sh", "sh", "-c", code, (char *)NULL);
    }
    _exit(ok ? FEED_FAULT_ESCAPED : FEED_FAULT_REFUSED);
}


/* "poke": 1 in every 32-bit word of the header between the configuration
 * page and the worker records (the futex words and whatever else lies
 * there), as code run by a codec bug could store. */
static void poke_control(const feed__arena *a)
{
    _Atomic uint32_t *w = (_Atomic uint32_t *)((char *)a->hdr + FEED_ARENA_CFG_BYTES);
    size_t n = (offsetof(feed__arena_hdr, workers) - FEED_ARENA_CFG_BYTES) / sizeof *w;
    for (size_t k = 0; k < n; k++)
        atomic_store(&w[k], 1);
}

/* "unseal": the configuration page made writable as code run by a codec
 * bug could: mprotect, else a fresh writable shared mapping of the arena's
 * first page (fd 3, which a worker may map as it likes); then the layout
 * version, the seed and the transform rewritten again and again for
 * $FEED_TEST_UNSEAL_MS (default 5) ms, so that a worker started meanwhile
 * attaches while they are rewritten. */
static void unseal_config(const feed__arena *a)
{
    static volatile feed__arena_hdr *h;
    if (!h && mprotect(a->hdr, FEED_ARENA_CFG_BYTES, PROT_READ | PROT_WRITE) == 0)
        h = a->hdr;
    if (!h) {
        void *p = mmap(NULL, FEED_ARENA_CFG_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, a->fd, 0);
        if (p == MAP_FAILED)
            return;
        h = p;
    }
    const char *ms = getenv("FEED_TEST_UNSEAL_MS");
    uint64_t until = feed__now_ns() + (uint64_t)(ms ? atol(ms) : 5) * 1000000ull;
    do {
        h->layout_version = FEED_ARENA_VERSION + 1;
        h->seed = 0x5eed5eedull;
        h->xform.flip_p = 1.0f;
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    } while (feed__now_ns() < until);
}

/* "hangidle", "exitlie": every worker record, past its state and pid,
 * zeroed (nothing busy); with bump, each of those 64-bit words then one
 * higher (every counter says "one more sample"). */
_Static_assert(offsetof(feed__worker_rec, reader_kind) == 8, "state and pid first");

static void lie_in_records(const feed__arena *a, int bump)
{
    for (uint32_t w = 0; w < a->lay.nworkers; w++) {
        feed__worker_rec *r = &a->hdr->workers[w];
        memset((char *)r + 8, 0, sizeof *r - 8); /* state and pid are the first 8 bytes */
        _Atomic uint64_t *words = (_Atomic uint64_t *)r;
        for (size_t k = 1; bump && k < sizeof *r / 8; k++)
            atomic_fetch_add_explicit(&words[k], 1, memory_order_relaxed);
    }
}

/* "flicker": this worker keeps its claim for ever but shows it a tenth of
 * the time: FREE over it for 9 ms, the claim again for 1 ms, and again. */
static void flicker(const feed__arena *a)
{
    _Atomic uint32_t *mine = NULL;
    uint32_t word = 0;
    struct timespec ms = {0, 1000000}, ms9 = {0, 9000000};
    while (!mine) { /* the parent writes the pid after the spawn: look until it is there */
        uint32_t w = UINT32_MAX;
        for (uint32_t i = 0; i < a->lay.nworkers; i++)
            if (a->hdr->workers[i].pid == getpid())
                w = i;
        for (uint32_t i = 0; w != UINT32_MAX && i < a->lay.nslots && !mine; i++)
            for (uint32_t t = 0; t < a->lay.batch_size && !mine; t++) {
                _Atomic uint32_t *st = &feed__slot_states(a, i)[t];
                if ((atomic_load(st) & 0xffu) == w + 1)
                    mine = st, word = atomic_load(st);
            }
        if (!mine)
            nanosleep(&ms, NULL);
    }
    for (;;) {
        atomic_store(mine, word & ~0xffu);
        nanosleep(&ms9, NULL);
        atomic_store(mine, word);
        nanosleep(&ms, NULL);
    }
}

/* "spew": on its stderr, a line of terminal escapes, a line of 3000 bytes,
 * then $FEED_TEST_SPEW_LINES (default 5000) lines "flood N", as fast as it
 * can, and goes on. */
static void spew(void)
{
    static const char esc[] = "\x1b[31mred\x1b[0m \x07" "bell \x1b]0;title\x07 end\n";
    static char big[3001];
    memset(big, 'x', 3000);
    big[3000] = '\n';
    const char *n = getenv("FEED_TEST_SPEW_LINES");
    long lines = n ? atol(n) : 5000;
    ssize_t w = write(2, esc, sizeof esc - 1);
    w = write(2, big, sizeof big);
    for (long k = 0; k < lines; k++) {
        char line[32];
        int len = snprintf(line, sizeof line, "flood %ld\n", k);
        w = write(2, line, (size_t)len);
    }
    (void)w;
}

/* "hdr": FEED_TEST_HDR="FIELD=VALUE" into that field of every slot header.
 * VALUE: a number, or bs-1, bs+1 (around batch_size), max (the field's). */
static void hdr_boundary(const feed__arena *a)
{
    const char *spec = getenv("FEED_TEST_HDR");
    const char *eq = spec ? strchr(spec, '=') : NULL;
    if (!eq)
        return;
    size_t flen = (size_t)(eq - spec);
    const char *v = eq + 1;
    uint64_t bs = a->lay.batch_size, val;
    if (!strcmp(v, "bs-1"))
        val = bs - 1;
    else if (!strcmp(v, "bs+1"))
        val = bs + 1;
    else if (!strcmp(v, "max"))
        val = UINT64_MAX;
    else
        val = strtoull(v, NULL, 0);
#define FIELD_IS(name) (flen == sizeof(name) - 1 && !strncmp(spec, name, flen))
    for (uint32_t i = 0; i < a->lay.nslots; i++) {
        feed__slot_hdr *h = feed__slot(a, i);
        if (FIELD_IS("count"))
            h->count = (uint32_t)val;
        else if (FIELD_IS("seq"))
            h->seq = val;
        else if (FIELD_IS("epoch"))
            h->epoch = val;
        else if (FIELD_IS("index"))
            h->index = val;
        else if (FIELD_IS("gen"))
            atomic_store_explicit(&h->gen, (uint32_t)val, memory_order_relaxed);
        else if (FIELD_IS("phase"))
            atomic_store_explicit(&h->phase, (uint32_t)val, memory_order_relaxed);
        else if (FIELD_IS("ticket"))
            atomic_store_explicit(&h->ticket, (uint32_t)val, memory_order_relaxed);
    }
#undef FIELD_IS
}

int feed__fault_nomem;

void feed__fault_maybe(const char *faults, const feed__arena *a, const char *path, int phase)
{
    if (!faults)
        return;
    if (phase == FAULT_READ)
        feed__fault_nomem = 0;
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
        int escape = !strcmp(it, "socket") || !strcmp(it, "write") || !strcmp(it, "exec") ||
                     !strcmp(it, "mprotect") || !strcmp(it, "resize") || !strcmp(it, "fork") ||
                     !strcmp(it, "clone") || !strcmp(it, "ptrace") || !strcmp(it, "index") ||
                     !strcmp(it, "madvise") || !strcmp(it, "punch");
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
            try_escape(a, it, marker);
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
        if (!strcmp(it, "leak")) {
            for (size_t held = 0; held < ((size_t)768 << 20); held += (size_t)1 << 20) {
                volatile char *p = malloc((size_t)1 << 20);
                if (!p)
                    raise(SIGKILL);
                memset((char *)p, 0xa5, (size_t)1 << 20);
            }
            _exit(FEED_FAULT_ESCAPED);
        }
        if (!strcmp(it, "hangidle"))
            for (;;) { /* every record says "nothing busy" */
                lie_in_records(a, 0);
                struct timespec ts = {0, 1000000};
                nanosleep(&ts, NULL);
            }
        if (!strcmp(it, "flicker"))
            flicker(a);
        if (!strcmp(it, "spew")) {
            spew();
            return;
        }
        if (!strcmp(it, "exitlie")) {
            lie_in_records(a, 1);
            _exit(3);
        }
        if (!strcmp(it, "slow")) {
            const char *ms = getenv("FEED_TEST_SLOW_MS");
            long v = ms ? atol(ms) : 1000;
            struct timespec ts = {v / 1000, (v % 1000) * 1000000L};
            while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
                ;
            return;
        }
        if (!strcmp(it, "hdr")) {
            hdr_boundary(a);
            return;
        }
        if (!strcmp(it, "poke")) {
            poke_control(a);
            return;
        }
        if (!strcmp(it, "unseal")) {
            unseal_config(a);
            return;
        }
        if (!strcmp(it, "nomem") || !strcmp(it, "nomemall")) {
            feed__fault_nomem = it[5] ? -1 : 1;
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


void feed__scribble_init(feed__scribbler *s, uint32_t w)
{
    memset(s, 0, sizeof *s);
    const char *e = getenv("FEED_TEST_SCRIBBLE");
    unsigned long long seed = 0;
    unsigned permille = 0;
    int who = -1;
    if (!e || sscanf(e, "%llu:%u:%d", &seed, &permille, &who) < 2 || (who >= 0 && (uint32_t)who != w))
        return;
    s->on = 1;
    s->permille = permille;
    const char *area = getenv("FEED_TEST_SCRIBBLE_AREA");
    s->control = area && !strcmp(area, "control");
    s->meta = area && !strcmp(area, "meta");
    feed__rng_init(&s->rng, seed, w, (uint64_t)getpid(), 0);
    /* Counted in a shared mapping of the file, not with write(): the
     * sandbox lets a worker write only its report pipe. */
    const char *cnt = getenv("FEED_TEST_SCRIBBLE_COUNT");
    int fd = cnt && *cnt ? open(cnt, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) == 0 && (sb.st_size >= 16 || ftruncate(fd, 16) == 0)) {
        void *p = mmap(NULL, 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p != MAP_FAILED)
            s->counts = p;
    }
    if (fd >= 0)
        close(fd);
}

static void noise(feed__scribbler *s, void *p, size_t n)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)feed__rng_u64(&s->rng);
}

#define NOISE(x) noise(s, (void *)&(x), sizeof(x))

void feed__scribble_maybe(feed__scribbler *s, const feed__arena *a, uint32_t w, const feed__claim *c)
{
    if (!s->on || feed__rng_below(&s->rng, 1000) >= s->permille)
        return;
    if (s->control) {
        /* 1 to 64 bytes anywhere from the first control word to the end of
         * the last worker's record: any worker's, not only its own. */
        size_t lo = FEED_ARENA_CFG_BYTES;
        size_t hi = offsetof(feed__arena_hdr, workers) + (size_t)a->lay.nworkers * sizeof(feed__worker_rec);
        size_t at = lo + (size_t)feed__rng_below(&s->rng, hi - lo);
        size_t len = 1 + (size_t)feed__rng_below(&s->rng, 64);
        noise(s, (char *)a->hdr + at, len < hi - at ? len : hi - at);
        if (s->counts) {
            atomic_fetch_add(&s->counts[0], 1);
            atomic_fetch_add(&s->counts[1], 1);
        }
        return;
    }
    const uint32_t i = c->slot, t = c->t;
    if (s->meta && a->lay.nmeta) { /* a length no healthy worker writes */
        uint32_t *len = &feed__slot_mlens(a, i)[(uint64_t)t * a->lay.nmeta + feed__rng_below(&s->rng, a->lay.nmeta)];
        *len += 1 + (uint32_t)feed__rng_below(&s->rng, 255);
        noise(s, feed__slot_members(a, i) + (uint64_t)t * a->lay.meta_bytes, a->lay.meta_bytes);
        if (s->counts)
            atomic_fetch_add(&s->counts[0], 1), atomic_fetch_add(&s->counts[1], 1);
        return;
    }
    feed__slot_hdr *sh = feed__slot(a, i);
    feed__sample_rec *r = &feed__slot_recs(a, i)[t];
    uint64_t fields = 0;
    noise(s, feed__slot_pixels(a, i) + (uint64_t)t * a->lay.sample_bytes, a->lay.sample_bytes);
    fields++;
    switch (feed__rng_below(&s->rng, 3)) { /* one the parent checks, always */
    case 0:
        NOISE(feed__slot_states(a, i)[t]);
        break;
    case 1:
        NOISE(feed__slot_ids(a, i)[t]);
        break;
    default:
        NOISE(feed__slot_labels(a, i)[t]);
        break;
    }
    fields++;
    if (s->counts)
        atomic_fetch_add(&s->counts[0], 1);
    for (uint64_t k = feed__rng_below(&s->rng, 4); k > 0; k--) {
        switch (feed__rng_below(&s->rng, 20)) {
        case 0: NOISE(feed__slot_flags(a, i)[t]); break;
        case 1: NOISE(r->status); break;
        case 2: NOISE(r->sys_errno); break;
        case 3: NOISE(r->message); break;
        case 4: NOISE(r->subst_k); break;
        case 5: NOISE(r->attempts), NOISE(r->poisoned), NOISE(r->subst_deaths); break;
        case 6: NOISE(r->sample_id), NOISE(r->repeat); break;
        case 7: NOISE(sh->phase); break;
        case 8: NOISE(sh->gen); break;
        case 9: NOISE(sh->ticket); break;
        case 10: NOISE(sh->count); break;
        case 11: NOISE(sh->seq); break;
        case 12: NOISE(sh->epoch); break;
        case 13: NOISE(sh->index); break;
        case 14: NOISE(feed__trace(a, w)->head); break;
        case 15: NOISE(feed__trace_events(a, w)[feed__rng_below(&s->rng, FEED_TRACE_RING)]); break;
        case 16: NOISE(a->hdr->workers[w]); break;
        case 17: NOISE(feed__slot_states(a, i)[t]); break;
        case 18: NOISE(feed__slot_ids(a, i)[t]), NOISE(feed__slot_labels(a, i)[t]); break;
        default: /* the configuration is the sealed read-only copy: this faults */
            if (s->counts)
                atomic_fetch_add(&s->counts[1], fields + 1);
            NOISE(a->hdr->seed);
            break;
        }
        fields++;
    }
    if (s->counts)
        atomic_fetch_add(&s->counts[1], fields);
}

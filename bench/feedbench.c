/*
 * feedbench.c - does the GPU ever wait for data? A training-loop simulation.
 *
 *   feedbench --data DIR [--loader feed|sync] [--device host|cuda] [--batch 64]
 *             [--workers 2] [--epochs E | --batches N] [--augment train|val]
 *             [--step-ms MS|auto] [--json FILE] [--trace FILE] ...
 *
 * Each batch: get it (feed_loader_next, or for --loader sync decode it right
 * here in the training thread, the naive loop), then run the model step: a
 * GPU kernel that spins for --step-ms (timed with CUDA events), or on the host
 * a sleep of the consumer thread (so it does not take CPU from the workers).
 *
 * busy_fraction = time in the step / wall time, over the measured window
 * (after --warmup batches). 1.0 means the (real or simulated) GPU never waited
 * for data; 1 - busy_fraction is the time it sat idle.
 *
 * The timeline: feed_stats is sampled every --sample-ms on the consumer thread
 * (between polls of next() and during the host step's sleep, so the loader is
 * used from one thread only, as feed.h requires): ring occupancy and the
 * workers' cumulative stage times. --trace writes them, with the consumer's
 * next()/step spans and the GPU's step spans, as a Chrome trace
 * (chrome://tracing, ui.perfetto.dev); bench/plot_trace.py draws it.
 *
 * The sync loader links the library's internal pipeline (src/image.h,
 * index.h, sampler.h, reader.h, convert.h): exactly the per-sample work of a
 * worker, done in-line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <feed.h>

#include "convert.h"
#include "image.h"
#include "index.h"
#include "options.h"
#include "reader.h"
#include "sampler.h"

#if FEEDBENCH_HAVE_CUDA
#include "feedbench_gpu.h"
#endif

/* ---- small helpers --------------------------------------------------------- */

/* user+sys CPU seconds of this process and of its children that have been reaped. */
static double cpu_seconds(void)
{
    struct rusage s, c;
    getrusage(RUSAGE_SELF, &s);
    getrusage(RUSAGE_CHILDREN, &c);
    return s.ru_utime.tv_sec + s.ru_utime.tv_usec * 1e-6 + s.ru_stime.tv_sec + s.ru_stime.tv_usec * 1e-6 +
           c.ru_utime.tv_sec + c.ru_utime.tv_usec * 1e-6 + c.ru_stime.tv_sec + c.ru_stime.tv_usec * 1e-6;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("feedbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

#define VEC(T)          \
    struct {            \
        T *v;           \
        size_t n, cap;  \
    }
#define VEC_PUSH(vec, x)                                                         \
    do {                                                                         \
        if ((vec).n == (vec).cap) {                                              \
            size_t c_ = (vec).cap ? (vec).cap * 2 : 256;                         \
            void *p_ = realloc((vec).v, c_ * sizeof *(vec).v);                   \
            if (!p_)                                                             \
                die("out of memory");                                            \
            (vec).v = p_;                                                        \
            (vec).cap = c_;                                                      \
        }                                                                        \
        (vec).v[(vec).n++] = (x);                                                \
    } while (0)

/* ---- configuration ------------------------------------------------------------ */

typedef struct bench_cfg {
    const char *data;
    uint32_t batch, workers, epochs, warmup, prefetch, calib_batches;
    int epochs_set;
    uint64_t batches; /* 0: all of the epochs */
    const char *augment, *dtype, *device, *loader, *opts, *json, *trace;
    double step_ms, step_factor, sample_ms;
    int step_auto;
    uint64_t seed;
    int progress; /* -1: if stderr is a terminal */
    int quiet;
} bench_cfg;

enum { SP_NEXT, SP_STEP, SP_READ, SP_DECODE, SP_AUGMENT, SP_CONVERT, SP_COPY, SP_GPU_STEP, SP_LAUNCH, SP_IDLE };
static const char *const span_names[] = {"next() wait", "step", "read", "decode", "augment",
                                         "convert", "copy", "step (GPU)", "launch step", "idle (no sample to claim)"};
enum { TID_CONSUMER = 1, TID_GPU = 2, TID_WORKER0 = 100 }; /* worker w: TID_WORKER0 + w */

typedef struct span {
    uint64_t ts, dur; /* ns, ts from the start of the run */
    uint32_t name, tid;
    uint64_t batch;
} span;

/* One sample of the loader's counters (cumulative, as feed_stats has them). */
typedef struct csample {
    uint64_t t;
    uint32_t ready;
    uint64_t read, decode, augment, convert, copy, wait;
} csample;

typedef struct bench {
    bench_cfg c;
    int sync_loader, on_gpu, is_calibration;
    uint64_t sample_ns;
    double step_ms, calib_batch_ms;

    uint64_t t0, t_win, t_end, last_sample, last_progress;
    int in_window;
    uint64_t batches, images, win_batches, win_images, total_batches;
    uint64_t batches_per_epoch, samples_per_epoch, epochs_seen;
    double step_sum_ns, gpu_window_ms;
    uint64_t gpu_base_ns;
    VEC(double) waits_ms; /* per measured batch */
    VEC(span) spans;
    VEC(csample) cs;
    csample win0, win1; /* counters at the window's start and end */
    uint32_t ring_slots;
    double load_start; /* 1-minute load average when the run started */
    double cpu_start;  /* CPU seconds of this process before the loader existed */
    double cpu_s;      /* CPU seconds of the run: this process and its reaped workers */

    uint64_t samples_delivered, samples_bad, worker_restarts, worker_hangs, samples_redone;
    uint64_t trace_lost; /* worker events overwritten before feedbench read them */
    char backend[32], reader[16], pinned[16], readahead[16], gpu_name[128];
    uint64_t readahead_files;
#if FEEDBENCH_HAVE_CUDA
    fb_gpu *gpu;
#endif
} bench;

static void usage(FILE *f)
{
    fputs(
        "usage: feedbench --data DIR [options]\n"
        "\n"
        "A training-loop simulation: get a batch, run a simulated model step, repeat.\n"
        "Reports images/s, the fraction of time the (simulated) GPU is busy, how long\n"
        "the consumer blocks waiting for data, per-stage costs and ring occupancy.\n"
        "\n"
        "  --data DIR          ImageFolder root (or a \"path label\" file list)\n"
        "  --loader feed|sync  feed: libfeed workers (default); sync: decode in the\n"
        "                      training thread, then copy, then step (the naive loop)\n"
        "  --device host|cuda[:N]  where batches go and the step runs (default host)\n"
        "  --batch N           batch size (default 64)\n"
        "  --workers N         worker processes (default 2; ignored by sync)\n"
        "  --epochs E          epochs to run (default 1, or unlimited with --batches)\n"
        "  --batches N         stop after N batches in all\n"
        "  --warmup N          first N batches are not measured (default 2)\n"
        "  --augment train|val|none   transform (default train)\n"
        "  --dtype uint8|float32|float16|bfloat16   output (default uint8)\n"
        "  --step-ms MS|auto   model step per batch (default 0). auto: measure the\n"
        "                      libfeed pipeline's per-batch time first (step 0) and use\n"
        "                      --step-factor times it\n"
        "  --step-factor F     for auto (default 1.2)\n"
        "  --calib-batches N   batches timed by auto (default 12)\n"
        "  --prefetch N        ring slots (library default 4)\n"
        "  --seed S            random seed (default 0)\n"
        "  --opts K=V,...      more libfeed options (feed_options_parse syntax)\n"
        "  --sample-ms MS      timeline sampling interval (default 10; 0: per batch)\n"
        "  --json FILE         write the results as JSON\n"
        "  --trace FILE        write a Chrome trace / Perfetto JSON timeline\n"
        "                      (draw it with bench/plot_trace.py)\n"
        "  --progress | --no-progress   live line on stderr (default: if a terminal)\n"
        "  --quiet             no table\n",
        f);
}

static double parse_num(const char *opt, const char *s, double lo, double hi)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        die("%s %s: expected a number in [%g, %g]", opt, s, lo, hi);
    return v;
}

static void parse_args(bench_cfg *c, int argc, char **argv)
{
    *c = (bench_cfg){.batch = 64, .workers = 2, .epochs = 1, .warmup = 2, .calib_batches = 12,
                     .augment = "train", .dtype = "uint8", .device = "host", .loader = "feed",
                     .step_factor = 1.2, .sample_ms = 10, .progress = -1};
    enum { O_DATA = 256, O_LOADER, O_DEVICE, O_BATCH, O_WORKERS, O_EPOCHS, O_BATCHES, O_WARMUP,
           O_AUGMENT, O_DTYPE, O_STEP, O_FACTOR, O_CALIB, O_PREFETCH, O_SEED, O_OPTS, O_SAMPLE,
           O_JSON, O_TRACE, O_PROGRESS, O_NOPROGRESS, O_QUIET, O_HELP };
    static const struct option lo[] = {
        {"data", 1, 0, O_DATA},         {"loader", 1, 0, O_LOADER},     {"device", 1, 0, O_DEVICE},
        {"batch", 1, 0, O_BATCH},       {"workers", 1, 0, O_WORKERS},   {"epochs", 1, 0, O_EPOCHS},
        {"batches", 1, 0, O_BATCHES},   {"warmup", 1, 0, O_WARMUP},     {"augment", 1, 0, O_AUGMENT},
        {"dtype", 1, 0, O_DTYPE},       {"step-ms", 1, 0, O_STEP},      {"step-factor", 1, 0, O_FACTOR},
        {"calib-batches", 1, 0, O_CALIB}, {"prefetch", 1, 0, O_PREFETCH}, {"seed", 1, 0, O_SEED},
        {"opts", 1, 0, O_OPTS},         {"sample-ms", 1, 0, O_SAMPLE},  {"json", 1, 0, O_JSON},
        {"trace", 1, 0, O_TRACE},       {"progress", 0, 0, O_PROGRESS}, {"no-progress", 0, 0, O_NOPROGRESS},
        {"quiet", 0, 0, O_QUIET},       {"help", 0, 0, O_HELP},         {0, 0, 0, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (ch) {
        case O_DATA: c->data = optarg; break;
        case O_LOADER: c->loader = optarg; break;
        case O_DEVICE: c->device = optarg; break;
        case O_BATCH: c->batch = (uint32_t)parse_num("--batch", optarg, 1, FEED_MAX_BATCH); break;
        case O_WORKERS: c->workers = (uint32_t)parse_num("--workers", optarg, 1, FEED_MAX_WORKERS); break;
        case O_EPOCHS:
            c->epochs = (uint32_t)parse_num("--epochs", optarg, 0, 1e9);
            c->epochs_set = 1;
            break;
        case O_BATCHES: c->batches = (uint64_t)parse_num("--batches", optarg, 1, 1e15); break;
        case O_WARMUP: c->warmup = (uint32_t)parse_num("--warmup", optarg, 0, 1e9); break;
        case O_AUGMENT: c->augment = optarg; break;
        case O_DTYPE: c->dtype = optarg; break;
        case O_STEP:
            if (!strcmp(optarg, "auto"))
                c->step_auto = 1;
            else
                c->step_ms = parse_num("--step-ms", optarg, 0, 1e7);
            break;
        case O_FACTOR: c->step_factor = parse_num("--step-factor", optarg, 0, 1e6); break;
        case O_CALIB: c->calib_batches = (uint32_t)parse_num("--calib-batches", optarg, 1, 1e6); break;
        case O_PREFETCH: c->prefetch = (uint32_t)parse_num("--prefetch", optarg, 2, 1e6); break;
        case O_SEED: c->seed = (uint64_t)parse_num("--seed", optarg, 0, 1.8e19); break;
        case O_OPTS: c->opts = optarg; break;
        case O_SAMPLE: c->sample_ms = parse_num("--sample-ms", optarg, 0, 1e6); break;
        case O_JSON: c->json = optarg; break;
        case O_TRACE: c->trace = optarg; break;
        case O_PROGRESS: c->progress = 1; break;
        case O_NOPROGRESS: c->progress = 0; break;
        case O_QUIET: c->quiet = 1; break;
        case 'h':
        case O_HELP: usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind < argc)
        die("unexpected argument '%s' (see --help)", argv[optind]);
    if (!c->data)
        die("--data DIR is required (see --help)");
    if (strcmp(c->loader, "feed") && strcmp(c->loader, "sync"))
        die("--loader %s: expected feed or sync", c->loader);
    if (strcmp(c->device, "host") && strncmp(c->device, "cuda", 4))
        die("--device %s: expected host, cuda or cuda:N", c->device);
    if (c->batches && !c->epochs_set)
        c->epochs = 0; /* as many epochs as --batches needs */
    if (!c->epochs && !c->batches)
        die("--epochs 0 would run for ever: give --batches N as well");
    if (c->progress < 0)
        c->progress = isatty(2) && !c->quiet;
}

/* The loader options for this run (the sync loader uses them for its transform). */
static void build_options(const bench_cfg *c, feed_options *o)
{
    char err[512], kv[1024];
    feed_options_init(o, sizeof *o);
    snprintf(o->source, sizeof o->source, "%s", c->data);
    snprintf(kv, sizeof kv, "batch_size=%u,workers=%u,augment=%s,dtype=%s,device=%s,seed=%" PRIu64 ",epochs=%u",
             c->batch, c->workers, c->augment, c->dtype, c->device, c->seed, c->epochs);
    if (feed_options_parse(o, kv, err, sizeof err) != FEED_OK)
        die("%s", err);
    if (c->prefetch) {
        snprintf(kv, sizeof kv, "%u", c->prefetch);
        if (feed_options_set(o, "prefetch", kv, err, sizeof err) != FEED_OK)
            die("%s", err);
    }
    if (c->opts && feed_options_parse(o, c->opts, err, sizeof err) != FEED_OK)
        die("--opts: %s", err);
}

/* ---- the measured window, samples, progress ------------------------------------ */

static void push_span(bench *B, uint32_t name, uint32_t tid, uint64_t t_start, uint64_t t_end)
{
    /* without --trace only the steps are kept (for the busy series) */
    if (B->is_calibration || t_end < t_start || (!B->c.trace && name != SP_STEP))
        return;
    span s = {t_start - B->t0, t_end - t_start, name, tid, B->batches};
    VEC_PUSH(B->spans, s);
}

static void push_sample(bench *B, const csample *s)
{
    if (B->is_calibration)
        return;
    csample x = *s;
    x.t -= B->t0;
    VEC_PUSH(B->cs, x);
}

static csample feed_counters(const bench *B, feed_loader *ld, feed_stats *out)
{
    feed_stats s = {.struct_size = sizeof s};
    csample c = {.t = now_ns()};
    if (feed_loader_stats(ld, &s) == FEED_OK) {
        c.ready = s.ring_ready;
        c.read = s.read_ns, c.decode = s.decode_ns, c.augment = s.augment_ns;
        c.convert = s.convert_ns, c.copy = s.copy_ns, c.wait = s.next_wait_ns;
    }
    if (out)
        *out = s;
    return c;
}

/* The sync loader's counterparts of feed_stats' stage sums. */
typedef struct sync_counters {
    uint64_t read, decode, augment, convert, copy, wait;
} sync_counters;

/* With --trace: the workers' per-sample events (feed_loader_trace_read) as
 * spans on one track per worker: idle, read, decode, augment, convert. */
static void drain_worker_events(bench *B, feed_loader *ld)
{
    if (!B->c.trace || B->is_calibration)
        return;
    feed_trace_event ev[512];
    uint64_t n, lost;
    while ((n = feed_loader_trace_read(ld, ev, 512, &lost)) > 0 || lost) {
        B->trace_lost += lost;
        for (uint64_t i = 0; i < n; i++) {
            const feed_trace_event *e = &ev[i];
            if (e->start_ns < B->t0 + e->wait_ns)
                continue; /* before this run */
            uint32_t tid = TID_WORKER0 + e->worker;
            uint64_t t = e->start_ns;
            uint64_t saved = B->batches;
            B->batches = e->batch;
            if (e->wait_ns)
                push_span(B, SP_IDLE, tid, t - e->wait_ns, t);
            push_span(B, SP_READ, tid, t, t + e->read_ns);
            t += e->read_ns;
            push_span(B, SP_DECODE, tid, t, t + e->decode_ns);
            t += e->decode_ns;
            push_span(B, SP_AUGMENT, tid, t, t + e->augment_ns);
            t += e->augment_ns;
            if (e->convert_ns)
                push_span(B, SP_CONVERT, tid, t, t + e->convert_ns);
            B->batches = saved;
        }
        if (!n)
            break;
    }
}

static void sample_now(bench *B, feed_loader *ld, const sync_counters *sc)
{
    csample c;
    drain_worker_events(B, ld);
    if (ld) {
        c = feed_counters(B, ld, NULL);
    } else {
        c = (csample){.t = now_ns(), .read = sc->read, .decode = sc->decode, .augment = sc->augment,
                      .convert = sc->convert, .copy = sc->copy, .wait = sc->wait};
    }
    push_sample(B, &c);
    B->last_sample = c.t;
}

static void maybe_sample(bench *B, feed_loader *ld, const sync_counters *sc)
{
    uint64_t t = now_ns();
    if (B->sample_ns ? t - B->last_sample >= B->sample_ns : t - B->last_sample >= 1000000)
        sample_now(B, ld, sc);
}

static void progress(bench *B, int final)
{
    if (!B->c.progress || B->is_calibration)
        return;
    uint64_t t = now_ns();
    if (!final && t - B->last_progress < 250000000ull)
        return;
    B->last_progress = t;
    double wall = B->in_window ? (t - B->t_win) * 1e-9 : 0;
    double ips = wall > 0 ? B->win_images / wall : 0;
    double busy = wall > 0 && !B->on_gpu ? B->step_sum_ns * 1e-9 / wall : -1;
    char total[32] = "";
    if (B->total_batches)
        snprintf(total, sizeof total, "/%" PRIu64, B->total_batches);
    uint32_t ready = B->cs.n ? B->cs.v[B->cs.n - 1].ready : 0;
    fprintf(stderr, "\rfeedbench %s: batch %" PRIu64 "%s  %.1f images/s", B->c.loader, B->batches, total,
            ips);
    if (busy >= 0)
        fprintf(stderr, "  busy %.1f%%", busy * 100);
    else
        fprintf(stderr, "  busy (GPU: at the end)");
    if (B->ring_slots)
        fprintf(stderr, "  ring %u/%u", ready, B->ring_slots);
    fprintf(stderr, "%s", final ? "\n" : "   ");
}

/* The measured window starts now (after the warm-up batches). */
static void open_window(bench *B, feed_loader *ld, const sync_counters *sc)
{
    B->in_window = 1;
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu) {
        char err[256];
        if (fb_gpu_mark(B->gpu, &B->gpu_base_ns, err, sizeof err) != 0)
            die("%s", err);
    }
#endif
    B->t_win = now_ns();
    if (ld)
        B->win0 = feed_counters(B, ld, NULL);
    else
        B->win0 = (csample){.t = B->t_win, .read = sc->read, .decode = sc->decode, .augment = sc->augment,
                            .convert = sc->convert, .copy = sc->copy, .wait = sc->wait};
    push_sample(B, &B->win0);
    B->last_sample = B->t_win;
}

/* Called after each batch is done (stepped and released). */
static void batch_done(bench *B, uint32_t count, feed_loader *ld, const sync_counters *sc)
{
    B->batches++;
    B->images += count;
    if (B->in_window) {
        B->win_batches++;
        B->win_images += count;
    } else if (B->batches >= B->c.warmup) {
        open_window(B, ld, sc);
    }
    progress(B, 0);
}

/* Host step: sleep (no CPU taken from the workers), sampling the loader's counters. */
static void host_step(bench *B, feed_loader *ld, const sync_counters *sc)
{
    if (B->step_ms <= 0)
        return;
    uint64_t t0 = now_ns();
    uint64_t deadline = t0 + (uint64_t)(B->step_ms * 1e6 + 0.5);
    for (;;) {
        uint64_t t = now_ns();
        if (t >= deadline)
            break;
        uint64_t wake = deadline;
        if (B->sample_ns && B->last_sample + B->sample_ns < wake)
            wake = B->last_sample + B->sample_ns;
        if (wake > t)
            sleep_until(wake);
        if (B->sample_ns)
            maybe_sample(B, ld, sc);
    }
    uint64_t t1 = now_ns();
    if (B->in_window)
        B->step_sum_ns += (double)(t1 - t0);
    push_span(B, SP_STEP, TID_CONSUMER, t0, t1);
}

/* ---- loader = feed ------------------------------------------------------------- */

static feed_status next_polled(bench *B, feed_loader *ld, feed_batch *b)
{
    for (;;) {
        int64_t to = -1;
        if (B->sample_ns) {
            uint64_t t = now_ns(), due = B->last_sample + B->sample_ns;
            to = due > t ? (int64_t)((due - t + 999999) / 1000000) : 1;
        }
        feed_status st = feed_loader_next(ld, b, to);
        if (st != FEED_E_TIMEOUT || to < 0)
            return st;
        maybe_sample(B, ld, NULL);
    }
}

static void finish_feed_stats(bench *B, feed_loader *ld)
{
    feed_stats s;
    drain_worker_events(B, ld);
    csample c = feed_counters(B, ld, &s);
    B->samples_delivered = s.samples_delivered;
    B->samples_bad = s.samples_bad;
    B->worker_restarts = s.worker_restarts;
    B->worker_hangs = s.worker_hangs;
    B->samples_redone = s.samples_redone;
    snprintf(B->backend, sizeof B->backend, "%s", s.backend);
    snprintf(B->reader, sizeof B->reader, "%s", s.reader);
    snprintf(B->pinned, sizeof B->pinned, "%s", s.pinned);
    snprintf(B->readahead, sizeof B->readahead, "%s", s.readahead);
    B->readahead_files = s.readahead_files;
    B->win1 = c;
    push_sample(B, &c);
}

static void run_feed(bench *B)
{
    char err[2048];
    feed_options o;
    build_options(&B->c, &o);
    feed_loader *ld;
    feed_status st = feed_loader_create(&ld, &o, err, sizeof err);
    if (st != FEED_OK)
        die("feed_loader_create: %s: %s", feed_status_name(st), err);
    B->batches_per_epoch = feed_loader_batches_per_epoch(ld);
    B->samples_per_epoch = feed_loader_samples_per_epoch(ld);
    {
        feed_stats s = {.struct_size = sizeof s};
        feed_loader_stats(ld, &s);
        B->ring_slots = s.ring_slots;
    }
    B->total_batches = B->c.batches ? B->c.batches : B->c.epochs ? B->batches_per_epoch * B->c.epochs : 0;
    if (B->c.warmup && B->total_batches && B->c.warmup >= B->total_batches) {
        if (!B->c.quiet && !B->is_calibration)
            fprintf(stderr, "feedbench: --warmup %u >= %" PRIu64 " batches in the run: nothing excluded\n",
                    B->c.warmup, B->total_batches);
        B->c.warmup = 0;
    }
    void *stream = NULL;
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu)
        stream = fb_gpu_stream(B->gpu);
#endif
    B->t0 = B->last_sample = B->last_progress = now_ns();
    sample_now(B, ld, NULL);
    if (B->c.warmup == 0)
        open_window(B, ld, NULL);
    feed_batch b = {.struct_size = sizeof b};
    for (;;) {
        uint64_t t0 = now_ns();
        st = next_polled(B, ld, &b);
        uint64_t t1 = now_ns();
        if (st == FEED_END_OF_EPOCH) {
            B->epochs_seen++;
            continue;
        }
        if (st == FEED_END_OF_DATA)
            break;
        if (st == FEED_E_DECODE) /* bad_policy=fail: reported; the next call delivers the batch */
            continue;
        if (st != FEED_OK)
            die("feed_loader_next: %s: %s", feed_status_name(st), feed_loader_last_error(ld));
        push_span(B, SP_NEXT, TID_CONSUMER, t0, t1);
        if (B->in_window)
            VEC_PUSH(B->waits_ms, (t1 - t0) * 1e-6);
        if (B->on_gpu) {
#if FEEDBENCH_HAVE_CUDA
            uint64_t l0 = now_ns();
            if ((st = feed_batch_wait(ld, &b, stream)) != FEED_OK)
                die("feed_batch_wait: %s: %s", feed_status_name(st), feed_loader_last_error(ld));
            if (fb_gpu_step(B->gpu, B->step_ms, B->in_window, err, sizeof err) != 0)
                die("%s", err);
            push_span(B, SP_LAUNCH, TID_CONSUMER, l0, now_ns());
#endif
        } else {
            host_step(B, ld, NULL);
        }
        uint32_t count = b.count;
        if ((st = feed_batch_release(ld, &b, stream)) != FEED_OK)
            die("feed_batch_release: %s: %s", feed_status_name(st), feed_loader_last_error(ld));
        batch_done(B, count, ld, NULL);
        maybe_sample(B, ld, NULL);
        if (B->c.batches && B->batches >= B->c.batches)
            break;
    }
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu && fb_gpu_sync(B->gpu, &B->gpu_window_ms, err, sizeof err) != 0)
        die("%s", err);
#endif
    B->t_end = now_ns();
    finish_feed_stats(B, ld);
    feed_loader_destroy(ld);
}

/* ---- loader = sync: the naive loop, in this thread ------------------------------- */

static void run_sync(bench *B)
{
    char err[2048];
    feed_options o;
    build_options(&B->c, &o);
    if (strcmp(B->c.device, "host")) /* validate would look for CUDA in libfeed: not needed here */
        snprintf(o.device, sizeof o.device, "host");
    if (feed__options_validate(&o, err, sizeof err) != FEED_OK)
        die("%s", err);
    feed__xform x = {0};
    x.out_h = o.height, x.out_w = o.width, x.mode = o.augment, x.resize_shorter = o.resize_shorter;
    x.scale_min = o.scale_min, x.scale_max = o.scale_max, x.ratio_min = o.ratio_min, x.ratio_max = o.ratio_max;
    x.flip_p = o.augment == FEED_AUGMENT_TRAIN ? o.flip_p : 0;
    x.rotate_deg = o.rotate_deg;
    x.fill[0] = (uint8_t)(o.fill >> 16), x.fill[1] = (uint8_t)(o.fill >> 8), x.fill[2] = (uint8_t)o.fill;
    x.brightness = o.brightness, x.contrast = o.contrast, x.saturation = o.saturation, x.hue = o.hue;
    x.grayscale_p = o.grayscale_p, x.exif = o.exif, x.roi_decode = o.roi_decode, x.max_pixels = o.max_pixels;
    float scale[3], bias[3];
    feed__convert_params(o.mean, o.std, scale, bias);

    feed__index ix = {.fd = -1};
    feed__sampler sm;
    if (feed__index_build(&ix, o.source, o.file_list, err, sizeof err) != FEED_OK)
        die("%s", err);
    if (feed__sampler_init(&sm, ix.hdr->count, o.batch_size, o.shuffle, o.drop_last, o.rank, o.world_size,
                           o.seed, err, sizeof err) != FEED_OK)
        die("%s", err);
    int rootfd = open(ix.hdr->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        die("%s: %s", ix.hdr->root, strerror(errno));
    feed__reader *rd = feed__reader_create(o.reader);
    feed__image_ctx *img = feed__image_ctx_create();
    size_t px = (size_t)o.height * o.width * 3;
    size_t sample_bytes = px * feed__dtype_size(o.dtype);
    uint8_t *scratch = malloc(px);
    uint8_t *batchbuf = malloc(sample_bytes * o.batch_size);
    uint64_t *ids = malloc(sizeof *ids * o.batch_size);
    uint8_t *filebuf = NULL;
    size_t filecap = 0;
    if (!rd || !img || !scratch || !batchbuf || !ids)
        die("out of memory");
    snprintf(B->reader, sizeof B->reader, "%s", feed__reader_kind_name(rd));
    snprintf(B->backend, sizeof B->backend, "%s", B->on_gpu ? B->c.device : "host");
    snprintf(B->pinned, sizeof B->pinned, "none");
    snprintf(B->readahead, sizeof B->readahead, "off");
    void *devbuf = NULL;
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu && fb_gpu_alloc(B->gpu, sample_bytes * o.batch_size, &devbuf, err, sizeof err) != 0)
        die("%s", err);
#endif
    B->batches_per_epoch = sm.nbatches;
    B->samples_per_epoch = o.drop_last ? sm.nbatches * o.batch_size : sm.per_rank;
    B->total_batches = B->c.batches ? B->c.batches : B->c.epochs ? B->batches_per_epoch * B->c.epochs : 0;
    if (B->c.warmup && B->total_batches && B->c.warmup >= B->total_batches) {
        if (!B->c.quiet)
            fprintf(stderr, "feedbench: --warmup %u >= %" PRIu64 " batches in the run: nothing excluded\n",
                    B->c.warmup, B->total_batches);
        B->c.warmup = 0;
    }
    int direct = o.dtype == FEED_DTYPE_UINT8 && o.layout == FEED_LAYOUT_HWC;
    sync_counters sc = {0};
    B->t0 = B->last_sample = B->last_progress = now_ns();
    sample_now(B, NULL, &sc);
    if (B->c.warmup == 0)
        open_window(B, NULL, &sc);
    int stop = 0;
    for (uint64_t e = o.start_epoch; !stop && (!o.epochs || e < (uint64_t)o.start_epoch + o.epochs); e++) {
        for (uint64_t bi = 0; bi < sm.nbatches; bi++) {
            uint64_t tb0 = now_ns();
            uint32_t n = feed__sampler_batch(&sm, e, bi, ids);
            for (uint32_t i = 0; i < n; i++) {
                const char *path = feed__index_path(ix.hdr, ids[i]);
                size_t len = 0;
                int sys_errno = 0;
                char msg[256];
                uint64_t t0 = now_ns();
                int st = feed__reader_read(rd, rootfd, path, o.max_file_bytes, &filebuf, &filecap, &len,
                                           &sys_errno, msg, sizeof msg);
                uint64_t t1 = now_ns();
                sc.read += t1 - t0;
                push_span(B, SP_READ, TID_CONSUMER, t0, t1);
                uint8_t *dst = batchbuf + (size_t)i * sample_bytes;
                feed__image_info info = {0};
                if (st == FEED_OK)
                    st = feed__image_process(img, &x, filebuf, len, o.seed, e, ids[i], direct ? dst : scratch,
                                             &info, msg, sizeof msg);
                uint64_t t2 = now_ns();
                sc.decode += info.decode_ns;
                sc.augment += info.augment_ns;
                /* the stage split inside process() as the library measured it, laid end to end */
                push_span(B, SP_DECODE, TID_CONSUMER, t1, t1 + info.decode_ns);
                push_span(B, SP_AUGMENT, TID_CONSUMER, t1 + info.decode_ns, t2);
                if (st != FEED_OK) {
                    B->samples_bad++;
                    memset(dst, 0, sample_bytes);
                } else if (!direct) {
                    feed__convert_sample(scratch, o.height, o.width, o.dtype, o.layout, scale, bias, 0, dst);
                    uint64_t t3 = now_ns();
                    sc.convert += t3 - t2;
                    push_span(B, SP_CONVERT, TID_CONSUMER, t2, t3);
                }
            }
            if (devbuf) {
#if FEEDBENCH_HAVE_CUDA
                uint64_t c0 = now_ns();
                if (fb_gpu_copy_h2d(B->gpu, devbuf, batchbuf, sample_bytes * n, err, sizeof err) != 0)
                    die("%s", err);
                uint64_t c1 = now_ns();
                sc.copy += c1 - c0;
                push_span(B, SP_COPY, TID_CONSUMER, c0, c1);
#endif
            }
            uint64_t tb1 = now_ns();
            sc.wait += tb1 - tb0;
            push_span(B, SP_NEXT, TID_CONSUMER, tb0, tb1);
            if (B->in_window)
                VEC_PUSH(B->waits_ms, (tb1 - tb0) * 1e-6);
            B->samples_delivered += n;
            if (B->on_gpu) {
#if FEEDBENCH_HAVE_CUDA
                if (fb_gpu_step(B->gpu, B->step_ms, B->in_window, err, sizeof err) != 0)
                    die("%s", err);
#endif
            } else {
                host_step(B, NULL, &sc);
            }
            batch_done(B, n, NULL, &sc);
            maybe_sample(B, NULL, &sc);
            if (B->c.batches && B->batches >= B->c.batches) {
                stop = 1;
                break;
            }
        }
        B->epochs_seen++;
    }
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu && fb_gpu_sync(B->gpu, &B->gpu_window_ms, err, sizeof err) != 0)
        die("%s", err);
#endif
    B->t_end = now_ns();
    B->win1 = (csample){.t = B->t_end, .read = sc.read, .decode = sc.decode, .augment = sc.augment,
                        .convert = sc.convert, .copy = sc.copy, .wait = sc.wait};
    push_sample(B, &B->win1);
    free(filebuf);
    free(ids);
    free(batchbuf);
    free(scratch);
    feed__image_ctx_destroy(img);
    feed__reader_destroy(rd);
    close(rootfd);
    feed__sampler_free(&sm);
    feed__index_free(&ix);
}

/* ---- results ---------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(const double *sorted, size_t n, double p)
{
    if (!n)
        return 0;
    double r = p * (n - 1);
    size_t i = (size_t)r;
    double f = r - i;
    return i + 1 < n ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[n - 1];
}

#define NBUCKETS 20

typedef struct results {
    double wall_s, images_per_sec, busy, wait_p50, wait_p99, wait_max, wait_mean, wait_total_s;
    double stage_us[6]; /* read decode augment convert wait copy, per sample */
    double occ_mean, occ_empty, occ_full;
    double occ_hist[65];
    double occ_series[NBUCKETS], busy_series[NBUCKETS];
    int nbuckets;
} results;

static const char *const stage_names[6] = {"read", "decode", "augment", "convert", "wait", "copy"};

/* Step intervals in the window, as host times relative to t0 (ns). */
static size_t step_intervals(const bench *B, double **starts, double **ends)
{
    size_t n = 0, cap = 0;
    double *s = NULL, *e = NULL;
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu) {
        cap = fb_gpu_nspans(B->gpu);
        s = malloc((cap + 1) * sizeof *s), e = malloc((cap + 1) * sizeof *e);
        for (uint64_t i = 0; i < cap; i++) {
            double st, du;
            fb_gpu_span(B->gpu, i, &st, &du);
            s[n] = (double)(B->gpu_base_ns - B->t0) + st * 1e6;
            e[n] = s[n] + du * 1e6;
            n++;
        }
        *starts = s, *ends = e;
        return n;
    }
#endif
    cap = B->spans.n;
    s = malloc((cap + 1) * sizeof *s), e = malloc((cap + 1) * sizeof *e);
    for (size_t i = 0; i < B->spans.n; i++) {
        const span *p = &B->spans.v[i];
        if (p->name != SP_STEP || p->ts + B->t0 < B->t_win)
            continue;
        s[n] = (double)p->ts;
        e[n] = (double)(p->ts + p->dur);
        n++;
    }
    *starts = s, *ends = e;
    return n;
}

static void compute(const bench *B, results *R)
{
    memset(R, 0, sizeof *R);
    R->wall_s = (B->t_end - B->t_win) * 1e-9;
    R->images_per_sec = R->wall_s > 0 ? B->win_images / R->wall_s : 0;
    if (B->on_gpu) {
        double *s, *e;
        size_t n = step_intervals(B, &s, &e);
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += e[i] - s[i];
        R->busy = B->gpu_window_ms > 0 ? sum * 1e-6 / B->gpu_window_ms : 0;
        free(s), free(e);
    } else {
        R->busy = R->wall_s > 0 ? B->step_sum_ns * 1e-9 / R->wall_s : 0;
    }
    size_t nw = B->waits_ms.n;
    double *w = malloc((nw + 1) * sizeof *w);
    double tot = 0;
    for (size_t i = 0; i < nw; i++)
        w[i] = B->waits_ms.v[i], tot += w[i];
    qsort(w, nw, sizeof *w, cmp_double);
    R->wait_p50 = pct(w, nw, 0.5);
    R->wait_p99 = pct(w, nw, 0.99);
    R->wait_max = nw ? w[nw - 1] : 0;
    R->wait_mean = nw ? tot / nw : 0;
    R->wait_total_s = tot * 1e-3;
    free(w);

    double ni = B->win_images ? (double)B->win_images : 1;
    const csample *a = &B->win0, *b = &B->win1;
    R->stage_us[0] = (b->read - a->read) * 1e-3 / ni;
    R->stage_us[1] = (b->decode - a->decode) * 1e-3 / ni;
    R->stage_us[2] = (b->augment - a->augment) * 1e-3 / ni;
    R->stage_us[3] = (b->convert - a->convert) * 1e-3 / ni;
    R->stage_us[4] = tot * 1e3 / ni; /* consumer blocked for data, per sample */
    R->stage_us[5] = (b->copy - a->copy) * 1e-3 / ni;

    /* occupancy: time-weighted over the window, from the samples */
    uint64_t w0 = B->t_win - B->t0, w1 = B->t_end - B->t0;
    double span_ns = (double)(w1 - w0);
    R->nbuckets = span_ns > 0 ? NBUCKETS : 0;
    double occ_w[NBUCKETS] = {0};
    double occ_sum = 0, occ_t = 0;
    for (size_t i = 0; B->ring_slots && i + 1 < B->cs.n; i++) {
        uint64_t t_a = B->cs.v[i].t, t_b = B->cs.v[i + 1].t;
        if (t_b <= w0 || t_a >= w1)
            continue;
        if (t_a < w0)
            t_a = w0;
        if (t_b > w1)
            t_b = w1;
        double dt = (double)(t_b - t_a);
        uint32_t r = B->cs.v[i].ready;
        occ_sum += r * dt;
        occ_t += dt;
        R->occ_hist[r < 64 ? r : 64] += dt;
        /* spread over buckets */
        for (int k = 0; k < R->nbuckets; k++) {
            double b0 = w0 + span_ns * k / R->nbuckets, b1 = w0 + span_ns * (k + 1) / R->nbuckets;
            double lo = t_a > b0 ? t_a : b0, hi = t_b < b1 ? t_b : b1;
            if (hi > lo) {
                R->occ_series[k] += r * (hi - lo);
                occ_w[k] += hi - lo;
            }
        }
    }
    if (occ_t > 0) {
        R->occ_mean = occ_sum / occ_t;
        for (int r = 0; r <= 64; r++)
            R->occ_hist[r] /= occ_t;
        R->occ_empty = R->occ_hist[0];
        R->occ_full = B->ring_slots <= 64 ? R->occ_hist[B->ring_slots] : 0;
    }
    for (int k = 0; k < R->nbuckets; k++)
        R->occ_series[k] = occ_w[k] > 0 ? R->occ_series[k] / occ_w[k] : 0;

    double *s, *e;
    size_t n = step_intervals(B, &s, &e);
    for (int k = 0; k < R->nbuckets; k++) {
        double b0 = w0 + span_ns * k / R->nbuckets, b1 = w0 + span_ns * (k + 1) / R->nbuckets;
        double cov = 0;
        for (size_t i = 0; i < n; i++) {
            double lo = s[i] > b0 ? s[i] : b0, hi = e[i] < b1 ? e[i] : b1;
            if (hi > lo)
                cov += hi - lo;
        }
        R->busy_series[k] = cov / (b1 - b0);
    }
    free(s), free(e);
}

static void sparkline(char *out, const double *v, int n, double max)
{
    static const char lv[] = " .:-=+*#%@";
    for (int i = 0; i < n; i++) {
        double f = max > 0 ? v[i] / max : 0;
        int k = (int)(f * 9 + 0.5);
        out[i] = lv[k < 0 ? 0 : k > 9 ? 9 : k];
    }
    out[n] = 0;
}

static void print_table(const bench *B, const results *R)
{
    const bench_cfg *c = &B->c;
    printf("\nfeedbench  loader=%s  device=%s  backend=%s  reader=%s  readahead=%s  pinned=%s\n",
           c->loader, c->device, B->backend, B->reader, B->readahead, B->pinned);
    if (B->gpu_name[0])
        printf("  gpu            %s\n", B->gpu_name);
    printf("  dataset        %s: %" PRIu64 " samples, %" PRIu64 " batches/epoch\n", c->data,
           B->samples_per_epoch, B->batches_per_epoch);
    if (B->sync_loader)
        printf("  settings       batch %u, no workers (decode in the training thread), augment %s, dtype %s\n",
               c->batch, c->augment, c->dtype);
    else
        printf("  settings       batch %u, workers %u, augment %s, dtype %s\n", c->batch, c->workers, c->augment,
               c->dtype);
    printf("  step           %.2f ms per batch (%s)", B->step_ms,
           B->on_gpu ? "GPU spin kernel, CUDA events" : "host sleep on the consumer thread");
    if (c->step_auto)
        printf(", auto = %.2f x %.2f ms pipeline batch time", c->step_factor, B->calib_batch_ms);
    printf("\n  run            %" PRIu64 " batches, %" PRIu64 " images; measured %" PRIu64 " batches in %.2f s"
           " (first %u excluded)\n",
           B->batches, B->images, B->win_batches, R->wall_s, c->warmup);
    printf("\n  images/s       %.1f\n", R->images_per_sec);
    printf("  busy_fraction  %.4f   (step time / wall time; idle %.1f%%)\n", R->busy, (1 - R->busy) * 100);
    printf("  next() wait    p50 %.3f ms   p99 %.3f ms   max %.3f ms   mean %.3f ms   (%.1f%% of wall)\n",
           R->wait_p50, R->wait_p99, R->wait_max, R->wait_mean,
           R->wall_s > 0 ? R->wait_total_s / R->wall_s * 100 : 0);
    printf("\n  per sample     %-10s %10s\n", "stage", "us/sample");
    static const char *const label[6] = {"read", "decode", "augment", "convert", "wait (next)", "copy"};
    for (int i = 0; i < 6; i++)
        printf("                 %-11s %9.1f%s\n", label[i], R->stage_us[i],
               i < 4 && !B->sync_loader ? "   (summed over workers)" : "");
    if (B->ring_slots) {
        printf("\n  ring           %u slots; occupancy mean %.2f, empty %.1f%% of the time, full %.1f%%\n",
               B->ring_slots, R->occ_mean, R->occ_empty * 100, R->occ_full * 100);
        printf("  occupancy      |");
        for (uint32_t r = 0; r <= B->ring_slots && r <= 64; r++)
            printf(" %u:%.0f%%", r, R->occ_hist[r] * 100);
        printf(" |\n");
    }
    char line[NBUCKETS + 1];
    if (R->nbuckets) {
        printf("  over time      (%d buckets of %.2f s, ' '=0 .. '@'=max)\n", R->nbuckets, R->wall_s / R->nbuckets);
        sparkline(line, R->busy_series, R->nbuckets, 1.0);
        printf("    busy         [%s]  (max = 100%%)\n", line);
        if (B->ring_slots) {
            sparkline(line, R->occ_series, R->nbuckets, B->ring_slots);
            printf("    ring ready   [%s]  (max = %u slots)\n", line, B->ring_slots);
        }
    }
    printf("  CPU            %.2f s (this process + reaped workers, whole run incl. warm-up) = %.3f ms per image"
           " delivered\n", B->cpu_s, B->samples_delivered ? B->cpu_s * 1e3 / B->samples_delivered : 0.0);
    printf("\n  delivered      %" PRIu64 " samples; bad %" PRIu64 "; worker restarts %" PRIu64 " (hangs %" PRIu64
           ", samples redone %" PRIu64 ")\n",
           B->samples_delivered, B->samples_bad, B->worker_restarts, B->worker_hangs, B->samples_redone);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void json_arr(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%.4f", i ? ", " : "", v[i]);
    fputc(']', f);
}

static void write_json(const bench *B, const results *R, const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f)
        die("--json %s: %s", path, strerror(errno));
    const bench_cfg *c = &B->c;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    fprintf(f, "{\n  \"tool\": \"feedbench\",\n  \"libfeed_version\": ");
    json_str(f, feed_version_string());
    fprintf(f, ",\n  \"loader\": ");
    json_str(f, c->loader);
    fprintf(f, ",\n  \"device\": ");
    json_str(f, c->device);
    fprintf(f, ",\n  \"backend\": ");
    json_str(f, B->backend);
    fprintf(f, ",\n  \"reader\": ");
    json_str(f, B->reader);
    fprintf(f, ",\n  \"pinned\": ");
    json_str(f, B->pinned);
    fprintf(f, ",\n  \"readahead\": ");
    json_str(f, B->readahead);
    fprintf(f, ",\n  \"readahead_files\": %llu", (unsigned long long)B->readahead_files);
    fprintf(f, ",\n  \"gpu\": ");
    json_str(f, B->gpu_name);
    fprintf(f, ",\n  \"data\": ");
    json_str(f, c->data);
    fprintf(f, ",\n  \"augment\": ");
    json_str(f, c->augment);
    fprintf(f, ",\n  \"dtype\": ");
    json_str(f, c->dtype);
    fprintf(f, ",\n  \"opts\": ");
    json_str(f, c->opts ? c->opts : "");
    fprintf(f, ",\n  \"nproc\": %ld,\n  \"batch\": %u,\n  \"workers\": %u,\n  \"prefetch\": %u,\n", sysconf(_SC_NPROCESSORS_ONLN),
            c->batch, B->sync_loader ? 0 : c->workers, B->ring_slots);
    fprintf(f, "  \"step_ms\": %.4f,\n  \"step_auto\": %s,\n  \"step_factor\": %.4f,\n  \"calib_batch_ms\": %.4f,\n",
            B->step_ms, c->step_auto ? "true" : "false", c->step_auto ? c->step_factor : 0.0, B->calib_batch_ms);
    fprintf(f, "  \"samples_per_epoch\": %" PRIu64 ",\n  \"batches_per_epoch\": %" PRIu64 ",\n", B->samples_per_epoch,
            B->batches_per_epoch);
    fprintf(f, "  \"epochs_completed\": %" PRIu64 ",\n  \"batches\": %" PRIu64 ",\n  \"warmup_batches\": %u,\n",
            B->epochs_seen, B->batches, c->warmup);
    fprintf(f, "  \"measured_batches\": %" PRIu64 ",\n  \"measured_images\": %" PRIu64 ",\n  \"wall_s\": %.6f,\n",
            B->win_batches, B->win_images, R->wall_s);
    fprintf(f, "  \"images_per_sec\": %.3f,\n  \"busy_fraction\": %.6f,\n", R->images_per_sec, R->busy);
    fprintf(f, "  \"next_wait_ms_p50\": %.6f,\n  \"next_wait_ms_p99\": %.6f,\n  \"next_wait_ms_max\": %.6f,\n"
               "  \"next_wait_ms_mean\": %.6f,\n  \"next_wait_fraction\": %.6f,\n",
            R->wait_p50, R->wait_p99, R->wait_max, R->wait_mean, R->wall_s > 0 ? R->wait_total_s / R->wall_s : 0);
    fprintf(f, "  \"stage_us_per_sample\": {");
    for (int i = 0; i < 6; i++)
        fprintf(f, "%s\"%s\": %.3f", i ? ", " : "", stage_names[i], R->stage_us[i]);
    fprintf(f, "},\n");
    fprintf(f, "  \"ring_occupancy\": {\"slots\": %u, \"mean\": %.4f, \"empty_fraction\": %.4f, \"full_fraction\": %.4f, "
               "\"histogram\": ",
            B->ring_slots, R->occ_mean, R->occ_empty, R->occ_full);
    json_arr(f, R->occ_hist, B->ring_slots ? (int)(B->ring_slots < 64 ? B->ring_slots : 64) + 1 : 0);
    fprintf(f, ", \"series\": ");
    json_arr(f, R->occ_series, B->ring_slots ? R->nbuckets : 0);
    fprintf(f, "},\n  \"busy_series\": ");
    json_arr(f, R->busy_series, R->nbuckets);
    fprintf(f, ",\n  \"series_bucket_s\": %.6f,\n", R->nbuckets ? R->wall_s / R->nbuckets : 0);
    fprintf(f, "  \"cpu_s\": %.4f,\n  \"cpu_ms_per_image\": %.4f,\n", B->cpu_s,
            B->samples_delivered ? B->cpu_s * 1e3 / B->samples_delivered : 0.0);
    fprintf(f, "  \"samples_delivered\": %" PRIu64 ",\n  \"samples_bad\": %" PRIu64 ",\n  \"worker_restarts\": %" PRIu64
               ",\n  \"worker_hangs\": %" PRIu64 ",\n  \"samples_redone\": %" PRIu64 ",\n",
            B->samples_delivered, B->samples_bad, B->worker_restarts, B->worker_hangs, B->samples_redone);
    double la[1] = {-1};
    getloadavg(la, 1);
    fprintf(f, "  \"loadavg_1m_start\": %.2f,\n  \"loadavg_1m_end\": %.2f,\n", B->load_start, la[0]);
    fprintf(f, "  \"host\": ");
    json_str(f, host);
    fprintf(f, "\n}\n");
    if (f != stdout && fclose(f) != 0)
        die("--json %s: %s", path, strerror(errno));
}

/* Chrome trace event format: X spans (us), C counters, M names. */
static void write_trace(const bench *B, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("--trace %s: %s", path, strerror(errno));
    const bench_cfg *c = &B->c;
    fprintf(f, "{\"displayTimeUnit\": \"ms\",\n \"otherData\": {\"tool\": \"feedbench\", \"loader\": ");
    json_str(f, c->loader);
    fprintf(f, ", \"device\": ");
    json_str(f, c->device);
    fprintf(f, ", \"batch\": %u, \"workers\": %u, \"step_ms\": %.4f, \"ring_slots\": %u, \"window_start_us\": %.3f, "
               "\"window_end_us\": %.3f},\n \"traceEvents\": [\n",
            c->batch, B->sync_loader ? 0 : c->workers, B->step_ms, B->ring_slots, (B->t_win - B->t0) * 1e-3,
            (B->t_end - B->t0) * 1e-3);
    fprintf(f, "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"feedbench loader=%s "
               "device=%s\"}},\n",
            c->loader, c->device);
    fprintf(f, "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": "
               "\"consumer (training thread)\"}},\n",
            TID_CONSUMER);
    if (B->on_gpu)
        fprintf(f, "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": "
                   "\"GPU step stream (CUDA events)\"}},\n",
                TID_GPU);
    for (uint32_t w = 0; !B->sync_loader && w < c->workers; w++)
        fprintf(f, "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, \"args\": {\"name\": "
                   "\"worker %u (feed-worker process)\"}},\n",
                TID_WORKER0 + w, w);
    fprintf(f, "  {\"name\": \"measured window\", \"ph\": \"i\", \"s\": \"g\", \"pid\": 1, \"tid\": 1, \"ts\": %.3f},\n",
            (B->t_win - B->t0) * 1e-3);
    for (size_t i = 0; i < B->spans.n; i++) {
        const span *s = &B->spans.v[i];
        fprintf(f, "  {\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %u, \"ts\": %.3f, "
                   "\"dur\": %.3f, \"args\": {\"batch\": %" PRIu64 "}},\n",
                span_names[s->name], s->name == SP_STEP ? "step" : s->tid >= TID_WORKER0 ? "worker" : "data", s->tid, s->ts * 1e-3, s->dur * 1e-3,
                s->batch);
    }
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu) {
        for (uint64_t i = 0; i < fb_gpu_nspans(B->gpu); i++) {
            double st, du;
            fb_gpu_span(B->gpu, i, &st, &du);
            fprintf(f, "  {\"name\": \"%s\", \"cat\": \"step\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.3f, "
                       "\"dur\": %.3f},\n",
                    span_names[SP_GPU_STEP], TID_GPU, (B->gpu_base_ns - B->t0) * 1e-3 + st * 1e3, du * 1e3);
        }
    }
#endif
    /* counters: ring occupancy, and the workers' stage time per interval as
     * "workers busy in that stage" (ns of stage time per ns of wall) */
    for (size_t i = 0; i < B->cs.n; i++) {
        const csample *s = &B->cs.v[i];
        if (B->ring_slots)
            fprintf(f, "  {\"name\": \"ring_ready\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, \"args\": {\"ready\": %u}},\n",
                    s->t * 1e-3, s->ready);
        if (i == 0)
            continue;
        const csample *p = &B->cs.v[i - 1];
        double dt = (double)(s->t - p->t);
        if (dt <= 0)
            continue;
        fprintf(f, "  {\"name\": \"stage load (busy workers)\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, \"args\": "
                   "{\"read\": %.3f, \"decode\": %.3f, \"augment\": %.3f, \"convert\": %.3f}},\n",
                p->t * 1e-3, (s->read - p->read) / dt, (s->decode - p->decode) / dt, (s->augment - p->augment) / dt,
                (s->convert - p->convert) / dt);
    }
    fprintf(f, "  {\"name\": \"end\", \"ph\": \"i\", \"s\": \"g\", \"pid\": 1, \"tid\": 1, \"ts\": %.3f}\n ]\n}\n",
            (B->t_end - B->t0) * 1e-3);
    if (fclose(f) != 0)
        die("--trace %s: %s", path, strerror(errno));
}

/* ---- main -------------------------------------------------------------------------- */

static void bench_free(bench *B)
{
    free(B->waits_ms.v);
    free(B->spans.v);
    free(B->cs.v);
}

/* The libfeed pipeline's per-batch time with no step: skip the batches the
 * ring holds at start (prefetch + 2), then time calib_batches. */
static double calibrate(const bench_cfg *c, int on_gpu, int ordinal)
{
    bench K = {0};
    K.c = *c;
    K.c.loader = "feed";
    K.c.progress = 0;
    K.c.trace = NULL;
    K.c.json = NULL;
    K.c.epochs = 0; /* unlimited: the dataset may be smaller than the calibration */
    feed_options o;
    build_options(&K.c, &o);
    K.c.warmup = o.prefetch + 2;
    K.c.batches = K.c.warmup + c->calib_batches;
    K.is_calibration = 1;
    K.on_gpu = on_gpu;
    K.step_ms = 0;
    K.sample_ns = 0;
#if FEEDBENCH_HAVE_CUDA
    char err[512];
    if (on_gpu && fb_gpu_open(&K.gpu, ordinal, NULL, 0, err, sizeof err) != 0)
        die("--device %s: %s", c->device, err);
#endif
    run_feed(&K);
    double ms = K.win_batches ? (K.t_end - K.t_win) * 1e-6 / K.win_batches : 0;
#if FEEDBENCH_HAVE_CUDA
    fb_gpu_close(K.gpu);
#endif
    bench_free(&K);
    return ms;
}

int main(int argc, char **argv)
{
    bench B = {0};
    parse_args(&B.c, argc, argv);
    B.sync_loader = !strcmp(B.c.loader, "sync");
    B.on_gpu = strcmp(B.c.device, "host") != 0;
    B.sample_ns = (uint64_t)(B.c.sample_ms * 1e6);
    B.step_ms = B.c.step_ms;
    B.load_start = -1;
    getloadavg(&B.load_start, 1);
    int ordinal = B.on_gpu && B.c.device[4] == ':' ? atoi(B.c.device + 5) : 0;
    if (B.on_gpu) {
#if FEEDBENCH_HAVE_CUDA
        char err[512];
        if (fb_gpu_open(&B.gpu, ordinal, B.gpu_name, sizeof B.gpu_name, err, sizeof err) != 0)
            die("--device %s: %s", B.c.device, err);
#else
        die("--device %s: this feedbench was built without CUDA (the project found no nvcc, or FEED_CUDA=OFF); "
            "use --device host",
            B.c.device);
#endif
    }
    if (B.c.step_auto) {
        if (!B.c.quiet)
            fprintf(stderr, "feedbench: calibrating the libfeed pipeline's per-batch time (%u batches, no step)...\n",
                    B.c.calib_batches);
        B.calib_batch_ms = calibrate(&B.c, B.on_gpu, ordinal);
        B.step_ms = B.c.step_factor * B.calib_batch_ms;
        if (!B.c.quiet)
            fprintf(stderr, "feedbench: pipeline %.2f ms/batch -> step %.2f ms\n", B.calib_batch_ms, B.step_ms);
    }
    B.cpu_start = cpu_seconds();
    if (B.sync_loader)
        run_sync(&B);
    else
        run_feed(&B); /* destroys the loader: its workers are reaped, their CPU time counted */
    B.cpu_s = cpu_seconds() - B.cpu_start;
    progress(&B, 1);
    results R;
    compute(&B, &R);
    if (!B.c.quiet)
        print_table(&B, &R);
    if (B.c.json)
        write_json(&B, &R, B.c.json);
    if (B.c.trace)
        write_trace(&B, B.c.trace);
#if FEEDBENCH_HAVE_CUDA
    fb_gpu_close(B.gpu);
#endif
    bench_free(&B);
    return 0;
}

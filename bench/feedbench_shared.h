/*
 * feedbench_shared.h - what the files of feedbench share: the configuration, the
 * state of one run, the results, and the calls between them.
 *
 *   feedbench.c         main, calibration, the run loop over feed_loader_next
 *   feedbench_core.c    the clock, fb_die, the measured window, timeline
 *                       samples and spans, the progress line, the host step
 *   feedbench_cli.c     usage, command line, the loader options of a run
 *   feedbench_sync.c    --loader sync: the naive loop in the training thread
 *   feedbench_report.c  results from a run; the table, JSON and trace output
 *   feedbench_cuda.cu   the GPU step and CUDA-event timing (feedbench_gpu.h)
 *
 * Who calls whom: feedbench.c calls the others; feedbench_sync.c calls
 * feedbench_cli.c and feedbench_core.c; feedbench_cli.c and
 * feedbench_report.c call feedbench_core.c, which calls none of them (only
 * feedbench_cuda.cu, which calls nothing back).
 */
#ifndef FEEDBENCH_SHARED_H
#define FEEDBENCH_SHARED_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <feed.h>

#if FEEDBENCH_HAVE_CUDA
#include "feedbench_gpu.h"
#endif

/* ---- feedbench_core.c: small helpers ------------------------------------------- */

uint64_t fb_now_ns(void);
void fb_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

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
                fb_die("out of memory");                                         \
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

/* The sync loader's counterparts of feed_stats' stage sums. */
typedef struct sync_counters {
    uint64_t read, decode, augment, convert, copy, wait;
} sync_counters;

#define NBUCKETS 20

typedef struct results {
    double wall_s, images_per_sec, busy, wait_p50, wait_p99, wait_max, wait_mean, wait_total_s;
    double stage_us[6]; /* read decode augment convert wait copy, per sample */
    double occ_mean, occ_empty, occ_full;
    double occ_hist[65];
    double occ_series[NBUCKETS], busy_series[NBUCKETS];
    int nbuckets;
} results;

/* ---- feedbench_cli.c ----------------------------------------------------------- */

/* Fills c from the command line; exits with usage on a bad one. */
void fb_parse_args(bench_cfg *c, int argc, char **argv);
/* The loader options for this run (the sync loader uses them for its transform). */
void fb_build_options(const bench_cfg *c, feed_options *o);

/* ---- feedbench_core.c: the measured window, samples, progress ------------------ */

void fb_push_span(bench *B, uint32_t name, uint32_t tid, uint64_t t_start, uint64_t t_end);
void fb_push_sample(bench *B, const csample *s);
/* The loader's counters now (out: the whole feed_stats, or NULL). */
csample fb_feed_counters(const bench *B, feed_loader *ld, feed_stats *out);
/* With --trace: the workers' events so far, as spans (one track per worker). */
void fb_drain_worker_events(bench *B, feed_loader *ld);
/* The live line on stderr with --progress (at most every 250 ms unless final). */
void fb_progress(bench *B, int final);
/* A timeline sample now: the loader's counters (ld), or the sync loader's (sc). */
void fb_sample_now(bench *B, feed_loader *ld, const sync_counters *sc);
void fb_maybe_sample(bench *B, feed_loader *ld, const sync_counters *sc);
void fb_open_window(bench *B, feed_loader *ld, const sync_counters *sc);
void fb_batch_done(bench *B, uint32_t count, feed_loader *ld, const sync_counters *sc);
void fb_host_step(bench *B, feed_loader *ld, const sync_counters *sc);
/* The run's length in batches (0: unbounded) from batches_per_epoch; a
 * --warmup that would leave nothing to measure becomes 0. */
void fb_plan_batches(bench *B);

/* ---- feedbench_sync.c ---------------------------------------------------------- */

/* --loader sync: the whole run, in this thread. */
void fb_run_sync(bench *B);

/* ---- feedbench_report.c -------------------------------------------------------- */

void fb_compute(const bench *B, results *R);
void fb_print_table(const bench *B, const results *R);
/* path "-": stdout. */
void fb_write_json(const bench *B, const results *R, const char *path);
/* Chrome trace event format (chrome://tracing, ui.perfetto.dev). */
void fb_write_trace(const bench *B, const char *path);

#endif

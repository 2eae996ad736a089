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
 * The files: feedbench_shared.h says which holds what. This one calls the others;
 * none calls back into it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "feedbench_shared.h"

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

/* ---- loader = feed ------------------------------------------------------------- */

static feed_status next_polled(bench *B, feed_loader *ld, feed_batch *b)
{
    for (;;) {
        int64_t to = -1;
        if (B->sample_ns) {
            uint64_t t = fb_now_ns(), due = B->last_sample + B->sample_ns;
            to = due > t ? (int64_t)((due - t + 999999) / 1000000) : 1;
        }
        feed_status st = feed_loader_next(ld, b, to);
        if (st != FEED_E_TIMEOUT || to < 0)
            return st;
        fb_maybe_sample(B, ld, NULL);
    }
}

static void finish_feed_stats(bench *B, feed_loader *ld)
{
    feed_stats s;
    fb_drain_worker_events(B, ld);
    csample c = fb_feed_counters(B, ld, &s);
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
    fb_push_sample(B, &c);
}

static void run_feed(bench *B)
{
    char err[2048];
    feed_options o;
    fb_build_options(&B->c, &o);
    feed_loader *ld;
    feed_status st = feed_loader_create(&ld, &o, err, sizeof err);
    if (st != FEED_OK)
        fb_die("feed_loader_create: %s: %s", feed_status_name(st), err);
    B->batches_per_epoch = feed_loader_batches_per_epoch(ld);
    B->samples_per_epoch = feed_loader_samples_per_epoch(ld);
    {
        feed_stats s = {.struct_size = sizeof s};
        feed_loader_stats(ld, &s);
        B->ring_slots = s.ring_slots;
    }
    fb_plan_batches(B);
    void *stream = NULL;
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu)
        stream = fb_gpu_stream(B->gpu);
#endif
    B->t0 = B->last_sample = B->last_progress = fb_now_ns();
    fb_sample_now(B, ld, NULL);
    if (B->c.warmup == 0)
        fb_open_window(B, ld, NULL);
    feed_batch b = {.struct_size = sizeof b};
    for (;;) {
        uint64_t t0 = fb_now_ns();
        st = next_polled(B, ld, &b);
        uint64_t t1 = fb_now_ns();
        if (st == FEED_END_OF_EPOCH) {
            B->epochs_seen++;
            continue;
        }
        if (st == FEED_END_OF_DATA)
            break;
        if (st == FEED_E_DECODE) /* bad_policy=fail: reported; the next call delivers the batch */
            continue;
        if (st != FEED_OK)
            fb_die("feed_loader_next: %s: %s", feed_status_name(st), feed_loader_last_error(ld));
        fb_push_span(B, SP_NEXT, TID_CONSUMER, t0, t1);
        if (B->in_window)
            VEC_PUSH(B->waits_ms, (t1 - t0) * 1e-6);
        if (B->on_gpu) {
#if FEEDBENCH_HAVE_CUDA
            uint64_t l0 = fb_now_ns();
            if ((st = feed_batch_wait(ld, &b, stream)) != FEED_OK)
                fb_die("feed_batch_wait: %s: %s", feed_status_name(st), feed_loader_last_error(ld));
            if (fb_gpu_step(B->gpu, B->step_ms, B->in_window, err, sizeof err) != 0)
                fb_die("%s", err);
            fb_push_span(B, SP_LAUNCH, TID_CONSUMER, l0, fb_now_ns());
#endif
        } else {
            fb_host_step(B, ld, NULL);
        }
        uint32_t count = b.count;
        if ((st = feed_batch_release(ld, &b, stream)) != FEED_OK)
            fb_die("feed_batch_release: %s: %s", feed_status_name(st), feed_loader_last_error(ld));
        fb_batch_done(B, count, ld, NULL);
        fb_maybe_sample(B, ld, NULL);
        if (B->c.batches && B->batches >= B->c.batches)
            break;
    }
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu && fb_gpu_sync(B->gpu, &B->gpu_window_ms, err, sizeof err) != 0)
        fb_die("%s", err);
#endif
    B->t_end = fb_now_ns();
    finish_feed_stats(B, ld);
    feed_loader_destroy(ld);
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
    fb_build_options(&K.c, &o);
    K.c.warmup = o.prefetch + 2;
    K.c.batches = K.c.warmup + c->calib_batches;
    K.is_calibration = 1;
    K.on_gpu = on_gpu;
    K.step_ms = 0;
    K.sample_ns = 0;
#if FEEDBENCH_HAVE_CUDA
    char err[512];
    if (on_gpu && fb_gpu_open(&K.gpu, ordinal, NULL, 0, err, sizeof err) != 0)
        fb_die("--device %s: %s", c->device, err);
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
    fb_parse_args(&B.c, argc, argv);
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
            fb_die("--device %s: %s", B.c.device, err);
#else
        fb_die("--device %s: this feedbench was built without CUDA (the project found no nvcc, or FEED_CUDA=OFF); "
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
        fb_run_sync(&B);
    else
        run_feed(&B); /* destroys the loader: its workers are reaped, their CPU time counted */
    B.cpu_s = cpu_seconds() - B.cpu_start;
    fb_progress(&B, 1);
    results R;
    fb_compute(&B, &R);
    if (!B.c.quiet)
        fb_print_table(&B, &R);
    if (B.c.json)
        fb_write_json(&B, &R, B.c.json);
    if (B.c.trace)
        fb_write_trace(&B, B.c.trace);
#if FEEDBENCH_HAVE_CUDA
    fb_gpu_close(B.gpu);
#endif
    bench_free(&B);
    return 0;
}

/*
 * feedbench_core.c - the state of a run that every part of feedbench updates:
 * the clock, fb_die, the measured window, the timeline samples and spans,
 * the progress line, the host step. It calls nothing in the other files of
 * feedbench (the GPU's mark, with CUDA, is feedbench_cuda.cu's).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feedbench_shared.h"

/* ---- small helpers --------------------------------------------------------- */

uint64_t fb_now_ns(void)
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

void fb_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("feedbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---- the measured window, samples, progress ------------------------------------ */

void fb_push_span(bench *B, uint32_t name, uint32_t tid, uint64_t t_start, uint64_t t_end)
{
    /* without --trace only the steps are kept (for the busy series) */
    if (B->is_calibration || t_end < t_start || (!B->c.trace && name != SP_STEP))
        return;
    span s = {t_start - B->t0, t_end - t_start, name, tid, B->batches};
    VEC_PUSH(B->spans, s);
}

void fb_push_sample(bench *B, const csample *s)
{
    if (B->is_calibration)
        return;
    csample x = *s;
    x.t -= B->t0;
    VEC_PUSH(B->cs, x);
}

csample fb_feed_counters(const bench *B, feed_loader *ld, feed_stats *out)
{
    feed_stats s = {.struct_size = sizeof s};
    csample c = {.t = fb_now_ns()};
    if (feed_loader_stats(ld, &s) == FEED_OK) {
        c.ready = s.ring_ready;
        c.read = s.read_ns, c.decode = s.decode_ns, c.augment = s.augment_ns;
        c.convert = s.convert_ns, c.copy = s.copy_ns, c.wait = s.next_wait_ns;
    }
    if (out)
        *out = s;
    return c;
}

/* With --trace: the workers' per-sample events (feed_loader_trace_read) as
 * spans on one track per worker: idle, read, decode, augment, convert. */
void fb_drain_worker_events(bench *B, feed_loader *ld)
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
                fb_push_span(B, SP_IDLE, tid, t - e->wait_ns, t);
            fb_push_span(B, SP_READ, tid, t, t + e->read_ns);
            t += e->read_ns;
            fb_push_span(B, SP_DECODE, tid, t, t + e->decode_ns);
            t += e->decode_ns;
            fb_push_span(B, SP_AUGMENT, tid, t, t + e->augment_ns);
            t += e->augment_ns;
            if (e->convert_ns)
                fb_push_span(B, SP_CONVERT, tid, t, t + e->convert_ns);
            B->batches = saved;
        }
        if (!n)
            break;
    }
}

void fb_sample_now(bench *B, feed_loader *ld, const sync_counters *sc)
{
    csample c;
    fb_drain_worker_events(B, ld);
    if (ld) {
        c = fb_feed_counters(B, ld, NULL);
    } else {
        c = (csample){.t = fb_now_ns(), .read = sc->read, .decode = sc->decode, .augment = sc->augment,
                      .convert = sc->convert, .copy = sc->copy, .wait = sc->wait};
    }
    fb_push_sample(B, &c);
    B->last_sample = c.t;
}

void fb_maybe_sample(bench *B, feed_loader *ld, const sync_counters *sc)
{
    uint64_t t = fb_now_ns();
    if (B->sample_ns ? t - B->last_sample >= B->sample_ns : t - B->last_sample >= 1000000)
        fb_sample_now(B, ld, sc);
}

void fb_progress(bench *B, int final)
{
    if (!B->c.progress || B->is_calibration)
        return;
    uint64_t t = fb_now_ns();
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
void fb_open_window(bench *B, feed_loader *ld, const sync_counters *sc)
{
    B->in_window = 1;
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu) {
        char err[256];
        if (fb_gpu_mark(B->gpu, &B->gpu_base_ns, err, sizeof err) != 0)
            fb_die("%s", err);
    }
#endif
    B->t_win = fb_now_ns();
    if (ld)
        B->win0 = fb_feed_counters(B, ld, NULL);
    else
        B->win0 = (csample){.t = B->t_win, .read = sc->read, .decode = sc->decode, .augment = sc->augment,
                            .convert = sc->convert, .copy = sc->copy, .wait = sc->wait};
    fb_push_sample(B, &B->win0);
    B->last_sample = B->t_win;
}

/* Called after each batch is done (stepped and released). */
void fb_batch_done(bench *B, uint32_t count, feed_loader *ld, const sync_counters *sc)
{
    B->batches++;
    B->images += count;
    if (B->in_window) {
        B->win_batches++;
        B->win_images += count;
    } else if (B->batches >= B->c.warmup) {
        fb_open_window(B, ld, sc);
    }
    fb_progress(B, 0);
}

/* Host step: sleep (no CPU taken from the workers), sampling the loader's counters. */
void fb_host_step(bench *B, feed_loader *ld, const sync_counters *sc)
{
    if (B->step_ms <= 0)
        return;
    uint64_t t0 = fb_now_ns();
    uint64_t deadline = t0 + (uint64_t)(B->step_ms * 1e6 + 0.5);
    for (;;) {
        uint64_t t = fb_now_ns();
        if (t >= deadline)
            break;
        uint64_t wake = deadline;
        if (B->sample_ns && B->last_sample + B->sample_ns < wake)
            wake = B->last_sample + B->sample_ns;
        if (wake > t)
            sleep_until(wake);
        if (B->sample_ns)
            fb_maybe_sample(B, ld, sc);
    }
    uint64_t t1 = fb_now_ns();
    if (B->in_window)
        B->step_sum_ns += (double)(t1 - t0);
    fb_push_span(B, SP_STEP, TID_CONSUMER, t0, t1);
}

void fb_plan_batches(bench *B)
{
    B->total_batches = B->c.batches ? B->c.batches : B->c.epochs ? B->batches_per_epoch * B->c.epochs : 0;
    if (B->c.warmup && B->total_batches && B->c.warmup >= B->total_batches) {
        if (!B->c.quiet && !B->is_calibration)
            fprintf(stderr, "feedbench: --warmup %u >= %" PRIu64 " batches in the run: nothing excluded\n",
                    B->c.warmup, B->total_batches);
        B->c.warmup = 0;
    }
}

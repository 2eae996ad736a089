/*
 * feedbench_report.c - what a run measured, for people and machines: the
 * results computed from a run (rates, busy fraction, next() waits, per-stage
 * costs, ring occupancy, series over time), the table, the JSON and the
 * Chrome trace.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feedbench_shared.h"

static const char *const span_names[] = {"next() wait", "step", "read", "decode", "augment",
                                         "convert", "copy", "step (GPU)", "launch step", "idle (no sample to claim)"};

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

void fb_compute(const bench *B, results *R)
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

void fb_print_table(const bench *B, const results *R)
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

/* One string member of the top-level object: ,\n  "key": "value". */
static void json_member_str(FILE *f, const char *key, const char *v)
{
    fprintf(f, ",\n  \"%s\": ", key);
    json_str(f, v);
}

void fb_write_json(const bench *B, const results *R, const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f)
        fb_die("--json %s: %s", path, strerror(errno));
    const bench_cfg *c = &B->c;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    fprintf(f, "{\n  \"tool\": \"feedbench\",\n  \"libfeed_version\": ");
    json_str(f, feed_version_string());
    json_member_str(f, "loader", c->loader);
    json_member_str(f, "device", c->device);
    json_member_str(f, "backend", B->backend);
    json_member_str(f, "reader", B->reader);
    json_member_str(f, "pinned", B->pinned);
    json_member_str(f, "readahead", B->readahead);
    fprintf(f, ",\n  \"readahead_files\": %llu", (unsigned long long)B->readahead_files);
    json_member_str(f, "gpu", B->gpu_name);
    json_member_str(f, "data", c->data);
    json_member_str(f, "augment", c->augment);
    json_member_str(f, "dtype", c->dtype);
    json_member_str(f, "opts", c->opts ? c->opts : "");
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
        fb_die("--json %s: %s", path, strerror(errno));
}

/* Chrome trace event format: X spans (us), C counters, M names. */
void fb_write_trace(const bench *B, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fb_die("--trace %s: %s", path, strerror(errno));
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
        fb_die("--trace %s: %s", path, strerror(errno));
}

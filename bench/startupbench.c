/*
 * startupbench.c - how long from feed_loader_create() to the first batch, and
 * where that time goes.
 *
 *   startupbench --data DIR [--runs 10] [--batch 64] [--workers 2]
 *                [--augment train|val] [--dtype uint8|float32] [--opts K=V,...]
 *                [--json FILE] [--quiet]
 *
 * Each run: create, next() (the first batch), release, destroy; one untimed run
 * first, so the page cache, the dynamic loader's caches and the worker
 * executable are warm, as in a training script's second start. Prints the
 * median over the runs of: create, create to first batch, destroy, and each
 * step of create (the loader records when each ends; a test-hooks accessor
 * reads them, hence a TEST_HOOKS program). The first batch's own time is its
 * decode: batch_size images over the workers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <feed.h>

#include "hooks/loader_test.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(void)
{
    fprintf(stderr, "usage: startupbench --data DIR [--runs N] [--batch N] [--workers N] [--augment train|val]\n"
                    "                    [--dtype uint8|float32] [--opts K=V,...] [--json FILE] [--quiet]\n");
    exit(2);
}

#define MAX_RUNS 1000

int main(int argc, char **argv)
{
    const char *data = NULL, *json = NULL, *augment = "train", *dtype = "uint8", *extra = NULL;
    int runs = 10, batch = 64, workers = 2, quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--data") && v)
            data = v, i++;
        else if (!strcmp(a, "--runs") && v)
            runs = atoi(v), i++;
        else if (!strcmp(a, "--batch") && v)
            batch = atoi(v), i++;
        else if (!strcmp(a, "--workers") && v)
            workers = atoi(v), i++;
        else if (!strcmp(a, "--augment") && v)
            augment = v, i++;
        else if (!strcmp(a, "--dtype") && v)
            dtype = v, i++;
        else if (!strcmp(a, "--opts") && v)
            extra = v, i++;
        else if (!strcmp(a, "--json") && v)
            json = v, i++;
        else if (!strcmp(a, "--quiet"))
            quiet = 1;
        else
            usage();
    }
    if (!data || runs < 1 || runs > MAX_RUNS || batch < 1 || workers < 1)
        usage();

    char text[4096], err[1024];
    snprintf(text, sizeof text, "source=%s,batch_size=%d,workers=%d,augment=%s,dtype=%s,device=host%s%s", data,
             batch, workers, augment, dtype, extra ? "," : "", extra ? extra : "");
    feed_options o;
    feed_options_init(&o, sizeof o);
    if (feed_options_parse(&o, text, err, sizeof err) != FEED_OK) {
        fprintf(stderr, "startupbench: %s\n", err);
        return 2;
    }

    static double create[MAX_RUNS], first[MAX_RUNS], destroy[MAX_RUNS];
    static double step[FEED__CREATE_STEPS][MAX_RUNS];
    for (int r = -1; r < runs; r++) {
        feed_loader *L;
        feed_batch b;
        memset(&b, 0, sizeof b);
        b.struct_size = sizeof b;
        double t0 = now_ms();
        if (feed_loader_create(&L, &o, err, sizeof err) != FEED_OK) {
            fprintf(stderr, "startupbench: create: %s\n", err);
            return 1;
        }
        double t1 = now_ms();
        feed_status st = feed_loader_next(L, &b, -1);
        double t2 = now_ms();
        if (st != FEED_OK) {
            fprintf(stderr, "startupbench: next: %s: %s\n", feed_status_name(st), feed_loader_last_error(L));
            return 1;
        }
        uint64_t ns[FEED__CREATE_STEPS];
        feed__loader_create_times(L, ns);
        feed_batch_release(L, &b, NULL);
        double t3 = now_ms();
        feed_loader_destroy(L);
        double t4 = now_ms();
        if (r < 0)
            continue; /* warm-up */
        create[r] = t1 - t0;
        first[r] = t2 - t0;
        destroy[r] = t4 - t3;
        for (int k = 0; k < FEED__CREATE_STEPS; k++)
            step[k][r] = (double)ns[k] * 1e-6;
    }
    double mc = median(create, runs), mf = median(first, runs), md = median(destroy, runs);
    double ms[FEED__CREATE_STEPS];
    for (int k = 0; k < FEED__CREATE_STEPS; k++)
        ms[k] = median(step[k], runs);
    if (!quiet) {
        printf("startupbench: %s, batch %d, %d workers, %s, %s; medians of %d runs (after 1 untimed)\n", data,
               batch, workers, augment, dtype, runs);
        printf("  %-34s %8.2f ms\n", "create -> first batch", mf);
        printf("  %-34s %8.2f ms\n", "create", mc);
        for (int k = 0; k < FEED__CREATE_STEPS; k++)
            printf("    %-32s %8.2f ms\n", feed__create_step_names[k], ms[k]);
        printf("  %-34s %8.2f ms\n", "first next() after create", mf - mc);
        printf("  %-34s %8.2f ms\n", "destroy", md);
    }
    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            perror(json);
            return 1;
        }
        fprintf(f, "{\n  \"data\": \"%s\",\n  \"batch\": %d,\n  \"workers\": %d,\n  \"augment\": \"%s\",\n"
                   "  \"dtype\": \"%s\",\n  \"runs\": %d,\n",
                data, batch, workers, augment, dtype, runs);
        fprintf(f, "  \"first_batch_ms\": %.3f,\n  \"create_ms\": %.3f,\n  \"destroy_ms\": %.3f,\n", mf, mc, md);
        fprintf(f, "  \"create_steps_ms\": {");
        for (int k = 0; k < FEED__CREATE_STEPS; k++)
            fprintf(f, "%s\n    \"%s\": %.3f", k ? "," : "", feed__create_step_names[k], ms[k]);
        fprintf(f, "\n  },\n  \"first_batch_ms_sorted\": [");
        for (int r = 0; r < runs; r++)
            fprintf(f, "%s%.3f", r ? ", " : "", first[r]);
        fprintf(f, "]\n}\n");
        fclose(f);
    }
    return 0;
}

/*
 * feedbench_cli.c - feedbench's command line: usage, parsing and checking the
 * arguments, and the libfeed options they make.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feedbench_shared.h"
#include "loader/options.h"

static void usage(FILE *f)
{
    fputs(
        "usage: feedbench --data DIR [options]\n"
        "\n"
        "A training-loop simulation: get a batch, run a simulated model step, repeat.\n"
        "Reports images/s, the fraction of time the (simulated) GPU is busy, how long\n"
        "the consumer blocks waiting for data, per-stage costs and ring occupancy.\n"
        "\n"
        "  --data DIR          ImageFolder root (or a \"path label\" file list, or a .npy\n"
        "                      array with --opts labels=LABELS.npy)\n"
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
        fb_die("%s %s: expected a number in [%g, %g]", opt, s, lo, hi);
    return v;
}

void fb_parse_args(bench_cfg *c, int argc, char **argv)
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
        fb_die("unexpected argument '%s' (see --help)", argv[optind]);
    if (!c->data)
        fb_die("--data DIR is required (see --help)");
    if (strcmp(c->loader, "feed") && strcmp(c->loader, "sync"))
        fb_die("--loader %s: expected feed or sync", c->loader);
    if (strcmp(c->device, "host") && strncmp(c->device, "cuda", 4))
        fb_die("--device %s: expected host, cuda or cuda:N", c->device);
    if (c->batches && !c->epochs_set)
        c->epochs = 0; /* as many epochs as --batches needs */
    if (!c->epochs && !c->batches)
        fb_die("--epochs 0 would run for ever: give --batches N as well");
    if (c->progress < 0)
        c->progress = isatty(2) && !c->quiet;
}

void fb_build_options(const bench_cfg *c, feed_options *o)
{
    char err[512], kv[1024];
    feed_options_init(o, sizeof *o);
    snprintf(o->source, sizeof o->source, "%s", c->data);
    snprintf(kv, sizeof kv, "batch_size=%u,workers=%u,augment=%s,dtype=%s,device=%s,seed=%" PRIu64 ",epochs=%u",
             c->batch, c->workers, c->augment, c->dtype, c->device, c->seed, c->epochs);
    if (feed_options_parse(o, kv, err, sizeof err) != FEED_OK)
        fb_die("%s", err);
    if (c->prefetch) {
        snprintf(kv, sizeof kv, "%u", c->prefetch);
        if (feed_options_set(o, "prefetch", kv, err, sizeof err) != FEED_OK)
            fb_die("%s", err);
    }
    if (c->opts && feed_options_parse(o, c->opts, err, sizeof err) != FEED_OK)
        fb_die("--opts: %s", err);
}

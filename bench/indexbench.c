/*
 * indexbench - how long building the dataset index takes and what it costs in
 * memory, for N samples, two ways:
 *
 *   list:   a generated "path label" file list (N lines like
 *           "class_123/img_000001234.jpg 123", written to a temporary folder
 *           first, not timed), built with feed__index_build as the loader does;
 *   multi:  the same list with 1 to 4 labels a line ("... 123 7 542"), built
 *           with multi_label=1 (the label pool);
 *   shards: generated WebDataset shard headers (1000 samples a shard,
 *           KEY.jpg + KEY.cls each), scanned by the real tar scanner and
 *           indexed with feed__index_build_shards. The shard bytes are one
 *           in-memory shard served for every shard path, so this times the
 *           scan and the index, not a disk (no system calls per header);
 *   meta:   the same shards with a KEY.json member each, indexed with
 *           meta_members=json (each member's range in the index).
 *
 *   indexbench --entries N [--mode list|multi|shards|meta|both|all] [--tmp DIR] [--json FILE]
 *
 * Reports seconds (build only, wall clock; cpu_seconds too, steadier on a
 * shared machine), bytes_per_sample (the whole index / N),
 * path_bytes_per_sample (the string pool / N) and the entry bytes per sample
 * without paths, plus the process's peak RSS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "dataset/index.h"
#include "dataset/tar.h"

#define SHARD_SAMPLES 1000u
#define NCLASSES 1000u

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* CPU time of this process: on a shared machine, steadier than the wall clock. */
static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double peak_rss_mb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0;
}

typedef struct result {
    const char *mode;
    uint64_t n;
    double seconds, cpu_seconds, gen_seconds;
    double bytes_per_sample, path_bytes_per_sample, entry_bytes_per_sample;
    double rss_mb;
    uint64_t total_bytes;
} result;

static void fill(result *r, const feed__index *ix)
{
    const feed__index_hdr *h = ix->hdr;
    r->total_bytes = h->total_bytes;
    r->bytes_per_sample = (double)h->total_bytes / (double)r->n;
    r->path_bytes_per_sample = (double)h->pool_bytes / (double)r->n;
    r->entry_bytes_per_sample = (double)(h->total_bytes - h->pool_bytes) / (double)r->n;
    r->rss_mb = peak_rss_mb();
}

/* ---- list ----------------------------------------------------------------------- */

static int run_list(uint64_t n, const char *tmp, int multi, result *r)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/indexbench-%ld.txt", tmp, (long)getpid());
    double t0 = now();
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "indexbench: %s: %s\n", path, strerror(errno));
        return -1;
    }
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    for (uint64_t i = 0; i < n; i++) {
        unsigned c = (unsigned)(i % NCLASSES);
        fprintf(f, "class_%03u/img_%09llu.jpg %u", c, (unsigned long long)i, c);
        for (unsigned k = 1; multi && k <= i % 4; k++) /* 1..4 labels, none twice */
            fprintf(f, " %u", (c + 250 * k) % NCLASSES);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "indexbench: writing %s: %s\n", path, strerror(errno));
        unlink(path);
        return -1;
    }
    r->gen_seconds = now() - t0;
    feed__index ix;
    char err[1024];
    t0 = now();
    double c0 = cpu();
    feed__index_spec spec = {.source = "", .file_list = path, .multi_label = (uint32_t)multi};
    feed_status st = feed__index_build_spec(&ix, &spec, err, sizeof err);
    r->seconds = now() - t0;
    r->cpu_seconds = cpu() - c0;
    unlink(path);
    if (st != FEED_OK) {
        fprintf(stderr, "indexbench: %s\n", err);
        return -1;
    }
    if (ix.hdr->count != n) {
        fprintf(stderr, "indexbench: list: %llu entries, expected %llu\n",
                (unsigned long long)ix.hdr->count, (unsigned long long)n);
        return -1;
    }
    r->mode = multi ? "multi" : "list";
    r->n = n;
    fill(r, &ix);
    feed__index_free(&ix);
    return 0;
}

/* ---- shards ----------------------------------------------------------------------- */

typedef struct shardgen {
    uint8_t *bytes; /* one shard of SHARD_SAMPLES samples */
    int meta;       /* a KEY.json member a sample */
    uint64_t size, last_size; /* the last shard holds the remainder */
} shardgen;

static int64_t mem_read(void *ctx, void *buf, size_t n, uint64_t off)
{
    const shardgen *g = ctx;
    if (off >= g->size)
        return 0;
    if (n > g->size - off)
        n = (size_t)(g->size - off);
    memcpy(buf, g->bytes + off, n);
    return (int64_t)n;
}

typedef struct shards_ctx {
    shardgen full, last;
    uint32_t nshards;
} shards_ctx;

static feed_status open_shard(void *ctx, uint32_t i, feed__tar_io *io, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    shards_ctx *c = ctx;
    shardgen *g = i + 1 == c->nshards ? &c->last : &c->full;
    *io = (feed__tar_io){mem_read, g, g->size};
    return FEED_OK;
}

static void close_shard(void *ctx, feed__tar_io *io)
{
    (void)ctx, (void)io;
}

/* A shard of k samples: KEY.jpg (700 bytes: two blocks) + KEY.cls (+ KEY.json). */
static int make_shard(shardgen *g, uint32_t k)
{
    g->size = (uint64_t)k * (g->meta ? 7 : 5) * 512 + 1024;
    g->bytes = calloc(1, g->size);
    if (!g->bytes)
        return -1;
    uint64_t o = 0;
    for (uint32_t i = 0; i < k; i++) {
        char name[64], lab[16];
        snprintf(name, sizeof name, "sample_%06u.jpg", i);
        feed__tar_header(g->bytes + o, name, 700, 0);
        memset(g->bytes + o + 512, 0xab, 700);
        o += 3 * 512;
        snprintf(name, sizeof name, "sample_%06u.cls", i);
        int n = snprintf(lab, sizeof lab, "%u", i % NCLASSES);
        feed__tar_header(g->bytes + o, name, (uint64_t)n, 0);
        memcpy(g->bytes + o + 512, lab, (size_t)n);
        o += 2 * 512;
        if (g->meta) {
            snprintf(name, sizeof name, "sample_%06u.json", i);
            n = snprintf(lab, sizeof lab, "{\"i\": %u}", i % 100000);
            feed__tar_header(g->bytes + o, name, (uint64_t)n, 0);
            memcpy(g->bytes + o + 512, lab, (size_t)n);
            o += 2 * 512;
        }
    }
    return 0;
}

static int run_shards(uint64_t n, int meta, result *r)
{
    shards_ctx c = {.full.meta = meta, .last.meta = meta};
    uint64_t ns = (n + SHARD_SAMPLES - 1) / SHARD_SAMPLES;
    uint32_t rem = (uint32_t)(n - (ns - 1) * SHARD_SAMPLES);
    double t0 = now();
    char **paths = calloc(ns, sizeof *paths);
    if (!paths || make_shard(&c.full, SHARD_SAMPLES) || make_shard(&c.last, rem)) {
        fprintf(stderr, "indexbench: out of memory\n");
        return -1;
    }
    c.nshards = (uint32_t)ns;
    for (uint64_t i = 0; i < ns; i++) {
        char p[64];
        snprintf(p, sizeof p, "/data/imagenet/train-%06llu.tar", (unsigned long long)i);
        paths[i] = strdup(p);
        if (!paths[i]) {
            fprintf(stderr, "indexbench: out of memory\n");
            return -1;
        }
    }
    r->gen_seconds = now() - t0;
    feed__index ix;
    char err[1024];
    t0 = now();
    double c0 = cpu();
    static const char *const exts[] = {"json"};
    feed__shard_members mem = {.meta_exts = exts, .nmeta = meta ? 1 : 0};
    feed_status st = feed__index_build_shards_with(&ix, "/", paths, ns, open_shard, close_shard, &c, &mem, err,
                                                   sizeof err);
    r->seconds = now() - t0;
    r->cpu_seconds = cpu() - c0;
    for (uint64_t i = 0; i < ns; i++)
        free(paths[i]);
    free(paths);
    free(c.full.bytes);
    free(c.last.bytes);
    if (st != FEED_OK) {
        fprintf(stderr, "indexbench: %s\n", err);
        return -1;
    }
    if (ix.hdr->count != n || ix.hdr->problems) {
        fprintf(stderr, "indexbench: shards: %llu samples (%llu problems), expected %llu\n",
                (unsigned long long)ix.hdr->count, (unsigned long long)ix.hdr->problems,
                (unsigned long long)n);
        return -1;
    }
    if (meta && ix.hdr->nmeta != 1) {
        fprintf(stderr, "indexbench: meta: the index keeps no member ranges\n");
        return -1;
    }
    r->mode = meta ? "meta" : "shards";
    r->n = n;
    fill(r, &ix);
    feed__index_free(&ix);
    return 0;
}

/* ---- main --------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f, "usage: indexbench --entries N [--mode list|multi|shards|meta|both|all] [--tmp DIR] [--json FILE]\n");
}

int main(int argc, char **argv)
{
    uint64_t n = 1000000;
    const char *mode = "both", *json = NULL, *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--entries") && v) {
            char *end;
            n = strtoull(v, &end, 10);
            if (*end || !n) {
                fprintf(stderr, "indexbench: --entries '%s': want a positive integer\n", v);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--mode") && v) {
            mode = v, i++;
        } else if (!strcmp(a, "--tmp") && v) {
            tmp = v, i++;
        } else if (!strcmp(a, "--json") && v) {
            json = v, i++;
        } else {
            usage(stderr);
            return 2;
        }
    }
    int all = !strcmp(mode, "all");
    int do_list = !strcmp(mode, "list") || !strcmp(mode, "both") || all;
    int do_multi = !strcmp(mode, "multi") || all;
    int do_shards = !strcmp(mode, "shards") || !strcmp(mode, "both") || all;
    int do_meta = !strcmp(mode, "meta") || all;
    if (!do_list && !do_shards && !do_multi && !do_meta) {
        usage(stderr);
        return 2;
    }
    result res[4];
    int nres = 0;
    if (do_shards) { /* first: its peak RSS is not the list's */
        if (run_shards(n, 0, &res[nres]))
            return 1;
        nres++;
    }
    if (do_meta) {
        if (run_shards(n, 1, &res[nres]))
            return 1;
        nres++;
    }
    if (do_list) {
        if (run_list(n, tmp, 0, &res[nres]))
            return 1;
        nres++;
    }
    if (do_multi) {
        if (run_list(n, tmp, 1, &res[nres]))
            return 1;
        nres++;
    }
    printf("%-7s %12s %9s %9s %9s %11s %11s %11s %10s\n", "source", "entries", "build s", "cpu s", "gen s",
           "bytes/smp", "entry B/smp", "path B/smp", "peak RSS");
    for (int i = 0; i < nres; i++)
        printf("%-7s %12llu %9.3f %9.3f %9.3f %11.2f %11.2f %11.2f %7.0f MB\n", res[i].mode,
               (unsigned long long)res[i].n, res[i].seconds, res[i].cpu_seconds, res[i].gen_seconds,
               res[i].bytes_per_sample, res[i].entry_bytes_per_sample, res[i].path_bytes_per_sample,
               res[i].rss_mb);
    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            fprintf(stderr, "indexbench: %s: %s\n", json, strerror(errno));
            return 1;
        }
        fprintf(f, "{\n  \"entries\": %llu,\n  \"results\": [\n", (unsigned long long)n);
        for (int i = 0; i < nres; i++)
            fprintf(f,
                    "    {\"source\": \"%s\", \"entries\": %llu, \"seconds\": %.6f, \"cpu_seconds\": %.6f, "
                    "\"generate_seconds\": %.6f, \"bytes_per_sample\": %.4f, "
                    "\"entry_bytes_per_sample\": %.4f, \"path_bytes_per_sample\": %.4f, "
                    "\"index_bytes\": %llu, \"peak_rss_mb\": %.1f}%s\n",
                    res[i].mode, (unsigned long long)res[i].n, res[i].seconds, res[i].cpu_seconds,
                    res[i].gen_seconds,
                    res[i].bytes_per_sample, res[i].entry_bytes_per_sample,
                    res[i].path_bytes_per_sample, (unsigned long long)res[i].total_bytes,
                    res[i].rss_mb, i + 1 < nres ? "," : "");
        fprintf(f, "  ]\n}\n");
        if (fclose(f) != 0) {
            fprintf(stderr, "indexbench: %s: %s\n", json, strerror(errno));
            return 1;
        }
    }
    return 0;
}

/*
 * faultbench.c - a reliability run: does any sample get lost or delivered
 * twice when workers are killed and files are bad, and what does it cost?
 *
 *   faultbench --data DIR --json FILE [--workers 2] [--batch 32]
 *              [--kill-every 20] [--bad-frac 0.05] [--max N] [--seed S]
 *              [--size 224] [--tmp DIR] [--quiet]
 *
 * Two runs of one epoch over the same images, with the same seed (so the same
 * order), each timed from create to END_OF_EPOCH:
 *   clean   the dataset as it is;
 *   faulty  bad_frac of the files replaced by bad copies (truncated, zero
 *           bytes, random bytes, a PNG named .jpg: made here, in a temporary
 *           folder, never touching DIR), and a worker SIGKILLed every
 *           kill_every batches (round-robin over the workers, from the
 *           consumer thread, between next() calls).
 * Both runs read a file list in the temporary folder, holding absolute paths
 * (the faulty one points the bad samples at their bad copies), so a sample
 * has the same id in both.
 *
 * Counted by sample id in the faulty run (bad samples are replaced by
 * substitutes, flagged FEED_SAMPLE_REPLACED, which count as substitutes and
 * not as deliveries of the substitute's id):
 *   delivered   samples the batches held (ids delivered as themselves plus
 *               substitutes): must equal the epoch length
 *   duplicates  extra deliveries of an id (must be 0)
 *   lost        ids neither delivered nor reported bad (must be 0)
 *   bad_reported  feed_loader_bad_count() (should equal bad_made)
 *   pixel_mismatches  positions whose sample is good but whose pixels or label
 *               differ from the clean run (must be 0)
 *   respawns    feed_stats.worker_restarts
 *   throughput_ratio  faulty images/s over clean images/s
 * Exits 1 if duplicates, lost or pixel_mismatches is not 0, or a bad file went
 * unreported; 2 on a usage or setup error.
 *
 * A tiny CI smoke run: faultbench --data DIR --json out.json --max 200
 * --batch 8 --kill-every 3 --size 64.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <feed.h>

#include "dataset/index.h"
#include "hooks/loader_test.h"

static const char *prog = "faultbench";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A fast hash of a sample (8 bytes a step). */
static uint64_t hash_sample(const uint8_t *p, size_t n, int32_t label)
{
    uint64_t h = 0x243f6a8885a308d3ull ^ (uint64_t)(uint32_t)label;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return mix64(h);
}

typedef struct opts {
    const char *data, *json, *tmp;
    uint32_t workers, batch, kill_every, size, quiet;
    double bad_frac;
    uint64_t max, seed;
} opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: faultbench --data DIR --json FILE [--workers N] [--batch B] [--kill-every K]\n"
            "                  [--bad-frac F] [--max N] [--seed S] [--size PX] [--tmp DIR] [--quiet]\n"
            "  --data DIR       ImageFolder root or \"path label\" list (not modified)\n"
            "  --json FILE      write the results here\n"
            "  --workers N      worker processes (default 2)\n"
            "  --batch B        batch size (default 32)\n"
            "  --kill-every K   SIGKILL a worker every K batches in the faulty run (default 20; 0: never)\n"
            "  --bad-frac F     fraction of files replaced by bad copies (default 0.05)\n"
            "  --max N          use only the first N images (CI smoke runs)\n"
            "  --seed S         order and choice of bad files (default 1)\n"
            "  --size PX        output height and width (default 224; augment=val)\n"
            "  --tmp DIR        where the bad copies go (default $TMPDIR or /tmp)\n"
            "  --quiet          no table\n");
}

static uint64_t parse_u64(const char *key, const char *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || end == v || *end || v[0] == '-')
        die("%s '%s': want a non-negative whole number", key, v);
    return x;
}

static void parse(int argc, char **argv, opts *o)
{
    *o = (opts){.workers = 2, .batch = 32, .kill_every = 20, .bad_frac = 0.05, .seed = 1, .size = 224};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        if (i + 1 >= argc) {
            usage(stderr);
            die("%s needs a value", a);
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--data"))
            o->data = v;
        else if (!strcmp(a, "--json"))
            o->json = v;
        else if (!strcmp(a, "--tmp"))
            o->tmp = v;
        else if (!strcmp(a, "--workers"))
            o->workers = (uint32_t)parse_u64(a, v);
        else if (!strcmp(a, "--batch"))
            o->batch = (uint32_t)parse_u64(a, v);
        else if (!strcmp(a, "--kill-every"))
            o->kill_every = (uint32_t)parse_u64(a, v);
        else if (!strcmp(a, "--max"))
            o->max = parse_u64(a, v);
        else if (!strcmp(a, "--seed"))
            o->seed = parse_u64(a, v);
        else if (!strcmp(a, "--size"))
            o->size = (uint32_t)parse_u64(a, v);
        else if (!strcmp(a, "--bad-frac")) {
            char *end;
            o->bad_frac = strtod(v, &end);
            if (end == v || *end || !(o->bad_frac >= 0 && o->bad_frac <= 0.5))
                die("--bad-frac '%s': want a number from 0 to 0.5", v);
        } else {
            usage(stderr);
            die("unknown option %s", a);
        }
    }
    if (!o->data || !o->json) {
        usage(stderr);
        die("--data and --json are required");
    }
    if (!o->workers || !o->batch || !o->size)
        die("--workers, --batch and --size must be >= 1");
    if (!o->tmp)
        o->tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
}

/* ---- the bad copies ------------------------------------------------------------ */

enum { BAD_TRUNCATED, BAD_ZERO, BAD_RANDOM, BAD_PNG, BAD_KINDS };
static const char *const bad_names[] = {"truncated", "zero", "random", "png"};

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("%s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
        die("%s: cannot read", path);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void write_all(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        die("%s: %s", path, strerror(errno));
}

static void make_bad(const char *from, const char *to, int kind, uint64_t seed)
{
    size_t len;
    uint8_t *b = read_all(from, &len);
    uint64_t x = seed | 1;
    switch (kind) {
    case BAD_TRUNCATED: /* somewhere in its first 90% */
        len = len > 10 ? 1 + (size_t)(mix64(seed) % (len * 9 / 10)) : 1;
        break;
    case BAD_ZERO:
        len = 0;
        break;
    case BAD_RANDOM:
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            b[i] = (uint8_t)x;
        }
        break;
    case BAD_PNG: { /* a PNG signature and header, then the JPEG's bytes */
        static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I',
                                      'H',  'D', 'R', 0,    0,    0,    64, 0,    0, 0, 64, 8, 2, 0, 0, 0};
        if (len >= sizeof png)
            memcpy(b, png, sizeof png);
        break;
    }
    }
    write_all(to, b, len);
    free(b);
}

/* ---- one run --------------------------------------------------------------------- */

typedef struct run {
    double seconds;
    uint64_t batches, samples, substituted, kills;
    uint32_t *count;    /* [n] deliveries of id as itself */
    uint64_t *pos_hash; /* [n] hash of the sample at each position of the epoch */
    uint8_t *pos_repl;  /* [n] 1 where the position held a substitute */
    feed_stats stats;
    uint64_t bad_reported;
    uint8_t *reported;  /* [n] id has a bad-sample report */
} run;

static void run_epoch(const opts *o, const char *list, uint64_t n, int faulty, run *r)
{
    memset(r, 0, sizeof *r);
    r->count = calloc(n, sizeof *r->count);
    r->pos_hash = calloc(n, sizeof *r->pos_hash);
    r->pos_repl = calloc(n, 1);
    r->reported = calloc(n, 1);
    if (!r->count || !r->pos_hash || !r->pos_repl || !r->reported)
        die("out of memory");
    feed_options fo;
    char err[2048];
    feed_options_init(&fo, sizeof fo);
    snprintf(fo.file_list, sizeof fo.file_list, "%s", list);
    fo.batch_size = o->batch;
    fo.workers = o->workers;
    fo.height = fo.width = o->size;
    fo.resize_shorter = o->size + o->size / 7;
    fo.augment = FEED_AUGMENT_VAL;
    fo.seed = o->seed;
    fo.epochs = 1;
    /* What is measured is recovery, not the budget: a budget with room for
     * the bad files this run injects (bad_frac of them), so that no stretch
     * where they cluster stops it. */
    fo.max_bad_fraction = (float)(o->bad_frac * 3 < 1 ? o->bad_frac * 3 : 1);
    snprintf(fo.device, sizeof fo.device, "host");
    double t0 = now_s();
    feed_loader *L;
    feed_status st = feed_loader_create(&L, &fo, err, sizeof err);
    if (st != FEED_OK)
        die("create (%s run): %s", faulty ? "faulty" : "clean", err);
    if (feed_loader_samples_per_epoch(L) != n)
        die("epoch of %llu samples, expected %llu", (unsigned long long)feed_loader_samples_per_epoch(L),
            (unsigned long long)n);
    feed_batch b = {.struct_size = sizeof b};
    uint64_t pos = 0;
    while ((st = feed_loader_next(L, &b, 120000)) == FEED_OK) {
        for (uint32_t i = 0; i < b.count && pos < n; i++, pos++) {
            uint64_t id = b.sample_ids[i];
            if (b.flags[i] & FEED_SAMPLE_REPLACED) {
                r->substituted++;
                r->pos_repl[pos] = 1;
            } else if (id < n) {
                r->count[id]++;
            }
            r->pos_hash[pos] =
                hash_sample((const uint8_t *)b.data + (size_t)i * b.sample_bytes, b.sample_bytes, b.labels[i]);
        }
        r->samples += b.count;
        r->batches++;
        feed_batch_release(L, &b, NULL);
        if (faulty && o->kill_every && r->batches % o->kill_every == 0) {
            /* round-robin; a worker being replaced right now is skipped */
            for (uint32_t k = 0; k < o->workers; k++) {
                pid_t pid = feed__loader_worker_pid(L, (uint32_t)((r->kills + k) % o->workers));
                if (pid > 0 && kill(pid, SIGKILL) == 0) {
                    r->kills++;
                    break;
                }
            }
        }
    }
    if (st != FEED_END_OF_EPOCH)
        die("%s run, batch %llu: %s: %s", faulty ? "faulty" : "clean", (unsigned long long)r->batches,
            feed_status_name(st), feed_loader_last_error(L));
    r->seconds = now_s() - t0;
    r->stats.struct_size = sizeof r->stats;
    feed_loader_stats(L, &r->stats);
    r->bad_reported = feed_loader_bad_count(L);
    for (uint64_t i = 0; i < r->bad_reported; i++) {
        feed_bad_sample s = {.struct_size = sizeof s};
        if (feed_loader_bad_sample(L, i, &s) == FEED_OK && s.sample_id < n)
            r->reported[s.sample_id] = 1;
    }
    feed_loader_destroy(L);
}

static void run_free(run *r)
{
    free(r->count);
    free(r->pos_hash);
    free(r->pos_repl);
    free(r->reported);
}

int main(int argc, char **argv)
{
    opts o;
    parse(argc, argv, &o);
    signal(SIGPIPE, SIG_IGN);

    /* The images, as libfeed indexes them. */
    feed__index ix;
    char err[2048];
    if (feed__index_build(&ix, o.data, "", err, sizeof err) != FEED_OK)
        die("%s", err);
    uint64_t n = ix.hdr->count;
    if (o.max && o.max < n)
        n = o.max;
    if (n < 2)
        die("need at least 2 images");
    if (n < 2000 && !o.quiet)
        fprintf(stderr, "%s: note: %llu images (the reliability run is meant for >= 2000)\n", prog,
                (unsigned long long)n);

    char dir[4096];
    snprintf(dir, sizeof dir, "%s/faultbench-XXXXXX", o.tmp);
    if (!mkdtemp(dir))
        die("mkdtemp %s: %s", dir, strerror(errno));
    char clean_list[4200], faulty_list[4200], path[8400];
    snprintf(clean_list, sizeof clean_list, "%s/clean.txt", dir);
    snprintf(faulty_list, sizeof faulty_list, "%s/faulty.txt", dir);

    /* Which files go bad: exactly round(n * bad_frac), by a seeded shuffle. */
    uint64_t nbad = (uint64_t)(o.bad_frac * (double)n + 0.5);
    uint8_t *bad = calloc(n, 1);
    uint64_t *perm = malloc(n * sizeof *perm);
    if (!bad || !perm)
        die("out of memory");
    for (uint64_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint64_t i = 0; i < nbad; i++) {
        uint64_t j = i + mix64(o.seed * 0x51ed27u + i) % (n - i);
        uint64_t t = perm[i];
        perm[i] = perm[j], perm[j] = t;
        bad[perm[i]] = 1;
    }
    free(perm);
    uint64_t kinds[BAD_KINDS] = {0};
    FILE *fc = fopen(clean_list, "w"), *ff = fopen(faulty_list, "w");
    if (!fc || !ff)
        die("%s: %s", dir, strerror(errno));
    uint64_t kind_i = 0;
    for (uint64_t i = 0; i < n; i++) {
        const char *rel = feed__index_path(ix.hdr, i);
        char src[8400];
        if (rel[0] == '/')
            snprintf(src, sizeof src, "%s", rel);
        else
            snprintf(src, sizeof src, "%s/%s", ix.hdr->root, rel);
        int32_t label = feed__index_label(ix.hdr, i);
        fprintf(fc, "%s %d\n", src, label);
        if (bad[i]) {
            int kind = (int)(kind_i++ % BAD_KINDS);
            kinds[kind]++;
            snprintf(path, sizeof path, "%s/bad_%06llu_%s.jpg", dir, (unsigned long long)i, bad_names[kind]);
            make_bad(src, path, kind, mix64(o.seed ^ i));
            fprintf(ff, "%s %d\n", path, label);
        } else {
            fprintf(ff, "%s %d\n", src, label);
        }
    }
    if (fclose(fc) != 0 || fclose(ff) != 0)
        die("%s: %s", dir, strerror(errno));

    run clean, faulty;
    run_epoch(&o, clean_list, n, 0, &clean);
    run_epoch(&o, faulty_list, n, 1, &faulty);

    /* Count by id. */
    uint64_t duplicates = 0, lost = 0, unreported = 0, delivered_bad = 0, clean_problems = 0;
    uint64_t reported_good = 0, mismatches = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (faulty.count[i] > 1)
            duplicates += faulty.count[i] - 1;
        if (faulty.count[i] == 0 && !faulty.reported[i])
            lost++;
        if (bad[i] && !faulty.reported[i])
            unreported++;
        if (bad[i] && faulty.count[i])
            delivered_bad++;
        if (!bad[i] && faulty.reported[i])
            reported_good++;
        if (clean.count[i] != 1)
            clean_problems++;
        /* same position, good sample on both sides: same pixels and label */
        if (!faulty.pos_repl[i] && faulty.pos_hash[i] != clean.pos_hash[i])
            mismatches++;
    }
    double clean_ips = (double)clean.samples / clean.seconds;
    double faulty_ips = (double)faulty.samples / faulty.seconds;
    double ratio = faulty_ips / clean_ips;
    int ok = duplicates == 0 && lost == 0 && mismatches == 0 && unreported == 0 && delivered_bad == 0 &&
             clean_problems == 0 && faulty.samples == n && clean.samples == n;

    if (!o.quiet) {
        printf("faultbench: %llu images, %u workers, batch %u, %ux%u, kill every %u batches, %.1f%% bad "
               "files (%llu truncated, %llu zero, %llu random, %llu png)\n",
               (unsigned long long)n, o.workers, o.batch, o.size, o.size, o.kill_every, 100.0 * o.bad_frac,
               (unsigned long long)kinds[0], (unsigned long long)kinds[1], (unsigned long long)kinds[2],
               (unsigned long long)kinds[3]);
        printf("%-8s %9s %8s %10s %9s %11s %8s %8s %9s\n", "run", "delivered", "batches", "seconds",
               "images/s", "substituted", "kills", "respawns", "redone");
        const run *rs[2] = {&clean, &faulty};
        const char *names[2] = {"clean", "faulty"};
        for (int k = 0; k < 2; k++)
            printf("%-8s %9llu %8llu %10.3f %9.1f %11llu %8llu %8llu %9llu\n", names[k],
                   (unsigned long long)rs[k]->samples, (unsigned long long)rs[k]->batches, rs[k]->seconds,
                   (double)rs[k]->samples / rs[k]->seconds, (unsigned long long)rs[k]->substituted,
                   (unsigned long long)rs[k]->kills, (unsigned long long)rs[k]->stats.worker_restarts,
                   (unsigned long long)rs[k]->stats.samples_redone);
        printf("duplicates %llu, lost %llu, bad made %llu, bad reported %llu (unreported %llu), "
               "pixel mismatches %llu, throughput ratio %.3f: %s\n",
               (unsigned long long)duplicates, (unsigned long long)lost, (unsigned long long)nbad,
               (unsigned long long)faulty.bad_reported, (unsigned long long)unreported,
               (unsigned long long)mismatches, ratio, ok ? "PASS" : "FAIL");
    }

    FILE *j = fopen(o.json, "w");
    if (!j)
        die("%s: %s", o.json, strerror(errno));
    fprintf(j,
            "{\n"
            "  \"benchmark\": \"faultbench\",\n"
            "  \"libfeed\": \"%s\",\n"
            "  \"data\": \"%s\",\n"
            "  \"images\": %llu,\n"
            "  \"workers\": %u,\n"
            "  \"batch\": %u,\n"
            "  \"size\": %u,\n"
            "  \"kill_every\": %u,\n"
            "  \"bad_frac\": %.4f,\n"
            "  \"seed\": %llu,\n"
            "  \"delivered\": %llu,\n"
            "  \"duplicates\": %llu,\n"
            "  \"lost\": %llu,\n"
            "  \"bad_made\": %llu,\n"
            "  \"bad_reported\": %llu,\n"
            "  \"bad_unreported\": %llu,\n"
            "  \"good_reported_bad\": %llu,\n"
            "  \"substituted\": %llu,\n"
            "  \"pixel_mismatches\": %llu,\n"
            "  \"kills\": %llu,\n"
            "  \"respawns\": %llu,\n"
            "  \"samples_redone\": %llu,\n"
            "  \"clean\": {\"seconds\": %.4f, \"images_per_s\": %.2f, \"batches\": %llu},\n"
            "  \"faulty\": {\"seconds\": %.4f, \"images_per_s\": %.2f, \"batches\": %llu},\n"
            "  \"throughput_ratio\": %.4f,\n"
            "  \"pass\": %s\n"
            "}\n",
            feed_version_string(), o.data, (unsigned long long)n, o.workers, o.batch, o.size, o.kill_every,
            o.bad_frac, (unsigned long long)o.seed, (unsigned long long)faulty.samples,
            (unsigned long long)duplicates, (unsigned long long)lost, (unsigned long long)nbad,
            (unsigned long long)faulty.bad_reported, (unsigned long long)unreported,
            (unsigned long long)reported_good, (unsigned long long)faulty.substituted,
            (unsigned long long)mismatches, (unsigned long long)faulty.kills,
            (unsigned long long)faulty.stats.worker_restarts, (unsigned long long)faulty.stats.samples_redone,
            clean.seconds, clean_ips, (unsigned long long)clean.batches, faulty.seconds, faulty_ips,
            (unsigned long long)faulty.batches, ratio, ok ? "true" : "false");
    if (fclose(j) != 0)
        die("%s: %s", o.json, strerror(errno));

    /* Remove what was made here. */
    for (uint64_t i = 0; i < n; i++)
        if (bad[i])
            for (int k = 0; k < BAD_KINDS; k++) {
                snprintf(path, sizeof path, "%s/bad_%06llu_%s.jpg", dir, (unsigned long long)i, bad_names[k]);
                unlink(path);
            }
    unlink(clean_list);
    unlink(faulty_list);
    rmdir(dir);
    free(bad);
    run_free(&clean);
    run_free(&faulty);
    feed__index_free(&ix);
    return ok ? 0 : 1;
}

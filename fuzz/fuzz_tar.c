/*
 * fuzz_tar.c - the tar shard scanner (src/dataset/tar.c) on untrusted bytes: the
 * input is one shard.
 *
 * Properties: the scan returns FEED_OK (a broken shard is problems, not a
 * failure); every sample it gives lies inside the shard, after a header
 * (offset >= 512, on a block boundary) and does not overlap the one before
 * (members come in order); labels are 0..2147483647; every problem names the
 * shard and an offset inside it. Scanned twice: one label a sample, then
 * multi_label (1..256 labels, none twice), which keeps every sample the
 * first scan gave (one label is a valid list of labels); then once more with
 * a KEY.npy target member required: each handed over inside the shard and
 * within the limit, the samples a subset of the first scan's, none without
 * its target accepted; the third pass also asks for KEY.json and KEY.txt
 * metadata members: each one given lies inside the shard, on a block
 * boundary after a header, the two apart, and "none" is exactly
 * (UINT64_MAX, 0).
 */
#include <stdint.h>
#include <string.h>

#include "dataset/tar.h"
#include "fuzz.h"

typedef struct tz {
    const uint8_t *p;
    size_t n;
    uint64_t last_end;
    uint32_t multi;
    uint64_t samples;
    uint64_t targets; /* target members handed over */
    uint64_t members; /* metadata members handed over */
} tz;

static int64_t tz_read(void *ctx, void *buf, size_t n, uint64_t off)
{
    const tz *f = ctx;
    if (off >= f->n)
        return 0;
    if (n > f->n - off)
        n = f->n - off;
    memcpy(buf, f->p + off, n);
    return (int64_t)n;
}

static int tz_sample(void *ctx, const char *member, uint64_t hdr_off, uint64_t off, uint64_t len,
                     const int32_t *labels, uint32_t nlabels)
{
    tz *f = ctx;
    FZ_CHECK(hdr_off + 512 == off, "member '%s' header at %llu, data at %llu", member,
             (unsigned long long)hdr_off, (unsigned long long)off);
    FZ_CHECK(off >= 512 && off % 512 == 0, "sample at offset %llu", (unsigned long long)off);
    FZ_CHECK(off <= f->n && len <= f->n - off, "sample %llu+%llu past the end (%zu)",
             (unsigned long long)off, (unsigned long long)len, f->n);
    FZ_CHECK(off >= f->last_end, "sample at %llu overlaps the previous one (ends %llu)",
             (unsigned long long)off, (unsigned long long)f->last_end);
    FZ_CHECK(nlabels >= 1 && nlabels <= (f->multi ? 256u : 1u), "%u labels (multi_label=%u)", nlabels, f->multi);
    for (uint32_t i = 0; i < nlabels; i++) {
        FZ_CHECK(labels[i] >= 0, "label %d", labels[i]);
        for (uint32_t j = 0; j < i; j++)
            FZ_CHECK(labels[i] != labels[j], "label %d twice", labels[i]);
    }
    f->last_end = off + len;
    f->samples++;
    return 0;
}

static void tz_problem(void *ctx, const char *shard, const char *member, uint64_t off, const char *what)
{
    tz *f = ctx;
    FZ_CHECK(!strcmp(shard, "fuzz.tar"), "shard '%s'", shard);
    FZ_CHECK(off <= f->n, "problem at offset %llu past the end (%zu): %s", (unsigned long long)off,
             f->n, what);
    for (const char *c = member; *c; c++)
        FZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f, "control byte in member name: %s", what);
}

/* A KEY.npy target member: its bytes are inside the shard, at most the limit. */
static int tz_target(void *ctx, const char *member, uint64_t hdr_off, const uint8_t *bytes, size_t n)
{
    tz *f = ctx;
    FZ_CHECK(n <= FEED_TAR_TARGET_MAX && n <= f->n && hdr_off < f->n, "target of %zu bytes at %llu", n,
             (unsigned long long)hdr_off);
    FZ_CHECK(!n || bytes, "no bytes");
    f->targets++;
    return n % 3 == 0; /* some rejected, as a sink may */
}

/* A sample's metadata members: inside the shard, after a header, apart. */
static int tz_members(void *ctx, const uint64_t *off, const uint64_t *len)
{
    tz *f = ctx;
    for (uint32_t j = 0; j < 2; j++) {
        if (off[j] == UINT64_MAX) {
            FZ_CHECK(len[j] == 0, "a missing member of %llu bytes", (unsigned long long)len[j]);
            continue;
        }
        FZ_CHECK(off[j] >= 512 && off[j] % 512 == 0 && off[j] <= f->n && len[j] <= f->n - off[j],
                 "member %u at %llu+%llu (shard %zu)", j, (unsigned long long)off[j], (unsigned long long)len[j],
                 f->n);
        FZ_CHECK(j == 0 || off[0] == UINT64_MAX || off[0] != off[1], "two members at %llu", (unsigned long long)off[j]);
        f->members++;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t single = 0;
    for (uint32_t multi = 0; multi < 3; multi++) {
        tz f = {data, size, 0, multi == 1, 0, 0, 0};
        feed__tar_io io = {tz_read, &f, size};
        /* the third pass: each sample also needs a KEY.npy member, and takes KEY.json and KEY.txt */
        static const char *const exts[] = {"json", "txt"};
        feed__tar_sink sink = {.sample = tz_sample, .problem = tz_problem, .ctx = &f, .multi_label = multi == 1,
                               .target_ext = multi == 2 ? "npy" : NULL, .target = tz_target,
                               .meta_exts = exts, .nmeta = multi == 2 ? 2 : 0, .members = tz_members};
        char err[256];
        feed_status st = feed__tar_scan(&io, "fuzz.tar", &sink, err, sizeof err);
        FZ_CHECK(st == FEED_OK, "scan failed: %s", err);
        if (!multi)
            single = f.samples;
        else if (multi == 1)
            FZ_CHECK(f.samples >= single, "multi_label gave %llu samples, one label %llu",
                     (unsigned long long)f.samples, (unsigned long long)single);
        else
            FZ_CHECK(f.samples <= single && f.samples <= f.targets, "with targets %llu samples, %llu targets, %llu without",
                     (unsigned long long)f.samples, (unsigned long long)f.targets, (unsigned long long)single);
    }
    return 0;
}

/*
 * fuzz_tar.c - the tar shard scanner (src/dataset/tar.c) on untrusted bytes: the
 * input is one shard.
 *
 * Properties: the scan returns FEED_OK (a broken shard is problems, not a
 * failure); every sample it gives lies inside the shard, after a header
 * (offset >= 512, on a block boundary) and does not overlap the one before
 * (members come in order); labels are 0..2147483647; every problem names the
 * shard and an offset inside it.
 */
#include <stdint.h>
#include <string.h>

#include "dataset/tar.h"
#include "fuzz.h"

typedef struct tz {
    const uint8_t *p;
    size_t n;
    uint64_t last_end;
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
                     int32_t label)
{
    tz *f = ctx;
    FZ_CHECK(hdr_off + 512 == off, "member '%s' header at %llu, data at %llu", member,
             (unsigned long long)hdr_off, (unsigned long long)off);
    FZ_CHECK(off >= 512 && off % 512 == 0, "sample at offset %llu", (unsigned long long)off);
    FZ_CHECK(off <= f->n && len <= f->n - off, "sample %llu+%llu past the end (%zu)",
             (unsigned long long)off, (unsigned long long)len, f->n);
    FZ_CHECK(off >= f->last_end, "sample at %llu overlaps the previous one (ends %llu)",
             (unsigned long long)off, (unsigned long long)f->last_end);
    FZ_CHECK(label >= 0, "label %d", label);
    f->last_end = off + len;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tz f = {data, size, 0};
    feed__tar_io io = {tz_read, &f, size};
    feed__tar_sink sink = {tz_sample, tz_problem, &f};
    char err[256];
    feed_status st = feed__tar_scan(&io, "fuzz.tar", &sink, err, sizeof err);
    FZ_CHECK(st == FEED_OK, "scan failed: %s", err);
    return 0;
}

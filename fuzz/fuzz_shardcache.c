/*
 * fuzz_shardcache.c - a saved tar-shard index (src/dataset/shardcache.c) as the
 * untrusted file it is: feed__shardcache_parse, and feed__shardcache_load.
 *
 * Input: one mode byte, then the file. Mode bit 0: make its checksums right
 * (feed__shardcache_seal, so that mutations reach the checks behind them);
 * bit 1: also load it from a file, asking for the key, options and shard
 * paths it holds. Properties: parse accepts, or refuses with a reason; in an
 * accepted file every shard path and key is NUL-terminated inside the index,
 * every sample's shard is below nshards and its labels below nclasses, every
 * metadata member is block-aligned, the options, key and first problem lie
 * inside the file; the load of an accepted file gives 1 and the same index
 * bytes, first problem and target rows, and of a refused one 0 and a reason.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataset/shardcache.h"
#include "fuzz.h"

/* The options of an accepted file (multi_label, target_ext, meta_exts) back
 * into the members struct a caller would give. */
static void members_of(const feed__shardcache_view *v, feed__shard_members *m, const char **exts)
{
    const char *o = (const char *)v->options, *end = o + v->options_bytes;
    m->multi_label = o[0] == '1';
    m->target_ext = o + 1;
    m->nmeta = 0;
    for (const char *p = o + 1 + strlen(o + 1) + 1; p < end; p += strlen(p) + 1)
        exts[m->nmeta++] = p;
    m->meta_exts = exts;
}

static void load_again(const uint8_t *buf, size_t n, int accepted, const feed__shardcache_view *v)
{
    const char *tmp = getenv("FEED_TEST_TMP");
    char path[4200];
    mkdir(tmp && *tmp ? tmp : "/tmp", 0755);
    snprintf(path, sizeof path, "%s/fuzz_shardcache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    FZ_CHECK(fd >= 0, "mkstemp %s", path);
    FZ_CHECK(write(fd, buf, n) == (ssize_t)n, "write");
    close(fd);
    feed__shard_members m = {0};
    const char *exts[FEED_INDEX_MAX_META];
    char **paths = NULL;
    size_t np = 0;
    if (accepted) {
        const feed__index_hdr *h = v->index;
        members_of(v, &m, exts);
        np = h->nshards;
        paths = malloc(np * sizeof *paths);
        for (size_t s = 0; s < np; s++)
            paths[s] = (char *)h + h->pool_off + ((const uint64_t *)((const char *)h + h->shards_off))[s];
    }
    feed__targets t;
    m.targets = &t;
    feed__index ix;
    char why[256] = "x";
    int rc = feed__shardcache_load(path, accepted ? v->key : NULL, accepted ? v->key_bytes : 0, paths, np, &m, &ix,
                                   why, sizeof why);
    unlink(path);
    if (!accepted) {
        FZ_CHECK(rc == 0 && why[0] && !ix.hdr, "a refused file loaded (%d, %s)", rc, why);
    } else {
        FZ_CHECK(rc == 1 && !why[0], "an accepted file did not load: %s", why);
        FZ_CHECK(!memcmp(ix.hdr, v->index, v->index_bytes), "loaded index differs");
        FZ_CHECK(strlen(ix.first_problem) == v->problem_bytes &&
                     !memcmp(ix.first_problem, v->problem, v->problem_bytes), "first problem differs");
        FZ_CHECK(t.dim == v->targets.dim && t.n == v->targets.n &&
                     (!t.dim || !memcmp(t.data, v->targets.data, t.n * feed__targets_row(&t))), "targets differ");
        feed__index_free(&ix);
        feed__targets_free(&t);
    }
    free(paths);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    size_t n = size - 1;
    uint8_t *buf = malloc(n ? n : 1); /* its own allocation: ASan sees every byte past it */
    memcpy(buf, data + 1, n);
    if (mode & 1)
        feed__shardcache_seal(buf, n);
    feed__shardcache_view v;
    char why[256] = "";
    int ok = feed__shardcache_parse(buf, n, &v, why, sizeof why) == 0;
    FZ_CHECK(ok || why[0], "refused without a reason");
    if (ok) {
        const feed__index_hdr *h = v.index;
        const uint8_t *end = buf + n;
        FZ_CHECK((const uint8_t *)h >= buf && (const uint8_t *)h + v.index_bytes <= end, "index outside");
        FZ_CHECK(v.key + v.key_bytes <= end && v.options + v.options_bytes <= end &&
                     (const uint8_t *)v.problem + v.problem_bytes <= end, "a piece outside");
        FZ_CHECK(!v.targets.dim || v.targets.data + v.targets.n * feed__targets_row(&v.targets) <= end,
                 "targets outside");
        const char *lo = (const char *)h, *hi = lo + v.index_bytes;
        for (uint64_t i = 0; i < h->count; i++) {
            const char *p = feed__index_path(h, i), *k = feed__index_key(h, i);
            FZ_CHECK(p >= lo && p + strlen(p) < hi, "sample %llu: path outside", (unsigned long long)i);
            FZ_CHECK(!k || (k >= lo && k + strlen(k) < hi), "sample %llu: key outside", (unsigned long long)i);
            FZ_CHECK((feed__index_entries(h)[i].path_off >> FEED_INDEX_SHARD_SHIFT) < h->nshards, "shard");
            const int32_t *x;
            uint32_t nl = feed__index_labels(h, i, &x);
            FZ_CHECK(nl >= 1 && nl <= h->max_labels, "%u labels", nl);
            for (uint32_t j = 0; j < nl; j++) {
                int32_t l = j ? x[j - 1] : feed__index_label(h, i);
                FZ_CHECK(l >= 0 && (uint32_t)l < h->nclasses, "label %d", l);
            }
            for (uint32_t j = 0; j < h->nmeta; j++) {
                uint64_t off;
                uint32_t len;
                if (feed__index_member(h, i, j, &off, &len))
                    FZ_CHECK(off % 512 == 0, "member at %llu", (unsigned long long)off);
            }
        }
    }
    if (mode & 2)
        load_again(buf, n, ok, &v);
    free(buf);
    return 0;
}

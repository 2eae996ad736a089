/*
 * fuzz_scancache.c - a saved folder scan (src/dataset/scancache.c) as the untrusted
 * file it is: feed__scancache_parse.
 *
 * Input: one mode byte, then the file. Mode bit 0: write this build's scan
 * rules into the file; bit 1: make its checksum right (so that mutations
 * reach the checks behind it). Properties: parse accepts, or refuses with a
 * reason; an accepted file's every path (samples, classes, directories) is
 * NUL-terminated at its length inside the file, relative, without "." or
 * ".." components; every label is below nclasses, and every sample lies
 * under its class's folder.
 */
#include <stdlib.h>
#include <string.h>

#include "dataset/scancache.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    size_t n = size - 1;
    uint8_t *buf = malloc(n ? n : 1); /* its own allocation: ASan sees every byte past it */
    memcpy(buf, data + 1, n);
    uint32_t rules = feed__index_scan_rules();
    if ((mode & 1) && n >= 16)
        memcpy(buf + 12, &rules, 4);
    if ((mode & 2) && n >= FEED_SCAN_HEADER_BYTES) {
        uint64_t c = feed__scancache_checksum(buf + FEED_SCAN_HEADER_BYTES, n - FEED_SCAN_HEADER_BYTES);
        memcpy(buf + FEED_SCAN_CHECKSUM_AT, &c, 8);
    }
    feed__scancache_view v;
    char why[256] = "";
    if (feed__scancache_parse(buf, n, rules, &v, why, sizeof why) != 0) {
        FZ_CHECK(why[0], "refused without a reason");
        free(buf);
        return 0;
    }
    const feed__index_hdr *h = v.index;
    FZ_CHECK((const uint8_t *)h >= buf && (const uint8_t *)h + v.index_bytes <= buf + n, "index outside");
    for (uint32_t c = 0; c < h->nclasses; c++)
        FZ_CHECK(strlen(feed__index_class(h, c)) >= 1, "empty class name");
    for (uint64_t i = 0; i < h->count; i++) {
        const char *p = feed__index_path(h, i);
        int32_t l = feed__index_label(h, i);
        FZ_CHECK(strlen(p) == feed__index_entries(h)[i].path_len, "path length");
        FZ_CHECK(l >= 0 && (uint32_t)l < h->nclasses, "label %d", l);
        FZ_CHECK(!strstr(p, "/../") && strncmp(p, "../", 3) && p[0] != '/', "path %s", p);
        const char *cls = feed__index_class(h, (uint32_t)l);
        FZ_CHECK(!strncmp(p, cls, strlen(cls)) && p[strlen(cls)] == '/', "%s not under %s", p, cls);
    }
    for (uint64_t i = 0; i < v.ndirs; i++)
        FZ_CHECK(strlen(v.dir_pool + v.dirs[i].path_off) == v.dirs[i].path_len, "directory path length");
    free(buf);
    return 0;
}

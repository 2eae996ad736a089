/*
 * tar_write.c - one ustar header (tar.h's feed__tar_header), for feed-mkdata
 * and the tests that write shards; the scanner (tar.c) only reads them.
 */
#include <stdio.h>
#include <string.h>

#include "dataset/tar.h"

#define BLK 512

int feed__tar_header(uint8_t h[512], const char *name, uint64_t size, uint64_t mtime)
{
    memset(h, 0, BLK);
    size_t n = strlen(name);
    if (n <= 100) {
        memcpy(h, name, n);
    } else {
        /* split at a '/' so that prefix <= 155 and name <= 100 */
        const char *cut = NULL;
        for (const char *p = name; (p = strchr(p, '/')); p++)
            if ((size_t)(p - name) <= 155 && n - (size_t)(p - name) - 1 <= 100 && p > name)
                cut = p;
        if (!cut)
            return -1;
        memcpy(h + 345, name, (size_t)(cut - name));
        memcpy(h, cut + 1, n - (size_t)(cut - name) - 1);
    }
    if (size >= 077777777777ull)
        return -1;
    snprintf((char *)h + 100, 8, "%07o", 0644);
    snprintf((char *)h + 108, 8, "%07o", 0);
    snprintf((char *)h + 116, 8, "%07o", 0);
    snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
    snprintf((char *)h + 136, 12, "%011llo", (unsigned long long)(mtime & 077777777777ull));
    h[156] = '0';
    memcpy(h + 257, "ustar\0" "00", 8);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < BLK; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
    return 0;
}

/*
 * tar_header.c - the fields of a tar header (tar_header.h): read for the
 * scanner (tar.c), and one ustar header written (tar.h's feed__tar_header)
 * for feed-mkdata and the tests that write shards.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "dataset/tar_header.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define BLK 512

/* Octal (NUL/space terminated, leading spaces allowed) or GNU base-256.
 * Returns -1 when the field is neither. */
int feed__tarh_parse_num(const uint8_t *f, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (f[0] & 0x80) { /* base-256: big-endian, the top bit of the first byte is the flag */
        if (f[0] & 0x40)
            return -1; /* negative */
        v = f[0] & 0x3f;
        for (size_t i = 1; i < n; i++) {
            if (v >> 56)
                return -1;
            v = v << 8 | f[i];
        }
        *out = v;
        return 0;
    }
    size_t i = 0;
    while (i < n && f[i] == ' ')
        i++;
    size_t d = i;
    for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 60)
            return -1;
        v = v * 8 + (uint64_t)(f[i] - '0');
    }
    if (i == d || (i < n && f[i] != 0 && f[i] != ' '))
        return -1;
    *out = v;
    return 0;
}

/* Sum of the 512 bytes of h, read as unsigned (flip = 0) or with each byte's
 * top bit flipped (flip = 0x80: the signed sum + 512 * 128). */
static uint64_t feed__tarh_byte_sum(const uint8_t *h, uint8_t flip)
{
#if defined(__SSE2__)
    /* psadbw against zero: the sum of 8 bytes in each 64-bit half */
    const __m128i z = _mm_setzero_si128(), f = _mm_set1_epi8((char)flip);
    __m128i acc = z;
    for (int i = 0; i < BLK; i += 16)
        acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(h + i)), f), z));
    return (uint64_t)_mm_cvtsi128_si64(acc) + (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(acc, acc));
#else
    /* eight bytes at a time into four 16-bit lanes (64 words: at most 32640 a lane) */
    uint64_t lanes = 0, fl = 0x0101010101010101ull * flip;
    for (int i = 0; i < BLK; i += 8) {
        uint64_t w;
        memcpy(&w, h + i, 8);
        w ^= fl;
        lanes += (w & 0x00ff00ff00ff00ffull) + ((w >> 8) & 0x00ff00ff00ff00ffull);
    }
    return (lanes & 0xffff) + ((lanes >> 16) & 0xffff) + ((lanes >> 32) & 0xffff) + (lanes >> 48);
#endif
}

/* The header's checksum: the sum of its bytes with the checksum field read
 * as spaces; some old tars summed signed chars. */
int feed__tarh_checksum_ok(const uint8_t *h)
{
    uint64_t want;
    if (feed__tarh_parse_num(h + 148, 8, &want))
        return 0;
    uint64_t field = 0;
    for (int i = 148; i < 156; i++)
        field += h[i];
    uint64_t u = feed__tarh_byte_sum(h, 0) - field + 8 * ' ';
    if (u == want)
        return 1;
    int64_t sfield = 0;
    for (int i = 148; i < 156; i++)
        sfield += (int8_t)h[i];
    int64_t sg = (int64_t)feed__tarh_byte_sum(h, 0x80) - BLK * 128 - sfield + 8 * ' ';
    return (uint64_t)sg == want;
}

int feed__tarh_all_zero(const uint8_t *h)
{
    uint64_t any = 0;
    for (int i = 0; i < BLK; i += 8) {
        uint64_t w;
        memcpy(&w, h + i, 8);
        any |= w;
        if (any) /* a header's name starts it: the first word decides */
            return 0;
    }
    return 1;
}

/* The name in the header: POSIX ustar joins prefix/name; GNU ("ustar  ")
 * uses the prefix bytes for other fields. */
void feed__tarh_header_name(const uint8_t *h, char *out, size_t outlen)
{
    int posix = !memcmp(h + 257, "ustar\0", 6);
    size_t nl = strnlen((const char *)h, 100), pl = posix ? strnlen((const char *)h + 345, 155) : 0;
    size_t o = 0;
    if (pl + nl + 2 > outlen) /* cannot happen: outlen is TAR_NAME_MAX */
        pl = 0, nl = nl < outlen ? nl : outlen - 1;
    if (pl) {
        memcpy(out, h + 345, pl);
        out[pl] = '/';
        o = pl + 1;
    }
    memcpy(out + o, h, nl);
    out[o + nl] = 0;
}

/* Control bytes of a name become '?' before it goes into a message. */
void feed__tarh_printable(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

/* pax records "LEN key=value\n": picks path and size. -1 if malformed. */
int feed__tarh_parse_pax(const char *p, size_t n, char *path, size_t pathlen, int *have_path,
                     uint64_t *size, int *have_size)
{
    size_t i = 0;
    while (i < n) {
        size_t len = 0, j = i;
        while (j < n && p[j] >= '0' && p[j] <= '9' && len < TAR_META_MAX)
            len = len * 10 + (size_t)(p[j++] - '0');
        if (j == i || j >= n || p[j] != ' ' || len < 5 || len > n - i || p[i + len - 1] != '\n')
            return -1;
        const char *kv = p + j + 1, *end = p + i + len - 1;
        const char *eq = memchr(kv, '=', (size_t)(end - kv));
        if (!eq)
            return -1;
        size_t klen = (size_t)(eq - kv), vlen = (size_t)(end - eq - 1);
        if (klen == 4 && !memcmp(kv, "path", 4)) {
            if (vlen >= pathlen)
                return -1;
            memcpy(path, eq + 1, vlen);
            path[vlen] = 0;
            *have_path = 1;
        } else if (klen == 4 && !memcmp(kv, "size", 4)) {
            uint64_t v = 0;
            if (!vlen)
                return -1;
            for (size_t k = 0; k < vlen; k++) {
                char c = eq[1 + k];
                if (c < '0' || c > '9' || v > UINT64_MAX / 10 - 10)
                    return -1;
                v = v * 10 + (uint64_t)(c - '0');
            }
            *size = v;
            *have_size = 1;
        }
        i += len;
    }
    return 0;
}


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

/*
 * jpeg_markers.c - the marker walk jpeg.c makes before libjpeg reads the
 * file: the EXIF orientation (APP1 "Exif", the first one that holds a valid
 * tag), the first SOS, and whether an EOI follows it. Every offset is
 * checked against the length: the bytes are untrusted.
 */
#include "decode/jpeg_markers.h"

#include <string.h>

static uint32_t rd16(const uint8_t *p, int le)
{
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : (uint32_t)p[0] << 8 | p[1];
}

static uint32_t rd32(const uint8_t *p, int le)
{
    return le ? rd16(p, 1) | rd16(p + 2, 1) << 16 : rd16(p, 0) << 16 | rd16(p + 2, 0);
}

/* Orientation from an APP1 payload (after the length), or 0. */
static uint32_t feed__exif_parse(const uint8_t *s, size_t n)
{
    if (n < 14 || memcmp(s, "Exif\0\0", 6) != 0)
        return 0;
    const uint8_t *t = s + 6;
    size_t tn = n - 6;
    int le;
    if (t[0] == 'I' && t[1] == 'I')
        le = 1;
    else if (t[0] == 'M' && t[1] == 'M')
        le = 0;
    else
        return 0;
    if (rd16(t + 2, le) != 42)
        return 0;
    uint32_t ifd = rd32(t + 4, le);
    if (ifd < 8 || ifd > tn - 2)
        return 0;
    uint32_t count = rd16(t + ifd, le);
    for (uint32_t i = 0; i < count; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)12 * i;
        if (e + 12 > tn)
            break;
        if (rd16(t + e, le) != 0x0112)
            continue;
        uint32_t type = rd16(t + e + 2, le), cnt = rd32(t + e + 4, le);
        if (type != 3 || cnt < 1)
            return 0;
        uint32_t v = rd16(t + e + 8, le);
        return v >= 1 && v <= 8 ? v : 0;
    }
    return 0;
}

size_t feed__jpeg_markers(const uint8_t *d, size_t len, uint32_t *orientation)
{
    *orientation = 1;
    if (len < 4 || d[0] != 0xFF || d[1] != 0xD8)
        return 0;
    size_t pos = 2;
    int have_exif = 0;
    while (pos + 4 <= len) {
        if (d[pos] != 0xFF) { /* stray bytes: libjpeg skips them to the next marker */
            pos++;
            continue;
        }
        uint8_t m = d[pos + 1];
        if (m == 0xFF) { /* fill byte */
            pos++;
            continue;
        }
        if (m == 0x00) { /* FF 00 between segments: skipped as libjpeg's next_marker does */
            pos += 2;
            continue;
        }
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
            pos += 2;
            continue;
        }
        if (m == 0xDA || m == 0xD9)
            break;
        size_t seg = rd16(d + pos + 2, 0);
        if (seg < 2)
            break;
        if (m == 0xE1 && !have_exif) {
            size_t avail = len - (pos + 4);
            size_t n = seg - 2 < avail ? seg - 2 : avail;
            uint32_t o = feed__exif_parse(d + pos + 4, n);
            if (o) {
                *orientation = o;
                have_exif = 1;
            }
        }
        pos += 2 + seg;
    }
    return pos;
}

int feed__jpeg_has_eoi(const uint8_t *d, size_t len, size_t from)
{
    size_t n = len;
    while (n > from + 1) {
        const uint8_t *p = memrchr(d + from + 1, 0xD9, n - from - 1);
        if (!p)
            return 0;
        if (p[-1] == 0xFF)
            return 1;
        n = (size_t)(p - d);
    }
    return 0;
}

/*
 * jpeg_markers.h - a JPEG's marker segments read from the bytes, without
 * libjpeg (jpeg_markers.c), for jpeg.c.
 */
#ifndef FEED_JPEG_MARKERS_H
#define FEED_JPEG_MARKERS_H

#include <stddef.h>
#include <stdint.h>

/* Walks the marker segments before the first SOS, skipping stray bytes as
 * libjpeg does. Returns the offset of the SOS marker (or of where the walk
 * stopped; 0 when data does not start with SOI) and sets *orientation to the
 * EXIF orientation (1..8; 1 when there is none or it is malformed). */
size_t feed__jpeg_markers(const uint8_t *d, size_t len, uint32_t *orientation);

/* 1 if an EOI marker (FF D9) lies at or after offset from, else 0. */
int feed__jpeg_has_eoi(const uint8_t *d, size_t len, size_t from);

#endif /* FEED_JPEG_MARKERS_H */

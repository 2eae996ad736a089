/*
 * tar_header.h - the fields of one 512-byte tar header, for the scanner
 * (tar.c): numbers, the checksum, the name, pax records; and one written
 * (tar_header.c).
 */
#ifndef FEED_TAR_HEADER_H
#define FEED_TAR_HEADER_H

#include <stddef.h>
#include <stdint.h>

/* A pax header or GNU long name bigger than this is not a name: refused. */
#define TAR_META_MAX (1u << 16)
#define TAR_NAME_MAX 4096

/* Octal (NUL/space terminated, leading spaces allowed) or GNU base-256
 * field f[0..n): 0 and *out, or -1. */
int feed__tarh_parse_num(const uint8_t *f, size_t n, uint64_t *out);
/* 1 if the header's checksum holds (unsigned or signed sum). */
int feed__tarh_checksum_ok(const uint8_t *h);
/* 1 if all 512 bytes are zero (an end-of-archive block). */
int feed__tarh_all_zero(const uint8_t *h);
/* The ustar name (prefix/name) into out (outlen >= TAR_NAME_MAX). */
void feed__tarh_header_name(const uint8_t *h, char *out, size_t outlen);
/* Control bytes of s become '?' (before it goes into a message). */
void feed__tarh_printable(char *s);
/* pax records "LEN key=value\n" of p[0..n): picks path and size. -1 if malformed. */
int feed__tarh_parse_pax(const char *p, size_t n, char *path, size_t pathlen, int *have_path, uint64_t *size,
                         int *have_size);

/* Writes one ustar header for a regular file into hdr[512] (name < 100 bytes,
 * or split name/prefix; longer ones return -1): for feed-mkdata and tests. */
int feed__tar_header(uint8_t hdr[512], const char *name, uint64_t size, uint64_t mtime);

#endif

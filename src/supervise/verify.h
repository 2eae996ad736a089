/*
 * verify.h - the trust boundary: the parent's checks of what workers wrote.
 *
 * Workers are untrusted: a codec bug may let a file run code in one, and
 * every word of the arena it can write is input to the parent. Before a
 * batch is handed out, each sample's id, label, flags, status, errno and
 * message are copied into the parent's private slot record and checked there
 * (so a worker cannot change them after the check): the id must be the one
 * asked for, or, if the sample is flagged replaced, one of its substitutes;
 * the label that id's label in the index; the flags known bits; a status an
 * error code; the message NUL-terminated within its field (then escaped).
 * Pixels are data and are not checked; nothing derived from them is used.
 *
 * Uses arena/arena.h, dataset/index.h and arena/protocol.h (the
 * substitutes). The loader calls it from the thread that waits for the batch.
 */
#ifndef FEED_VERIFY_H
#define FEED_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "arena/arena.h"
#include "dataset/index.h"

/* A value a worker wrote that no healthy worker writes. */
typedef struct feed__verdict {
    uint32_t t;      /* the sample's position in its batch */
    uint32_t worker; /* the worker that claimed it last (0-based), UINT32_MAX: cannot tell */
    char what[200];  /* "an invalid label 9 (sample 12 has label 1)" */
} feed__verdict;

/* Copies and checks every sample of READY slot i. Returns 0 if all are
 * valid (the delivered arrays of a->meta[i] then hold them), else 1 with the
 * first invalid one in *v. */
int feed__verify_slot(feed__arena *a, uint32_t i, const feed__index_hdr *ix, feed__verdict *v);

/* Copies at most n bytes of untrusted text from src into dst (len > 0):
 * stops at the first NUL, escapes every byte outside printable ASCII as
 * \xNN, always NUL-terminates. Returns 1 if src held a NUL within n bytes. */
int feed__copy_untrusted(char *dst, size_t len, const char *src, size_t n);

#endif

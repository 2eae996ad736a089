/*
 * jpeg_huff_int.h - what the sequential (jpeg_huff.c) and the progressive
 * (jpeg_phuff.c) Huffman decoders share: the bit reader, the lookup tables,
 * the decoder's state. Include it after <jpeglib.h>, <jerror.h> and
 * <jpegint.h>, as libjpeg's own jdhuff.h is.
 *
 * The bit reader keeps up to 64 bits, most significant first, in buf; cnt of
 * them are valid. Bits below cnt are either zero or the stream's next bits
 * (an eight-byte refill leaves the rest of its last byte there, and a byte
 * read later is ORed over the same bits), so peeking never needs a mask.
 * Before each coefficient at least 32 bits are in the buffer, enough for the
 * longest code (16) and value (15) together.
 *
 * Refills: where eight bytes are left and none is 0xFF, they are loaded at
 * once and the whole bytes that fit are kept. Otherwise byte by byte, as
 * libjpeg's jpeg_fill_bit_buffer does: FF 00 is an FF data byte, FF (FF..)
 * xx with xx not 0 is a marker, which ends the segment (cinfo->unread_marker,
 * the source left just past it); past it the buffer is padded with zero bits
 * ("fake"), and a segment whose MCU ate into them is reported with libjpeg's
 * warning (JWRN_HIT_MARKER) when the MCU is done. The coefficients of that
 * MCU are libjpeg's (it pads with zeros too) and the later ones of the
 * segment are left zero (insufficient_data), as libjpeg leaves them.
 *
 * Lookup tables: a few bits of lookahead index an entry that says
 * what the next code is. AC: the code and its value together when both fit
 * (FULL: bits to drop, run, value), an end of block (EOB), a code whose
 * value must be read apart (CODE: its symbol), or a code longer than the
 * lookahead (SLOW: walk the lengths, maxcode/valoffset as in the standard's
 * F.16). DC entries are the same with a run of 0. The tables of a file are
 * kept for the next one when the file carries the same (most do).
 */
#ifndef FEED_JPEG_HUFF_INT_H
#define FEED_JPEG_HUFF_INT_H

#include <stdint.h>
#include <string.h>

#include "decode/jpeg_abi.h" /* the checks of the layout embedded below */

/* Lookahead bits of the tables (9 and 11 measured slower: README, decode section). */
#define FEED_HUFF_BITS 10

/* Entry: bits 0-4 the bits to drop, 5-6 the kind. CODE: bits 8-15 the
 * symbol. FULL: bits 8-11 the run, 17-26 the value (signed); and when a
 * second coefficient follows within the lookahead (a pair), bits 12-16 its
 * distance F = run + 1 from the first and 27-31 its value (signed, -16..15;
 * F = 0 and value 0 for a single one, so that one store of the pair's second
 * lands on the first's place and is overwritten). */
#define K_FULL 0x00
#define K_EOB 0x20
#define K_CODE 0x40
#define K_SLOW 0x60
#define K_MASK 0x60

static inline int32_t feed__full(int len, int run, int32_t v, int f, int32_t v2)
{
    return (int32_t)(((uint32_t)v2 & 0x1Fu) << 27 | ((uint32_t)v & 0x3FFu) << 17 | (uint32_t)f << 12 |
                     (uint32_t)run << 8 | K_FULL | (uint32_t)len);
}
#define FEED_FULL_V1(e) ((int32_t)((uint32_t)(e) << 5) >> 22)
#define FEED_FULL_V2(e) ((e) >> 27)
#define FEED_FULL_F(e) (((e) >> 12) & 31)

typedef struct huff_tbl {
    int32_t fast[1 << FEED_HUFF_BITS];
    int32_t maxcode[18]; /* largest code of each length, -1 for none */
    int32_t valoffset[18];
    UINT8 huffval[256];
    /* the DHT it was made from (bits[0] unused), to keep it for the next file */
    UINT8 bits[17];
    int built;
    int pairs; /* FULL entries may hold two coefficients (not for a refinement scan) */
} huff_tbl;

typedef struct blk_info {
    const huff_tbl *dc, *ac;
    int comp;      /* index in the scan */
    int dc_needed; /* as libjpeg: the component is output */
    int ac_needed; /* and not at 1/8 scale (DC only) */
} blk_info;

typedef struct bit_state {
    uint64_t buf;
    int cnt;   /* valid bits at the top of buf */
    int fake;  /* of them, zero bits padded past a marker (at the bottom) */
    int ate;   /* padding was consumed since the last check */
    const JOCTET *p, *end;
    const JOCTET *lim; /* end, or p once a marker is found: no byte past it is read */
} bit_state;

typedef struct feed__huff feed__huff; /* as in jpeg_huff.h */

struct feed__huff {
    struct jpeg_entropy_decoder pub; /* first: cinfo->entropy points here */
    bit_state br;
    int last_dc[MAX_COMPS_IN_SCAN];
    unsigned restarts_to_go;
    unsigned eobrun; /* progressive AC scans: blocks left in the current end-of-band run */
    /* progressive files: libjpeg's own decoder, whose start_pass still checks
     * each scan's parameters and keeps cinfo->coef_bits (the progression) */
    struct jpeg_entropy_decoder *lib;
    int handed_back; /* a scan our tables cannot take went back to it */
    blk_info blk[D_MAX_BLOCKS_IN_MCU];
    JCOEF scratch[DCTSIZE2]; /* where the values of a block nobody reads go */
    /* natural-order bit mask, a byte at a time -> the same positions as
     * zigzag-order bits (progressive refinement: feed__ph_nonzero) */
    uint64_t zigzag_of[8][256];
    huff_tbl dc[NUM_HUFF_TBLS], ac[NUM_HUFF_TBLS];
};

/* Zigzag position -> natural (row-major) position; the 16 extra entries keep
 * a corrupt run that goes past 63 inside the block, as libjpeg's table does
 * (the value lands on coefficient 63, and the block ends). Static, a copy in
 * each file: with one extern table, GCC compiled the AC kernels of
 * jpeg_phuff.c to other code (their registers allocated otherwise). */
static const uint8_t feed__natural[DCTSIZE2 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33,
    40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36,
    29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54,
    47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

/* F.12: a value of s bits, s >= 1, with its sign. */
static inline int32_t feed__extend(uint32_t v, int s)
{
    return v < (1u << (s - 1)) ? (int32_t)v - (int32_t)(1u << s) + 1 : (int32_t)v;
}

/* Builds t from the DHT h (jpeg_huff.c). Returns -1 for a table libjpeg's
 * jpeg_make_d_derived_tbl would refuse. */
int feed__huff_build(huff_tbl *t, const JHUFF_TBL *h, int dc, int pairs);

/* A scan's start: the bit reader at the source's next byte (empty when a
 * marker is pending), the restart interval's count full (jpeg_huff.c). */
void feed__huff_start_bits(feed__huff *h, j_decompress_ptr ci);

/* The slow paths of the bit reader and the restarts are static here, a copy
 * in each decoder's file, and never inlined: GCC then knows, at each call,
 * which registers they leave alone (IPA-RA). As calls into another file
 * they would change the register allocation of the decode loops around them
 * (objdump). */

/* The source ran dry: libjpeg's memory source warns and hands out a fake EOI. */
static __attribute__((noinline)) void feed__huff_fill(j_decompress_ptr ci, bit_state *b)
{
    struct jpeg_source_mgr *src = ci->src;
    if (!(*src->fill_input_buffer)(ci))
        ERREXIT(ci, JERR_CANT_SUSPEND);
    if (src->bytes_in_buffer == 0)
        ERREXIT(ci, JERR_INPUT_EMPTY);
    b->p = src->next_input_byte;
    b->end = b->lim = b->p + src->bytes_in_buffer;
}

/* Byte by byte, up to 57 bits or the marker (then padded to 64 with zeros). */
static __attribute__((noinline)) void feed__huff_refill_slow(j_decompress_ptr ci, bit_state *b)
{
    if (ci->unread_marker == 0) {
        while (b->cnt <= 56) {
            if (b->p == b->end)
                feed__huff_fill(ci, b);
            int c = *b->p++;
            if (c == 0xFF) {
                do {
                    if (b->p == b->end)
                        feed__huff_fill(ci, b);
                    c = *b->p++;
                } while (c == 0xFF);
                if (c != 0) {
                    ci->unread_marker = c;
                    b->lim = b->p;
                    goto marker;
                }
                c = 0xFF;
            }
            b->buf |= (uint64_t)c << (56 - b->cnt);
            b->cnt += 8;
        }
        return;
    }
marker:
    if (b->cnt < b->fake) {
        b->ate = 1;
        b->fake = b->cnt;
    }
    b->fake += 64 - b->cnt;
    b->cnt = 64;
}

/* F.16: the code at the top of the buffer, its length walked from `from`
 * (the lookahead's length + 1 for a K_SLOW entry; 1 where no lookup was
 * made). A code in no table drops 17 bits and counts as symbol 0, as
 * libjpeg's jpeg_huff_decode does, with its warning. */
static __attribute__((noinline)) int feed__huff_walk(j_decompress_ptr ci, bit_state *b, const huff_tbl *t,
                                                     int from)
{
    for (int l = from; l <= 16; l++) {
        int32_t code = (int32_t)(b->buf >> (64 - l));
        if (code <= t->maxcode[l]) {
            b->buf <<= l;
            b->cnt -= l;
            return t->huffval[(code + t->valoffset[l]) & 0xFF];
        }
    }
    b->buf <<= 17;
    b->cnt -= 17;
    if (b->ate || b->cnt < b->fake) /* the padding: libjpeg would have said so first */
        WARNMS(ci, JWRN_HIT_MARKER);
    else
        WARNMS(ci, JWRN_HUFF_BAD_CODE);
    return 0;
}

/* Resynchronise at a restart marker (libjpeg's process_restart). */
static __attribute__((noinline)) void feed__huff_restart(j_decompress_ptr ci, feed__huff *h)
{
    bit_state *b = &h->br;
    int real = b->cnt - b->fake;
    ci->marker->discarded_bytes += (unsigned)(real > 0 ? real / 8 : 0);
    ci->src->next_input_byte = b->p;
    ci->src->bytes_in_buffer = (size_t)(b->end - b->p);
    b->buf = 0;
    b->cnt = b->fake = b->ate = 0;
    if (!(*ci->marker->read_restart_marker)(ci))
        ERREXIT(ci, JERR_CANT_SUSPEND);
    b->p = ci->src->next_input_byte;
    b->end = b->p + ci->src->bytes_in_buffer;
    b->lim = ci->unread_marker ? b->p : b->end;
    for (int c = 0; c < ci->comps_in_scan; c++)
        h->last_dc[c] = 0;
    h->eobrun = 0;
    h->restarts_to_go = ci->restart_interval;
    if (ci->unread_marker == 0)
        h->pub.insufficient_data = FALSE;
}

static inline int feed__huff_has_ff(uint64_t x)
{
    uint64_t t = ~x;
    return ((t - 0x0101010101010101ull) & ~t & 0x8080808080808080ull) != 0;
}

/* The decode loop's bit reader, on locals (buf, cnt, p, lim; b is the
 * state's home when the slow refill runs). */
#define FEED_PEEK(n) ((uint32_t)(buf >> (64 - (n))))
#define FEED_DROP(n) (buf <<= (n), cnt -= (n))
#define FEED_REFILL()                                                                      \
    do {                                                                                   \
        if (cnt >= 32)                                                                     \
            break;                                                                         \
        if (lim - p >= 8) {                                                                \
            uint64_t x_;                                                                   \
            memcpy(&x_, p, 8);                                                             \
            if (!feed__huff_has_ff(x_)) {                                                  \
                buf |= __builtin_bswap64(x_) >> cnt;                                       \
                p += (63 - cnt) >> 3;                                                      \
                cnt |= 56;                                                                 \
                break;                                                                     \
            }                                                                              \
        }                                                                                  \
        b->buf = buf, b->cnt = cnt, b->p = p;                                              \
        feed__huff_refill_slow(ci, b);                                                     \
        buf = b->buf, cnt = b->cnt, p = b->p, lim = b->lim;                                \
    } while (0)

/* FEED_REFILL without the branch on cnt, which the data decides (a refill
 * every symbol or two): eight bytes go in whenever they hold no 0xFF (the
 * arithmetic is right for any cnt), the byte-wise path only when needed. */
#define FEED_REFILL_EAGER()                                                                \
    do {                                                                                   \
        if (__builtin_expect(lim - p >= 8, 1)) {                                           \
            uint64_t x_;                                                                   \
            memcpy(&x_, p, 8);                                                             \
            if (__builtin_expect(!feed__huff_has_ff(x_), 1)) {                             \
                buf |= __builtin_bswap64(x_) >> cnt;                                       \
                p += (63 - cnt) >> 3;                                                      \
                cnt |= 56;                                                                 \
                break;                                                                     \
            }                                                                              \
        }                                                                                  \
        if (cnt >= 32)                                                                     \
            break;                                                                         \
        b->buf = buf, b->cnt = cnt, b->p = p;                                              \
        feed__huff_refill_slow(ci, b);                                                     \
        buf = b->buf, cnt = b->cnt, p = b->p, lim = b->lim;                                \
    } while (0)

#define FEED_WALK(sym, t, from)                                                            \
    do {                                                                                   \
        b->buf = buf, b->cnt = cnt;                                                        \
        (sym) = feed__huff_walk(ci, b, (t), (from));                                       \
        buf = b->buf, cnt = b->cnt;                                                        \
    } while (0)

/* The decode loops keep the bit reader in locals (b: its home in h). */
#define FEED_STATE_LOAD(h)                                                                 \
    bit_state *b = &(h)->br;                                                               \
    uint64_t buf = b->buf;                                                                 \
    int cnt = b->cnt;                                                                      \
    const JOCTET *p = b->p, *lim = b->lim
#define FEED_STATE_SAVE() (b->buf = buf, b->cnt = cnt, b->p = p)

/* F.2.2.1: a DC difference (code and value) with table t; e is scratch. */
#define FEED_DC_DIFF(diff, e, t)                                                           \
    do {                                                                                   \
        FEED_REFILL();                                                                     \
        (e) = (t)->fast[FEED_PEEK(FEED_HUFF_BITS)];                                        \
        if (((e) & K_MASK) == K_FULL) {                                                    \
            (diff) = FEED_FULL_V1(e);                                                      \
            FEED_DROP((e) & 31);                                                           \
        } else {                                                                           \
            int s_;                                                                        \
            if (((e) & K_MASK) == K_CODE) {                                                \
                s_ = ((e) >> 8) & 0xFF;                                                    \
                FEED_DROP((e) & 31);                                                       \
            } else {                                                                       \
                FEED_WALK(s_, t, FEED_HUFF_BITS + 1);                                      \
            }                                                                              \
            (diff) = 0;                                                                    \
            if (s_) {                                                                      \
                uint32_t v_ = FEED_PEEK(s_);                                               \
                FEED_DROP(s_);                                                             \
                (diff) = feed__extend(v_, s_);                                             \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* An MCU is done: the source catches up with the bits read, and an MCU that
 * ate into the zeros padded past a marker is reported, as libjpeg does the
 * first time it needs them (JWRN_HIT_MARKER, "premature end of data
 * segment"; libfeed makes it an error). Also called before any other error
 * within an MCU, which libjpeg would only have reached after that warning. */
/* always_inline: as a call, feed__huff_decode_mcu's loop ran 19% slower on
 * the Zen 4 VM (decodebench train 851 vs 715 us an image), code placement. */
static inline __attribute__((always_inline)) void feed__huff_end_mcu(j_decompress_ptr ci, feed__huff *h)
{
    bit_state *b = &h->br;
    ci->src->next_input_byte = b->p;
    ci->src->bytes_in_buffer = (size_t)(b->end - b->p);
    if (b->ate || b->cnt < b->fake) {
        b->ate = 0;
        b->fake = b->cnt;
        if (!h->pub.insufficient_data) {
            WARNMS(ci, JWRN_HIT_MARKER);
            h->pub.insufficient_data = TRUE;
        }
    }
}

#endif /* FEED_JPEG_HUFF_INT_H */

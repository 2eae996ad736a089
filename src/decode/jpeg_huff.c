/*
 * jpeg_huff.c - a Huffman decoder for sequential and progressive scans in
 * libjpeg's entropy-decoder slot (jpeg_huff.h says why).
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
 *
 * Progressive files (G.1.2): the four kinds of scan (DC or AC band, first
 * or refinement) each have their decode_mcu, on the same bit reader and
 * tables (an EOB entry keeps its run, EOBn; a refinement scan's table has no
 * pairs, its codes being followed by correction bits). libjpeg's own
 * progressive decoder stays behind ours: its start_pass checks each scan and
 * keeps the progression state that its coefficient controller reads. The
 * output is its coefficients, bit for bit (tests/test_jpeg_huff.c), and the
 * same errors at the same places: a DC sum past INT_MAX (libjpeg-turbo 2.1
 * refuses it), a new refinement coefficient of more than one bit.
 */
#include "decode/jpeg_huff.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <jerror.h>
#include <jpegint.h>

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
 * (the value lands on coefficient 63, and the block ends). */
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

/* Builds t from the DHT h (the checks of libjpeg's jpeg_make_d_derived_tbl,
 * which has already accepted it; they are repeated because the lookup
 * relies on them). Returns -1 for a table it would refuse. */
static int feed__huff_build(huff_tbl *t, const JHUFF_TBL *h, int dc, int pairs)
{
    if (t->built && t->pairs == pairs && memcmp(t->bits + 1, h->bits + 1, 16) == 0) {
        int n = 0;
        for (int l = 1; l <= 16; l++)
            n += h->bits[l];
        if (n <= 256 && memcmp(t->huffval, h->huffval, (size_t)n) == 0)
            return 0;
    }
    t->built = 0;
    uint8_t size[257];
    uint32_t code[257];
    int n = 0;
    for (int l = 1; l <= 16; l++) {
        int c = h->bits[l];
        if (n + c > 256)
            return -1;
        while (c--)
            size[n++] = (uint8_t)l;
    }
    size[n] = 0;
    /* C.2: the codes, checked to form a prefix code */
    uint32_t c = 0;
    int si = size[0];
    for (int p = 0; size[p];) {
        while (size[p] == si)
            code[p++] = c++;
        if (c >= (1u << si)) /* the last code of a length must not be all ones */
            return -1;
        c <<= 1;
        si++;
    }
    for (int p = 0; p < n; p++)
        if (dc && h->huffval[p] > 15)
            return -1;
    for (int l = 1, p = 0; l <= 16; l++) {
        if (h->bits[l]) {
            t->valoffset[l] = p - (int32_t)code[p];
            p += h->bits[l];
            t->maxcode[l] = (int32_t)code[p - 1];
        } else {
            t->maxcode[l] = -1;
            t->valoffset[l] = 0;
        }
    }
    memcpy(t->huffval, h->huffval, sizeof t->huffval);
    memcpy(t->bits, h->bits, sizeof t->bits);
    const int nb = FEED_HUFF_BITS, nn = 1 << nb;
    for (int i = 0; i < nn; i++)
        t->fast[i] = K_SLOW;
    for (int p = 0; p < n && size[p] <= nb; p++) {
        int l = size[p], rs = h->huffval[p];
        int r = dc ? 0 : rs >> 4, s = dc ? rs : rs & 15;
        int span = 1 << (nb - l);
        int base = (int)code[p] << (nb - l);
        for (int i = 0; i < span; i++) {
            int32_t e;
            if (!dc && s == 0) {
                e = (r == 15 ? K_CODE : K_EOB) | rs << 8 | l; /* an EOB keeps its run: EOBn */
            } else if (l + s <= nb) { /* s <= 9: the value field's 10 bits hold it */
                int32_t v = 0;
                if (s) {
                    uint32_t extra = ((uint32_t)(base + i) >> (nb - l - s)) & ((1u << s) - 1);
                    v = feed__extend(extra, s);
                }
                e = feed__full(l + s, r, v, 0, 0);
            } else {
                e = K_CODE | rs << 8 | l;
            }
            t->fast[base + i] = e;
        }
    }
    if (!dc && pairs) /* pairs: a FULL entry whose left-over bits hold another FULL one */
        for (int i = 0; i < nn; i++) {
            int32_t e1 = t->fast[i];
            int n1 = e1 & 31;
            if ((e1 & K_MASK) != K_FULL || FEED_FULL_F(e1) || n1 >= nb)
                continue;
            int32_t e2 = t->fast[(i << n1) & (nn - 1)];
            int n2 = e2 & 31;
            int32_t v2 = FEED_FULL_V1(e2);
            if ((e2 & K_MASK) != K_FULL || FEED_FULL_F(e2) || n1 + n2 > nb || v2 < -16 ||
                v2 > 15)
                continue;
            t->fast[i] = feed__full(n1 + n2, (e1 >> 8) & 15, FEED_FULL_V1(e1), ((e2 >> 8) & 15) + 1, v2);
        }
    t->built = 1;
    t->pairs = pairs;
    return 0;
}

/* The source ran dry: libjpeg's memory source warns and hands out a fake EOI. */
static void feed__huff_fill(j_decompress_ptr ci, bit_state *b)
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

/* Resynchronise at a restart marker (libjpeg's process_restart). */
static void feed__huff_restart(j_decompress_ptr ci, feed__huff *h)
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

static boolean feed__huff_decode_mcu(j_decompress_ptr ci, JBLOCKROW *mcu)
{
    feed__huff *h = (feed__huff *)ci->entropy;
    if (ci->restart_interval) {
        if (h->restarts_to_go == 0)
            feed__huff_restart(ci, h);
        h->restarts_to_go--;
    }
    if (h->pub.insufficient_data) /* the rest of the segment stays zero */
        return TRUE;

    FEED_STATE_LOAD(h);
    const uint8_t *nat = feed__natural;
    for (int n = 0; n < ci->blocks_in_MCU; n++) {
        const blk_info *bi = &h->blk[n];
        JCOEF *out = mcu ? mcu[n][0] : NULL;

        int32_t e, diff;
        FEED_DC_DIFF(diff, e, bi->dc);
        if (bi->dc_needed) {
            /* wraps as libjpeg's int does on the corrupt files that overflow it */
            int dc = (int)((unsigned)h->last_dc[bi->comp] + (unsigned)diff);
            h->last_dc[bi->comp] = dc;
            if (out)
                out[0] = (JCOEF)dc;
        }

        JCOEF *ac = out && bi->ac_needed ? out : h->scratch;
        const int32_t *fast = bi->ac->fast;
        for (int k = 1; k < DCTSIZE2;) {
            FEED_REFILL();
            e = fast[FEED_PEEK(FEED_HUFF_BITS)];
            int rs;
            if ((e & K_MASK) == K_FULL) {
                int r1 = (e >> 8) & 15, f = FEED_FULL_F(e);
                if (__builtin_expect(k + r1 < DCTSIZE2 - 1 || !f, 1)) {
                    k += r1;
                    ac[nat[k + f]] = (JCOEF)FEED_FULL_V2(e);
                    ac[nat[k]] = (JCOEF)FEED_FULL_V1(e);
                    buf <<= e & 63; /* FULL's kind bits are 0: no mask on the shift's path */
                    cnt -= e & 31;
                    k += f + 1;
                    continue;
                }
                /* a pair whose first ends the block: the second is the next
                 * block's, so the first is decoded alone */
                FEED_WALK(rs, bi->ac, 1);
            } else if ((e & K_MASK) == K_EOB) {
                FEED_DROP(e & 31);
                break;
            } else if ((e & K_MASK) == K_CODE) {
                rs = (e >> 8) & 0xFF;
                FEED_DROP(e & 31);
            } else {
                FEED_WALK(rs, bi->ac, FEED_HUFF_BITS + 1);
            }
            int r = rs >> 4, s = rs & 15;
            if (s) {
                k += r;
                uint32_t v = FEED_PEEK(s);
                FEED_DROP(s);
                ac[nat[k]] = (JCOEF)feed__extend(v, s);
                k++;
            } else {
                if (r != 15)
                    break;
                k += 16;
            }
        }
    }
    FEED_STATE_SAVE();
    feed__huff_end_mcu(ci, h);
    return TRUE;
}

/* ---- progressive scans (the standard's G.1.2; libjpeg-turbo's jdphuff.c
 * does the same, one bit and one code at a time) ----------------------------- */

/* The MCU's prologue, as libjpeg's: a restart marker when the interval is
 * done. Returns 0 when the segment ran out of data (the MCU stays as it is). */
static inline int feed__ph_begin(j_decompress_ptr ci, feed__huff *h)
{
    if (ci->restart_interval) {
        if (h->restarts_to_go == 0)
            feed__huff_restart(ci, h);
        h->restarts_to_go--;
    }
    return !h->pub.insufficient_data;
}

/* One bit (a correction bit, a new coefficient's sign). */
#define FEED_BIT(v)                                                                        \
    do {                                                                                   \
        if (__builtin_expect(cnt == 0, 0))                                                 \
            FEED_REFILL();                                                                 \
        (v) = (int)(buf >> 63);                                                            \
        FEED_DROP(1);                                                                      \
    } while (0)

/* An error or warning in the middle of an MCU: libjpeg would have said the
 * segment ended first if the bits read so far reach into the padding (after
 * a warning that returns, decoding goes on from the locals). */
#define FEED_PH_FAIL(warn_or_err, code)                                                    \
    do {                                                                                   \
        FEED_STATE_SAVE();                                                                 \
        feed__huff_end_mcu(ci, h);                                                         \
        warn_or_err(ci, code);                                                             \
    } while (0)

/* The symbol of an AC code from a lookup entry that is not FULL-and-usable
 * (CODE or SLOW; `from` the length to walk from). */
#define FEED_AC_SYMBOL(rs, e, t)                                                           \
    do {                                                                                   \
        if (((e) & K_MASK) == K_CODE) {                                                    \
            (rs) = ((e) >> 8) & 0xFF;                                                      \
            FEED_DROP((e) & 31);                                                           \
        } else if (((e) & K_MASK) == K_SLOW) {                                             \
            FEED_WALK(rs, t, FEED_HUFF_BITS + 1);                                          \
        } else {                                                                           \
            FEED_WALK(rs, t, 1);                                                           \
        }                                                                                  \
    } while (0)

/* DC, first scan: each block's difference, scaled by 2^Al. */
static boolean feed__ph_dc_first(j_decompress_ptr ci, JBLOCKROW *mcu)
{
    feed__huff *h = (feed__huff *)ci->entropy;
    if (!feed__ph_begin(ci, h))
        return TRUE;
    FEED_STATE_LOAD(h);
    const int al = ci->Al;
    for (int n = 0; n < ci->blocks_in_MCU; n++) {
        const blk_info *bi = &h->blk[n];
        int32_t e, diff;
        FEED_DC_DIFF(diff, e, bi->dc);
        int last = h->last_dc[bi->comp];
        if ((last >= 0 && diff > INT32_MAX - last) || (last < 0 && diff < INT32_MIN - last))
            FEED_PH_FAIL(ERREXIT, JERR_BAD_DCT_COEF);
        last += diff;
        h->last_dc[bi->comp] = last;
        mcu[n][0][0] = (JCOEF)(int32_t)((uint32_t)last << al);
    }
    FEED_STATE_SAVE();
    feed__huff_end_mcu(ci, h);
    return TRUE;
}

/* DC, refinement: one bit of each block's value. libjpeg reads it even past
 * the end of the segment (zeros change nothing). */
static boolean feed__ph_dc_refine(j_decompress_ptr ci, JBLOCKROW *mcu)
{
    feed__huff *h = (feed__huff *)ci->entropy;
    feed__ph_begin(ci, h);
    FEED_STATE_LOAD(h);
    const int p1 = 1 << ci->Al;
    for (int n = 0; n < ci->blocks_in_MCU; n++) {
        int bit;
        FEED_BIT(bit);
        if (bit)
            mcu[n][0][0] |= (JCOEF)p1;
    }
    FEED_STATE_SAVE();
    feed__huff_end_mcu(ci, h);
    return TRUE;
}

/* End of band n: 2^n blocks (this one included) plus n more bits' worth. */
#define FEED_EOBRUN(run, r)                                                                \
    do {                                                                                   \
        (run) = 1u << (r);                                                                 \
        if (r) {                                                                           \
            (run) += FEED_PEEK(r);                                                         \
            FEED_DROP(r);                                                                  \
        }                                                                                  \
    } while (0)

/* AC, first scan of band Ss..Se (one component, one block an MCU). */
static boolean feed__ph_ac_first(j_decompress_ptr ci, JBLOCKROW *mcu)
{
    feed__huff *h = (feed__huff *)ci->entropy;
    if (!feed__ph_begin(ci, h))
        return TRUE;
    if (h->eobrun > 0) { /* a block of the band's run of zeros */
        h->eobrun--;
        return TRUE;
    }
    FEED_STATE_LOAD(h);
    const uint8_t *nat = feed__natural;
    const huff_tbl *t = h->blk[0].ac;
    const int32_t *fast = t->fast;
    const int se = ci->Se, al = ci->Al;
    JCOEF *blk = mcu[0][0];
    for (int k = ci->Ss; k <= se;) {
        FEED_REFILL();
        int32_t e = fast[FEED_PEEK(FEED_HUFF_BITS)];
        int rs;
        if ((e & K_MASK) == K_FULL) {
            int r1 = (e >> 8) & 15, f = FEED_FULL_F(e);
            if (__builtin_expect(k + r1 < se || !f, 1)) {
                k += r1;
                blk[nat[k + f]] = (JCOEF)(int32_t)((uint32_t)FEED_FULL_V2(e) << al);
                blk[nat[k]] = (JCOEF)(int32_t)((uint32_t)FEED_FULL_V1(e) << al);
                FEED_DROP(e & 31);
                k += f + 1;
                continue;
            }
            FEED_WALK(rs, t, 1); /* the pair's second is past the band: the first alone */
        } else if ((e & K_MASK) == K_EOB) {
            FEED_DROP(e & 31);
            unsigned run;
            FEED_EOBRUN(run, (e >> 12) & 15);
            h->eobrun = run - 1;
            break;
        } else {
            FEED_AC_SYMBOL(rs, e, t);
        }
        int r = rs >> 4, s = rs & 15;
        if (s) {
            k += r;
            uint32_t v = FEED_PEEK(s);
            FEED_DROP(s);
            blk[nat[k]] = (JCOEF)(int32_t)((uint32_t)feed__extend(v, s) << al);
            k++;
        } else if (r == 15) {
            k += 16;
        } else {
            unsigned run;
            FEED_EOBRUN(run, r);
            h->eobrun = run - 1;
            break;
        }
    }
    FEED_STATE_SAVE();
    feed__huff_end_mcu(ci, h);
    return TRUE;
}

/* The block's non-zero coefficients as bits in zigzag order (bit k for the
 * k-th coefficient of the zigzag scan). */
static inline uint64_t feed__ph_nonzero(const feed__huff *h, const JCOEF *blk)
{
    uint64_t nat = 0;
#if defined(__SSE2__)
    const __m128i z = _mm_setzero_si128();
    for (int i = 0; i < 4; i++) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(blk + 16 * i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(blk + 16 * i + 8));
        __m128i zero = _mm_packs_epi16(_mm_cmpeq_epi16(a, z), _mm_cmpeq_epi16(b, z));
        nat |= (uint64_t)(uint16_t)~_mm_movemask_epi8(zero) << (16 * i);
    }
#else
    for (int i = 0; i < DCTSIZE2; i++)
        nat |= (uint64_t)(blk[i] != 0) << i;
#endif
    uint64_t m = 0;
    for (int b = 0; b < 8; b++)
        m |= h->zigzag_of[b][(nat >> (8 * b)) & 0xFF];
    return m;
}

typedef boolean jpeg_decode_mcu_fn(j_decompress_ptr, JBLOCKROW *);

#if defined(__x86_64__)
/* BMI2's pdep, in asm so that the body stays free of target attributes; run
 * only where feed__refine_level() found it. */
static inline uint64_t feed__pdep(uint64_t src, uint64_t mask)
{
    uint64_t r;
    __asm__("pdepq %2, %1, %0" : "=r"(r) : "r"(src), "rm"(mask));
    return r;
}
#else
static inline uint64_t feed__pdep(uint64_t src, uint64_t mask)
{
    (void)src, (void)mask;
    return 0; /* never called: no pdep level off x86-64 */
}
#endif

/* Bits k..63 (none for k = 64 and past). */
static inline uint64_t feed__from(int k)
{
    return k >= 64 ? 0 : ~0ull << k;
}

/* n (0..63) bits of the stream onto the bottom of acc. */
#define FEED_TAKE(acc, n)                                                                  \
    do {                                                                                   \
        int n_ = (n);                                                                      \
        if (__builtin_expect(n_ > cnt, 0)) {                                               \
            if (n_ > 32) {                                                                 \
                FEED_REFILL();                                                             \
                (acc) = (acc) << 32 | FEED_PEEK(32);                                       \
                FEED_DROP(32);                                                             \
                n_ -= 32;                                                                  \
            }                                                                              \
            FEED_REFILL();                                                                 \
        }                                                                                  \
        (acc) = (acc) << n_ | (n_ ? buf >> (64 - n_) : 0);                                 \
        FEED_DROP(n_);                                                                     \
    } while (0)

/* The correction bits acc (n of them, the first read the highest) to the
 * coefficients of mask m (zigzag bits, as many, all non-zero), in zigzag
 * order: 1 makes a magnitude grow by p1 (unless that bit is set already,
 * which libjpeg checks too). Without a branch on the bits: they are the
 * stream's, as good as random. */
#define FEED_APPLY(m, acc, n)                                                              \
    do {                                                                                   \
        uint64_t m_ = (m), a_ = (n) ? (acc) << (64 - (n)) : 0;                             \
        while (m_) {                                                                       \
            JCOEF *c_ = blk + nat[__builtin_ctzll(m_)];                                    \
            m_ &= m_ - 1;                                                                  \
            int bit_ = (int)(a_ >> 63);                                                    \
            a_ <<= 1;                                                                      \
            int v_ = *c_;                                                                  \
            int d_ = v_ >= 0 ? p1 : m1;                                                    \
            v_ += d_ & -(bit_ & ((v_ & p1) == 0));                                         \
            *c_ = (JCOEF)v_;                                                               \
        }                                                                                  \
    } while (0)

/* AC, refinement of band Ss..Se by one bit (Al = Ah - 1): codes place newly
 * non-zero coefficients of +-2^Al; every coefficient already non-zero that
 * the decoding passes gets a correction bit. libjpeg walks the band a
 * coefficient at a time with a branch on each (zero or not, bit or not).
 * This works on the bit mask of the non-zero ones: a code's run of r zeros
 * ends at the (r+1)-th zero bit past k, the n non-zero bits in between take
 * the stream's next n bits at once, and the block's correction bits are put
 * on at its end. That is exact because each coefficient of the band is
 * passed once: the new ones lie behind k (so the mask taken at the start
 * stays right ahead of k), and every non-zero one of the band gets exactly
 * one bit, in zigzag order, by the end of the block. */
static inline __attribute__((always_inline)) boolean feed__ph_ac_refine_body(j_decompress_ptr ci,
                                                                             JBLOCKROW *mcu, int pdep)
{
    feed__huff *h = (feed__huff *)ci->entropy;
    if (!feed__ph_begin(ci, h))
        return TRUE;
    FEED_STATE_LOAD(h);
    const uint8_t *nat = feed__natural;
    const huff_tbl *t = h->blk[0].ac;
    const int32_t *fast = t->fast;
    const int se = ci->Se;
    const int p1 = 1 << ci->Al, m1 = (int)(~0u << ci->Al);
    JCOEF *blk = mcu[0][0];
    const uint64_t band = ~feed__from(se + 1); /* bits 0..Se */
    const uint64_t nz = feed__ph_nonzero(h, blk) & band;
    uint64_t todo = nz & feed__from(ci->Ss); /* the coefficients that get a bit */
    uint64_t acc = 0;                          /* their bits so far */
    int nacc = 0;
    int k = ci->Ss;
    unsigned run = h->eobrun;
    if (run == 0) {
        while (k <= se) {
            FEED_REFILL_EAGER();
            int32_t e = fast[FEED_PEEK(FEED_HUFF_BITS)];
            int r, s;
            if ((e & K_MASK) == K_FULL && (FEED_FULL_V1(e) == 1 || FEED_FULL_V1(e) == -1)) {
                /* a new coefficient: its code and sign bit (the table has no pairs) */
                r = (e >> 8) & 15;
                s = FEED_FULL_V1(e) > 0 ? p1 : m1;
                FEED_DROP(e & 31);
            } else if ((e & K_MASK) == K_EOB) {
                FEED_DROP(e & 31);
                FEED_EOBRUN(run, (e >> 12) & 15);
                break;
            } else {
                int rs;
                FEED_AC_SYMBOL(rs, e, t);
                r = rs >> 4;
                s = rs & 15;
                if (s) {
                    if (s != 1) /* a new coefficient is one bit */
                        FEED_PH_FAIL(WARNMS, JWRN_HUFF_BAD_CODE);
                    int sign;
                    FEED_BIT(sign);
                    s = sign ? p1 : m1;
                } else if (r != 15) {
                    FEED_EOBRUN(run, r);
                    break;
                }
                /* s 0, r 15: sixteen zeros (ZRL) */
            }
            uint64_t ahead = feed__from(k);
            uint64_t zeros = ~nz & band & ahead;
            if (pdep) { /* the (r+1)-th zero at once */
                zeros = feed__pdep(1ull << r, zeros);
            } else {
                for (int i = 0; i < r; i++)
                    zeros &= zeros - 1;
            }
            int at = zeros ? __builtin_ctzll(zeros) : se + 1;
            int n = __builtin_popcountll(nz & ahead & ~feed__from(at));
            FEED_TAKE(acc, n);
            nacc += n;
            if (__builtin_expect(at <= se, 1)) {
                blk[nat[at]] = (JCOEF)s; /* a zero before: 0 for a ZRL changes nothing */
            } else {
                /* past the band, as damaged data can say: libjpeg puts the new
                 * coefficient at zigzag Se + 1 after the bits (Se 63: on
                 * coefficient 63 itself, which may have had one) */
                FEED_APPLY(todo, acc, nacc);
                todo = 0, nacc = 0;
                if (s)
                    blk[nat[at]] = (JCOEF)s;
            }
            k = at + 1;
        }
    }
    if (run > 0) { /* in an end-of-band run: a bit for each to the end of the band */
        int n = __builtin_popcountll(nz & feed__from(k));
        FEED_TAKE(acc, n);
        nacc += n;
        run--;
    }
    FEED_APPLY(todo, acc, nacc);
    h->eobrun = run;
    FEED_STATE_SAVE();
    feed__huff_end_mcu(ci, h);
    return TRUE;
}

static boolean feed__ph_ac_refine(j_decompress_ptr ci, JBLOCKROW *mcu)
{
    return feed__ph_ac_refine_body(ci, mcu, 0);
}

#if defined(__x86_64__)
/* The same with the popcnt instruction (baseline x86-64 has none: the
 * builtin is a libgcc call there), and with BMI2's pdep too. */
__attribute__((target("popcnt"))) static boolean feed__ph_ac_refine_popcnt(j_decompress_ptr ci,
                                                                           JBLOCKROW *mcu)
{
    return feed__ph_ac_refine_body(ci, mcu, 0);
}

__attribute__((target("popcnt,bmi,bmi2"))) static boolean feed__ph_ac_refine_pdep(j_decompress_ptr ci,
                                                                                 JBLOCKROW *mcu)
{
    return feed__ph_ac_refine_body(ci, mcu, 1);
}

/* AMD (and Hygon) before family 19h (Zen 3) run pdep in microcode. */
static int feed__slow_pdep(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return 1;
    int amd = (b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163) || /* AuthenticAMD */
              (b == 0x6f677948 && d == 0x6e65476e && c == 0x656e6975);   /* HygonGenuine */
    if (!amd)
        return 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 1;
    unsigned family = (a >> 8) & 0xF;
    if (family == 0xF)
        family += (a >> 20) & 0xFF;
    return family < 0x19;
}

/* 0 plain, 1 popcnt, 2 popcnt and a fast pdep (AMD's before Zen 3 run it
 * in microcode, tens of cycles a bit of the mask: the loop is faster there). */
static int feed__refine_level(void)
{
    static int cached = -1; /* atomic: decoders may start on several threads */
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = !__builtin_cpu_supports("popcnt")                         ? 0
            : __builtin_cpu_supports("bmi2") && !feed__slow_pdep() ? 2
                                                                   : 1;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}
#define FEED_REFINE_TOP feed__refine_level()
#else
#define FEED_REFINE_TOP 0
#endif

static int g_refine_forced = -1; /* feed__huff_refine_level() */

int feed__huff_refine_level(int level)
{
    int top = FEED_REFINE_TOP;
    if (level > top)
        return -1;
    __atomic_store_n(&g_refine_forced, level, __ATOMIC_RELAXED);
    return level < 0 ? top : level;
}

static jpeg_decode_mcu_fn *feed__ph_refine_fn(void)
{
    int l = __atomic_load_n(&g_refine_forced, __ATOMIC_RELAXED);
    if (l < 0)
        l = FEED_REFINE_TOP;
#if defined(__x86_64__)
    if (l == 2)
        return feed__ph_ac_refine_pdep;
    if (l == 1)
        return feed__ph_ac_refine_popcnt;
#endif
    (void)l;
    return feed__ph_ac_refine;
}

#if JPEG_LIB_VERSION >= 70
#define FEED_HUFF_DCT(c) ((c)->DCT_h_scaled_size)
#else
#define FEED_HUFF_DCT(c) ((c)->DCT_scaled_size)
#endif

/* The scan's set-up (libjpeg's start_pass_huff_decoder). Returns -1 for a
 * table libfeed's lookup cannot take (libjpeg's decoder then stays). */
static int feed__huff_setup(feed__huff *h, j_decompress_ptr ci)
{
    for (int c = 0; c < ci->comps_in_scan; c++) {
        const jpeg_component_info *cp = ci->cur_comp_info[c];
        int d = cp->dc_tbl_no, a = cp->ac_tbl_no;
        if (d < 0 || d >= NUM_HUFF_TBLS || a < 0 || a >= NUM_HUFF_TBLS || !ci->dc_huff_tbl_ptrs[d] ||
            !ci->ac_huff_tbl_ptrs[a])
            return -1;
        if (feed__huff_build(&h->dc[d], ci->dc_huff_tbl_ptrs[d], 1, 0) ||
            feed__huff_build(&h->ac[a], ci->ac_huff_tbl_ptrs[a], 0, 1))
            return -1;
        h->last_dc[c] = 0;
    }
    for (int n = 0; n < ci->blocks_in_MCU; n++) {
        int c = ci->MCU_membership[n];
        const jpeg_component_info *cp = ci->cur_comp_info[c];
        blk_info *bi = &h->blk[n];
        bi->dc = &h->dc[cp->dc_tbl_no];
        bi->ac = &h->ac[cp->ac_tbl_no];
        bi->comp = c;
        bi->dc_needed = cp->component_needed ? 1 : 0;
        bi->ac_needed = cp->component_needed && FEED_HUFF_DCT(cp) > 1;
    }
    memset(&h->br, 0, sizeof h->br);
    h->br.p = ci->src->next_input_byte;
    h->br.end = h->br.p + ci->src->bytes_in_buffer;
    h->br.lim = ci->unread_marker ? h->br.p : h->br.end;
    h->pub.insufficient_data = FALSE;
    h->restarts_to_go = ci->restart_interval;
    return 0;
}

static void feed__huff_start_pass(j_decompress_ptr ci)
{
    /* A single-scan file has one pass, set up at install; libjpeg calls this
     * only for another scan, which such a file must not have. */
    ERREXIT(ci, JERR_EOI_EXPECTED);
}

feed__huff *feed__huff_create(void)
{
    feed__huff *h = calloc(1, sizeof(feed__huff));
    if (!h)
        return NULL;
    uint8_t zz[DCTSIZE2];
    for (int k = 0; k < DCTSIZE2; k++)
        zz[feed__natural[k]] = (uint8_t)k;
    for (int b = 0; b < 8; b++)
        for (int v = 0; v < 256; v++) {
            uint64_t m = 0;
            for (int i = 0; i < 8; i++)
                if (v >> i & 1)
                    m |= 1ull << zz[8 * b + i];
            h->zigzag_of[b][v] = m;
        }
    return h;
}

void feed__huff_destroy(feed__huff *h)
{
    free(h);
}

int feed__huff_install(feed__huff *h, j_decompress_ptr ci)
{
    if (!h || ci->progressive_mode || ci->arith_code || ci->data_precision != 8 ||
        ci->comps_in_scan != ci->num_components || ci->inputctl->has_multiple_scans ||
        ci->Ss != 0 || ci->Se != DCTSIZE2 - 1 || ci->Ah != 0 || ci->Al != 0 ||
        ci->blocks_in_MCU < 1 || ci->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU ||
        ci->comps_in_scan > MAX_COMPS_IN_SCAN || ci->input_iMCU_row != 0 || ci->output_scanline != 0)
        return 0;
    if (feed__huff_setup(h, ci))
        return 0;
    h->pub.start_pass = feed__huff_start_pass;
    h->pub.decode_mcu = feed__huff_decode_mcu;
    ci->entropy = &h->pub;
    return 1;
}

/* Scan set-up for a progressive file, after libjpeg's start_pass checked it
 * (JERR_BAD_PROGRESSION, JWRN_BOGUS_PROGRESSION), updated the progression
 * and made its own tables (JERR_NO_HUFF_TABLE, JERR_BAD_HUFF_TABLE). Returns
 * -1 for a table libfeed's lookup cannot take. */
static int feed__ph_setup(feed__huff *h, j_decompress_ptr ci)
{
    int dc = ci->Ss == 0, refine = ci->Ah != 0;
    if (ci->blocks_in_MCU < 1 || ci->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU ||
        ci->comps_in_scan < 1 || ci->comps_in_scan > MAX_COMPS_IN_SCAN || (!dc && ci->blocks_in_MCU != 1))
        return -1;
    for (int c = 0; c < ci->comps_in_scan; c++) {
        const jpeg_component_info *cp = ci->cur_comp_info[c];
        int d = cp->dc_tbl_no, a = cp->ac_tbl_no;
        if (dc && !refine &&
            (d < 0 || d >= NUM_HUFF_TBLS || !ci->dc_huff_tbl_ptrs[d] ||
             feed__huff_build(&h->dc[d], ci->dc_huff_tbl_ptrs[d], 1, 0)))
            return -1;
        if (!dc && (a < 0 || a >= NUM_HUFF_TBLS || !ci->ac_huff_tbl_ptrs[a] ||
                    feed__huff_build(&h->ac[a], ci->ac_huff_tbl_ptrs[a], 0, !refine)))
            return -1;
        h->last_dc[c] = 0;
    }
    for (int n = 0; n < ci->blocks_in_MCU; n++) {
        int c = ci->MCU_membership[n];
        const jpeg_component_info *cp = ci->cur_comp_info[c];
        blk_info *bi = &h->blk[n];
        bi->dc = &h->dc[cp->dc_tbl_no & (NUM_HUFF_TBLS - 1)];
        bi->ac = &h->ac[cp->ac_tbl_no & (NUM_HUFF_TBLS - 1)];
        bi->comp = c;
        bi->dc_needed = bi->ac_needed = 1;
    }
    memset(&h->br, 0, sizeof h->br);
    h->br.p = ci->src->next_input_byte;
    h->br.end = h->br.p + ci->src->bytes_in_buffer;
    h->br.lim = ci->unread_marker ? h->br.p : h->br.end;
    h->pub.insufficient_data = FALSE;
    h->restarts_to_go = ci->restart_interval;
    h->eobrun = 0;
    h->pub.decode_mcu = dc ? (refine ? feed__ph_dc_refine : feed__ph_dc_first)
                           : (refine ? feed__ph_refine_fn() : feed__ph_ac_first);
    return 0;
}

/* Each later scan: libjpeg's start_pass on its own object first. */
static void feed__ph_start_pass(j_decompress_ptr ci)
{
    feed__huff *h = (feed__huff *)ci->entropy;
    ci->entropy = h->lib;
    (*h->lib->start_pass)(ci);
    if (feed__ph_setup(h, ci)) {
        /* libjpeg decodes the rest of the file. Not reached with libjpeg-turbo
         * 2.1, whose table checks (just run) are feed__huff_build's: kept so
         * that a libjpeg accepting more falls back instead of failing. */
        h->handed_back = 1;
        return;
    }
    ci->entropy = &h->pub;
}

int feed__huff_install_progressive(feed__huff *h, j_decompress_ptr ci)
{
    if (!h || !ci->progressive_mode || ci->arith_code || ci->data_precision != 8 || !ci->entropy ||
        ci->entropy == &h->pub || ci->input_scan_number != 1 || ci->input_iMCU_row != 0)
        return 0;
    h->lib = ci->entropy; /* its start_pass has run for the first scan */
    h->handed_back = 0;
    if (feed__ph_setup(h, ci))
        return 0;
    h->pub.start_pass = feed__ph_start_pass;
    ci->entropy = &h->pub;
    return 1;
}

int feed__huff_handed_back(const feed__huff *h)
{
    return h && h->handed_back;
}

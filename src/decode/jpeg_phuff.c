/*
 * jpeg_phuff.c - a Huffman decoder for progressive scans (the standard's
 * G.1.2) in libjpeg's entropy-decoder slot (jpeg_huff.h says why), on the
 * bit reader and tables of jpeg_huff_int.h; libjpeg-turbo's jdphuff.c does
 * the same, one bit and one code at a time.
 *
 * The four kinds of scan (DC or AC band, first or refinement) each have
 * their decode_mcu, on the same bit reader and tables as sequential scans
 * (an EOB entry keeps its run, EOBn; a refinement scan's table has no pairs,
 * its codes being followed by correction bits). libjpeg's own progressive
 * decoder stays behind ours: its start_pass checks each scan and keeps the
 * progression state that its coefficient controller reads. The output is its
 * coefficients, bit for bit (tests/test_jpeg_huff.c), and the same errors at
 * the same places: a DC sum past INT_MAX (libjpeg-turbo 2.1 refuses it), a
 * new refinement coefficient of more than one bit. The refinement kernel is
 * picked for the CPU at run time (plain C, popcnt, popcnt and pdep).
 */
#include "decode/jpeg_huff.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h> /* jpeglib.h needs FILE */
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

#include "decode/jpeg_huff_int.h"

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
    feed__huff_start_bits(h, ci);
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

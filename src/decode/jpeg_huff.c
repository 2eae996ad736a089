/*
 * jpeg_huff.c - a Huffman decoder for sequential scans in libjpeg's
 * entropy-decoder slot (jpeg_huff.h says why), and what the progressive one
 * (jpeg_phuff.c) takes from it: the lookup tables' building, a scan's
 * start, the decoder object (the bit reader and the state both share:
 * jpeg_huff_int.h).
 */
#include "decode/jpeg_huff.h"

#include <stdint.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include <jerror.h>
#include <jpegint.h>

#include "decode/jpeg_huff_int.h"

/* The checks of libjpeg's jpeg_make_d_derived_tbl, which has already
 * accepted the table: they are repeated because the lookup relies on them. */
int feed__huff_build(huff_tbl *t, const JHUFF_TBL *h, int dc, int pairs)
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

void feed__huff_start_bits(feed__huff *h, j_decompress_ptr ci)
{
    memset(&h->br, 0, sizeof h->br);
    h->br.p = ci->src->next_input_byte;
    h->br.end = h->br.p + ci->src->bytes_in_buffer;
    h->br.lim = ci->unread_marker ? h->br.p : h->br.end;
    h->pub.insufficient_data = FALSE;
    h->restarts_to_go = ci->restart_interval;
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
    feed__huff_start_bits(h, ci);
    return 0;
}

static void feed__huff_start_pass(j_decompress_ptr ci)
{
    /* A single-scan file has one pass, set up at install; libjpeg calls this
     * only for another scan, which such a file must not have. */
    ERREXIT(ci, JERR_EOI_EXPECTED);
}

/* h->zigzag_of, the progressive refinement scans' table (jpeg_phuff.c):
 * for each byte of a block's natural-order non-zero mask, the same bits in
 * zigzag order. */
static void feed__zigzag_tables(feed__huff *h)
{
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
}

feed__huff *feed__huff_create(void)
{
    feed__huff *h = calloc(1, sizeof(feed__huff));
    if (!h)
        return NULL;
    feed__zigzag_tables(h);
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


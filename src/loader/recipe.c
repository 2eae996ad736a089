/*
 * recipe.c - the parent's per-batch step of the training recipe: MixUp and
 * CutMix draws, soft labels and multi-label lists (loader/mix.h), and for a
 * device backend the per-sample parameters its conversion kernel erases and
 * mixes with (pixels/post.h).
 *
 * Where each piece runs, and why:
 *  - host backend: the workers erase each sample as they convert it
 *    (worker/loop.c); next() mixes the host slot in place, after the batch
 *    is checked and before the caller has it (one pass over the pairs, no
 *    copy: deliver.c);
 *  - CUDA backend: the workers write uint8 pixels (a quarter of float32's
 *    bytes over PCIe), so erasing, which is defined on normalised values,
 *    and mixing cannot run on the host without a second full pass and four
 *    times the copy. wait_ready (the copier's thread) draws the boxes and
 *    lambdas here, a few dozen bytes a sample, and the conversion kernel
 *    applies them as it converts: no extra pass over the pixels at all.
 * Both give the same bits (pixels/post.h says how).
 */
#include <stdio.h>
#include <string.h>

#include "loader/loader.h"
#include "pixels/erase.h"

/* The labels of every sample of batch seq, from the index by the checked
 * sample id (a substitute's id for a replaced sample: its own labels, never
 * a mix), into the slot's lists. */
static void multi_labels(feed_loader *L, uint64_t seq, uint32_t count, const uint64_t *ids, uint32_t **offs,
                         int32_t **list)
{
    const feed__index_hdr *ix = L->ix.hdr;
    uint64_t slot = seq % L->soft_slots;
    uint32_t most = ix->max_labels ? ix->max_labels : 1;
    uint32_t *o = L->label_offsets + slot * ((uint64_t)L->o.batch_size + 1);
    int32_t *l = L->label_list + slot * (uint64_t)L->o.batch_size * most;
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++) {
        const int32_t *extra;
        uint32_t k = feed__index_labels(ix, ids[i], &extra);
        o[i] = n;
        l[n++] = feed__index_label(ix, ids[i]);
        for (uint32_t j = 1; j < k; j++)
            l[n++] = extra[j - 1];
    }
    o[count] = n;
    *offs = o, *list = l;
}

feed_status feed__loader_recipe(feed_loader *L, uint64_t seq, const feed__recipe_batch *in, feed__recipe_out *r,
                                char *msg, size_t msglen)
{
    const feed__mix_cfg *c = &L->mix;
    float *soft = L->soft + (seq % L->soft_slots) * (uint64_t)L->o.batch_size * c->num_classes;
    int images = feed__mix_images(c);
    uint32_t bad;
    *r = (feed__recipe_out){0};
    if (images)
        feed__mix_draw_batch(c, in->epoch, in->index, in->count, L->mix_draws);
    uint32_t *offs = NULL;
    int32_t *list = NULL;
    if (c->multi)
        multi_labels(L, seq, in->count, in->ids, &offs, &list);
    /* the labels first: a batch with a label out of range is not mixed either */
    const feed__mix_draw *d = images ? L->mix_draws : NULL;
    if (c->multi ? feed__mix_multi_hot(c, d, offs, list, in->count, soft, &bad)
                 : feed__mix_soft_labels(c, d, in->labels, in->count, soft, &bad)) {
        int32_t lab = in->labels[bad];
        for (uint32_t k = c->multi ? offs[bad] : 0; c->multi && k < offs[bad + 1]; k++)
            if (list[k] < 0 || (uint32_t)list[k] >= c->num_classes)
                lab = list[k]; /* the one out of range, not the first */
        char name[2 * FEED_PATH_MAX + 32];
        if (feed__index_name(L->ix.hdr, in->ids[bad], name, sizeof name) < 0)
            snprintf(name, sizeof name, "%s", feed__index_path(L->ix.hdr, in->ids[bad]));
        snprintf(msg, msglen,
                 "sample %llu (%s) has label %d, outside 0..%u: num_classes=%u is too small for the soft "
                 "labels (MixUp, CutMix, label_smoothing, multi_label)",
                 (unsigned long long)in->ids[bad], name, lab, c->num_classes - 1, c->num_classes);
        return FEED_E_DATASET;
    }
    r->draws = d;
    r->soft = soft;
    r->label_offsets = offs;
    r->label_list = list;
    return FEED_OK;
}

void feed__loader_post(feed_loader *L, const feed__recipe_batch *in, const feed__mix_draw *d,
                       feed__post_sample *out)
{
    const uint64_t n = L->ix.hdr->count;
    for (uint32_t i = 0; i < in->count; i++) {
        feed__post_sample *p = &out[i];
        *p = (feed__post_sample){.kind = FEED__MIX_NONE};
        feed__erase_box b;
        /* keyed as the worker keys its own draws: id + repeat * n (worker/loop.c) */
        if (feed__erase_draw(&L->post_xf, L->o.seed, in->epoch, in->ids[i] + (uint64_t)in->samples[i].repeat * n, &b)) {
            p->ey = b.y, p->ex = b.x, p->eh = b.h, p->ew = b.w;
            p->ekey = b.key;
        }
        if (d) {
            p->kind = d[i].kind;
            p->x1 = d[i].x1, p->y1 = d[i].y1, p->x2 = d[i].x2, p->y2 = d[i].y2;
            p->fa = (float)d[i].lam; /* as feed__mix_apply rounds them */
            p->fb = (float)(1.0 - d[i].lam);
        }
    }
}

void feed__loader_post_setup(feed_loader *L)
{
    const feed__xform *x = &L->post_xf;
    uint32_t dt = L->o.dtype;
    L->post_cfg.erase_random = x->erase_random;
    for (uint32_t c = 0; c < 3; c++)
        L->post_cfg.erase_bits[c] = feed__erase_value_bits(x, dt, c);
}

const void *feed__loader_targets(feed_loader *L, uint64_t seq, const uint64_t *ids, uint32_t count)
{
    if (!L->tg_buf)
        return NULL;
    uint8_t *out = L->tg_buf + (seq % L->tg_slots) * (uint64_t)L->o.batch_size * feed__targets_row(&L->tg);
    feed__targets_gather(&L->tg, ids, count, out);
    return out;
}

/*
 * info.c - what the loader says about its dataset and its epochs: samples,
 * classes, what the scan skipped, shard problems, a sample's path and label,
 * batches and samples per epoch.
 */
#include <stdio.h>
#include <string.h>

#include "dataset/index.h"
#include "loader/loader.h"
#include "loader/sampler.h"

uint64_t feed_loader_samples_per_epoch(const feed_loader *L)
{
    if (!L)
        return 0;
    uint64_t n = L->sampler.per_rank;
    if (L->o.drop_last)
        n = L->sampler.nbatches * L->o.batch_size;
    return n;
}

uint64_t feed_loader_batches_per_epoch(const feed_loader *L)
{
    return L ? L->sampler.nbatches : 0;
}

uint32_t feed_loader_num_classes(const feed_loader *L)
{
    return L ? L->ix.hdr->nclasses : 0;
}

uint64_t feed_loader_skipped_files(const feed_loader *L, const char **first)
{
    if (first)
        *first = L ? L->ix.skipped_names : "";
    return L ? L->ix.skipped : 0;
}

uint64_t feed_loader_shard_problems(const feed_loader *L, const char **first)
{
    if (first)
        *first = L ? L->ix.first_problem : "";
    return L ? L->ix.hdr->problems : 0;
}

const char *feed_loader_class_name(const feed_loader *L, uint32_t i)
{
    if (!L || i >= L->ix.hdr->nclasses || !L->ix.hdr->named_classes)
        return NULL; /* file lists have numbers, not names */
    return feed__index_class(L->ix.hdr, i);
}

uint64_t feed_loader_num_samples(const feed_loader *L)
{
    return L ? L->ix.hdr->count : 0;
}

feed_status feed_loader_sample_info(const feed_loader *L, uint64_t id, char *path, size_t pathlen,
                                    int32_t *label)
{
    if (path && pathlen)
        path[0] = 0;
    if (!L || id >= L->ix.hdr->count)
        return FEED_E_INVALID;
    const feed__index_hdr *h = L->ix.hdr;
    if (path) {
        int n = feed__index_name(h, id, path, pathlen);
        if (n < 0 || (size_t)n >= pathlen) {
            if (pathlen)
                path[0] = 0;
            return FEED_E_INVALID;
        }
    }
    if (label)
        *label = feed__index_label(h, id);
    return FEED_OK;
}

feed_status feed_loader_sample_range(const feed_loader *L, uint64_t id, char *file, size_t filelen,
                                     uint64_t *offset, uint64_t *length)
{
    if (file && filelen)
        file[0] = 0;
    if (!L || id >= L->ix.hdr->count)
        return FEED_E_INVALID;
    const feed__index_hdr *h = L->ix.hdr;
    uint64_t off = 0, len = UINT64_MAX;
    if (h->kind == FEED_INDEX_NPY)
        off = h->npy.data_off + id * h->npy.sample_bytes, len = h->npy.sample_bytes;
    else
        feed__index_range(h, id, &off, &len);
    if (file) {
        const char *rel = feed__index_path(h, id);
        int n = snprintf(file, filelen, "%s%s%s", rel[0] == '/' ? "" : h->root,
                         rel[0] == '/' || !strcmp(h->root, "/") ? "" : "/", rel);
        if (n < 0 || (size_t)n >= filelen) {
            if (filelen)
                file[0] = 0;
            return FEED_E_INVALID;
        }
    }
    if (offset)
        *offset = off;
    if (length)
        *length = len;
    return FEED_OK;
}

uint64_t feed_loader_dataset_size(const feed_loader *L)
{
    return L ? L->sampler.n : 0;
}

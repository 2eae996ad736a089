/*
 * feedbench_sync.c - --loader sync, the naive loop: each batch is read,
 * decoded, augmented and converted right here in the training thread, then
 * copied to the device, then stepped; nothing overlaps.
 *
 * The sync loader links the library's internal pipeline (src/pixels/pipeline.h,
 * index.h, sampler.h, reader.h, convert.h): exactly the per-sample work of a
 * worker, done in-line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataset/index.h"
#include "feedbench_shared.h"
#include "io/reader.h"
#include "loader/options.h"
#include "loader/sampler.h"
#include "pixels/convert.h"
#include "pixels/pipeline.h"

void fb_run_sync(bench *B)
{
    char err[2048];
    feed_options o;
    fb_build_options(&B->c, &o);
    if (strcmp(B->c.device, "host")) /* validate would look for CUDA in libfeed: not needed here */
        snprintf(o.device, sizeof o.device, "host");
    if (feed__options_validate(&o, err, sizeof err) != FEED_OK)
        fb_die("%s", err);
    feed__xform x = {0};
    x.out_h = o.height, x.out_w = o.width, x.mode = o.augment, x.resize_shorter = o.resize_shorter;
    x.scale_min = o.scale_min, x.scale_max = o.scale_max, x.ratio_min = o.ratio_min, x.ratio_max = o.ratio_max;
    x.flip_p = o.augment == FEED_AUGMENT_TRAIN ? o.flip_p : 0;
    x.rotate_deg = o.rotate_deg;
    x.fill[0] = (uint8_t)(o.fill >> 16), x.fill[1] = (uint8_t)(o.fill >> 8), x.fill[2] = (uint8_t)o.fill;
    x.brightness = o.brightness, x.contrast = o.contrast, x.saturation = o.saturation, x.hue = o.hue;
    x.grayscale_p = o.grayscale_p, x.exif = o.exif, x.roi_decode = o.roi_decode, x.max_pixels = o.max_pixels;
    float scale[3], bias[3];
    feed__convert_params(o.mean, o.std, scale, bias);

    feed__index ix = {.fd = -1};
    feed__sampler sm;
    if (feed__index_build(&ix, o.source, o.file_list, err, sizeof err) != FEED_OK)
        fb_die("%s", err);
    if (feed__sampler_init(&sm, ix.hdr->count, o.batch_size, o.shuffle, o.drop_last, o.rank, o.world_size,
                           o.seed, err, sizeof err) != FEED_OK ||
        feed__sampler_window(&sm, ix.hdr, o.shuffle_window, err, sizeof err) != FEED_OK)
        fb_die("%s", err);
    int rootfd = open(ix.hdr->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        fb_die("%s: %s", ix.hdr->root, strerror(errno));
    feed__reader *rd = feed__reader_create(o.reader);
    feed__image_ctx *img = feed__image_ctx_create();
    size_t px = (size_t)o.height * o.width * 3;
    size_t sample_bytes = px * feed__dtype_size(o.dtype);
    uint8_t *scratch = malloc(px);
    uint8_t *batchbuf = malloc(sample_bytes * o.batch_size);
    uint64_t *ids = malloc(sizeof *ids * o.batch_size);
    uint8_t *filebuf = NULL;
    size_t filecap = 0;
    if (!rd || !img || !scratch || !batchbuf || !ids)
        fb_die("out of memory");
    snprintf(B->reader, sizeof B->reader, "%s", feed__reader_kind_name(rd));
    snprintf(B->backend, sizeof B->backend, "%s", B->on_gpu ? B->c.device : "host");
    snprintf(B->pinned, sizeof B->pinned, "none");
    snprintf(B->readahead, sizeof B->readahead, "off");
    void *devbuf = NULL;
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu && fb_gpu_alloc(B->gpu, sample_bytes * o.batch_size, &devbuf, err, sizeof err) != 0)
        fb_die("%s", err);
#endif
    B->batches_per_epoch = sm.nbatches;
    B->samples_per_epoch = o.drop_last ? sm.nbatches * o.batch_size : sm.per_rank;
    fb_plan_batches(B);
    int direct = o.dtype == FEED_DTYPE_UINT8 && o.layout == FEED_LAYOUT_HWC;
    sync_counters sc = {0};
    B->t0 = B->last_sample = B->last_progress = fb_now_ns();
    fb_sample_now(B, NULL, &sc);
    if (B->c.warmup == 0)
        fb_open_window(B, NULL, &sc);
    int stop = 0;
    for (uint64_t e = o.start_epoch; !stop && (!o.epochs || e < (uint64_t)o.start_epoch + o.epochs); e++) {
        for (uint64_t bi = 0; bi < sm.nbatches; bi++) {
            uint64_t tb0 = fb_now_ns();
            uint32_t n = feed__sampler_batch(&sm, e, bi, ids);
            for (uint32_t i = 0; i < n; i++) {
                const char *path = feed__index_path(ix.hdr, ids[i]);
                size_t len = 0;
                int sys_errno = 0;
                char msg[256];
                uint64_t t0 = fb_now_ns();
                int st = feed__reader_read(rd, rootfd, path, o.max_file_bytes, &filebuf, &filecap, &len,
                                           &sys_errno, msg, sizeof msg);
                uint64_t t1 = fb_now_ns();
                sc.read += t1 - t0;
                fb_push_span(B, SP_READ, TID_CONSUMER, t0, t1);
                uint8_t *dst = batchbuf + (size_t)i * sample_bytes;
                feed__image_info info = {0};
                if (st == FEED_OK)
                    st = feed__image_process(img, &x, filebuf, len, o.seed, e, ids[i], direct ? dst : scratch,
                                             &info, msg, sizeof msg);
                uint64_t t2 = fb_now_ns();
                sc.decode += info.decode_ns;
                sc.augment += info.augment_ns;
                /* the stage split inside process() as the library measured it, laid end to end */
                fb_push_span(B, SP_DECODE, TID_CONSUMER, t1, t1 + info.decode_ns);
                fb_push_span(B, SP_AUGMENT, TID_CONSUMER, t1 + info.decode_ns, t2);
                if (st != FEED_OK) {
                    B->samples_bad++;
                    memset(dst, 0, sample_bytes);
                } else if (!direct) {
                    feed__convert_sample(scratch, o.height, o.width, o.dtype, o.layout, scale, bias, 0, dst);
                    uint64_t t3 = fb_now_ns();
                    sc.convert += t3 - t2;
                    fb_push_span(B, SP_CONVERT, TID_CONSUMER, t2, t3);
                }
            }
            if (devbuf) {
#if FEEDBENCH_HAVE_CUDA
                uint64_t c0 = fb_now_ns();
                if (fb_gpu_copy_h2d(B->gpu, devbuf, batchbuf, sample_bytes * n, err, sizeof err) != 0)
                    fb_die("%s", err);
                uint64_t c1 = fb_now_ns();
                sc.copy += c1 - c0;
                fb_push_span(B, SP_COPY, TID_CONSUMER, c0, c1);
#endif
            }
            uint64_t tb1 = fb_now_ns();
            sc.wait += tb1 - tb0;
            fb_push_span(B, SP_NEXT, TID_CONSUMER, tb0, tb1);
            if (B->in_window)
                VEC_PUSH(B->waits_ms, (tb1 - tb0) * 1e-6);
            B->samples_delivered += n;
            if (B->on_gpu) {
#if FEEDBENCH_HAVE_CUDA
                if (fb_gpu_step(B->gpu, B->step_ms, B->in_window, err, sizeof err) != 0)
                    fb_die("%s", err);
#endif
            } else {
                fb_host_step(B, NULL, &sc);
            }
            fb_batch_done(B, n, NULL, &sc);
            fb_maybe_sample(B, NULL, &sc);
            if (B->c.batches && B->batches >= B->c.batches) {
                stop = 1;
                break;
            }
        }
        B->epochs_seen++;
    }
#if FEEDBENCH_HAVE_CUDA
    if (B->gpu && fb_gpu_sync(B->gpu, &B->gpu_window_ms, err, sizeof err) != 0)
        fb_die("%s", err);
#endif
    B->t_end = fb_now_ns();
    B->win1 = (csample){.t = B->t_end, .read = sc.read, .decode = sc.decode, .augment = sc.augment,
                        .convert = sc.convert, .copy = sc.copy, .wait = sc.wait};
    fb_push_sample(B, &B->win1);
    free(filebuf);
    free(ids);
    free(batchbuf);
    free(scratch);
    feed__image_ctx_destroy(img);
    feed__reader_destroy(rd);
    close(rootfd);
    feed__index_free(&ix);
}

/*
 * test_loader_cuda.c - the whole loader with device=cuda, end to end: real
 * worker processes fill the ring, the CUDA backend copies and converts every
 * batch, and the test reads each batch back the way a training step would
 * consume it: feed_batch_wait() on a stream of its own, a device-to-host
 * copy on that stream, feed_batch_release() on that stream. No sync mode and
 * no host stall in between, so a copy or kernel that is not ordered before
 * the ready event shows up as wrong pixels. Checks what the copier unit test
 * cannot: the loader and the backend together (selection, held limits, seek
 * through stop/start, labels on the device, END_OF_EPOCH), against an
 * in-process reference decode.
 *
 * Built twice:
 *  - test_loader_cuda_fake: on the CPU, against tests/fake_cuda.c (streams
 *    are threads that run their work after random delays);
 *  - test_loader_cuda_real (FEED_REAL_CUDA): against the CUDA runtime and a
 *    real GPU, where the device pointer must be device memory and the
 *    conversion ran in src/device/cuda/convert.cu; it exits 77 (skip) without a GPU.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cuda_runtime_api.h>

#include "device/device.h"
#include "pixels/convert.h"
#if !defined(FEED_REAL_CUDA)
#include "fake_cuda.h"
#endif
#include "dataset/index.h"
#include "dataset/tar.h"
#include "hooks/loader_test.h"
#include "pixels/pipeline.h"
#include "testutil.h"

#define NIMG 30
#define BATCH 8
#define SIDE 40

static char *data;
static char multi[4200]; /* a file list of data's images, several labels on some lines */
static char targets[4200]; /* NIMG x 2 float32 targets */
static feed__index ix;
static cudaStream_t consumer;

static int setup(void **state)
{
    data = tu_dataset("loadercuda", NIMG, 21, 3, &ix);
    snprintf(multi, sizeof multi, "%s/multi.txt", data);
    FILE *f = fopen(multi, "w");
    if (!f)
        return -1;
    for (uint32_t i = 0; i < NIMG; i++) {
        int32_t l = feed__index_label(ix.hdr, i);
        if (i % 3)
            fprintf(f, "%s %d %d\n", feed__index_path(ix.hdr, i), l, (l + 1 + (int32_t)i % 2) % 3);
        else
            fprintf(f, "%s %d\n", feed__index_path(ix.hdr, i), l);
    }
    fclose(f);
    snprintf(targets, sizeof targets, "%s/targets.npy", data);
    float tv[NIMG * 2];
    for (uint32_t i = 0; i < NIMG * 2; i++)
        tv[i] = (float)i * 0.25f - 3.0f;
    char dict[128];
    snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 2), }", NIMG);
    tu_npy_write(targets, dict, tv, sizeof tv);
    if (cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking) != cudaSuccess) {
        fprintf(stderr, "cudaStreamCreateWithFlags failed\n");
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    cudaStreamDestroy(consumer);
    feed__index_free(&ix);
    tu_rmtree(data);
    free(data);
    return 0;
}

static feed_loader *make(const char *extra)
{
    feed_options o;
    char err[1024];
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", data);
    if (feed_options_parse(&o, "batch_size=8,height=40,width=40,resize_shorter=48,seed=77,workers=2", err,
                           sizeof err) != FEED_OK ||
        feed_options_parse(&o, extra, err, sizeof err) != FEED_OK)
        fail_msg("%s", err);
    feed_loader *L = NULL;
    if (feed_loader_create(&L, &o, err, sizeof err) != FEED_OK)
        fail_msg("create: %s", err);
    return L;
}

static void reference(feed_loader *L, uint64_t epoch, uint64_t id, uint8_t *out)
{
    char msg[256];
    if (tu_reference(ix.hdr, feed__loader_xform(L), 77, epoch, id, out, msg, sizeof msg) != FEED_OK)
        fail_msg("reference decode of %s: %s", feed__index_path(ix.hdr, id), msg);
}

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            fail_msg("%s: %s", #call, cudaGetErrorString(e_));                                    \
    } while (0)

/* The consumer's side: a stream of its own, made to wait for the batch on
 * the device; what it copies back is what a kernel on it would read. */
static void fetch(feed_loader *L, const feed_batch *b, void *pixels, int32_t *labels)
{
    assert_int_equal(feed_batch_wait(L, b, consumer), FEED_OK);
    CK(cudaMemcpyAsync(pixels, b->data, (size_t)b->count * b->sample_bytes, cudaMemcpyDeviceToHost,
                       consumer));
    if (labels)
        CK(cudaMemcpyAsync(labels, b->labels_device, b->count * sizeof(int32_t),
                           cudaMemcpyDeviceToHost, consumer));
    CK(cudaStreamSynchronize(consumer));
#if defined(FEED_REAL_CUDA)
    struct cudaPointerAttributes a;
    CK(cudaPointerGetAttributes(&a, b->data));
    assert_int_equal(a.type, cudaMemoryTypeDevice);
    assert_int_equal(a.device, b->device);
#endif
}

/* Every sample of each epoch once, bytes (or converted values) equal to the
 * reference, labels on host and "device" equal the index's. */
static void run(const char *opts, uint32_t epochs, uint32_t dtype)
{
    char o[256];
    snprintf(o, sizeof o, "%s,epochs=%u", opts, epochs);
    feed_loader *L = make(o);
    feed_stats st = {.struct_size = sizeof st};
    assert_int_equal(feed_loader_stats(L, &st), FEED_OK);
    assert_string_equal(st.backend, "cuda:0");
    print_message("device=%s pinned=%s\n", st.backend, st.pinned);
    uint8_t *ref = malloc(SIDE * SIDE * 3);
    uint8_t *host = malloc((size_t)BATCH * SIDE * SIDE * 3 * sizeof(float));
    int32_t dlabels[BATCH];
    float *want = malloc(SIDE * SIDE * 3 * sizeof(float));
    float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f}, sc[3], bi[3];
    feed__convert_params(mean, std, sc, bi);
    size_t esz = feed__dtype_size(dtype);
    for (uint32_t e = 0; e < epochs; e++) {
        uint8_t seen[NIMG] = {0};
        uint32_t n = 0;
        feed_batch b = {.struct_size = sizeof b};
        feed_status s;
        while ((s = feed_loader_next(L, &b, 60000)) == FEED_OK) {
            assert_int_equal(b.device, 0);
            assert_non_null(b.ready_event);
            assert_non_null(b.labels_device);
            assert_int_equal(b.dtype, dtype);
            assert_int_equal(b.sample_bytes, SIDE * SIDE * 3 * esz);
            assert_true(b.count <= BATCH);
            fetch(L, &b, host, dlabels);
            for (uint32_t i = 0; i < b.count; i++) {
                uint64_t id = b.sample_ids[i];
                assert_true(id < NIMG);
                assert_int_equal(seen[id]++, 0);
                assert_int_equal(b.labels[i], feed__index_label(ix.hdr, id));
                assert_int_equal(dlabels[i], feed__index_label(ix.hdr, id));
                reference(L, e, id, ref);
                const uint8_t *got = host + i * b.sample_bytes;
                if (dtype == FEED_DTYPE_UINT8) {
                    assert_memory_equal(got, ref, SIDE * SIDE * 3);
                } else {
                    feed__convert_sample(ref, SIDE, SIDE, dtype, b.layout, sc, bi, 0, want);
                    assert_memory_equal(got, want, SIDE * SIDE * 3 * esz);
                }
            }
            n += b.count;
            assert_int_equal(feed_batch_release(L, &b, consumer), FEED_OK);
        }
        assert_int_equal(s, FEED_END_OF_EPOCH);
        assert_int_equal(n, NIMG);
    }
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 1000), FEED_END_OF_DATA);
    assert_int_equal(feed_loader_stats(L, &st), FEED_OK);
    assert_int_equal(st.samples_delivered, (uint64_t)NIMG * epochs);
    assert_true(st.h2d_bytes > 0);
    free(ref);
    free(host);
    free(want);
    feed_loader_destroy(L);
}

static void test_uint8_hwc(void **state)
{
    run("device=cuda:0,augment=train", 2, FEED_DTYPE_UINT8);
}

static void test_float32_chw_converted_on_device(void **state)
{
    run("device=cuda,augment=val,dtype=float32", 1, FEED_DTYPE_FLOAT32);
}

static void test_bfloat16_and_auto(void **state)
{
    /* sync=1 too: next() returns once the batch is on the device. */
    run("device=auto,dtype=bfloat16,device_prefetch=2,sync=1", 1, FEED_DTYPE_BFLOAT16);
}

static void test_bounce_buffer(void **state)
{
#if defined(FEED_REAL_CUDA)
    setenv("FEED_FORCE_BOUNCE", "1", 1); /* the arena is not registered */
#else
    fake_cuda_fail_register(1); /* cudaHostRegister fails, as under a memlock limit */
#endif
    feed_loader *L = make("device=cuda:0,epochs=1");
    feed_stats st = {.struct_size = sizeof st};
    feed_loader_stats(L, &st);
    assert_string_equal(st.pinned, "bounce");
    /* and says why, in last_error (and once on stderr) */
    const char *why = feed_loader_last_error(L);
#if defined(FEED_REAL_CUDA)
    const char *want = "(FEED_FORCE_BOUNCE is set)";
#else
    const char *want = "(cudaHostRegister of ";
#endif
    if (!strstr(why, "cuda:0: the arena is not registered ") || !strstr(why, want))
        fail_msg("last_error: '%s'", why);
    feed_loader_destroy(L);
    run("device=cuda:0,dtype=float16", 1, FEED_DTYPE_FLOAT16);
#if defined(FEED_REAL_CUDA)
    unsetenv("FEED_FORCE_BOUNCE");
#else
    fake_cuda_fail_register(0);
#endif
}

/* A CUDA failure mid-run: next() says FEED_E_DEVICE and last_error says
 * which call failed (it was "" or an older message: the reason went only to
 * stderr). Fake runtime only: a real one cannot be made to fail. */
static void test_device_error_in_last_error(void **state)
{
#if defined(FEED_REAL_CUDA)
    skip();
#else
    /* Armed before create, over two epochs (about 16 copies): the seventh
     * copy fails whenever the copier gets to it. (Armed after create, over
     * one epoch of 4 batches, the copier could copy 2 batches ahead before
     * the arming: fewer than 6 copies were left, and the epoch ended.) */
    fake_cuda_fail_memcpy_after(6);
    feed_loader *L = make("device=cuda:0,epochs=2,device_prefetch=2");
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    int n = 0;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        n++;
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    fake_cuda_fail_memcpy_after(-1);
    assert_int_equal(st, FEED_E_DEVICE);
    const char *why = feed_loader_last_error(L);
    if (!strstr(why, "cuda:0: copy: "))
        fail_msg("after %d batches: last_error '%s'", n, why);
    feed_loader_destroy(L);
#endif
}

static void test_held_limit_and_seek(void **state)
{
    /* device_prefetch device buffers: one more held batch is BUSY. A seek
     * restarts the copier and gives the same batches as a straight run. */
    feed_loader *L = make("device=cuda:0,device_prefetch=2,augment=train,epochs=2");
    feed_batch a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b}, c = {.struct_size = sizeof c};
    assert_int_equal(feed_loader_next(L, &a, 60000), FEED_OK);
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_int_equal(feed_loader_next(L, &c, 0), FEED_E_BUSY);
    uint8_t *host = malloc((size_t)BATCH * SIDE * SIDE * 3);
    fetch(L, &b, host, NULL);
    uint64_t h1 = 0;
    for (uint64_t k = 0; k < b.count * b.sample_bytes; k++)
        h1 = h1 * 31 + host[k];
    feed_batch_release(L, &a, NULL);
    feed_batch_release(L, &b, NULL);
    assert_int_equal(feed_loader_next(L, &c, 60000), FEED_OK);
    assert_int_equal(c.index, 2);
    feed_batch_release(L, &c, NULL);
    assert_int_equal(feed_loader_seek(L, 0, 1), FEED_OK);
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_int_equal(b.epoch, 0);
    assert_int_equal(b.index, 1);
    fetch(L, &b, host, NULL);
    uint64_t h2 = 0;
    for (uint64_t k = 0; k < b.count * b.sample_bytes; k++)
        h2 = h2 * 31 + host[k];
    assert_int_equal(h1, h2);
    free(host);
    feed_batch_release(L, &b, consumer);
    /* Destroy with copies in flight and the ring full. */
    feed_loader_destroy(L);
#if !defined(FEED_REAL_CUDA)
    fake_cuda_counters fc;
    fake_cuda_get_counters(&fc);
    assert_int_equal(fc.live_device, 0);
    assert_int_equal(fc.live_registered, 0);
    assert_int_equal(fc.pageable_h2d, 0);
    assert_int_equal(fc.wrong_device_ops, 0);
#endif
}

/* With a GPU visible, the default device is still the host: batches a
 * plain loop (the README's, feed.h's) can read on the CPU without a stream.
 * CUDA only when asked: device=auto, cuda, cuda:N, cuda:local. */
static void test_default_is_host(void **state)
{
    feed_options o;
    feed_options_init(&o, sizeof o);
    assert_string_equal(o.device, "host");
    feed_loader *L = make("epochs=1");
    feed_stats st = {.struct_size = sizeof st};
    assert_int_equal(feed_loader_stats(L, &st), FEED_OK);
    assert_string_equal(st.backend, "host");
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_int_equal(b.device, -1);
    assert_null(b.ready_event);
    uint8_t *ref = malloc(SIDE * SIDE * 3);
    reference(L, 0, b.sample_ids[0], ref);
    assert_memory_equal(b.data, ref, SIDE * SIDE * 3); /* host memory, read here */
    free(ref);
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    feed_loader_destroy(L);
}

/* Stale, zeroed and doubled handles are refused by release and wait on the
 * CUDA backend too, and change nothing: the batch they alias stays held (its
 * own release still works) and the held count does not drop. */
static void test_stale_release(void **state)
{
    feed_loader *L = make("device=cuda:0,device_prefetch=2,epochs=1");
    feed_batch a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b}, c = {.struct_size = sizeof c};
    feed_batch zero = {.struct_size = sizeof zero};
    assert_int_equal(feed_loader_next(L, &a, 60000), FEED_OK); /* the first batch: seq 0 */
    assert_int_equal(feed_batch_release(L, &zero, consumer), FEED_E_INVALID);
    assert_int_equal(feed_batch_wait(L, &zero, consumer), FEED_E_INVALID);
    feed_batch a2 = a;
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_int_equal(feed_batch_release(L, &a, consumer), FEED_OK);
    assert_int_equal(feed_batch_release(L, &a2, consumer), FEED_E_INVALID);
    assert_int_equal(feed_batch_wait(L, &a2, consumer), FEED_E_INVALID);
    assert_int_equal(feed_loader_next(L, &c, 60000), FEED_OK); /* a's device buffer again */
    assert_int_equal(feed_batch_release(L, &a2, consumer), FEED_E_INVALID); /* not c */
    feed_batch d = {.struct_size = sizeof d};
    assert_int_equal(feed_loader_next(L, &d, 0), FEED_E_BUSY);
    assert_int_equal(feed_batch_release(L, &d, consumer), FEED_E_INVALID);
    uint8_t *host = malloc((size_t)BATCH * SIDE * SIDE * 3), *ref = malloc(SIDE * SIDE * 3);
    fetch(L, &c, host, NULL); /* c is intact */
    for (uint32_t i = 0; i < c.count; i++) {
        reference(L, 0, c.sample_ids[i], ref);
        assert_memory_equal(host + i * c.sample_bytes, ref, SIDE * SIDE * 3);
    }
    free(host);
    free(ref);
    assert_int_equal(feed_batch_release(L, &b, consumer), FEED_OK);
    assert_int_equal(feed_batch_release(L, &c, consumer), FEED_OK);
    uint64_t n = a.count + b.count + c.count;
    feed_status st;
    while ((st = feed_loader_next(L, &d, 60000)) == FEED_OK) {
        n += d.count;
        assert_int_equal(feed_batch_release(L, &d, consumer), FEED_OK);
    }
    assert_int_equal(st, FEED_END_OF_EPOCH);
    assert_int_equal(n, NIMG);
    feed_loader_destroy(L);
}

static void test_no_device(void **state)
{
#if defined(FEED_REAL_CUDA)
    skip(); /* a process cannot lose its GPU; test_cuda_count covers "none" */
#else
    fake_cuda_set_device_count(0);
    feed_options o;
    char err[512];
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", data);
    snprintf(o.device, sizeof o.device, "cuda:0");
    feed_loader *L;
    unsetenv("CUDA_VISIBLE_DEVICES");
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_E_DEVICE);
    assert_string_equal(err, "device=cuda:0: 0 CUDA devices visible: the NVIDIA driver is there but sees no GPU");
    setenv("CUDA_VISIBLE_DEVICES", "7", 1);
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_E_DEVICE);
    assert_non_null(strstr(err, "sees no GPU (CUDA_VISIBLE_DEVICES=7)"));
    unsetenv("CUDA_VISIBLE_DEVICES");
    fake_cuda_set_device_count(1);
    snprintf(o.device, sizeof o.device, "cuda:2");
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_E_DEVICE);
    assert_string_equal(err, "device=cuda:2: 1 CUDA device visible");
    fake_cuda_set_device_count(0);
    snprintf(o.device, sizeof o.device, "auto"); /* falls back to the host */
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_OK);
    feed_stats st = {.struct_size = sizeof st};
    feed_loader_stats(L, &st);
    assert_string_equal(st.backend, "host");
    feed_loader_destroy(L);
    fake_cuda_set_device_count(1);
#endif
}

/* One epoch of a loader, every batch kept on the host: pixels (fetched from
 * the device for cuda), ids, labels, soft labels (and their device copy). */
typedef struct epoch_copy {
    uint32_t batches, count[16], classes, n; /* n: samples (NIMG x repeats) */
    size_t sample_bytes;
    uint8_t *pix;
    uint64_t ids[NIMG * 2];
    int32_t labels[NIMG * 2];
    float soft[NIMG * 2 * 8], soft_dev[NIMG * 2 * 8];
    uint32_t nlabels[NIMG * 2]; /* multi_label: each sample's labels, one after another */
    int32_t lists[NIMG * 2 * 3];
    uint32_t listed;
    float tg[NIMG * 2 * 2], tg_dev[NIMG * 2 * 2]; /* the targets rows, host and device copies */
} epoch_copy;

static void take_epoch(const char *opts, epoch_copy *c)
{
    feed_loader *L = make(opts);
    feed_batch b = {.struct_size = sizeof b};
    feed_status s;
    uint32_t n = 0;
    memset(c, 0, sizeof *c);
    c->pix = calloc(NIMG * 2, SIDE * SIDE * 3 * 4);
    while ((s = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        assert_true(c->batches < 16);
        c->count[c->batches++] = b.count;
        c->sample_bytes = b.sample_bytes;
        if (b.device >= 0)
            fetch(L, &b, c->pix + n * b.sample_bytes, NULL);
        else
            memcpy(c->pix + n * b.sample_bytes, b.data, (size_t)b.count * b.sample_bytes);
        memcpy(c->ids + n, b.sample_ids, b.count * sizeof *b.sample_ids);
        memcpy(c->labels + n, b.labels, b.count * sizeof *b.labels);
        c->classes = b.num_classes;
        assert_true(!b.label_offsets == !b.label_list);
        for (uint32_t i = 0; b.label_offsets && i < b.count; i++) {
            uint32_t k = b.label_offsets[i + 1] - b.label_offsets[i];
            assert_true(k >= 1 && k <= 2 && c->listed + k <= NIMG * 2 * 3);
            c->nlabels[n + i] = k;
            memcpy(c->lists + c->listed, b.label_list + b.label_offsets[i], k * sizeof(int32_t));
            c->listed += k;
        }
        if (b.soft_labels) {
            assert_true(b.num_classes <= 8);
            memcpy(c->soft + n * b.num_classes, b.soft_labels, b.count * b.num_classes * sizeof(float));
            if (b.device >= 0) { /* the device copy, read on the consumer's stream after wait */
                assert_non_null(b.soft_labels_device);
                assert_int_equal(feed_batch_wait(L, &b, consumer), FEED_OK);
                CK(cudaMemcpyAsync(c->soft_dev + n * b.num_classes, b.soft_labels_device,
                                   b.count * b.num_classes * sizeof(float), cudaMemcpyDeviceToHost, consumer));
                CK(cudaStreamSynchronize(consumer));
            }
        }
        assert_non_null(b.targets);
        assert_int_equal(b.target_dim, 2);
        assert_int_equal(b.target_dtype, FEED_TARGET_FLOAT32);
        memcpy(c->tg + n * 2, b.targets, b.count * 2 * sizeof(float));
        if (b.device >= 0) {
            assert_non_null(b.targets_device);
            assert_int_equal(feed_batch_wait(L, &b, consumer), FEED_OK);
            CK(cudaMemcpyAsync(c->tg_dev + n * 2, b.targets_device, b.count * 2 * sizeof(float),
                               cudaMemcpyDeviceToHost, consumer));
            CK(cudaStreamSynchronize(consumer));
        }
        n += b.count;
        assert_int_equal(feed_batch_release(L, &b, b.device >= 0 ? consumer : NULL), FEED_OK);
    }
    assert_int_equal(s, FEED_END_OF_EPOCH);
    assert_int_equal(n, feed_loader_samples_per_epoch(L));
    assert_true(n <= NIMG * 2);
    c->n = n;
    feed_loader_destroy(L);
}

/* The recipe on the GPU: RandomErasing (a value, per-element draws) and
 * MixUp/CutMix (batch, pair and elem modes, an odd batch, two repeats of
 * every sample an epoch) run in the CUDA
 * conversion kernel, soft labels are copied to the device; every batch is
 * bitwise the host backend's (workers erase, the parent mixes the host
 * slot), in every dtype and layout. The fake runtime computes the kernel's
 * elements with the kernel's own functions (pixels/post.h); on a GPU the
 * kernel itself runs. Each recipe also changes the pixels (against the same
 * loader without it), so the comparison is not of two untouched batches. */
static void test_recipe_same_as_host(void **state)
{
    const char *recipes[] = {
        "augment=train,erase_p=1,erase_value=0.5:-1:2,mixup_alpha=0.4,cutmix_alpha=1,mix_mode=elem,"
        "label_smoothing=0.1,dtype=float32,layout=chw",
        "augment=train,erase_p=0.7,erase_random=1,cutmix_alpha=1,mix_mode=pair,dtype=bfloat16,layout=hwc",
        "augment=train,erase_p=1,erase_random=1,mixup_alpha=0.3,dtype=float16,layout=chw,batch_size=7",
        "augment=train,erase_p=0.5,erase_value=7:100:255,mixup_alpha=0.5,cutmix_alpha=0.8,mix_mode=elem,"
        "dtype=uint8,layout=hwc",
        "augment=train,erase_p=1,erase_random=1,dtype=uint8,layout=chw",
        "augment=train,label_smoothing=0.2,dtype=float32,layout=chw",
        "augment=train,multi_label=1,erase_p=0.5,cutmix_alpha=1,mixup_alpha=1,mix_mode=pair,dtype=float32,"
        "layout=hwc",
        "augment=train,erase_p=1,erase_random=1,mixup_alpha=0.5,mix_mode=elem,dtype=float32,layout=chw,repeats=2",
    };
    epoch_copy *h = malloc(sizeof *h), *d = malloc(sizeof *d), *plain = malloc(sizeof *plain);
    for (size_t r = 0; r < sizeof recipes / sizeof *recipes; r++) {
        char o[9000], src[8600];
        print_message("%s\n", recipes[r]);
        snprintf(src, sizeof src, ",targets=%s%s%s", targets, strstr(recipes[r], "multi_label") ? ",source=" : "",
                 strstr(recipes[r], "multi_label") ? multi : "");
        snprintf(o, sizeof o, "%s,device=host%s", recipes[r], src);
        take_epoch(o, h);
        snprintf(o, sizeof o, "%s,device=cuda:0%s", recipes[r], src);
        take_epoch(o, d);
        assert_int_equal(h->batches, d->batches);
        assert_memory_equal(h->count, d->count, sizeof h->count);
        assert_int_equal(h->sample_bytes, d->sample_bytes);
        assert_int_equal(h->n, d->n);
        assert_int_equal(h->n, strstr(recipes[r], "repeats=2") ? NIMG * 2 : NIMG);
        assert_memory_equal(h->ids, d->ids, sizeof h->ids);
        assert_memory_equal(h->labels, d->labels, sizeof h->labels);
        assert_memory_equal(h->pix, d->pix, h->n * h->sample_bytes);
        assert_int_equal(h->classes, d->classes);
        assert_int_equal(h->classes, strstr(recipes[r], "alpha") || strstr(recipes[r], "smoothing") ||
                                             strstr(recipes[r], "multi_label") ? 3 : 0);
        assert_memory_equal(h->soft, d->soft, sizeof h->soft);
        assert_int_equal(h->listed, d->listed);
        assert_int_equal(h->listed, strstr(recipes[r], "multi_label") ? NIMG + NIMG * 2 / 3 : 0);
        assert_memory_equal(h->nlabels, d->nlabels, sizeof h->nlabels);
        assert_memory_equal(h->lists, d->lists, sizeof h->lists);
        assert_memory_equal(h->tg, d->tg, sizeof h->tg);
        assert_memory_equal(h->tg, d->tg_dev, sizeof h->tg);
        for (uint32_t i = 0; i < h->n; i++) /* row i of the file for sample i */
            assert_true(h->tg[i * 2 + 1] == (float)(h->ids[i] * 2 + 1) * 0.25f - 3.0f);
        if (h->classes)
            assert_memory_equal(h->soft, d->soft_dev, sizeof h->soft);
        /* the recipe did something: the same loader without it differs */
        char base[512];
        snprintf(base, sizeof base, "%s", recipes[r]);
        char *cut = strstr(base, ",dtype=");
        snprintf(o, sizeof o, "augment=train%s,device=host%s%s", cut, src, /* dtype, layout, batch_size kept */
                 strstr(src, "source=") ? ",multi_label=1" : "");
        take_epoch(o, plain);
        assert_memory_equal(plain->ids, h->ids, sizeof h->ids);
        if (!strstr(recipes[r], "erase") && !strstr(recipes[r], "alpha"))
            assert_memory_equal(plain->pix, h->pix, h->n * h->sample_bytes);
        else
            assert_memory_not_equal(plain->pix, h->pix, h->n * h->sample_bytes);
        free(h->pix), free(d->pix), free(plain->pix);
    }
    free(h), free(d), free(plain);
}

/* Sample k's .json member in the shard test_meta_same_as_host writes. */
static size_t meta_json(uint32_t k, char *out, size_t cap)
{
    int n = snprintf(out, cap, "{\"k\": %u, \"pad\": \"", k);
    for (uint32_t i = 0; i < (k * 53) % 700; i++)
        out[n++] = (char)('a' + i % 26);
    return (size_t)(n + snprintf(out + n, cap - (size_t)n, "\"}"));
}

/* Checks batch b's members against the shard's, by key; appends them to
 * log (length, bytes) for the backends' comparison. */
static void meta_check(feed_loader *L, const feed_batch *b, uint8_t *log, size_t *at)
{
    assert_non_null(b->meta);
    assert_int_equal(b->meta_members, 1);
    for (uint32_t i = 0; i < b->count; i++) {
        char path[8700], want[1024];
        int32_t label;
        assert_int_equal(feed_loader_sample_info(L, b->sample_ids[i], path, sizeof path, &label), FEED_OK);
        size_t n = meta_json((uint32_t)atoi(strrchr(path, ':') + 2), want, sizeof want);
        assert_int_equal(b->meta_lengths[i], n);
        assert_memory_equal(b->meta + b->meta_offsets[i], want, n);
        memcpy(log + *at, &n, sizeof n);
        memcpy(log + *at + sizeof n, want, n);
        *at += sizeof n + n;
    }
}

/* Metadata members with a CUDA device: each batch's bytes (host memory, a
 * copy: the ring slot goes back to the workers once the pixels are on the
 * device) are the shard's for each delivered sample, stay so while the
 * caller holds the batch and the copier fills the next ones, and are the
 * host backend's, batch by batch. */
static void test_meta_same_as_host(void **state)
{
    char shard[4200];
    snprintf(shard, sizeof shard, "%s/meta-000000.tar", data);
    FILE *f = fopen(shard, "wb");
    uint8_t pad[512] = {0};
    for (uint32_t i = 0; i < NIMG; i++) {
        char src[8700], name[64], text[1024];
        size_t n;
        snprintf(src, sizeof src, "%s/%s", data, feed__index_path(ix.hdr, i));
        uint8_t *img = tu_read_file(src, &n);
        const void *body[3] = {img, text, NULL};
        size_t len[3] = {n, 0, 0};
        char cls[16];
        snprintf(cls, sizeof cls, "%d", feed__index_label(ix.hdr, i));
        len[1] = meta_json(i, text, sizeof text);
        body[2] = cls, len[2] = strlen(cls);
        const char *ext[3] = {"jpg", "json", "cls"};
        for (int m = 0; m < 3; m++) {
            snprintf(name, sizeof name, "s%03u.%s", i, ext[m]);
            assert_int_equal(tu_tar_member(f, name, body[m], len[m]), 0);
        }
        free(img);
    }
    fwrite(pad, 1, 512, f);
    fwrite(pad, 1, 512, f);
    fclose(f);
    size_t cap = NIMG * 1024, at[2] = {0, 0};
    uint8_t *log[2] = {malloc(cap), malloc(cap)};
    for (int dev = 0; dev < 2; dev++) {
        char o[5000];
        snprintf(o, sizeof o, "source=%s,meta_members=json,meta_max_bytes=1024,device=%s,device_prefetch=3,"
                 "prefetch=3,augment=train", shard, dev ? "cuda:0" : "host");
        feed_loader *L = make(o);
        feed_batch b[2] = {{.struct_size = sizeof b[0]}, {.struct_size = sizeof b[1]}};
        uint32_t n = 0;
        feed_status s = feed_loader_next(L, &b[0], 60000);
        while (s == FEED_OK) {
            /* the next batch fetched (and the copier refilling) before this one is read */
            feed_status s2 = feed_loader_next(L, &b[1], 60000);
            meta_check(L, &b[0], log[dev], &at[dev]);
            n += b[0].count;
            assert_int_equal(feed_batch_release(L, &b[0], dev ? consumer : NULL), FEED_OK);
            b[0] = b[1], s = s2;
        }
        assert_int_equal(s, FEED_END_OF_EPOCH);
        assert_int_equal(n, NIMG);
        feed_loader_destroy(L);
    }
    assert_int_equal(at[0], at[1]);
    assert_memory_equal(log[0], log[1], at[0]);
    free(log[0]), free(log[1]);
}

static feed_status make_local(const char *local, char *backend, char *err, size_t errlen)
{
    feed_options o;
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", data);
    snprintf(o.device, sizeof o.device, "cuda:local");
    o.workers = 1;
    if (local) {
        setenv("RANK", local, 1);
        setenv("WORLD_SIZE", "8", 1);
        setenv("LOCAL_RANK", local, 1);
    }
    feed_loader *L = NULL;
    feed_status st = feed_loader_create(&L, &o, err, errlen);
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
    unsetenv("LOCAL_RANK");
    if (st == FEED_OK) {
        feed_stats s = {.struct_size = sizeof s};
        feed_loader_stats(L, &s);
        snprintf(backend, 16, "%s", s.backend);
        feed_loader_destroy(L);
    }
    return st;
}

/* device=cuda:local: the launcher's local rank picks the GPU; with a single
 * visible GPU (the launcher already chose it) that one. */
static void test_local_rank_device(void **state)
{
    char backend[16] = "", err[512];
    assert_int_equal(make_local(NULL, backend, err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "LOCAL_RANK"));
    assert_int_equal(make_local("0", backend, err, sizeof err), FEED_OK);
    assert_string_equal(backend, "cuda:0");
#if !defined(FEED_REAL_CUDA)
    fake_cuda_set_device_count(4);
    assert_int_equal(make_local("3", backend, err, sizeof err), FEED_OK);
    assert_string_equal(backend, "cuda:3");
    assert_int_equal(make_local("5", backend, err, sizeof err), FEED_E_DEVICE);
    assert_string_equal(err, "device=cuda:local: 4 CUDA devices visible, local rank 5 (torchrun)");
    fake_cuda_set_device_count(1);
    assert_int_equal(make_local("5", backend, err, sizeof err), FEED_OK);
    assert_string_equal(backend, "cuda:0");
#endif
}

#if !defined(FEED_REAL_CUDA)
typedef struct rank_run {
    int k;
    uint64_t batches;
    int has_ctx_after;
    char err[512];
} rank_run;

/* A rank's training thread, which never chose a device: a loader on cuda:k,
 * one epoch waited for and released on the legacy stream, destroyed. */
static void *rank_main(void *arg)
{
    rank_run *r = arg;
    char o[128];
    snprintf(o, sizeof o, "device=cuda:%d,epochs=1,device_prefetch=2", r->k);
    feed_loader *L = make(o);
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        r->batches++;
        if (b.device != r->k || feed_batch_wait(L, &b, NULL) != FEED_OK || feed_batch_release(L, &b, NULL) != FEED_OK)
            snprintf(r->err, sizeof r->err, "batch on device %d: %s", (int)b.device, feed_loader_last_error(L));
    }
    if (st != FEED_END_OF_EPOCH && st != FEED_END_OF_DATA)
        snprintf(r->err, sizeof r->err, "next: %s: %s", feed_status_name(st), feed_loader_last_error(L));
    feed_loader_destroy(L);
    r->has_ctx_after = fake_cuda_thread_has_context();
    return NULL;
}
#endif

/* Ranks on cuda:k of 3 devices, one after the other: each makes a context on
 * device k only, from any of its threads (the training thread, the copier,
 * open's and close's), and leaves the training thread without one. */
static void test_ranks_touch_only_their_device(void **state)
{
#if defined(FEED_REAL_CUDA)
    skip();
#else
    for (int k = 0; k < 3; k++) {
        fake_cuda_reset();
        fake_cuda_set_device_count(3);
        rank_run r = {.k = k};
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, rank_main, &r), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
        if (r.err[0])
            fail_msg("cuda:%d: %s", k, r.err);
        assert_true(r.batches >= NIMG / BATCH);
        if (fake_cuda_context_mask() != 1u << k)
            fail_msg("cuda:%d: contexts made on devices 0x%x", k, fake_cuda_context_mask());
        assert_int_equal(r.has_ctx_after, 0);
    }
    fake_cuda_set_device_count(1);
#endif
}

int main(void)
{
#if defined(FEED_REAL_CUDA)
    if (feed__device_cuda_count() == 0) {
        printf("test_loader_cuda_real: no CUDA device here: skipped\n");
        return 77;
    }
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uint8_hwc),
        cmocka_unit_test(test_float32_chw_converted_on_device),
        cmocka_unit_test(test_bfloat16_and_auto),
        cmocka_unit_test(test_bounce_buffer),
        cmocka_unit_test(test_held_limit_and_seek),
        cmocka_unit_test(test_device_error_in_last_error),
        cmocka_unit_test(test_default_is_host),
        cmocka_unit_test(test_stale_release),
        cmocka_unit_test(test_no_device),
        cmocka_unit_test(test_local_rank_device),
        cmocka_unit_test(test_recipe_same_as_host),
        cmocka_unit_test(test_meta_same_as_host),
        cmocka_unit_test(test_ranks_touch_only_their_device),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

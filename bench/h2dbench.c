/*
 * h2dbench.c - how close does the CUDA backend get to the PCIe link?
 *
 *   h2dbench [--batch 256] [--height 224] [--width 224] [--batches 200]
 *            [--depth 3] [--slots 4] [--dtype uint8|float32|float16|bfloat16]
 *            [--layout hwc|chw] [--device N] [--bounce] [--json FILE]
 *
 * 1. plain: back-to-back cudaMemcpyAsync of one batch of uint8 pixels from a
 *    cudaMallocHost buffer, timed with events: the link's H2D bandwidth.
 * 2. backend: the CUDA backend (src/device/cuda/device_cuda.c) fed by a raw-tensor ring:
 *    slots in a shared mapping, filled once and always READY (no decode, no
 *    workers), consumed by a loop that only waits and releases on a stream.
 *    Throughput = pixel bytes delivered / wall time, and the copy-only rate
 *    from the backend's own events (h2d_bytes / copy_ns).
 * Prints both and backend / plain (target: >= 0.8). --bounce forces the
 * pinned bounce-buffer path (FEED_FORCE_BOUNCE=1).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cuda_runtime_api.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "device/device.h"
#include "pixels/convert.h"

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("h2dbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

#define CK(call)                                                                             \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess)                                                               \
            die("%s: %s", #call, cudaGetErrorString(e_));                                    \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the raw-tensor ring: every slot always READY ------------------------------- */

typedef struct rawring {
    uint8_t *arena;
    size_t arena_bytes, slot_bytes;
    uint32_t slots, batch;
    uint64_t sample_bytes;
    int32_t *labels;
    uint64_t *ids;
    uint8_t *flags;
} rawring;

static feed_status raw_wait(void *ring, uint64_t seq, int64_t timeout_ms, feed__slot_view *v)
{
    rawring *r = ring;
    *v = (feed__slot_view){
        .seq = seq,
        .epoch = 0,
        .index = seq,
        .count = r->batch,
        .pixels = r->arena + (seq % r->slots) * r->slot_bytes,
        .labels = r->labels,
        .sample_ids = r->ids,
        .flags = r->flags,
    };
    return FEED_OK;
}

static void raw_release(void *ring, uint64_t seq)
{
}

typedef struct opts {
    uint32_t batch, height, width, batches, depth, slots, dtype, layout, bounce;
    int device;
    const char *json;
} opts;

static uint32_t parse_u(const char *opt, const char *s, uint32_t lo, uint32_t hi)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        die("--%s %s: expected %u..%u", opt, s, lo, hi);
    return (uint32_t)v;
}

static void usage(void)
{
    puts("usage: h2dbench [--batch 256] [--height 224] [--width 224] [--batches 200] [--depth 3]\n"
         "                [--slots 4] [--dtype uint8|float32|float16|bfloat16] [--layout hwc|chw]\n"
         "                [--device N] [--bounce] [--json FILE]");
}

int main(int argc, char **argv)
{
    opts o = {.batch = 256, .height = 224, .width = 224, .batches = 200, .depth = 3, .slots = 4,
              .dtype = FEED_DTYPE_FLOAT32, .layout = FEED_LAYOUT_CHW, .device = 0};
    const struct option lo[] = {
        {"batch", 1, 0, 'b'},   {"height", 1, 0, 'H'}, {"width", 1, 0, 'W'},  {"batches", 1, 0, 'n'},
        {"depth", 1, 0, 'd'},   {"slots", 1, 0, 's'},  {"dtype", 1, 0, 't'},  {"layout", 1, 0, 'l'},
        {"device", 1, 0, 'D'},  {"bounce", 0, 0, 'B'}, {"json", 1, 0, 'j'},   {"help", 0, 0, 'h'},
        {0, 0, 0, 0},
    };
    int ch;
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'b': o.batch = parse_u("batch", optarg, 1, 65536); break;
        case 'H': o.height = parse_u("height", optarg, 1, 8192); break;
        case 'W': o.width = parse_u("width", optarg, 1, 8192); break;
        case 'n': o.batches = parse_u("batches", optarg, 4, 1000000); break;
        case 'd': o.depth = parse_u("depth", optarg, 1, 64); break;
        case 's': o.slots = parse_u("slots", optarg, 2, 64); break;
        case 'D': o.device = (int)parse_u("device", optarg, 0, 1024); break;
        case 'B': o.bounce = 1; break;
        case 'j': o.json = optarg; break;
        case 't': {
            const char *names[] = {"uint8", "float32", "float16", "bfloat16"};
            uint32_t i = 0;
            while (i < 4 && strcmp(optarg, names[i]))
                i++;
            if (i == 4)
                die("--dtype %s: expected uint8, float32, float16 or bfloat16", optarg);
            o.dtype = i;
            break;
        }
        case 'l':
            if (!strcmp(optarg, "hwc"))
                o.layout = FEED_LAYOUT_HWC;
            else if (!strcmp(optarg, "chw"))
                o.layout = FEED_LAYOUT_CHW;
            else
                die("--layout %s: expected hwc or chw", optarg);
            break;
        case 'h': usage(); return 0;
        default: usage(); return 2;
        }
    }
    int ndev = feed__device_cuda_count();
    if (ndev <= 0)
        die("no CUDA device");
    if (o.device >= ndev)
        die("--device %d: there are %d devices", o.device, ndev);
    if (o.bounce)
        setenv("FEED_FORCE_BOUNCE", "1", 1);

    const uint64_t sample = (uint64_t)o.height * o.width * 3;
    const size_t bytes = (size_t)o.batch * sample;
    const uint32_t warm = o.batches / 10 > 2 ? o.batches / 10 : 2;
    struct cudaDeviceProp prop;
    char gpu[256] = "?";
    CK(cudaSetDevice(o.device));
    if (cudaGetDeviceProperties(&prop, o.device) == cudaSuccess)
        snprintf(gpu, sizeof gpu, "%s", prop.name);

    /* 1. plain pinned memcpy */
    void *host, *dev;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    CK(cudaMallocHost(&host, bytes));
    CK(cudaMalloc(&dev, bytes));
    memset(host, 7, bytes);
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (uint32_t i = 0; i < warm; i++)
        CK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
    CK(cudaEventRecord(e0, s));
    for (uint32_t i = 0; i < o.batches; i++)
        CK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    const double plain_gbs = (double)bytes * o.batches / (ms * 1e-3) / 1e9;
    CK(cudaFree(dev));
    CK(cudaFreeHost(host));

    /* 2. the backend on a raw-tensor ring */
    rawring r = {.slots = o.slots, .batch = o.batch, .sample_bytes = sample};
    r.slot_bytes = (bytes + 4095) & ~(size_t)4095;
    r.arena_bytes = r.slot_bytes * o.slots;
    r.arena = mmap(NULL, r.arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (r.arena == MAP_FAILED)
        die("mmap %zu bytes: %s", r.arena_bytes, strerror(errno));
    for (size_t i = 0; i < r.arena_bytes; i++)
        r.arena[i] = (uint8_t)(i * 131 + (i >> 12));
    r.labels = calloc(o.batch, sizeof *r.labels);
    r.ids = calloc(o.batch, sizeof *r.ids);
    r.flags = calloc(o.batch, 1);
    if (!r.labels || !r.ids || !r.flags)
        die("out of memory");
    const feed__device_ops *ops = feed__device_cuda();
    feed__device_config cfg = {
        .batch_size = o.batch, .height = o.height, .width = o.width, .channels = 3,
        .host_dtype = FEED_DTYPE_UINT8, .host_layout = FEED_LAYOUT_HWC, .host_sample_bytes = sample,
        .dtype = o.dtype, .layout = o.layout,
        .mean = {0.485f, 0.456f, 0.406f}, .std = {0.229f, 0.224f, 0.225f},
        .depth = o.depth, .ordinal = o.device, .sync = 0,
        .arena = r.arena, .arena_bytes = r.arena_bytes,
        .ring = &r, .wait_ready = raw_wait, .release_slot = raw_release,
    };
    void *d = NULL;
    char err[512];
    double t_open = now_s();
    if (ops->open(&cfg, &d, err, sizeof err) != FEED_OK)
        die("open: %s", err);
    t_open = now_s() - t_open;
    if (ops->start(d, 0) != FEED_OK)
        die("start failed");
    double t0 = 0;
    feed_batch b = {.struct_size = sizeof b};
    for (uint64_t seq = 0; seq < (uint64_t)warm + o.batches; seq++) {
        feed_status st = ops->next(d, seq, 60000, &b);
        if (st != FEED_OK)
            die("next(%" PRIu64 "): %s", seq, feed_strerror(st));
        if (seq == warm) {
            CK(cudaStreamSynchronize(s)); /* the batch before is on the device */
            t0 = now_s();
        }
        if (ops->wait(d, &b, s) != FEED_OK || ops->release(d, &b, s) != FEED_OK)
            die("wait/release failed");
    }
    CK(cudaStreamSynchronize(s));
    const double wall = now_s() - t0;
    feed_stats fs = {.struct_size = sizeof fs};
    ops->stats(d, &fs);
    ops->stop(d);
    ops->close(d);
    /* The first measured batch was published before t0: count batches - 1. */
    const double backend_gbs = (double)bytes * (o.batches - 1) / wall / 1e9;
    const double copy_gbs = fs.copy_ns ? (double)fs.h2d_bytes / (double)fs.copy_ns : 0;
    const double ratio = plain_gbs > 0 ? backend_gbs / plain_gbs : 0;
    const char *dn[] = {"uint8", "float32", "float16", "bfloat16"};

    printf("h2dbench  gpu %s (cuda:%d)  batch %u x %ux%ux3 uint8 = %.1f MiB  -> %s %s\n", gpu,
           o.device, o.batch, o.height, o.width, bytes / 1048576.0, dn[o.dtype],
           o.layout == FEED_LAYOUT_CHW ? "chw" : "hwc");
    printf("  plain pinned cudaMemcpyAsync   %8.2f GB/s   (%u copies)\n", plain_gbs, o.batches);
    printf("  backend (%-10s) delivered %8.2f GB/s   (%u batches, %.0f images/s; depth %u, %u slots)\n",
           fs.pinned, backend_gbs, o.batches, o.batch * (o.batches - 1) / wall, o.depth, o.slots);
    printf("  backend copies alone (events)  %8.2f GB/s\n", copy_gbs);
    printf("  ratio backend / plain          %8.3f   (target >= 0.80: %s)\n", ratio,
           ratio >= 0.8 ? "met" : "NOT met");
    printf("  open (register %zu MiB arena)  %8.1f ms\n", r.arena_bytes >> 20, t_open * 1e3);
    if (o.json) {
        FILE *f = fopen(o.json, "w");
        if (!f)
            die("--json %s: %s", o.json, strerror(errno));
        fprintf(f,
                "{\n  \"gpu\": \"%s\",\n  \"device\": %d,\n  \"batch\": %u,\n  \"height\": %u,\n"
                "  \"width\": %u,\n  \"batch_bytes\": %zu,\n  \"dtype\": \"%s\",\n  \"layout\": \"%s\",\n"
                "  \"depth\": %u,\n  \"slots\": %u,\n  \"batches\": %u,\n  \"pinned\": \"%s\",\n"
                "  \"plain_gbps\": %.4f,\n  \"backend_gbps\": %.4f,\n  \"backend_copy_gbps\": %.4f,\n"
                "  \"ratio\": %.4f,\n  \"images_per_sec\": %.2f,\n  \"open_ms\": %.3f\n}\n",
                gpu, o.device, o.batch, o.height, o.width, bytes, dn[o.dtype],
                o.layout == FEED_LAYOUT_CHW ? "chw" : "hwc", o.depth, o.slots, o.batches, fs.pinned,
                plain_gbs, backend_gbs, copy_gbs, ratio, o.batch * (o.batches - 1) / wall, t_open * 1e3);
        fclose(f);
    }
    munmap(r.arena, r.arena_bytes);
    free(r.labels);
    free(r.ids);
    free(r.flags);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(s);
    return 0;
}

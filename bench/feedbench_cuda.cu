/*
 * feedbench_cuda.cu - the GPU half of feedbench (see feedbench_gpu.h): a
 * spinning "model step" kernel and CUDA-event timing of every step.
 *
 * Timing: each measured step is bracketed by events ev0/ev1 recorded on the
 * step stream. Pairs wait in a small ring until they have completed and are
 * then turned into (start, duration) relative to the base event, so a long
 * run keeps a bounded number of events alive.
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feedbench_gpu.h"

#define FB_PENDING 256 /* event pairs in flight */

struct fb_gpu {
    int ordinal;
    cudaStream_t stream;
    cudaEvent_t base;
    int base_recorded;
    cudaEvent_t ev0[FB_PENDING], ev1[FB_PENDING];
    uint64_t head, tail; /* pending pairs are [tail, head) mod FB_PENDING */
    double *start_ms, *dur_ms;
    uint64_t nspans, capspans;
    void **allocs;
    size_t nallocs;
    unsigned long long *sink;
};

/* Spins until ns nanoseconds of the GPU's global timer have passed. */
__device__ static inline unsigned long long fb_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void fb_spin_kernel(unsigned long long ns, unsigned long long *sink)
{
    unsigned long long t0 = fb_globaltimer(), n = 0;
    while (fb_globaltimer() - t0 < ns)
        n++;
    if (threadIdx.x == 0 && blockIdx.x == 0)
        *sink = n; /* keeps the loop from being optimised away */
}

static int fail(cudaError_t e, const char *what, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "CUDA: %s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return -1;
}

#define CK(call, what)                                      \
    do {                                                    \
        cudaError_t e_ = (call);                            \
        if (e_ != cudaSuccess)                              \
            return fail(e_, what, err, errlen);             \
    } while (0)

static int push_span(fb_gpu *g, double s, double d)
{
    if (g->nspans == g->capspans) {
        uint64_t cap = g->capspans ? g->capspans * 2 : 1024;
        double *a = (double *)realloc(g->start_ms, cap * sizeof *a);
        if (!a)
            return -1;
        g->start_ms = a;
        double *b = (double *)realloc(g->dur_ms, cap * sizeof *b);
        if (!b)
            return -1;
        g->dur_ms = b;
        g->capspans = cap;
    }
    g->start_ms[g->nspans] = s;
    g->dur_ms[g->nspans] = d;
    g->nspans++;
    return 0;
}

/* Turns the oldest pending pair into a span. block: wait for it; else only
 * if it has completed. Returns 1 if one was harvested, 0 if not, -1 on error. */
static int harvest(fb_gpu *g, int block, char *err, size_t errlen)
{
    if (g->tail == g->head)
        return 0;
    uint32_t i = (uint32_t)(g->tail % FB_PENDING);
    if (block) {
        CK(cudaEventSynchronize(g->ev1[i]), "cudaEventSynchronize");
    } else {
        cudaError_t e = cudaEventQuery(g->ev1[i]);
        if (e == cudaErrorNotReady)
            return 0;
        if (e != cudaSuccess)
            return fail(e, "cudaEventQuery", err, errlen);
    }
    float s = 0, t = 0;
    CK(cudaEventElapsedTime(&s, g->base, g->ev0[i]), "cudaEventElapsedTime");
    CK(cudaEventElapsedTime(&t, g->base, g->ev1[i]), "cudaEventElapsedTime");
    g->tail++;
    if (push_span(g, s, t - s) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 1;
}

extern "C" int fb_gpu_open(fb_gpu **out, int ordinal, char *name, size_t namelen, char *err, size_t errlen)
{
    *out = NULL;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(err, errlen, "no CUDA device (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return -1;
    }
    if (ordinal < 0 || ordinal >= count) {
        snprintf(err, errlen, "CUDA device %d requested, %d visible", ordinal, count);
        return -1;
    }
    CK(cudaSetDevice(ordinal), "cudaSetDevice");
    fb_gpu *g = (fb_gpu *)calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    g->ordinal = ordinal;
    if (name && namelen) {
        cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, ordinal) == cudaSuccess)
            snprintf(name, namelen, "%s", p.name);
        else
            snprintf(name, namelen, "cuda:%d", ordinal);
    }
    cudaError_t st = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
    if (st == cudaSuccess)
        st = cudaEventCreate(&g->base);
    for (int i = 0; st == cudaSuccess && i < FB_PENDING; i++) {
        st = cudaEventCreate(&g->ev0[i]);
        if (st == cudaSuccess)
            st = cudaEventCreate(&g->ev1[i]);
    }
    if (st == cudaSuccess)
        st = cudaMalloc((void **)&g->sink, sizeof *g->sink);
    if (st != cudaSuccess) {
        fail(st, "creating the step stream and events", err, errlen);
        fb_gpu_close(g);
        return -1;
    }
    *out = g;
    return 0;
}

extern "C" void fb_gpu_close(fb_gpu *g)
{
    if (!g)
        return;
    if (g->stream)
        cudaStreamSynchronize(g->stream);
    for (int i = 0; i < FB_PENDING; i++) {
        if (g->ev0[i])
            cudaEventDestroy(g->ev0[i]);
        if (g->ev1[i])
            cudaEventDestroy(g->ev1[i]);
    }
    if (g->base)
        cudaEventDestroy(g->base);
    for (size_t i = 0; i < g->nallocs; i++)
        cudaFree(g->allocs[i]);
    free(g->allocs);
    if (g->sink)
        cudaFree(g->sink);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    free(g->start_ms);
    free(g->dur_ms);
    free(g);
}

extern "C" void *fb_gpu_stream(fb_gpu *g)
{
    return g ? (void *)g->stream : NULL;
}

extern "C" int fb_gpu_mark(fb_gpu *g, uint64_t *host_ns, char *err, size_t errlen)
{
    CK(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
    CK(cudaEventRecord(g->base, g->stream), "cudaEventRecord");
    CK(cudaEventSynchronize(g->base), "cudaEventSynchronize");
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (host_ns)
        *host_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    g->base_recorded = 1;
    return 0;
}

extern "C" int fb_gpu_step(fb_gpu *g, double ms, int measured, char *err, size_t errlen)
{
    measured = measured && g->base_recorded;
    uint32_t i = 0;
    if (measured) {
        int h;
        while ((h = harvest(g, 0, err, errlen)) == 1) {
        }
        if (h < 0)
            return -1;
        if (g->head - g->tail == FB_PENDING && harvest(g, 1, err, errlen) < 0)
            return -1;
        i = (uint32_t)(g->head % FB_PENDING);
        CK(cudaEventRecord(g->ev0[i], g->stream), "cudaEventRecord");
    }
    unsigned long long ns = ms > 0 ? (unsigned long long)(ms * 1e6 + 0.5) : 0;
    fb_spin_kernel<<<1, 32, 0, g->stream>>>(ns, g->sink);
    CK(cudaGetLastError(), "launching the step kernel");
    if (measured) {
        CK(cudaEventRecord(g->ev1[i], g->stream), "cudaEventRecord");
        g->head++;
    }
    return 0;
}

extern "C" int fb_gpu_alloc(fb_gpu *g, size_t bytes, void **dev, char *err, size_t errlen)
{
    void **a = (void **)realloc(g->allocs, (g->nallocs + 1) * sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    g->allocs = a;
    CK(cudaMalloc(dev, bytes), "cudaMalloc");
    g->allocs[g->nallocs++] = *dev;
    return 0;
}

extern "C" int fb_gpu_copy_h2d(fb_gpu *g, void *dev, const void *host, size_t bytes, char *err,
                               size_t errlen)
{
    CK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, g->stream), "cudaMemcpyAsync");
    CK(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
    return 0;
}

extern "C" int fb_gpu_sync(fb_gpu *g, double *window_ms, char *err, size_t errlen)
{
    CK(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
    int h;
    while ((h = harvest(g, 1, err, errlen)) == 1) {
    }
    if (h < 0)
        return -1;
    if (window_ms)
        *window_ms = g->nspans ? g->start_ms[g->nspans - 1] + g->dur_ms[g->nspans - 1] : 0;
    return 0;
}

extern "C" uint64_t fb_gpu_nspans(const fb_gpu *g)
{
    return g ? g->nspans : 0;
}

extern "C" int fb_gpu_span(const fb_gpu *g, uint64_t i, double *start_ms, double *dur_ms)
{
    if (!g || i >= g->nspans)
        return -1;
    *start_ms = g->start_ms[i];
    *dur_ms = g->dur_ms[i];
    return 0;
}

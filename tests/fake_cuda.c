/*
 * fake_cuda.c - the fake CUDA runtime of fake_cuda.h (tests only).
 *
 * One global lock and one condition variable cover all fake state; every
 * change broadcasts. Each stream is a thread running its queue in order; an
 * operation stays at the head of the queue while it runs, so "queued" below
 * includes "running". Event records are numbered per event (target); a wait
 * or a query refers to the newest record at the time of the call, as in CUDA.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device/cuda/convert_launch.h"
#include "fake_cuda.h"
#include "pixels/convert.h"
#include "pixels/post.h"

enum { OP_COPY, OP_RECORD, OP_WAIT, OP_HOST, OP_CONVERT };
enum { MEM_DEVICE, MEM_PINNED, MEM_REGISTERED };

typedef struct op {
    int kind;
    struct op *next;
    /* copy */
    void *dst;
    const void *src;
    size_t n;
    int h2d;
    /* record / wait */
    struct CUevent_st *ev;
    uint64_t target;
    /* host function */
    cudaHostFn_t fn;
    void *arg;
    /* convert */
    uint64_t stride;
    uint32_t count, h, w, dtype, layout;
    float scale[3], bias[3];
    const uint8_t *flip;
    int post;
    feed__post_cfg post_cfg;
    const feed__post_sample *post_samples;
} op;

struct CUstream_st {
    int device;
    int is_default;   /* a default stream: the legacy one (1) or a per-thread one (2) */
    int blocking;     /* synchronises with the legacy stream (not cudaStreamNonBlocking) */
    int held;         /* runs nothing until a host thread blocks in a synchronising call */
    unsigned visited; /* the last unhold pass that reached it */
    long records;     /* cudaEventRecord calls on it that succeeded */
    op *head, *tail;
    int quit;
    unsigned seed;
    pthread_t th;
    struct CUstream_st *next_all;
};

struct CUevent_st {
    unsigned flags;
    int device;
    uint64_t recorded;       /* records issued */
    uint64_t *pending;       /* targets queued, not completed */
    size_t npending, cap;
    uint64_t latest_done;    /* newest completed target */
    uint64_t t_ns;           /* its completion time */
    int refs;                /* queued ops naming it */
    int destroyed;
};

typedef struct region {
    uint8_t *p;
    size_t n;
    int kind;
} region;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ndev;
    unsigned max_delay_us;
    int fail_register;
    size_t register_limit, registered_bytes; /* limit 0: none */
    long alloc_left, memcpy_left;
    region *regions;
    size_t nregions, capregions;
    struct CUstream_st *streams;  /* all, including the default ones */
    struct CUstream_st *defaults[8]; /* the legacy default stream of each device */
    fake_cuda_counters c;
    unsigned seed;
    long kernel_fault_left;   /* kernels that run before one faults (< 0: none) */
    cudaError_t sticky[8];    /* a device's context is broken: every call returns this */
    struct grave { void *p; size_t n; } *graves; /* freed while queued work used them */
    size_t ngraves;
    int blocked_syncs;        /* host threads blocked in a synchronising call */
    unsigned ctx_live;        /* devices whose primary context is initialised */
} g = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .cv = PTHREAD_COND_INITIALIZER,
    .ndev = 1,
    .max_delay_us = 200,
    .alloc_left = -1,
    .memcpy_left = -1,
    .seed = 12345,
    .kernel_fault_left = -1,
};

/* The runtime's per-thread state: the device cudaSetDevice chose (0 until
 * then), and the driver's context stack (device + 1 a level; empty: no
 * context is current, and the next call that needs one initialises the
 * primary context of t_dev and makes it current, as cudart does). */
#define CTX_DEPTH 8
static __thread int t_dev;
static __thread int t_ctx[CTX_DEPTH];
static __thread int t_nctx;
static __thread struct CUstream_st *t_pts[8]; /* this thread's per-thread default streams */
static __thread cudaError_t t_last;
static __thread unsigned t_set_mask;

static cudaError_t ret(cudaError_t e)
{
    if (e != cudaSuccess)
        t_last = e;
    return e;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int overlaps(const void *a_, size_t an, const void *b_, size_t bn)
{
    const uint8_t *a = a_, *b = b_;
    return a < b + bn && b < a + an;
}

/* Call with g.mu held. Queued (or running) copies and kernels that read or
 * write [p, p + n). */
static long queued_use(const void *p, size_t n)
{
    long k = 0;
    for (struct CUstream_st *s = g.streams; s; s = s->next_all)
        for (op *o = s->head; o; o = o->next) {
            if (o->kind == OP_COPY)
                k += overlaps(o->src, o->n, p, n) || overlaps(o->dst, o->n, p, n);
            else if (o->kind == OP_CONVERT)
                k += overlaps(o->src, (size_t)o->count * o->stride, p, n) ||
                     overlaps(o->dst, (size_t)o->count * o->h * o->w * 3 * feed__dtype_size(o->dtype), p, n);
        }
    return k;
}

static struct CUstream_st *resolve(cudaStream_t st);

/* ---- knobs ---------------------------------------------------------------------- */

void fake_cuda_reset(void)
{
    pthread_mutex_lock(&g.mu);
    g.ndev = 1;
    g.max_delay_us = 200;
    g.fail_register = 0;
    g.register_limit = 0;
    g.alloc_left = g.memcpy_left = -1;
    g.kernel_fault_left = -1;
    memset(g.sticky, 0, sizeof g.sticky); /* as cudaDeviceReset on every device */
    g.ctx_live = 0;
    for (size_t i = 0; i < g.ngraves;) {
        if (queued_use(g.graves[i].p, g.graves[i].n)) {
            i++;
        } else {
            free(g.graves[i].p);
            g.graves[i] = g.graves[--g.ngraves];
        }
    }
    fake_cuda_counters live = g.c;
    memset(&g.c, 0, sizeof g.c);
    g.c.live_device = live.live_device;
    g.c.live_pinned = live.live_pinned;
    g.c.live_streams = live.live_streams;
    g.c.live_events = live.live_events;
    g.c.live_registered = live.live_registered;
    pthread_mutex_unlock(&g.mu);
    t_dev = 0;
    t_nctx = 0;
    t_last = cudaSuccess;
}

void fake_cuda_set_device_count(int n)
{
    pthread_mutex_lock(&g.mu);
    g.ndev = n < 8 ? n : 8;
    pthread_mutex_unlock(&g.mu);
}

void fake_cuda_set_max_delay_us(unsigned us)
{
    pthread_mutex_lock(&g.mu);
    g.max_delay_us = us;
    pthread_mutex_unlock(&g.mu);
}

void fake_cuda_fail_register(int on)
{
    pthread_mutex_lock(&g.mu);
    g.fail_register = on;
    pthread_mutex_unlock(&g.mu);
}

void fake_cuda_set_register_limit(size_t bytes)
{
    pthread_mutex_lock(&g.mu);
    g.register_limit = bytes;
    pthread_mutex_unlock(&g.mu);
}

void fake_cuda_fail_alloc_after(long n)
{
    pthread_mutex_lock(&g.mu);
    g.alloc_left = n;
    pthread_mutex_unlock(&g.mu);
}

void fake_cuda_fail_memcpy_after(long n)
{
    pthread_mutex_lock(&g.mu);
    g.memcpy_left = n;
    pthread_mutex_unlock(&g.mu);
}

unsigned fake_cuda_thread_take_set_mask(void)
{
    unsigned m = t_set_mask;
    t_set_mask = 0;
    return m;
}

void fake_cuda_fault_kernel_after(long n)
{
    pthread_mutex_lock(&g.mu);
    g.kernel_fault_left = n;
    pthread_mutex_unlock(&g.mu);
}

void fake_cuda_hold_stream(cudaStream_t st)
{
    pthread_mutex_lock(&g.mu);
    resolve(st)->held = 1;
    pthread_mutex_unlock(&g.mu);
}

unsigned fake_cuda_context_mask(void)
{
    pthread_mutex_lock(&g.mu);
    unsigned m = 0;
    for (int d = 0; d < 8; d++)
        m |= g.c.contexts_created[d] ? 1u << d : 0;
    pthread_mutex_unlock(&g.mu);
    return m;
}

int fake_cuda_thread_has_context(void)
{
    return t_nctx > 0;
}

void fake_cuda_get_counters(fake_cuda_counters *c)
{
    pthread_mutex_lock(&g.mu);
    *c = g.c;
    pthread_mutex_unlock(&g.mu);
}

long fake_cuda_pending_reads(const void *p, size_t n)
{
    long k = 0;
    pthread_mutex_lock(&g.mu);
    for (struct CUstream_st *s = g.streams; s; s = s->next_all)
        for (op *o = s->head; o; o = o->next)
            if (o->kind == OP_COPY && o->h2d && overlaps(o->src, o->n, p, n))
                k++;
    pthread_mutex_unlock(&g.mu);
    return k;
}

/* Call with g.mu held. */
static int take(long *left)
{
    if (*left < 0)
        return 1;
    if (*left == 0)
        return 0;
    (*left)--;
    return 1;
}

/* ---- errors and devices ----------------------------------------------------------- */

const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorHostMemoryAlreadyRegistered: return "cudaErrorHostMemoryAlreadyRegistered";
    case cudaErrorHostMemoryNotRegistered: return "cudaErrorHostMemoryNotRegistered";
    default: return "cudaErrorUnknown";
    }
}

const char *cudaGetErrorString(cudaError_t e)
{
    return cudaGetErrorName(e);
}

/* A sticky error (a broken context) is returned and stays. */
cudaError_t cudaGetLastError(void)
{
    int d = t_nctx ? t_ctx[t_nctx - 1] - 1 : t_dev;
    pthread_mutex_lock(&g.mu);
    cudaError_t st = g.sticky[d];
    pthread_mutex_unlock(&g.mu);
    cudaError_t e = st != cudaSuccess ? st : t_last;
    t_last = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    int d = t_nctx ? t_ctx[t_nctx - 1] - 1 : t_dev;
    pthread_mutex_lock(&g.mu);
    cudaError_t st = g.sticky[d];
    pthread_mutex_unlock(&g.mu);
    return st != cudaSuccess ? st : t_last;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    pthread_mutex_lock(&g.mu);
    int n = g.ndev;
    pthread_mutex_unlock(&g.mu);
    *count = n;
    return ret(n > 0 ? cudaSuccess : cudaErrorNoDevice);
}

/* Call with g.mu held: a device's context is made (counted once). */
static void ctx_init(int d)
{
    if (!(g.ctx_live & 1u << d)) {
        g.ctx_live |= 1u << d;
        g.c.contexts_created[d]++;
    }
}

/* Call with g.mu held. The device of the calling thread's current context,
 * initialising the primary context of its chosen device first if no context
 * is current: what a runtime call that needs a context does. */
static int ctx_dev(void)
{
    if (!t_nctx)
        t_ctx[t_nctx++] = t_dev + 1;
    int d = t_ctx[t_nctx - 1] - 1;
    ctx_init(d);
    return d;
}

/* Call with g.mu held. The sticky error of device d's context, if broken. */
static cudaError_t sticky(int d)
{
    return d >= 0 && d < 8 ? g.sticky[d] : cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    int n;
    cudaGetDeviceCount(&n);
    if (device < 0 || device >= n)
        return ret(cudaErrorInvalidDevice);
    t_dev = device;
    t_set_mask |= 1u << device;
    /* since CUDA 12: makes the primary context current (cuCtxSetCurrent),
     * initialising it */
    pthread_mutex_lock(&g.mu);
    if (!t_nctx)
        t_nctx = 1;
    t_ctx[t_nctx - 1] = device + 1;
    ctx_init(device);
    pthread_mutex_unlock(&g.mu);
    return cudaSuccess;
}

/* No context is made: the current context's device, else the chosen one. */
cudaError_t cudaGetDevice(int *device)
{
    *device = t_nctx ? t_ctx[t_nctx - 1] - 1 : t_dev;
    return cudaSuccess;
}

/* ---- the driver API's context stack, through cudaGetDriverEntryPoint ----------- */

typedef int fake_CUresult;
enum { FAKE_CUDA_SUCCESS = 0, FAKE_CUDA_ERROR_INVALID_CONTEXT = 201 };

/* A context handle is its device + 1. */
static fake_CUresult fake_cuCtxGetCurrent(void **ctx)
{
    *ctx = t_nctx ? (void *)(intptr_t)t_ctx[t_nctx - 1] : NULL;
    return FAKE_CUDA_SUCCESS;
}

static fake_CUresult fake_cuCtxPushCurrent(void *ctx)
{
    intptr_t v = (intptr_t)ctx;
    if (v < 1 || v > 8 || t_nctx == CTX_DEPTH)
        return FAKE_CUDA_ERROR_INVALID_CONTEXT;
    pthread_mutex_lock(&g.mu);
    int live = (int)(g.ctx_live >> (v - 1)) & 1;
    pthread_mutex_unlock(&g.mu);
    if (!live)
        return FAKE_CUDA_ERROR_INVALID_CONTEXT;
    t_ctx[t_nctx++] = (int)v;
    return FAKE_CUDA_SUCCESS;
}

static fake_CUresult fake_cuCtxPopCurrent(void **ctx)
{
    if (!t_nctx)
        return FAKE_CUDA_ERROR_INVALID_CONTEXT;
    t_nctx--;
    if (ctx)
        *ctx = (void *)(intptr_t)t_ctx[t_nctx];
    return FAKE_CUDA_SUCCESS;
}

static fake_CUresult fake_cuStreamGetCtx(cudaStream_t st, void **ctx)
{
    if (!st || st == cudaStreamLegacy || st == cudaStreamPerThread)
        return fake_cuCtxGetCurrent(ctx);
    *ctx = (void *)(intptr_t)(st->device + 1);
    return FAKE_CUDA_SUCCESS;
}

static cudaError_t entry_point(const char *symbol, void **fn, enum cudaDriverEntryPointQueryResult *status)
{
    *fn = NULL;
    if (!strcmp(symbol, "cuCtxGetCurrent"))
        *fn = (void *)fake_cuCtxGetCurrent;
    else if (!strcmp(symbol, "cuCtxPushCurrent"))
        *fn = (void *)fake_cuCtxPushCurrent;
    else if (!strcmp(symbol, "cuCtxPopCurrent"))
        *fn = (void *)fake_cuCtxPopCurrent;
    else if (!strcmp(symbol, "cuStreamGetCtx"))
        *fn = (void *)fake_cuStreamGetCtx;
    if (status)
        *status = *fn ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
    return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *status)
{
    return entry_point(symbol, fn, status);
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned int version,
                                             unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *status)
{
    return entry_point(symbol, fn, status);
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    int n;
    cudaGetDeviceCount(&n);
    if (device < 0 || device >= n)
        return ret(cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "fake CUDA device %d", device);
    return cudaSuccess;
}

/* ---- memory --------------------------------------------------------------------- */

static void add_region(void *p, size_t n, int kind)
{
    if (g.nregions == g.capregions) {
        g.capregions = g.capregions ? 2 * g.capregions : 64;
        g.regions = realloc(g.regions, g.capregions * sizeof *g.regions);
        if (!g.regions)
            abort();
    }
    g.regions[g.nregions++] = (region){.p = p, .n = n, .kind = kind};
}

/* The region of kind containing p (not necessarily p + n), or NULL. */
static region *find_region(const void *p, int kind)
{
    const uint8_t *q = p;
    for (size_t i = 0; i < g.nregions; i++)
        if (g.regions[i].kind == kind && q >= g.regions[i].p && q < g.regions[i].p + g.regions[i].n)
            return &g.regions[i];
    return NULL;
}

static int inside(const region *r, const void *p, size_t n)
{
    return r && (const uint8_t *)p + n <= r->p + r->n;
}

static cudaError_t remove_region(void *p, int kind)
{
    for (size_t i = 0; i < g.nregions; i++)
        if (g.regions[i].kind == kind && g.regions[i].p == p) {
            g.regions[i] = g.regions[--g.nregions];
            return cudaSuccess;
        }
    return kind == MEM_REGISTERED ? cudaErrorHostMemoryNotRegistered : cudaErrorInvalidValue;
}

static cudaError_t alloc(void **p, size_t n, int kind)
{
    pthread_mutex_lock(&g.mu);
    int dev = ctx_dev();
    cudaError_t e = sticky(dev);
    if (kind == MEM_PINNED)
        g.c.implicit_syncs++; /* cudaMallocHost may synchronise the device */
    int ok = e == cudaSuccess && take(&g.alloc_left);
    *p = NULL;
    if (ok) {
        *p = aligned_alloc(256, (n + 255) & ~(size_t)255);
        if (*p) {
            memset(*p, 0xd5, n); /* fresh device memory is garbage, not zeros */
            add_region(*p, n, kind);
            if (kind == MEM_DEVICE)
                g.c.live_device++;
            else
                g.c.live_pinned++;
        }
    }
    pthread_mutex_unlock(&g.mu);
    if (!*p)
        return ret(e != cudaSuccess ? e : cudaErrorMemoryAllocation);
    return cudaSuccess;
}

/* cudaFree and cudaFreeHost "may perform implicit synchronization": the
 * fake counts it and does not wait, so memory freed while queued work
 * still uses it is counted (freed_in_use) and kept until that work is done. */
static cudaError_t dealloc(void *p, int kind)
{
    if (!p)
        return cudaSuccess;
    pthread_mutex_lock(&g.mu);
    cudaError_t e = sticky(ctx_dev());
    g.c.implicit_syncs++;
    size_t n = 0;
    region *r = find_region(p, kind);
    if (r && r->p == p)
        n = r->n;
    cudaError_t e2 = remove_region(p, kind);
    int keep = 0;
    if (e2 == cudaSuccess) {
        if (kind == MEM_DEVICE)
            g.c.live_device--;
        else
            g.c.live_pinned--;
        if (queued_use(p, n)) {
            g.c.freed_in_use++;
            g.graves = realloc(g.graves, (g.ngraves + 1) * sizeof *g.graves);
            if (!g.graves)
                abort();
            g.graves[g.ngraves++] = (struct grave){p, n};
            keep = 1;
        }
    }
    pthread_mutex_unlock(&g.mu);
    if (e2 == cudaSuccess && !keep)
        free(p);
    return ret(e2 != cudaSuccess ? e2 : e);
}

cudaError_t cudaMalloc(void **p, size_t n)
{
    return alloc(p, n, MEM_DEVICE);
}

cudaError_t cudaFree(void *p)
{
    return dealloc(p, MEM_DEVICE);
}

cudaError_t cudaMallocHost(void **p, size_t n)
{
    return alloc(p, n, MEM_PINNED);
}

cudaError_t cudaFreeHost(void *p)
{
    return dealloc(p, MEM_PINNED);
}

cudaError_t cudaHostRegister(void *p, size_t n, unsigned int flags)
{
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&g.mu);
    e = sticky(ctx_dev());
    g.c.register_calls++;
    g.c.implicit_syncs++; /* pins pages, and may synchronise the device */
    if (e != cudaSuccess) {
    } else if (g.fail_register || (g.register_limit && g.registered_bytes + n > g.register_limit)) {
        e = cudaErrorMemoryAllocation; /* as at the memlock limit */
    } else {
        for (size_t i = 0; i < g.nregions; i++)
            if (g.regions[i].kind == MEM_REGISTERED &&
                overlaps(g.regions[i].p, g.regions[i].n, p, n))
                e = cudaErrorHostMemoryAlreadyRegistered;
        if (e == cudaSuccess) {
            add_region(p, n, MEM_REGISTERED);
            g.c.live_registered++;
            g.registered_bytes += n;
        }
    }
    pthread_mutex_unlock(&g.mu);
    return ret(e);
}

cudaError_t cudaHostUnregister(void *p)
{
    pthread_mutex_lock(&g.mu);
    ctx_dev();
    g.c.implicit_syncs++;
    region *r = find_region(p, MEM_REGISTERED);
    if (r && r->p == p && queued_use(p, r->n))
        g.c.freed_in_use++;
    if (r && r->p == p)
        g.registered_bytes -= r->n;
    cudaError_t e = remove_region(p, MEM_REGISTERED);
    if (e == cudaSuccess)
        g.c.live_registered--;
    pthread_mutex_unlock(&g.mu);
    return ret(e);
}

/* ---- streams -------------------------------------------------------------------- */

static int event_done(const struct CUevent_st *ev, uint64_t target)
{
    for (size_t i = 0; i < ev->npending; i++)
        if (ev->pending[i] == target)
            return 0;
    return 1;
}

static void event_unref(struct CUevent_st *ev)
{
    if (--ev->refs == 0 && ev->destroyed) {
        free(ev->pending);
        free(ev);
    }
}

/* The conversion with the recipe's post steps, element by element through
 * feed__post_element: the arithmetic the CUDA kernel runs, so that the
 * GPU-less tests hold it against the host backend's erase and mix. */
static void convert_post(const op *o)
{
    const uint32_t n = o->count, h = o->h, w = o->w, dt = o->dtype;
    const size_t es = feed__dtype_size(dt), out = (size_t)h * w * 3 * es;
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t j = n - 1 - s;
        const uint8_t *in_s = (const uint8_t *)o->src + s * o->stride, *in_j = (const uint8_t *)o->src + j * o->stride;
        uint8_t *dst = (uint8_t *)o->dst + s * out;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                uint32_t xs = o->flip && o->flip[s] ? w - 1 - x : x, xj = o->flip && o->flip[j] ? w - 1 - x : x;
                for (uint32_t c = 0; c < 3; c++) {
                    uint32_t v = feed__post_element(dt, &o->post_cfg, &o->post_samples[s], &o->post_samples[j], c, y, x,
                                                    in_s[((size_t)y * w + xs) * 3 + c], in_j[((size_t)y * w + xj) * 3 + c],
                                                    o->scale[c], o->bias[c]);
                    size_t e = o->layout == FEED_LAYOUT_CHW ? ((size_t)c * h + y) * w + x : ((size_t)y * w + x) * 3 + c;
                    memcpy(dst + e * es, &v, es); /* little-endian: the low bytes */
                }
            }
    }
}

static void run_op(op *o)
{
    switch (o->kind) {
    case OP_COPY:
        memcpy(o->dst, o->src, o->n);
        break;
    case OP_HOST:
        o->fn(o->arg);
        break;
    case OP_CONVERT: {
        size_t out = (size_t)o->h * o->w * 3 * feed__dtype_size(o->dtype);
        if (o->post) {
            convert_post(o);
            break;
        }
        for (uint32_t i = 0; i < o->count; i++)
            feed__convert_sample((const uint8_t *)o->src + i * o->stride, o->h, o->w, o->dtype,
                                 o->layout, o->scale, o->bias, o->flip ? o->flip[i] : 0,
                                 (uint8_t *)o->dst + i * out);
        break;
    }
    }
}

static void *stream_main(void *arg)
{
    struct CUstream_st *s = arg;
    pthread_mutex_lock(&g.mu);
    for (;;) {
        while ((!s->head || s->held) && !s->quit)
            pthread_cond_wait(&g.cv, &g.mu);
        if (!s->head)
            break;
        op *o = s->head;
        if (o->kind == OP_WAIT) {
            while (!event_done(o->ev, o->target))
                pthread_cond_wait(&g.cv, &g.mu);
        } else {
            unsigned delay = g.max_delay_us ? (unsigned)rand_r(&s->seed) % (g.max_delay_us + 1) : 0;
            /* A kernel fault breaks the context: nothing of it runs any more
             * (records still complete, so waits end), and every call on it
             * returns the error from now on. */
            if (o->kind == OP_CONVERT && !g.sticky[s->device] && g.kernel_fault_left >= 0 &&
                g.kernel_fault_left-- == 0)
                g.sticky[s->device] = cudaErrorIllegalAddress;
            int dead = g.sticky[s->device] != cudaSuccess;
            pthread_mutex_unlock(&g.mu);
            if (delay)
                usleep(delay); /* simulated hardware latency */
            if (!dead)
                run_op(o);
            pthread_mutex_lock(&g.mu);
            if (o->kind == OP_RECORD) {
                struct CUevent_st *ev = o->ev;
                for (size_t i = 0; i < ev->npending; i++)
                    if (ev->pending[i] == o->target) {
                        ev->pending[i] = ev->pending[--ev->npending];
                        break;
                    }
                if (o->target >= ev->latest_done) {
                    ev->latest_done = o->target;
                    ev->t_ns = now_ns();
                }
            }
        }
        s->head = o->next;
        if (!s->head)
            s->tail = NULL;
        if (o->ev)
            event_unref(o->ev);
        free(o);
        pthread_cond_broadcast(&g.cv);
    }
    pthread_mutex_unlock(&g.mu);
    return NULL;
}

/* Call with g.mu held. */
static struct CUstream_st *stream_new(int device, int is_default, int blocking)
{
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->device = device;
    s->is_default = is_default;
    s->blocking = blocking;
    s->seed = g.seed++;
    s->next_all = g.streams;
    g.streams = s;
    if (pthread_create(&s->th, NULL, stream_main, s) != 0)
        abort();
    return s;
}

/* Call with g.mu held. NULL and cudaStreamLegacy: the legacy default stream
 * of the current context's device (one per device, shared by all threads);
 * cudaStreamPerThread: the calling thread's own default stream of that
 * device. Either initialises the current context if there is none. */
static struct CUstream_st *resolve(cudaStream_t st)
{
    if (st && st != cudaStreamLegacy && st != cudaStreamPerThread)
        return st;
    int d = ctx_dev();
    if (st == cudaStreamPerThread) {
        if (!t_pts[d])
            t_pts[d] = stream_new(d, 2, 1);
        return t_pts[d];
    }
    if (!g.defaults[d])
        g.defaults[d] = stream_new(d, 1, 1);
    return g.defaults[d];
}

static op *op_new(int kind)
{
    op *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    o->kind = kind;
    return o;
}

/* Call with g.mu held. */
static void enqueue(struct CUstream_st *s, op *o)
{
    o->next = NULL;
    if (s->tail)
        s->tail->next = o;
    else
        s->head = o;
    s->tail = o;
}

/* Call with g.mu held: later work on `to` waits for what `from` holds now
 * (an internal event, recorded on one and waited for on the other). */
static void chain(struct CUstream_st *from, struct CUstream_st *to)
{
    struct CUevent_st *ie = calloc(1, sizeof *ie);
    if (!ie)
        abort();
    ie->device = from->device;
    ie->destroyed = 1; /* freed with its last op */
    ie->cap = 1;
    ie->pending = malloc(sizeof *ie->pending);
    if (!ie->pending)
        abort();
    ie->pending[ie->npending++] = ie->recorded = 1;
    op *r = op_new(OP_RECORD), *w = op_new(OP_WAIT);
    r->ev = w->ev = ie;
    r->target = w->target = 1;
    ie->refs = 2;
    enqueue(from, r);
    enqueue(to, w);
}

/* Call with g.mu held. Copies and kernels must be issued with the stream's
 * device current; event records and waits need not be. The legacy default
 * stream's implicit synchronisation: its work waits for all earlier work of
 * the device's blocking streams (those created without
 * cudaStreamNonBlocking, and the per-thread default streams), and theirs for
 * its earlier work. */
static void push(struct CUstream_st *s, op *o)
{
    int cur = t_nctx ? t_ctx[t_nctx - 1] - 1 : -1;
    if (s->device != cur && (o->kind == OP_COPY || o->kind == OP_CONVERT))
        g.c.wrong_device_ops++;
    if (s->is_default == 1) {
        for (struct CUstream_st *b = g.streams; b; b = b->next_all)
            if (b != s && b->device == s->device && b->blocking && b->tail) {
                chain(b, s);
                g.c.legacy_syncs++;
            }
    } else if (s->blocking) {
        struct CUstream_st *L = g.defaults[s->device];
        if (L && L->tail) {
            chain(L, s);
            g.c.legacy_syncs++;
        }
    }
    enqueue(s, o);
    pthread_cond_broadcast(&g.cv);
}

static struct CUstream_st *recording_stream(const struct CUevent_st *ev, uint64_t target);

/* Call with g.mu held: s runs if it was held, and so do the streams whose
 * records its queued waits are for, and theirs; each stream once a pass
 * (pass), however many waits lead to it: the walk is linear in the queued
 * work, whatever the streams' fan-in (a copy stream waiting on the release
 * events of eight streams). */
static void unhold(struct CUstream_st *s, unsigned pass)
{
    if (!s || s->visited == pass)
        return;
    s->visited = pass;
    if (s->held) {
        s->held = 0;
        pthread_cond_broadcast(&g.cv);
    }
    for (op *o = s->head; o; o = o->next)
        if (o->kind == OP_WAIT)
            unhold(recording_stream(o->ev, o->target), pass);
}

/* Call with g.mu held: a host thread blocks on s. */
static void sync_begin(struct CUstream_st *s)
{
    static unsigned passes;
    unhold(s, ++passes ? passes : ++passes); /* 0 is no pass: a new stream's visited */
    g.blocked_syncs++;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *st, unsigned int flags)
{
    pthread_mutex_lock(&g.mu);
    int d = ctx_dev();
    cudaError_t e = sticky(d);
    int ok = e == cudaSuccess && take(&g.alloc_left);
    if (ok) {
        *st = stream_new(d, 0, !(flags & cudaStreamNonBlocking));
        g.c.live_streams++;
    }
    pthread_mutex_unlock(&g.mu);
    return ret(ok ? cudaSuccess : e != cudaSuccess ? e : cudaErrorMemoryAllocation);
}

cudaError_t cudaStreamCreate(cudaStream_t *st)
{
    return cudaStreamCreateWithFlags(st, cudaStreamDefault);
}

cudaError_t cudaStreamDestroy(cudaStream_t st)
{
    if (!st || st == cudaStreamLegacy || st == cudaStreamPerThread || st->is_default)
        return ret(cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&g.mu);
    ctx_dev();
    st->quit = 1;
    st->held = 0;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    pthread_join(st->th, NULL); /* it drains its queue first */
    pthread_mutex_lock(&g.mu);
    for (struct CUstream_st **p = &g.streams; *p; p = &(*p)->next_all)
        if (*p == st) {
            *p = st->next_all;
            break;
        }
    g.c.live_streams--;
    pthread_mutex_unlock(&g.mu);
    free(st);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t st)
{
    pthread_mutex_lock(&g.mu);
    struct CUstream_st *s = resolve(st);
    ctx_dev();
    sync_begin(s);
    while (s->head)
        pthread_cond_wait(&g.cv, &g.mu);
    g.blocked_syncs--;
    cudaError_t e = sticky(s->device);
    pthread_mutex_unlock(&g.mu);
    return ret(e);
}

cudaError_t cudaDeviceSynchronize(void)
{
    pthread_mutex_lock(&g.mu);
    int d = ctx_dev();
    for (struct CUstream_st *s = g.streams; s; s = s->next_all)
        if (s->device == d)
            sync_begin(s), g.blocked_syncs--;
    g.blocked_syncs++;
    for (;;) {
        int busy = 0;
        for (struct CUstream_st *s = g.streams; s; s = s->next_all)
            busy |= s->device == d && s->head != NULL;
        if (!busy)
            break;
        pthread_cond_wait(&g.cv, &g.mu);
    }
    g.blocked_syncs--;
    cudaError_t e = sticky(d);
    pthread_mutex_unlock(&g.mu);
    return ret(e);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t st, cudaHostFn_t fn, void *arg)
{
    op *o = op_new(OP_HOST);
    o->fn = fn;
    o->arg = arg;
    pthread_mutex_lock(&g.mu);
    ctx_dev();
    push(resolve(st), o);
    pthread_mutex_unlock(&g.mu);
    return cudaSuccess;
}

/* ---- events --------------------------------------------------------------------- */

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned int flags)
{
    pthread_mutex_lock(&g.mu);
    int d = ctx_dev();
    cudaError_t e = sticky(d);
    int ok = e == cudaSuccess && take(&g.alloc_left);
    if (ok) {
        *ev = calloc(1, sizeof **ev);
        if (!*ev)
            abort();
        (*ev)->flags = flags;
        (*ev)->device = d;
        (*ev)->refs = 1; /* the handle */
        g.c.live_events++;
    }
    pthread_mutex_unlock(&g.mu);
    return ret(ok ? cudaSuccess : e != cudaSuccess ? e : cudaErrorMemoryAllocation);
}

cudaError_t cudaEventCreate(cudaEvent_t *ev)
{
    return cudaEventCreateWithFlags(ev, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t ev)
{
    if (!ev)
        return ret(cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&g.mu);
    ctx_dev();
    ev->destroyed = 1;
    g.c.live_events--;
    event_unref(ev);
    pthread_mutex_unlock(&g.mu);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t st)
{
    if (!ev)
        return ret(cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&g.mu);
    ctx_dev();
    struct CUstream_st *s = resolve(st);
    cudaError_t e = sticky(s->device);
    if (e == cudaSuccess && s->device != ev->device)
        e = cudaErrorInvalidResourceHandle; /* event and stream: the same context */
    if (e != cudaSuccess) {
        pthread_mutex_unlock(&g.mu);
        return ret(e);
    }
    if (ev->npending == ev->cap) {
        ev->cap = ev->cap ? 2 * ev->cap : 4;
        ev->pending = realloc(ev->pending, ev->cap * sizeof *ev->pending);
        if (!ev->pending)
            abort();
    }
    op *o = op_new(OP_RECORD);
    o->ev = ev;
    o->target = ++ev->recorded;
    ev->pending[ev->npending++] = o->target;
    ev->refs++;
    push(s, o);
    g.c.records++;
    s->records++;
    pthread_mutex_unlock(&g.mu);
    return cudaSuccess;
}

long fake_cuda_stream_records(cudaStream_t st)
{
    pthread_mutex_lock(&g.mu);
    long n = resolve(st)->records;
    pthread_mutex_unlock(&g.mu);
    return n;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t st, cudaEvent_t ev, unsigned int flags)
{
    if (!ev)
        return ret(cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&g.mu);
    ctx_dev();
    struct CUstream_st *s = resolve(st);
    cudaError_t e = sticky(s->device);
    if (e == cudaSuccess)
        e = sticky(ev->device);
    if (e == cudaSuccess && ev->recorded && !event_done(ev, ev->recorded)) {
        op *o = op_new(OP_WAIT);
        o->ev = ev;
        o->target = ev->recorded;
        ev->refs++;
        push(s, o); /* the event may be of another device than the stream */
    }
    pthread_mutex_unlock(&g.mu);
    return ret(e);
}

cudaError_t cudaEventQuery(cudaEvent_t ev)
{
    pthread_mutex_lock(&g.mu);
    ctx_dev();
    int done = event_done(ev, ev->recorded);
    cudaError_t e = sticky(ev->device);
    pthread_mutex_unlock(&g.mu);
    if (e != cudaSuccess)
        return ret(e);
    return done ? cudaSuccess : cudaErrorNotReady; /* NotReady is not an error: not recorded */
}

/* Call with g.mu held. The stream whose queue holds ev's record target. */
static struct CUstream_st *recording_stream(const struct CUevent_st *ev, uint64_t target)
{
    for (struct CUstream_st *s = g.streams; s; s = s->next_all)
        for (op *o = s->head; o; o = o->next)
            if (o->kind == OP_RECORD && o->ev == ev && o->target == target)
                return s;
    return NULL;
}

cudaError_t cudaEventSynchronize(cudaEvent_t ev)
{
    pthread_mutex_lock(&g.mu);
    ctx_dev();
    uint64_t target = ev->recorded;
    sync_begin(event_done(ev, target) ? NULL : recording_stream(ev, target));
    while (!event_done(ev, target))
        pthread_cond_wait(&g.cv, &g.mu);
    g.blocked_syncs--;
    cudaError_t e = sticky(ev->device);
    pthread_mutex_unlock(&g.mu);
    return ret(e);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    pthread_mutex_lock(&g.mu);
    ctx_dev();
    cudaError_t e = sticky(end->device);
    if (e != cudaSuccess)
        ;
    else if ((start->flags | end->flags) & cudaEventDisableTiming)
        e = cudaErrorInvalidResourceHandle;
    else if (!start->recorded || !end->recorded || !event_done(start, start->recorded) ||
             !event_done(end, end->recorded))
        e = cudaErrorNotReady;
    else
        *ms = (float)((double)(end->t_ns - start->t_ns) / 1e6);
    pthread_mutex_unlock(&g.mu);
    return ret(e);
}

/* ---- copies and the kernel ------------------------------------------------------- */

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                            cudaStream_t st)
{
    pthread_mutex_lock(&g.mu);
    ctx_dev();
    struct CUstream_st *s = resolve(st);
    cudaError_t e = sticky(s->device);
    if (e != cudaSuccess)
        goto out;
    if (kind == cudaMemcpyHostToDevice && !take(&g.memcpy_left)) {
        e = cudaErrorInvalidValue;
        goto out;
    }
    if (kind == cudaMemcpyHostToDevice) {
        if (!inside(find_region(dst, MEM_DEVICE), dst, n)) {
            e = cudaErrorInvalidValue;
            goto out;
        }
        region *r = find_region(src, MEM_REGISTERED);
        if (r && !inside(r, src, n))
            g.c.straddling_h2d++;
        else if (!r && !inside(find_region(src, MEM_PINNED), src, n))
            g.c.pageable_h2d++;
        g.c.h2d_copies++;
    } else if (kind == cudaMemcpyDeviceToHost) {
        if (!inside(find_region(src, MEM_DEVICE), src, n)) {
            e = cudaErrorInvalidValue;
            goto out;
        }
        g.c.d2h_copies++;
    } else {
        e = cudaErrorInvalidValue;
        goto out;
    }
    if (n) {
        op *o = op_new(OP_COPY);
        o->dst = dst;
        o->src = src;
        o->n = n;
        o->h2d = kind == cudaMemcpyHostToDevice;
        push(s, o);
    }
out:
    pthread_mutex_unlock(&g.mu);
    return ret(e);
}

int feed__cuda_convert_launch(const void *src, uint64_t src_stride, void *dst, uint32_t n,
                              uint32_t h, uint32_t w, uint32_t dtype, uint32_t layout,
                              const float scale[3], const float bias[3], const uint8_t *flip,
                              const feed__post_cfg *post, const feed__post_sample *post_samples,
                              void *stream)
{
    if (n == 0 || h == 0 || w == 0)
        return cudaSuccess;
    size_t in = (size_t)h * w * 3, out = in * feed__dtype_size(dtype);
    pthread_mutex_lock(&g.mu);
    ctx_dev();
    struct CUstream_st *s = resolve((cudaStream_t)stream);
    cudaError_t e = sticky(s->device);
    if (e != cudaSuccess) {
    } else if (!out || layout > FEED_LAYOUT_CHW ||
        !inside(find_region(src, MEM_DEVICE), src, (n - 1) * src_stride + in) ||
        !inside(find_region(dst, MEM_DEVICE), dst, n * out) ||
        (flip && !inside(find_region(flip, MEM_DEVICE), flip, n)) ||
        (post && !inside(find_region(post_samples, MEM_DEVICE), post_samples, n * sizeof *post_samples))) {
        e = cudaErrorInvalidValue;
    } else {
        op *o = op_new(OP_CONVERT);
        o->src = src;
        o->dst = dst;
        o->stride = src_stride;
        o->count = n;
        o->h = h;
        o->w = w;
        o->dtype = dtype;
        o->layout = layout;
        memcpy(o->scale, scale, sizeof o->scale);
        memcpy(o->bias, bias, sizeof o->bias);
        o->flip = flip;
        if (post) {
            o->post = 1;
            o->post_cfg = *post;
            o->post_samples = post_samples;
        }
        g.c.kernels++;
        push(s, o);
    }
    pthread_mutex_unlock(&g.mu);
    return ret(e);
}

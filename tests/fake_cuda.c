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
    int is_default;
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
    long alloc_left, memcpy_left;
    region *regions;
    size_t nregions, capregions;
    struct CUstream_st *streams;  /* all, including the default ones */
    struct CUstream_st *defaults[8];
    fake_cuda_counters c;
    unsigned seed;
} g = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .cv = PTHREAD_COND_INITIALIZER,
    .ndev = 1,
    .max_delay_us = 200,
    .alloc_left = -1,
    .memcpy_left = -1,
    .seed = 12345,
};

static __thread int t_dev;
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

/* ---- knobs ---------------------------------------------------------------------- */

void fake_cuda_reset(void)
{
    pthread_mutex_lock(&g.mu);
    g.ndev = 1;
    g.max_delay_us = 200;
    g.fail_register = 0;
    g.alloc_left = g.memcpy_left = -1;
    fake_cuda_counters live = g.c;
    memset(&g.c, 0, sizeof g.c);
    g.c.live_device = live.live_device;
    g.c.live_pinned = live.live_pinned;
    g.c.live_streams = live.live_streams;
    g.c.live_events = live.live_events;
    g.c.live_registered = live.live_registered;
    pthread_mutex_unlock(&g.mu);
    t_dev = 0;
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

void fake_cuda_get_counters(fake_cuda_counters *c)
{
    pthread_mutex_lock(&g.mu);
    *c = g.c;
    pthread_mutex_unlock(&g.mu);
}

static int overlaps(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return a < b + bn && b < a + an;
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

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = t_last;
    t_last = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    return t_last;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    pthread_mutex_lock(&g.mu);
    int n = g.ndev;
    pthread_mutex_unlock(&g.mu);
    *count = n;
    return ret(n > 0 ? cudaSuccess : cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int device)
{
    int n;
    cudaGetDeviceCount(&n);
    if (device < 0 || device >= n)
        return ret(cudaErrorInvalidDevice);
    t_dev = device;
    t_set_mask |= 1u << device;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = t_dev;
    return cudaSuccess;
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
    int ok = take(&g.alloc_left);
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
    if (!ok || !*p) {
        *p = NULL;
        return ret(cudaErrorMemoryAllocation);
    }
    return cudaSuccess;
}

static cudaError_t dealloc(void *p, int kind)
{
    if (!p)
        return cudaSuccess;
    pthread_mutex_lock(&g.mu);
    cudaError_t e = remove_region(p, kind);
    if (e == cudaSuccess) {
        if (kind == MEM_DEVICE)
            g.c.live_device--;
        else
            g.c.live_pinned--;
    }
    pthread_mutex_unlock(&g.mu);
    if (e == cudaSuccess)
        free(p);
    return ret(e);
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
    g.c.register_calls++;
    if (g.fail_register) {
        e = cudaErrorMemoryAllocation;
    } else {
        for (size_t i = 0; i < g.nregions; i++)
            if (g.regions[i].kind == MEM_REGISTERED &&
                overlaps(g.regions[i].p, g.regions[i].n, p, n))
                e = cudaErrorHostMemoryAlreadyRegistered;
        if (e == cudaSuccess) {
            add_region(p, n, MEM_REGISTERED);
            g.c.live_registered++;
        }
    }
    pthread_mutex_unlock(&g.mu);
    return ret(e);
}

cudaError_t cudaHostUnregister(void *p)
{
    pthread_mutex_lock(&g.mu);
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
        while (!s->head && !s->quit)
            pthread_cond_wait(&g.cv, &g.mu);
        if (!s->head)
            break;
        op *o = s->head;
        if (o->kind == OP_WAIT) {
            while (!event_done(o->ev, o->target))
                pthread_cond_wait(&g.cv, &g.mu);
        } else {
            unsigned delay = g.max_delay_us ? (unsigned)rand_r(&s->seed) % (g.max_delay_us + 1) : 0;
            pthread_mutex_unlock(&g.mu);
            if (delay)
                usleep(delay); /* simulated hardware latency */
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
static struct CUstream_st *stream_new(int device, int is_default)
{
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->device = device;
    s->is_default = is_default;
    s->seed = g.seed++;
    s->next_all = g.streams;
    g.streams = s;
    if (pthread_create(&s->th, NULL, stream_main, s) != 0)
        abort();
    return s;
}

/* NULL, cudaStreamLegacy and cudaStreamPerThread: the current device's default
 * stream (without the legacy stream's implicit synchronization). */
static struct CUstream_st *resolve(cudaStream_t st)
{
    if (st && st != cudaStreamLegacy && st != cudaStreamPerThread)
        return st;
    if (!g.defaults[t_dev])
        g.defaults[t_dev] = stream_new(t_dev, 1);
    return g.defaults[t_dev];
}

/* Call with g.mu held. Copies and kernels must be issued with the stream's
 * device current; event records and waits need not be. */
static void push(struct CUstream_st *s, op *o)
{
    if (s->device != t_dev && (o->kind == OP_COPY || o->kind == OP_CONVERT))
        g.c.wrong_device_ops++;
    o->next = NULL;
    if (s->tail)
        s->tail->next = o;
    else
        s->head = o;
    s->tail = o;
    pthread_cond_broadcast(&g.cv);
}

static op *op_new(int kind)
{
    op *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    o->kind = kind;
    return o;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *st, unsigned int flags)
{
    pthread_mutex_lock(&g.mu);
    int ok = take(&g.alloc_left);
    if (ok) {
        *st = stream_new(t_dev, 0);
        g.c.live_streams++;
    }
    pthread_mutex_unlock(&g.mu);
    return ret(ok ? cudaSuccess : cudaErrorMemoryAllocation);
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
    st->quit = 1;
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
    while (s->head)
        pthread_cond_wait(&g.cv, &g.mu);
    pthread_mutex_unlock(&g.mu);
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    pthread_mutex_lock(&g.mu);
    for (;;) {
        int busy = 0;
        for (struct CUstream_st *s = g.streams; s; s = s->next_all)
            busy |= s->device == t_dev && s->head != NULL;
        if (!busy)
            break;
        pthread_cond_wait(&g.cv, &g.mu);
    }
    pthread_mutex_unlock(&g.mu);
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t st, cudaHostFn_t fn, void *arg)
{
    op *o = op_new(OP_HOST);
    o->fn = fn;
    o->arg = arg;
    pthread_mutex_lock(&g.mu);
    push(resolve(st), o);
    pthread_mutex_unlock(&g.mu);
    return cudaSuccess;
}

/* ---- events --------------------------------------------------------------------- */

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned int flags)
{
    pthread_mutex_lock(&g.mu);
    int ok = take(&g.alloc_left);
    if (ok) {
        *ev = calloc(1, sizeof **ev);
        if (!*ev)
            abort();
        (*ev)->flags = flags;
        (*ev)->device = t_dev;
        (*ev)->refs = 1; /* the handle */
        g.c.live_events++;
    }
    pthread_mutex_unlock(&g.mu);
    return ret(ok ? cudaSuccess : cudaErrorMemoryAllocation);
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
    struct CUstream_st *s = resolve(st);
    if (s->device != ev->device) {
        pthread_mutex_unlock(&g.mu);
        return ret(cudaErrorInvalidResourceHandle);
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
    pthread_mutex_unlock(&g.mu);
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t st, cudaEvent_t ev, unsigned int flags)
{
    if (!ev)
        return ret(cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&g.mu);
    struct CUstream_st *s = resolve(st);
    if (ev->recorded && !event_done(ev, ev->recorded)) {
        op *o = op_new(OP_WAIT);
        o->ev = ev;
        o->target = ev->recorded;
        ev->refs++;
        push(s, o);
    }
    pthread_mutex_unlock(&g.mu);
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t ev)
{
    pthread_mutex_lock(&g.mu);
    int done = event_done(ev, ev->recorded);
    pthread_mutex_unlock(&g.mu);
    return done ? cudaSuccess : cudaErrorNotReady; /* NotReady is not an error: not recorded */
}

cudaError_t cudaEventSynchronize(cudaEvent_t ev)
{
    pthread_mutex_lock(&g.mu);
    uint64_t target = ev->recorded;
    while (!event_done(ev, target))
        pthread_cond_wait(&g.cv, &g.mu);
    pthread_mutex_unlock(&g.mu);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    pthread_mutex_lock(&g.mu);
    cudaError_t e = cudaSuccess;
    if ((start->flags | end->flags) & cudaEventDisableTiming)
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
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&g.mu);
    if (kind == cudaMemcpyHostToDevice && !take(&g.memcpy_left)) {
        e = cudaErrorIllegalAddress;
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
        push(resolve(st), o);
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
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&g.mu);
    if (!out || layout > FEED_LAYOUT_CHW ||
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
        push(resolve((cudaStream_t)stream), o);
    }
    pthread_mutex_unlock(&g.mu);
    return ret(e);
}

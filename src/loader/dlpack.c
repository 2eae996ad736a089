/*
 * dlpack.c - DLPack deleters written in C, for bindings (feed.h, "DLPack
 * deleters for bindings").
 *
 * A consumer (torch, cupy, jax) calls a tensor's deleter from its own C
 * code whenever it frees the tensor: on any thread, and in Python also while
 * an exception is being raised (list() failing half-way frees the tensors it
 * collected). A deleter written in Python (a ctypes callback) cannot run
 * then: the pending exception is lost (seen: SystemError "returned NULL
 * without setting an exception" out of list(), with torch 2.x). These
 * deleters run no code of the binding: they queue the context's key on a
 * lock-free stack and ask the binding (once until it collects) to come and
 * collect, through the function it registered (Python: Py_AddPendingCall,
 * which may be called from any thread without the GIL and runs the
 * collector at the main thread's next bytecode boundary).
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "feed.h"

/* dlpack.h v1.0 (https://github.com/dmlc/dlpack), as far as the deleters
 * read: where manager_ctx is in the legacy and the versioned struct. */
typedef struct {
    void *data;
    int32_t device_type, device_id;
    int32_t ndim;
    uint8_t code, bits;
    uint16_t lanes;
    int64_t *shape, *strides;
    uint64_t byte_offset;
} dl_tensor;

typedef struct {
    dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(void *self);
} dl_managed;

typedef struct {
    uint32_t major, minor;
    void *manager_ctx;
    void (*deleter)(void *self);
    uint64_t flags;
    dl_tensor dl_tensor;
} dl_managed_versioned;

_Static_assert(sizeof(dl_tensor) == 48, "DLTensor is 48 bytes on LP64");

struct feed_dlpack_ctx {
    struct feed_dlpack_ctx *next;
    uint64_t key;
    atomic_uint queued; /* a consumer calling the deleter twice queues it once */
};

static _Atomic(feed_dlpack_ctx *) done_head;
static atomic_int scheduled; /* a collect was asked for and has not begun */
/* The binding's functions, set once; read by deleters on any thread. */
static _Atomic(uintptr_t) sched_fn, sched_arg_fn;
static _Atomic(uintptr_t) cap_valid_fn, cap_pointer_fn;

feed_dlpack_ctx *feed_dlpack_ctx_new(uint64_t key)
{
    feed_dlpack_ctx *c = malloc(sizeof *c);
    if (c) {
        c->next = NULL;
        c->key = key;
        atomic_init(&c->queued, 0);
    }
    return c;
}

void feed_dlpack_ctx_free(feed_dlpack_ctx *ctx)
{
    free(ctx);
}

static void queue(feed_dlpack_ctx *c)
{
    if (!c || atomic_exchange(&c->queued, 1))
        return;
    feed_dlpack_ctx *head = atomic_load(&done_head);
    do
        c->next = head;
    while (!atomic_compare_exchange_weak(&done_head, &head, c));
    /* after the push: a collect that cleared the flag before it will pop it */
    if (atomic_exchange(&scheduled, 1) == 0) {
        uintptr_t s = atomic_load(&sched_fn), f = atomic_load(&sched_arg_fn);
        if (s && f && ((feed_dlpack_schedule_fn)s)((feed_dlpack_collect_fn)f, NULL) != 0)
            atomic_store(&scheduled, 0); /* refused (the queue is full): the next deleter asks again */
    }
}

void feed_dlpack_deleter(void *managed)
{
    if (managed)
        queue(((dl_managed *)managed)->manager_ctx);
}

void feed_dlpack_deleter_versioned(void *managed)
{
    if (managed)
        queue(((dl_managed_versioned *)managed)->manager_ctx);
}

size_t feed_dlpack_collect(uint64_t *keys, size_t max)
{
    atomic_store(&scheduled, 0); /* before the pop: a later push asks again */
    feed_dlpack_ctx *c = atomic_exchange(&done_head, NULL);
    size_t n = 0;
    while (c && n < max) {
        feed_dlpack_ctx *next = c->next;
        keys[n++] = c->key;
        free(c);
        c = next;
    }
    while (c) { /* more than max: back on the stack for the next call */
        feed_dlpack_ctx *next = c->next, *head = atomic_load(&done_head);
        do
            c->next = head;
        while (!atomic_compare_exchange_weak(&done_head, &head, c));
        c = next;
    }
    return n;
}

void feed_dlpack_set_notify(feed_dlpack_schedule_fn schedule, feed_dlpack_collect_fn collect)
{
    atomic_store(&sched_arg_fn, (uintptr_t)collect);
    atomic_store(&sched_fn, (uintptr_t)schedule);
}

void feed_dlpack_set_capsule_api(feed_capsule_valid_fn is_valid, feed_capsule_pointer_fn get_pointer)
{
    atomic_store(&cap_pointer_fn, (uintptr_t)get_pointer);
    atomic_store(&cap_valid_fn, (uintptr_t)is_valid);
}

void feed_dlpack_capsule_destructor(void *capsule)
{
    /* Still named so: nobody consumed it (a consumer renames it "used_..."),
     * so the tensor in it is ours to delete. */
    uintptr_t v = atomic_load(&cap_valid_fn), p = atomic_load(&cap_pointer_fn);
    if (!v || !p || !capsule)
        return;
    feed_capsule_valid_fn is_valid = (feed_capsule_valid_fn)v;
    feed_capsule_pointer_fn get = (feed_capsule_pointer_fn)p;
    if (is_valid(capsule, "dltensor"))
        feed_dlpack_deleter(get(capsule, "dltensor"));
    else if (is_valid(capsule, "dltensor_versioned"))
        feed_dlpack_deleter_versioned(get(capsule, "dltensor_versioned"));
}

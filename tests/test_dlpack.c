/*
 * test_dlpack.c - the C DLPack deleters bindings use (src/loader/dlpack.c): a
 * deleter queues its context's key and asks once for a collect; a deleter
 * called twice queues once; collect hands out at most max keys and keeps the
 * rest; deleters racing from many threads lose and duplicate nothing (run
 * under TSan too); a capsule destructor deletes only a capsule nobody
 * consumed. The Python side (an exception raised while torch frees tensors)
 * is python/tests/test_torch.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "feed.h"

/* the two DLPack layouts, as a consumer holds them (dlpack.h v1.0) */
typedef struct {
    void *data;
    int32_t device_type, device_id, ndim;
    uint8_t code, bits;
    uint16_t lanes;
    int64_t *shape, *strides;
    uint64_t byte_offset;
} tensor;
typedef struct {
    tensor t;
    void *manager_ctx;
    void (*deleter)(void *);
} managed;
typedef struct {
    uint32_t major, minor;
    void *manager_ctx;
    void (*deleter)(void *);
    uint64_t flags;
    tensor t;
} managed_v;

static int scheduled;
static feed_dlpack_collect_fn sched_fn;

static int schedule(feed_dlpack_collect_fn fn, void *arg)
{
    __atomic_fetch_add(&scheduled, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&sched_fn, fn, __ATOMIC_SEQ_CST);
    return 0;
}

static int collect_cb(void *arg)
{
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t drain(uint64_t *keys, size_t cap)
{
    size_t n = 0, got;
    while ((got = feed_dlpack_collect(keys + n, 3)) > 0) /* small max: the rest must stay queued */
        n += got;
    assert_true(n <= cap);
    return n;
}

static void test_queue_once_and_collect(void **state)
{
    uint64_t keys[16];
    assert_int_equal(drain(keys, 16), 0);
    feed_dlpack_set_notify(schedule, collect_cb);
    scheduled = 0;
    managed m[5];
    managed_v v;
    memset(m, 0, sizeof m);
    memset(&v, 0, sizeof v);
    for (int i = 0; i < 5; i++) {
        m[i].manager_ctx = feed_dlpack_ctx_new(100 + (uint64_t)i);
        m[i].deleter = feed_dlpack_deleter;
    }
    v.manager_ctx = feed_dlpack_ctx_new(7);
    v.deleter = feed_dlpack_deleter_versioned;

    m[0].deleter(&m[0]);
    assert_int_equal(scheduled, 1);
    assert_ptr_equal(sched_fn, collect_cb);
    m[0].deleter(&m[0]); /* a consumer calling it twice: queued once */
    m[1].deleter(&m[1]);
    v.deleter(&v);
    assert_int_equal(scheduled, 1); /* asked once until the next collect */
    size_t n = drain(keys, 16);
    assert_int_equal(n, 3);
    qsort(keys, n, sizeof keys[0], cmp_u64);
    assert_int_equal(keys[0], 7);
    assert_int_equal(keys[1], 100);
    assert_int_equal(keys[2], 101);

    for (int i = 2; i < 5; i++)
        m[i].deleter(&m[i]);
    assert_int_equal(scheduled, 2); /* asked again after the collect */
    n = drain(keys, 16);
    assert_int_equal(n, 3);
    qsort(keys, n, sizeof keys[0], cmp_u64);
    assert_int_equal(keys[0], 102);
    assert_int_equal(keys[2], 104);

    feed_dlpack_ctx_free(feed_dlpack_ctx_new(9)); /* never handed out */
    feed_dlpack_deleter(NULL);
    managed none = {.manager_ctx = NULL};
    feed_dlpack_deleter(&none);
    assert_int_equal(drain(keys, 16), 0);
    feed_dlpack_set_notify(NULL, NULL);
}

#define THREADS 8
#define PER 2000

static managed *racing;

static void *delete_range(void *arg)
{
    size_t t = (size_t)arg;
    for (size_t i = t; i < (size_t)THREADS * PER; i += THREADS)
        racing[i].deleter(&racing[i]);
    return NULL;
}

static void test_racing_deleters(void **state)
{
    size_t total = (size_t)THREADS * PER;
    racing = calloc(total, sizeof *racing);
    uint64_t *keys = calloc(total, sizeof *keys);
    uint8_t *seen = calloc(total, 1);
    assert_non_null(racing);
    for (size_t i = 0; i < total; i++) {
        racing[i].manager_ctx = feed_dlpack_ctx_new(i);
        racing[i].deleter = feed_dlpack_deleter;
    }
    feed_dlpack_set_notify(schedule, collect_cb);
    pthread_t th[THREADS];
    for (size_t t = 0; t < THREADS; t++)
        assert_int_equal(pthread_create(&th[t], NULL, delete_range, (void *)t), 0);
    size_t n = 0; /* collecting while they delete */
    for (int spins = 0; n < total && spins < 100000000; spins++)
        n += feed_dlpack_collect(keys + n, total - n < 500 ? total - n : 500);
    for (size_t t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    n += feed_dlpack_collect(keys + n, total - n);
    assert_int_equal(n, total);
    for (size_t i = 0; i < n; i++) {
        assert_true(keys[i] < total);
        assert_int_equal(seen[keys[i]], 0);
        seen[keys[i]] = 1;
    }
    feed_dlpack_set_notify(NULL, NULL);
    free(racing);
    free(keys);
    free(seen);
}

/* A stand-in for PyCapsule: a name and a pointer. */
typedef struct {
    const char *name;
    void *pointer;
} capsule;

static int cap_valid(void *c, const char *name)
{
    capsule *k = c;
    return k->name && strcmp(k->name, name) == 0;
}

static void *cap_pointer(void *c, const char *name)
{
    return cap_valid(c, name) ? ((capsule *)c)->pointer : NULL;
}

static void test_capsule_destructor(void **state)
{
    uint64_t keys[8];
    managed m = {.manager_ctx = feed_dlpack_ctx_new(1), .deleter = feed_dlpack_deleter};
    managed_v v = {.manager_ctx = feed_dlpack_ctx_new(2), .deleter = feed_dlpack_deleter_versioned};
    managed used = {.manager_ctx = feed_dlpack_ctx_new(3), .deleter = feed_dlpack_deleter};
    capsule c1 = {"dltensor", &m}, c2 = {"dltensor_versioned", &v}, c3 = {"used_dltensor", &used};

    feed_dlpack_capsule_destructor(&c1); /* no capsule API yet: nothing */
    assert_int_equal(drain(keys, 8), 0);
    feed_dlpack_set_capsule_api(cap_valid, cap_pointer);
    feed_dlpack_capsule_destructor(&c1);
    feed_dlpack_capsule_destructor(&c2);
    feed_dlpack_capsule_destructor(&c3); /* consumed: the consumer deletes it */
    size_t n = drain(keys, 8);
    assert_int_equal(n, 2);
    qsort(keys, n, sizeof keys[0], cmp_u64);
    assert_int_equal(keys[0], 1);
    assert_int_equal(keys[1], 2);
    used.deleter(&used); /* ...as here */
    assert_int_equal(drain(keys, 8), 1);
    assert_int_equal(keys[0], 3);
    feed_dlpack_set_capsule_api(NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_once_and_collect),
        cmocka_unit_test(test_racing_deleters),
        cmocka_unit_test(test_capsule_destructor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* alloc.c - the library's allocator; test builds (FEED_TEST_HOOKS) add a
 * switch that makes it fail after N calls, for the fault tests. */
#include <stdatomic.h>
#include <stdlib.h>

#include "common/internal.h"

#if FEED_TEST_HOOKS
static _Atomic long fail_after = -1;

static int should_fail(void)
{
    long n = atomic_load_explicit(&fail_after, memory_order_relaxed);
    if (n < 0)
        return 0;
    if (n == 0)
        return 1;
    atomic_fetch_sub_explicit(&fail_after, 1, memory_order_relaxed);
    return 0;
}

void feed__alloc_fail_after(long n)
{
    atomic_store(&fail_after, n);
}
#else
#define should_fail() 0
#endif

void *feed__malloc(size_t n)
{
    return should_fail() ? NULL : malloc(n ? n : 1);
}

void *feed__calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : calloc(n ? n : 1, size ? size : 1);
}

void *feed__realloc(void *p, size_t n)
{
    return should_fail() ? NULL : realloc(p, n ? n : 1);
}

void feed__free(void *p)
{
    free(p);
}

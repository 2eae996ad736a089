/* loader_test.h - internal accessors the tests use: test builds (FEED_TEST_HOOKS)
 * only, never in libfeed.so. */
#ifndef FEED_LOADER_TEST_H
#define FEED_LOADER_TEST_H

#include <sys/types.h>

#include "feed.h"
#include "loader/loader.h"
#include "pixels/xform.h"

/* pid of worker i now (0 if none). */
pid_t feed__loader_worker_pid(feed_loader *L, uint32_t i);
/* The worker pool (supervise/pool.h), for the fault tests. */
struct feed__pool *feed__loader_pool(feed_loader *L);
/* The transform the workers apply. */
const feed__xform *feed__loader_xform(feed_loader *L);

/* The steps of feed_loader_create, in order, and how long each took
 * (bench/startupbench). */
extern const char *const feed__create_step_names[FEED__CREATE_STEPS];
void feed__loader_create_times(const feed_loader *L, uint64_t ns[FEED__CREATE_STEPS]);

#endif

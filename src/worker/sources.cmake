# src/worker: feed-worker. FEED_WORKER_LOOP_SOURCES are linked into the test programs too;
# FEED_WORKER_MAIN_SOURCES (the executable's main and its sandbox) only into feed-worker.
set(FEED_WORKER_LOOP_SOURCES
  src/worker/loop.c
)
set(FEED_WORKER_MAIN_SOURCES
  src/worker/main.c
  src/worker/sandbox.c
)

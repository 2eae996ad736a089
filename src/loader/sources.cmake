# src/loader: feed_loader_* and what only the parent runs for it.
set(FEED_LOADER_SOURCES
  src/loader/options.c
  src/loader/memroom.c
  src/loader/dlpack.c
  src/loader/sampler.c
  src/loader/readahead.c
  src/loader/device_select.c
  src/loader/badlog.c
  src/loader/schedule.c
  src/loader/create.c
  src/loader/ready.c
  src/loader/deliver.c
  src/loader/mix.c
  src/loader/position.c
  src/loader/info.c
  src/loader/stats.c
)

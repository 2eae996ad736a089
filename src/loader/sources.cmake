# src/loader: feed_loader_* and what only the parent runs for it.
set(FEED_LOADER_SOURCES
  src/loader/options.c
  src/loader/options_parse.c
  src/loader/launcher.c
  src/loader/fork.c
  src/loader/memroom.c
  src/loader/dlpack.c
  src/loader/sampler.c
  src/loader/readahead.c
  src/loader/fetchahead.c
  src/loader/device_select.c
  src/loader/badlog.c
  src/loader/schedule.c
  src/loader/create.c
  src/loader/ready.c
  src/loader/deliver.c
  src/loader/mix.c
  src/loader/recipe.c
  src/loader/position.c
  src/loader/info.c
  src/loader/stats.c
)
# MixUp's sums must stay two products and one sum, as the CUDA kernel
# computes them (pixels/post.h): never contracted into a fused multiply-add.
set_source_files_properties(src/loader/mix.c PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")

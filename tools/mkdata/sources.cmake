# tools/mkdata: feed-mkdata, the synthetic dataset generator (its parts: mkdata.h).
# A program on the core (feed_add_program): it uses libfeed's tar headers.
set(FEED_MKDATA_SOURCES
  tools/mkdata/field.c
  tools/mkdata/shapes.c
  tools/mkdata/scene.c
  tools/mkdata/encode.c
  tools/mkdata/files.c
  tools/mkdata/shards.c
  tools/mkdata/options.c
  tools/mkdata/output.c
  tools/mkdata/main.c
)

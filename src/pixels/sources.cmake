# src/pixels: the per-sample pipeline and its stages.
# FEED_PIXELS_PARENT_SOURCES: what the parent links too (the transform's rule set,
# checked at create; the host conversion, run by the host backend; RandomErasing's
# draws, which the parent makes for a device's kernel). The rest is feed-worker's.
set(FEED_PIXELS_PARENT_SOURCES
  src/pixels/xform.c
  src/pixels/convert.c
  src/pixels/erase.c
)
set(FEED_PIXELS_SOURCES
  ${FEED_PIXELS_PARENT_SOURCES}
  src/pixels/pipeline.c
  src/pixels/geometry.c
  src/pixels/resize.c
  src/pixels/resize_c.c
  src/pixels/resize_axis.c
  src/pixels/resize_sse2.c
  src/pixels/resize_avx2.c
  src/pixels/resize_avx512.c
  src/pixels/colour.c
  src/pixels/ycc.c
  src/pixels/augops.c
  src/pixels/augops_geom.c
  src/pixels/augops_lut.c
  src/pixels/augops_bilinear.c
  src/pixels/policy.c
)
# augops.c repeats torchvision's float32 arithmetic operation for operation:
# a contracted multiply-add would round differently.
# -O3 -fno-trapping-math: their elementwise loops vectorise, selects and
# float-to-int conversions included (with trapping math the compiler may
# not run a lane's operation that the scalar code would skip). Each lane
# rounds as the scalar operation does; no float reduction is reordered
# (that would take -fassociative-math); only the exception flags, which
# nothing reads, may differ.
set_source_files_properties(src/pixels/augops.c src/pixels/augops_geom.c src/pixels/augops_lut.c
                            src/pixels/augops_bilinear.c src/pixels/policy.c
                            PROPERTIES COMPILE_OPTIONS "-ffp-contract=off;-O3;-fno-trapping-math")
# An erased element's value is integer hashing and one float multiply,
# the same bits as the CUDA kernel's (pixels/post.h): nothing contracted.
set_source_files_properties(src/pixels/erase.c PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")

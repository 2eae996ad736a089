# src/decode: the decoders, each the only user of its codec library (feed-worker only).
set(FEED_DECODE_SOURCES
  src/decode/jpeg.c
  src/decode/jpeg_huff.c
  src/decode/jpeg_markers.c
  src/decode/jpeg_phuff.c
  src/decode/jpeg_planes.c
  src/decode/jpeg_selftest.c
  src/decode/png.c
  src/decode/webp.c
)

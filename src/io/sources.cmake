# src/io: the reader (io_uring or pread; whole files or byte ranges).
set(FEED_IO_SOURCES
  src/io/reader.c
  src/io/uring.c
)

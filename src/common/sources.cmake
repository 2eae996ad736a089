# src/common: status codes, the allocator; header-only: rng, pixel and format helpers.
# Depends on nothing. Linked into both processes.
set(FEED_COMMON_SOURCES
  src/common/status.c
  src/common/alloc.c
)

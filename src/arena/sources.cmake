# src/arena: the shared arena and the ring (both processes).
set(FEED_ARENA_SOURCES
  src/arena/arena.c
  src/arena/ring.c
)

# src/arena: the shared arena, the ring and its futexes (both processes).
set(FEED_ARENA_SOURCES
  src/arena/arena.c
  src/arena/ring.c
  src/arena/futex.c
)

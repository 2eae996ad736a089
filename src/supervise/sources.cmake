# src/supervise: the parent's watch over the workers: the pool, the trust boundary, the trace reader.
set(FEED_SUPERVISE_SOURCES
  src/supervise/claims.c
  src/supervise/output.c
  src/supervise/pool.c
  src/supervise/spawn.c
  src/supervise/verify.c
  src/supervise/trace.c
)

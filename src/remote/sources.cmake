# src/remote: shards named by URL. remote.c and fetcher.c are the parent's (in libfeed.so);
# feed-fetch, the helper process that downloads them, is the only program that
# links libcurl (FEED_FETCH_SOURCES, built when libcurl is found).
set(FEED_REMOTE_SOURCES
  src/remote/remote.c
  src/remote/fetcher.c
  src/remote/fetcher_ranges.c
  src/remote/rangeset.c
)
set(FEED_FETCH_SOURCES
  src/remote/fetch_main.c
  src/remote/fetch_http.c
  src/remote/fetch_cache.c
  src/remote/fetch_range.c
  src/remote/fetch_sandbox.c
)

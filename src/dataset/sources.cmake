# src/dataset: the index and its sources (folder scan, file list, tar shards, .npy, the scan cache, the saved shard index).
# Both processes: the parent builds the index, a worker reads its records.
set(FEED_DATASET_SOURCES
  src/dataset/source.c
  src/dataset/builder.c
  src/dataset/folder.c
  src/dataset/filelist.c
  src/dataset/csvlist.c
  src/dataset/index.c
  src/dataset/npy.c
  src/dataset/scancache.c
  src/dataset/shardcache.c
  src/dataset/tar.c
  src/dataset/tar_header.c
  src/dataset/shards.c
  src/dataset/targets.c
)

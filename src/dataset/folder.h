/*
 * folder.h - the ImageFolder source: ROOT/<class>/<image>, a class per
 * folder of the root in name order, the images under it (any depth) in name
 * order; names that are not an image's are counted and left out. A saved scan
 * (scancache.h) is reused while the folder is unchanged.
 */
#ifndef FEED_FOLDER_H
#define FEED_FOLDER_H

#include <stddef.h>

#include "dataset/index.h"
#include "feed.h"

/* Builds ix (zeroed, fd -1) from the folder tree at root (absolute, resolved),
 * with the saved scan as spec's scan_cache and scan_cache_path ask; note and
 * cache_hit as feed__index_spec says. */
feed_status feed__folder_index(feed__index *ix, const char *root, const feed__index_spec *spec, char *err,
                               size_t errlen);

#endif /* FEED_FOLDER_H */

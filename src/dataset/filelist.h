/*
 * filelist.h - the file-list source: a text file of "path label" lines
 * (blank lines and # comments skipped; the path may hold spaces, the label is
 * the last word, 0..FEED_MAX_LABEL).
 */
#ifndef FEED_FILELIST_H
#define FEED_FILELIST_H

#include <stddef.h>

#include "dataset/index.h"
#include "feed.h"

/* Builds ix (zeroed, fd -1) from the list at path list, its paths relative to
 * root (absolute, resolved). Errors name the list and the line. */
feed_status feed__filelist_index(feed__index *ix, const char *list, const char *root, char *err, size_t errlen);

#endif /* FEED_FILELIST_H */

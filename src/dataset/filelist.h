/*
 * filelist.h - the file-list source: a text file of "path label" lines
 * (blank lines and # comments skipped; the path may hold spaces, the label is
 * the last word, 0..FEED_MAX_LABEL). With multi_label, "path 3 17 42" or
 * "path 3,17,42": the labels are the last words that are integers or comma
 * lists of them (feed__labels_parse), at most FEED_MAX_SAMPLE_LABELS.
 */
#ifndef FEED_FILELIST_H
#define FEED_FILELIST_H

#include <stddef.h>

#include "dataset/index.h"
#include "feed.h"

/* Builds ix (zeroed, fd -1) from the list at path list, its paths relative to
 * root (absolute, resolved); multi_label 0: a line with several labels is an
 * error. Errors name the list and the line. */
feed_status feed__filelist_index(feed__index *ix, const char *list, const char *root, uint32_t multi_label,
                                 char *err, size_t errlen);

#endif /* FEED_FILELIST_H */

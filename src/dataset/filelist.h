/*
 * filelist.h - the file-list source: a text file of "path label" lines
 * (blank lines and # comments skipped; the path may hold spaces, the label is
 * the last word, 0..FEED_MAX_LABEL). With multi_label, "path 3 17 42" or
 * "path 3,17,42": the labels are the last words that are integers or comma
 * lists of them (feed__labels_parse), at most FEED_MAX_SAMPLE_LABELS.
 *
 * A list named *.csv or *.tsv has a header row instead (csvlist.c): the path
 * is the column named path, filepath, file_path, filename, file_name, file,
 * image_path or image (the first of these the header has, any case), the
 * label the one named label, labels, class, class_id or category (none: 0
 * for every sample; several labels in its cell with multi_label), and
 * target_columns (names separated by ':') the float32 columns of each
 * sample's target row. Other columns are ignored.
 */
#ifndef FEED_FILELIST_H
#define FEED_FILELIST_H

#include <stddef.h>

#include <stdio.h>

#include "dataset/builder.h"
#include "dataset/index.h"
#include "dataset/targets.h"
#include "feed.h"

#define FEED_CSV_MAX_TARGETS 4096u

/* The samples of the "path label" list at path list into b (b->multi_ok 0:
 * a line with several labels is an error). Errors name the list and the
 * line. source.c lays out the index of either kind of list. */
feed_status feed__filelist_build(feed__builder *b, const char *list, char *err, size_t errlen);
/* A list's text fit for a message (control bytes escaped): a feed__quote_fn. */
const char *feed__filelist_quote(char *dst, size_t dstlen, const char *src, size_t n);

/* Adds one listed sample (path[0..len), its nl labels) to b, keeping
 * *maxlabel; the errors name the list and line. */
feed_status feed__filelist_add(feed__builder *b, const char *list, uint64_t lineno, const char *path, size_t len,
                               const int32_t *labs, uint32_t nl, int64_t *maxlabel, char *err, size_t errlen);

/* The rows of a .csv (sep ',') or .tsv (sep '\t') list at f into b, and the
 * target_columns' values into *targets (zeroed when there are none). */
feed_status feed__csvlist_build(feed__builder *b, FILE *f, const char *list, char sep, const char *target_columns,
                                feed__targets *targets, feed__quote_fn quote, char *err, size_t errlen);

#endif /* FEED_FILELIST_H */

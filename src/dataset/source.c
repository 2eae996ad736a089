/*
 * source.c - which source the options name (tar shards, a .npy array, a file
 * list, an ImageFolder tree) and the builder of its index.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/internal.h"
#include "dataset/filelist.h"
#include "dataset/folder.h"
#include "dataset/index.h"
#include "dataset/npy.h"
#include "dataset/shards.h"

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = feed__malloc(n);
    return p ? memcpy(p, s, n) : NULL;
}

feed_status feed__index_build(feed__index *ix, const char *source, const char *file_list, char *err,
                              size_t errlen)
{
    feed__index_spec s = {.source = source, .file_list = file_list};
    return feed__index_build_spec(ix, &s, err, errlen);
}

/* A .csv or .tsv list: its separator; 0 for a plain list. */
static char csv_sep(const char *list)
{
    size_t n = strlen(list);
    if (n >= 4 && !strcasecmp(list + n - 4, ".csv"))
        return ',';
    if (n >= 4 && !strcasecmp(list + n - 4, ".tsv"))
        return '\t';
    return 0;
}

/* The index of a file list (filelist.h): a plain one, or a .csv/.tsv one with
 * its target columns; its paths relative to root (absolute, resolved). */
static feed_status list_index(feed__index *ix, const char *list, const char *root, uint32_t multi_label,
                              const char *target_columns, feed__targets *targets, char *err, size_t errlen)
{
    feed__builder b = {.multi_ok = multi_label};
    char sep = csv_sep(list);
    feed__targets none;
    if (!targets)
        targets = &none;
    *targets = (feed__targets){0};
    if (target_columns && *target_columns && !sep)
        return feed__err(FEED_E_INVALID, err, errlen,
                         "target_columns=%s: only a .csv or .tsv file list has named columns; %s is not one",
                         target_columns, list);
    feed_status st;
    if (sep) {
        FILE *f = fopen(list, "re");
        if (!f)
            return feed__dataset_sys_error(err, errlen, errno, "open file list", list);
        st = feed__csvlist_build(&b, f, list, sep, target_columns, targets, feed__filelist_quote, err, errlen);
        fclose(f);
    } else
        st = feed__filelist_build(&b, list, err, errlen);
    if (st == FEED_OK && b.n == 0)
        st = feed__err(FEED_E_DATASET, err, errlen,
                       "dataset: %s has no samples (*.jpg, *.jpeg, *.jpe, *.png, *.webp)", list);
    if (st == FEED_OK)
        st = feed__builder_finish(ix, &b, root, 0, FEED_INDEX_FILES, err, errlen);
    else
        feed__builder_free(&b);
    if (st != FEED_OK || targets == &none)
        feed__targets_free(targets);
    return st;
}

feed_status feed__index_build_spec(feed__index *ix, const feed__index_spec *spec, char *err, size_t errlen)
{
    memset(ix, 0, sizeof *ix);
    ix->fd = -1;
    char root[PATH_MAX];
    const char *source = spec->source, *file_list = spec->file_list;
    const char *list = file_list && *file_list ? file_list : NULL;
    const char *labels = spec->labels && *spec->labels ? spec->labels : NULL;
    feed_status st;
    struct stat sb;

    if (spec->note && spec->notelen)
        spec->note[0] = 0;
    /* Tar shards: a pattern, a .tar file, or a list of .tar paths. */
    char **shards = NULL;
    size_t nshards = 0;
    int is_shards = 0;
    if (spec->shard_paths) {
        if (!(shards = feed__calloc(spec->nshard_paths ? spec->nshard_paths : 1, sizeof *shards)))
            return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
        for (nshards = 0; nshards < spec->nshard_paths; nshards++)
            if (!(shards[nshards] = dup_str(spec->shard_paths[nshards]))) {
                feed__shards_free(shards, nshards);
                return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
            }
        is_shards = 1;
    } else if ((st = feed__shards_expand(source, file_list, &shards, &nshards, &is_shards, err, errlen)) != FEED_OK) {
        return st;
    }
    if ((is_shards || (source && feed__npy_is_source(source))) && spec->target_columns && *spec->target_columns) {
        feed__shards_free(shards, nshards);
        return feed__err(FEED_E_INVALID, err, errlen,
                         "target_columns=%s: only a .csv or .tsv file list has named columns; %s is not one",
                         spec->target_columns, source);
    }
    if (!is_shards && spec->nmeta) {
        feed__shards_free(shards, nshards);
        return feed__err(FEED_E_INVALID, err, errlen,
                         "meta_members=%s...: only tar shards have members; %s is not a shard set", spec->meta_exts[0],
                         source && *source ? source : file_list);
    }
    if (!is_shards && spec->target_member && *spec->target_member) {
        feed__shards_free(shards, nshards);
        return feed__err(FEED_E_INVALID, err, errlen,
                         "target_member=%s: only tar shards have members; %s is not a shard set", spec->target_member,
                         source && *source ? source : file_list);
    }
    if (is_shards && labels) {
        feed__shards_free(shards, nshards);
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: labels=%s is for a .npy array source; %s names tar shards", labels, source);
    }
    if (is_shards) {
        feed__shard_members mem = {spec->multi_label, spec->target_member, spec->targets, spec->meta_exts, spec->nmeta};
        if (spec->shard_open) /* the caller's: shards that come as they are scanned (remote ones) */
            st = feed__index_build_shards_with(ix, "/", shards, nshards, spec->shard_open, spec->shard_close,
                                               spec->shard_ctx, &mem, err, errlen);
        else
            st = feed__index_build_shards_with(ix, "/", shards, nshards, feed__shards_open, feed__shards_close,
                                               shards, &mem, err, errlen);
        feed__shards_free(shards, nshards);
        return st;
    }
    if (source && *source) {
        if (stat(source, &sb) != 0)
            return feed__err(FEED_E_DATASET, err, errlen, "dataset: %s: %s", source, strerror(errno));
        if (!S_ISDIR(sb.st_mode)) {
            if (list)
                return feed__err(FEED_E_DATASET, err, errlen,
                                 "dataset: source %s is not a directory", source);
            /* Kinds by their bytes: an array, else a file list. */
            if (S_ISREG(sb.st_mode) && feed__npy_is_source(source))
                return feed__npy_index_build(ix, source, labels, err, errlen);
            list = source;
        }
    }
    if (labels)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: labels=%s is for a .npy array source; %s is not one", labels,
                         list ? list : source ? source : "(no source)");
    if (list && access(list, R_OK) != 0)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: cannot open file list %s: %s", list,
                         strerror(errno));
    /* The directory paths are relative to. */
    const char *base = source && *source && S_ISDIR(sb.st_mode) ? source : NULL;
    char listdir[PATH_MAX];
    if (!base) {
        snprintf(listdir, sizeof listdir, "%s", list);
        char *slash = strrchr(listdir, '/');
        if (slash)
            slash == listdir ? (void)(slash[1] = 0) : (void)(*slash = 0);
        else
            strcpy(listdir, ".");
        base = listdir;
    }
    if (!realpath(base, root))
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: %s: %s", base, strerror(errno));
    if (strlen(root) >= FEED_PATH_MAX)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: root path too long");

    if (list)
        return list_index(ix, list, root, spec->multi_label, spec->target_columns, spec->targets, err, errlen);
    if (spec->target_columns && *spec->target_columns)
        return feed__err(FEED_E_INVALID, err, errlen,
                         "target_columns=%s: only a .csv or .tsv file list has named columns; %s is a folder",
                         spec->target_columns, source);
    return feed__folder_index(ix, root, spec, err, errlen);
}

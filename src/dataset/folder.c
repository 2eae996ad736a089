/*
 * folder.c - the ImageFolder source (folder.h): ROOT/<class>/<image> walked
 * in name order into an index, or a saved scan of it reused (scancache.h).
 */
#include "dataset/folder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/internal.h"
#include "dataset/builder.h"
#include "dataset/scancache.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The extensions an ImageFolder scan takes: every format a worker decodes
 * (pixels/pipeline.c picks the decoder from the bytes, so a .jpg holding a
 * PNG is fine). Other files are counted and named in the index (skipped). */
static int is_image_name(const char *name)
{
    static const char *const ext[] = {".jpg", ".jpeg", ".jpe", ".png", ".webp"};
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof ext / sizeof *ext; i++)
        if (!strcasecmp(dot, ext[i]))
            return 1;
    return 0;
}

/* Counts a file the scan leaves out and keeps its name among the first few. */
static void note_skipped(feed__builder *b, const char *path)
{
    size_t n = strlen(b->skipped_names);
    if (b->skipped < FEED_INDEX_SKIPPED_SHOWN && n + strlen(path) + 3 < sizeof b->skipped_names)
        snprintf(b->skipped_names + n, sizeof b->skipped_names - n, "%s%s", n ? ", " : "", path);
    b->skipped++;
}

/* Sorted names in dir (skipping dot files). */
static feed_status list_dir(int dirfd, const char *shown, char ***names_out, size_t *n_out,
                            char *err, size_t errlen)
{
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return feed__dataset_sys_error(err, errlen, e, "read directory", shown);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    feed_status st = FEED_OK;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **p = feed__realloc(names, cap * sizeof *p);
            if (!p) {
                st = FEED_E_NOMEM;
                break;
            }
            names = p;
        }
        size_t len = strlen(de->d_name) + 1;
        if (!(names[n] = feed__malloc(len))) { /* not strdup: the fault tests fail it */
            st = FEED_E_NOMEM;
            break;
        }
        memcpy(names[n], de->d_name, len);
        n++;
    }
    closedir(d);
    if (st != FEED_OK) {
        for (size_t i = 0; i < n; i++)
            feed__free(names[i]);
        feed__free(names);
        return feed__err(st, err, errlen, "dataset: out of memory listing %s", shown);
    }
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    *names_out = names;
    *n_out = n;
    return FEED_OK;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        feed__free(names[i]);
    feed__free(names);
}

/* Adds every image under rel (a path relative to the root), recursively. */
static feed_status walk_class(feed__builder *b, int rootfd, const char *rel, int32_t label, int depth,
                              char *err, size_t errlen)
{
    if (depth > 32)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: %s: too deeply nested", rel);
    int fd = openat(rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return feed__dataset_sys_error(err, errlen, errno, "open", rel);
    char **names;
    size_t n;
    struct stat ds;
    if (b->dirs && (fstat(fd, &ds) != 0 || feed__scan_dirs_add(b->dirs, rel, &ds) != 0)) {
        close(fd);
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
    }
    feed_status st = list_dir(fd, rel, &names, &n, err, errlen);
    if (st != FEED_OK) {
        close(fd);
        return st;
    }
    char path[PATH_MAX];
    for (size_t i = 0; i < n && st == FEED_OK; i++) {
        int len = snprintf(path, sizeof path, "%s/%s", rel, names[i]);
        if (len < 0 || (size_t)len >= sizeof path) {
            st = feed__err(FEED_E_DATASET, err, errlen, "dataset: path too long under %s", rel);
            break;
        }
        struct stat sb;
        if (fstatat(fd, names[i], &sb, 0) != 0)
            continue; /* a dangling link: not a sample */
        if (S_ISDIR(sb.st_mode))
            st = walk_class(b, rootfd, path, label, depth + 1, err, errlen);
        else if (S_ISREG(sb.st_mode) && !is_image_name(names[i]))
            note_skipped(b, path);
        else if (S_ISREG(sb.st_mode) && feed__builder_add_entry(b, path, (size_t)len, label))
            st = feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
    }
    free_names(names, n);
    close(fd);
    return st;
}

static feed_status build_folder(feed__builder *b, int rootfd, const char *root, char *err, size_t errlen)
{
    char **names;
    size_t n;
    feed_status st = list_dir(rootfd, root, &names, &n, err, errlen);
    if (st != FEED_OK)
        return st;
    for (size_t i = 0; i < n && st == FEED_OK; i++) {
        struct stat sb;
        if (fstatat(rootfd, names[i], &sb, 0) != 0 || !S_ISDIR(sb.st_mode))
            continue;
        if (b->nclasses > FEED_MAX_LABEL)
            st = feed__err(FEED_E_DATASET, err, errlen,
                           "dataset: %s has more than %u class folders (labels are int32)", root,
                           FEED_MAX_LABEL + 1u);
        else if (feed__builder_add_class(b, names[i]))
            st = feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
        else
            st = walk_class(b, rootfd, names[i], (int32_t)(b->nclasses - 1), 0, err, errlen);
    }
    free_names(names, n);
    if (st == FEED_OK && b->nclasses == 0)
        st = feed__err(FEED_E_DATASET, err, errlen,
                       "dataset: %s has no class folders (expected ROOT/<class>/<image>.jpg)", root);
    return st;
}

uint32_t feed__index_scan_rules(void)
{
    static const char *const probe[] = {".jpg", ".jpeg", ".jpe", ".JPG", ".png", ".webp", ".bmp", ".gif",
                                        ".tif", ".tiff", ".ppm", ".pgm", ".avif", ".heic", ".jxl", ".PNG",
                                        ".WebP", ".npy", ".txt", ""};
    uint32_t m = FEED_INDEX_VERSION << 24;
    for (uint32_t i = 0; i < FEED_ARRAY_SIZE(probe); i++) {
        char name[16];
        snprintf(name, sizeof name, "x%s", probe[i]);
        m |= (uint32_t)is_image_name(name) << i;
    }
    return m;
}

/* A class folder without an image: an error naming it unless allowed (as
 * torchvision's ImageFolder raises without allow_empty=True). Checked on the
 * index, so a saved scan is held to it as a fresh one is. */
static feed_status check_empty_classes(const feed__index_hdr *h, const char *root, uint32_t allow, char *err,
                                       size_t errlen)
{
    if (allow || !h->named_classes || !h->nclasses)
        return FEED_OK;
    uint8_t *seen = feed__calloc(h->nclasses, 1);
    if (!seen)
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
    for (uint64_t i = 0; i < h->count; i++) {
        int32_t l = feed__index_label(h, i);
        if (l >= 0 && (uint32_t)l < h->nclasses)
            seen[l] = 1;
    }
    uint32_t empty = 0, first = UINT32_MAX;
    for (uint32_t c = 0; c < h->nclasses; c++)
        if (!seen[c] && empty++ == 0)
            first = c;
    feed__free(seen);
    if (!empty)
        return FEED_OK;
    return feed__err(FEED_E_DATASET, err, errlen,
                     "dataset: %s: class folder '%s' has no images (*.jpg, *.jpeg, *.jpe, *.png, *.webp; "
                     "%u such folder%s): remove it, or set allow_empty_classes=1 to keep its label with no "
                     "samples (torchvision's ImageFolder(allow_empty=True))",
                     root, feed__index_class(h, first), empty, empty > 1 ? "s" : "");
}

feed_status feed__folder_index(feed__index *ix, const char *root, const feed__index_spec *spec, char *err,
                               size_t errlen)
{
    feed__builder b = {0};
    feed_status st;

    /* A saved scan (scancache.h): reused when current, else made. */
    feed__scan_dirs dirs = {0};
    char cache[PATH_MAX], note[1024] = "";
    int64_t scan_start = 0;
    int cached = spec->scan_cache && feed__scancache_path(cache, sizeof cache, root, spec->scan_cache_path);
    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return feed__dataset_sys_error(err, errlen, errno, "open", root);
    if (cached) {
        feed__index_hdr *h;
        if (feed__scancache_load(cache, rootfd, root, feed__index_scan_rules(), &h, &ix->skipped,
                                 ix->skipped_names, note, sizeof note)) {
            close(rootfd);
            ix->hdr = h;
            if (spec->cache_hit)
                *spec->cache_hit = 1;
            if ((st = check_empty_classes(h, root, spec->allow_empty_classes, err, errlen)) != FEED_OK)
                feed__index_free(ix); /* a failed build leaves nothing */
            return st;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        scan_start = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
        b.dirs = &dirs;
    }
    st = build_folder(&b, rootfd, root, err, errlen);
    close(rootfd);
    if (st == FEED_OK && b.n == 0 && b.skipped)
        st = feed__err(FEED_E_DATASET, err, errlen,
                       "dataset: %s has no samples (*.jpg, *.jpeg, *.jpe, *.png, *.webp); skipped "
                       "%llu files of other extensions: %s%s",
                       root, (unsigned long long)b.skipped, b.skipped_names,
                       b.skipped > FEED_INDEX_SKIPPED_SHOWN ? ", ..." : "");
    else if (st == FEED_OK && b.n == 0)
        st = feed__err(FEED_E_DATASET, err, errlen,
                       "dataset: %s has no samples (*.jpg, *.jpeg, *.jpe, *.png, *.webp)", root);
    if (st != FEED_OK) {
        feed__builder_free(&b);
        feed__scan_dirs_free(&dirs);
        return st;
    }

    ix->skipped = b.skipped;
    memcpy(ix->skipped_names, b.skipped_names, sizeof ix->skipped_names);
    if ((st = feed__builder_finish(ix, &b, root, 1, FEED_INDEX_FILES, err, errlen)) != FEED_OK) {
        feed__scan_dirs_free(&dirs);
        return st;
    }
    if ((st = check_empty_classes(ix->hdr, root, spec->allow_empty_classes, err, errlen)) != FEED_OK) {
        feed__index_free(ix); /* a failed build leaves nothing */
        feed__scan_dirs_free(&dirs);
        return st;
    }
    if (cached) {
        char saved[1024];
        feed__scancache_save(cache, ix->hdr, &dirs, feed__index_scan_rules(), scan_start, ix->skipped,
                             ix->skipped_names, saved, sizeof saved);
        feed__scan_dirs_free(&dirs);
        if (spec->note && spec->notelen)
            snprintf(spec->note, spec->notelen, "%s%s%s", note, note[0] ? "; " : "", saved);
    }
    return FEED_OK;
}

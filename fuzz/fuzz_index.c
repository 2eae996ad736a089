/*
 * fuzz_index.c - the dataset index builder (src/dataset/source.c, folder.c, filelist.c) on untrusted input:
 * "path label" file lists and ImageFolder trees.
 *
 * Input: one mode byte, then the rest.
 *   mode bit 0 clear: the rest is a file list, written to a temporary file and
 *     given as file_list (bit 1: as source instead; bit 2: with source = its
 *     folder).
 *   mode bit 0 set: the rest is a tree, one relative path a line ("a/b.jpg";
 *     a trailing '/' makes a folder, "name -> target" a symbolic link), made
 *     under a temporary root that is then indexed as an ImageFolder; at most
 *     FZ_MAX_LINES lines and FZ_MAX_DEPTH components a line, no "." or ".."
 *     component, no link to an absolute path.
 * Bit 3: share the index through its memfd and attach it again, as the
 * workers do. Bit 4: build it with multi_label=1 too. Properties: the build
 * succeeds or fails with a message; a built index is consistent (every path
 * NUL-terminated at its length inside the pool, labels below nclasses; for a
 * folder, each path under its class's folder, an image name, and a file that
 * exists); with multi_label, every sample's labels 1..FEED_MAX_SAMPLE_LABELS,
 * none twice, all below nclasses, the label pool inside the index, and a
 * list accepted without multi_label gives the same bytes with it.
 * Bit 5: the list is a .csv (bit 6: a .tsv) with a header row, and is built
 * also with target_columns=x:y (bit 7: x only): accepted, it gives one
 * float32 row of 2 (1) values a sample, and the same index as without them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataset/index.h"
#include "dataset/targets.h"
#include "fuzz.h"

#define FZ_MAX_LINES 48
#define FZ_MAX_DEPTH 40

static char base[PATH_MAX]; /* this process's scratch folder */

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb, (void)flag, (void)f;
    return remove(p) == 0 || errno == ENOENT ? 0 : -1;
}

static void rmtree(const char *p)
{
    nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *tmp = getenv("FEED_TEST_TMP");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    mkdir(tmp, 0755);
    snprintf(base, sizeof base, "%s/fuzz-index-XXXXXX", tmp);
    FZ_CHECK(mkdtemp(base), "mkdtemp %s: %s", base, strerror(errno));
    return 0;
}

static void remove_base(void) __attribute__((destructor));
static void remove_base(void)
{
    if (base[0])
        rmtree(base);
}

/* Makes the tree the lines describe under root (best effort: a line that
 * cannot be made is skipped, as a dataset would simply lack it). */
static void make_tree(const char *root, const uint8_t *p, size_t n)
{
    char line[PATH_MAX];
    int lines = 0;
    while (n && lines < FZ_MAX_LINES) {
        const uint8_t *nl = memchr(p, '\n', n);
        size_t len = nl ? (size_t)(nl - p) : n;
        size_t take = len < sizeof line - 1 ? len : sizeof line - 1;
        memcpy(line, p, take);
        line[take] = 0;
        p += len + (nl != NULL);
        n -= len + (nl != NULL);
        lines++;
        if (strlen(line) != take)
            continue; /* a NUL inside: not a path */
        char *target = strstr(line, " -> ");
        if (target) {
            *target = 0;
            target += 4;
            if (target[0] == '/')
                continue; /* out of the tree: the host's files are no input */
        }
        /* walk the components, making the folders */
        char path[PATH_MAX * 2];
        size_t at = (size_t)snprintf(path, sizeof path, "%s", root);
        int depth = 0, ok = 1;
        char *save = NULL;
        int dir = take && line[take - 1] == '/' && !target;
        char *c = strtok_r(line, "/", &save);
        while (c && ok) {
            char *next = strtok_r(NULL, "/", &save);
            if (!strcmp(c, ".") || !strcmp(c, "..") || ++depth > FZ_MAX_DEPTH ||
                at + 1 + strlen(c) >= sizeof path) {
                ok = 0;
                break;
            }
            at += (size_t)snprintf(path + at, sizeof path - at, "/%s", c);
            if (next || dir)
                mkdir(path, 0755);
            else if (target)
                ok = symlink(target, path) == 0;
            else {
                int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                ok = fd >= 0 && close(fd) == 0;
            }
            c = next;
        }
    }
}

static int is_image_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg") || !strcasecmp(dot, ".jpe") ||
                   !strcasecmp(dot, ".png") || !strcasecmp(dot, ".webp"));
}

/* Regular files under dir (recursively, dot names left out, links
 * followed), counted as images and others by name. */
static void count_files(const char *dir, int depth, uint64_t *images, uint64_t *others)
{
    DIR *d = depth <= 33 ? opendir(dir) : NULL;
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char p[PATH_MAX * 2];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (stat(p, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode))
            count_files(p, depth + 1, images, others);
        else if (S_ISREG(sb.st_mode))
            ++*(is_image_name(de->d_name) ? images : others);
    }
    closedir(d);
}

/* An ImageFolder index took every image file of its class folders and
 * counted every other one as skipped, naming the first few. */
static void check_skipped(const feed__index *ix)
{
    uint64_t images = 0, others = 0;
    count_files(ix->hdr->root, -1, &images, &others); /* the root's files are no class's */
    uint64_t root_images = 0, root_others = 0;
    DIR *d = opendir(ix->hdr->root);
    FZ_CHECK(d, "opendir %s", ix->hdr->root);
    struct dirent *de;
    while ((de = readdir(d))) {
        char p[PATH_MAX * 2];
        snprintf(p, sizeof p, "%s/%s", ix->hdr->root, de->d_name);
        struct stat sb;
        if (de->d_name[0] != '.' && stat(p, &sb) == 0 && S_ISREG(sb.st_mode))
            ++*(is_image_name(de->d_name) ? &root_images : &root_others);
    }
    closedir(d);
    FZ_CHECK(images - root_images == ix->hdr->count, "%llu images in class folders, %llu indexed",
             (unsigned long long)(images - root_images), (unsigned long long)ix->hdr->count);
    FZ_CHECK(others - root_others == ix->skipped, "%llu other files in class folders, %llu skipped",
             (unsigned long long)(others - root_others), (unsigned long long)ix->skipped);
    FZ_CHECK(memchr(ix->skipped_names, 0, sizeof ix->skipped_names), "skipped names not terminated");
    /* (a first name too long for the buffer leaves it empty) */
    FZ_CHECK(ix->skipped || !ix->skipped_names[0], "skipped 0, names '%s'", ix->skipped_names);
}

/* Every sample's labels: one unless the index has a label pool; the pool's
 * starts rising, inside the index; each label below nclasses, none twice. */
static void check_labels(const feed__index_hdr *h)
{
    FZ_CHECK(h->max_labels >= 1 && h->max_labels <= FEED_MAX_SAMPLE_LABELS, "max_labels %u", h->max_labels);
    if (!h->nextra) {
        FZ_CHECK(h->max_labels == 1 && !h->xstarts_off && !h->xlabels_off, "no label pool, max_labels %u",
                 h->max_labels);
        return;
    }
    FZ_CHECK(h->xstarts_off >= h->pool_off + h->pool_bytes &&
                 h->xlabels_off == h->xstarts_off + (h->count + 1) * 4 &&
                 h->xlabels_off + h->nextra * 4 <= h->total_bytes, "label pool out of place");
    const uint32_t *st = (const uint32_t *)((const char *)h + h->xstarts_off);
    FZ_CHECK(st[0] == 0 && st[h->count] == h->nextra, "starts 0..%u, %llu extra labels", st[h->count],
             (unsigned long long)h->nextra);
    uint32_t most = 1;
    for (uint64_t i = 0; i < h->count; i++) {
        FZ_CHECK(st[i] <= st[i + 1], "starts fall at sample %llu", (unsigned long long)i);
        const int32_t *x;
        uint32_t n = feed__index_labels(h, i, &x);
        most = n > most ? n : most;
        int32_t first = feed__index_label(h, i);
        for (uint32_t k = 0; k + 1 < n; k++) {
            FZ_CHECK(x[k] >= 0 && (uint32_t)x[k] < h->nclasses, "sample %llu: label %d of %u",
                     (unsigned long long)i, x[k], h->nclasses);
            FZ_CHECK(x[k] != first, "sample %llu: label %d twice", (unsigned long long)i, first);
            for (uint32_t j = 0; j < k; j++)
                FZ_CHECK(x[j] != x[k], "sample %llu: label %d twice", (unsigned long long)i, x[k]);
        }
    }
    FZ_CHECK(most == h->max_labels, "max_labels %u, the most %u", h->max_labels, most);
}

static void check_index(const feed__index_hdr *h, int folder)
{
    FZ_CHECK(h->magic == FEED_INDEX_MAGIC && h->version == FEED_INDEX_VERSION, "bad header");
    FZ_CHECK(h->count >= 1, "an index of %llu samples", (unsigned long long)h->count);
    FZ_CHECK(h->nclasses >= 1 && h->nclasses - 1 <= FEED_MAX_LABEL, "nclasses %u", h->nclasses);
    FZ_CHECK(h->named_classes == (uint32_t)folder, "named_classes %u", h->named_classes);
    FZ_CHECK(memchr(h->root, 0, sizeof h->root) && h->root[0] == '/', "root not absolute");
    FZ_CHECK(h->pool_off + h->pool_bytes <= h->total_bytes, "pool past the end");
    FZ_CHECK(h->entries_off + h->count * sizeof(feed__index_entry) <= h->classes_off, "entries overlap");
    const feed__index_entry *e = feed__index_entries(h);
    const char *pool = (const char *)h + h->pool_off;
    for (uint64_t i = 0; i < h->count; i++) {
        FZ_CHECK(e[i].path_off + e[i].path_len < h->pool_bytes, "entry %llu past the pool",
                 (unsigned long long)i);
        const char *p = feed__index_path(h, i);
        FZ_CHECK(p[e[i].path_len] == 0 && memchr(p, 0, e[i].path_len) == NULL,
                 "entry %llu: path not NUL-terminated at its length", (unsigned long long)i);
        FZ_CHECK(e[i].label >= 0 && (uint32_t)e[i].label < h->nclasses, "entry %llu: label %d of %u",
                 (unsigned long long)i, e[i].label, h->nclasses);
        if (!folder)
            continue;
        const char *cls = feed__index_class(h, (uint32_t)e[i].label);
        size_t cl = strlen(cls);
        FZ_CHECK(cls >= pool && !strncmp(p, cls, cl) && p[cl] == '/', "entry %llu (%s) not under class %s",
                 (unsigned long long)i, p, cls);
        const char *slash = strrchr(p, '/');
        FZ_CHECK(is_image_name(slash + 1), "entry %s: not an image name", p);
        char full[PATH_MAX * 2];
        snprintf(full, sizeof full, "%s/%s", h->root, p);
        struct stat sb;
        FZ_CHECK(stat(full, &sb) == 0 && S_ISREG(sb.st_mode), "entry %s: not a file", full);
    }
    check_labels(h);
    if (folder)
        for (uint32_t c = 1; c < h->nclasses; c++)
            FZ_CHECK(strcmp(feed__index_class(h, c - 1), feed__index_class(h, c)) < 0,
                     "class names not sorted");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (!base[0])
        LLVMFuzzerInitialize(NULL, NULL);
    uint8_t mode = data[0];
    const uint8_t *rest = data + 1;
    size_t n = size - 1;
    char dir[PATH_MAX + 8], list[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/t", base);
    rmtree(dir);
    FZ_CHECK(mkdir(dir, 0755) == 0, "mkdir %s: %s", dir, strerror(errno));
    const char *source = "", *file_list = "";
    int folder = mode & 1;
    if (folder) {
        make_tree(dir, rest, n);
        source = dir;
    } else {
        snprintf(list, sizeof list, "%s/list.%s", dir, mode & 32 ? (mode & 64 ? "tsv" : "csv") : "txt");
        FILE *f = fopen(list, "wb");
        FZ_CHECK(f && fwrite(rest, 1, n, f) == n && fclose(f) == 0, "writing %s", list);
        if (mode & 2)
            source = list;
        else
            file_list = list, source = mode & 4 ? dir : "";
    }
    feed__index ix;
    char err[1024];
    err[0] = 0;
    feed_status st = feed__index_build(&ix, source, file_list, err, sizeof err);
    FZ_CHECK(st == FEED_OK || st == FEED_E_DATASET, "status %s: %s", feed_status_name(st), err);
    FZ_CHECK(st == FEED_OK || (err[0] && memchr(err, 0, sizeof err)), "an error without a message");
    if (st == FEED_OK) {
        check_index(ix.hdr, folder);
        if (folder)
            check_skipped(&ix);
        if (mode & 8) {
            st = feed__index_share(&ix, err, sizeof err);
            FZ_CHECK(st == FEED_OK, "share: %s", err);
            feed__index w;
            st = feed__index_attach(&w, ix.fd, err, sizeof err);
            FZ_CHECK(st == FEED_OK, "attach: %s", err);
            FZ_CHECK(!memcmp(w.hdr, ix.hdr, ix.hdr->total_bytes), "attached index differs");
            check_index(w.hdr, folder);
            feed__index_free(&w);
        }
    }
    if (mode & 16) { /* multi_label=1: a superset of what one label a line accepts */
        feed__index m;
        char merr[1024] = "";
        feed__index_spec spec = {.source = source, .file_list = file_list, .multi_label = 1};
        feed_status ms = feed__index_build_spec(&m, &spec, merr, sizeof merr);
        FZ_CHECK(ms == FEED_OK || ms == FEED_E_DATASET, "multi_label: status %s: %s", feed_status_name(ms), merr);
        FZ_CHECK(ms == FEED_OK || (merr[0] && memchr(merr, 0, sizeof merr)), "an error without a message");
        FZ_CHECK(st != FEED_OK || ms == FEED_OK, "accepted with one label a line, refused with multi_label: %s",
                 merr);
        if (ms == FEED_OK) {
            check_index(m.hdr, folder);
            FZ_CHECK(st != FEED_OK || (m.hdr->total_bytes == ix.hdr->total_bytes &&
                                       !memcmp(m.hdr, ix.hdr, ix.hdr->total_bytes)),
                     "a single-label index differs with multi_label");
            feed__index_free(&m);
        }
    }
    if (!folder && (mode & 32)) { /* the header's columns as targets */
        feed__index c;
        feed__targets tg;
        char cerr[1024] = "";
        const char *cols = mode & 128 ? "x" : "x:y";
        feed__index_spec spec = {.source = source, .file_list = file_list, .target_columns = cols, .targets = &tg};
        feed_status cs = feed__index_build_spec(&c, &spec, cerr, sizeof cerr);
        FZ_CHECK(cs == FEED_OK || cs == FEED_E_DATASET, "target_columns: status %s: %s", feed_status_name(cs), cerr);
        FZ_CHECK(cs == FEED_OK || (cerr[0] && memchr(cerr, 0, sizeof cerr)), "an error without a message");
        if (cs == FEED_OK) {
            check_index(c.hdr, folder);
            FZ_CHECK(tg.dim == (mode & 128 ? 1u : 2u) && tg.n == c.hdr->count && tg.elem == 4 && tg.data,
                     "targets %u x %llu for %llu samples", tg.dim, (unsigned long long)tg.n,
                     (unsigned long long)c.hdr->count);
            FZ_CHECK(st == FEED_OK && c.hdr->total_bytes == ix.hdr->total_bytes &&
                         !memcmp(c.hdr, ix.hdr, ix.hdr->total_bytes),
                     "the index differs with target_columns");
            feed__targets_free(&tg);
            feed__index_free(&c);
        }
    }
    if (st == FEED_OK)
        feed__index_free(&ix);
    rmtree(dir);
    return 0;
}

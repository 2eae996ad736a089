/*
 * index.c - build the dataset index (ImageFolder tree or "path label" list)
 * into one compact allocation, then share it read-only through a memfd.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dataset/index.h"

#include "common/format.h"
#include "common/internal.h"
#include "dataset/npy.h"
#include "dataset/scancache.h"
#include "dataset/shards.h"
#include "dataset/tar.h"

typedef struct builder {
    feed__index_entry *ents;
    uint64_t n, cap;
    char *pool;
    uint64_t pool_len, pool_cap;
    uint64_t *classes;
    uint32_t nclasses, classes_cap;
    uint64_t skipped;                       /* files of other extensions in class folders */
    char skipped_names[FEED_INDEX_SKIPPED_NAMES]; /* the first few, "a/x.gif, a/y.txt" */
    feed__scan_dirs *dirs; /* the directories read, for a saved scan (NULL: not kept) */
    uint64_t *shards; /* pool offsets of the shard paths */
    uint64_t nshards, shards_cap;
    uint64_t problems;
    char first_problem[FEED_INDEX_SKIPPED_NAMES]; /* the first one's report */
} builder;

static int pool_add(builder *b, const char *s, size_t len, uint64_t *off)
{
    if (b->pool_len + len + 1 > b->pool_cap) {
        uint64_t cap = b->pool_cap ? b->pool_cap : 4096;
        while (cap < b->pool_len + len + 1)
            cap *= 2;
        char *p = feed__realloc(b->pool, cap);
        if (!p)
            return -1;
        b->pool = p, b->pool_cap = cap;
    }
    memcpy(b->pool + b->pool_len, s, len);
    b->pool[b->pool_len + len] = 0;
    *off = b->pool_len;
    b->pool_len += len + 1;
    return 0;
}

/* Room for one more entry: the next one, b->ents[b->n] (not counted yet),
 * or NULL on out of memory. */
static feed__index_entry *next_entry(builder *b)
{
    if (b->n == b->cap) {
        uint64_t cap = b->cap ? b->cap * 2 : 1024;
        feed__index_entry *e = feed__realloc(b->ents, cap * sizeof *e);
        if (!e)
            return NULL;
        b->ents = e, b->cap = cap;
    }
    return &b->ents[b->n];
}

static int add_entry(builder *b, const char *path, size_t len, int32_t label)
{
    feed__index_entry *e = next_entry(b);
    if (!e)
        return -1;
    if (pool_add(b, path, len, &e->path_off))
        return -1;
    e->label = label;
    e->path_len = (uint32_t)len;
    b->n++;
    return 0;
}

static int add_class(builder *b, const char *name)
{
    if (b->nclasses == b->classes_cap) {
        uint32_t cap = b->classes_cap ? b->classes_cap * 2 : 64;
        uint64_t *c = feed__realloc(b->classes, cap * sizeof *c);
        if (!c)
            return -1;
        b->classes = c, b->classes_cap = cap;
    }
    return pool_add(b, name, strlen(name), &b->classes[b->nclasses++]);
}

static void builder_free(builder *b)
{
    feed__free(b->ents);
    feed__free(b->pool);
    feed__free(b->classes);
    feed__free(b->shards);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The extensions an ImageFolder scan takes: every format a worker decodes
 * (image.c picks the decoder from the bytes, so a .jpg holding a PNG is
 * fine). Other files are counted and named in the index (skipped). */
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
static void note_skipped(builder *b, const char *path)
{
    size_t n = strlen(b->skipped_names);
    if (b->skipped < FEED_INDEX_SKIPPED_SHOWN && n + strlen(path) + 3 < sizeof b->skipped_names)
        snprintf(b->skipped_names + n, sizeof b->skipped_names - n, "%s%s", n ? ", " : "", path);
    b->skipped++;
}

/* An open/read failure: out of fds or memory is the machine's limit, not a
 * dataset error, and says what to raise. */
static feed_status sys_error(char *err, size_t errlen, int e, const char *what, const char *path)
{
    if (e == EMFILE || e == ENFILE)
        return feed__err(FEED_E_RESOURCE, err, errlen,
                         "dataset: cannot %s %s: %s (out of file descriptors: raise ulimit -n)", what,
                         path, strerror(e));
    if (e == ENOMEM)
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: cannot %s %s: %s", what, path, strerror(e));
    return feed__err(FEED_E_DATASET, err, errlen, "dataset: cannot %s %s: %s", what, path, strerror(e));
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
        return sys_error(err, errlen, e, "read directory", shown);
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
static feed_status walk_class(builder *b, int rootfd, const char *rel, int32_t label, int depth,
                              char *err, size_t errlen)
{
    if (depth > 32)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: %s: too deeply nested", rel);
    int fd = openat(rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return sys_error(err, errlen, errno, "open", rel);
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
        else if (S_ISREG(sb.st_mode) && add_entry(b, path, (size_t)len, label))
            st = feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
    }
    free_names(names, n);
    close(fd);
    return st;
}

static feed_status build_folder(builder *b, int rootfd, const char *root, char *err, size_t errlen)
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
        else if (add_class(b, names[i]))
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

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    size_t k = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!k || k > n)
        return 0;
    unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < k; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return k;
}

/* src[0..n) for an error message: printable ASCII and valid UTF-8 as is,
 * backslash and every other byte as \xNN, "..." when dst is too short.
 * Raw bytes of a binary file never reach a terminal. Returns dst. */
static const char *escape(char *dst, size_t dstlen, const char *src, size_t n)
{
    const unsigned char *p = (const unsigned char *)src;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = p[i] >= 0x80 ? utf8_len(p + i, n - i) : 0;
        size_t need = k ? k : p[i] >= 0x20 && p[i] < 0x7F && p[i] != '\\' ? 1 : 4;
        if (o + need + 4 > dstlen) { /* room for "..." and the NUL */
            if (dstlen >= 4) {
                memcpy(dst + (o < dstlen - 4 ? o : dstlen - 4), "...", 4);
                return dst;
            }
            break;
        }
        if (need == 4)
            snprintf(dst + o, 5, "\\x%02x", p[i]);
        else
            memcpy(dst + o, p + i, need);
        o += need;
        i += k ? k : 1;
    }
    if (dstlen)
        dst[o < dstlen ? o : dstlen - 1] = 0;
    return dst;
}

static feed_status build_list(builder *b, const char *list, char *err, size_t errlen)
{
    FILE *f = fopen(list, "re");
    if (!f)
        return sys_error(err, errlen, errno, "open file list", list);
    /* An image given as source (or file_list): say so, instead of quoting
     * its bytes as a malformed line. */
    unsigned char head[16];
    size_t nhead = fread(head, 1, sizeof head, f);
    const char *fmt = feed__image_format(head, nhead);
    if (fmt) {
        char shown[4 * 8 + 4];
        fclose(f);
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: %s starts with %s (%s): this looks like an image, not a file "
                         "list; give an ImageFolder root directory (ROOT/<class>/<image>.jpg) or a "
                         "text file of 'path label' lines",
                         list, escape(shown, sizeof shown, (const char *)head, nhead < 8 ? nhead : 8),
                         fmt);
    }
    rewind(f);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    uint64_t lineno = 0;
    int64_t maxlabel = -1;
    feed_status st = FEED_OK;
    while (st == FEED_OK && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (memchr(line, 0, (size_t)len)) {
            char shown[4 * 60 + 4];
            st = feed__err(FEED_E_DATASET, err, errlen,
                           "dataset: %s:%llu: a NUL byte in '%s': a binary file, not a text file "
                           "list of 'path label' lines?",
                           list, (unsigned long long)lineno, escape(shown, sizeof shown, line, (size_t)len));
            break;
        }
        while (len > 0 && isspace((unsigned char)line[len - 1]))
            line[--len] = 0;
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '#')
            continue;
        char *sp = s + strlen(s);
        while (sp > s && !isspace((unsigned char)sp[-1]))
            sp--;
        if (sp == s) {
            char shown[4 * 200 + 4];
            st = feed__err(FEED_E_DATASET, err, errlen,
                           "dataset: %s:%llu: expected 'path label', got '%s'", list,
                           (unsigned long long)lineno, escape(shown, sizeof shown, s, strlen(s)));
            break;
        }
        const char *digits = sp + (*sp == '+');
        if (!*digits || strspn(digits, "0123456789") != strlen(digits)) {
            char shown[4 * 60 + 4];
            st = feed__err(FEED_E_DATASET, err, errlen,
                           "dataset: %s:%llu: label '%s' is not a non-negative integer", list,
                           (unsigned long long)lineno, escape(shown, sizeof shown, sp, strlen(sp)));
            break;
        }
        errno = 0;
        unsigned long long lab = strtoull(digits, NULL, 10);
        if (errno == ERANGE || lab > FEED_MAX_LABEL) {
            char shown[4 * 60 + 4];
            st = feed__err(FEED_E_DATASET, err, errlen,
                           "dataset: %s:%llu: label %s is out of range: labels are 0..%u (int32)",
                           list, (unsigned long long)lineno,
                           escape(shown, sizeof shown, sp, strlen(sp)), FEED_MAX_LABEL);
            break;
        }
        char *pe = sp;
        while (pe > s && isspace((unsigned char)pe[-1]))
            pe--;
        *pe = 0;
        if (add_entry(b, s, (size_t)(pe - s), (int32_t)lab))
            st = feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
        if ((int64_t)lab > maxlabel)
            maxlabel = (int64_t)lab;
    }
    if (st == FEED_OK && ferror(f))
        st = feed__err(FEED_E_DATASET, err, errlen, "dataset: error reading %s: %s", list,
                       strerror(errno));
    free(line);
    fclose(f);
    /* 0..2^31: only a count; a file list has no per-class table */
    b->nclasses = (uint32_t)(maxlabel + 1);
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

/* Lays the builder out as one allocation in ix (and frees the builder). */
static feed_status finish(feed__index *ix, builder *b, const char *root, int named, uint32_t kind,
                          char *err, size_t errlen)
{
    uint64_t entries_off = FEED_ALIGN_UP(sizeof(feed__index_hdr), 64);
    uint64_t classes_off = FEED_ALIGN_UP(entries_off + b->n * sizeof(feed__index_entry), 64);
    /* Class names exist only for an ImageFolder (one per folder); a file list
     * has a class count and no table, so memory follows the samples, not the
     * largest label. */
    uint64_t ntable = named ? b->nclasses : 0;
    uint64_t shards_off = FEED_ALIGN_UP(classes_off + ntable * sizeof(uint64_t), 64);
    uint64_t pool_off = FEED_ALIGN_UP(shards_off + b->nshards * sizeof(uint64_t), 64);
    uint64_t total = FEED_ALIGN_UP(pool_off + b->pool_len, 4096);
    feed__index_hdr *h = feed__calloc(1, total);
    if (!h) {
        builder_free(b);
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory (%llu bytes of index)",
                         (unsigned long long)total);
    }
    h->magic = FEED_INDEX_MAGIC;
    h->version = FEED_INDEX_VERSION;
    h->kind = kind;
    h->count = b->n;
    h->nclasses = b->nclasses;
    h->total_bytes = total;
    h->entries_off = entries_off;
    h->classes_off = classes_off;
    h->shards_off = shards_off;
    h->nshards = b->nshards;
    h->pool_off = pool_off;
    h->pool_bytes = b->pool_len;
    h->problems = b->problems;
    strcpy(h->root, root);
    memcpy((char *)h + entries_off, b->ents, b->n * sizeof(feed__index_entry));
    if (named) {
        memcpy((char *)h + classes_off, b->classes, ntable * sizeof(uint64_t));
        h->named_classes = 1;
    }
    if (b->nshards)
        memcpy((char *)h + shards_off, b->shards, b->nshards * sizeof(uint64_t));
    memcpy((char *)h + pool_off, b->pool, b->pool_len);
    builder_free(b);
    ix->hdr = h;
    return FEED_OK;
}

/* ---- tar shards (the format is tar.c's, the source patterns shards.c's) ---- */

typedef struct shard_ctx {
    builder *b;
    uint64_t shard;
    const char *path;
} shard_ctx;

static void shard_problem(void *ctx, const char *shard, const char *member, uint64_t off, const char *what);

static int shard_sample(void *ctx, const char *member, uint64_t hdr_off, uint64_t off, uint64_t len,
                        int32_t label)
{
    shard_ctx *c = ctx;
    builder *b = c->b;
    if (off > FEED_INDEX_MAX_SHARD_OFFSET || len > UINT32_MAX) { /* skipped, as a malformed member */
        shard_problem(ctx, c->path, member, hdr_off,
                      "an image member past 1 TiB into the shard or over 4 GiB: more than the index "
                      "holds; skipped");
        return 0;
    }
    feed__index_entry *e = next_entry(b);
    if (!e)
        return -1;
    *e = (feed__index_entry){c->shard << FEED_INDEX_SHARD_SHIFT | off, label, (uint32_t)len};
    b->n++;
    if ((uint64_t)label + 1 > b->nclasses)
        b->nclasses = (uint32_t)label + 1;
    return 0;
}

/* Printed up to this many; then a count (a shard set broken throughout
 * must not bury the terminal). */
#define SHARD_PROBLEMS_SHOWN 100

static void shard_problem(void *ctx, const char *shard, const char *member, uint64_t off, const char *what)
{
    shard_ctx *c = ctx;
    if (++c->b->problems == 1)
        snprintf(c->b->first_problem, sizeof c->b->first_problem, "%s: member '%s' at offset %llu: %s",
                 shard, member, (unsigned long long)off, what);
    if (c->b->problems > SHARD_PROBLEMS_SHOWN)
        return;
    fprintf(stderr, "libfeed: dataset: %s: member '%s' at offset %llu: %s\n", shard, member,
            (unsigned long long)off, what);
}

feed_status feed__index_build_shards(feed__index *ix, const char *root, char *const *paths, size_t n,
                                     feed__shard_open_fn open_fn, feed__shard_close_fn close_fn,
                                     void *ctx, char *err, size_t errlen)
{
    memset(ix, 0, sizeof *ix);
    ix->fd = -1;
    builder b = {0};
    feed_status st = FEED_OK;
    if (strlen(root) >= FEED_PATH_MAX)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: root path too long");
    if (n > FEED_INDEX_MAX_SHARDS)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: %zu shards, more than the %u the index holds",
                         n, FEED_INDEX_MAX_SHARDS);
    if (!(b.shards = feed__malloc((n ? n : 1) * sizeof *b.shards)))
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
    b.shards_cap = n;
    for (size_t i = 0; i < n && st == FEED_OK; i++) {
        if (pool_add(&b, paths[i], strlen(paths[i]), &b.shards[b.nshards])) {
            st = feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
            break;
        }
        b.nshards++;
        feed__tar_io io = {0};
        if ((st = open_fn(ctx, (uint32_t)i, &io, err, errlen)) != FEED_OK)
            break;
        shard_ctx c = {&b, i, paths[i]};
        feed__tar_sink sink = {shard_sample, shard_problem, &c};
        st = feed__tar_scan(&io, paths[i], &sink, err, errlen);
        close_fn(ctx, &io);
    }
    if (b.problems > SHARD_PROBLEMS_SHOWN)
        fprintf(stderr, "libfeed: dataset: %llu more malformed shard members skipped (%llu in all)\n",
                (unsigned long long)(b.problems - SHARD_PROBLEMS_SHOWN), (unsigned long long)b.problems);
    if (st == FEED_OK && b.n == 0)
        st = feed__err(FEED_E_DATASET, err, errlen,
                       "dataset: the %zu shard%s (%s%s) hold no samples (KEY.jpg/.jpeg/.png/.webp + KEY.cls)",
                       n, n == 1 ? "" : "s", n ? paths[0] : "", n > 1 ? ", ..." : "");
    if (st != FEED_OK) {
        builder_free(&b);
        return st;
    }
    memcpy(ix->first_problem, b.first_problem, sizeof ix->first_problem);
    return finish(ix, &b, root, 0, FEED_INDEX_SHARDS, err, errlen);
}

feed_status feed__index_build(feed__index *ix, const char *source, const char *file_list, char *err,
                              size_t errlen)
{
    feed__index_spec s = {.source = source, .file_list = file_list};
    return feed__index_build_spec(ix, &s, err, errlen);
}

feed_status feed__index_build_spec(feed__index *ix, const feed__index_spec *spec, char *err, size_t errlen)
{
    memset(ix, 0, sizeof *ix);
    ix->fd = -1;
    builder b = {0};
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
    if ((st = feed__shards_expand(source, file_list, &shards, &nshards, &is_shards, err, errlen)) != FEED_OK)
        return st;
    if (is_shards && labels) {
        feed__shards_free(shards, nshards);
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: labels=%s is for a .npy array source; %s names tar shards", labels, source);
    }
    if (is_shards) {
        st = feed__index_build_shards(ix, "/", shards, nshards, feed__shards_open, feed__shards_close,
                                      shards, err, errlen);
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

    /* A saved scan (scancache.h): reused when current, else made. */
    feed__scan_dirs dirs = {0};
    char cache[PATH_MAX], note[1024] = "";
    int64_t scan_start = 0;
    int cached = !list && spec->scan_cache && feed__scancache_path(cache, sizeof cache, root, spec->scan_cache_path);
    if (list) {
        st = build_list(&b, list, err, errlen);
    } else {
        int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
            return sys_error(err, errlen, errno, "open", root);
        if (cached) {
            feed__index_hdr *h;
            if (feed__scancache_load(cache, rootfd, root, feed__index_scan_rules(), &h, &ix->skipped,
                                     ix->skipped_names, note, sizeof note)) {
                close(rootfd);
                ix->hdr = h;
                if (spec->cache_hit)
                    *spec->cache_hit = 1;
                return FEED_OK;
            }
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            scan_start = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
            b.dirs = &dirs;
        }
        st = build_folder(&b, rootfd, root, err, errlen);
        close(rootfd);
    }
    if (st == FEED_OK && b.n == 0 && b.skipped)
        st = feed__err(FEED_E_DATASET, err, errlen,
                       "dataset: %s has no samples (*.jpg, *.jpeg, *.jpe, *.png, *.webp); skipped "
                       "%llu files of other extensions: %s%s",
                       root, (unsigned long long)b.skipped, b.skipped_names,
                       b.skipped > FEED_INDEX_SKIPPED_SHOWN ? ", ..." : "");
    else if (st == FEED_OK && b.n == 0)
        st = feed__err(FEED_E_DATASET, err, errlen,
                       "dataset: %s has no samples (*.jpg, *.jpeg, *.jpe, *.png, *.webp)",
                       list ? list : root);
    if (st != FEED_OK) {
        builder_free(&b);
        feed__scan_dirs_free(&dirs);
        return st;
    }

    ix->skipped = b.skipped;
    memcpy(ix->skipped_names, b.skipped_names, sizeof ix->skipped_names);
    if ((st = finish(ix, &b, root, list ? 0 : 1, FEED_INDEX_FILES, err, errlen)) != FEED_OK) {
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

feed_status feed__index_share(feed__index *ix, char *err, size_t errlen)
{
    uint64_t total = ix->hdr->total_bytes;
    int fd0 = memfd_create("libfeed-index", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd0 < 0)
        return feed__err(FEED_E_RESOURCE, err, errlen, "index: memfd_create: %s%s", strerror(errno),
                         errno == EMFILE || errno == ENFILE ? " (raise ulimit -n)" : "");
    /* A high number, so posix_spawn's dup2 to 3 and 4 cannot clobber it. */
    int fd = fcntl(fd0, F_DUPFD_CLOEXEC, 10);
    int e = fd < 0 ? errno : 0;
    close(fd0);
    if (fd < 0)
        return feed__err(FEED_E_RESOURCE, err, errlen, "index: out of file descriptors: %s (raise ulimit -n)",
                         strerror(e));
    /* Over RLIMIT_FSIZE ftruncate would raise SIGXFSZ (fatal by default). */
    struct rlimit fsz;
    if (getrlimit(RLIMIT_FSIZE, &fsz) == 0 && fsz.rlim_cur != RLIM_INFINITY && total > fsz.rlim_cur)
        e = EFBIG;
    else if (ftruncate(fd, (off_t)total) != 0)
        e = errno;
    void *p = e ? MAP_FAILED : mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (!e && p == MAP_FAILED)
        e = errno;
    if (e) {
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen,
                         "index: cannot map %llu bytes of shared memory: %s%s",
                         (unsigned long long)total, strerror(e),
                         e == EFBIG ? " (over the file size limit: raise ulimit -f)"
                         : e == ENOMEM || e == ENOSPC ? " (free memory or raise ulimit -v)" : "");
    }
    memcpy(p, ix->hdr, total);
    munmap(p, total);
    /* Read-only for everyone from now on: a worker bug cannot corrupt it. */
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    p = mmap(NULL, total, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        e = errno;
        close(fd);
        return feed__err(FEED_E_RESOURCE, err, errlen, "index: mmap: %s%s", strerror(e),
                         e == ENOMEM ? " (free memory or raise ulimit -v)" : "");
    }
    feed__free(ix->hdr);
    ix->hdr = p;
    ix->fd = fd;
    ix->owned_map = 1;
    return FEED_OK;
}

feed_status feed__index_attach(feed__index *ix, int fd, char *err, size_t errlen)
{
    memset(ix, 0, sizeof *ix);
    ix->fd = -1;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < sizeof(feed__index_hdr))
        return feed__err(FEED_E_INTERNAL, err, errlen, "index: bad shared index fd");
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return feed__err(FEED_E_RESOURCE, err, errlen, "index: mmap: %s", strerror(errno));
    feed__index_hdr *h = p;
    if (h->magic != FEED_INDEX_MAGIC || h->version != FEED_INDEX_VERSION ||
        h->total_bytes != (uint64_t)sb.st_size) {
        munmap(p, (size_t)sb.st_size);
        return feed__err(FEED_E_INTERNAL, err, errlen, "index: layout mismatch (version skew?)");
    }
    ix->hdr = h;
    ix->owned_map = 1;
    return FEED_OK;
}

void feed__index_free(feed__index *ix)
{
    if (!ix)
        return;
    if (ix->hdr) {
        if (ix->owned_map)
            munmap(ix->hdr, ix->hdr->total_bytes);
        else
            feed__free(ix->hdr);
    }
    if (ix->fd >= 0)
        close(ix->fd);
    ix->hdr = NULL;
    ix->fd = -1;
}

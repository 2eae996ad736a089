/*
 * scancache.c - the saved ImageFolder scan (scancache.h).
 *
 * File layout (little-endian, as the machine writes it: a file from
 * another architecture fails the magic or the checks and is rebuilt):
 *   0   "FEEDSCN1"            8   u32 version, u32 scan rules
 *   16  u64 total bytes       24  u64 checksum of [128, total)
 *   32  u64 ndirs             40  u64 dirs_off (feed__scan_dir[ndirs])
 *   48  u64 dpool_off         56  u64 dpool_bytes (the directories' paths)
 *   64  u64 index_off         72  u64 index_bytes (the index, as built)
 *   80  i64 scan start (ns, CLOCK_REALTIME)
 *   88  u64 skipped files     96  u64 skip_off      104 u64 skip_bytes
 *       (the files of other extensions the scan left out, and the first
 *       few names, as a fresh scan reports them; between the directories'
 *       paths and the index)                          112..128 zero
 * Version 2: version 1 had no skipped files (a reused scan reported none).
 */
#include "dataset/scancache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/internal.h"
#include "common/rng.h"

#define MAGIC "FEEDSCN1"
#define VERSION 2u

typedef struct file_hdr {
    char magic[8];
    uint32_t version, rules;
    uint64_t total, checksum;
    uint64_t ndirs, dirs_off, dpool_off, dpool_bytes, index_off, index_bytes;
    int64_t scanned_ns;
    uint64_t skipped, skip_off, skip_bytes;
    uint8_t zero[FEED_SCAN_HEADER_BYTES - 112];
} file_hdr;
_Static_assert(sizeof(file_hdr) == FEED_SCAN_HEADER_BYTES, "scan cache header");
_Static_assert(offsetof(file_hdr, checksum) == FEED_SCAN_CHECKSUM_AT, "checksum offset");

static int64_t st_mtime_ns(const struct stat *sb)
{
    return (int64_t)sb->st_mtim.tv_sec * 1000000000ll + sb->st_mtim.tv_nsec;
}

int feed__scancache_path(char *out, size_t outlen, const char *root, const char *path)
{
    int n = path && *path ? snprintf(out, outlen, "%s", path)
                          : snprintf(out, outlen, "%s/" FEED_SCAN_CACHE_NAME, strcmp(root, "/") ? root : "");
    return n > 0 && (size_t)n < outlen;
}

int feed__scan_dirs_add(feed__scan_dirs *s, const char *rel, const struct stat *sb)
{
    size_t len = strlen(rel);
    if (s->n == s->cap) {
        uint64_t cap = s->cap ? s->cap * 2 : 64;
        feed__scan_dir *d = feed__realloc(s->d, cap * sizeof *d);
        if (!d)
            return -1;
        s->d = d, s->cap = cap;
    }
    if (s->pool_len + len + 1 > s->pool_cap) {
        uint64_t cap = s->pool_cap ? s->pool_cap : 4096;
        while (cap < s->pool_len + len + 1)
            cap *= 2;
        char *p = feed__realloc(s->pool, cap);
        if (!p)
            return -1;
        s->pool = p, s->pool_cap = cap;
    }
    memcpy(s->pool + s->pool_len, rel, len + 1);
    s->d[s->n++] = (feed__scan_dir){st_mtime_ns(sb), (uint64_t)sb->st_ino, s->pool_len, len};
    s->pool_len += len + 1;
    return 0;
}

void feed__scan_dirs_free(feed__scan_dirs *s)
{
    feed__free(s->d);
    feed__free(s->pool);
    memset(s, 0, sizeof *s);
}

uint64_t feed__scancache_checksum(const uint8_t *buf, size_t n)
{
    uint64_t h = 0x6a09e667f3bcc908ull ^ (uint64_t)n, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, buf + i, 8);
        h = feed__mix64(h ^ w);
    }
    w = 0;
    memcpy(&w, buf + i, n - i);
    return feed__mix64(h ^ w ^ ((uint64_t)(n - i) << 56));
}

int64_t feed__file_pread(int fd, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (int64_t)got;
}

int feed__file_replace(const char *path, const feed__file_piece *pieces, int np)
{
    char tmp[PATH_MAX + 16];
    int e = 0;
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp)
        return ENAMETOOLONG;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return errno;
    for (int i = 0; i < np && !e; i++) {
        const char *p = pieces[i].p;
        uint64_t done = 0;
        while (done < pieces[i].n && !e) {
            ssize_t w = write(fd, p + done, (size_t)feed__min_u64(pieces[i].n - done, 1u << 30));
            if (w < 0 && errno != EINTR)
                e = errno;
            else if (w > 0)
                done += (uint64_t)w;
        }
    }
    if (!e && fchmod(fd, 0644) != 0)
        e = errno;
    if (!e && fsync(fd) != 0) /* the bytes on disk before the name: a crash leaves the old file or this one */
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e) {
        unlink(tmp);
        return e;
    }
    /* the rename itself: best effort (some file systems refuse a folder's fsync) */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash == dir ? (void)(slash[1] = 0) : (void)(*slash = 0);
    int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

#define WHY(...)                                       \
    do {                                               \
        if (why && whylen)                             \
            snprintf(why, whylen, __VA_ARGS__);        \
        return -1;                                     \
    } while (0)

/* A relative path of non-empty components, none "." or "..". */
static int rel_path_ok(const char *p, size_t len)
{
    if (!len || p[0] == '/')
        return 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && p[j] != '/')
            j++;
        size_t c = j - i;
        if (!c || (c == 1 && p[i] == '.') || (c == 2 && p[i] == '.' && p[i + 1] == '.'))
            return 0;
        i = j + 1;
        if (j + 1 == len) /* a trailing '/' */
            return 0;
    }
    return 1;
}

/* A string of the pool: off and len inside, NUL at len, none before. */
static const char *pool_str(const char *pool, uint64_t pool_bytes, uint64_t off, uint64_t len)
{
    if (off >= pool_bytes || len >= pool_bytes - off || pool[off + len] || memchr(pool + off, 0, len))
        return NULL;
    return pool + off;
}

/* The index of an ImageFolder scan, n bytes, as untrusted input. */
static int check_index(const feed__index_hdr *h, uint64_t n, char *why, size_t whylen)
{
    if (n < sizeof *h || h->magic != FEED_INDEX_MAGIC || h->version != FEED_INDEX_VERSION ||
        h->kind != FEED_INDEX_FILES || h->named_classes != 1 || h->total_bytes != n ||
        h->nshards != 0 || h->problems != 0 || h->nextra != 0 || h->max_labels != 1 || h->keys_off != 0)
        WHY("not an ImageFolder index of this version");
    if (h->count < 1 || h->nclasses < 1 || h->nclasses > (uint64_t)FEED_MAX_LABEL + 1)
        WHY("%llu samples in %u classes", (unsigned long long)h->count, h->nclasses);
    uint64_t e0 = FEED_ALIGN_UP(sizeof *h, 64);
    if (h->entries_off != e0 || h->count > (n - e0) / sizeof(feed__index_entry) ||
        h->classes_off % 8 || h->classes_off < e0 + h->count * sizeof(feed__index_entry) ||
        h->classes_off > n || h->nclasses > (n - h->classes_off) / 8 ||
        h->pool_off < h->classes_off + (uint64_t)h->nclasses * 8 || h->pool_off > n ||
        h->pool_bytes > n - h->pool_off || h->pool_bytes == 0)
        WHY("index offsets out of bounds");
    const char *pool = (const char *)h + h->pool_off;
    const uint64_t *cls = (const uint64_t *)((const char *)h + h->classes_off);
    const char *prev = NULL;
    if (pool[h->pool_bytes - 1])
        WHY("string pool not terminated");
    for (uint32_t c = 0; c < h->nclasses; c++) {
        const char *name = cls[c] < h->pool_bytes ? pool + cls[c] : NULL; /* the pool ends with a NUL */
        if (!name || !*name || name[0] == '.' || strchr(name, '/') || (prev && strcmp(prev, name) >= 0))
            WHY("class %u: a bad name", c);
        prev = name;
    }
    const feed__index_entry *e = feed__index_entries(h);
    int32_t last = 0;
    for (uint64_t i = 0; i < h->count; i++) {
        const char *p = pool_str(pool, h->pool_bytes, e[i].path_off, e[i].path_len);
        if (!p || !rel_path_ok(p, e[i].path_len))
            WHY("sample %llu: a bad path", (unsigned long long)i);
        if (e[i].label < last || (uint32_t)e[i].label >= h->nclasses)
            WHY("sample %llu: label %d out of order or range", (unsigned long long)i, e[i].label);
        last = e[i].label;
        const char *c = pool + cls[e[i].label];
        size_t cl = strlen(c);
        if (cl >= e[i].path_len || memcmp(p, c, cl) || p[cl] != '/')
            WHY("sample %llu: not under its class folder", (unsigned long long)i);
    }
    return 0;
}

int feed__scancache_parse(const uint8_t *buf, size_t n, uint32_t rules, feed__scancache_view *v, char *why,
                          size_t whylen)
{
    file_hdr f;
    if (n < sizeof f)
        WHY("truncated (%zu bytes)", n);
    memcpy(&f, buf, sizeof f);
    if (memcmp(f.magic, MAGIC, 8))
        WHY("not a libfeed scan file");
    if (f.version != VERSION || f.rules != rules)
        WHY("written by another libfeed version");
    if (f.total != n)
        WHY("truncated or extended: %zu bytes, written as %llu", n, (unsigned long long)f.total);
    if (f.checksum != feed__scancache_checksum(buf + sizeof f, n - sizeof f))
        WHY("checksum mismatch (corrupt)");
    if (f.dirs_off != sizeof f || f.ndirs > (n - sizeof f) / sizeof(feed__scan_dir) ||
        f.dpool_off < f.dirs_off + f.ndirs * sizeof(feed__scan_dir) || f.dpool_off > n ||
        f.dpool_bytes > n - f.dpool_off || f.skip_off != f.dpool_off + f.dpool_bytes ||
        f.skip_bytes >= FEED_INDEX_SKIPPED_NAMES || f.skip_bytes > n - f.skip_off || f.index_off % 64 ||
        f.index_off < f.skip_off + f.skip_bytes || f.index_off > n || f.index_bytes != n - f.index_off)
        WHY("offsets out of bounds");
    if (memchr(buf + f.skip_off, 0, f.skip_bytes) || (f.skip_bytes && !f.skipped))
        WHY("bad skipped-file names");
    const feed__scan_dir *d = (const feed__scan_dir *)(buf + f.dirs_off);
    const char *dp = (const char *)buf + f.dpool_off;
    for (uint64_t i = 0; i < f.ndirs; i++) {
        const char *p = pool_str(dp, f.dpool_bytes, d[i].path_off, d[i].path_len);
        if (!p || !rel_path_ok(p, d[i].path_len))
            WHY("directory %llu: a bad path", (unsigned long long)i);
    }
    const feed__index_hdr *h = (const feed__index_hdr *)(buf + f.index_off);
    char iw[160];
    if (check_index(h, f.index_bytes, iw, sizeof iw) != 0)
        WHY("index: %s", iw);
    *v = (feed__scancache_view){h, f.index_bytes, d, f.ndirs, dp, f.scanned_ns, f.skipped,
                                (const char *)buf + f.skip_off, f.skip_bytes};
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 if the root's folders are h's classes, in order. */
static int same_classes(int rootfd, const feed__index_hdr *h)
{
    /* its own open file (a dup would share, and leave at the end, the
     * directory offset the scan reads next) */
    int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int ok = 1;
    struct dirent *de;
    while (ok && (de = readdir(dir))) {
        struct stat sb;
        if (de->d_name[0] == '.' || fstatat(rootfd, de->d_name, &sb, 0) != 0 || !S_ISDIR(sb.st_mode))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **p = feed__realloc(names, cap * sizeof *p);
            if (!p) {
                ok = 0;
                break;
            }
            names = p;
        }
        size_t len = strlen(de->d_name) + 1;
        if (!(names[n] = feed__malloc(len)))
            ok = 0;
        else
            memcpy(names[n++], de->d_name, len);
    }
    closedir(dir);
    if (ok && n)
        qsort(names, n, sizeof *names, cmp_str);
    ok = ok && n == h->nclasses;
    for (size_t i = 0; ok && i < n; i++)
        ok = !strcmp(names[i], feed__index_class(h, (uint32_t)i));
    for (size_t i = 0; i < n; i++)
        feed__free(names[i]);
    feed__free(names);
    return ok;
}

int feed__scancache_load(const char *path, int rootfd, const char *root, uint32_t rules, feed__index_hdr **out,
                         uint64_t *skipped, char skipped_names[FEED_INDEX_SKIPPED_NAMES], char *note,
                         size_t notelen)
{
    char why[256];
    uint8_t *buf = NULL;
    feed__scancache_view v;
    int rc = 0;
    *out = NULL;
    if (note && notelen)
        note[0] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0) {
        if (errno != ENOENT)
            snprintf(note, notelen, "cannot read the saved folder scan %s: %s; scanning the folder", path,
                     strerror(errno));
        return 0;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > SIZE_MAX / 2) {
        snprintf(note, notelen, "saved folder scan %s is not a regular file: ignored, scanning the folder", path);
        goto out;
    }
    size_t n = (size_t)sb.st_size;
    buf = feed__malloc(n ? n : 1);
    if (!buf) {
        snprintf(note, notelen, "no memory to read the saved folder scan %s; scanning the folder", path);
        goto out;
    }
    int64_t got = feed__file_pread(fd, buf, n, 0);
    if (got < 0)
        got = 0;
    if (feed__scancache_parse(buf, (size_t)got, rules, &v, why, sizeof why) != 0) {
        snprintf(note, notelen, "saved folder scan %s is not usable (%s): ignored, scanning the folder again", path,
                 why);
        goto out;
    }
    const char *changed = NULL;
    if (!same_classes(rootfd, v.index))
        changed = "its class folders";
    for (uint64_t i = 0; !changed && i < v.ndirs; i++) {
        const char *rel = v.dir_pool + v.dirs[i].path_off;
        struct stat ds;
        if (fstatat(rootfd, rel, &ds, 0) != 0 || !S_ISDIR(ds.st_mode) || (uint64_t)ds.st_ino != v.dirs[i].ino ||
            st_mtime_ns(&ds) != v.dirs[i].mtime_ns)
            changed = rel;
    }
    if (changed) {
        snprintf(note, notelen, "saved folder scan %s is out of date (%.200s changed): scanning the folder again",
                 path, changed);
        goto out;
    }
    feed__index_hdr *h = feed__malloc(v.index_bytes);
    if (!h) {
        snprintf(note, notelen, "no memory for the saved folder scan %s; scanning the folder", path);
        goto out;
    }
    memcpy(h, v.index, v.index_bytes);
    memset(h->root, 0, sizeof h->root);
    snprintf(h->root, sizeof h->root, "%s", root);
    memset(&h->npy, 0, sizeof h->npy);
    h->labels_off = 0;
    *out = h;
    *skipped = v.skipped;
    memcpy(skipped_names, v.skipped_names, v.skipped_names_len);
    skipped_names[v.skipped_names_len] = 0;
    rc = 1;
out:
    feed__free(buf);
    close(fd);
    return rc;
}

int feed__scancache_save(const char *path, const feed__index_hdr *h, const feed__scan_dirs *dirs, uint32_t rules,
                         int64_t scan_start_ns, uint64_t skipped, const char *skipped_names, char *note,
                         size_t notelen)
{
    for (uint64_t i = 0; i < dirs->n; i++)
        if (dirs->d[i].mtime_ns > scan_start_ns - FEED_SCAN_QUIET_NS) {
            snprintf(note, notelen,
                     "folder scan not saved to %s: %.200s changed within 2 s of the scan, so a change made "
                     "during it could go unseen; it is saved at a later create",
                     path, dirs->pool + dirs->d[i].path_off);
            return -1;
        }
    file_hdr f = {0};
    memcpy(f.magic, MAGIC, 8);
    f.version = VERSION;
    f.rules = rules;
    f.ndirs = dirs->n;
    f.dirs_off = sizeof f;
    f.dpool_off = f.dirs_off + dirs->n * sizeof(feed__scan_dir);
    f.dpool_bytes = dirs->pool_len;
    f.skipped = skipped;
    f.skip_off = f.dpool_off + f.dpool_bytes;
    f.skip_bytes = skipped ? strnlen(skipped_names, FEED_INDEX_SKIPPED_NAMES - 1) : 0;
    f.index_off = FEED_ALIGN_UP(f.skip_off + f.skip_bytes, 64);
    f.index_bytes = h->total_bytes;
    f.total = f.index_off + f.index_bytes;
    f.scanned_ns = scan_start_ns;
    uint8_t *buf = feed__calloc(1, f.total);
    if (!buf) {
        snprintf(note, notelen, "folder scan not saved to %s: out of memory", path);
        return -1;
    }
    if (dirs->n)
        memcpy(buf + f.dirs_off, dirs->d, dirs->n * sizeof(feed__scan_dir));
    if (dirs->pool_len)
        memcpy(buf + f.dpool_off, dirs->pool, dirs->pool_len);
    if (f.skip_bytes)
        memcpy(buf + f.skip_off, skipped_names, f.skip_bytes);
    memcpy(buf + f.index_off, h, h->total_bytes);
    f.checksum = feed__scancache_checksum(buf + sizeof f, f.total - sizeof f);
    memcpy(buf, &f, sizeof f);

    feed__file_piece piece = {buf, f.total};
    int e = feed__file_replace(path, &piece, 1), rc = e ? -1 : 0;
    feed__free(buf);
    if (rc == 0)
        snprintf(note, notelen, "folder scan saved to %s", path);
    else
        snprintf(note, notelen, "cannot save the folder scan to %s: %s%s; going on without it", path, strerror(e),
                 e == EROFS || e == EACCES || e == EPERM ? " (a read-only folder: set scan_cache_path to a "
                                                           "writable file)" : "");
    return rc;
}

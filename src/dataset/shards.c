/*
 * shards.c - tar shard sources: patterns, single files, lists (see shards.h),
 * and the index of their samples (feed__index_build_shards, index.h).
 *
 * Brace expansion is ours: glob(3)'s GLOB_BRACE takes comma lists only, not
 * the {000000..001023} ranges WebDataset names shards with.
 */
#include "dataset/shards.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/internal.h"
#include "dataset/builder.h"
#include "dataset/npy.h"
#include "dataset/tar.h"
#include "dataset/targets.h"

int feed__pathlist_add(feed__pathlist *l, const char *s, size_t len)
{
    if (l->n >= FEED_INDEX_MAX_SHARDS)
        return -2;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **v = feed__realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v, l->cap = cap;
    }
    char *p = feed__malloc(len + 1);
    if (!p)
        return -1;
    memcpy(p, s, len);
    p[len] = 0;
    l->v[l->n++] = p;
    return 0;
}

void feed__shards_free(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        feed__free(paths[i]);
    feed__free(paths);
}

static int ends_tar(const char *s)
{
    size_t n = strlen(s);
    return n > 4 && !strcasecmp(s + n - 4, ".tar");
}

static int has_glob(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

/* A number for a brace range: optional '-', digits. */
static int parse_int(const char *s, size_t n, long long *v, int *padded)
{
    size_t i = s[0] == '-' ? 1 : 0;
    if (i == n || n - i > 12)
        return -1;
    for (size_t k = i; k < n; k++)
        if (!isdigit((unsigned char)s[k]))
            return -1;
    *v = strtoll(s, NULL, 10);
    *padded = s[i] == '0' && n - i > 1;
    return 0;
}

/* Expands the first {...} of pat (then the rest, recursively) into out.
 * 0, -1 out of memory, -2 too many, -3 malformed (unclosed or nested). */
static int expand_braces(const char *pat, feed__pathlist *out)
{
    const char *open = strchr(pat, '{');
    if (!open)
        return feed__pathlist_add(out, pat, strlen(pat));
    const char *close = strchr(open, '}');
    if (!close)
        return -3;
    if (memchr(open + 1, '{', (size_t)(close - open - 1)))
        return -3;
    size_t pre = (size_t)(open - pat), inner = (size_t)(close - open - 1);
    const char *in = open + 1, *rest = close + 1;
    size_t restlen = strlen(rest);
    char *buf = feed__malloc(pre + inner + restlen + 32);
    if (!buf)
        return -1;
    memcpy(buf, pat, pre);
    int rc = 0;
    const char *dots = NULL;
    for (size_t k = 0; k + 1 < inner; k++)
        if (in[k] == '.' && in[k + 1] == '.') {
            dots = in + k;
            break;
        }
    long long a, b;
    int pa, pb;
    if (dots && !parse_int(in, (size_t)(dots - in), &a, &pa) &&
        !parse_int(dots + 2, (size_t)(in + inner - dots - 2), &b, &pb)) {
        int width = pa || pb ? (int)((size_t)(dots - in) > (size_t)(in + inner - dots - 2)
                                         ? (size_t)(dots - in)
                                         : (size_t)(in + inner - dots - 2))
                             : 0;
        long long step = a <= b ? 1 : -1;
        if ((a <= b ? b - a : a - b) >= FEED_INDEX_MAX_SHARDS) {
            feed__free(buf);
            return -2;
        }
        for (long long v = a;; v += step) {
            int len = snprintf(buf + pre, 32, "%0*lld", width, v);
            memcpy(buf + pre + len, rest, restlen + 1);
            if ((rc = expand_braces(buf, out)))
                break;
            if (v == b)
                break;
        }
    } else if (memchr(in, ',', inner)) {
        const char *s = in, *end = in + inner;
        while (!rc) {
            const char *c = memchr(s, ',', (size_t)(end - s));
            size_t len = (size_t)((c ? c : end) - s);
            memcpy(buf + pre, s, len);
            memcpy(buf + pre + len, rest, restlen + 1);
            rc = expand_braces(buf, out);
            if (!c)
                break;
            s = c + 1;
        }
    } else {
        rc = -3;
    }
    feed__free(buf);
    return rc;
}

int feed__shards_braces(const char *pat, char ***out, size_t *n)
{
    feed__pathlist l = {0};
    int rc = expand_braces(pat, &l);
    if (rc) {
        feed__shards_free(l.v, l.n);
        return rc;
    }
    *out = l.v;
    *n = l.n;
    return 0;
}

/* Appends absolute path of p (relative to base when not absolute) to out,
 * checking it is a regular .tar file. */
static feed_status add_shard(feed__pathlist *out, const char *base, const char *p, const char *from,
                             char *err, size_t errlen)
{
    char joined[PATH_MAX], abs[PATH_MAX];
    int len = p[0] == '/' || !base ? snprintf(joined, sizeof joined, "%s", p)
                                   : snprintf(joined, sizeof joined, "%s/%s", base, p);
    if (len < 0 || (size_t)len >= sizeof joined)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: shard path too long: %s (%s)", p, from);
    struct stat sb;
    if (!realpath(joined, abs) || stat(abs, &sb) != 0)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: shard %s (%s): %s", joined, from,
                         strerror(errno));
    if (!S_ISREG(sb.st_mode) || !ends_tar(abs))
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: %s (%s) is not a .tar shard file", joined, from);
    if (strlen(abs) >= FEED_PATH_MAX)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: shard path too long: %s", abs);
    int rc = feed__pathlist_add(out, abs, strlen(abs));
    if (rc == -2)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: %s gives more than %u shards", from,
                         FEED_INDEX_MAX_SHARDS);
    if (rc)
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
    return FEED_OK;
}

static feed_status expand_pattern(const char *pat, feed__pathlist *out, char *err, size_t errlen)
{
    feed__pathlist pieces = {0};
    int rc = expand_braces(pat, &pieces);
    feed_status st = FEED_OK;
    if (rc == -1)
        st = feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
    else if (rc == -2)
        st = feed__err(FEED_E_DATASET, err, errlen, "dataset: shard pattern %s gives more than %u shards",
                       pat, FEED_INDEX_MAX_SHARDS);
    else if (rc == -3)
        st = feed__err(FEED_E_DATASET, err, errlen,
                       "dataset: shard pattern %s: a brace must be a range {000..099} or a list "
                       "{a,b}, closed and not nested", pat);
    char from[FEED_PATH_MAX + 32];
    snprintf(from, sizeof from, "from pattern %.4000s", pat);
    for (size_t i = 0; st == FEED_OK && i < pieces.n; i++) {
        if (!has_glob(pieces.v[i])) {
            struct stat sb;
            if (stat(pieces.v[i], &sb) == 0 || pieces.n > 1)
                st = add_shard(out, NULL, pieces.v[i], from, err, errlen);
            continue;
        }
        glob_t g;
        int gr = glob(pieces.v[i], 0, NULL, &g);
        if (gr == GLOB_NOSPACE)
            st = feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
        for (size_t k = 0; gr == 0 && st == FEED_OK && k < g.gl_pathc; k++)
            st = add_shard(out, NULL, g.gl_pathv[k], from, err, errlen);
        if (gr == 0 || gr == GLOB_NOMATCH)
            globfree(&g);
    }
    if (st == FEED_OK && out->n == 0)
        st = feed__err(FEED_E_DATASET, err, errlen, "dataset: shard pattern %s matches no files", pat);
    feed__shards_free(pieces.v, pieces.n);
    return st;
}

/* The first meaningful line of a text file, if it is one .tar path: 1. */
static int looks_like_shard_list(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char line[4096];
    int yes = 0;
    while (fgets(line, sizeof line, f)) {
        char *s = line, *e = line + strlen(line);
        while (isspace((unsigned char)*s))
            s++;
        while (e > s && isspace((unsigned char)e[-1]))
            *--e = 0;
        if (!*s || *s == '#')
            continue;
        yes = !strpbrk(s, " \t") && ends_tar(s);
        break;
    }
    fclose(f);
    return yes;
}

static feed_status read_list(const char *list, const char *base, feed__pathlist *out, char *err, size_t errlen)
{
    FILE *f = fopen(list, "re");
    if (!f)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: cannot open shard list %s: %s", list,
                         strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned long long lineno = 0;
    feed_status st = FEED_OK;
    char from[FEED_PATH_MAX + 64];
    while (st == FEED_OK && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        int nul = memchr(line, 0, (size_t)len) != NULL;
        char *s = line, *e = line + len;
        while (isspace((unsigned char)*s))
            s++;
        while (e > s && isspace((unsigned char)e[-1]))
            *--e = 0;
        if (!*s || *s == '#')
            continue;
        snprintf(from, sizeof from, "%.4000s:%llu", list, lineno);
        if (nul || strpbrk(s, " \t"))
            st = feed__err(FEED_E_DATASET, err, errlen,
                           "dataset: %s: expected one .tar shard path a line (a shard list)", from);
        else
            st = add_shard(out, base, s, from, err, errlen);
    }
    free(line);
    fclose(f);
    if (st == FEED_OK && out->n == 0)
        st = feed__err(FEED_E_DATASET, err, errlen, "dataset: shard list %s names no shards", list);
    return st;
}

feed_status feed__shards_expand(const char *source, const char *file_list, char ***paths, size_t *n,
                                int *is_shards, char *err, size_t errlen)
{
    *paths = NULL;
    *n = 0;
    *is_shards = 0;
    const char *src = source && *source ? source : NULL;
    const char *list = file_list && *file_list ? file_list : NULL;
    struct stat sb;
    int src_ok = src && stat(src, &sb) == 0;
    feed__pathlist out = {0};
    feed_status st;
    char base[PATH_MAX];

    if (src && !src_ok && (strchr(src, '{') || has_glob(src))) {
        if (list)
            return feed__err(FEED_E_DATASET, err, errlen,
                             "dataset: source %s is a shard pattern: file_list (%s) cannot go with it",
                             src, list);
        st = expand_pattern(src, &out, err, errlen);
    } else if (src_ok && S_ISREG(sb.st_mode) && ends_tar(src) && !list) {
        st = add_shard(&out, NULL, src, "source", err, errlen);
    } else if (src_ok && S_ISREG(sb.st_mode) && !list && looks_like_shard_list(src)) {
        snprintf(base, sizeof base, "%s", src);
        char *slash = strrchr(base, '/');
        if (slash)
            slash == base ? (void)(slash[1] = 0) : (void)(*slash = 0);
        else
            strcpy(base, ".");
        st = read_list(src, base, &out, err, errlen);
    } else if (list && looks_like_shard_list(list) && (!src || (src_ok && S_ISDIR(sb.st_mode)))) {
        if (src) {
            snprintf(base, sizeof base, "%s", src);
        } else {
            snprintf(base, sizeof base, "%s", list);
            char *slash = strrchr(base, '/');
            if (slash)
                slash == base ? (void)(slash[1] = 0) : (void)(*slash = 0);
            else
                strcpy(base, ".");
        }
        st = read_list(list, base, &out, err, errlen);
    } else {
        return FEED_OK;
    }
    if (st != FEED_OK) {
        feed__shards_free(out.v, out.n);
        return st;
    }
    *paths = out.v;
    *n = out.n;
    *is_shards = 1;
    return FEED_OK;
}

/* ---- opening shards for the scan ------------------------------------------------- */

static int64_t fd_read(void *ctx, void *buf, size_t n, uint64_t off)
{
    int fd = (int)(intptr_t)ctx;
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            break;
        done += (size_t)r;
    }
    return (int64_t)done;
}

feed_status feed__shards_open(void *ctx, uint32_t i, feed__tar_io *io, char *err, size_t errlen)
{
    char *const *paths = ctx;
    int fd = open(paths[i], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        return feed__err(e == EMFILE || e == ENFILE ? FEED_E_RESOURCE : FEED_E_DATASET, err, errlen,
                         "dataset: cannot open shard %s: %s%s", paths[i], strerror(e),
                         e == EMFILE || e == ENFILE ? " (out of file descriptors: raise ulimit -n)" : "");
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: shard %s is not a regular file", paths[i]);
    }
    *io = (feed__tar_io){fd_read, (void *)(intptr_t)fd, (uint64_t)sb.st_size};
    return FEED_OK;
}

void feed__shards_close(void *ctx, feed__tar_io *io)
{
    (void)ctx;
    close((int)(intptr_t)io->ctx);
}

/* ---- the index of the shards' samples (the format is tar.c's) ---- */

typedef struct shard_ctx {
    feed__builder *b;
    uint64_t shard;
    const char *path;
    feed__targets *tg; /* KEY.<target_ext> members: row b->n is the pending sample's */
    uint64_t tg_cap;   /* rows tg->data holds */
    uint64_t moff[FEED_TAR_META_MAX], mlen[FEED_TAR_META_MAX]; /* the pending sample's members */
} shard_ctx;

static void shard_problem(void *ctx, const char *shard, const char *member, uint64_t off, const char *what);

static int shard_sample(void *ctx, const char *member, uint64_t hdr_off, uint64_t off, uint64_t len,
                        const int32_t *labels, uint32_t nlabels)
{
    shard_ctx *c = ctx;
    feed__builder *b = c->b;
    if (off > FEED_INDEX_MAX_SHARD_OFFSET || len > UINT32_MAX) { /* skipped, as a malformed member */
        shard_problem(ctx, c->path, member, hdr_off,
                      "an image member past 1 TiB into the shard or over 4 GiB: more than the index "
                      "holds; skipped");
        return 0;
    }
    feed__index_entry *e = feed__builder_next_entry(b);
    if (!e)
        return -1;
    *e = (feed__index_entry){c->shard << FEED_INDEX_SHARD_SHIFT | off, labels[0], (uint32_t)len};
    b->n++;
    /* Its key, as tar.h has it: the member's path up to the first '.' of
     * its last component. */
    const char *base = strrchr(member, '/');
    base = base ? base + 1 : member;
    const char *dot = strchr(base, '.');
    if (feed__builder_add_key(b, member, dot ? (size_t)(dot - member) : strlen(member)))
        return -1;
    int rc = nlabels > 1 ? feed__builder_add_labels(b, labels, nlabels) : 0;
    if (rc == -2) { /* the index is full of labels: this sample cannot be one of it */
        b->n--;
        shard_problem(ctx, c->path, member, hdr_off, "more labels in all than the index holds; skipped");
        return 0;
    }
    if (rc == 0 && b->nmeta && feed__builder_add_members(b, c->moff, c->mlen))
        return -1;
    for (uint32_t k = 0; k < nlabels; k++)
        if ((uint64_t)labels[k] + 1 > b->nclasses)
            b->nclasses = (uint32_t)labels[k] + 1;
    return rc;
}

/* A sample's target member: a .npy of K float32/float64/int32/int64 values
 * (shape (K,), (1, K) or () for K = 1), into row b->n of the targets, which
 * becomes the sample's when shard_sample adds it. The first sample fixes K
 * and float or int; a later one that differs is reported and skipped. */
static int shard_target(void *ctx, const char *member, uint64_t hdr_off, const uint8_t *bytes, size_t n)
{
    shard_ctx *c = ctx;
    feed__targets *t = c->tg;
    feed__npy_header h;
    char why[512];
    if (feed__npy_parse(bytes, n, &h, why, sizeof why) != FEED_OK) {
        shard_problem(ctx, c->path, member, hdr_off, why);
        return 1;
    }
    uint64_t k = h.rank == 0 ? 1 : h.rank == 1 ? h.shape[0] : h.rank == 2 && h.shape[0] == 1 ? h.shape[1] : 0;
    int ok = (h.kind == 'f' || h.kind == 'i') && (h.item == 4 || h.item == 8) && k >= 1 &&
             k <= FEED_NPY_MAX_TARGET_DIM && h.data_off + k * h.item == n;
    uint32_t dtype = h.kind == 'f' ? FEED_TARGET_FLOAT32 : FEED_TARGET_INT64;
    if (ok && !t->dim)
        t->dim = (uint32_t)k, t->dtype = dtype, t->elem = dtype == FEED_TARGET_FLOAT32 ? 4 : 8;
    if (!ok || k != t->dim || dtype != t->dtype) {
        snprintf(why, sizeof why,
                 "a target '%s' of %llu values (%zu bytes): targets are float32/float64/int32/int64 of shape "
                 "(K,), and every sample's K and kind (float or int) the first one's (%u, %s); skipped",
                 h.descr, (unsigned long long)k, n, t->dim, t->dtype == FEED_TARGET_INT64 ? "int" : "float");
        shard_problem(ctx, c->path, member, hdr_off, why);
        return 1;
    }
    if (c->b->n + 1 > c->tg_cap) {
        uint64_t cap = c->tg_cap ? c->tg_cap * 2 : 1024;
        uint8_t *p = feed__realloc(t->data, (size_t)cap * t->dim * t->elem);
        if (!p)
            return -1;
        t->data = p, c->tg_cap = cap;
    }
    feed__targets_convert(&h, bytes + h.data_off, k, t->data + c->b->n * feed__targets_row(t));
    return 0;
}

/* The pending sample's metadata members, kept for shard_sample. */
static int shard_members(void *ctx, const uint64_t *off, const uint64_t *len)
{
    shard_ctx *c = ctx;
    for (uint32_t j = 0; j < c->b->nmeta; j++)
        c->moff[j] = off[j], c->mlen[j] = len[j];
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
                                     void *ctx, uint32_t multi_label, char *err, size_t errlen)
{
    feed__shard_members mem = {.multi_label = multi_label};
    return feed__index_build_shards_with(ix, root, paths, n, open_fn, close_fn, ctx, &mem, err, errlen);
}

feed_status feed__index_build_shards_with(feed__index *ix, const char *root, char *const *paths, size_t n,
                                          feed__shard_open_fn open_fn, feed__shard_close_fn close_fn, void *ctx,
                                          const feed__shard_members *mem, char *err, size_t errlen)
{
    const char *target_ext = mem->target_ext;
    feed__targets *targets = mem->targets;
    uint32_t multi_label = mem->multi_label;
    if (mem->nmeta > FEED_TAR_META_MAX)
        return feed__err(FEED_E_INVALID, err, errlen, "dataset: %u metadata members, more than %u", mem->nmeta,
                         FEED_TAR_META_MAX);
    feed__targets none = {0};
    feed__targets *tg = targets ? targets : &none;
    *tg = (feed__targets){0};
    uint64_t tg_cap = 0;
    memset(ix, 0, sizeof *ix);
    ix->fd = -1;
    feed__builder b = {.multi_ok = multi_label, .nmeta = mem->nmeta};
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
        if (feed__builder_pool_add(&b, paths[i], strlen(paths[i]), &b.shards[b.nshards])) {
            st = feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
            break;
        }
        b.nshards++;
        feed__tar_io io = {0};
        if ((st = open_fn(ctx, (uint32_t)i, &io, err, errlen)) != FEED_OK)
            break;
        shard_ctx c = {&b, i, paths[i], tg, tg_cap, {0}, {0}};
        feed__tar_sink sink = {shard_sample, shard_problem, &c,          multi_label,   target_ext,
                               shard_target, mem->meta_exts, mem->nmeta, shard_members};
        st = feed__tar_scan(&io, paths[i], &sink, err, errlen);
        tg_cap = c.tg_cap;
        close_fn(ctx, &io);
    }
    if (b.problems > SHARD_PROBLEMS_SHOWN)
        fprintf(stderr, "libfeed: dataset: %llu more malformed shard members skipped (%llu in all)\n",
                (unsigned long long)(b.problems - SHARD_PROBLEMS_SHOWN), (unsigned long long)b.problems);
    if (st == FEED_OK && b.n == 0)
        st = feed__err(FEED_E_DATASET, err, errlen,
                       "dataset: the %zu shard%s (%s%s) hold no samples (KEY.jpg/.jpeg/.png/.webp + KEY.cls)",
                       n, n == 1 ? "" : "s", n ? paths[0] : "", n > 1 ? ", ..." : "");
    if (st == FEED_OK && target_ext && *target_ext && !tg->dim)
        st = feed__err(FEED_E_DATASET, err, errlen, "dataset: no sample of the shards (%s%s) has a usable KEY.%s member",
                       n ? paths[0] : "", n > 1 ? ", ..." : "", target_ext);
    if (st != FEED_OK) {
        feed__builder_free(&b);
        feed__targets_free(tg);
        return st;
    }
    tg->n = b.n;
    if (!targets || !tg->dim)
        feed__targets_free(tg);
    memcpy(ix->first_problem, b.first_problem, sizeof ix->first_problem);
    st = feed__builder_finish(ix, &b, root, 0, FEED_INDEX_SHARDS, err, errlen);
    if (st != FEED_OK)
        feed__targets_free(tg);
    return st;
}

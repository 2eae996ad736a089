/*
 * npy.c - .npy headers (a pure stage) and the index of an array source
 * (npy.h).
 *
 * The header is a Python dict literal ({'descr': '<u1', 'fortran_order':
 * False, 'shape': (N, H, W, C), }). Hand-written rather than a library: the
 * C readers that exist (cnpy, libnpy) are C++, read the whole array, and
 * accept more of Python's syntax than the three keys numpy writes; this
 * reads exactly those keys, bounded, and says what it found when it refuses.
 */
#include "dataset/npy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/internal.h"
#include "dataset/index.h"

int feed__npy_is_npy(const uint8_t *data, size_t n)
{
    return n >= 6 && !memcmp(data, "\x93NUMPY", 6);
}

int feed__npy_is_source(const char *path)
{
    uint8_t head[6];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? pread(fd, head, sizeof head, 0) : -1;
    if (fd >= 0)
        close(fd);
    size_t len = strlen(path);
    return (n == (ssize_t)sizeof head && feed__npy_is_npy(head, sizeof head)) ||
           (len > 4 && !strcasecmp(path + len - 4, ".npy"));
}

typedef struct cur {
    const char *p, *end;
} cur;

static void skip_ws(cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int eat(cur *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A quoted Python string of at most cap-1 plain characters (no escapes). */
static int read_str(cur *c, char *out, size_t cap)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return -1;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || (unsigned char)*c->p < 0x20 || (unsigned char)*c->p >= 0x7F || n + 1 >= cap)
            return -1;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return -1;
    c->p++;
    out[n] = 0;
    return 0;
}

static int read_word(cur *c, const char *w)
{
    skip_ws(c);
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) >= n && !memcmp(c->p, w, n)) {
        c->p += n;
        return 1;
    }
    return 0;
}

/* A non-negative decimal integer below 2^62. */
static int read_uint(cur *c, uint64_t *v)
{
    skip_ws(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
        return -1;
    uint64_t x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        x = x * 10 + (uint64_t)(*c->p++ - '0');
        if (x >= (1ull << 62))
            return -1;
    }
    if (c->p < c->end && *c->p == 'L') /* Python 2's long */
        c->p++;
    *v = x;
    return 0;
}

static void shape_text(const feed__npy_header *h, char *out, size_t cap)
{
    size_t o = (size_t)snprintf(out, cap, "(");
    for (uint32_t i = 0; i < h->rank && o < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%llu", i ? ", " : "", (unsigned long long)h->shape[i]);
    if (o < cap)
        snprintf(out + o, cap - o, "%s)", h->rank == 1 ? "," : "");
}

/* The preamble's version and header length, then the dict. */
feed_status feed__npy_parse(const uint8_t *p, size_t n, feed__npy_header *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    if (!feed__npy_is_npy(p, n))
        return feed__err(FEED_E_DATASET, err, errlen, "not a .npy file (no \\x93NUMPY magic at the start)");
    if (n < 10)
        return feed__err(FEED_E_DATASET, err, errlen, "truncated .npy header (%zu bytes)", n);
    uint32_t major = p[6], minor = p[7];
    uint64_t hlen, pre;
    if (major == 1 && minor == 0) {
        hlen = (uint64_t)p[8] | (uint64_t)p[9] << 8;
        pre = 10;
    } else if ((major == 2 || major == 3) && minor == 0) {
        if (n < 12)
            return feed__err(FEED_E_DATASET, err, errlen, "truncated .npy header (%zu bytes)", n);
        hlen = (uint64_t)p[8] | (uint64_t)p[9] << 8 | (uint64_t)p[10] << 16 | (uint64_t)p[11] << 24;
        pre = 12;
    } else {
        return feed__err(FEED_E_DATASET, err, errlen,
                         ".npy format version %u.%u is not supported (1.0, 2.0, 3.0 are)", major, minor);
    }
    if (hlen > FEED_NPY_MAX_HEADER)
        return feed__err(FEED_E_DATASET, err, errlen, ".npy header of %llu bytes is over the %u allowed",
                         (unsigned long long)hlen, FEED_NPY_MAX_HEADER);
    if (pre + hlen > n)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "truncated .npy header: the preamble says %llu bytes, the file has %llu",
                         (unsigned long long)(pre + hlen), (unsigned long long)(n - pre));
    h->data_off = pre + hlen;
    cur c = {(const char *)p + pre, (const char *)p + pre + hlen};
    int have_descr = 0, have_fortran = 0, have_shape = 0;
    char key[32];
    if (!eat(&c, '{'))
        goto syntax;
    for (;;) {
        if (eat(&c, '}'))
            break;
        if (read_str(&c, key, sizeof key) != 0 || !eat(&c, ':'))
            goto syntax;
        if (!strcmp(key, "descr") && !have_descr) {
            skip_ws(&c);
            if (c.p < c.end && *c.p == '[')
                return feed__err(FEED_E_DATASET, err, errlen,
                                 "a structured dtype (descr is a list): only plain arrays are supported");
            if (read_str(&c, h->descr, sizeof h->descr) != 0)
                goto syntax;
            have_descr = 1;
        } else if (!strcmp(key, "fortran_order") && !have_fortran) {
            if (read_word(&c, "True"))
                h->fortran = 1;
            else if (!read_word(&c, "False"))
                goto syntax;
            have_fortran = 1;
        } else if (!strcmp(key, "shape") && !have_shape) {
            if (!eat(&c, '('))
                goto syntax;
            while (!eat(&c, ')')) {
                if (h->rank == FEED_NPY_MAX_RANK)
                    return feed__err(FEED_E_DATASET, err, errlen, "shape has more than %d dimensions",
                                     FEED_NPY_MAX_RANK);
                if (read_uint(&c, &h->shape[h->rank]) != 0)
                    goto syntax;
                h->rank++;
                if (!eat(&c, ',')) {
                    if (!eat(&c, ')'))
                        goto syntax;
                    break;
                }
            }
            have_shape = 1;
        } else {
            return feed__err(FEED_E_DATASET, err, errlen, "unexpected or repeated key '%s' in the .npy header",
                             key);
        }
        if (!eat(&c, ',')) {
            if (!eat(&c, '}'))
                goto syntax;
            break;
        }
    }
    skip_ws(&c);
    if (c.p != c.end)
        goto syntax;
    if (!have_descr || !have_fortran || !have_shape)
        return feed__err(FEED_E_DATASET, err, errlen, ".npy header lacks '%s'",
                         !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
    /* descr: byte order, kind, item size ("<u1", "|u1", ">i8") */
    const char *d = h->descr;
    if (*d == '<' || *d == '>' || *d == '|' || *d == '=')
        h->order = *d++;
    else
        h->order = '|';
    h->kind = *d ? *d++ : '?';
    uint64_t item = 0;
    int digits = 0;
    while (*d >= '0' && *d <= '9' && item < 1000)
        item = item * 10 + (uint64_t)(*d++ - '0'), digits++;
    h->item = *d || !digits || item >= 1000 ? 0 : (uint32_t)item;
    if (h->order == '=') /* native: a file written on this machine */
        h->order = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? '<' : '>';
    return FEED_OK;
syntax:;
    /* what was there, printable ASCII only */
    char shown[64];
    size_t k = 0;
    for (const char *q = c.p; q < c.end && k + 1 < sizeof shown; q++)
        shown[k++] = (*q >= 0x20 && *q < 0x7F) ? *q : '?';
    shown[k] = 0;
    return feed__err(FEED_E_DATASET, err, errlen, "malformed .npy header at byte %llu: '%s'",
                     (unsigned long long)(c.p - (const char *)p), shown);
}

/* data_off + count * item bytes == file_bytes, without overflow. */
static feed_status check_size(const feed__npy_header *h, uint64_t elems, uint64_t file_bytes, char *err,
                              size_t errlen)
{
    char sh[200];
    shape_text(h, sh, sizeof sh);
    if (elems > (UINT64_MAX - h->data_off) / (h->item ? h->item : 1))
        return feed__err(FEED_E_DATASET, err, errlen, "shape %s is too large", sh);
    uint64_t need = h->data_off + elems * h->item;
    if (file_bytes < need)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "truncated: shape %s of '%s' needs %llu bytes after the %llu-byte header, the file "
                         "has %llu",
                         sh, h->descr, (unsigned long long)(need - h->data_off), (unsigned long long)h->data_off,
                         (unsigned long long)(file_bytes > h->data_off ? file_bytes - h->data_off : 0));
    if (file_bytes > need)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "the file has %llu bytes, %llu more than its header's shape %s of '%s' needs",
                         (unsigned long long)file_bytes, (unsigned long long)(file_bytes - need), sh, h->descr);
    return FEED_OK;
}

feed_status feed__npy_check_images(const feed__npy_header *h, uint64_t file_bytes, feed__npy_images *out,
                                   char *err, size_t errlen)
{
    char sh[200];
    shape_text(h, sh, sizeof sh);
    memset(out, 0, sizeof *out);
    if (h->kind != 'u' || h->item != 1)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dtype '%s': images must be uint8 ('|u1'; convert with arr.astype(np.uint8))", h->descr);
    if (h->fortran)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "the array is in Fortran order (fortran_order: True): save "
                         "np.ascontiguousarray(arr) instead");
    if (h->rank != 3 && h->rank != 4)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "shape %s has %u dimensions: images must be (N, H, W, C) or (N, H, W)", sh, h->rank);
    uint64_t c = h->rank == 4 ? h->shape[3] : 1;
    if (c != 1 && c != 3 && c != 4)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "shape %s has %llu channels: C must be 1 (grey), 3 (RGB) or 4 (RGBA)", sh,
                         (unsigned long long)c);
    if (h->shape[0] == 0)
        return feed__err(FEED_E_DATASET, err, errlen, "shape %s has no samples (N = 0)", sh);
    if (h->shape[1] == 0 || h->shape[2] == 0 || h->shape[1] > INT32_MAX || h->shape[2] > INT32_MAX)
        return feed__err(FEED_E_DATASET, err, errlen, "shape %s: H and W must be in 1..%d", sh, INT32_MAX);
    uint64_t sample = h->shape[1] * h->shape[2] * c; /* < 2^62 * 4 / ... checked below */
    if (h->shape[1] > UINT64_MAX / h->shape[2] / c || sample > (UINT64_MAX / 2) / h->shape[0])
        return feed__err(FEED_E_DATASET, err, errlen, "shape %s is too large", sh);
    feed_status st = check_size(h, h->shape[0] * sample, file_bytes, err, errlen);
    if (st != FEED_OK)
        return st;
    out->data_off = h->data_off;
    out->count = h->shape[0];
    out->sample_bytes = sample;
    out->file_bytes = file_bytes;
    out->h = (uint32_t)h->shape[1];
    out->w = (uint32_t)h->shape[2];
    out->c = (uint32_t)c;
    return FEED_OK;
}

feed_status feed__npy_check_labels(const feed__npy_header *h, uint64_t file_bytes, uint64_t n, char *err,
                                   size_t errlen)
{
    char sh[200];
    shape_text(h, sh, sizeof sh);
    if (h->kind != 'i' || (h->item != 4 && h->item != 8))
        return feed__err(FEED_E_DATASET, err, errlen, "dtype '%s': labels must be int32 or int64", h->descr);
    /* One dimension has one order: fortran_order changes nothing then. */
    if (h->rank != 1)
        return feed__err(FEED_E_DATASET, err, errlen, "shape %s: labels must have shape (N,)", sh);
    if (h->shape[0] != n)
        return feed__err(FEED_E_DATASET, err, errlen, "%llu labels for %llu images",
                         (unsigned long long)h->shape[0], (unsigned long long)n);
    return check_size(h, n, file_bytes, err, errlen);
}

feed_status feed__npy_check_targets(const feed__npy_header *h, uint64_t file_bytes, uint64_t n, char *err,
                                    size_t errlen)
{
    char sh[200];
    shape_text(h, sh, sizeof sh);
    if (!((h->kind == 'f' || h->kind == 'i') && (h->item == 4 || h->item == 8)))
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dtype '%s': targets must be float32, float64, int32 or int64", h->descr);
    if (h->rank != 1 && h->rank != 2)
        return feed__err(FEED_E_DATASET, err, errlen, "shape %s: targets must have shape (N,) or (N, K)", sh);
    if (h->rank == 2 && h->fortran && h->shape[1] > 1)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "shape %s in Fortran order: write it in C order (numpy.ascontiguousarray)", sh);
    uint64_t k = h->rank == 2 ? h->shape[1] : 1;
    if (h->shape[0] != n)
        return feed__err(FEED_E_DATASET, err, errlen, "%llu rows of targets for %llu samples",
                         (unsigned long long)h->shape[0], (unsigned long long)n);
    if (k == 0 || k > FEED_NPY_MAX_TARGET_DIM)
        return feed__err(FEED_E_DATASET, err, errlen, "shape %s: K must be in 1..%u", sh,
                         (unsigned)FEED_NPY_MAX_TARGET_DIM);
    if (n && k > UINT64_MAX / n)
        return feed__err(FEED_E_DATASET, err, errlen, "shape %s is too large", sh);
    return check_size(h, n * k, file_bytes, err, errlen);
}

feed_status feed__npy_labels(const feed__npy_header *h, const uint8_t *data, uint64_t first, uint64_t n,
                             int32_t *out, int32_t *max, char *err, size_t errlen)
{
    int big = h->order == '>';
    int32_t m = *max;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *q = data + i * h->item;
        uint64_t u = 0;
        for (uint32_t k = 0; k < h->item; k++)
            u |= (uint64_t)q[big ? h->item - 1 - k : k] << (8 * k);
        int64_t v = h->item == 4 ? (int64_t)(int32_t)(uint32_t)u : (int64_t)u;
        if (v < 0 || v > (int64_t)FEED_MAX_LABEL)
            return feed__err(FEED_E_DATASET, err, errlen, "label %lld of sample %llu is out of range: labels are 0..%u",
                             (long long)v, (unsigned long long)(first + i), FEED_MAX_LABEL);
        out[i] = (int32_t)v;
        if (out[i] > m)
            m = out[i];
    }
    *max = m;
    return FEED_OK;
}

feed_status feed__npy_open(const char *path, const char *what, int *fd_out, uint64_t *size,
                            feed__npy_header *h, char *err, size_t errlen)
{
    char why[512];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return feed__err(e == EMFILE || e == ENFILE ? FEED_E_RESOURCE : FEED_E_DATASET, err, errlen,
                         "dataset: cannot open %s %s: %s", what, path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: %s %s is not a regular file", what, path);
    }
    size_t want = (size_t)sb.st_size < FEED_NPY_MAX_HEADER + 12 ? (size_t)sb.st_size : FEED_NPY_MAX_HEADER + 12;
    uint8_t *buf = feed__malloc(want ? want : 1);
    if (!buf) {
        close(fd);
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
    }
    size_t got = 0;
    while (got < want) {
        ssize_t r = pread(fd, buf + got, want - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    feed_status st = feed__npy_parse(buf, got, h, why, sizeof why);
    feed__free(buf);
    if (st != FEED_OK) {
        close(fd);
        return feed__err(st, err, errlen, "dataset: %s %s: %s", what, path, why);
    }
    *fd_out = fd;
    *size = (uint64_t)sb.st_size;
    return FEED_OK;
}

feed_status feed__npy_index_build(feed__index *ix, const char *path, const char *labels, char *err,
                                  size_t errlen)
{
    char why[512], full[PATH_MAX];
    feed__npy_header h, lh;
    feed__npy_images im;
    int fd = -1, lfd = -1;
    uint64_t size, lsize;
    uint8_t *chunk = NULL;
    feed__index_hdr *hdr = NULL;
    feed_status st;

    memset(ix, 0, sizeof *ix);
    ix->fd = -1;
    if (!realpath(path, full))
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: %s: %s", path, strerror(errno));
    if ((st = feed__npy_open(full, "array", &fd, &size, &h, err, errlen)) != FEED_OK)
        return st;
    close(fd); /* the workers open it themselves */
    if ((st = feed__npy_check_images(&h, size, &im, why, sizeof why)) != FEED_OK)
        return feed__err(st, err, errlen, "dataset: array %s: %s", full, why);
    if (!labels || !*labels)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: %s is a .npy array: give its labels too (labels=PATH, a .npy of %llu "
                         "int32 or int64 values)",
                         full, (unsigned long long)im.count);
    if ((st = feed__npy_open(labels, "labels", &lfd, &lsize, &lh, err, errlen)) != FEED_OK)
        return st;
    if ((st = feed__npy_check_labels(&lh, lsize, im.count, why, sizeof why)) != FEED_OK) {
        st = feed__err(st, err, errlen, "dataset: labels %s (for %s): %s", labels, full, why);
        goto out;
    }
    char *slash = strrchr(full, '/');
    const char *name = slash + 1;
    size_t namelen = strlen(name);
    *slash = 0;
    if (slash == full)
        strcpy(full, "/");
    if (strlen(full) >= FEED_PATH_MAX) {
        st = feed__err(FEED_E_DATASET, err, errlen, "dataset: root path too long");
        goto out;
    }
    uint64_t labels_off = FEED_ALIGN_UP(sizeof(feed__index_hdr), 64);
    uint64_t pool_off = FEED_ALIGN_UP(labels_off + im.count * sizeof(int32_t), 64);
    uint64_t total = FEED_ALIGN_UP(pool_off + namelen + 1, 4096);
    hdr = feed__calloc(1, total);
    if (!hdr) {
        st = feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory (%llu bytes of index)",
                       (unsigned long long)total);
        goto out;
    }
    /* Read, not mapped: a file cut short under a mapping would be SIGBUS
     * in the trainer's process; a short read is an error message. */
    enum { CHUNK = 1 << 16 };
    chunk = feed__malloc((size_t)CHUNK * lh.item);
    if (!chunk) {
        st = feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
        goto out;
    }
    int32_t max = 0;
    for (uint64_t i = 0; i < im.count; i += CHUNK) {
        uint64_t k = im.count - i < CHUNK ? im.count - i : CHUNK;
        size_t want = (size_t)k * lh.item, got = 0;
        while (got < want) {
            ssize_t r = pread(lfd, chunk + got, want - got, (off_t)(lh.data_off + i * lh.item + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                st = feed__err(FEED_E_DATASET, err, errlen, "dataset: cannot read labels %s: %s", labels,
                               r < 0 ? strerror(errno) : "the file got shorter");
                goto out;
            }
            got += (size_t)r;
        }
        if ((st = feed__npy_labels(&lh, chunk, i, k, (int32_t *)((char *)hdr + labels_off) + i, &max, why,
                                   sizeof why)) != FEED_OK) {
            st = feed__err(st, err, errlen, "dataset: labels %s: %s", labels, why);
            goto out;
        }
    }
    hdr->magic = FEED_INDEX_MAGIC;
    hdr->version = FEED_INDEX_VERSION;
    hdr->kind = FEED_INDEX_NPY;
    hdr->count = im.count;
    hdr->nclasses = (uint32_t)max + 1;
    hdr->total_bytes = total;
    hdr->entries_off = labels_off; /* no entries: the labels' table */
    hdr->classes_off = pool_off;   /* no class names */
    hdr->pool_off = pool_off;
    hdr->pool_bytes = namelen + 1;
    hdr->labels_off = labels_off;
    hdr->max_labels = 1; /* one label a sample, as every index says it */
    hdr->npy = im;
    strcpy(hdr->root, full);
    memcpy((char *)hdr + pool_off, name, namelen + 1);
    ix->hdr = hdr;
    hdr = NULL;
out:
    feed__free(hdr);
    feed__free(chunk);
    if (lfd >= 0)
        close(lfd);
    return st;
}

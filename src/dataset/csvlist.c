/*
 * csvlist.c - a file list with a header row (.csv, .tsv), as pandas writes
 * one (DataFrame.to_csv(index=False), sep="\t" for .tsv): filelist.h says
 * which columns are read.
 *
 * Fields are separated by ',' (.csv) or a tab (.tsv); a field may be quoted
 * ("a, b.jpg", "3,17,42") with "" for a quote inside it, as RFC 4180 has it,
 * but not span lines. A UTF-8 byte-order mark before the header is skipped.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/internal.h"
#include "dataset/builder.h"
#include "dataset/filelist.h"

#define CSV_MAX_FIELDS 4096

/* Splits line (NUL-terminated, modified) into fields at sep, unquoting
 * quoted ones; each field trimmed of spaces outside quotes. Returns the
 * number of fields, or -1 (an unterminated quote, text after a closing
 * quote, more than max fields). */
static int split(char *line, char sep, char **fields, int max)
{
    int n = 0;
    char *r = line, *w;
    for (;;) {
        if (n == max)
            return -1;
        while (*r == ' ')
            r++;
        fields[n++] = w = r;
        if (*r == '"') {
            fields[n - 1] = w = ++r;
            for (;;) {
                if (!*r)
                    return -1;
                if (*r == '"' && r[1] == '"')
                    *w++ = '"', r += 2;
                else if (*r == '"')
                    break;
                else
                    *w++ = *r++;
            }
            r++;
            while (*r == ' ')
                r++;
            if (*r && *r != sep)
                return -1;
        } else {
            while (*r && *r != sep)
                r++;
            char *e = r;
            while (e > w && e[-1] == ' ')
                e--;
            w = e;
        }
        int more = *r == sep;
        *w = 0;
        if (!more)
            return n;
        r++;
    }
}

static int find(char **names, int n, const char *const *want)
{
    for (const char *const *q = want; *q; q++)
        for (int i = 0; i < n; i++)
            if (!strcasecmp(names[i], *q))
                return i;
    return -1;
}

/* The header's names, for a message. */
static void header_text(char **names, int n, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < n && o + 4 < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s'%s'", i ? ", " : "", names[i]);
    if (o >= cap - 4 && cap >= 4)
        memcpy(out + cap - 4, "...", 4);
}

typedef struct csvcols {
    int path, label;
    int tcol[FEED_CSV_MAX_TARGETS];
    uint32_t ntargets;
} csvcols;

/* The columns the header names: the path (required), the label (optional:
 * 0 for every sample without one), and each of target_columns. */
static feed_status header(char *line, char sep, const char *list, const char *target_columns, csvcols *c,
                          int *nfields, char *err, size_t errlen)
{
    static const char *const paths[] = {"path", "filepath", "file_path", "filename", "file_name", "file",
                                        "image_path", "image", NULL};
    static const char *const labels[] = {"label", "labels", "class", "class_id", "category", NULL};
    char *names[CSV_MAX_FIELDS], shown[1024];
    if (!strncmp(line, "\xef\xbb\xbf", 3)) /* a UTF-8 BOM, as Excel writes */
        memmove(line, line + 3, strlen(line + 3) + 1);
    int n = split(line, sep, names, CSV_MAX_FIELDS);
    if (n < 0)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: %s:1: a malformed header row", list);
    header_text(names, n, shown, sizeof shown);
    c->path = find(names, n, paths);
    c->label = find(names, n, labels);
    if (c->path < 0)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: %s:1: no path column in the header (%s): name it path, filename, file or image",
                         list, shown);
    c->ntargets = 0;
    for (const char *t = target_columns; t && *t;) {
        const char *e = strchr(t, ':');
        size_t len = e ? (size_t)(e - t) : strlen(t);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), t);
        int at = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(names[i], name)) {
                if (at >= 0)
                    return feed__err(FEED_E_DATASET, err, errlen, "dataset: %s:1: the header has column '%s' twice",
                                     list, name);
                at = i;
            }
        if (at < 0)
            return feed__err(FEED_E_DATASET, err, errlen,
                             "dataset: %s:1: target_columns names '%s', which the header (%s) does not have", list,
                             name, shown);
        if (c->ntargets == FEED_CSV_MAX_TARGETS)
            return feed__err(FEED_E_INVALID, err, errlen, "target_columns: more than %u columns",
                             FEED_CSV_MAX_TARGETS);
        c->tcol[c->ntargets++] = at;
        t = e ? e + 1 : NULL;
    }
    *nfields = n;
    return FEED_OK;
}

/* A float cell: all of it a number strtof takes (rounded to nearest). */
static int cell_float(const char *s, float *out)
{
    char *end;
    errno = 0;
    *out = strtof(s, &end);
    return *s && end != s && !*end && errno != ERANGE;
}

static feed_status grow(feed__targets *t, uint64_t rows, char *err, size_t errlen)
{
    uint64_t cap = t->n;
    if (rows <= cap)
        return FEED_OK;
    uint64_t want = cap ? cap * 2 : 1024;
    uint8_t *p = feed__realloc(t->data, (size_t)want * t->dim * sizeof(float));
    if (!p)
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory for the targets");
    t->data = p;
    t->n = want;
    return FEED_OK;
}

feed_status feed__csvlist_build(feed__builder *b, FILE *f, const char *list, char sep, const char *target_columns,
                                feed__targets *tg, feed__quote_fn quote, char *err, size_t errlen)
{
    char *line = NULL, *fields[CSV_MAX_FIELDS], why[4 * 60 + 128], shown[4 * 200 + 4];
    size_t cap = 0;
    ssize_t len;
    uint64_t lineno = 0;
    int64_t maxlabel = -1;
    int nf = 0;
    csvcols c = {.path = -1, .label = -1};
    feed_status st = FEED_OK;
    int32_t *labs = feed__malloc(FEED_MAX_SAMPLE_LABELS * sizeof *labs);
    if (!labs)
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
    *tg = (feed__targets){0};
    while (st == FEED_OK && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (memchr(line, 0, (size_t)len)) {
            st = feed__err(FEED_E_DATASET, err, errlen, "dataset: %s:%llu: a NUL byte: a binary file, not a %s",
                           list, (unsigned long long)lineno, sep == ',' ? "CSV" : "TSV");
            break;
        }
        if (lineno == 1) {
            if ((st = header(line, sep, list, target_columns, &c, &nf, err, errlen)) == FEED_OK)
                tg->dim = c.ntargets;
            continue;
        }
        if (!line[strspn(line, " \t")])
            continue; /* a blank line */
        quote(shown, sizeof shown, line, (size_t)len);
        int n = split(line, sep, fields, CSV_MAX_FIELDS);
        if (n != nf) {
            st = feed__err(FEED_E_DATASET, err, errlen, "dataset: %s:%llu: %s fields in '%s', the header has %d",
                           list, (unsigned long long)lineno, n < 0 ? "malformed" : "another number of", shown, nf);
            break;
        }
        const char *path = fields[c.path];
        if (!*path) {
            st = feed__err(FEED_E_DATASET, err, errlen, "dataset: %s:%llu: an empty path in '%s'", list,
                           (unsigned long long)lineno, shown);
            break;
        }
        uint32_t nl = 1;
        labs[0] = 0;
        if (c.label >= 0) {
            const char *cell = fields[c.label];
            nl = feed__labels_parse(cell, strlen(cell), labs, FEED_MAX_SAMPLE_LABELS, quote, why, sizeof why);
            if (nl > 1 && !b->multi_ok)
                snprintf(why, sizeof why, "%u labels in one cell: several labels a sample need multi_label=1", nl);
            if (nl == 0 || (nl > 1 && !b->multi_ok)) {
                st = feed__err(FEED_E_DATASET, err, errlen, "dataset: %s:%llu: %s", list, (unsigned long long)lineno,
                               why);
                break;
            }
        }
        if (c.ntargets) {
            if ((st = grow(tg, b->n + 1, err, errlen)) != FEED_OK)
                break;
            float *row = (float *)(void *)tg->data + b->n * c.ntargets;
            for (uint32_t k = 0; k < c.ntargets && st == FEED_OK; k++)
                if (!cell_float(fields[c.tcol[k]], &row[k])) {
                    char cell[4 * 60 + 4];
                    quote(cell, sizeof cell, fields[c.tcol[k]], strlen(fields[c.tcol[k]]));
                    st = feed__err(FEED_E_DATASET, err, errlen,
                                   "dataset: %s:%llu: target column %u holds '%s', not a float32 number", list,
                                   (unsigned long long)lineno, k, cell);
                }
            if (st != FEED_OK)
                break;
        }
        st = feed__filelist_add(b, list, lineno, path, strlen(path), labs, nl, &maxlabel, err, errlen);
    }
    if (st == FEED_OK && lineno == 0)
        st = feed__err(FEED_E_DATASET, err, errlen, "dataset: %s is empty: a header row is needed", list);
    if (st == FEED_OK && ferror(f))
        st = feed__err(FEED_E_DATASET, err, errlen, "dataset: error reading %s: %s", list, strerror(errno));
    free(line);
    feed__free(labs);
    b->nclasses = (uint32_t)(maxlabel + 1);
    if (st != FEED_OK || !tg->dim) {
        feed__free(tg->data);
        *tg = (feed__targets){0};
        return st;
    }
    tg->n = b->n;
    tg->elem = 4;
    tg->dtype = FEED_TARGET_FLOAT32;
    return FEED_OK;
}

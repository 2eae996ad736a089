/*
 * filelist.c - the file-list source (filelist.h): a text file of
 * "path label" lines, parsed into an index; what is wrong with a line is
 * quoted back escaped, so no raw byte of a binary file reaches a terminal.
 */
#include "dataset/filelist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/format.h"
#include "common/internal.h"
#include "dataset/builder.h"

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

const char *feed__filelist_quote(char *dst, size_t dstlen, const char *src, size_t n)
{
    return escape(dst, dstlen, src, n);
}

feed_status feed__filelist_add(feed__builder *b, const char *list, uint64_t lineno, const char *path, size_t len,
                               const int32_t *labs, uint32_t nl, int64_t *maxlabel, char *err, size_t errlen)
{
    int rc = feed__builder_add_entry(b, path, len, labs[0]);
    if (!rc && nl > 1)
        rc = feed__builder_add_labels(b, labs, nl);
    if (rc == -2)
        return feed__err(FEED_E_DATASET, err, errlen, "dataset: %s:%llu: more than %llu labels in all", list,
                         (unsigned long long)lineno, (unsigned long long)FEED_MAX_EXTRA_LABELS);
    if (rc)
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
    for (uint32_t k = 0; k < nl; k++)
        if (labs[k] > *maxlabel)
            *maxlabel = labs[k];
    return FEED_OK;
}

feed_status feed__filelist_build(feed__builder *b, const char *list, char *err, size_t errlen)
{
    FILE *f = fopen(list, "re");
    if (!f)
        return feed__dataset_sys_error(err, errlen, errno, "open file list", list);
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
    int32_t *labs = feed__malloc(FEED_MAX_SAMPLE_LABELS * sizeof *labs);
    if (!labs) {
        fclose(f);
        return feed__err(FEED_E_NOMEM, err, errlen, "dataset: out of memory");
    }
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
        /* The labels are the last words that are integers or comma lists of
         * them ("a.jpg 3 17 42", "a.jpg 3,17,42"); the path is the rest,
         * spaces and all, and never empty. */
        while (sp > s) {
            char *w = sp;
            while (w > s && isspace((unsigned char)w[-1]))
                w--;
            char *ws = w;
            while (ws > s && !isspace((unsigned char)ws[-1]))
                ws--;
            if (ws == s || strspn(ws, "0123456789+,") < (size_t)(w - ws))
                break;
            sp = ws;
        }
        char why[4 * 60 + 128];
        uint32_t nl = feed__labels_parse(sp, strlen(sp), labs, FEED_MAX_SAMPLE_LABELS, feed__filelist_quote, why, sizeof why);
        if (nl > 1 && !b->multi_ok)
            snprintf(why, sizeof why,
                     "%u labels on one line: several labels a sample need multi_label=1 (a path whose "
                     "last word is a number cannot be listed: rename it)", nl);
        if (nl == 0 || (nl > 1 && !b->multi_ok)) {
            st = feed__err(FEED_E_DATASET, err, errlen, "dataset: %s:%llu: %s", list, (unsigned long long)lineno,
                           why);
            break;
        }
        char *pe = sp;
        while (pe > s && isspace((unsigned char)pe[-1]))
            pe--;
        *pe = 0;
        st = feed__filelist_add(b, list, lineno, s, (size_t)(pe - s), labs, nl, &maxlabel, err, errlen);
    }
    if (st == FEED_OK && ferror(f))
        st = feed__err(FEED_E_DATASET, err, errlen, "dataset: error reading %s: %s", list,
                       strerror(errno));
    free(line);
    feed__free(labs);
    fclose(f);
    /* 0..2^31: only a count; a file list has no per-class table */
    b->nclasses = (uint32_t)(maxlabel + 1);
    return st;
}

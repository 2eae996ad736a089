/*
 * options_parse.c - "key=value,key=value" text into feed_options, one item at
 * a time through feed_options_set (options.c); a value may be double-quoted to
 * hold commas (a path like /data/a,b).
 */
#include <string.h>

#include "common/internal.h"
#include "feed.h"

/* One "key=value" item of text from *at: key and value unquoted into buf
 * (a value may be "double-quoted", with \" and \\ inside, to hold commas);
 * *at moves past the item and its comma. 0, 1 at the end, -1 malformed. */
static int next_item(const char **at, char *buf, char **key, char **value)
{
    const char *p = *at;
    while (*p == ' ' || *p == ',')
        p++;
    if (!*p)
        return 1;
    char *w = buf;
    *key = buf;
    *value = NULL;
    while (*p && *p != ',') {
        if (*p == '=' && !*value) {
            *w++ = 0;
            *value = w;
            p++;
            if (*p == '"') { /* a quoted value: up to the closing quote */
                for (p++; *p != '"'; p++) {
                    if (!*p)
                        return -1;
                    if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                        p++;
                    *w++ = *p;
                }
                p++;
                if (*p && *p != ',')
                    return -1; /* text after the closing quote */
                break;
            }
            continue;
        }
        *w++ = *p++;
    }
    *w = 0;
    *at = p;
    return *value ? 0 : -1;
}

feed_status feed_options_parse(feed_options *o, const char *text, char *err, size_t errlen)
{
    if (!o || !text)
        return feed__err(FEED_E_INVALID, err, errlen, "options: NULL argument");
    size_t n = strlen(text);
    char *buf = feed__malloc(n + 1);
    if (!buf)
        return feed__err(FEED_E_NOMEM, err, errlen, "options: out of memory");
    feed_status st = FEED_OK;
    const char *at = text;
    for (;;) {
        const char *start = at;
        while (*start == ' ' || *start == ',')
            start++;
        char *key, *value;
        int r = next_item(&at, buf, &key, &value);
        if (r == 1)
            break;
        if (r < 0) {
            const char *end = strchr(start, ',');
            st = feed__err(FEED_E_INVALID, err, errlen,
                           "options: '%.*s' is not key=value (quote a value that holds a comma: "
                           "key=\"a,b\", with \\\" and \\\\ inside)",
                           (int)(end ? (size_t)(end - start) : strlen(start)), start);
            break;
        }
        if ((st = feed_options_set(o, key, value, err, errlen)) != FEED_OK)
            break;
    }
    feed__free(buf);
    return st;
}

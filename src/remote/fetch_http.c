/*
 * fetch_http.c - feed-fetch's transfers (libcurl): HEAD, GET into a file, a
 * byte range into memory, s3:// as path-style HTTPS signed with SigV4
 * (CURLOPT_AWS_SIGV4), and the ListObjectsV2 listing of an s3:// glob.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <curl/curl.h>

#include "remote/fetch.h"

static const char *env(const char *a, const char *b)
{
    const char *v = getenv(a);
    if ((!v || !*v) && b)
        v = getenv(b);
    return v && *v ? v : NULL;
}

/* The CA certificates for https: $CURL_CA_BUNDLE, else $SSL_CERT_FILE (as curl);
 * else libcurl's own default where that file exists; else the first bundle
 * found where Linux distributions keep one. The wheel carries Debian's
 * libcurl, whose default (/etc/ssl/certs/ca-certificates.crt) Fedora, RHEL,
 * Amazon Linux and SUSE do not have. "": libcurl's default, whatever it is. */
static char ca_file[4096];

static void pick_ca_file(void)
{
    static const char *const known[] = {
        "/etc/ssl/certs/ca-certificates.crt",                /* Debian, Ubuntu, Arch, Gentoo */
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", /* Fedora, RHEL, Amazon Linux */
        "/etc/pki/tls/certs/ca-bundle.crt",                  /* older Fedora and RHEL */
        "/etc/ssl/ca-bundle.pem",                            /* openSUSE, SLES */
        "/etc/ssl/cert.pem",                                 /* Alpine */
    };
    const char *v = env("CURL_CA_BUNDLE", "SSL_CERT_FILE");
    ca_file[0] = 0;
    if (v) {
        snprintf(ca_file, sizeof ca_file, "%s", v);
        return;
    }
#if LIBCURL_VERSION_NUM >= 0x075400 /* CURLINFO_CAINFO: 7.84 */
    CURL *e = curl_easy_init();
    char *def = NULL;
    int have = e && curl_easy_getinfo(e, CURLINFO_CAINFO, &def) == CURLE_OK && def && access(def, R_OK) == 0;
    curl_easy_cleanup(e);
    if (have)
        return;
#endif
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (access(known[i], R_OK) == 0) {
            snprintf(ca_file, sizeof ca_file, "%s", known[i]);
            return;
        }
}

/* One easy handle a thread, reset before each request: its connections (and
 * TLS sessions, DNS answers) are kept for the next, so the many small GETs of
 * byte ranges do not each pay a connect and a handshake. */
static pthread_key_t handle_key;

static void handle_free(void *e)
{
    curl_easy_cleanup(e);
}

static CURL *thread_handle(void)
{
    CURL *e = pthread_getspecific(handle_key);
    if (e) {
        curl_easy_reset(e);
        return e;
    }
    if ((e = curl_easy_init()) && pthread_setspecific(handle_key, e) != 0) {
        curl_easy_cleanup(e);
        e = NULL;
    }
    return e;
}

int fetch_http_init(void)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || pthread_key_create(&handle_key, handle_free) != 0)
        return -1;
    pick_ca_file();
    return 0;
}

void fetch_http_done(void)
{
    CURL *e = pthread_getspecific(handle_key); /* the calling thread's; the others' went with them */
    if (e)
        curl_easy_cleanup(e);
    pthread_setspecific(handle_key, NULL);
    curl_global_cleanup();
}

/* Appends s to out, percent-encoding all but unreserved characters (and '/'
 * when keep_slash). */
static void put_escaped(char *out, size_t cap, const char *s, int keep_slash)
{
    size_t n = strlen(out);
    for (; *s && n + 4 < cap; s++) {
        unsigned char ch = (unsigned char)*s;
        if (isalnum(ch) || strchr("-._~", ch) || (keep_slash && ch == '/'))
            out[n++] = (char)ch;
        else
            n += (size_t)snprintf(out + n, cap - n, "%%%02X", ch);
    }
    out[n] = 0;
}

static const char *s3_region(void)
{
    const char *r = env("AWS_REGION", "AWS_DEFAULT_REGION");
    return r ? r : "us-east-1";
}

/* s3://bucket/key[?query] -> the endpoint's path-style URL of bucket (and
 * key, when with_key), escaped, the query as it is. -1: no bucket. */
static int s3_http_url(const char *url, char *out, size_t cap, int with_key, char *bucket, size_t bcap)
{
    const char *b = url + 5;
    size_t blen = strcspn(b, "/?");
    if (blen == 0 || blen >= bcap)
        return -1;
    memcpy(bucket, b, blen);
    bucket[blen] = 0;
    const char *ep = env("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
    if (ep)
        snprintf(out, cap, "%s", ep);
    else
        snprintf(out, cap, "https://s3.%s.amazonaws.com", s3_region());
    size_t n = strlen(out);
    while (n && out[n - 1] == '/')
        out[--n] = 0;
    strncat(out, "/", cap - n - 1);
    put_escaped(out, cap, bucket, 0);
    const char *query = strchr(b + blen, '?');
    if (with_key && b[blen] == '/') {
        char key[8192];
        size_t klen = query ? (size_t)(query - (b + blen + 1)) : strlen(b + blen + 1);
        if (klen >= sizeof key)
            return -1;
        memcpy(key, b + blen + 1, klen);
        key[klen] = 0;
        strncat(out, "/", cap - strlen(out) - 1);
        put_escaped(out, cap, key, 1);
    }
    if (query)
        strncat(out, query, cap - strlen(out) - 1);
    return 0;
}

typedef struct xfer {
    fetch_head *h;
    int fd;
    uint64_t written;
    int werr;
    char *mem; /* a listing or a probe: the body in memory */
    size_t memlen, memcap, memmax; /* memmax: more ends the transfer (0: no limit) */
    int capped;                    /* it did */
    int fixed;                     /* mem is the caller's, memmax bytes: no growing, no NUL */
} xfer;

static size_t on_header(char *buf, size_t size, size_t n, void *ud)
{
    xfer *x = ud;
    size_t len = size * n;
    char line[512];
    size_t k = len < sizeof line - 1 ? len : sizeof line - 1;
    memcpy(line, buf, k);
    line[k] = 0;
    while (k && (line[k - 1] == '\r' || line[k - 1] == '\n' || line[k - 1] == ' '))
        line[--k] = 0;
    if (!strncmp(line, "HTTP/", 5)) /* a new response (after a redirect): forget the last one's */
        x->h->etag[0] = x->h->last_modified[0] = 0;
    char *colon = strchr(line, ':');
    if (colon) {
        *colon = 0;
        char *v = colon + 1;
        while (*v == ' ')
            v++;
        if (!strcasecmp(line, "etag"))
            snprintf(x->h->etag, sizeof x->h->etag, "%s", v);
        else if (!strcasecmp(line, "last-modified"))
            snprintf(x->h->last_modified, sizeof x->h->last_modified, "%s", v);
        else if (!strcasecmp(line, "content-range") && strchr(v, '/'))
            x->h->range_total = strtoll(strchr(v, '/') + 1, NULL, 10);
    }
    return len;
}

static size_t on_body(char *buf, size_t size, size_t n, void *ud)
{
    xfer *x = ud;
    size_t len = size * n;
    if (x->mem || x->fd < 0) {
        if (x->memmax && x->memlen + len > x->memmax) {
            x->capped = 1;
            return 0;
        }
        if (!x->fixed && x->memlen + len + 1 > x->memcap) {
            size_t cap = (x->memlen + len + 1) * 2;
            char *p = realloc(x->mem, cap);
            if (!p)
                return 0;
            x->mem = p, x->memcap = cap;
        }
        memcpy(x->mem + x->memlen, buf, len);
        x->memlen += len;
        if (!x->fixed)
            x->mem[x->memlen] = 0;
        return len;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(x->fd, buf + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            x->werr = w < 0 ? errno : ENOSPC;
            return 0; /* curl stops: CURLE_WRITE_ERROR */
        }
        done += (size_t)w;
    }
    x->written += len;
    return len;
}

/* One request: url (s3:// signed) with method HEAD (nobody) or GET. */
static int perform(const fetch_cfg *c, const char *url, int nobody, const char *if_match, const char *range,
                   xfer *x)
{
    fetch_head *h = x->h;
    memset(h, 0, sizeof *h);
    h->size = h->range_total = -1;
    char http[8192], bucket[256];
    struct curl_slist *hdrs = NULL;
    char userpwd[1024], sigv4[128], hdr[4096];
    CURL *e = thread_handle();
    if (!e) {
        snprintf(h->why, sizeof h->why, "libcurl: cannot make a handle");
        return -1;
    }
    if (!strncmp(url, "s3://", 5)) {
        if (s3_http_url(url, http, sizeof http, 1, bucket, sizeof bucket)) {
            snprintf(h->why, sizeof h->why, "not an s3://bucket/key URL");
            return -1;
        }
        const char *id = env("AWS_ACCESS_KEY_ID", NULL), *secret = env("AWS_SECRET_ACCESS_KEY", NULL);
        if (id && secret) {
            snprintf(userpwd, sizeof userpwd, "%s:%s", id, secret);
            snprintf(sigv4, sizeof sigv4, "aws:amz:%s:s3", s3_region());
            curl_easy_setopt(e, CURLOPT_USERPWD, userpwd);
            curl_easy_setopt(e, CURLOPT_AWS_SIGV4, sigv4);
            const char *token = env("AWS_SESSION_TOKEN", NULL);
            if (token) {
                snprintf(hdr, sizeof hdr, "x-amz-security-token: %s", token);
                hdrs = curl_slist_append(hdrs, hdr);
            }
        }
        /* S3 wants the payload's hash signed: an empty body's */
        hdrs = curl_slist_append(hdrs, "x-amz-content-sha256: "
                                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    } else {
        snprintf(http, sizeof http, "%s", url);
    }
    if (if_match && *if_match) {
        snprintf(hdr, sizeof hdr, "If-Match: %s", if_match);
        hdrs = curl_slist_append(hdrs, hdr);
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(e, CURLOPT_URL, http);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(e, CURLOPT_NOBODY, (long)nobody);
    if (range)
        curl_easy_setopt(e, CURLOPT_RANGE, range);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(e, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)c->timeout_ms);
    /* a stall: under 1 byte/s for the timeout */
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)(c->timeout_ms + 999) / 1000);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "libfeed-fetch");
    if (ca_file[0])
        curl_easy_setopt(e, CURLOPT_CAINFO, ca_file);
    CURLcode rc = curl_easy_perform(e);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &h->code);
    curl_off_t len = -1;
    curl_easy_getinfo(e, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len);
    h->size = len;
    int out = 0;
    if (rc == CURLE_WRITE_ERROR && x->capped) /* ended on purpose, the headers in */
        rc = CURLE_OK;
    if (rc != CURLE_OK) {
        snprintf(h->why, sizeof h->why, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
        /* a certificate refused stays refused: not tried again */
        h->retryable = rc != CURLE_WRITE_ERROR && rc != CURLE_UNSUPPORTED_PROTOCOL &&
                       rc != CURLE_URL_MALFORMAT && rc != CURLE_COULDNT_RESOLVE_HOST &&
                       rc != CURLE_PEER_FAILED_VERIFICATION && rc != CURLE_SSL_CACERT_BADFILE;
        h->code = 0;
        out = -1;
    } else if (h->code >= 300) {
        snprintf(h->why, sizeof h->why, "HTTP %ld", h->code);
        h->retryable = h->code >= 500 || h->code == 429 || h->code == 408;
    }
    curl_easy_reset(e); /* nothing of this call's (its buffers, its headers) kept; its connection kept */
    curl_slist_free_all(hdrs);
    return out;
}

int fetch_http_head(const fetch_cfg *c, const char *url, fetch_head *h)
{
    xfer x = {.h = h, .fd = -1};
    int rc = perform(c, url, 1, NULL, NULL, &x);
    free(x.mem);
    return rc;
}

int fetch_http_probe(const fetch_cfg *c, const char *url, fetch_head *h)
{
    xfer x = {.h = h, .fd = -1, .memmax = 4096};
    perform(c, url, 0, NULL, "0-0", &x);
    free(x.mem);
    if (h->code == 206 && h->range_total >= 0) {
        h->size = h->range_total;
        return 0;
    }
    if (h->code == 200 && h->size >= 0) { /* the range ignored: the length is the whole */
        h->why[0] = 0;
        h->retryable = 0;
        return 0;
    }
    return -1; /* h->code and h->why say why (0: a transport error) */
}

int fetch_http_get(const fetch_cfg *c, const char *url, const char *if_match, int fd, fetch_head *h,
                   uint64_t *written, int *werr)
{
    xfer x = {.h = h, .fd = fd};
    int rc = perform(c, url, 0, if_match, NULL, &x);
    *written = x.written;
    *werr = x.werr;
    free(x.mem);
    return rc;
}

int fetch_http_get_range(const fetch_cfg *c, const char *url, const char *if_match, uint64_t off, uint64_t len,
                         unsigned char *buf, fetch_head *h, uint64_t *got)
{
    char range[64];
    snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)off, (unsigned long long)(off + len - 1));
    xfer x = {.h = h, .fd = -1, .mem = (char *)buf, .memmax = len, .fixed = 1};
    int rc = perform(c, url, 0, if_match, range, &x);
    *got = x.memlen;
    return rc ? rc : x.capped;
}

/* The text of <tag>...</tag> from s on, XML entities decoded; NULL: none. */
static const char *xml_next(const char *s, const char *tag, char *out, size_t cap)
{
    char open[64], close[64];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    const char *a = strstr(s, open);
    if (!a)
        return NULL;
    a += strlen(open);
    const char *b = strstr(a, close);
    if (!b)
        return NULL;
    size_t n = 0;
    static const char *const ent[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""},
                                         {"&apos;", "'"}};
    for (const char *p = a; p < b && n + 1 < cap;) {
        size_t k = 0;
        for (; k < sizeof ent / sizeof ent[0]; k++)
            if (!strncmp(p, ent[k][0], strlen(ent[k][0])))
                break;
        if (k < sizeof ent / sizeof ent[0]) {
            out[n++] = ent[k][1][0];
            p += strlen(ent[k][0]);
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = 0;
    return b + strlen(close);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int fetch_s3_list(const fetch_cfg *c, const char *url, char ***out, size_t *n, char *why, size_t whylen)
{
    *out = NULL;
    *n = 0;
    char base[8192], bucket[256], req[16384];
    if (strncmp(url, "s3://", 5) || s3_http_url(url, base, sizeof base, 0, bucket, sizeof bucket)) {
        snprintf(why, whylen, "%s: a listing needs an s3://bucket/prefix/PATTERN URL", url);
        return -1;
    }
    const char *key_pat = strchr(url + 5, '/');
    key_pat = key_pat ? key_pat + 1 : "";
    size_t plen = strcspn(key_pat, "*?[");
    char prefix[4096];
    snprintf(prefix, sizeof prefix, "%.*s", (int)plen, key_pat);
    char token[2048] = "";
    size_t cap = 0;
    char **v = NULL;
    int rc = 0;
    for (;;) {
        /* The parameters in SigV4's canonical order (sorted by name), each
         * URI-encoded once: libcurl before 8.3 signs the query as it is. */
        snprintf(req, sizeof req, "s3://%s?", bucket);
        if (token[0]) {
            strncat(req, "continuation-token=", sizeof req - strlen(req) - 1);
            put_escaped(req, sizeof req, token, 0);
            strncat(req, "&", sizeof req - strlen(req) - 1);
        }
        strncat(req, "list-type=2&prefix=", sizeof req - strlen(req) - 1);
        put_escaped(req, sizeof req, prefix, 0);
        fetch_head h;
        xfer x = {.h = &h, .fd = -1};
        char s3form[16384];
        snprintf(s3form, sizeof s3form, "s3://%s%s", bucket, strchr(req, '?'));
        int r = perform(c, s3form, 0, NULL, NULL, &x);
        if (r || h.code != 200) {
            snprintf(why, whylen, "listing %s: %s%s%.200s", url, h.why, x.mem ? ": " : "", x.mem ? x.mem : "");
            free(x.mem);
            rc = -1;
            break;
        }
        const char *p = x.mem ? x.mem : "";
        char key[4096];
        const char *q = p;
        while ((q = xml_next(q, "Key", key, sizeof key))) {
            if (fnmatch(key_pat, key, FNM_PATHNAME) != 0)
                continue;
            if (*n == cap) {
                cap = cap ? cap * 2 : 64;
                char **nv = realloc(v, cap * sizeof *nv);
                if (!nv) {
                    rc = -1;
                    break;
                }
                v = nv;
            }
            size_t need = strlen(bucket) + strlen(key) + 8;
            if (!(v[*n] = malloc(need))) {
                rc = -1;
                break;
            }
            snprintf(v[*n], need, "s3://%s/%s", bucket, key);
            (*n)++;
        }
        char trunc[16] = "";
        xml_next(p, "IsTruncated", trunc, sizeof trunc);
        int more = !strcmp(trunc, "true") && xml_next(p, "NextContinuationToken", token, sizeof token);
        free(x.mem);
        if (rc) {
            snprintf(why, whylen, "listing %s: out of memory", url);
            break;
        }
        if (!more)
            break;
    }
    if (rc) {
        for (size_t i = 0; i < *n; i++)
            free(v[i]);
        free(v);
        *n = 0;
        return -1;
    }
    if (*n)
        qsort(v, *n, sizeof *v, cmp_str);
    *out = v;
    return 0;
}

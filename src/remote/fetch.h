/*
 * fetch.h - feed-fetch, the helper process that downloads remote shards into
 * the cache directory (remote.h is the parent's side of it).
 *
 * feed-fetch is the only program that links libcurl: libfeed.so and the
 * sandboxed workers open no socket. It reads its requests on stdin, one a
 * line, all before it starts:
 *   get <TAB> URL     the shard into the cache (or found there)
 *   list <TAB> URL    the objects an s3:// glob names (ListObjectsV2)
 * and answers each on stdout, in order:
 *   ok <TAB> PATH <TAB> SIZE <TAB> FETCHED     (get: the complete, checked file)
 *   url <TAB> URL ... then end                  (list: the matches, sorted)
 *   err <TAB> KIND <TAB> MESSAGE                (KIND: dataset, resource, io)
 * Gets run --parallel at a time (threads); answers keep the request order.
 * Retries and evictions are reported on stderr as they happen.
 *
 * With --mode stream it reads requests while it works, until stdin ends:
 *   head <TAB> ID <TAB> URL   the version a get would bring now
 *   get <TAB> ID <TAB> URL [<TAB> SIZE <TAB> ETAG <TAB> LAST-MODIFIED]
 *                             as above (evicting nothing a held list names);
 *                             with a version (a "ver" answer's), that one: no
 *                             HEAD first, the GET with If-Match on the ETag (or
 *                             its Last-Modified compared), another version an
 *                             error ("... changed while it was read")
 *   range <TAB> ID <TAB> URL <TAB> SIZE <TAB> ETAG <TAB> LAST-MODIFIED <TAB> OFF <TAB> LEN
 *                             bytes [OFF, OFF+LEN) of that version (a "ver"
 *                             answer's; LEN > 0, OFF+LEN <= SIZE), whole tar
 *                             members (a header at OFF, ..., the last member
 *                             ending at OFF+LEN), written at OFF into RPATH:
 *                             the version's PATH with its final ".tar"
 *                             replaced by ".ranges" (cache_ranges_name), a
 *                             sparse file of SIZE bytes that other processes
 *                             may be writing other ranges of. From the cached
 *                             .tar where it is complete, else a GET with Range
 *                             (and If-Match) of those bytes alone; a server
 *                             that answers with the whole object is an error
 * and answers each when it is done (any order), ID after the first field:
 *   ok <TAB> ID <TAB> PATH <TAB> SIZE <TAB> FETCHED      (range: RPATH for PATH)
 *   ver <TAB> ID <TAB> PATH <TAB> SIZE <TAB> CACHED <TAB> ETAG <TAB> LAST-MODIFIED
 *   err <TAB> ID <TAB> KIND <TAB> MESSAGE
 * ("-": no ETag, no Last-Modified). PATH names the version. SIZE: the
 * shard's; FETCHED: 1 when bytes came over the network.
 */
#ifndef FEED_FETCH_H
#define FEED_FETCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct fetch_cfg {
    const char *cache_dir;
    uint64_t cache_size;  /* bytes; 0: no limit */
    uint32_t retries;     /* tries after the first, for timeouts, resets, 5xx, bad downloads */
    uint32_t timeout_ms;  /* connect, and the longest a transfer may stall */
    uint32_t parallel;    /* downloads at once */
} fetch_cfg;

/* What a HEAD or GET said. */
typedef struct fetch_head {
    long code;            /* HTTP status, 0: none (a transport error) */
    int64_t size;         /* Content-Length, -1 unknown */
    int64_t range_total;  /* a 206's Content-Range total, -1 none */
    char etag[256];
    char last_modified[128];
    char why[512];        /* a transport error's words, or the HTTP status */
    int retryable;        /* a timeout, a reset, a 5xx */
} fetch_head;

/* One request's answer, a line: "ok ...", "ver ...", or "err <TAB> KIND <TAB>
 * MESSAGE" (a stream puts the request's ID after the first field). */
typedef struct fetch_answer {
    char text[4400 + 2048];
} fetch_answer;
/* An err answer (KIND: dataset, resource, io), the message made one line. */
void fetch_answer_err(fetch_answer *a, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reports try (of tries) failed on stderr, then waits 100 ms, 200 ms, ...
 * (at most 5 s) before the next. */
void fetch_backoff(const char *url, const char *what, uint32_t try, uint32_t tries);
/* A stream's "range" of url in version v (size, ETag, Last-Modified; "":
 * none): answered in *a (fetch_range.c). */
void fetch_range(const fetch_cfg *c, const char *url, const fetch_head *v, uint64_t off, uint64_t len,
                 fetch_answer *a);

int fetch_http_init(void);
void fetch_http_done(void);
/* HEAD url (s3:// signed, path-style). 0 on any answer (h->code set), -1 a
 * transport error (h->why). */
int fetch_http_head(const fetch_cfg *c, const char *url, fetch_head *h);
/* What HEAD would say, for a server that refuses HEAD (a presigned URL is
 * signed for GET only): a GET of byte 0 (Range), its size from the
 * Content-Range total, or from Content-Length where the range is ignored (the
 * transfer then stops after 4 KiB). 0: h->size known. */
int fetch_http_probe(const fetch_cfg *c, const char *url, fetch_head *h);
/* GET url into fd from byte 0; if_match: the ETag the object must still have
 * (a 412 or another ETag: h->code 412). Writes fail: *werr = errno. */
int fetch_http_get(const fetch_cfg *c, const char *url, const char *if_match, int fd, fetch_head *h,
                   uint64_t *written, int *werr);
/* GET bytes [off, off+len) of url (a Range header, len > 0) into buf (len
 * bytes; *got: how many came); if_match as fetch_http_get. -1: a transport
 * error, 1: the answer was longer than len (cut there: a 200 to the whole
 * object, where the server ignores Range), else 0; h->code says which answer
 * (206, with h->range_total). */
int fetch_http_get_range(const fetch_cfg *c, const char *url, const char *if_match, uint64_t off, uint64_t len,
                         unsigned char *buf, fetch_head *h, uint64_t *got);
/* The keys under s3://bucket/prefix matching the glob of url, as s3:// URLs,
 * sorted: 0, else -1 and why. */
int fetch_s3_list(const fetch_cfg *c, const char *url, char ***out, size_t *n, char *why, size_t whylen);

/* Confines this process before its first request (fetch_sandbox.c): 0, or
 * -1 and why. */
int fetch_sandbox(const char *cache_dir, char *why, size_t whylen);

/* 0: buf[0..len), the shard's bytes from off, is a chain of whole tar
 * members: a header with a right checksum at 0, the next one after its
 * member's data (in 512-byte blocks), ..., the last member ending at len.
 * Else -1 and why (offsets in the shard). */
int fetch_tar_chain(const unsigned char *buf, uint64_t len, uint64_t off, char *why, size_t whylen);

/* 0: the file fd (size bytes) is a whole tar file (every header's checksum right, every
 * member inside, ends with the zero blocks or at a header boundary). */
int fetch_tar_check(int fd, uint64_t size, char *why, size_t whylen);

#endif

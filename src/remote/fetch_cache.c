/*
 * fetch_cache.c - feed-fetch's cache directory: a shard's file and its record
 * (URL, ETag, Last-Modified, size), byte ranges of a shard, least-recently-used
 * eviction, and the tar checks of what was downloaded.
 *
 * DIR/<h>-<v>-<name>.tar is version v of the shard of URL u (h: 64-bit
 * FNV-1a of u, v of its ETag, Last-Modified and size, in hex; name: the URL's
 * last name) and DIR/<h>-<v>-<name>.meta its record; a record's mtime is when
 * the shard was last used (eviction goes oldest first). Another version of a
 * shard is another file: a running loader's file is never rewritten under it.
 * A download goes to DIR/<h>-<v>-<name>.tar.part.<pid> and is renamed once
 * complete and checked, then its record is written (also by rename): a .tar
 * without a record that matches is never used. DIR/<h>-<v>-<name>.ranges is a
 * sparse file of that version's size holding the byte ranges asked for
 * (written in place, by several processes at once); it has no record: it
 * counts for the blocks it has, last used when last written. DIR/index-<16
 * hex>.shards is a saved shard index (dataset/shardcache.h): never held (a
 * loader reads it at create only), last used when last saved or loaded, and
 * evicted after every shard nobody holds. A loader
 * holds DIR/.inuse/<pid>-<n>.list (its shards' URLs) under a shared flock
 * while it runs (remote.h): eviction skips every version of what a held list
 * names (of a "tar"/"ranges" line, those files only) and removes a list
 * nobody holds.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remote/fetch_cache.h"

static uint64_t fnv(const char *s, uint64_t h)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return h;
}

void cache_key(const char *url, char key[CACHE_KEY_LEN + 1])
{
    snprintf(key, CACHE_KEY_LEN + 1, "%016llx-", (unsigned long long)fnv(url, 1469598103934665603ull));
}

void cache_names(const char *dir, const char *url, const char *version, char *tar, char *meta, size_t cap)
{
    char key[CACHE_KEY_LEN + 1];
    cache_key(url, key);
    /* the URL's last name too, so that a report naming the file says which shard */
    const char *q = strchr(url, '?'), *end = q ? q : url + strlen(url), *base = end;
    while (base > url && base[-1] != '/')
        base--;
    char name[101];
    size_t n = 0;
    for (const char *p = base; p < end && n < sizeof name - 1; p++)
        name[n++] = (isalnum((unsigned char)*p) || strchr("-_.", *p)) ? *p : '_';
    name[n] = 0;
    if (n > 4 && !strcmp(name + n - 4, ".tar"))
        name[n - 4] = 0;
    unsigned long long v = (unsigned long long)fnv(version, 1469598103934665603ull);
    snprintf(tar, cap, "%s/%s%016llx-%s.tar", dir, key, v, name);
    snprintf(meta, cap, "%s/%s%016llx-%s.meta", dir, key, v, name);
}

void cache_version_names(const char *dir, const char *url, const char *etag, const char *last_modified,
                         int64_t size, char *tar, char *meta, size_t cap)
{
    char version[512];
    snprintf(version, sizeof version, "%s\n%s\n%lld", etag, last_modified, (long long)size);
    cache_names(dir, url, version, tar, meta, cap);
}

int cache_has(const char *tar, const char *meta, const char *url, const char *etag, const char *last_modified,
              uint64_t size)
{
    cache_rec r;
    struct stat sb;
    return cache_meta_read(meta, &r) == 0 && !strcmp(r.url, url) && r.size == size && !strcmp(r.etag, etag) &&
           !strcmp(r.last_modified, last_modified) && stat(tar, &sb) == 0 && (uint64_t)sb.st_size == size;
}

int cache_ranges_name(const char *tar, char *out, size_t cap)
{
    size_t n = strlen(tar);
    if (n < 4 || strcmp(tar + n - 4, ".tar") || n - 4 + sizeof ".ranges" > cap)
        return -1;
    snprintf(out, cap, "%.*s.ranges", (int)(n - 4), tar);
    return 0;
}

int cache_meta_read(const char *meta, cache_rec *r)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(meta, "re");
    if (!f)
        return -1;
    char size[32] = "";
    char *fields[] = {r->url, r->etag, r->last_modified, size};
    size_t caps[] = {sizeof r->url, sizeof r->etag, sizeof r->last_modified, sizeof size};
    int ok = 1;
    for (int i = 0; i < 4 && ok; i++) {
        if (!fgets(fields[i], (int)caps[i], f))
            ok = 0;
        else
            fields[i][strcspn(fields[i], "\n")] = 0;
    }
    fclose(f);
    char *end;
    r->size = strtoull(size, &end, 10);
    return ok && end != size && !*end ? 0 : -1;
}

int cache_meta_write(const char *meta, const cache_rec *r)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.part.%ld", meta, (long)getpid());
    FILE *f = fopen(tmp, "we");
    if (!f)
        return -1;
    int ok = fprintf(f, "%s\n%s\n%s\n%llu\n", r->url, r->etag, r->last_modified, (unsigned long long)r->size) > 0;
    ok = fflush(f) == 0 && ok;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, meta) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

void cache_touch(const char *meta)
{
    utimensat(AT_FDCWD, meta, NULL, 0);
}

typedef struct names {
    char **v;
    size_t n, cap;
} names;

static int names_add(names *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v, l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(s)))
        return -1;
    l->n++;
    return 0;
}

static void names_free(names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* The shard files that running loaders hold (their .inuse lists); the lists
 * of loaders that are gone are removed. */
static int held_shards(const char *dir, names *out)
{
    char sub[4200], path[4500], key[CACHE_KEY_LEN + 1];
    snprintf(sub, sizeof sub, "%s/.inuse", dir);
    DIR *d = opendir(sub);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    struct dirent *de;
    int rc = 0;
    while (!rc && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".list"))
            continue;
        snprintf(path, sizeof path, "%s/%s", sub, de->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) { /* its loader is gone */
            unlink(path);
            close(fd);
            continue;
        }
        FILE *f = fdopen(fd, "r");
        if (!f) {
            close(fd);
            rc = -1;
            break;
        }
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while (!rc && (n = getline(&line, &cap, f)) > 0) {
            line[strcspn(line, "\n")] = 0;
            /* "URL": every file of it; "tar <TAB> URL", "ranges <TAB> URL": those only */
            char *tab = strchr(line, '\t'), held[CACHE_KEY_LEN + 2];
            cache_key(tab ? tab + 1 : line, key);
            snprintf(held, sizeof held, "%s%s", key, !tab ? "" : !strncmp(line, "tar\t", 4) ? "t" : "r");
            rc = names_add(out, held);
        }
        free(line);
        fclose(f);
    }
    closedir(d);
    return rc;
}

typedef struct entry {
    char tar[4200], meta[4200];
    uint64_t bytes;
    struct timespec used;
    int keep;
    char form; /* 't' a .tar, 'r' a .ranges, 'i' a saved index */
} entry;

/* Least recently used first; the saved indexes last of all (a few KB each,
 * and without one the next create fetches and scans every shard). */
static int older(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if ((x->form == 'i') != (y->form == 'i'))
        return x->form == 'i' ? 1 : -1;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

static int make_room_locked(const char *dir, uint64_t limit, uint64_t need, char *const *keep, size_t nkeep,
                            uint64_t *kept_bytes, char *why, size_t whylen);

int cache_make_room(const char *dir, uint64_t limit, uint64_t need, char *const *keep, size_t nkeep,
                    uint64_t *kept_bytes, char *why, size_t whylen)
{
    *kept_bytes = 0;
    if (!limit)
        return 0;
    int lock = cache_lock(dir); /* the held lists as one loader or another wrote them, whole */
    int rc = make_room_locked(dir, limit, need, keep, nkeep, kept_bytes, why, whylen);
    cache_unlock(lock);
    return rc;
}

static pthread_mutex_t room_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t reserved; /* bytes of the downloads under way, not on disk yet (room_mu) */

int cache_reserve(const char *dir, uint64_t limit, uint64_t need, char *const *keep, size_t nkeep,
                  uint64_t *kept_bytes, char *why, size_t whylen)
{
    pthread_mutex_lock(&room_mu);
    int rc = cache_make_room(dir, limit, need + reserved, keep, nkeep, kept_bytes, why, whylen);
    if (rc == 0)
        reserved += need;
    pthread_mutex_unlock(&room_mu);
    return rc;
}

void cache_room_lock(void)
{
    pthread_mutex_lock(&room_mu);
}

void cache_room_unlock(uint64_t landed)
{
    reserved -= landed;
    pthread_mutex_unlock(&room_mu);
}

static int make_room_locked(const char *dir, uint64_t limit, uint64_t need, char *const *keep, size_t nkeep,
                            uint64_t *kept_bytes, char *why, size_t whylen)
{
    names held = {0};
    if (held_shards(dir, &held) != 0) {
        snprintf(why, whylen, "cache_dir %s: reading %s/.inuse: %s", dir, dir, strerror(errno));
        names_free(&held);
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, whylen, "cache_dir %s: %s", dir, strerror(errno));
        names_free(&held);
        return -1;
    }
    entry *v = NULL;
    size_t n = 0, cap = 0;
    uint64_t used = 0;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        int ranges = len > 7 && !strcmp(de->d_name + len - 7, ".ranges");
        /* a saved index (index-<16 hex>.shards): read at create only, never held */
        int index = len == 29 && !strncmp(de->d_name, "index-", 6) &&
                    strspn(de->d_name + 6, "0123456789abcdef") == 16 && !strcmp(de->d_name + 22, ".shards");
        if (!index && (len < 2 * CACHE_KEY_LEN + 4 || de->d_name[16] != '-' || de->d_name[33] != '-' ||
                       strspn(de->d_name, "0123456789abcdef") != 16 ||
                       (!ranges && strcmp(de->d_name + len - 4, ".tar"))))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            entry *nv = realloc(v, cap * sizeof *nv);
            if (!nv) {
                rc = -1;
                snprintf(why, whylen, "out of memory");
                break;
            }
            v = nv;
        }
        entry *e = &v[n];
        snprintf(e->tar, sizeof e->tar, "%s/%s", dir, de->d_name);
        e->meta[0] = 0; /* a .ranges file or an index has no record */
        if (!ranges && !index)
            snprintf(e->meta, sizeof e->meta, "%s/%.*s.meta", dir, (int)(len - 4), de->d_name);
        struct stat st, sm;
        if (stat(e->tar, &st) != 0)
            continue;
        e->bytes = (uint64_t)st.st_size;
        if (ranges && (uint64_t)st.st_blocks * 512 < e->bytes) /* sparse: the blocks it has */
            e->bytes = (uint64_t)st.st_blocks * 512;
        e->used = e->meta[0] && stat(e->meta, &sm) == 0 ? sm.st_mtim : st.st_mtim;
        e->keep = 0;
        e->form = index ? 'i' : ranges ? 'r' : 't';
        for (size_t k = 0; k < nkeep && !index; k++) /* a key, or a key and the form kept ('t', 'r') */
            if (!strncmp(keep[k], de->d_name, CACHE_KEY_LEN) &&
                (!keep[k][CACHE_KEY_LEN] || keep[k][CACHE_KEY_LEN] == e->form))
                e->keep = 1;
        used += e->bytes;
        if (e->keep)
            *kept_bytes += e->bytes;
        for (size_t k = 0; k < held.n && !e->keep && !index; k++)
            if (!strncmp(held.v[k], de->d_name, CACHE_KEY_LEN) &&
                (!held.v[k][CACHE_KEY_LEN] || held.v[k][CACHE_KEY_LEN] == e->form))
                e->keep = 2; /* a loader's */
        n++;
    }
    closedir(d);
    names_free(&held);
    if (rc) {
        free(v);
        return -1;
    }
    if (n)
        qsort(v, n, sizeof *v, older);
    for (size_t i = 0; i < n && used + need > limit; i++) {
        if (v[i].keep)
            continue;
        /* the record first: a .tar without one is never used */
        if (v[i].meta[0] && unlink(v[i].meta) != 0 && errno != ENOENT)
            continue;
        if (unlink(v[i].tar) == 0) {
            used -= v[i].bytes;
            fprintf(stderr, "libfeed: fetch: cache_dir %s: evicted %s (%llu bytes, least recently used)\n", dir,
                    v[i].tar, (unsigned long long)v[i].bytes);
        }
    }
    free(v);
    return used + need > limit ? 1 : 0;
}

void cache_clean_parts(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    char path[4500];
    while ((de = readdir(d))) {
        const char *p = strstr(de->d_name, ".tar.part.");
        if (!p)
            continue;
        long pid = strtol(p + 10, NULL, 10);
        if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) {
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
    }
    closedir(d);
}

static uint64_t octal(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    if (p[0] & 0x80) { /* base-256 */
        for (size_t i = 1; i < n; i++)
            v = v << 8 | p[i];
        return v;
    }
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == 0))
        i++;
    for (; i < n && p[i] >= '0' && p[i] <= '7'; i++)
        v = v * 8 + (uint64_t)(p[i] - '0');
    return v;
}

/* A tar header: 1 and *len (its member's bytes) when its checksum is right,
 * 0 when it is all zeros (the end of the archive), -1 else. */
static int tar_header(const unsigned char h[512], uint64_t *len)
{
    int zero = 1;
    for (int i = 0; i < 512 && zero; i++)
        zero = h[i] == 0;
    if (zero)
        return 0;
    uint64_t sum = 0;
    for (int i = 0; i < 512; i++)
        sum += i >= 148 && i < 156 ? ' ' : h[i];
    if (octal(h + 148, 8) != sum)
        return -1;
    *len = octal(h + 124, 12);
    return 1;
}

static uint64_t blocks(uint64_t len)
{
    return (len + 511) / 512 * 512;
}

int fetch_tar_check(int fd, uint64_t size, char *why, size_t whylen)
{
    unsigned char h[512];
    uint64_t off = 0, len = 0;
    if (size % 512) {
        snprintf(why, whylen, "%llu bytes, not a whole number of 512-byte tar blocks", (unsigned long long)size);
        return -1;
    }
    while (off < size) {
        if (pread(fd, h, 512, (off_t)off) != 512) {
            snprintf(why, whylen, "cannot read the tar header at %llu: %s", (unsigned long long)off, strerror(errno));
            return -1;
        }
        int rc = tar_header(h, &len);
        if (rc == 0)
            return 0; /* the end-of-archive blocks */
        if (rc < 0) {
            snprintf(why, whylen, "tar header checksum wrong at offset %llu", (unsigned long long)off);
            return -1;
        }
        if (len > size - off - 512 || blocks(len) > size - off - 512) {
            snprintf(why, whylen, "tar member at %llu runs past the end (%llu bytes)", (unsigned long long)off,
                     (unsigned long long)size);
            return -1;
        }
        off += 512 + blocks(len);
    }
    return 0;
}

int fetch_tar_chain(const unsigned char *buf, uint64_t len, uint64_t off, char *why, size_t whylen)
{
    uint64_t pos = 0, n = 0;
    while (pos < len) {
        int rc = len - pos < 512 ? -1 : tar_header(buf + pos, &n);
        if (rc <= 0) {
            snprintf(why, whylen, "no tar header at offset %llu (%s)", (unsigned long long)(off + pos),
                     len - pos < 512 ? "the range ends inside it" : rc ? "its checksum is wrong" : "zero blocks");
            return -1;
        }
        if (n > len - pos - 512 || blocks(n) > len - pos - 512) {
            snprintf(why, whylen, "the tar member at offset %llu runs past the range's end (%llu)",
                     (unsigned long long)(off + pos), (unsigned long long)(off + len));
            return -1;
        }
        pos += 512 + blocks(n);
    }
    return 0;
}

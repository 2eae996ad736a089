/*
 * scancache.h - an ImageFolder scan saved next to the data and reused while
 * the folder is unchanged (option scan_cache, feed.h).
 *
 * The file holds the index exactly as the scan built it, plus the
 * directories the scan read: each one's path (relative to the root), inode
 * and modification time. A create that finds the file reuses the index
 * only if
 *   - the root's folders (not dot names, links followed) are the index's
 *     classes, in order: a class added, removed or renamed is seen there
 *     (the root's own time is useless: saving the file inside it changes it);
 *   - every directory read has the same inode and modification time: a file
 *     or folder added, removed or renamed in it changes its time; a folder
 *     replaced by another changes the inode;
 *   - the file is whole and consistent (checksum, then every offset, path
 *     and label of the index checked as untrusted input: the workers read
 *     it).
 * A file rewritten in place keeps its name and label, so the scan stays
 * valid, as it should. Times are nanoseconds where the file system has
 * them; to miss no change made in the same clock tick as the scan read a
 * directory, a scan is saved only when every directory it read is at least
 * FEED_SCAN_QUIET_NS older than the scan (as git's "racily clean" rule).
 */
#ifndef FEED_SCANCACHE_H
#define FEED_SCANCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "dataset/index.h"

/* The default file, inside the root (a dot name: the scan skips it). */
#define FEED_SCAN_CACHE_NAME ".libfeed-scan"
/* 2 s: FAT's and some network file systems' time granularity. */
#define FEED_SCAN_QUIET_NS 2000000000ll

/* The file of the scan of root: path, or root/FEED_SCAN_CACHE_NAME when
 * path is "" or NULL. 1, or 0 when it does not fit in outlen. */
int feed__scancache_path(char *out, size_t outlen, const char *root, const char *path);

/* The directories a scan read, in order. */
typedef struct feed__scan_dir {
    int64_t mtime_ns;
    uint64_t ino;
    uint64_t path_off; /* into the pool, NUL-terminated */
    uint64_t path_len;
} feed__scan_dir;

typedef struct feed__scan_dirs {
    feed__scan_dir *d;
    uint64_t n, cap;
    char *pool;
    uint64_t pool_len, pool_cap;
} feed__scan_dirs;

/* Records directory rel (relative to the root) as sb describes it. 0 or -1 (out of memory). */
int feed__scan_dirs_add(feed__scan_dirs *s, const char *rel, const struct stat *sb);
void feed__scan_dirs_free(feed__scan_dirs *s);

/* A saved scan, checked (feed__scancache_parse): pointers into its bytes. */
typedef struct feed__scancache_view {
    const feed__index_hdr *index; /* index_bytes of a valid ImageFolder index */
    uint64_t index_bytes;
    const feed__scan_dir *dirs;
    uint64_t ndirs;
    const char *dir_pool;
    int64_t scanned_ns; /* when the scan began (CLOCK_REALTIME) */
    uint64_t skipped;   /* files of other extensions the scan left out */
    const char *skipped_names; /* the first few, skipped_names_len bytes, no NUL */
    uint64_t skipped_names_len; /* < FEED_INDEX_SKIPPED_NAMES */
} feed__scancache_view;

/*
 * Checks the bytes of a saved scan, written for scan rules `rules`
 * (feed__index_scan_rules): magic, version, rules, size, checksum, and the
 * index in it as untrusted input (every offset inside, every path
 * NUL-terminated at its length, relative, under its label's class folder,
 * without "." or ".." components; labels below nclasses and in class order;
 * class names sorted, without '/'); every directory path likewise. Pure:
 * touches nothing but buf. 0 and *v, or -1 with the reason in why.
 */
int feed__scancache_parse(const uint8_t *buf, size_t n, uint32_t rules, feed__scancache_view *v, char *why,
                          size_t whylen);

/* The checksum the file carries, of buf[0..n) (exposed for the tests and
 * the fuzzer, which change a file and make it consistent again; the saved
 * shard index, shardcache.c, uses it too). */
uint64_t feed__scancache_checksum(const uint8_t *buf, size_t n);
/* Offset of the checksum in the file and of the bytes it covers. */
#define FEED_SCAN_CHECKSUM_AT 24u
#define FEED_SCAN_HEADER_BYTES 128u

/*
 * Loads the saved scan at path for the folder open at rootfd (root: its
 * absolute path, written into the index). 1: *out is a valid, current
 * index (feed__malloc'd, the caller owns it), *skipped and skipped_names
 * what the scan left out (as feed__index's). 0: not usable (missing:
 * note is ""; stale, corrupt or unreadable: why, in note).
 */
int feed__scancache_load(const char *path, int rootfd, const char *root, uint32_t rules,
                         feed__index_hdr **out, uint64_t *skipped,
                         char skipped_names[FEED_INDEX_SKIPPED_NAMES], char *note, size_t notelen);

/*
 * Saves the index h made by a scan that began at scan_start_ns
 * (CLOCK_REALTIME) and read dirs, with the files it left out (skipped, and
 * the first names, NUL-terminated): to a temporary file beside path, then
 * renamed over it, so a reader never sees half a file. 0 (note: "saved ...")
 * or -1 (note: why not: the folder is read-only, a directory changed too
 * recently to be sure of, ...). Never fails the caller.
 */
int feed__scancache_save(const char *path, const feed__index_hdr *h, const feed__scan_dirs *dirs, uint32_t rules,
                         int64_t scan_start_ns, uint64_t skipped, const char *skipped_names, char *note,
                         size_t notelen);

/* ---- shared with the saved shard index (shardcache.c) ---- */

/* One piece of a file being written. */
typedef struct feed__file_piece {
    const void *p;
    uint64_t n;
} feed__file_piece;
/* Writes pieces[0..np) one after another to a temporary file beside path
 * (mode 0644: other ranks and users read it), fsyncs it, renames it over
 * path and fsyncs the folder: a reader sees the old file or the whole new
 * one, never a part, even after a crash. 0, or the errno of what failed
 * (the temporary file removed). */
int feed__file_replace(const char *path, const feed__file_piece *pieces, int np);
/* Reads n bytes at off from fd, on through EINTR and short reads: the bytes
 * read (fewer only at the end of the file), or -1 with errno. */
int64_t feed__file_pread(int fd, void *buf, size_t n, uint64_t off);

#endif /* FEED_SCANCACHE_H */

/*
 * files.c - writing files so that a reader never sees half of one: through a
 * temporary name and a rename; and making folders.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkdata.h"

int mk_write_atomic(const char *path, const void *data, size_t n)
{
    char tmp[4200];
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    snprintf(tmp, sizeof tmp, "%.*s.%s.tmp.%ld", dirlen, path, slash ? slash + 1 : path,
             (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    const uint8_t *p = data;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, p + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            unlink(tmp);
            return e;
        }
        off += (size_t)w;
    }
    if (close(fd) < 0 || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return e;
    }
    return 0;
}

int mk_make_dir(const char *path)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) < 0)
            return errno;
        return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    }
    return errno;
}

int mk_make_dirs(const char *path)
{
    char p[4200];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        int e = mk_make_dir(p);
        *s = '/';
        if (e)
            return e;
    }
    return mk_make_dir(p);
}

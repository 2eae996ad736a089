/*
 * shards.c - a WebDataset tar shard: members in order (headers made by
 * libfeed's tar code, dataset/tar.h), written under a temporary name
 * and moved into place when complete.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "dataset/tar.h"
#include "mkdata.h"

int mk_shard_open(shard_writer *w, const char *dir, int dirlen, uint64_t k)
{
    snprintf(w->path, sizeof w->path, "%.*s/shard-%06llu.tar", dirlen, dir, (unsigned long long)k);
    snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%ld", w->path, (long)getpid());
    w->f = fopen(w->tmp, "we");
    w->err = w->f ? 0 : errno;
    return w->err;
}

void mk_shard_member(shard_writer *w, const char *name, const void *data, size_t n)
{
    static const uint8_t zero[512];
    uint8_t h[512];
    if (w->err)
        return;
    if (feed__tar_header(h, name, n, 0)) {
        w->err = ENAMETOOLONG;
        return;
    }
    if (fwrite(h, 1, 512, w->f) != 512 || fwrite(data, 1, n, w->f) != n ||
        fwrite(zero, 1, (512 - n % 512) % 512, w->f) != (512 - n % 512) % 512)
        w->err = errno ? errno : EIO;
}

int mk_shard_close(shard_writer *w)
{
    static const uint8_t zero[1024];
    if (!w->f)
        return w->err;
    if (!w->err && fwrite(zero, 1, sizeof zero, w->f) != sizeof zero)
        w->err = errno ? errno : EIO;
    if (fclose(w->f) != 0 && !w->err)
        w->err = errno;
    w->f = NULL;
    if (!w->err && rename(w->tmp, w->path) != 0)
        w->err = errno;
    if (w->err)
        unlink(w->tmp);
    return w->err;
}

void mk_shard_abandon(shard_writer *w)
{
    if (w->f) {
        fclose(w->f);
        unlink(w->tmp);
    }
}

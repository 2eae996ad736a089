/*
 * device_select.c - choosing the device backend (see device_select.h).
 */
#include "loader/device_select.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "common/internal.h"
#include "loader/options.h"

void feed__device_note_launcher(feed__device_choice *c, const feed_options *o)
{
    feed__launcher l;
    if ((o->rank == FEED_RANK_AUTO || o->world_size == FEED_RANK_AUTO) && feed__launcher_find(&l, NULL, 0))
        snprintf(c->launcher, sizeof c->launcher, "%s", l.name);
}

static feed_status use(feed__device_choice *c, const feed__device_ops *ops, int32_t ordinal)
{
    c->ops = ops;
    c->ordinal = ordinal;
    return FEED_OK;
}

feed_status feed__device_select(feed__device_choice *c, const char *d, char *err, size_t errlen)
{
    const feed__device_ops *cuda = feed__device_cuda();
    if (!strcasecmp(d, "host") || !strcasecmp(d, "cpu"))
        return use(c, &feed__device_host, -1);
    if (!strcasecmp(d, "auto"))
        return cuda && feed__device_cuda_count() > 0 ? use(c, cuda, 0) : use(c, &feed__device_host, -1);
    if (!strncasecmp(d, "cuda", 4)) {
        long n = 0;
        feed__launcher l = {.name = ""};
        const int local = !strcasecmp(d + 4, ":local"); /* the launcher's local rank */
        if (local) {
            char why[200];
            if (!feed__launcher_find(&l, why, sizeof why) || l.local == FEED_RANK_AUTO)
                return feed__err(FEED_E_INVALID, err, errlen,
                                 "device=cuda:local: no local rank in the environment (LOCAL_RANK, "
                                 "OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, MV2_COMM_WORLD_LOCAL_RANK "
                                 "or SLURM_LOCALID)%s%s", why[0] ? ": " : "", why);
            n = l.local;
        } else if (d[4] == ':') {
            char *end;
            n = strtol(d + 5, &end, 10);
            if (*end || end == d + 5 || n < 0)
                return feed__err(FEED_E_INVALID, err, errlen, "options: device='%s': expected cuda:N", d);
        } else if (d[4]) {
            return feed__err(FEED_E_INVALID, err, errlen, "options: device='%s' unknown", d);
        }
        if (!cuda)
            return feed__err(FEED_E_UNSUPPORTED, err, errlen,
                             "device=%s: this libfeed was built without CUDA (use device=host or auto)", d);
        char why[160] = "", rank[64] = "";
        int count = feed__device_cuda_probe(why, sizeof why);
        if (local && count == 1)
            n = 0; /* one GPU visible: the launcher chose it (CUDA_VISIBLE_DEVICES) */
        if (local)
            snprintf(rank, sizeof rank, ", local rank %ld (%s)", n, l.name);
        if (n >= count)
            return feed__err(FEED_E_DEVICE, err, errlen, "device=%s: %d CUDA device%s visible%s%s%s", d, count,
                             count == 1 ? "" : "s", rank, count ? "" : ": ", count ? "" : why);
        return use(c, cuda, (int32_t)n);
    }
    return feed__err(FEED_E_INVALID, err, errlen, "options: device='%s': expected auto, host, cuda or cuda:N",
                     d);
}

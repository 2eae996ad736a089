/*
 * launcher.c - rank and world size from the launcher's environment
 * (rank/world_size=auto, feed.h): torchrun, Open MPI, PMI, MVAPICH2, Slurm,
 * the first found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "loader/options.h"

static const struct {
    const char *name, *rank, *size, *local;
} launchers[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    {"mvapich", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK"},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

static int env_u32(const char *var, uint32_t *out)
{
    const char *v = getenv(var);
    uint64_t u;
    if (!v || !*v)
        return 0;
    if (feed__parse_u64(v, &u) || u >= FEED_RANK_AUTO)
        return -1;
    *out = (uint32_t)u;
    return 1;
}

int feed__launcher_find(feed__launcher *l, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    for (size_t i = 0; i < FEED_ARRAY_SIZE(launchers); i++) {
        uint32_t r = 0, n = 0, loc = 0;
        int hr = env_u32(launchers[i].rank, &r), hn = env_u32(launchers[i].size, &n);
        if (hr == 0 && hn == 0)
            continue;
        if (hr <= 0 || hn <= 0 || n == 0 || r >= n) {
            if (err && errlen)
                snprintf(err, errlen, "%s=%.40s %s=%.40s do not make a rank below a size",
                         launchers[i].rank, getenv(launchers[i].rank) ? getenv(launchers[i].rank) : "(unset)",
                         launchers[i].size, getenv(launchers[i].size) ? getenv(launchers[i].size) : "(unset)");
            return 0;
        }
        int hl = env_u32(launchers[i].local, &loc);
        *l = (feed__launcher){.name = launchers[i].name, .rank_var = launchers[i].rank,
                              .size_var = launchers[i].size, .rank = r, .size = n,
                              .local = hl > 0 ? loc : FEED_RANK_AUTO};
        return 1;
    }
    return 0;
}

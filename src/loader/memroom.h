/*
 * memroom.h - how much memory this process may still take: the system's
 * MemAvailable and what its memory cgroups (v1 or v2) leave under their
 * limits. The loader asks before it makes the arena, so that a ring that
 * cannot fit is an error from create: a page the kernel cannot charge later,
 * on a worker's first touch or in fallocate, is an OOM kill, not an error.
 */
#ifndef FEED_MEMROOM_H
#define FEED_MEMROOM_H

#include <stddef.h>
#include <stdint.h>

#define FEED_MEMROOM_UNKNOWN UINT64_MAX

typedef struct feed__memroom {
    uint64_t sys_avail;  /* MemAvailable + SwapFree, or UNKNOWN */
    uint64_t cg_room;    /* the tightest cgroup: limit - (usage - its file cache) + the swap
                          * it may still use (at most SwapFree), or UNKNOWN */
    uint64_t cg_limit;   /* that cgroup's limit and usage */
    uint64_t cg_usage;
    char cg_dir[1040];   /* and its directory */
} feed__memroom;

/* Reads proc_dir/mountinfo, proc_dir/cgroup (normally /proc/self) and
 * meminfo (normally /proc/meminfo). Whatever cannot be read stays UNKNOWN:
 * never a reason to refuse. */
void feed__memroom_read(feed__memroom *r, const char *proc_dir, const char *meminfo);

/* This process's memory cgroup directory (and the hierarchy's mount point,
 * mnt: the top of what applies). Returns 1 (v1's memory controller), 2
 * (cgroup2), or 0 when neither is mounted or named in proc_dir/cgroup. */
int feed__memroom_dir(const char *proc_dir, char *dir, size_t n, char *mnt, size_t mntlen);

/* The smaller of the two; UNKNOWN when neither is known. */
uint64_t feed__memroom_avail(const feed__memroom *r);

#endif

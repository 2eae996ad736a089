/* memroom.c - the memory this process may still take (MemAvailable, memory cgroups). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/internal.h"
#include "loader/memroom.h"

/* A small file (a cgroup knob, meminfo) into buf; 0 on success. */
static int read_small(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < n) {
        ssize_t r = read(fd, buf + got, n - 1 - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = 0;
    return got ? 0 : -1;
}

/* The number after "key" at a line start ("key N" or "key: N kB"), scaled. */
static int stat_value(const char *text, const char *key, uint64_t scale, uint64_t *v)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, kl) != 0 || (p[kl] != ' ' && p[kl] != ':' && p[kl] != '\t'))
            continue;
        const char *start = p + kl + strspn(p + kl, " \t:");
        char *end;
        unsigned long long x = strtoull(start, &end, 10);
        if (end == start)
            return -1;
        *v = (uint64_t)x * scale;
        return 0;
    }
    return -1;
}

/* A knob holding one number, or "max" (v2: no limit). */
static int knob(const char *dir, const char *name, uint64_t *v)
{
    char path[1100], buf[64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (read_small(path, buf, sizeof buf) != 0)
        return -1;
    if (strncmp(buf, "max", 3) == 0) {
        *v = FEED_MEMROOM_UNKNOWN;
        return 0;
    }
    char *end;
    unsigned long long x = strtoull(buf, &end, 10);
    if (end == buf)
        return -1;
    *v = (uint64_t)x;
    return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
            s[3] <= '7') {
            *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
}

static int has_token(const char *list, const char *tok)
{
    size_t n = strlen(tok);
    for (const char *p = list; p; p = strchr(p, ','), p = p ? p + 1 : NULL)
        if (strncmp(p, tok, n) == 0 && (p[n] == ',' || p[n] == 0 || p[n] == '\n'))
            return 1;
    return 0;
}

/* The memory hierarchy's mount: v1's memory controller if mounted, else
 * cgroup2. Returns the version (1, 2) or 0, with its root and mount point. */
static int find_mount(const char *proc_dir, char *root, char *mnt, size_t n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/mountinfo", proc_dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int ver = 0;
    while (ver != 1 && getline(&line, &cap, f) > 0) {
        /* id parent maj:min root mountpoint options [optional...] - fstype source superopts */
        char *sep = strstr(line, " - ");
        if (!sep)
            continue;
        char r[512], m[512], fstype[32], source[64], super[256] = "";
        if (sscanf(line, "%*s %*s %*s %511s %511s", r, m) != 2 ||
            sscanf(sep + 3, "%31s %63s %255s", fstype, source, super) < 2)
            continue;
        int v = strcmp(fstype, "cgroup2") == 0 ? 2 : strcmp(fstype, "cgroup") == 0 && has_token(super, "memory") ? 1 : 0;
        if (v && (ver == 0 || v == 1)) {
            unescape(r);
            unescape(m);
            snprintf(root, n, "%s", r);
            snprintf(mnt, n, "%s", m);
            ver = v;
        }
    }
    free(line);
    fclose(f);
    return ver;
}

/* This process's path in hierarchy ver (from proc_dir/cgroup). */
static int find_path(const char *proc_dir, int ver, char *out, size_t n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/cgroup", proc_dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    int found = -1;
    while (found != 0 && getline(&line, &cap, f) > 0) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = 0;
        int match = ver == 2 ? strncmp(line, "0:", 2) == 0 && c1[1] == 0 : has_token(c1 + 1, "memory");
        if (match) {
            c2[1 + strcspn(c2 + 1, "\n")] = 0;
            snprintf(out, n, "%s", c2 + 1);
            found = 0;
        }
    }
    free(line);
    fclose(f);
    return found;
}

/* What one cgroup directory leaves: limit - (usage - file cache), plus the
 * swap the cgroup may still use (shmem pages can go there), at most swap_free. */
static int level_room(const char *dir, int ver, uint64_t swap_free, uint64_t *room, uint64_t *limit,
                      uint64_t *usage)
{
    uint64_t lim, use;
    if (knob(dir, ver == 2 ? "memory.max" : "memory.limit_in_bytes", &lim) != 0 ||
        knob(dir, ver == 2 ? "memory.current" : "memory.usage_in_bytes", &use) != 0)
        return -1;
    if (lim == FEED_MEMROOM_UNKNOWN || lim >= (1ull << 60)) /* v1 says "no limit" with a page-rounded 2^63 */
        return -1;
    /* Page cache is charged to the cgroup but reclaimed before anyone is
     * killed: not counted as used. (Shmem, our arena, is on the anon lists.) */
    char path[1100], st[8192];
    uint64_t act = 0, inact = 0;
    snprintf(path, sizeof path, "%s/memory.stat", dir);
    if (read_small(path, st, sizeof st) == 0) {
        if (ver == 1 && stat_value(st, "total_active_file", 1, &act) != 0)
            stat_value(st, "active_file", 1, &act);
        if (ver == 1 && stat_value(st, "total_inactive_file", 1, &inact) != 0)
            stat_value(st, "inactive_file", 1, &inact);
        if (ver == 2) {
            stat_value(st, "active_file", 1, &act);
            stat_value(st, "inactive_file", 1, &inact);
        }
    }
    uint64_t file = act + inact;
    uint64_t held = use > file ? use - file : 0;
    uint64_t mem_room = lim > held ? lim - held : 0;
    /* Swap: v2 limits it alone (memory.swap.max), v1 memory and swap
     * together (memsw); a knob that is not there (no swap accounting) is no
     * limit. */
    uint64_t swap_room = swap_free, total = FEED_MEMROOM_UNKNOWN;
    uint64_t smax, scur;
    if (ver == 2 && knob(dir, "memory.swap.max", &smax) == 0 && smax != FEED_MEMROOM_UNKNOWN &&
        knob(dir, "memory.swap.current", &scur) == 0)
        swap_room = smax > scur ? smax - scur : 0;
    if (ver == 1 && knob(dir, "memory.memsw.limit_in_bytes", &smax) == 0 && smax < (1ull << 60) &&
        knob(dir, "memory.memsw.usage_in_bytes", &scur) == 0) {
        uint64_t sheld = scur > file ? scur - file : 0;
        total = smax > sheld ? smax - sheld : 0;
    }
    uint64_t r = mem_room + (swap_room < swap_free ? swap_room : swap_free);
    *room = r < total ? r : total;
    *limit = lim;
    *usage = use;
    return 0;
}

int feed__memroom_dir(const char *proc_dir, char *dir, size_t n, char *mnt, size_t mntlen)
{
    char root[512], cg[512];
    int ver = find_mount(proc_dir, root, mnt, mntlen < sizeof root ? mntlen : sizeof root);
    if (!ver || find_path(proc_dir, ver, cg, sizeof cg) != 0)
        return 0;
    /* The mount shows the hierarchy from root (a container's own cgroup,
     * under a cgroup namespace): our path below it, or the mount itself. */
    size_t rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
    const char *rel = strncmp(cg, root, rl) == 0 && (cg[rl] == '/' || cg[rl] == 0) ? cg + rl : "";
    if ((size_t)snprintf(dir, n, "%s%s", mnt, rel) >= n || access(dir, F_OK) != 0)
        snprintf(dir, n, "%s", mnt);
    return ver;
}

void feed__memroom_read(feed__memroom *r, const char *proc_dir, const char *meminfo)
{
    memset(r, 0, sizeof *r);
    r->sys_avail = r->cg_room = FEED_MEMROOM_UNKNOWN;
    char buf[8192];
    uint64_t avail, swap = 0;
    if (read_small(meminfo, buf, sizeof buf) == 0 && stat_value(buf, "MemAvailable", 1024, &avail) == 0) {
        stat_value(buf, "SwapFree", 1024, &swap);
        r->sys_avail = avail + swap;
    }

    char mnt[512], dir[1040];
    int ver = feed__memroom_dir(proc_dir, dir, sizeof dir, mnt, sizeof mnt);
    if (!ver)
        return;
    /* Every limit from ours up to the mount applies: the tightest counts. */
    size_t ml = strlen(mnt);
    for (;;) {
        uint64_t room, lim, use;
        if (level_room(dir, ver, swap, &room, &lim, &use) == 0 && room < r->cg_room) {
            r->cg_room = room;
            r->cg_limit = lim;
            r->cg_usage = use;
            snprintf(r->cg_dir, sizeof r->cg_dir, "%s", dir);
        }
        char *slash = strrchr(dir, '/');
        if (strlen(dir) <= ml || !slash || (size_t)(slash - dir) < ml)
            break;
        *slash = 0;
    }
}

uint64_t feed__memroom_avail(const feed__memroom *r)
{
    return r->sys_avail < r->cg_room ? r->sys_avail : r->cg_room;
}

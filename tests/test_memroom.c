/*
 * test_memroom.c - what the memory cgroups and the system leave, read from a
 * made-up /proc/self and cgroup tree: cgroup v1 (the tightest level counts,
 * page cache is not counted as used, v1's "no limit" number), cgroup2 ("max",
 * a limit higher up), swap (SwapFree, capped by each cgroup's swap room), a
 * container's namespace (the mount's root is our own
 * cgroup), escaped mount points, v1 over cgroup2 on hybrid machines, and
 * files that cannot be read. The live case (a real cgroup limit makes create
 * fail with a message instead of an OOM kill) is in test_fault_resource.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loader/memroom.h"
#include "testutil.h"

#define MiB (1024ull * 1024ull)

static char *tmp;

static void put(const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", tmp, rel);
    char *slash = strrchr(path, '/');
    *slash = 0;
    tu_mkdirs(path);
    *slash = '/';
    tu_write(path, text, strlen(text));
}

static void unlink_rel(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", tmp, rel);
    unlink(path);
}

static void putf(const char *rel, const char *fmt, unsigned long long v)
{
    char text[64];
    snprintf(text, sizeof text, fmt, v);
    put(rel, text);
}

/* proc/mountinfo with the given lines (%s is the temp dir), proc/cgroup. */
static void proc(const char *mountinfo_fmt, const char *cgroup)
{
    char mi[8192];
    snprintf(mi, sizeof mi, mountinfo_fmt, tmp, tmp, tmp, tmp);
    put("proc/mountinfo", mi);
    put("proc/cgroup", cgroup);
}

static void rd(feed__memroom *r, const char *meminfo)
{
    char p[4096], m[4096];
    snprintf(p, sizeof p, "%s/proc", tmp);
    snprintf(m, sizeof m, "%s/meminfo", tmp);
    put("meminfo", meminfo);
    feed__memroom_read(r, p, m);
}

static int setup(void **state)
{
    tmp = tu_mkdtemp("memroom");
    return 0;
}

static int teardown(void **state)
{
    tu_rmtree(tmp);
    free(tmp);
    return 0;
}

static const char *v1_mounts = "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
                               "32 31 0:29 / %s/cg/cpu rw - cgroup cgroup rw,cpu,cpuacct\n"
                               "35 31 0:32 / %s/cg/memory rw,relatime - cgroup cgroup rw,memory\n"
                               "41 31 0:38 / %s/cg/unified rw - cgroup2 cgroup2 rw\n";

static void test_v1_tightest_level(void **state)
{
    proc(v1_mounts, "9:cpu,cpuacct:/elsewhere\n4:memory:/job/step\n0::/\n");
    /* the root: v1's "no limit" (2^63 rounded to a page) */
    putf("cg/memory/memory.limit_in_bytes", "%llu\n", 9223372036854771712ull);
    putf("cg/memory/memory.usage_in_bytes", "%llu\n", 900 * MiB);
    /* job: 500 MiB, 300 used of which 100 page cache -> 300 left */
    putf("cg/memory/job/memory.limit_in_bytes", "%llu\n", 500 * MiB);
    putf("cg/memory/job/memory.usage_in_bytes", "%llu\n", 300 * MiB);
    char st[256];
    snprintf(st, sizeof st, "cache 1\nactive_file 7\ntotal_active_file %llu\ntotal_inactive_file %llu\n",
             40 * MiB, 60 * MiB);
    put("cg/memory/job/memory.stat", st);
    /* step: 400 MiB, 150 used, no page cache -> 250 left: the tightest */
    putf("cg/memory/job/step/memory.limit_in_bytes", "%llu\n", 400 * MiB);
    putf("cg/memory/job/step/memory.usage_in_bytes", "%llu\n", 150 * MiB);
    feed__memroom r;
    rd(&r, "MemTotal: 100 kB\nMemFree: 5 kB\nMemAvailable:    2048000 kB\nSwapFree: 0 kB\n");
    assert_int_equal(r.sys_avail, 2048000ull * 1024);
    assert_int_equal(r.cg_room, 250 * MiB);
    assert_int_equal(r.cg_limit, 400 * MiB);
    assert_int_equal(r.cg_usage, 150 * MiB);
    assert_non_null(strstr(r.cg_dir, "/cg/memory/job/step"));
    assert_int_equal(feed__memroom_avail(&r), 250 * MiB);

    /* the step's limit raised: the job's counts (its page cache not used) */
    putf("cg/memory/job/step/memory.limit_in_bytes", "%llu\n", 4000 * MiB);
    rd(&r, "MemAvailable: 2048000 kB\n");
    assert_int_equal(r.cg_room, 300 * MiB);
    assert_true(strstr(r.cg_dir, "/cg/memory/job") && !strstr(r.cg_dir, "step"));

    /* and the system, when it has less */
    rd(&r, "MemAvailable: 1024 kB\nSwapFree: 1024 kB\n");
    assert_int_equal(r.sys_avail, 2 * MiB);
    assert_int_equal(feed__memroom_avail(&r), 2 * MiB);
    tu_rmtree(tmp);
    mkdir(tmp, 0700);
}

static void test_v1_wins_over_cgroup2_and_swap_counts(void **state)
{
    /* cgroup2 listed first, as on hybrid machines; v1's memory controller is the one that limits */
    proc("41 31 0:38 / %s/cg/unified rw - cgroup2 cgroup2 rw\n"
         "35 31 0:32 / %s/cg/memory rw - cgroup cgroup rw,memory\n",
         "4:memory:/a\n0::/b\n");
    putf("cg/memory/a/memory.limit_in_bytes", "%llu\n", 64 * MiB);
    putf("cg/memory/a/memory.usage_in_bytes", "%llu\n", 16 * MiB);
    putf("cg/unified/b/memory.max", "%llu\n", 1 * MiB);
    putf("cg/unified/b/memory.current", "%llu\n", 0);
    feed__memroom r;
    rd(&r, "MemAvailable: 8192000 kB\nSwapFree: 10240 kB\n");
    assert_int_equal(r.cg_room, 48 * MiB + 10 * MiB); /* swap could take the arena out of the cgroup */
    assert_non_null(strstr(r.cg_dir, "/cg/memory/a"));
    /* memory+swap limited to the memory limit: no swap for this cgroup */
    putf("cg/memory/a/memory.memsw.limit_in_bytes", "%llu\n", 64 * MiB);
    putf("cg/memory/a/memory.memsw.usage_in_bytes", "%llu\n", 16 * MiB);
    rd(&r, "MemAvailable: 8192000 kB\nSwapFree: 10240 kB\n");
    assert_int_equal(r.cg_room, 48 * MiB);
    /* 4 MiB of swap left to it: that much more */
    putf("cg/memory/a/memory.memsw.limit_in_bytes", "%llu\n", 70 * MiB);
    rd(&r, "MemAvailable: 8192000 kB\nSwapFree: 10240 kB\n");
    assert_int_equal(r.cg_room, 54 * MiB);
    tu_rmtree(tmp);
    mkdir(tmp, 0700);
}

static void test_v2_max_and_parent_limit(void **state)
{
    proc("41 31 0:38 / %s/cg rw - cgroup2 cgroup2 rw,nsdelegate\n", "0::/user.slice/job.scope\n");
    put("cg/user.slice/job.scope/memory.max", "max\n");
    putf("cg/user.slice/job.scope/memory.current", "%llu\n", 10 * MiB);
    feed__memroom r;
    rd(&r, "MemAvailable: 4096 kB\n");
    assert_int_equal(r.cg_room, FEED_MEMROOM_UNKNOWN); /* "max" everywhere: no limit */
    assert_int_equal(feed__memroom_avail(&r), 4 * MiB);

    putf("cg/user.slice/memory.max", "%llu\n", 100 * MiB);
    putf("cg/user.slice/memory.current", "%llu\n", 90 * MiB);
    char st[256];
    snprintf(st, sizeof st, "anon 1\nfile 9\nactive_file %llu\ninactive_file %llu\nshmem 3\n", 20 * MiB,
             30 * MiB);
    put("cg/user.slice/memory.stat", st);
    rd(&r, "MemAvailable: 4096000 kB\n");
    assert_int_equal(r.cg_room, 60 * MiB); /* 100 - (90 - 50) */
    assert_int_equal(r.cg_limit, 100 * MiB);
    assert_true(strstr(r.cg_dir, "/cg/user.slice") && !strstr(r.cg_dir, "job.scope"));

    /* swap: the system's SwapFree, but no more than memory.swap.max leaves */
    put("cg/user.slice/memory.swap.max", "0\n");
    put("cg/user.slice/memory.swap.current", "0\n");
    rd(&r, "MemAvailable: 4096000 kB\nSwapFree: 102400 kB\n");
    assert_int_equal(r.cg_room, 60 * MiB); /* swap.max 0: none of the 100 MiB free */
    putf("cg/user.slice/memory.swap.max", "%llu\n", 4 * MiB);
    putf("cg/user.slice/memory.swap.current", "%llu\n", 1 * MiB);
    rd(&r, "MemAvailable: 4096000 kB\nSwapFree: 102400 kB\n");
    assert_int_equal(r.cg_room, 63 * MiB);
    put("cg/user.slice/memory.swap.max", "max\n");
    rd(&r, "MemAvailable: 4096000 kB\nSwapFree: 2048 kB\n");
    assert_int_equal(r.cg_room, 62 * MiB); /* no swap limit: SwapFree */
    unlink_rel("cg/user.slice/memory.swap.max");

    /* used beyond the limit (page cache over it): nothing left, not a wrap */
    putf("cg/user.slice/memory.current", "%llu\n", 150 * MiB);
    put("cg/user.slice/memory.stat", "active_file 0\ninactive_file 0\n");
    rd(&r, "MemAvailable: 4096000 kB\n");
    assert_int_equal(r.cg_room, 0);
    tu_rmtree(tmp);
    mkdir(tmp, 0700);
}

static void test_namespace_root_and_escapes(void **state)
{
    /* a container: the mount's root is its own cgroup, the mount point has a space */
    proc("50 40 0:38 /docker/abc %s/c\\040g rw - cgroup2 cgroup2 rw\n", "0::/docker/abc\n");
    putf("c g/memory.max", "%llu\n", 32 * MiB);
    putf("c g/memory.current", "%llu\n", 8 * MiB);
    feed__memroom r;
    rd(&r, "MemAvailable: 4096000 kB\n");
    assert_int_equal(r.cg_room, 24 * MiB);
    char dir[1040], mnt[512];
    char p[4096];
    snprintf(p, sizeof p, "%s/proc", tmp);
    assert_int_equal(feed__memroom_dir(p, dir, sizeof dir, mnt, sizeof mnt), 2);
    assert_string_equal(dir, mnt);
    assert_non_null(strstr(dir, "/c g"));

    /* a path outside the mount's root (another namespace's view): the mount itself */
    put("proc/cgroup", "0::/../other\n");
    rd(&r, "MemAvailable: 4096000 kB\n");
    assert_int_equal(r.cg_room, 24 * MiB);
    tu_rmtree(tmp);
    mkdir(tmp, 0700);
}

static void test_unreadable_is_unknown(void **state)
{
    feed__memroom r;
    char p[4096], m[4096];
    snprintf(p, sizeof p, "%s/no-proc", tmp);
    snprintf(m, sizeof m, "%s/no-meminfo", tmp);
    feed__memroom_read(&r, p, m);
    assert_int_equal(r.sys_avail, FEED_MEMROOM_UNKNOWN);
    assert_int_equal(r.cg_room, FEED_MEMROOM_UNKNOWN);
    assert_int_equal(feed__memroom_avail(&r), FEED_MEMROOM_UNKNOWN);

    /* a memory cgroup named but its knobs missing or garbage */
    proc(v1_mounts, "4:memory:/x\n");
    put("cg/memory/x/memory.limit_in_bytes", "lots\n");
    putf("cg/memory/x/memory.usage_in_bytes", "%llu\n", 1);
    rd(&r, "MemAvailable: garbage\n");
    assert_int_equal(r.sys_avail, FEED_MEMROOM_UNKNOWN);
    assert_int_equal(r.cg_room, FEED_MEMROOM_UNKNOWN);
    tu_rmtree(tmp);
    mkdir(tmp, 0700);
}

/* This machine's own files read: the system's figure is known and not zero. */
static void test_this_machine(void **state)
{
    feed__memroom r;
    feed__memroom_read(&r, "/proc/self", "/proc/meminfo");
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    assert_true(r.sys_avail != FEED_MEMROOM_UNKNOWN);
    assert_true(r.sys_avail > 0);
    print_message("MemAvailable+SwapFree %llu MiB of %llu MiB RAM; cgroup %s: room %s\n",
                  (unsigned long long)(r.sys_avail / MiB), (unsigned long long)pages * psz / MiB,
                  r.cg_dir[0] ? r.cg_dir : "(no limit)",
                  r.cg_room == FEED_MEMROOM_UNKNOWN ? "unknown" : "known");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v1_tightest_level),
        cmocka_unit_test(test_v1_wins_over_cgroup2_and_swap_counts),
        cmocka_unit_test(test_v2_max_and_parent_limit),
        cmocka_unit_test(test_namespace_root_and_escapes),
        cmocka_unit_test(test_unreadable_is_unknown),
        cmocka_unit_test(test_this_machine),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * fetch_sandbox.c - feed-fetch's own confinement, set before its first
 * request: no_new_privs; Landlock (where the kernel has it) so that it may
 * create, write and remove files only under the cache directory; and a
 * seccomp filter that refuses what a downloader never needs: running a
 * program, a child process (threads stay: libcurl's resolver is one),
 * debugging others, mounts, namespaces, modules, BPF, io_uring, and sockets
 * other than IP, Unix and netlink (the resolver's). Reading stays allowed (CA
 * certificates, resolver configuration), as do the IP sockets it is for.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <seccomp.h>

#include "remote/fetch.h"

static int landlock(const char *dir, char *why, size_t whylen)
{
#ifdef SYS_landlock_create_ruleset
    int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1)
        return 1; /* not in this kernel: seccomp alone */
    uint64_t write = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
                     LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                     LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
#ifdef LANDLOCK_ACCESS_FS_REFER
    if (abi >= 2)
        write |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    if (abi >= 3)
        write |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
    struct landlock_ruleset_attr ra = {.handled_access_fs = write};
    int rs = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof ra, 0);
    if (rs < 0) {
        snprintf(why, whylen, "landlock ruleset: %s", strerror(errno));
        return -1;
    }
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    struct landlock_path_beneath_attr pb = {.allowed_access = write, .parent_fd = dfd};
    int ok = dfd >= 0 && syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == 0 &&
             syscall(SYS_landlock_restrict_self, rs, 0) == 0;
    int e = errno;
    if (dfd >= 0)
        close(dfd);
    close(rs);
    if (!ok) {
        snprintf(why, whylen, "landlock on %s: %s", dir, strerror(e));
        return -1;
    }
    return 0;
#else
    (void)dir, (void)why, (void)whylen;
    return 1;
#endif
}

int fetch_sandbox(const char *cache_dir, char *why, size_t whylen)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(why, whylen, "no_new_privs: %s", strerror(errno));
        return -1;
    }
    if (landlock(cache_dir, why, whylen) < 0)
        return -1;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        snprintf(why, whylen, "seccomp_init failed");
        return -1;
    }
    static const int denied[] = {
        SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork), SCMP_SYS(ptrace),
        SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(mount), SCMP_SYS(umount2),
        SCMP_SYS(pivot_root), SCMP_SYS(chroot), SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(bpf),
        SCMP_SYS(kexec_load), SCMP_SYS(kexec_file_load), SCMP_SYS(init_module), SCMP_SYS(finit_module),
        SCMP_SYS(delete_module), SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key),
        SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd), SCMP_SYS(io_uring_setup), SCMP_SYS(personality),
        SCMP_SYS(open_by_handle_at), SCMP_SYS(mknod), SCMP_SYS(mknodat),
    };
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof denied / sizeof denied[0]; i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), denied[i], 0);
    /* clone: threads only; clone3 says ENOSYS, so glibc takes clone */
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    /* sockets: AF_UNIX 1, AF_INET 2, AF_INET6 10, AF_NETLINK 16 */
    for (int fam = 0; !rc && fam < 17; fam++)
        if (fam != AF_UNIX && fam != AF_INET && fam != AF_INET6 && fam != AF_NETLINK)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                                  SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fam));
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                              SCMP_A0(SCMP_CMP_GE, (scmp_datum_t)17));
    if (!rc)
        rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc) {
        snprintf(why, whylen, "seccomp: %s", strerror(-rc));
        return -1;
    }
    return 0;
}

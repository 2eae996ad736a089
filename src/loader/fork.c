/*
 * fork.c - a loader in a fork's child. fork() copies the loader's memory
 * into the child but none of its threads (the CUDA copier, the read-ahead
 * thread), keeps every lock as it was at the fork (held for ever if another
 * thread held it), and leaves the workers, their pidfds and the device as the
 * parent's. So in the child every call that would wait, lock, signal a
 * worker or free what the parent still uses refuses (FEED_E_INVALID, saying
 * whose loader it is), and destroy returns without touching anything: the
 * child's copy goes with its exit or exec, and the parent goes on undisturbed.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "loader/loader.h"

_Atomic uint64_t feed__fork_gen;

static void on_fork_child(void)
{
    atomic_fetch_add_explicit(&feed__fork_gen, 1, memory_order_relaxed);
}

static void install(void)
{
    pthread_atfork(NULL, NULL, on_fork_child);
}

void feed__fork_watch(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
}

int feed__loader_forked(const feed_loader *L)
{
    return L && L->fork_gen != atomic_load_explicit(&feed__fork_gen, memory_order_relaxed);
}

feed_status feed__loader_refuse_forked(feed_loader *L, const char *call)
{
    /* the child is single-threaded: last_error is its own copy to write */
    snprintf(L->last_error, sizeof L->last_error,
             "%s: this loader belongs to process %d, and this is process %d (a fork's child): its "
             "workers, threads and locks are the parent's; create a loader in the child instead",
             call, (int)L->owner, (int)getpid());
    return FEED_E_INVALID;
}

/*
 * loader.h - what the loader's files share (internal; the public API is feed.h).
 */
#ifndef FEED_LOADER_LOADER_H
#define FEED_LOADER_LOADER_H

/* The steps of feed_loader_create, in order, each timed (the names and the
 * accessor are test hooks: hooks/loader_test.h, bench/startupbench). */
#define FEED__CREATE_STEPS 8

#endif

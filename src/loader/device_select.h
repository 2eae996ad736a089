/*
 * device_select.h - which device backend a loader uses (device=auto, host,
 * cpu, cuda, cuda:N, cuda:local) and which launcher rank/world_size=auto
 * come from. Uses device.h and options.h only.
 */
#ifndef FEED_DEVICE_SELECT_H
#define FEED_DEVICE_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "device/device.h"
#include "feed.h"

typedef struct feed__device_choice {
    const feed__device_ops *ops; /* NULL until chosen */
    int32_t ordinal;             /* CUDA device, -1 on the host */
    char launcher[16];           /* where rank/world_size=auto came from ("" if given) */
} feed__device_choice;

/* Remembers the launcher rank/world_size=auto will come from (for stats).
 * Call before the options are validated: validation resolves auto. */
void feed__device_note_launcher(feed__device_choice *c, const feed_options *o);
/* Chooses the backend for the option string device. auto: CUDA device 0 if
 * one is visible, else the host. cuda:local: the launcher's local rank (0 if
 * the launcher left one GPU visible). Errors: FEED_E_INVALID (bad string, no
 * local rank), FEED_E_UNSUPPORTED (built without CUDA), FEED_E_DEVICE (no
 * such device). */
feed_status feed__device_select(feed__device_choice *c, const char *device, char *err, size_t errlen);

#endif

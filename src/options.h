/* options.h - internal: copy and validate feed_options. */
#ifndef FEED_OPTIONS_H
#define FEED_OPTIONS_H

#include "feed.h"

#define FEED_MAX_BATCH 65536u
#define FEED_MAX_WORKERS 250u
/* layout "not set": HWC for uint8, CHW for floats (resolved by validate). */
#define FEED_OPT_LAYOUT_DEFAULT 0xffu

/* Copies the caller's options over the defaults (only struct_size bytes). */
feed_status feed__options_copy(feed_options *dst, const feed_options *src, char *err, size_t errlen);
/* Checks every field; resolves defaults that depend on others. */
feed_status feed__options_validate(feed_options *o, char *err, size_t errlen);

#endif

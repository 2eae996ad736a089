/* status.c - status codes and their messages, generated from FEED_STATUS_LIST. */
#include "feed.h"

const char *feed_strerror(int status)
{
    switch (status) {
#define FEED_X_MSG(name, num, msg) \
    case num:                      \
        return msg;
        FEED_STATUS_LIST(FEED_X_MSG)
#undef FEED_X_MSG
    }
    return "unknown status";
}

const char *feed_status_name(int status)
{
    switch (status) {
#define FEED_X_NAME(name, num, msg) \
    case num:                       \
        return #name;
        FEED_STATUS_LIST(FEED_X_NAME)
#undef FEED_X_NAME
    }
    return "FEED_UNKNOWN";
}

uint32_t feed_version(void)
{
    return FEED_VERSION_NUMBER;
}

#define FEED_STR2(x) #x
#define FEED_STR(x) FEED_STR2(x)
const char *feed_version_string(void)
{
    return FEED_STR(FEED_VERSION_MAJOR) "." FEED_STR(FEED_VERSION_MINOR) "." FEED_STR(
        FEED_VERSION_PATCH);
}

#include <stdio.h>
#include <stdarg.h>
#include "common/internal.h"

feed_status feed__err(feed_status st, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

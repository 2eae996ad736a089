/*
 * augment.h - the stages of feed__image_process() (image.h), until the
 * includes name them: resize.h, geometry.h, colour.h.
 */
#ifndef FEED_AUGMENT_H
#define FEED_AUGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "colour.h"
#include "geometry.h"
#include "resize.h"
#include "rng.h"

#endif /* FEED_AUGMENT_H */

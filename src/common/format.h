/*
 * format.h - what kind of file some bytes are, by their magic numbers. A pure
 * stage: used to say "this is an image" where a file list (dataset/filelist.c)
 * was expected, and what a non-JPEG is where a JPEG (decode/jpeg.c) was; the
 * pipeline (pixels/pipeline.c) picks each sample's decoder by it.
 */
#ifndef FEED_FORMAT_H
#define FEED_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The image format data starts with, by its magic bytes: "JPEG", "PNG",
 * "GIF", "WebP", "BMP", "TIFF", "HEIF", "AVIF", "JPEG XL"; NULL if none. Used
 * to say "this is an image" where a file list (dataset/filelist.c) or a JPEG
 * (decode/jpeg.c) was expected. Every magic but JPEG's and JPEG XL's holds a byte no text
 * file list has (NUL, 0x89) or a 4-byte signature, so text is never taken
 * for an image.
 */
static inline const char *feed__image_format(const uint8_t *p, size_t n)
{
    if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF)
        return "JPEG";
    if (n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8))
        return "PNG";
    if (n >= 6 && (!memcmp(p, "GIF87a", 6) || !memcmp(p, "GIF89a", 6)))
        return "GIF";
    if (n >= 12 && !memcmp(p, "RIFF", 4) && !memcmp(p + 8, "WEBP", 4))
        return "WebP";
    if (n >= 10 && p[0] == 'B' && p[1] == 'M' && !memcmp(p + 6, "\0\0\0\0", 4))
        return "BMP";
    if (n >= 4 && (!memcmp(p, "II*\0", 4) || !memcmp(p, "MM\0*", 4)))
        return "TIFF";
    if (n >= 12 && !memcmp(p + 4, "ftyp", 4)) {
        const uint8_t *b = p + 8;
        if (!memcmp(b, "avif", 4) || !memcmp(b, "avis", 4))
            return "AVIF";
        static const char heif[][5] = {"heic", "heix", "hevc", "hevx", "heim", "heis",
                                       "hevm", "hevs", "mif1", "msf1"};
        for (size_t i = 0; i < sizeof heif / sizeof *heif; i++)
            if (!memcmp(b, heif[i], 4))
                return "HEIF";
    }
    if ((n >= 2 && p[0] == 0xFF && p[1] == 0x0A) ||
        (n >= 12 && !memcmp(p, "\0\0\0\x0cJXL \r\n\x87\n", 12)))
        return "JPEG XL";
    return NULL;
}

#endif /* FEED_FORMAT_H */

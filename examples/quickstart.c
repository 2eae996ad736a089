/* quickstart.c: two epochs of augmented batches from an image folder.
 *   cc quickstart.c -o quickstart $(pkg-config --cflags --libs libfeed) $(pkg-config --variable=rpath libfeed)
 *   ./quickstart data/demo */
#include <inttypes.h>
#include <stdio.h>
#include <feed.h>

int main(int argc, char **argv)
{
    char err[1024];
    feed_options o;
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", argc > 1 ? argv[1] : "data/demo");
    if (feed_options_parse(&o, "batch_size=64,workers=2,augment=train,epochs=2", err, sizeof err) != FEED_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    feed_loader *ld;
    if (feed_loader_create(&ld, &o, err, sizeof err) != FEED_OK) {
        fprintf(stderr, "libfeed: %s\n", err);
        return 1;
    }
    feed_batch b = {.struct_size = sizeof b};
    uint64_t images = 0, total = 0, epoch = 0;
    feed_status st;
    for (;;) {
        st = feed_loader_next(ld, &b, -1);
        if (st == FEED_OK) {
            /* b.data: b.count images, uint8 224x224x3 (HWC) in host memory; b.labels: int32 */
            images += b.count;
            feed_batch_release(ld, &b, NULL); /* the slot goes back to the workers */
        } else if (st == FEED_END_OF_EPOCH) {
            printf("epoch %" PRIu64 ": %" PRIu64 " images\n", epoch++, images);
            total += images;
            images = 0;
        } else if (st != FEED_E_INTERRUPTED) { /* a signal handler ran while it waited: again */
            break;                              /* FEED_END_OF_DATA after `epochs`, or an error */
        }
    }
    if (st != FEED_END_OF_DATA)
        fprintf(stderr, "libfeed: %s: %s\n", feed_status_name(st), feed_loader_last_error(ld));
    printf("%" PRIu64 " images in %" PRIu64 " epochs\n", total, epoch);
    feed_loader_destroy(ld);
    return st == FEED_END_OF_DATA ? 0 : 1;
}

/*
 * train_loop.c - the skeleton of a training loop fed by libfeed.
 *
 *   train_loop DATA_DIR [key=value,...]
 *
 * Builds against the installed library:
 *   cc train_loop.c $(pkg-config --cflags --libs libfeed) -o train_loop
 * Prints images/s per epoch, and a checksum of every batch so two runs (or a
 * run and the Python binding) can be compared.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <feed.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Stands in for the model: touches every byte of the batch. */
static uint64_t train_step(const feed_batch *b)
{
    const uint8_t *p = b->data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint64_t i = 0; i < b->count * b->sample_bytes; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    for (uint32_t i = 0; i < b->count; i++)
        h = (h ^ (uint64_t)b->labels[i]) * 0x100000001b3ull;
    return h;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DATA_DIR [key=value,...]\n", argv[0]);
        return 2;
    }
    char err[1024];
    feed_options o;
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", argv[1]);
    /* defaults for the example; the command line overrides them */
    feed_options_parse(&o, "batch_size=64,workers=2,augment=train,epochs=2,device=host", err, sizeof err);
    if (argc > 2 && feed_options_parse(&o, argv[2], err, sizeof err) != FEED_OK) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    feed_loader *ld;
    feed_status st = feed_loader_create(&ld, &o, err, sizeof err);
    if (st != FEED_OK) {
        fprintf(stderr, "libfeed: %s: %s\n", feed_status_name(st), err);
        return 1;
    }
    printf("libfeed %s: %" PRIu64 " samples/epoch, %" PRIu64 " batches/epoch, %u classes\n",
           feed_version_string(), feed_loader_samples_per_epoch(ld), feed_loader_batches_per_epoch(ld),
           feed_loader_num_classes(ld));
    feed_batch b = {.struct_size = sizeof b};
    uint64_t images = 0, sum = 0;
    double t0 = now_s();
    for (;;) {
        st = feed_loader_next(ld, &b, -1);
        if (st == FEED_OK) {
            uint64_t h = train_step(&b);
            sum ^= h + b.index;
            if (getenv("TRAIN_LOOP_PRINT_BATCHES"))
                printf("batch %" PRIu64 ".%" PRIu64 " %016" PRIx64 "\n", b.epoch, b.index, h);
            images += b.count;
            feed_batch_release(ld, &b, NULL);
        } else if (st == FEED_END_OF_EPOCH) {
            double t = now_s() - t0;
            printf("epoch done: %" PRIu64 " images in %.2f s = %.1f images/s\n", images, t, images / t);
            images = 0;
            t0 = now_s();
        } else if (st == FEED_END_OF_DATA) {
            break;
        } else if (st == FEED_E_INTERRUPTED) {
            continue; /* a signal handler ran while next() waited */
        } else {
            fprintf(stderr, "libfeed: %s: %s\n", feed_status_name(st), feed_loader_last_error(ld));
            if (st != FEED_E_DECODE)
                break;
        }
    }
    feed_stats s = {.struct_size = sizeof s};
    feed_loader_stats(ld, &s);
    printf("checksum %016" PRIx64 "; delivered %" PRIu64 ", bad %" PRIu64 ", restarts %" PRIu64
           ", reader %s, backend %s\n",
           sum, s.samples_delivered, s.samples_bad, s.worker_restarts, s.reader, s.backend);
    feed_loader_destroy(ld);
    return 0;
}

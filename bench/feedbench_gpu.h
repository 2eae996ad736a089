/*
 * feedbench_gpu.h - the GPU side of feedbench, as a plain C interface.
 *
 * Implemented by feedbench_cuda.cu, which is compiled only when the project
 * has CUDA (FEED_HAVE_CUDA in CMake; feedbench then sees FEEDBENCH_HAVE_CUDA).
 * No CUDA types cross this header: streams are void *.
 *
 * The simulated model step is a kernel that spins on the GPU's global timer
 * for the requested time, so the GPU is busy for exactly that long whatever
 * the clocks. Each measured step is bracketed by two CUDA events; after
 * fb_gpu_sync() the step spans are read back relative to the base event
 * recorded by fb_gpu_mark(), which is the start of the measured window.
 *
 * All functions return 0 on success, or -1 with a message in err (those that
 * take one). One thread (the consumer) uses a fb_gpu at a time.
 */
#ifndef FEEDBENCH_GPU_H
#define FEEDBENCH_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fb_gpu fb_gpu;

/* Selects device ordinal, creates a non-blocking stream and the base event.
 * Writes the device name into name (if not NULL). */
int fb_gpu_open(fb_gpu **out, int ordinal, char *name, size_t namelen, char *err, size_t errlen);
/* Waits for the stream and frees everything. Accepts NULL. */
void fb_gpu_close(fb_gpu *g);
/* The cudaStream_t the steps run on (pass it to feed_batch_wait/release). */
void *fb_gpu_stream(fb_gpu *g);

/* Start of the measured window: waits for the stream, records the base
 * event and returns (in *host_ns, CLOCK_MONOTONIC) the host time it completed. */
int fb_gpu_mark(fb_gpu *g, uint64_t *host_ns, char *err, size_t errlen);

/* Enqueues one model step of ms milliseconds on the stream. measured != 0
 * (only after fb_gpu_mark) brackets it with events for fb_gpu_span(). */
int fb_gpu_step(fb_gpu *g, double ms, int measured, char *err, size_t errlen);

/* Device memory for the sync loader's batches (freed by fb_gpu_close). */
int fb_gpu_alloc(fb_gpu *g, size_t bytes, void **dev, char *err, size_t errlen);
/* The naive copy: pageable host memory to device on the stream, then waits
 * for it (so it also waits for the steps queued before it, as a
 * tensor.cuda() in a plain training loop does). */
int fb_gpu_copy_h2d(fb_gpu *g, void *dev, const void *host, size_t bytes, char *err, size_t errlen);

/* Waits for everything queued. *window_ms (if not NULL): GPU time from the
 * base event to the end of the last measured step (0 if none). */
int fb_gpu_sync(fb_gpu *g, double *window_ms, char *err, size_t errlen);

/* Measured steps so far, and step i's start (ms after the base event) and
 * duration, both from events. Valid after fb_gpu_sync(). */
uint64_t fb_gpu_nspans(const fb_gpu *g);
int fb_gpu_span(const fb_gpu *g, uint64_t i, double *start_ms, double *dur_ms);

#ifdef __cplusplus
}
#endif
#endif /* FEEDBENCH_GPU_H */

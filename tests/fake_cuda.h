/*
 * fake_cuda.h - a small fake of the CUDA runtime, for tests only.
 *
 * tests/fake_cuda.c defines the subset of cuda_runtime_api.h that
 * the CUDA backend (the C files in src/device/cuda/) uses, with the same names and signatures, so it
 * compiles unchanged against it and runs with no GPU: device memory is host
 * memory, each stream is a thread that runs its queued work in order after a
 * small random delay (simulated hardware latency), events complete in stream
 * order, and feed__cuda_convert_launch runs the host conversion on the stream.
 *
 * It also watches what real hardware would not report: copies that read a
 * host range still queued (pending_reads), copies from pageable memory or
 * straddling two registrations, work issued with another device current,
 * leaks. The knobs below make calls fail, to reach the fallback and error
 * paths.
 */
#ifndef FEED_FAKE_CUDA_H
#define FEED_FAKE_CUDA_H

#include <stddef.h>
#include <stdint.h>

typedef struct fake_cuda_counters {
    long live_device, live_pinned, live_streams, live_events, live_registered;
    long h2d_copies, d2h_copies, kernels;
    long pageable_h2d;     /* H2D copies whose source was neither pinned nor registered */
    long straddling_h2d;   /* H2D copies whose source spans two registrations */
    long wrong_device_ops; /* copies or kernels enqueued while another device was current */
    long register_calls;
} fake_cuda_counters;

/* Back to defaults: 1 device, no failures, delays up to 200 us, counters 0.
 * Everything created before must have been destroyed. */
void fake_cuda_reset(void);
void fake_cuda_set_device_count(int n);
/* Maximum random delay before each queued operation runs (0: none). */
void fake_cuda_set_max_delay_us(unsigned us);
/* cudaHostRegister fails with cudaErrorMemoryAllocation (as with a memlock limit). */
void fake_cuda_fail_register(int on);
/* The next n allocations (cudaMalloc, cudaMallocHost, cudaStreamCreate*,
 * cudaEventCreate*) succeed, then they fail; n < 0: never fail. */
void fake_cuda_fail_alloc_after(long n);
/* The next n host-to-device cudaMemcpyAsync calls succeed, then they fail
 * (cudaErrorIllegalAddress); n < 0: never. */
void fake_cuda_fail_memcpy_after(long n);
/* H2D copies queued (or running) whose source overlaps [p, p + n). */
long fake_cuda_pending_reads(const void *p, size_t n);
void fake_cuda_get_counters(fake_cuda_counters *c);
/* Devices the calling thread passed to cudaSetDevice since the last call
 * (bit d for device d); clears the record. */
unsigned fake_cuda_thread_take_set_mask(void);

#endif /* FEED_FAKE_CUDA_H */

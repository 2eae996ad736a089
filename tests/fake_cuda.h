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
 * It models what real hardware does behind a program's back: a current device
 * and a context stack per thread (cudaGetDriverEntryPoint gives
 * cuCtxGetCurrent/PushCurrent/PopCurrent), primary contexts initialised
 * lazily by the first call that needs one (counted per device); a kernel
 * fault that surfaces later and breaks the context for good (sticky); the
 * legacy default stream's implicit synchronisation with blocking streams, and
 * per-thread default streams as streams of their own; the implicit
 * synchronisation that cudaFree, cudaMallocHost and cudaHostRegister may do
 * (counted). What it does not model is listed in docs/design.md.
 *
 * It also watches what real hardware would not report: copies that read a
 * host range still queued (pending_reads), copies from pageable memory or
 * straddling two registrations, work issued with another device current,
 * leaks. The knobs below make calls fail, to reach the fallback and error
 * paths.
 */
#ifndef FEED_FAKE_CUDA_H
#define FEED_FAKE_CUDA_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fake_cuda_counters {
    long live_device, live_pinned, live_streams, live_events, live_registered;
    long h2d_copies, d2h_copies, kernels;
    long pageable_h2d;     /* H2D copies whose source was neither pinned nor registered */
    long straddling_h2d;   /* H2D copies whose source spans two registrations */
    long wrong_device_ops; /* copies or kernels enqueued while another device was current */
    long register_calls;
    /* primary contexts initialised per device (a runtime call that needs a
     * context on a thread with none initialises its chosen device's, 0 if it
     * chose none; cudaSetDevice initialises the one it chooses) */
    long contexts_created[8];
    /* cudaMallocHost, cudaFree, cudaFreeHost, cudaHostRegister and
     * cudaHostUnregister calls: each "may perform implicit synchronization"
     * (counted, not performed: the fake gives the worst case) */
    long implicit_syncs;
    long freed_in_use;  /* memory freed (or unregistered) while queued work still used it */
    long legacy_syncs;  /* implicit waits between the legacy stream and a blocking stream */
    long records;       /* cudaEventRecord calls that succeeded */
} fake_cuda_counters;

/* Back to defaults: 1 device, no failures, delays up to 200 us, counters 0.
 * Everything created before must have been destroyed. */
void fake_cuda_reset(void);
void fake_cuda_set_device_count(int n);
/* Maximum random delay before each queued operation runs (0: none). */
void fake_cuda_set_max_delay_us(unsigned us);
/* cudaHostRegister fails with cudaErrorMemoryAllocation (as with a memlock limit). */
void fake_cuda_fail_register(int on);
/* cudaHostRegister fails (cudaErrorMemoryAllocation) once the bytes
 * registered would pass this limit, as under RLIMIT_MEMLOCK; 0: no limit. */
void fake_cuda_set_register_limit(size_t bytes);
/* The next n allocations (cudaMalloc, cudaMallocHost, cudaStreamCreate*,
 * cudaEventCreate*) succeed, then they fail; n < 0: never fail. */
void fake_cuda_fail_alloc_after(long n);
/* The next n host-to-device cudaMemcpyAsync calls succeed, then they fail
 * at once (cudaErrorInvalidValue: an enqueue that fails, not a fault of the
 * device, which fake_cuda_fault_kernel_after gives); n < 0: never. */
void fake_cuda_fail_memcpy_after(long n);
/* H2D copies queued (or running) whose source overlaps [p, p + n). */
long fake_cuda_pending_reads(const void *p, size_t n);
void fake_cuda_get_counters(fake_cuda_counters *c);
/* The next n conversion kernels run, then one faults when it runs
 * (cudaErrorIllegalAddress): its launch succeeded; the error is sticky,
 * surfacing at the next call on that device's context (synchronising calls
 * included) until fake_cuda_reset. n < 0: never. */
void fake_cuda_fault_kernel_after(long n);
/* Stream st runs nothing until a host thread blocks on it (a
 * cudaStreamSynchronize of it, a cudaEventSynchronize of an event recorded
 * on it, cudaDeviceSynchronize), or it is destroyed: work "still running"
 * as long as nobody waits for it. */
void fake_cuda_hold_stream(cudaStream_t st);
/* Devices whose primary context was initialised since fake_cuda_reset (bit d
 * for device d), by any thread. */
unsigned fake_cuda_context_mask(void);
/* 1 if a context is current to the calling thread. */
int fake_cuda_thread_has_context(void);
/* Devices the calling thread passed to cudaSetDevice since the last call
 * (bit d for device d); clears the record. */
unsigned fake_cuda_thread_take_set_mask(void);

/* cudaEventRecord calls that succeeded on stream st (the legacy default
 * stream for NULL): what one caller's streams got, whatever other threads
 * record meanwhile. */
long fake_cuda_stream_records(cudaStream_t st);

#endif /* FEED_FAKE_CUDA_H */

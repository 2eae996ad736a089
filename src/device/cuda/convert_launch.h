/*
 * convert_launch.h - the fused convert/normalize kernel, as a plain C call.
 *
 * Implemented by src/device/cuda/convert.cu (and, for the GPU-less tests, on the host by
 * tests/fake_cuda.c). No CUDA types here, so the backend stays plain C.
 */
#ifndef FEED_CONVERT_LAUNCH_H
#define FEED_CONVERT_LAUNCH_H

#include <stdint.h>

#include "pixels/post.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Enqueues on stream (a cudaStream_t) the conversion of n samples of h x w
 * uint8 HWC RGB pixels, sample i at src + i * src_stride bytes (device
 * memory), into dst (device memory, packed: sample i at i * h*w*3 elements)
 * as dtype/layout, with scale/bias from feed__convert_params(). flip, if not
 * NULL, is a *device* array of n bytes: non-zero mirrors sample i
 * horizontally. Uses the per-element functions of src/pixels/convert.h, so the
 * result is bitwise what feed__convert_sample() gives on the host.
 *
 * post (NULL: none) finishes each sample as the host backend does after the
 * conversion: RandomErasing, then MixUp/CutMix with sample n-1-i, with
 * sample i's parameters in the *device* array post_samples[i] (pixels/post.h):
 * element by element what feed__erase_apply and feed__mix_apply give.
 * Returns 0 (cudaSuccess) or the cudaError_t of the launch.
 */
int feed__cuda_convert_launch(const void *src, uint64_t src_stride, void *dst, uint32_t n,
                              uint32_t h, uint32_t w, uint32_t dtype, uint32_t layout,
                              const float scale[3], const float bias[3], const uint8_t *flip,
                              const feed__post_cfg *post, const feed__post_sample *post_samples,
                              void *stream);

#ifdef __cplusplus
}
#endif

#endif /* FEED_CONVERT_LAUNCH_H */

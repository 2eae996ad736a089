/*
 * convert.cu - the fused convert/normalize kernel: a batch of uint8 HWC RGB
 * samples -> float32/float16/bfloat16/uint8 in HWC or CHW, per-channel
 * (x/255 - mean)/std, optional per-sample horizontal flip.
 *
 * Every output element comes from the FEED_HD functions of src/pixels/convert.h,
 * the ones the CPU path uses, so the GPU result is bitwise the host's.
 * One thread per pixel: it reads 3 bytes and writes 3 elements (coalesced per
 * channel plane in CHW). The kernel moves 4-13 bytes per input byte at HBM
 * speed, far above the PCIe rate the copy that feeds it runs at.
 */
#include <cuda_runtime.h>

#include "pixels/convert.h"
#include "pixels/post.h"
#include "device/cuda/convert_launch.h"

namespace {

struct cv_params {
    float s[3], b[3];
};

template <int DT> struct elem;
template <> struct elem<FEED_DTYPE_UINT8> { typedef uint8_t type; };
template <> struct elem<FEED_DTYPE_FLOAT32> { typedef float type; };
template <> struct elem<FEED_DTYPE_FLOAT16> { typedef uint16_t type; };
template <> struct elem<FEED_DTYPE_BFLOAT16> { typedef uint16_t type; };

template <int DT>
__device__ __forceinline__ typename elem<DT>::type cv(uint32_t x, float s, float b)
{
    if constexpr (DT == FEED_DTYPE_UINT8)
        return (uint8_t)x;
    else if constexpr (DT == FEED_DTYPE_FLOAT32)
        return feed__px_norm(x, s, b);
    else if constexpr (DT == FEED_DTYPE_FLOAT16)
        return feed__f32_to_f16(feed__px_norm(x, s, b));
    else
        return feed__f32_to_bf16(feed__px_norm(x, s, b));
}

template <int DT, int CHW>
__global__ void __launch_bounds__(256)
convert_kernel(const uint8_t *__restrict__ src, uint64_t stride, typename elem<DT>::type *__restrict__ dst,
               uint32_t n, uint32_t h, uint32_t w, cv_params p, const uint8_t *__restrict__ flip)
{
    const uint32_t hw = h * w;
    for (uint32_t s = blockIdx.y; s < n; s += gridDim.y) {
        const uint8_t *in = src + (size_t)s * stride;
        typename elem<DT>::type *out = dst + (size_t)s * hw * 3;
        const bool fl = flip && flip[s];
        for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < hw; i += gridDim.x * blockDim.x) {
            uint32_t j = i;
            if (fl) {
                uint32_t y = i / w;
                j = y * w + (w - 1 - (i - y * w));
            }
            const uint8_t *px = in + (size_t)j * 3;
            const uint32_t r = px[0], g = px[1], b = px[2];
            if (CHW) {
                out[i] = cv<DT>(r, p.s[0], p.b[0]);
                out[hw + i] = cv<DT>(g, p.s[1], p.b[1]);
                out[2 * (size_t)hw + i] = cv<DT>(b, p.s[2], p.b[2]);
            } else {
                out[3 * (size_t)i + 0] = cv<DT>(r, p.s[0], p.b[0]);
                out[3 * (size_t)i + 1] = cv<DT>(g, p.s[1], p.b[1]);
                out[3 * (size_t)i + 2] = cv<DT>(b, p.s[2], p.b[2]);
            }
        }
    }
}

const uint32_t BLOCK = 256;

/* Threads over a sample's pixels (x), samples over y (a grid-stride loop
 * past 65535). */
dim3 grid_for(uint32_t n, uint32_t h, uint32_t w)
{
    uint64_t gx = ((uint64_t)h * w + BLOCK - 1) / BLOCK;
    if (gx > 0x7fffffffu)
        gx = 0x7fffffffu;
    return dim3((unsigned)gx, n < 65535u ? n : 65535u);
}

template <int DT, int CHW>
cudaError_t launch(const void *src, uint64_t stride, void *dst, uint32_t n, uint32_t h, uint32_t w,
                   const cv_params &p, const uint8_t *flip, cudaStream_t stream)
{
    convert_kernel<DT, CHW><<<grid_for(n, h, w), BLOCK, 0, stream>>>(
        (const uint8_t *)src, stride, (typename elem<DT>::type *)dst, n, h, w, p, flip);
    return cudaGetLastError();
}

/* The conversion with the recipe's post steps (pixels/post.h): each thread
 * one pixel of sample s, its three channels from feed__post_element with the
 * partner's pixel (n-1-s) beside its own; the dtype is a run-time argument
 * (this kernel runs only with RandomErasing or MixUp/CutMix). */
template <int CHW>
__global__ void __launch_bounds__(256)
post_kernel(const uint8_t *__restrict__ src, uint64_t stride, uint8_t *__restrict__ dst, uint32_t n, uint32_t h,
            uint32_t w, uint32_t dtype, cv_params p, const uint8_t *__restrict__ flip, feed__post_cfg pc,
            const feed__post_sample *__restrict__ post)
{
    const uint32_t hw = h * w;
    const uint32_t es = dtype == FEED_DTYPE_FLOAT32 ? 4 : dtype == FEED_DTYPE_UINT8 ? 1 : 2;
    for (uint32_t s = blockIdx.y; s < n; s += gridDim.y) {
        const uint32_t j = n - 1 - s;
        const feed__post_sample ps = post[s], pj = post[j];
        const uint8_t *in_s = src + (size_t)s * stride, *in_j = src + (size_t)j * stride;
        uint8_t *out = dst + (size_t)s * hw * 3 * es;
        const bool fs = flip && flip[s], fj = flip && flip[j];
        for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < hw; i += gridDim.x * blockDim.x) {
            const uint32_t y = i / w, x = i - y * w;
            const uint8_t *a = in_s + ((size_t)y * w + (fs ? w - 1 - x : x)) * 3;
            const uint8_t *b = in_j + ((size_t)y * w + (fj ? w - 1 - x : x)) * 3;
            for (uint32_t c = 0; c < 3; c++) {
                const uint32_t v = feed__post_element(dtype, &pc, &ps, &pj, c, y, x, a[c], b[c], p.s[c], p.b[c]);
                const size_t e = CHW ? (size_t)c * hw + i : 3 * (size_t)i + c;
                if (es == 4)
                    ((uint32_t *)out)[e] = v;
                else if (es == 2)
                    ((uint16_t *)out)[e] = (uint16_t)v;
                else
                    out[e] = (uint8_t)v;
            }
        }
    }
}

cudaError_t launch_post(const void *src, uint64_t stride, void *dst, uint32_t n, uint32_t h, uint32_t w,
                        uint32_t dtype, uint32_t layout, const cv_params &p, const uint8_t *flip,
                        const feed__post_cfg &pc, const feed__post_sample *post, cudaStream_t stream)
{
    const dim3 grid = grid_for(n, h, w);
    if (layout == FEED_LAYOUT_CHW)
        post_kernel<1><<<grid, BLOCK, 0, stream>>>((const uint8_t *)src, stride, (uint8_t *)dst, n, h, w, dtype, p,
                                                   flip, pc, post);
    else
        post_kernel<0><<<grid, BLOCK, 0, stream>>>((const uint8_t *)src, stride, (uint8_t *)dst, n, h, w, dtype, p,
                                                   flip, pc, post);
    return cudaGetLastError();
}

} // namespace

extern "C" int feed__cuda_convert_launch(const void *src, uint64_t src_stride, void *dst, uint32_t n,
                                         uint32_t h, uint32_t w, uint32_t dtype, uint32_t layout,
                                         const float scale[3], const float bias[3],
                                         const uint8_t *flip, const feed__post_cfg *post,
                                         const feed__post_sample *post_samples, void *stream)
{
    if (n == 0 || h == 0 || w == 0)
        return cudaSuccess;
    if ((uint64_t)h * w > 0xffffffffu / 3 || layout > FEED_LAYOUT_CHW)
        return cudaErrorInvalidValue;
    cv_params p;
    for (int c = 0; c < 3; c++) {
        p.s[c] = scale[c];
        p.b[c] = bias[c];
    }
    cudaStream_t s = (cudaStream_t)stream;
    const int chw = layout == FEED_LAYOUT_CHW;
    if (post) {
        if (!post_samples || dtype > FEED_DTYPE_BFLOAT16)
            return cudaErrorInvalidValue;
        return launch_post(src, src_stride, dst, n, h, w, dtype, layout, p, flip, *post, post_samples, s);
    }
    switch (dtype) {
    case FEED_DTYPE_UINT8:
        return chw ? launch<FEED_DTYPE_UINT8, 1>(src, src_stride, dst, n, h, w, p, flip, s)
                   : launch<FEED_DTYPE_UINT8, 0>(src, src_stride, dst, n, h, w, p, flip, s);
    case FEED_DTYPE_FLOAT32:
        return chw ? launch<FEED_DTYPE_FLOAT32, 1>(src, src_stride, dst, n, h, w, p, flip, s)
                   : launch<FEED_DTYPE_FLOAT32, 0>(src, src_stride, dst, n, h, w, p, flip, s);
    case FEED_DTYPE_FLOAT16:
        return chw ? launch<FEED_DTYPE_FLOAT16, 1>(src, src_stride, dst, n, h, w, p, flip, s)
                   : launch<FEED_DTYPE_FLOAT16, 0>(src, src_stride, dst, n, h, w, p, flip, s);
    case FEED_DTYPE_BFLOAT16:
        return chw ? launch<FEED_DTYPE_BFLOAT16, 1>(src, src_stride, dst, n, h, w, p, flip, s)
                   : launch<FEED_DTYPE_BFLOAT16, 0>(src, src_stride, dst, n, h, w, p, flip, s);
    }
    return cudaErrorInvalidValue;
}

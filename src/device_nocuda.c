/* device_nocuda.c - built when libfeed is configured without CUDA. */
#include "device.h"

const feed__device_ops *feed__device_cuda(void)
{
    return NULL;
}

int feed__device_cuda_count(void)
{
    return 0;
}

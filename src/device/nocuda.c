/* nocuda.c - built when libfeed is configured without CUDA. */
#include <stdio.h>

#include "device/device.h"

const feed__device_ops *feed__device_cuda(void)
{
    return NULL;
}

int feed__device_cuda_count(void)
{
    return 0;
}

int feed__device_cuda_probe(char *why, size_t whylen)
{
    if (why && whylen)
        snprintf(why, whylen, "this libfeed was built without CUDA");
    return 0;
}

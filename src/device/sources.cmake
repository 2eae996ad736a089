# src/device: the device interface and the host backend; the CUDA backend is device/cuda/
# (cuda.cmake), replaced by nocuda.c where nvcc is not found.
set(FEED_DEVICE_SOURCES
  src/device/host.c
)
set(FEED_DEVICE_NOCUDA_SOURCES
  src/device/nocuda.c
)

# src/device/cuda/cuda.cmake - the CUDA backend. Included by the top-level CMakeLists.txt
# when nvcc is found (FEED_HAVE_CUDA); CUDAToolkit is already found.
#
#  - The backend's C files (FEED_CUDA_BACKEND_SOURCES: the device interface,
#    the arena registration and device buffers, the copier thread) join
#    feed_core: plain C with feed_core's flags; they need the CUDA headers
#    only. tests/CMakeLists.txt compiles the same list against the fake runtime.
#  - src/device/cuda/convert.cu is its own object library (nvcc takes none of the C
#    flags: -Wall, -fsanitize=..., -fvisibility=...), and its objects reach
#    everything that links feed_core (libfeed.so, libfeed.a, programs, tests)
#    through feed_core's INTERFACE_SOURCES.
#  - The CUDA runtime is linked statically (CUDA::cudart_static): libfeed has
#    no libcudart.so dependency and loads, and runs on the host backend, on
#    machines without a driver or a GPU. Nothing calls CUDA at load time.
#
# Architectures: SASS for sm_90 (H100/H200) plus PTX for the oldest the
# toolkit supports (compute_75 with CUDA 13, compute_70 before), which the
# driver JIT-compiles for any other GPU at first use.

if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 13)
  set(_feed_cuda_archs_default "90-real;75-virtual")
else()
  set(_feed_cuda_archs_default "90-real;70-virtual")
endif()
set(FEED_CUDA_ARCHITECTURES "${_feed_cuda_archs_default}" CACHE STRING
    "CUDA architectures of the convert kernel (CMake CUDA_ARCHITECTURES syntax)")

add_library(feed_cuda_kernels OBJECT src/device/cuda/convert.cu)
# Drop the directory's C compile options (add_compile_options above): nvcc
# rejects them. Host-side warnings go through -Xcompiler instead.
set_property(TARGET feed_cuda_kernels PROPERTY COMPILE_OPTIONS "")
target_compile_options(feed_cuda_kernels PRIVATE
  -Xcompiler=-Wall,-Wextra,-Wno-unused-parameter,-fvisibility=hidden
  $<$<BOOL:${FEED_WERROR}>:-Werror=all-warnings>)
target_include_directories(feed_cuda_kernels PRIVATE include src)
set_target_properties(feed_cuda_kernels PROPERTIES
  CUDA_ARCHITECTURES "${FEED_CUDA_ARCHITECTURES}"
  CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
  POSITION_INDEPENDENT_CODE ON
  CUDA_RUNTIME_LIBRARY Static)

set(FEED_CUDA_BACKEND_SOURCES
  ${PROJECT_SOURCE_DIR}/src/device/cuda/device_cuda.c
  ${PROJECT_SOURCE_DIR}/src/device/cuda/register.c
  ${PROJECT_SOURCE_DIR}/src/device/cuda/copier.c)
foreach(core IN LISTS FEED_CORE_TARGETS) # feed_core, and feed_core_test with the test hooks
  target_sources(${core} PRIVATE ${FEED_CUDA_BACKEND_SOURCES}
                 INTERFACE $<TARGET_OBJECTS:feed_cuda_kernels>)
  target_include_directories(${core} PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(${core} PUBLIC CUDA::cudart_static)
endforeach()

# NVTX ranges (header-only nvtx3, no library) around the copier's copies and
# conversions.
set(FEED_HAVE_NVTX OFF)
if(EXISTS "${CUDAToolkit_INCLUDE_DIRS}/nvtx3/nvToolsExt.h")
  set(FEED_HAVE_NVTX ON)
  set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/device/cuda/copier.c APPEND PROPERTY COMPILE_DEFINITIONS FEED_HAVE_NVTX=1)
endif()
message(STATUS "libfeed: CUDA architectures ${FEED_CUDA_ARCHITECTURES}, NVTX ${FEED_HAVE_NVTX}")

# bench/h2dbench: plain pinned H2D bandwidth vs the backend's (CUDA only).
if(FEED_PROGRAMS AND EXISTS ${PROJECT_SOURCE_DIR}/bench/h2dbench.c)
  add_executable(h2dbench bench/h2dbench.c)
  target_include_directories(h2dbench PRIVATE src ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(h2dbench PRIVATE feed_core)
endif()

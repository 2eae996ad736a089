#!/usr/bin/env bash
# Installs what libfeed needs to build and test, if it is missing (Debian/Ubuntu).
# Sourced by scripts/test and scripts/demo; safe to run again.
set -euo pipefail

feed_need_pkgs=()
feed_check() { # command-or-file package
  case "$1" in
    /*) [ -e "$1" ] || feed_need_pkgs+=("$2") ;;
    *) command -v "$1" >/dev/null 2>&1 || feed_need_pkgs+=("$2") ;;
  esac
}
feed_check cc build-essential
feed_check c++ g++
feed_check cmake cmake
feed_check pkg-config pkg-config
# nasm: the SIMD code of third_party/libjpeg-turbo on x86 (without it the
# build works, with a CMake warning, and decodes much slower).
case "$(uname -m)" in x86_64|i?86) feed_check nasm nasm ;; esac
# The system's libjpeg-turbo: the FEED_SYSTEM_LIBJPEG=ON build (scripts/test's
# second one); the default links third_party/libjpeg-turbo.
feed_check /usr/include/turbojpeg.h libturbojpeg0-dev
feed_check /usr/include/jpeglib.h libjpeg62-turbo-dev
feed_check /usr/include/liburing.h liburing-dev
feed_check /usr/include/seccomp.h libseccomp-dev
feed_check /usr/include/spng.h libspng-dev       # PNG, in feed-worker (src/decode/png.c)
feed_check /usr/include/webp/decode.h libwebp-dev # WebP, in feed-worker (src/decode/webp.c)
feed_check /usr/include/cmocka.h libcmocka-dev
# libcurl: feed-fetch, the helper that downloads remote shards (src/remote/); without
# it the build works and a URL source fails at create (FEED_E_UNSUPPORTED).
feed_check "/usr/include/$(uname -m)-linux-gnu/curl/curl.h" libcurl4-openssl-dev
feed_check python3 python3
# openssl: python/tests/test_remote_tls.py makes its server's certificate with it.
feed_check openssl openssl
# Open MPI: examples/mpi_shards.c and its ctest (mpirun -np 2 / 4, two simulated nodes).
feed_check mpirun openmpi-bin
feed_check mpicc libopenmpi-dev
if [ ${#feed_need_pkgs[@]} -gt 0 ]; then
  echo "deps: installing ${feed_need_pkgs[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${feed_need_pkgs[@]}"
fi
# Optional: valgrind (scripts/valgrind, a step of scripts/test, skipped without
# it) and clang with libFuzzer (scripts/fuzz, -DFEED_BUILD_FUZZERS=ON).
command -v valgrind >/dev/null 2>&1 || echo "deps: no valgrind: scripts/test skips its memcheck step (apt-get install valgrind)"
# The CUDA toolkit is optional: found -> the CUDA backend is built too.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

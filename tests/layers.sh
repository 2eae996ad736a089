#!/usr/bin/env bash
# layers.sh SRC_DIR BUILD_DIR "STAGE_SOURCES" "WORKER_SOURCES"
#
# The layers of src/README.md, checked on the sources and on what the build
# links:
#   - nothing outside cuda/ includes a CUDA header;
#   - a stage (STAGE_SOURCES, and its header) includes nothing of the arena,
#     the ring, the pool, the worker or the loader;
#   - the ring includes no policy (loader, pool, bad-sample log, options);
#   - feed-worker links no loader, no pool, no device backend, no CUDA runtime,
#     no TurboJPEG;
#   - each codec's headers are included by its one file (jpeg.c, png.c,
#     webp.c), and feed-worker, which runs the decoders, links libjpeg,
#     libspng and libwebp;
#   - the shipped libfeed.so / libfeed.a carry no test hook, no decoder and
#     no worker loop, and libfeed.so needs no codec library.
set -euo pipefail
src=$1 build=$2
read -r -a stages <<<"$3"
read -r -a workers <<<"$4"
fail=0
bad() { echo "layers: $*"; fail=1; }

# includes "x.h" of a source file and of its header
incs() {
  local f
  for f in "$src/$1" "$src/${1%.c}.h"; do
    [ -e "$f" ] && grep -hoE '^#include "[^"]+"' "$f" | sed -E 's/#include "(.*)"/\1/'
  done
  return 0
}

# 1. CUDA headers only in cuda/ (and the CUDA tests, which test it)
while IFS= read -r hit; do
  bad "CUDA header outside cuda/: $hit"
done < <(grep -rlE '#include <(cuda|cuda_runtime|cuda_runtime_api|nvtx3/)[^>]*>' \
           "$src/src" "$src/include" "$src/tools" 2>/dev/null || true)

# 2. stages know no processes or arena
for s in "${stages[@]}"; do
  for h in $(incs "$s"); do
    case "$h" in
      shm.h | ring.h | pool.h | worker.h | loader*.h | schedule.h | badlog.h | device*.h | readahead.h | prefetch.h | options.h | sampler.h)
        bad "stage $s includes $h" ;;
    esac
  done
done

# 3. the ring knows no policy
for h in $(incs src/ring.c); do
  case "$h" in
    ring.h | shm.h | internal.h | feed.h | rng.h | image.h | convert.h) ;;
    *) bad "src/ring.c includes $h (the ring is mechanism only)" ;;
  esac
done

# 3b. one file per codec
codec_only() { # header-pattern the-codec's-files...
  local hit pat=$1 f ok
  shift
  while IFS= read -r hit; do
    ok=0
    for f in "$@"; do [ "$hit" = "$src/src/$f" ] && ok=1; done
    [ $ok = 1 ] || bad "$hit includes $pat (only src/$* may)"
  done < <(grep -rlE "#include <($pat)" "$src/src" "$src/include" 2>/dev/null || true)
}
codec_only 'jpeglib\.h|jpegint\.h|jerror\.h' jpeg.c jpeg_huff.c jpeg_planes.c
codec_only 'spng\.h' png.c
codec_only 'webp/' webp.c

# 4. feed-worker links the stages, the ring and the worker loop only
w=$build/bin/feed-worker
syms=$(nm "$w")
for pat in ' feed_loader_' ' feed__pool_' ' feed__device' ' feed__readahead' ' feed__prefetch' \
           ' feed__sampler' ' feed__options' ' feed_options_' ' cuda' ' tj[A-Z0-9]' \
           ' feed__fault_maybe' ' feed__alloc_fail_after' ' feed__reader_test_syscalls'; do
  if grep -qE "$pat" <<<"$syms"; then
    bad "feed-worker has symbols matching '$pat': $(grep -E "$pat" <<<"$syms" | head -3 | tr '\n' ' ')"
  fi
done
# (outputs are captured first: grep -q closing a pipe early fails the pipeline under pipefail)
needs=$(ldd "$w")
if grep -qiE 'cudart|libcuda|turbojpeg' <<<"$needs"; then
  bad "feed-worker needs: $(grep -iE 'cudart|libcuda|turbojpeg' <<<"$needs" | tr '\n' ' ')"
fi
for lib in libjpeg libspng libwebp; do
  grep -q "$lib\.so" <<<"$needs" || bad "feed-worker does not link $lib (it decodes with it)"
done

# 5. no test hook in what ships
for lib in "$build/lib/libfeed.so" "$build/lib/libfeed.a"; do
  [ -e "$lib" ] || { bad "$lib is missing"; continue; }
  libsyms=$(nm "$lib" 2>/dev/null)
  if grep -qE 'feed__fault_maybe|feed__alloc_fail_after|feed__reader_test_syscalls|feed__loader_worker_pid|feed__loader_pool|feed__loader_xform' <<<"$libsyms"; then
    bad "$lib carries test hooks"
  fi
done
exported=$(nm -D --defined-only "$build/lib/libfeed.so")
if grep -qi test <<<"$exported"; then
  bad "libfeed.so exports test symbols: $(grep -i test <<<"$exported" | head -3)"
fi
dyn=$(readelf -d "$build/lib/libfeed.so")
if grep -qiE 'NEEDED.*(turbojpeg|libjpeg|libspng|libwebp)' <<<"$dyn"; then
  bad "libfeed.so needs a codec (only feed-worker decodes): $(grep -iE 'NEEDED.*(jpeg|spng|webp)' <<<"$dyn" | tr '\n' ' ')"
fi
for lib in "$build/lib/libfeed.so" "$build/lib/libfeed.a"; do
  [ -e "$lib" ] || continue
  if grep -qE 'feed__(jpeg|png|webp)_decode|feed__image_process|feed__worker_run' <<<"$(nm "$lib" 2>/dev/null)"; then
    bad "$lib carries the decoders or the worker loop (feed-worker's alone)"
  fi
done
# the shipped worker is not the test one
wstr=$(strings "$w")
if grep -q FEED_TEST_FAULT <<<"$wstr"; then
  bad "feed-worker reads FEED_TEST_FAULT (a test hook)"
fi

[ $fail = 0 ] && echo "layers: ok (${#stages[@]} stage sources, ${#workers[@]} worker sources)"
exit $fail

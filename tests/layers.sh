#!/usr/bin/env bash
# layers.sh SRC_DIR BUILD_DIR
#
# The layers of src/README.md, checked on what the build links (the includes
# are tests/includes.py's, ctest includes):
#   - feed-worker links no loader, no pool, no device backend, no CUDA runtime,
#     no TurboJPEG;
#   - feed-worker, which runs the decoders, links libjpeg (third_party's,
#     statically, or the system's with FEED_SYSTEM_LIBJPEG=ON), libspng and
#     libwebp;
#   - the shipped libfeed.so / libfeed.a carry no test hook, no decoder and
#     no worker loop, and libfeed.so needs no codec library;
#   - libcurl (and so OpenSSL) is feed-fetch's alone: libfeed.so and
#     feed-worker need neither.
set -euo pipefail
build=$2
fail=0
bad() { echo "layers: $*"; fail=1; }

# 1. feed-worker links the stages, the ring and the worker loop only
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
  [ $lib = libjpeg ] && grep -qE ' T jpeg_read_header$' <<<"$syms" && continue # linked in
  grep -q "$lib\.so" <<<"$needs" || bad "feed-worker does not link $lib (it decodes with it)"
done
# the default build: third_party's libjpeg-turbo inside feed-worker, no shared one
if grep -q '^FEED_SYSTEM_LIBJPEG:BOOL=OFF' "$build/CMakeCache.txt"; then
  grep -qE ' T jpeg_read_header$' <<<"$syms" || bad "feed-worker does not carry third_party's libjpeg-turbo"
  if grep -q 'libjpeg\.so' <<<"$needs"; then
    bad "feed-worker loads a shared libjpeg though third_party's is linked in"
  fi
fi

# 2. no test hook in what ships
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
for lib in "$build/lib/libfeed.so" "$build/lib/libfeed.a"; do
  [ -e "$lib" ] || continue
  if grep -qE ' [TDR] (jpeg_|tj[A-Z0-9])' <<<"$(nm "$lib" 2>/dev/null)"; then
    bad "$lib has libjpeg linked in (only feed-worker decodes)"
  fi
done
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
# 3. sockets and TLS: feed-fetch only (src/remote/fetch_*.c)
for bin in "$build/lib/libfeed.so" "$w"; do
  d=$(readelf -d "$bin")
  if grep -qiE 'NEEDED.*(libcurl|libssl|libcrypto)' <<<"$d"; then
    bad "$bin needs libcurl or OpenSSL (only feed-fetch downloads)"
  fi
done
if [ -e "$build/bin/feed-fetch" ]; then
  grep -q 'NEEDED.*libcurl' <<<"$(readelf -d "$build/bin/feed-fetch")" || bad "feed-fetch does not link libcurl"
fi
# the shipped worker is not the test one
wstr=$(strings "$w")
if grep -q FEED_TEST_FAULT <<<"$wstr"; then
  bad "feed-worker reads FEED_TEST_FAULT (a test hook)"
fi

[ $fail = 0 ] && echo "layers: ok"
exit $fail

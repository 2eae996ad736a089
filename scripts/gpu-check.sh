#!/usr/bin/env bash
# gpu-check.sh - the checks that need a real NVIDIA GPU, in one go (~5-8 min
# on a 16-core H200 box). Run from anywhere, as root on a fresh machine (it
# installs missing build dependencies with apt-get):
#
#   OUT=/some/dir scripts/gpu-check.sh
#
#  1. installs missing deps (apt-get), builds with CUDA in build-gpu/
#     (-DFEED_CUDA=ON, Release);
#  2. runs the CUDA tests for real: test_convert, test_device_cuda (fake
#     runtime), test_cuda_real (the backend on the GPU: every dtype/layout
#     bitwise against the CPU conversion, bounce path, stop/restart, sync
#     mode; it must not skip here), test_cuda_count, cuda_static_runtime;
#     then the rest of the suite (reported, not fatal to the benchmarks);
#  3. compute-sanitizer (memcheck, synccheck) on test_cuda_real, if installed;
#  4. makes a synthetic dataset and runs feedbench --device cuda (images/s,
#     GPU busy fraction) and h2dbench (plain pinned H2D vs the backend);
#  5. writes every log and JSON to $OUT (default ./gpu-check-out) and a
#     summary to $OUT/summary.txt. Exit status: 0 if every check passed.
#
# It writes more than a dozen files. Where only a few files come back from
# the GPU machine (the project's device tool returns 8), run it as:
#   OUT=/tmp/gc scripts/gpu-check.sh; rc=$?; cp /tmp/gc/summary.txt "$DEST"/;
#   tar -czf "$DEST"/gpu-check.tgz -C /tmp/gc .; exit $rc
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$ROOT/gpu-check-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=$ROOT/build-gpu
DATA=${FEED_GPU_CHECK_DATA:-/tmp/feed-gpu-check-data}
NPROC=$(nproc 2>/dev/null || echo 4)
START=$(date +%s)
FAILED=()

exec > >(tee -a "$OUT/gpu-check.log") 2>&1

say() { printf '\n=== [%4ds] %s\n' "$(($(date +%s) - START))" "$*"; }
die() { printf 'gpu-check: FATAL: %s\n' "$*"; exit 1; }
fail() { printf 'gpu-check: FAILED: %s\n' "$*"; FAILED+=("$1"); }
# run NAME SECONDS CMD...: runs CMD with a time limit, logs to $OUT/NAME.log,
# records a failure (does not stop the script).
run() {
  local name=$1 secs=$2
  shift 2
  printf -- '--- %s: %s\n' "$name" "$*"
  local rc=0
  timeout --kill-after=10 "$secs" "$@" >"$OUT/$name.log" 2>&1 || rc=$?
  tail -n 25 "$OUT/$name.log"
  if [ "$rc" -ne 0 ]; then
    if [ "$rc" -eq 124 ]; then fail "$name" "timed out after ${secs}s"; else fail "$name" "exit $rc"; fi
    return 1
  fi
  return 0
}
# jget FILE KEY: a top-level value of a JSON file ("" if missing).
jget() {
  if command -v python3 >/dev/null; then
    python3 -c 'import json,sys
try:
    v = json.load(open(sys.argv[1])).get(sys.argv[2], "")
except Exception:
    v = ""
print(v)' "$1" "$2"
  else
    sed -n "s/^ *\"$2\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1" | head -n 1
  fi
}

say "machine"
uname -a
echo "cores: $NPROC   out: $OUT"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi | tee "$OUT/nvidia-smi.txt"
  nvidia-smi -q >"$OUT/nvidia-smi-q.txt" 2>&1 || true
else
  echo "nvidia-smi: not found"
fi
ulimit -l || true

say "build dependencies"
NVCC=""
for c in "${CUDACXX:-}" "$(command -v nvcc || true)" /usr/local/cuda/bin/nvcc; do
  if [ -n "$c" ] && [ -x "$c" ]; then NVCC=$c; break; fi
done
[ -n "$NVCC" ] || die "no nvcc (CUDA toolkit) found: install it or set CUDACXX"
"$NVCC" --version | tail -n 2
missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v pkg-config >/dev/null || missing+=(pkg-config)
if command -v pkg-config >/dev/null; then
  pkg-config --exists libturbojpeg || missing+=(libturbojpeg0-dev)
  pkg-config --exists libjpeg || missing+=(libjpeg62-turbo-dev)
  pkg-config --exists liburing || missing+=(liburing-dev)
  pkg-config --exists cmocka || missing+=(libcmocka-dev)
else
  missing+=(libturbojpeg0-dev libjpeg62-turbo-dev liburing-dev libcmocka-dev)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "missing: ${missing[*]}"
  command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
  [ "$(id -u)" -eq 0 ] || die "missing ${missing[*]}: run as root to install them"
  export DEBIAN_FRONTEND=noninteractive
  timeout 300 apt-get update -qq || die "apt-get update failed"
  if ! timeout 300 apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    # Ubuntu names libjpeg-turbo's dev package differently.
    alt=("${missing[@]/libjpeg62-turbo-dev/libjpeg-turbo8-dev}")
    timeout 300 apt-get install -y -qq --no-install-recommends "${alt[@]}" ||
      die "apt-get install ${missing[*]} failed"
  fi
fi
cmake --version | head -n 1

say "configure and build ($BUILD)"
cmake -S "$ROOT" -B "$BUILD" -DFEED_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$NVCC" >"$OUT/configure.log" 2>&1 ||
  { tail -n 40 "$OUT/configure.log"; die "cmake configure failed (see configure.log)"; }
grep -E "libfeed:" "$OUT/configure.log" || true
grep -q "CUDA backend ON" "$OUT/configure.log" || die "CUDA backend not enabled"
cmake --build "$BUILD" -j "$NPROC" >"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -n 40; die "build failed (see build.log)"; }
grep -E "warning" "$OUT/build.log" | sort -u | head -n 20 || true
echo "built: $(ls "$BUILD/bin" | tr '\n' ' ')"

say "CUDA tests"
cd "$BUILD"
CTEST_J=$((NPROC > 8 ? 8 : NPROC))
run ctest-cuda 600 ctest --output-on-failure -L cuda --timeout 300 \
  --output-junit "$OUT/ctest-cuda.xml" || true
run test-convert 120 ctest --output-on-failure -R '^test_convert$' || true
# test_cuda_real skips (77) without a usable GPU: that is a failure here.
run test-cuda-real 300 "$BUILD/tests/test_cuda_real" || true
if grep -q "skipped" "$OUT/test-cuda-real.log"; then
  fail test-cuda-real-skipped "test_cuda_real found no GPU"
fi
grep -E "feed__device_cuda_count|GPU visible" "$OUT/ctest-cuda.log" || true

say "the rest of the suite"
# (not the install and mkdata tests: slow, and nothing GPU-specific in them)
run ctest-all 300 ctest -j "$CTEST_J" --timeout 240 -LE cuda -E 'install_consumer|test_mkdata' \
  --output-junit "$OUT/ctest-all.xml" || true

say "compute-sanitizer"
CS=""
for c in "$(command -v compute-sanitizer || true)" "$(dirname "$NVCC")/compute-sanitizer" \
  /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  if [ -n "$c" ] && [ -x "$c" ]; then CS=$c; break; fi
done
if [ -n "$CS" ]; then
  run sanitizer-memcheck 300 "$CS" --tool memcheck --error-exitcode 99 --leak-check full \
    "$BUILD/tests/test_cuda_real" || true
  run sanitizer-synccheck 300 "$CS" --tool synccheck --error-exitcode 99 \
    "$BUILD/tests/test_cuda_real" || true
else
  echo "compute-sanitizer: not found, skipped"
fi

say "dataset"
if [ ! -f "$DATA/files.txt" ]; then
  run mkdata 300 "$BUILD/bin/feed-mkdata" --out "$DATA" --count 4096 --seed 1 --classes 10 ||
    die "feed-mkdata failed"
fi
echo "$DATA: $(wc -l <"$DATA/files.txt") images, $(du -sh "$DATA" | cut -f1)"

say "feedbench --device cuda"
WORKERS=$((NPROC > 2 ? NPROC - 2 : 1))
FB=("$BUILD/bin/feedbench" --data "$DATA" --batch 256 --workers "$WORKERS" --augment train
  --device cuda --no-progress)
# As fast as the pipeline goes (no model step): images/s.
run feedbench-cuda-f32-nostep 240 "${FB[@]}" --dtype float32 --batches 60 --step-ms 0 \
  --json "$OUT/feedbench-cuda-f32-nostep.json" || true
# A model step 1.2x the pipeline's batch time: the GPU should never wait.
run feedbench-cuda-f32-auto 240 "${FB[@]}" --dtype float32 --batches 60 --step-ms auto \
  --json "$OUT/feedbench-cuda-f32-auto.json" --trace "$OUT/feedbench-cuda-f32-auto.trace.json" || true
run feedbench-cuda-u8-nostep 240 "${FB[@]}" --dtype uint8 --batches 60 --step-ms 0 \
  --json "$OUT/feedbench-cuda-u8-nostep.json" || true

say "h2dbench"
H2D=("$BUILD/bin/h2dbench" --batch 256 --height 224 --width 224 --batches 200)
run h2dbench-f32 120 "${H2D[@]}" --dtype float32 --layout chw --json "$OUT/h2dbench-f32.json" || true
run h2dbench-u8 120 "${H2D[@]}" --dtype uint8 --layout hwc --json "$OUT/h2dbench-u8.json" || true
run h2dbench-bounce 120 "${H2D[@]}" --dtype float32 --layout chw --bounce \
  --json "$OUT/h2dbench-bounce.json" || true

say "summary"
{
  echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  printf '%-28s %12s %10s %10s %12s\n' "feedbench (batch 256)" "images/s" "busy" "pinned" "H2D GB/s"
  for f in feedbench-cuda-f32-nostep feedbench-cuda-f32-auto feedbench-cuda-u8-nostep; do
    j=$OUT/$f.json
    if [ -f "$j" ]; then
      ips=$(jget "$j" images_per_sec)
      # what crosses the link: uint8 224x224x3 per image
      gbs=$(awk -v i="${ips:-0}" 'BEGIN { printf "%.2f", i * 224 * 224 * 3 / 1e9 }')
      printf '%-28s %12s %10s %10s %12s\n' "$f" "$ips" "$(jget "$j" busy_fraction)" \
        "$(jget "$j" pinned)" "$gbs"
    else
      printf '%-28s %12s\n' "$f" "(no result)"
    fi
  done
  printf '%-28s %10s %10s %10s %8s\n' "h2dbench" "plain" "backend" "copies" "ratio"
  for f in h2dbench-f32 h2dbench-u8 h2dbench-bounce; do
    j=$OUT/$f.json
    if [ -f "$j" ]; then
      printf '%-28s %10s %10s %10s %8s  (GB/s; pinned %s; target ratio >= 0.8)\n' "$f" \
        "$(jget "$j" plain_gbps)" "$(jget "$j" backend_gbps)" "$(jget "$j" backend_copy_gbps)" \
        "$(jget "$j" ratio)" "$(jget "$j" pinned)"
    else
      printf '%-28s %10s\n' "$f" "(no result)"
    fi
  done
  if [ "${#FAILED[@]}" -eq 0 ]; then
    echo "result: all checks passed"
  else
    echo "result: FAILED: ${FAILED[*]}"
  fi
  echo "elapsed: $(($(date +%s) - START)) s"
} | tee "$OUT/summary.txt"

[ "${#FAILED[@]}" -eq 0 ]

#!/usr/bin/env bash
# gpu-check.sh - the checks that need a real NVIDIA GPU, in one go, sized for
# a short lease (default budget 480 s of work, most important first; ~5 min
# on a 16-core H200 box). Run from anywhere, as root or not:
#
#   scripts/gpu-check.sh [--pack DIR] [--budget SECONDS]
#
#  0. dependencies: the machine's own (pkg-config finds libturbojpeg, libjpeg,
#     liburing, cmocka), else .gpudeps/ (made beforehand, on a machine with
#     apt and network, by scripts/gpu-deps.sh, and carried along), else
#     apt-get (needs network);
#  1. builds with CUDA in build-gpu/ (-DFEED_CUDA=ON, Release);
#  2. the CUDA tests for real, which must not skip here: test_cuda_real (the
#     backend: every dtype/layout bitwise against the CPU conversion, bounce
#     path, stop/restart, sync mode) and test_loader_cuda_real (the whole
#     loader: worker processes -> ring -> GPU, read back on a consumer stream;
#     RandomErasing and MixUp/CutMix in the conversion kernel, bitwise the host's);
#  3. feedbench --device cuda (images/s, GPU busy fraction with a model step
#     1.2x the pipeline's, the sync loop for comparison) and h2dbench (plain
#     pinned cudaMemcpyAsync vs the backend, raw tensors, no decode);
#  4. the Python tests with the GPU build (torch, CuPy, JAX in one process; the
#     torchrun tests of test_distributed.py, two nodes' cuda:local included),
#     examples/train_torch_ddp.py under torchrun (bfloat16 batches on the GPU),
#     and examples/mpi_shards.c under mpirun (cuda:local per rank) if Open MPI is here;
#  5. compute-sanitizer (memcheck, synccheck) on test_cuda_real, if installed;
#  6. the fake-runtime CUDA tests and the rest of the suite, as time allows.
# Every log and JSON goes to $OUT (default ./gpu-check-out), the table to
# $OUT/summary.txt. Exit status 0 if every check passed.
#
# --pack DIR: for the project's device tool, which returns at most 8 files:
# works in a temporary folder and leaves in DIR only summary.txt,
# gpu-check.log and gpu-check.tgz (everything). The one call to make there:
#   scripts/gpu-check.sh --pack "$OUT"        (carry: .gpudeps)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PACK=""
BUDGET=${GPU_CHECK_BUDGET:-480}
while [ $# -gt 0 ]; do
  case "$1" in
    --pack) PACK=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -n "$PACK" ]; then
  mkdir -p "$PACK"
  PACK=$(cd "$PACK" && pwd)
  OUT=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
else
  OUT=${OUT:-$ROOT/gpu-check-out}
  mkdir -p "$OUT"
  OUT=$(cd "$OUT" && pwd)
fi
BUILD=${GPU_CHECK_BUILD:-$ROOT/build-gpu}
DATA=${FEED_GPU_CHECK_DATA:-/tmp/feed-gpu-check-data}
NPROC=$(nproc 2>/dev/null || echo 4)
START=$(date +%s)
FAILED=()
SKIPPED=()

exec > >(tee -a "$OUT/gpu-check.log") 2>&1

# --pack: whatever happens, leave the summary, the log and the archive.
pack() {
  local rc=$?
  if [ -n "$PACK" ]; then
    [ -f "$OUT/summary.txt" ] && cp "$OUT/summary.txt" "$PACK/"
    tar -czf "$PACK/gpu-check.tgz" -C "$OUT" . 2>/dev/null || true
    cp "$OUT/gpu-check.log" "$PACK/" 2>/dev/null || true
  fi
  return $rc
}
trap pack EXIT

elapsed() { echo $(($(date +%s) - START)); }
left() { echo $((BUDGET - $(elapsed))); }
say() { printf '\n=== [%4ds] %s\n' "$(elapsed)" "$*"; }
die() { printf 'gpu-check: FATAL: %s\n' "$*"; exit 1; }
fail() { printf 'gpu-check: FAILED: %s\n' "$*"; FAILED+=("$1"); }
# run NAME SECONDS CMD...: runs CMD with a time limit (cut to what is left of
# the budget; skipped when under 15 s is left), logs to $OUT/NAME.log, records
# a failure (does not stop the script).
run() {
  local name=$1 secs=$2
  shift 2
  local l
  l=$(left)
  if [ "$l" -lt 15 ]; then
    printf -- '--- %s: skipped, the %ss budget is spent\n' "$name" "$BUDGET"
    SKIPPED+=("$name")
    return 1
  fi
  [ "$secs" -le "$((l - 5))" ] || secs=$((l - 5))
  printf -- '--- %s (limit %ss): %s\n' "$name" "$secs" "$*"
  local rc=0
  timeout --kill-after=10 "$secs" "$@" >"$OUT/$name.log" 2>&1 || rc=$?
  tail -n 25 "$OUT/$name.log"
  if [ "$rc" -ne 0 ]; then
    if [ "$rc" -eq 124 ]; then fail "$name" "timed out after ${secs}s"; else fail "$name" "exit $rc"; fi
    return 1
  fi
  return 0
}
# must_not_skip NAME: a test that exits 77 (skip) on a GPU machine failed.
must_not_skip() {
  if grep -q "skipped" "$OUT/$1.log" 2>/dev/null && ! grep -q "PASSED" "$OUT/$1.log"; then
    fail "$1-skipped" "$1 found no GPU"
  fi
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
echo "cores: $NPROC   out: $OUT   budget: ${BUDGET}s"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi | tee "$OUT/nvidia-smi.txt"
  nvidia-smi -q >"$OUT/nvidia-smi-q.txt" 2>&1 || true
else
  echo "nvidia-smi: not found"
fi
ulimit -l || true
ldd --version 2>&1 | head -n 1 || true

say "build dependencies"
NVCC=""
for c in "${CUDACXX:-}" "$(command -v nvcc || true)" /usr/local/cuda/bin/nvcc; do
  if [ -n "$c" ] && [ -x "$c" ]; then NVCC=$c; break; fi
done
[ -n "$NVCC" ] || die "no nvcc (CUDA toolkit) found: install it or set CUDACXX"
"$NVCC" --version | tail -n 2
command -v cmake >/dev/null || die "no cmake"
cmake --version | head -n 1
GD=$ROOT/.gpudeps/root/usr
GDLIB=$GD/lib/x86_64-linux-gnu
CMAKE_EXTRA=()
have_pkg_config() { pkg-config --version >/dev/null 2>&1; }
have_system_deps() { have_pkg_config && pkg-config --exists libturbojpeg libjpeg liburing cmocka spng libwebp libwebpmux; }
if have_system_deps; then
  echo "dependencies: the system's"
elif [ -d "$GDLIB/pkgconfig" ]; then
  echo "dependencies: $ROOT/.gpudeps ($(tr '\n' ' ' <"$ROOT/.gpudeps/packages.txt"))"
  echo "  they need $(cat "$ROOT/.gpudeps/glibc.txt" 2>/dev/null || echo '?'); this machine has $(ldd --version 2>&1 | head -n 1)"
  export PKG_CONFIG_PATH="$GDLIB/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$GDLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if ! have_pkg_config; then
    CMAKE_EXTRA+=(-DPKG_CONFIG_EXECUTABLE="$GD/bin/pkgconf")
    export PATH="$GD/bin:$PATH"
  fi
  pkg-config --exists libturbojpeg libjpeg liburing cmocka spng libwebp libwebpmux ||
    die "pkg-config does not find the .gpudeps libraries (libspng, libwebp: run scripts/gpu-deps.sh again)"
else
  missing=(pkg-config nasm libturbojpeg0-dev libjpeg62-turbo-dev liburing-dev libcmocka-dev libspng-dev libwebp-dev)
  echo "dependencies: missing, and no .gpudeps (run scripts/gpu-deps.sh where apt works and carry .gpudeps)"
  command -v apt-get >/dev/null || die "no apt-get to install ${missing[*]}"
  [ "$(id -u)" -eq 0 ] || die "missing ${missing[*]}: run as root to install them"
  export DEBIAN_FRONTEND=noninteractive
  timeout 120 apt-get update -qq || die "apt-get update failed (no network?): carry .gpudeps instead"
  if ! timeout 300 apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    alt=("${missing[@]/libjpeg62-turbo-dev/libjpeg-turbo8-dev}")
    timeout 300 apt-get install -y -qq --no-install-recommends "${alt[@]}" ||
      die "apt-get install ${missing[*]} failed"
  fi
fi
# nasm for third_party/libjpeg-turbo's SIMD code: the machine's, else .gpudeps'.
if ! command -v nasm >/dev/null && [ -x "$GD/bin/nasm" ]; then
  CMAKE_EXTRA+=(-DFEED_NASM="$GD/bin/nasm")
fi
command -v nasm >/dev/null || [ -x "$GD/bin/nasm" ] ||
  echo "warning: no nasm: third_party/libjpeg-turbo is built without SIMD (decodes slower)"
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)

say "configure and build ($BUILD)"
if [ -f "$BUILD/CMakeCache.txt" ] && ! grep -q "^CMAKE_GENERATOR:INTERNAL=${GEN[1]:-Unix Makefiles}\$" "$BUILD/CMakeCache.txt"; then
  rm -rf "$BUILD" # made with another generator
fi
cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DFEED_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$NVCC" "${CMAKE_EXTRA[@]}" >"$OUT/configure.log" 2>&1 ||
  { tail -n 40 "$OUT/configure.log"; die "cmake configure failed (see configure.log)"; }
grep -E "libfeed:" "$OUT/configure.log" || true
grep -q "CUDA backend ON" "$OUT/configure.log" || die "CUDA backend not enabled"
cmake --build "$BUILD" -j "$NPROC" >"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -n 40; die "build failed (see build.log)"; }
grep -E "warning" "$OUT/build.log" | sort -u | head -n 20 || true
echo "built: $(ls "$BUILD/bin" | tr '\n' ' ')"
export FEED_WORKER=$BUILD/bin/feed-worker FEED_BIN=$BUILD/bin FEED_TEST_TMP=$BUILD/testtmp
mkdir -p "$FEED_TEST_TMP"

say "CUDA tests on the GPU"
# Both exit 77 (skip) without a usable GPU: that is a failure here.
run test-cuda-real 180 "$BUILD/tests/test_cuda_real" || true
must_not_skip test-cuda-real
run test-loader-cuda-real 180 "$BUILD/tests/test_loader_cuda_real" || true
must_not_skip test-loader-cuda-real
grep -h "pinned=" "$OUT/test-loader-cuda-real.log" 2>/dev/null | sort | uniq -c || true

say "dataset"
if [ ! -f "$DATA/files.txt" ]; then
  run mkdata 120 "$BUILD/bin/feed-mkdata" --out "$DATA" --count 4096 --seed 1 --classes 10 ||
    die "feed-mkdata failed"
fi
echo "$DATA: $(wc -l <"$DATA/files.txt") images, $(du -sh "$DATA" | cut -f1)"

say "feedbench --device cuda"
WORKERS=$((NPROC > 2 ? NPROC - 2 : 1))
FB=("$BUILD/bin/feedbench" --data "$DATA" --batch 256 --workers "$WORKERS" --augment train
  --device cuda --no-progress)
# As fast as the pipeline goes (no model step): images/s.
run feedbench-cuda-f32-nostep 90 "${FB[@]}" --dtype float32 --batches 60 --step-ms 0 \
  --json "$OUT/feedbench-cuda-f32-nostep.json" || true
# A model step 1.2x the pipeline's batch time: the GPU should never wait.
run feedbench-cuda-f32-auto 120 "${FB[@]}" --dtype float32 --batches 60 --step-ms auto \
  --json "$OUT/feedbench-cuda-f32-auto.json" --trace "$OUT/feedbench-cuda-f32-auto.trace.json" || true
run feedbench-cuda-u8-nostep 90 "${FB[@]}" --dtype uint8 --batches 60 --step-ms 0 \
  --json "$OUT/feedbench-cuda-u8-nostep.json" || true

say "h2dbench"
H2D=("$BUILD/bin/h2dbench" --batch 256 --height 224 --width 224 --batches 200)
run h2dbench-f32 60 "${H2D[@]}" --dtype float32 --layout chw --json "$OUT/h2dbench-f32.json" || true
run h2dbench-u8 60 "${H2D[@]}" --dtype uint8 --layout hwc --json "$OUT/h2dbench-u8.json" || true
run h2dbench-bounce 60 "${H2D[@]}" --dtype float32 --layout chw --bounce \
  --json "$OUT/h2dbench-bounce.json" || true

say "feedbench: the sync loop on the GPU, for comparison"
# Same step as the auto run above, so the busy fractions compare.
STEP=$(jget "$OUT/feedbench-cuda-f32-auto.json" step_ms)
if [ -n "$STEP" ]; then
  run feedbench-cuda-f32-sync 90 "$BUILD/bin/feedbench" --data "$DATA" --batch 256 --loader sync \
    --augment train --device cuda --no-progress --dtype float32 --batches 8 --step-ms "$STEP" \
    --json "$OUT/feedbench-cuda-f32-sync.json" || true
fi

say "Python with the GPU build"
if command -v python3 >/dev/null && python3 -c "import numpy, pytest" 2>/dev/null; then
  LIBFEED_BUILD_DIR=$BUILD LIBFEED_LIBRARY=$BUILD/lib/libfeed.so PYTHONPATH=$ROOT/python \
    run python-gpu 150 python3 -m pytest -v -p no:cacheprovider -rs \
    "$ROOT/python/tests/test_gpu.py" "$ROOT/python/tests/test_torch.py" \
    "$ROOT/python/tests/test_dlpack.py" "$ROOT/python/tests/test_errors.py" \
    "$ROOT/python/tests/test_distributed.py" || true
  grep -E "SKIPPED|passed|failed" "$OUT/python-gpu.log" | tail -n 8 || true
  if grep -q "test_gpu.py.*SKIPPED\|SKIPPED.*test_gpu.py" "$OUT/python-gpu.log"; then
    grep -q "test_gpu.py::test_device_batches_equal_the_host_conversion.*PASSED" "$OUT/python-gpu.log" ||
      fail python-gpu-skipped "test_gpu.py did not run on the GPU"
  fi
else
  echo "python3 with numpy and pytest: not found, skipped"
  SKIPPED+=(python-gpu)
fi

say "examples/train_torch_ddp.py under torchrun on the GPU"
if command -v python3 >/dev/null && python3 -c "import torch.distributed" 2>/dev/null; then
  LIBFEED_LIBRARY=$BUILD/lib/libfeed.so run ddp-example 120 python3 -m torch.distributed.run \
    --standalone --nproc_per_node 1 "$ROOT/examples/train_torch_ddp.py" "$DATA" --epochs 2 \
    --batch 256 --workers "$WORKERS" --max-steps 12 || true
  grep -E "^epoch" "$OUT/ddp-example.log" || true
else
  SKIPPED+=(ddp-example)
fi

say "MPI ranks on the GPU: examples/mpi_shards.c under mpirun (cuda:local on each rank)"
# The ctest's script: -np 2, -np 4 and two simulated nodes of 2; with one GPU
# visible every rank's cuda:local is cuda:0, with several the local rank's.
if command -v mpirun >/dev/null && [ -x "$BUILD/bin/mpi_shards" ]; then
  FEED_WORKER=$BUILD/bin/feed-worker run mpi-shards 120 "$ROOT/tests/mpi_shards.sh" "$BUILD/bin" \
    "$OUT/mpi-tmp" || true
  grep -E "cuda:local ->|^mpi_shards: (ok|FAILED)" "$OUT/mpi-shards.log" | head -n 12 || true
else
  echo "mpirun or $BUILD/bin/mpi_shards: not here (Open MPI not installed), skipped"
  SKIPPED+=(mpi-shards)
fi

say "compute-sanitizer"
CS=""
for c in "$(command -v compute-sanitizer || true)" "$(dirname "$NVCC")/compute-sanitizer" \
  /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  if [ -n "$c" ] && [ -x "$c" ]; then CS=$c; break; fi
done
if [ -n "$CS" ]; then
  run sanitizer-memcheck 150 "$CS" --tool memcheck --error-exitcode 99 --leak-check full \
    "$BUILD/tests/test_cuda_real" || true
  run sanitizer-synccheck 100 "$CS" --tool synccheck --error-exitcode 99 \
    "$BUILD/tests/test_cuda_real" || true
else
  echo "compute-sanitizer: not found, skipped"
  SKIPPED+=(compute-sanitizer)
fi

say "the rest of the suite"
cd "$BUILD"
CTEST_J=$((NPROC > 8 ? 8 : NPROC))
# (not the install and mkdata tests: slow, and nothing GPU-specific in them)
run ctest-all 240 ctest -j "$CTEST_J" --timeout 200 -E 'install_consumer|test_mkdata' \
  --output-junit "$OUT/ctest-all.xml" || true

say "summary"
{
  echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  for t in test-cuda-real test-loader-cuda-real python-gpu ddp-example mpi-shards sanitizer-memcheck sanitizer-synccheck ctest-all; do
    f=$OUT/$t.log
    if [ -f "$f" ]; then
      printf '%-28s %s\n' "$t" "$(grep -E "PASSED|FAILED|passed|failed|tests passed|ERROR SUMMARY|^epoch" "$f" | tail -n 2 | tr '\n' ' ')"
    fi
  done
  printf '%-28s %12s %10s %10s %12s %8s\n' "feedbench (batch 256)" "images/s" "busy" "pinned" "H2D GB/s" "step ms"
  for f in feedbench-cuda-f32-nostep feedbench-cuda-f32-auto feedbench-cuda-f32-sync feedbench-cuda-u8-nostep; do
    j=$OUT/$f.json
    if [ -f "$j" ]; then
      ips=$(jget "$j" images_per_sec)
      # what crosses the link: uint8 224x224x3 per image
      gbs=$(awk -v i="${ips:-0}" 'BEGIN { printf "%.2f", i * 224 * 224 * 3 / 1e9 }')
      printf '%-28s %12s %10s %10s %12s %8s\n' "$f" "$ips" "$(jget "$j" busy_fraction)" \
        "$(jget "$j" pinned)" "$gbs" "$(jget "$j" step_ms)"
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
  [ "${#SKIPPED[@]}" -eq 0 ] || echo "skipped: ${SKIPPED[*]}"
  if [ "${#FAILED[@]}" -eq 0 ]; then
    echo "result: all checks passed"
  else
    echo "result: FAILED: ${FAILED[*]}"
  fi
  echo "elapsed: $(elapsed) s (budget ${BUDGET} s)"
} | tee "$OUT/summary.txt"

[ "${#FAILED[@]}" -eq 0 ]

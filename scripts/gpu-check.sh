#!/usr/bin/env bash
# gpu-check.sh - the checks that need a real NVIDIA GPU, in one short offline
# run (default budget 480 s of work, most important first), sized for a lease
# of a few minutes. Run from anywhere, as root or not:
#
#   scripts/gpu-check.sh [--pack DIR] [--budget SECONDS] [--dry-run]
#
#  0. dependencies: the machine's own (pkg-config finds libturbojpeg, libjpeg,
#     liburing, cmocka, spng, libwebp), else .gpudeps/ (made beforehand, on a
#     machine with apt and network, by scripts/gpu-deps.sh, and carried
#     along). Nothing is installed here: anything missing stops the run at
#     once, saying what (no apt-get: the GPU machine has no network);
#  1. configure, and build only what the GPU steps run (the rest at the end);
#  2. the CUDA tests for real, which must not skip here: test_cuda_real (the
#     backend: every dtype/layout bitwise against the CPU conversion, bounce
#     path, stop/restart, sync mode) and test_loader_cuda_real (the whole
#     loader: worker processes -> ring -> GPU, read back on a consumer stream;
#     RandomErasing and MixUp/CutMix in the conversion kernel, bitwise the host's);
#  3. compute-sanitizer memcheck, racecheck and synccheck on test_cuda_real,
#     right after (if installed);
#  4. the Python tests with the GPU build (torch, CuPy, JAX in one process; the
#     torchrun tests of test_distributed.py) and examples/train_torch_ddp.py
#     under torchrun;
#  5. feedbench --device cuda and h2dbench (registered and bounce, each
#     labelled by what it ran: the "pinned" of its stats), examples/mpi_shards.c
#     under mpirun if Open MPI is here;
#  6. the rest of the build and the suite (the fake-runtime CUDA tests
#     included), as time allows.
# Each step has a time limit (the plan: --dry-run prints it); a step is cut
# to what is left of the budget and skipped under 15 s. Every log and JSON
# goes to $OUT (default ./gpu-check-out), the table to $OUT/summary.txt.
# Exit status 0 if every check passed.
#
# --dry-run: no GPU needed. Checks the dependencies, configures, and prints
# the plan (each step, its limit, its command) up to where the first CUDA call
# would be; builds and runs nothing.
#
# --pack DIR: for the project's device tool, which returns at most 8 files:
# the log is written straight into DIR/gpu-check.log as it goes (whole even if
# the run is killed), and DIR also gets summary.txt and gpu-check.tgz
# (everything) at the end, or when the run is stopped. The one call to make:
#   scripts/gpu-check.sh --pack "$OUT"        (carry: .gpudeps)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PACK=""
DRY=0
BUDGET=${GPU_CHECK_BUDGET:-480}
while [ $# -gt 0 ]; do
  case "$1" in
    --pack) PACK=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --dry-run) DRY=1; shift ;;
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
PLANNED=0

# The log goes where it is kept: with --pack, straight into DIR, so a run
# killed at the end of its lease still leaves all it printed.
LOG=$OUT/gpu-check.log
[ -z "$PACK" ] || LOG=$PACK/gpu-check.log
exec > >(tee -a "$LOG") 2>&1

# --pack: whatever happens (the end, an error, a TERM at the lease's end),
# leave the summary and the archive.
pack() {
  if [ -n "$PACK" ]; then
    [ -f "$OUT/summary.txt" ] && cp "$OUT/summary.txt" "$PACK/"
    cp "$LOG" "$OUT/" 2>/dev/null || true
    tar -czf "$PACK/gpu-check.tgz" -C "$OUT" . 2>/dev/null || true
  fi
}
on_exit() {
  local rc=$?
  pack
  return $rc
}
trap on_exit EXIT
trap 'echo "gpu-check: stopped (signal) after $(elapsed)s"; exit 143' TERM INT

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
  if [ "$DRY" -eq 1 ]; then
    PLANNED=$((PLANNED + secs))
    local mark=""
    [ "$PLANNED" -le "$BUDGET" ] || mark=" (past the budget if all before take their limit)"
    printf '  %-28s limit %4ss, by %5ss%s\n      %s\n' "$name" "$secs" "$PLANNED" "$mark" "$*"
    return 0
  fi
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
  want=(libturbojpeg libjpeg liburing cmocka spng libwebp libwebpmux)
  have_pkg_config || die "no pkg-config, and no .gpudeps: run scripts/gpu-deps.sh where apt works and carry .gpudeps"
  missing=()
  for m in "${want[@]}"; do pkg-config --exists "$m" || missing+=("$m"); done
  die "missing ${missing[*]}, and no .gpudeps: run scripts/gpu-deps.sh where apt works and carry .gpudeps (nothing is installed here)"
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
# What the GPU steps run, first; the rest of the build comes last, if time allows.
GPU_TARGETS=(feed feed-worker feed-worker-test test_cuda_real test_loader_cuda_real feedbench h2dbench feed-mkdata)
if [ "$DRY" -eq 1 ]; then
  say "the plan (dry run: nothing below is built or run; budget ${BUDGET}s)"
  run build-gpu-targets 240 cmake --build "$BUILD" -j "$NPROC" --target "${GPU_TARGETS[@]}"
else
  cmake --build "$BUILD" -j "$NPROC" --target "${GPU_TARGETS[@]}" >"$OUT/build.log" 2>&1 ||
    { grep -E "error|Error" "$OUT/build.log" | head -n 40; die "build failed (see build.log)"; }
  grep -E "warning" "$OUT/build.log" | sort -u | head -n 20 || true
  echo "built: $(ls "$BUILD/bin" | tr '\n' ' ')"
fi
export FEED_WORKER=$BUILD/bin/feed-worker FEED_BIN=$BUILD/bin FEED_TEST_TMP=$BUILD/testtmp
mkdir -p "$FEED_TEST_TMP"

say "CUDA tests on the GPU"
# Both exit 77 (skip) without a usable GPU: that is a failure here.
run test-cuda-real 120 "$BUILD/tests/test_cuda_real" || true
must_not_skip test-cuda-real
run test-loader-cuda-real 120 "$BUILD/tests/test_loader_cuda_real" || true
must_not_skip test-loader-cuda-real
grep -h "pinned=" "$OUT/test-loader-cuda-real.log" 2>/dev/null | sort | uniq -c || true

say "compute-sanitizer"
CS=""
for c in "$(command -v compute-sanitizer || true)" "$(dirname "$NVCC")/compute-sanitizer" \
  /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  if [ -n "$c" ] && [ -x "$c" ]; then CS=$c; break; fi
done
if [ -n "$CS" ]; then
  run sanitizer-memcheck 90 "$CS" --tool memcheck --error-exitcode 99 --leak-check full \
    "$BUILD/tests/test_cuda_real" || true
  run sanitizer-racecheck 60 "$CS" --tool racecheck --error-exitcode 99 \
    "$BUILD/tests/test_cuda_real" || true
  run sanitizer-synccheck 60 "$CS" --tool synccheck --error-exitcode 99 \
    "$BUILD/tests/test_cuda_real" || true
else
  echo "compute-sanitizer: not found, skipped"
  SKIPPED+=(compute-sanitizer)
fi

say "dataset"
if [ ! -f "$DATA/files.txt" ]; then
  run mkdata 60 "$BUILD/bin/feed-mkdata" --out "$DATA" --count 4096 --seed 1 --classes 10 ||
    die "feed-mkdata failed"
fi
[ ! -f "$DATA/files.txt" ] || echo "$DATA: $(wc -l <"$DATA/files.txt") images, $(du -sh "$DATA" | cut -f1)"

say "Python with the GPU build"
if command -v python3 >/dev/null && python3 -c "import numpy, pytest" 2>/dev/null; then
  LIBFEED_BUILD_DIR=$BUILD LIBFEED_LIBRARY=$BUILD/lib/libfeed.so PYTHONPATH=$ROOT/python \
    run python-gpu 150 python3 -m pytest -v -p no:cacheprovider -rs \
    "$ROOT/python/tests/test_gpu.py" "$ROOT/python/tests/test_torch.py" \
    "$ROOT/python/tests/test_dlpack.py" "$ROOT/python/tests/test_errors.py" \
    "$ROOT/python/tests/test_distributed.py" || true
  [ "$DRY" -eq 1 ] || grep -E "SKIPPED|passed|failed" "$OUT/python-gpu.log" | tail -n 8 || true
  if [ "$DRY" -eq 0 ] && grep -q "test_gpu.py.*SKIPPED\|SKIPPED.*test_gpu.py" "$OUT/python-gpu.log"; then
    grep -q "test_gpu.py::test_device_batches_equal_the_host_conversion.*PASSED" "$OUT/python-gpu.log" ||
      fail python-gpu-skipped "test_gpu.py did not run on the GPU"
  fi
else
  echo "python3 with numpy and pytest: not found, skipped"
  SKIPPED+=(python-gpu)
fi

say "examples/train_torch_ddp.py under torchrun on the GPU"
if command -v python3 >/dev/null && python3 -c "import torch.distributed" 2>/dev/null; then
  LIBFEED_LIBRARY=$BUILD/lib/libfeed.so run ddp-example 90 python3 -m torch.distributed.run \
    --standalone --nproc_per_node 1 "$ROOT/examples/train_torch_ddp.py" "$DATA" --epochs 2 \
    --batch 256 --workers "$WORKERS" --max-steps 12 || true
  grep -E "^epoch" "$OUT/ddp-example.log" 2>/dev/null || true
else
  echo "python3 with torch.distributed: not found, skipped"
  SKIPPED+=(ddp-example)
fi

say "feedbench --device cuda"
WORKERS=$((NPROC > 2 ? NPROC - 2 : 1))
FB=("$BUILD/bin/feedbench" --data "$DATA" --batch 256 --workers "$WORKERS" --augment train
  --device cuda --no-progress)
# As fast as the pipeline goes (no model step): images/s.
run feedbench-cuda-f32-nostep 60 "${FB[@]}" --dtype float32 --batches 60 --step-ms 0 \
  --json "$OUT/feedbench-cuda-f32-nostep.json" || true
# A model step 1.2x the pipeline's batch time: the GPU should never wait.
run feedbench-cuda-f32-auto 90 "${FB[@]}" --dtype float32 --batches 60 --step-ms auto \
  --json "$OUT/feedbench-cuda-f32-auto.json" --trace "$OUT/feedbench-cuda-f32-auto.trace.json" || true
run feedbench-cuda-u8-nostep 60 "${FB[@]}" --dtype uint8 --batches 60 --step-ms 0 \
  --json "$OUT/feedbench-cuda-u8-nostep.json" || true

say "h2dbench"
H2D=("$BUILD/bin/h2dbench" --batch 256 --height 224 --width 224 --batches 200)
run h2dbench-f32 45 "${H2D[@]}" --dtype float32 --layout chw --json "$OUT/h2dbench-f32.json" || true
run h2dbench-u8 45 "${H2D[@]}" --dtype uint8 --layout hwc --json "$OUT/h2dbench-u8.json" || true
run h2dbench-bounce 45 "${H2D[@]}" --dtype float32 --layout chw --bounce \
  --json "$OUT/h2dbench-bounce.json" || true

say "feedbench: the sync loop on the GPU, for comparison"
# Same step as the auto run above, so the busy fractions compare.
STEP=$(jget "$OUT/feedbench-cuda-f32-auto.json" step_ms)
[ "$DRY" -eq 0 ] || STEP=auto
if [ -n "$STEP" ]; then
  run feedbench-cuda-f32-sync 60 "$BUILD/bin/feedbench" --data "$DATA" --batch 256 --loader sync \
    --augment train --device cuda --no-progress --dtype float32 --batches 8 --step-ms "$STEP" \
    --json "$OUT/feedbench-cuda-f32-sync.json" || true
fi

say "MPI ranks on the GPU: examples/mpi_shards.c under mpirun (cuda:local on each rank)"
# The ctest's script: -np 2, -np 4 and two simulated nodes of 2; with one GPU
# visible every rank's cuda:local is cuda:0, with several the local rank's.
if command -v mpirun >/dev/null && [ -x "$BUILD/bin/mpi_shards" ]; then
  FEED_WORKER=$BUILD/bin/feed-worker run mpi-shards 90 "$ROOT/tests/mpi_shards.sh" "$BUILD/bin" \
    "$OUT/mpi-tmp" || true
  grep -E "cuda:local ->|^mpi_shards: (ok|FAILED)" "$OUT/mpi-shards.log" | head -n 12 || true
else
  echo "mpirun or $BUILD/bin/mpi_shards: not here (Open MPI not installed), skipped"
  SKIPPED+=(mpi-shards)
fi

say "the rest of the suite"
cd "$BUILD"
CTEST_J=$((NPROC > 8 ? 8 : NPROC))
# (not the install and mkdata tests: slow, and nothing GPU-specific in them)
run build-rest 180 cmake --build "$BUILD" -j "$NPROC" || true
run ctest-all 240 ctest -j "$CTEST_J" --timeout 200 -E 'install_consumer|test_mkdata' \
  --output-junit "$OUT/ctest-all.xml" || true

if [ "$DRY" -eq 1 ]; then
  echo
  echo "dry run: ${PLANNED}s of step limits planned in order of importance; the budget (${BUDGET}s from the"
  echo "start, configure included: $(elapsed)s here) cuts the last ones. The first CUDA call would be"
  echo "test-cuda-real's; nothing was built or run."
  exit 0
fi

say "summary"
{
  echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  for t in test-cuda-real test-loader-cuda-real sanitizer-memcheck sanitizer-racecheck sanitizer-synccheck python-gpu ddp-example mpi-shards ctest-all; do
    f=$OUT/$t.log
    if [ -f "$f" ]; then
      printf '%-28s %s\n' "$t" "$(grep -E "PASSED|FAILED|passed|failed|tests passed|ERROR SUMMARY|^epoch" "$f" | tail -n 2 | tr '\n' ' ')"
    fi
  done
  # what each ran through: the arena registered, or the bounce buffers
  printf '%-28s %s\n' "test-loader-cuda-real pinned" \
    "$(grep -ho "pinned=[a-z]*" "$OUT/test-loader-cuda-real.log" 2>/dev/null | sort | uniq -c | tr -s ' \n' ' ')"
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

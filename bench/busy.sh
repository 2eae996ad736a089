#!/usr/bin/env bash
# busy.sh - "the GPU never waits": libfeed and the naive sync loop under the
# same simulated model step.
#
#   bench/busy.sh [--data DIR] [--batch 64] [--workers N] [--epochs 2]
#                 [--factor 1.2] [--device host|cuda] [--augment train]
#                 [--out build/busy] [--tag NAME] [--keep-traces]
#
# 1. feedbench --loader feed --step-ms auto: first times the libfeed
#    pipeline's per-batch time with no step, then runs with a step of
#    --factor times that (the model is a little slower than the data).
# 2. feedbench --loader sync with the very same step (read from step 1's JSON).
# Prints both busy fractions; writes OUT/busy_TAG_{feed,sync}.json and
# .trace.json (in a temporary folder unless --keep-traces: the sync trace has
# a span per image and stage, megabytes), and OUT/busy_TAG_timeline.png (or
# .svg) drawn by plot_trace.py. Both JSON files get a "provenance" object: this
# command and the commit it ran (git rev-parse HEAD). To record a result, pass
# --out bench/results/MACHINE (see bench/results/*/MACHINE.md).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fb=${FEEDBENCH:-$root/build/bin/feedbench}
data=$root/data/gen2000 batch=64 workers=$(nproc) epochs=2 factor=1.2 device=host augment=train
out=$root/build/busy tag="" keep=0
cmdline="bench/busy.sh $*"
while [ $# -gt 0 ]; do
  case $1 in
    --data) data=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --factor) factor=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --augment) augment=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --keep-traces) keep=1; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "busy.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$fb" ] || { echo "busy.sh: $fb missing: build first" >&2; exit 1; }
mkdir -p "$out"
name=busy${tag:+_$tag}
tdir=$out
if [ $keep = 0 ]; then
  tdir=$(mktemp -d "${TMPDIR:-/tmp}/feed-busy.XXXXXX")
  trap 'rm -rf "$tdir"' EXIT
fi
common=(--data "$data" --batch "$batch" --workers "$workers" --epochs "$epochs" --augment "$augment"
        --device "$device" --no-progress)

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
set -x
"$fb" "${common[@]}" --loader feed --step-ms auto --step-factor "$factor" \
  --json "$out/${name}_feed.json" --trace "$tdir/${name}_feed.trace.json"
set +x
step=$(python3 -c "import json,sys; print('%.3f' % json.load(open(sys.argv[1]))['step_ms'])" "$out/${name}_feed.json")
set -x
"$fb" "${common[@]}" --loader sync --step-ms "$step" \
  --json "$out/${name}_sync.json" --trace "$tdir/${name}_sync.trace.json"
set +x
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || true)
python3 - "$out/${name}_feed.json" "$out/${name}_sync.json" "${FEEDBENCH:+FEEDBENCH=$FEEDBENCH }$cmdline" "$commit" <<'EOF'
import json, sys
prov = json.dumps({"command": sys.argv[3], "commit": sys.argv[4] or None}, indent=4).replace("\n", "\n  ")
for p in sys.argv[1:3]:  # feedbench's own layout kept: the object goes in before the last brace
    t = open(p).read().rstrip()
    open(p, "w").write(t[:-1].rstrip() + ',\n  "provenance": ' + prov + "\n}\n")
f, s = (json.load(open(p)) for p in sys.argv[1:3])
print()
print("step %.2f ms per batch (= %.2f x the libfeed pipeline's %.2f ms/batch), batch %d, %s, device %s"
      % (f["step_ms"], f["step_factor"], f["calib_batch_ms"], f["batch"], f["augment"], f["device"]))
print("%-6s %8s %10s %14s %12s %12s %10s %12s %9s" % ("loader", "workers", "images/s", "busy_fraction",
      "wait p50 ms", "wait p99 ms", "ring mean", "decode us/img", "load 1m"))
for d in (f, s):
    print("%-6s %8s %10.1f %14.4f %12.3f %12.3f %10s %12.0f %9s" % (
        d["loader"], d["workers"] or "-", d["images_per_sec"], d["busy_fraction"], d["next_wait_ms_p50"],
        d["next_wait_ms_p99"], "%.2f/%d" % (d["ring_occupancy"]["mean"], d["ring_occupancy"]["slots"])
        if d["ring_occupancy"]["slots"] else "-", d["stage_us_per_sample"]["decode"],
        "%.1f-%.1f" % (d["loadavg_1m_start"], d["loadavg_1m_end"])))
print("(decode us/img is wall time in the decoder per image: when it is well above the calibration run's, other "
      "processes took CPU from the workers during the run)")
EOF
py=python3
for cand in /usr/bin/python3 python3; do
  if "$cand" -c "import matplotlib" 2>/dev/null; then py=$cand; break; fi
done
"$py" "$root/bench/plot_trace.py" "$tdir/${name}_feed.trace.json" "$tdir/${name}_sync.trace.json" \
  -o "$out/${name}_timeline.png" | tail -1

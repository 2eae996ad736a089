#!/usr/bin/env bash
# busy_ab.sh - two builds' feedbench under the same fixed host step,
# alternating: busy_fraction and the consumer's time between two steps.
#
#   bench/busy_ab.sh OLD_FEEDBENCH NEW_FEEDBENCH [--step-ms 30.5] [--rounds 5]
#                    [--data DIR] [--batch 64] [--epochs 2] [--augment train]
#                    [--out FILE]
#
# Each feedbench runs its own build's workers (found next to it). The gap is
# measured from the --trace file: from the end of one step to the start of
# the next (release, next(), the loop), mean over the run's batches; the
# step's own oversleep counts as step, as in busy_fraction.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -ge 2 ] || { sed -n '2,13p' "$0"; exit 2; }
old=$1 new=$2; shift 2
step=30.5 rounds=5 data=$root/data/gen2000 batch=64 epochs=2 augment=train out=""
while [ $# -gt 0 ]; do
  case $1 in
    --step-ms) step=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --augment) augment=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "busy_ab.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
tdir=$(mktemp -d "${TMPDIR:-/tmp}/feed-busyab.XXXXXX")
trap 'rm -rf "$tdir"' EXIT
report() { # name json trace
  python3 - "$@" <<'PY'
import json, sys
name, js, tr = sys.argv[1:4]
d = json.load(open(js))
ev = json.load(open(tr))["traceEvents"]
steps = sorted((e["ts"], e["dur"]) for e in ev if e.get("ph") == "X" and e.get("name") == "step")
gaps = [b[0] - (a[0] + a[1]) for a, b in zip(steps, steps[1:])]
gaps.sort()
print("%-4s step %s ms  busy_fraction %.5f  gap between steps mean %.1f us, median %.1f us  images/s %.1f"
      % (name, d["step_ms"], d["busy_fraction"], sum(gaps) / len(gaps), gaps[len(gaps) // 2], d["images_per_sec"]))
PY
}
{
  echo "# bench/busy_ab.sh $old $new --step-ms $step --rounds $rounds --batch $batch --epochs $epochs --augment $augment"
  echo "# commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown) (this checkout; OLD and NEW are the builds named above)"
  echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for r in $(seq 1 "$rounds"); do
    for v in old new; do
      fb=$old; [ $v = new ] && fb=$new
      "$fb" --data "$data" --batch "$batch" --workers 2 --epochs "$epochs" --augment "$augment" --device host \
        --no-progress --loader feed --step-ms "$step" --json "$tdir/$v.json" --trace "$tdir/$v.trace.json" >/dev/null
      report $v "$tdir/$v.json" "$tdir/$v.trace.json"
    done
  done
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee ${out:+"$out"}

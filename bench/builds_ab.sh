#!/usr/bin/env bash
# builds_ab.sh - builds side by side, alternating in one run: decodebench's
# per-core rows and feedbench's images/s for each build, round after round, so
# that the machine's noise falls on all of them alike.
#
#   bench/builds_ab.sh NAME=BUILD_DIR [NAME=BUILD_DIR ...] [--rounds 3]
#                      [--data DIR] [--max 400] [--seconds 2]
#                      [--rows train,val,train-ljhuff,val-ljhuff] [--out FILE]
#
# Each BUILD_DIR is a build tree with bin/decodebench and bin/feedbench (each
# feedbench runs its own build's workers). Prints, per build, the median over
# the rounds of each row's us/image and of feedbench's images/s (train, batch
# 64, 2 workers, 1 epoch, uint8, no step), with the min-max spread; --out also
# writes the table there, with the command and commit.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builds=() rounds=3 data=$root/data/gen2000 max=400 seconds=2 rows=train,val,train-ljhuff,val-ljhuff out=""
cmdline="bench/builds_ab.sh $*"
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --max) max=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *=*) builds+=("$1"); shift ;;
    *) echo "builds_ab.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ ${#builds[@]} -ge 1 ] || { sed -n '2,14p' "$0"; exit 2; }
tdir=$(mktemp -d "${TMPDIR:-/tmp}/feed-buildsab.XXXXXX")
trap 'rm -rf "$tdir"' EXIT
for r in $(seq 1 "$rounds"); do
  for b in "${builds[@]}"; do
    name=${b%%=*} dir=${b#*=}
    "$dir/bin/decodebench" --data "$data" --max "$max" --seconds "$seconds" --rows "$rows" \
      --workers 1 --json "$tdir/$name.decode.$r.json" --quiet >/dev/null
    FEED_WORKER="$dir/bin/feed-worker" "$dir/bin/feedbench" --data "$data" --batch 64 --workers 2 \
      --epochs 1 --augment train --json "$tdir/$name.feed.$r.json" >/dev/null
  done
done
python3 - "$tdir" "$rounds" "$rows" "$cmdline" "$(git -C "$root" rev-parse --short HEAD)" "${builds[@]}" >"$tdir/table.txt" <<'PY'
import json, statistics, sys
tdir, rounds, rows, cmd, commit = sys.argv[1:6]
builds = [b.split("=", 1)[0] for b in sys.argv[6:]]
rows = ["ceiling"] + rows.split(",")
def decode_rows(path):
    """us per image of each row: 1e6 / its img/s per core (decodebench's JSON keys)."""
    d = json.load(open(path))
    return {k[:-len("_img_s")].replace("_", "-"): 1e6 / v for k, v in d.items()
            if k.endswith("_img_s") and "all_cores" not in k and v}
print(f"# {cmd}")
print(f"# commit {commit}; median of {rounds} alternating rounds (min-max)")
print(f"{'build':<12}" + "".join(f"{r + ' us/img':>26}" for r in rows) + f"{'feedbench img/s':>26}")
for b in builds:
    cells = []
    for r in rows:
        v = [decode_rows(f"{tdir}/{b}.decode.{k}.json").get(r) for k in range(1, int(rounds) + 1)]
        v = [x for x in v if x is not None]
        cells.append(f"{statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f})" if v else "-")
    f = [json.load(open(f"{tdir}/{b}.feed.{k}.json"))["images_per_sec"] for k in range(1, int(rounds) + 1)]
    cells.append(f"{statistics.median(f):.0f} ({min(f):.0f}-{max(f):.0f})")
    print(f"{b:<12}" + "".join(f"{c:>26}" for c in cells))
PY
cat "$tdir/table.txt"
[ -z "$out" ] || cp "$tdir/table.txt" "$out"

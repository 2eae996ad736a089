#!/bin/sh
# faultbench_smoke.sh BIN_DIR TMP_DIR - faultbench once, tiny, so it does not
# rot: 120 images, a worker killed every 3 batches, 10% bad files. Checks the
# exit status (0: nothing lost, duplicated or unreported) and the JSON keys.
set -eu
bin=$1
mkdir -p "$2"
d=$(mktemp -d "$2/faultbench.XXXXXX")
trap 'rm -rf "$d"' EXIT
"$bin/feed-mkdata" --out "$d/data" --count 120 --seed 3 --classes 4 --quiet
"$bin/faultbench" --data "$d/data" --json "$d/fb.json" --batch 8 --kill-every 3 --bad-frac 0.1 \
  --size 48 --tmp "$d" --quiet
for kv in '"delivered": 120' '"duplicates": 0' '"lost": 0' '"bad_made": 12' '"bad_reported": 12' \
          '"pixel_mismatches": 0' '"pass": true'; do
  grep -q "$kv" "$d/fb.json" || { echo "faultbench_smoke: $kv not in:"; cat "$d/fb.json"; exit 1; }
done
for k in respawns throughput_ratio kills; do
  grep -q "\"$k\": " "$d/fb.json" || { echo "faultbench_smoke: no $k"; exit 1; }
done
grep -q '"respawns": 0,' "$d/fb.json" && { echo "faultbench_smoke: no worker was killed"; exit 1; }
echo "faultbench_smoke: ok"

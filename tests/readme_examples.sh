#!/usr/bin/env bash
# The README's examples are examples/quickstart.{c,py}, and they work.
#   readme_examples.sh SOURCE_DIR BUILD_DIR diff|c|python
# diff:   the first ```c and the first ```python block of README.md equal
#         examples/quickstart.c and examples/quickstart.py, byte for byte.
# c:      quickstart.c compiled against the build tree (include/, lib/, rpath)
#         runs on a generated dataset and sees every image once per epoch.
# python: quickstart.py with PYTHONPATH=python and the build's libfeed.so, the
#         same check; skipped (77) where numpy is not importable.
# README_EXAMPLES_COUNT (64) images; PYTHON (python3) runs the Python example.
set -euo pipefail
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd) mode=$3
count=${README_EXAMPLES_COUNT:-64}
epochs=2 # what both examples ask for

block() { # block LANG: the first ```LANG fenced block of README.md
  awk -v open='```'"$1" '!inside && $0 == open { inside = 1; next }
                         inside && $0 == "```" { exit }
                         inside { print }' "$src/README.md"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/readme-examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

check_output() { # check_output FILE: every epoch saw every image, and the total says so
  local out=$1 e
  cat "$out"
  for ((e = 0; e < epochs; e++)); do
    grep -qx "epoch $e: $count images" "$out" || { echo "FAIL: no 'epoch $e: $count images'" >&2; exit 1; }
  done
  grep -q "^$((count * epochs)) images in $epochs epochs" "$out" ||
    { echo "FAIL: no '$((count * epochs)) images in $epochs epochs'" >&2; exit 1; }
}

make_data() {
  "$build/bin/feed-mkdata" --out "$tmp/data" --count "$count" --seed 1 --quiet
}

case $mode in
diff)
  rc=0
  for pair in c:quickstart.c python:quickstart.py; do
    lang=${pair%%:*} file=$src/examples/${pair#*:}
    block "$lang" >"$tmp/block"
    [ -s "$tmp/block" ] || { echo "FAIL: README.md has no \`\`\`$lang block" >&2; rc=1; continue; }
    if ! diff -u "$file" "$tmp/block"; then
      echo "FAIL: README.md's first \`\`\`$lang block differs from examples/${pair#*:}" >&2
      rc=1
    fi
  done
  [ $rc = 0 ] && echo "readme_examples: README.md's code blocks are examples/quickstart.{c,py}"
  exit $rc ;;
c)
  make_data
  ${CC:-cc} -std=c11 -Wall -Wextra -Werror "$src/examples/quickstart.c" -I"$src/include" \
    -L"$build/lib" -lfeed -Wl,-rpath,"$build/lib" -o "$tmp/quickstart"
  # No FEED_WORKER: the library finds the worker next to itself, as installed.
  (cd "$tmp" && env -u FEED_WORKER ./quickstart data) >"$tmp/out"
  check_output "$tmp/out" ;;
python)
  py=${PYTHON:-python3}
  if ! "$py" -c "import numpy" 2>/dev/null; then
    echo "readme_examples: $py cannot import numpy: the Python example is not run"
    exit 77
  fi
  make_data
  (cd "$tmp" && env -u FEED_WORKER PYTHONPATH="$src/python" LIBFEED_LIBRARY="$build/lib/libfeed.so" \
     "$py" "$src/examples/quickstart.py" data) >"$tmp/out"
  check_output "$tmp/out" ;;
*)
  echo "usage: $0 SOURCE_DIR BUILD_DIR diff|c|python" >&2
  exit 2 ;;
esac

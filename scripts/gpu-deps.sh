#!/usr/bin/env bash
# gpu-deps.sh - unpacks libfeed's build dependencies (headers, libraries,
# pkg-config files, pkgconf itself) into .gpudeps/ for a GPU machine that has
# the CUDA toolkit, CMake and a compiler but cannot install packages (no
# network, as on the project's lent GPU machines).
#
# Run here (Debian/Ubuntu with apt, network; no root needed):
#     scripts/gpu-deps.sh            # -> .gpudeps/ (about 9 MiB, git-ignored)
# Then carry .gpudeps/ to the GPU machine with the tree; scripts/gpu-check.sh
# uses it when the machine's own packages are missing.
#
# Nothing is installed: the .deb files are unpacked with dpkg -x into
# .gpudeps/root, and each .pc file's prefix is made relative to the .pc file
# (${pcfiledir}), so the tree works wherever the checkout lands. The
# libraries need glibc >= 2.34 (checked below): Ubuntu 22.04 and later,
# Debian 12 and later.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=${GPUDEPS:-$ROOT/.gpudeps}
# libspng, libwebp: feed-worker's PNG and WebP decoders (zlib1g-dev for spng.pc's
# Requires.private; libwebpmux for test_webp's animated file).
CODECS=(libspng0 libspng-dev zlib1g-dev libwebp7 libwebp-dev libwebpmux3 libwebpdemux2)
# nasm: third_party/libjpeg-turbo's SIMD code (the build warns and decodes slowly without it).
PKGS=(nasm libjpeg62-turbo libjpeg62-turbo-dev libturbojpeg0 libturbojpeg0-dev
  liburing2 liburing-dev libseccomp2 libseccomp-dev libcmocka0 libcmocka-dev pkgconf pkgconf-bin libpkgconf3
  "${CODECS[@]}")

command -v apt-get >/dev/null || { echo "gpu-deps: needs apt-get (Debian/Ubuntu)" >&2; exit 1; }
command -v dpkg >/dev/null || { echo "gpu-deps: needs dpkg" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt-get download writes to the current directory; as root it drops to the
# _apt user, which must be able to write there.
chmod 0777 "$tmp"
if ! (cd "$tmp" && apt-get download "${PKGS[@]}" >/dev/null 2>"$tmp/err.txt"); then
  # Ubuntu names libjpeg-turbo's packages differently.
  alt=(nasm libjpeg-turbo8 libjpeg-turbo8-dev libjpeg8 libjpeg8-dev libturbojpeg libturbojpeg0-dev
    liburing2 liburing-dev libseccomp2 libseccomp-dev libcmocka0 libcmocka-dev pkgconf pkgconf-bin libpkgconf3
    "${CODECS[@]}")
  if ! (cd "$tmp" && apt-get download "${alt[@]}" >/dev/null 2>>"$tmp/err.txt"); then
    echo "gpu-deps: apt-get download failed (try apt-get update first):" >&2
    cat "$tmp/err.txt" >&2
    exit 1
  fi
fi

rm -rf "$DEST.new"
mkdir -p "$DEST.new/root"
for deb in "$tmp"/*.deb; do
  dpkg -x "$deb" "$DEST.new/root"
  basename "$deb" >>"$DEST.new/packages.txt"
done
rm -rf "$DEST.new/root/usr/share/doc" "$DEST.new/root/usr/share/man" \
  "$DEST.new/root/usr/share/lintian"

# Every /usr in a .pc file -> the unpacked usr/, relative to the .pc file.
while IFS= read -r -d '' pc; do
  rel=${pc#"$DEST.new/root/usr/"}
  up='${pcfiledir}/'$(dirname "$rel" | sed 's|[^/][^/]*|..|g')
  sed -E -i "s#(^|[=[:space:]]|-L|-I)/usr(/|\$|[[:space:]])#\1$up\2#g" "$pc"
  # Multiarch headers (libjpeg's jconfig.h) are found by the compiler in
  # /usr/include/<triplet> on their own system; here they need a -I.
  for d in "$DEST.new"/root/usr/include/*-linux-gnu; do
    [ -d "$d" ] && sed -E -i "s#^(Cflags:.*)\$#\1 -I$up/include/${d##*/}#" "$pc"
  done
  if grep -n -E '(^|[=[:space:]]|-L|-I)/usr(/|$|[[:space:]])' "$pc" >&2; then
    echo "gpu-deps: $pc: a /usr path left" >&2
    exit 1
  fi
done < <(find "$DEST.new/root/usr" -name '*.pc' -print0)

# What a GPU machine's C library must provide.
need=$(find "$DEST.new/root" -name '*.so*' -type f -o -path '*/bin/*' -type f |
  xargs objdump -T 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -n 1)
echo "${need:-GLIBC_2.2.5}" >"$DEST.new/glibc.txt"

rm -rf "$DEST"
mv "$DEST.new" "$DEST"
echo "gpu-deps: $(wc -l <"$DEST/packages.txt") packages in $DEST ($(du -sh "$DEST" | cut -f1)), needs ${need:-?}"

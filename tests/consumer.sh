#!/usr/bin/env bash
# Installs libfeed into a temporary prefix and builds what a user would
# against it: examples/ with pkg-config (shared and static), a CMake
# find_package consumer, and the public header compiled as C and as C++.
# Then runs the example once on a tiny generated dataset.
# usage: consumer.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib64/pkgconfig:$tmp/prefix/lib/x86_64-linux-gnu/pkgconfig"
pc_flags=$(pkg-config --cflags --libs libfeed)
echo "pkg-config: $pc_flags"

cc -std=c11 -Wall -Wextra -Werror "$src/examples/train_loop.c" $pc_flags -o "$tmp/train_loop"
# A custom prefix: the .pc's rpath variable makes the program find libfeed.so.0 by itself.
cc -std=c11 -Wall -Wextra -Werror "$src/examples/train_loop.c" $pc_flags $(pkg-config --variable=rpath libfeed) \
   -o "$tmp/train_loop_rpath"
cc -std=c11 -Wall -Wextra -Werror "$src/examples/quickstart.c" -o "$tmp/quickstart" $pc_flags $(pkg-config --variable=rpath libfeed) # README's line
cc -std=c11 -Wall -Wextra -Werror -static-libgcc "$src/examples/train_loop.c" \
   $(pkg-config --cflags libfeed) "$tmp"/prefix/lib*/libfeed.a $(pkg-config --libs --static libfeed | sed 's/-lfeed//') \
   -o "$tmp/train_loop_static"

# The header as C (pedantic) and as C++ (extern "C").
printf '#include <feed.h>\nint main(void){feed_options o; return feed_options_init(&o, sizeof o);}\n' > "$tmp/h.c"
cc -std=c99 -pedantic -Wall -Wextra -Werror $(pkg-config --cflags libfeed) -c "$tmp/h.c" -o "$tmp/h.o"
printf '#include <feed.h>\n#include <cstdio>\nint main(){feed_options o; feed_options_init(&o, sizeof o); std::printf("%%s\\n", feed_version_string()); return 0;}\n' > "$tmp/h.cpp"
c++ -std=c++11 -pedantic -Wall -Wextra -Werror "$tmp/h.cpp" $pc_flags -o "$tmp/hcpp"
LD_LIBRARY_PATH="$(dirname "$(ls "$tmp"/prefix/lib*/libfeed.so | head -1)")" "$tmp/hcpp"

# CMake package consumer.
mkdir -p "$tmp/cm"
cat > "$tmp/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(consumer C)
find_package(libfeed REQUIRED)
add_executable(train_loop $src/examples/train_loop.c)
target_link_libraries(train_loop PRIVATE libfeed::feed)
CM
cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cm/build" >/dev/null
# A consumer of the shared library needs neither the CUDA toolkit nor
# pkg-config (liburing's): find_package must work without them.
cmake -S "$tmp/cm" -B "$tmp/cm/build-bare" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=TRUE -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=TRUE >/dev/null
cmake --build "$tmp/cm/build-bare" >/dev/null

# Run the installed example: it must find the installed feed-worker by itself.
"$build/bin/feed-mkdata" --out "$tmp/data" --count 24 --seed 5 --classes 3 --quiet
libdir=$(dirname "$(ls "$tmp"/prefix/lib*/libfeed.so | head -1)")
out=$(env -u FEED_WORKER LD_LIBRARY_PATH="$libdir" "$tmp/train_loop" "$tmp/data" "batch_size=8,epochs=1,height=64,width=64")
echo "$out"
grep -q "delivered 24, bad 0" <<<"$out"
out2=$(env -u FEED_WORKER "$tmp/train_loop_static" "$tmp/data" "batch_size=8,epochs=1,height=64,width=64,worker_path=$tmp/prefix/libexec/libfeed/feed-worker")
grep -q "delivered 24, bad 0" <<<"$out2"
out3=$(env -u FEED_WORKER -u LD_LIBRARY_PATH "$tmp/train_loop_rpath" "$tmp/data" "batch_size=8,epochs=1,height=64,width=64")
grep -q "delivered 24, bad 0" <<<"$out3"
[ "$(grep checksum <<<"$out" | cut -d' ' -f2)" = "$(grep checksum <<<"$out2" | cut -d' ' -f2)" ]
echo "consumer: OK"

#!/bin/sh
# An installed SignalKit used as its user uses it, on a machine without
# Swift (make test-dist-deb, make test-dist-tarball): with every folder that
# holds swift taken off PATH and no LD_LIBRARY_PATH (Tests/dist/no-swift.sh),
# the C quick start and the ffi quick start are built through pkg-config,
# the C++ quick start too, and examples/cmake through the CMake package, each
# from the copy the tree installed (EXAMPLES); each runs, its output
# checked, and each finds libsignalkit.so.0 in the installed tree (through
# the rpath given at link time or, for CMake, the one CMake gives a build),
# not elsewhere on the machine. The installed search demo (c/search.c)
# is built and runs to its end.
#
#   sh Tests/dist/use.sh SCRATCH LIBDIR CMAKE_PREFIX EXAMPLES PKG-CONFIG...
#
# SCRATCH: where the programs are built (made anew). LIBDIR: the tree's
# folder of libraries. CMAKE_PREFIX: for CMAKE_PREFIX_PATH. EXAMPLES: the
# tree's folder of examples (share/doc/PACKAGE/examples). PKG-CONFIG...:
# the pkg-config command that sees the tree's .pc files (its environment
# given with env, its options such as --define-prefix). Run from the
# repository's root; fails at the first thing that is not as expected.
set -eu
scratch=$1 libdir=$2 cmake_prefix=$3 examples=$4
shift 4
. "$(dirname "$0")/no-swift.sh"

rm -rf "$scratch" && mkdir -p "$scratch"

# check NAME EXPECTED: runs SCRATCH/NAME, compares its output with the file
# EXPECTED, and checks that it loads libsignalkit.so.0 from LIBDIR.
check() {
    "$scratch/$1" > "$scratch/$1.out"
    diff -u "$2" "$scratch/$1.out"
    loaded=$(ldd "$scratch/$1" | sed -n 's/^[[:space:]]*libsignalkit\.so\.0 => \([^ ]*\) .*/\1/p')
    if [ "$(dirname "$loaded")" != "$libdir" ]; then
        echo "use.sh: $1 loads libsignalkit.so.0 from '$loaded', not from $libdir" >&2
        exit 1
    fi
    echo "use.sh: $1 ran as expected"
}

cc -std=c99 -Wall -Wextra -pedantic -Werror "$examples/c/quickstart.c" $("$@" --cflags --libs signalkit) \
    "-Wl,-rpath,$libdir" -o "$scratch/quickstart"
check quickstart examples/c/quickstart.expected

cc -std=c99 -Wall -Wextra -pedantic -Werror "$examples/c/ffi_quickstart.c" $("$@" --cflags --libs signalkit-ffi) \
    "-Wl,-rpath,$libdir" -o "$scratch/ffi_quickstart"
printf '2 4 6\n' > "$scratch/ffi_quickstart.expected"
check ffi_quickstart "$scratch/ffi_quickstart.expected"

c++ -std=c++17 -Wall -Wextra -pedantic -Werror "$examples/cpp/quickstart.cpp" $("$@" --cflags --libs signalkit) \
    "-Wl,-rpath,$libdir" -o "$scratch/quickstart-cpp"
check quickstart-cpp examples/cpp/quickstart.expected

cmake -S "$examples/cmake" -B "$scratch/cmake" "-DCMAKE_PREFIX_PATH=$cmake_prefix" -Wdev -Werror=dev \
    > "$scratch/cmake-configure.log"
cmake --build "$scratch/cmake" > "$scratch/cmake-build.log"
cp "$scratch/cmake/app" "$scratch/cmake-app"
check cmake-app examples/cmake/app.expected

cc -std=c99 -Wall -Wextra -pedantic -Werror -D_DEFAULT_SOURCE "$examples/c/search.c" $("$@" --cflags --libs signalkit) \
    "-Wl,-rpath,$libdir" -o "$scratch/search"
"$scratch/search" > "$scratch/search.out"
echo "use.sh: search (the installed c/search.c) ran to its end"

#!/bin/sh
# The valgrind recipe of docs/c.md ("Errors and leaks") run as it is written
# (tools/check/run-doc-steps.py valgrind) against an installed SignalKit, with
# Swift off PATH (make test-dist-deb, make test-dist-tarball), on programs
# built against the installed, stripped library:
#
#   - examples/c/quickstart.c and examples/c/threads.c, which release
#     everything (threads.c also starts the library's worker threads):
#     valgrind must report no error and nothing definitely, indirectly or
#     possibly lost once the installed suppressions apply;
#   - Tests/dist/leak.c, the quick start without sk_signal_release and
#     sk_pipe_release: valgrind must report the leak (definitely lost, made
#     by sk_pipe_create and sk_signal_map), which no suppression may hide;
#
# and in both, valgrind must read the library's debug information when it
# finds it (beside the library in the tarball) instead of giving up on it.
#
#   sh Tests/dist/valgrind.sh SCRATCH LIBDIR VAR=VALUE...
#
# SCRATCH: made anew. LIBDIR: the tree's folder of libraries (the programs'
# rpath). VAR=VALUE...: the environment in which a plain `pkg-config` sees
# the tree's .pc files (PKG_CONFIG_PATH, PKG_CONFIG_SYSROOT_DIR). Run from
# the repository's root.
set -eu
scratch=$1 libdir=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/no-swift.sh"
for assignment in "$@"; do
    export "$assignment"
done
rm -rf "$scratch" && mkdir -p "$scratch"

# program NAME SOURCE: SCRATCH/NAME/app, built against the tree.
program() {
    mkdir -p "$scratch/$1"
    cc -std=c99 -Wall -Wextra -pedantic -Werror -D_DEFAULT_SOURCE "$2" $(pkg-config --cflags --libs signalkit) \
        -lpthread "-Wl,-rpath,$libdir" -o "$scratch/$1/app"
}
program quickstart examples/c/quickstart.c
program threads examples/c/threads.c
program leak Tests/dist/leak.c

for name in quickstart threads leak; do
    kind=clean
    [ $name = leak ] && kind=leak
    python3 tools/check/run-doc-steps.py valgrind --files "$scratch/$name" --scratch "$scratch/$name-run" \
        --then "sh '$here/valgrind-report.sh' $kind steps.err"
done

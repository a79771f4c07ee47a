#!/bin/sh
# The CMake package's components, and what it defines when it is not found
# (make test-cmake): Tests/cmake/components configured against an installed
# tree as it is, without the ffi library, and without the core library.
#
#   sh Tests/cmake/components.sh PREFIX SCRATCH
#
# PREFIX is the installed tree (left untouched: it is copied into SCRATCH).
# Every request is tried; the script fails at the end if any was not as
# expected.
set -e
failed=0
here=$(cd "$(dirname "$0")" && pwd)
scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
cp -a "$1" "$scratch/complete"
cp -a "$1" "$scratch/noffi" && rm "$scratch"/noffi/lib/libsignalkit-ffi.so*
cp -a "$1" "$scratch/nocore" && rm "$scratch"/nocore/lib/libsignalkit.so*

configure() {
    root=$1
    shift
    rm -rf "$scratch/build"
    cmake -S "$here/components" -B "$scratch/build" "-DCMAKE_PREFIX_PATH=$scratch/$root" "$@" > "$scratch/log" 2>&1
}
# expect TREE FOUND TARGETS [-D...]: SignalKit_FOUND, the targets defined and
# the components' _FOUND variables are as the -D arguments say.
expect() {
    root=$1 found=$2 targets=$3
    shift 3
    configure "$root" "-DEXPECT_FOUND=$found" "-DEXPECT_TARGETS=$targets" "$@" ||
        { cat "$scratch/log"; echo "components.sh: $root $*: not as expected"; failed=1; }
}
# refused TREE MESSAGE [-D...]: find_package(... REQUIRED ...) fails, saying
# MESSAGE (CMake wraps the message: compared with its lines joined).
refused() {
    root=$1 message=$2
    shift 2
    if configure "$root" -DMODE=REQUIRED "$@"; then
        echo "components.sh: $root $*: find_package(SignalKit REQUIRED) was met"; failed=1
    elif ! tr -s ' \n' '  ' < "$scratch/log" | grep -qF -- "$message"; then
        cat "$scratch/log"; echo "components.sh: $root $*: the error is not: $message"; failed=1
    fi
}

both="SignalKit::signalkit;SignalKit::signalkit-ffi"
expect complete TRUE "$both"
expect complete TRUE "$both" "-DREQUIRE=signalkit;ffi"
expect complete TRUE "$both" -DREQUIRE=signalkit-ffi
expect complete TRUE "$both" -DOPTIONAL=no-such-component -DEXPECT_MISSING=no-such-component
expect complete FALSE "" "-DREQUIRE=signalkit;no-such-component" -DEXPECT_MISSING=no-such-component
refused complete "SignalKit has no component no-such-component" -DREQUIRE=no-such-component
# The tree has the core and the ffi layer, not the NATS bridge (make
# test-nats finds it through this component in a tree that has it).
expect complete TRUE "$both" -DOPTIONAL=nats -DEXPECT_MISSING=nats
expect complete FALSE "" -DREQUIRE=nats -DEXPECT_MISSING=nats
refused complete "component nats (SignalKit::nats) is not installed" -DREQUIRE=nats

expect noffi TRUE SignalKit::signalkit
expect noffi TRUE SignalKit::signalkit -DREQUIRE=signalkit
expect noffi TRUE SignalKit::signalkit -DOPTIONAL=ffi -DEXPECT_MISSING=ffi
expect noffi FALSE "" -DREQUIRE=ffi -DEXPECT_MISSING=ffi
refused noffi "component signalkit-ffi (SignalKit::signalkit-ffi) is not installed" -DREQUIRE=signalkit-ffi

# Not found: no target (a project testing `if(TARGET SignalKit::signalkit)`
# after a QUIET find must not link a missing file).
expect nocore FALSE ""
expect nocore FALSE "" -DOPTIONAL=ffi -DEXPECT_MISSING=ffi
refused nocore "/lib/libsignalkit.so."
test $failed = 0 && echo "components.sh: every request as expected"

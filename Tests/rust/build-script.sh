#!/bin/sh
# rsignalkit-sys's build script where it cannot link a usable libsignalkit
# (make test-rust): the build stops with the script's message, one case
# each, every variable of the build's environment unset but the case's:
#
#   - SIGNALKIT_LIB_DIR names a folder without libsignalkit.so;
#   - SIGNALKIT_LIB_DIR's libsignalkit.so is of another minor version;
#   - pkg-config finds no signalkit.pc (PKG_CONFIG_LIBDIR, an empty folder,
#     stands for a system without it);
#   - there is no pkg-config to run (PKG_CONFIG names none);
#   - the signalkit.pc pkg-config finds is of another minor version;
#   - the signalkit.pc of a staged install found without its sysroot
#     (PKG_CONFIG_SYSROOT_DIR unset: it names /usr/lib, which holds no
#     libsignalkit.so here);
#
# and, first, that the same build succeeds against the staged install, so
# that each failure is the case's own.
#
#   sh Tests/rust/build-script.sh SCRATCH STAGE CARGO VERSION
#
# SCRATCH: a folder of its own (made anew: its target folder too); STAGE:
# the staged install (make stage); VERSION: the library's (VERSION). Run
# from the repository's root.
set -eu
mkdir -p "$1"
scratch=$(cd "$1" && pwd) stage=$(cd "$2" && pwd) cargo=$3 version=$4
rm -rf "$scratch/pc" "$scratch/empty" "$scratch/lib" && mkdir -p "$scratch/pc" "$scratch/empty" "$scratch/lib"
# Another minor version of the same major: one that this crate refuses.
other=$(echo "$version" | awk -F. '{ printf "%d.%d.0", $1, $2 + 1 }')

# run ENV...: builds rsignalkit-sys with ENV (VAR=VALUE words); its output in
# SCRATCH/out; the build's exit status.
run() {
    (cd Sources/rust && env -u SIGNALKIT_LIB_DIR -u PKG_CONFIG -u PKG_CONFIG_PATH -u PKG_CONFIG_LIBDIR \
        -u PKG_CONFIG_SYSROOT_DIR CARGO_TARGET_DIR="$scratch/target" "$@" \
        "$cargo" build --offline --quiet -p rsignalkit-sys) > "$scratch/out" 2>&1
}

# refused TEXT ENV...: the build with ENV fails, and says TEXT.
refused() {
    text=$1
    shift
    if run "$@"; then
        echo "build-script.sh: rsignalkit-sys built with $*; it should have stopped, saying: $text" >&2
        exit 1
    fi
    if ! grep -qF -- "$text" "$scratch/out"; then
        cat "$scratch/out" >&2
        echo "build-script.sh: with $*, the build failed (above) without saying: $text" >&2
        exit 1
    fi
    echo "build-script.sh: with $*: stopped, saying \"$text\""
}

if ! run PKG_CONFIG_PATH="$stage/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage"; then
    cat "$scratch/out" >&2
    echo "build-script.sh: rsignalkit-sys does not build against the staged install (above)" >&2
    exit 1
fi
echo "build-script.sh: builds against the staged install"

refused "SIGNALKIT_LIB_DIR is \"$scratch/empty\", which holds no libsignalkit.so" SIGNALKIT_LIB_DIR="$scratch/empty"
: > "$scratch/lib/libsignalkit.so.$other"
ln -s "libsignalkit.so.$other" "$scratch/lib/libsignalkit.so"
refused "is libsignalkit $other, and rsignalkit-sys $version needs $version or a later" SIGNALKIT_LIB_DIR="$scratch/lib"
refused "pkg-config finds no signalkit.pc" PKG_CONFIG_LIBDIR="$scratch/empty"
refused "cannot run \"$scratch/empty/pkg-config\"" PKG_CONFIG="$scratch/empty/pkg-config"
sed "s/^Version: .*/Version: $other/" "$stage/usr/lib/pkgconfig/signalkit.pc" > "$scratch/pc/signalkit.pc"
refused "is libsignalkit $other, and rsignalkit-sys $version needs $version or a later" \
    PKG_CONFIG_PATH="$scratch/pc" PKG_CONFIG_SYSROOT_DIR="$stage"
if [ ! -e /usr/lib/libsignalkit.so ] && [ ! -e /usr/local/lib/libsignalkit.so ] \
    && ! ls /usr/lib/*-linux-*/libsignalkit.so /lib/*-linux-*/libsignalkit.so > /dev/null 2>&1; then
    refused "puts libsignalkit.so in \"/usr/lib\", which holds none" PKG_CONFIG_PATH="$stage/usr/lib/pkgconfig"
fi

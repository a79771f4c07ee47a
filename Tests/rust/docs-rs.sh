#!/bin/sh
# The crates' documentation as docs.rs builds it (issue 80): `cargo doc`
# with DOCS_RS set on a machine without libsignalkit. rsignalkit-sys's
# build script must then link nothing and let the build go on, so that
# both crates document. No library is findable here: SIGNALKIT_LIB_DIR,
# PKG_CONFIG_PATH, PKG_CONFIG_SYSROOT_DIR and LD_LIBRARY_PATH unset,
# pkg-config's folders an empty one, and PKG_CONFIG a program that does
# not exist, so that a build script that still looked would stop.
#
#   sh Tests/rust/docs-rs.sh DIR SCRATCH CARGO [ARG...]
#
# DIR: the folder to run `cargo doc` in (a workspace, or the packaged
# rsignalkit beside the packaged rsignalkit-sys); SCRATCH: a folder of its
# own (made anew); ARGs: more for cargo (a --config that patches the raw
# crate in).
set -eu
dir=$1 scratch=$2 cargo=$3
shift 3
rm -rf "$scratch" && mkdir -p "$scratch/empty"
scratch=$(cd "$scratch" && pwd)
if ! (cd "$dir" && env -u SIGNALKIT_LIB_DIR -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR -u LD_LIBRARY_PATH \
        -u RUSTFLAGS DOCS_RS=1 PKG_CONFIG="$scratch/empty/pkg-config" PKG_CONFIG_LIBDIR="$scratch/empty" \
        RUSTDOCFLAGS="-D warnings" CARGO_TARGET_DIR="$scratch/target" "$cargo" doc --offline --quiet "$@") \
        > "$scratch/out" 2>&1; then
    cat "$scratch/out" >&2
    echo "docs-rs.sh: DOCS_RS=1 cargo doc failed without a library (above): docs.rs could not document the crates" >&2
    exit 1
fi
for crate in rsignalkit_sys rsignalkit; do
    if [ ! -f "$scratch/target/doc/$crate/index.html" ]; then
        echo "docs-rs.sh: DOCS_RS=1 cargo doc made no documentation of $crate" >&2
        exit 1
    fi
done
echo "docs-rs.sh: DOCS_RS=1 cargo doc documents rsignalkit-sys and rsignalkit with no library to find"

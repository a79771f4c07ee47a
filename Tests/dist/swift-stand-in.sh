#!/bin/sh
# swift for first-commands.sh --stand-in: answers --version as Swift 6.3 and
# makes the release build of libsignalkit.so (the Makefile's RELEASE_FLAGS:
# -c release --product signalkit --scratch-path DIR) by copying
# $SIGNALKIT_STAND_IN_LIBRARY to DIR/release/libsignalkit.so, where the
# build links it. Any other use fails, naming the command: the goal that
# ran it needs the real toolchain.
set -eu
refuse() {
    echo "swift-stand-in.sh: 'swift $*' is not the release library's build; run this goal with the real toolchain" >&2
    exit 1
}
case "${1:-}" in
--version)
    echo "Swift version 6.3 (first-commands.sh's stand-in: the release library's build only)"
    exit 0 ;;
build) ;;
*) refuse "$@" ;;
esac
all=$*
shift
config= product= scratch=
while [ $# -gt 0 ]; do
    case $1 in
    -c) config=${2:-}; shift ;;
    --product) product=${2:-}; shift ;;
    --scratch-path) scratch=${2:-}; shift ;;
    esac
    shift
done
[ "$config" = release ] && [ "$product" = signalkit ] && [ -n "$scratch" ] || refuse "$all"
[ -f "${SIGNALKIT_STAND_IN_LIBRARY:-}" ] || { echo "swift-stand-in.sh: SIGNALKIT_STAND_IN_LIBRARY names no file" >&2; exit 1; }
mkdir -p "$scratch/release"
cp "$SIGNALKIT_STAND_IN_LIBRARY" "$scratch/release/libsignalkit.so"

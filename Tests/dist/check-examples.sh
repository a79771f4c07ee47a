#!/bin/sh
# Every example a guide names is installed, the same as in the repository
# (make test-dist-deb, make test-dist-tarball). The guides are README.md,
# docs/*.md and the Python package's README (docs/maintainers/ is about the
# tree, not the packages); what they name is every path under examples/ in
# them, read with grep, so that a guide naming a new example fails here
# until the packages carry it (tools/packaging/debian/libsignalkit-dev.examples),
# and each with its expected output (NAME.expected beside it) where the
# tree has one. A named folder stands for its files, but the expected
# outputs (checked as those of their examples);
# a named path that does not exist (examples/c/NAME.expected) is a pattern,
# not an example; examples/swift is left out (a Swift program uses SignalKit
# from source, never from these packages). The Rust examples are the
# crate's own (Sources/rust/rsignalkit/examples), carried by its .crate
# file, not by these packages.
#
#   sh Tests/dist/check-examples.sh EXAMPLES
#
# EXAMPLES: the installed folder (share/doc/PACKAGE/examples), which holds
# each example at its path below examples/. Run from the repository's root.
set -eu
installed=$1
fail() {
    echo "check-examples.sh: $*" >&2
    exit 1
}
named=$(grep -ohE 'examples/[A-Za-z0-9_./-]*[A-Za-z0-9_]' README.md docs/*.md Sources/python/README.md | sort -u)
files=$(for name in $named; do
    case $name in
        examples/swift | examples/swift/*) ;;
        *)
            if [ -f "$name" ]; then
                echo "$name"
            elif [ -d "$name" ]; then
                find "$name" -type f ! -name '*.expected' ! -name '*.pyc' ! -path '*/__pycache__/*'
            fi
            ;;
    esac
done | sort -u)
[ -n "$files" ] || fail "the guides name no example: the grep is wrong"
count=0
for file in $files; do
    copy=$installed/${file#examples/}
    [ -f "$copy" ] || fail "$file, which a guide names (it or its folder), is not installed (no $copy): list it in tools/packaging/debian/libsignalkit-dev.examples"
    cmp -s "$file" "$copy" || fail "$copy differs from $file"
    count=$((count + 1))
done
# Each with the output it is expected to print, where the tree has one
# (examples/c/NAME.expected beside NAME.c): what a user compares a run with.
expected=0
for file in $files; do
    output=${file%.*}.expected
    [ -f "$output" ] || continue
    copy=$installed/${output#examples/}
    [ -f "$copy" ] || fail "$output, the expected output of $file, is not installed beside it (no $copy): list it in tools/packaging/debian/libsignalkit-dev.examples"
    cmp -s "$output" "$copy" || fail "$copy differs from $output"
    expected=$((expected + 1))
done
echo "check-examples.sh: the $count example files the guides name are in $installed, $expected with their expected output"

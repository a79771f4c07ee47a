#!/bin/sh
# What a Rust block of docs/rust.md built (make test-dist-rust, through
# tools/check/run-doc-steps.py --then), checked in the folder it ran in and
# in its environment:
#
#   sh Tests/dist/check-rust-steps.sh PROGRAM EXPECTED LIBDIR [RUNPATH]
#
# PROGRAM (the project's program, the crate's quick start) prints EXPECTED
# and loads libsignalkit.so.0 from LIBDIR; its RUNPATH is RUNPATH, or it has
# none when RUNPATH is not given (a program of the .debs' users needs none).
set -eu
program=$1 expected=$2 libdir=$3 runpath=${4:-}
fail() {
    echo "check-rust-steps.sh: $*" >&2
    exit 1
}
"$program" > program.out || fail "$program did not run to its end (status $?)"
diff -u "$expected" program.out
loaded=$(ldd "$program" | sed -n 's/^[[:space:]]*libsignalkit\.so\.0 => \([^ ]*\) .*/\1/p')
[ "$loaded" = "$libdir/libsignalkit.so.0" ] || fail "$program loads libsignalkit.so.0 from '$loaded', not from $libdir"
found=$(readelf -d "$program" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p')
[ "$found" = "$runpath" ] || fail "$program's RUNPATH is '$found', not '$runpath'"
echo "check-rust-steps.sh: $program printed the quick start's lines, libsignalkit.so.0 from $libdir${runpath:+ (its RUNPATH)}"

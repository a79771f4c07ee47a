#!/bin/sh
# Every Criterion test that README.md's misuse table (the section "What
# misuse returns") names as `suite::test` must exist in one of the given
# Criterion test binaries. (Elsewhere `a::b` is C++, such as signalkit::error.)
# Usage: check-doc-tests.sh TEST-BINARY...
set -eu
for binary in "$@"; do
    [ -x "$binary" ] || { echo "$binary: not a test binary" >&2; exit 1; }
done
listed=$(mktemp)
trap 'rm -f "$listed"' EXIT
for binary in "$@"; do "$binary" --list; done | awk '/^[a-z_0-9]+: [0-9]+ tests?$/ { suite = $1; sub(":", "", suite); next }
    { name = $NF; if (name != "") print suite "::" name }' > "$listed"
missing=0
table=$(awk '/^## / { inside = ($0 == "## What misuse returns") } inside' README.md)
if [ -z "$table" ]; then
    echo "README.md has no section \"## What misuse returns\"" >&2
    exit 1
fi
for name in $(printf '%s\n' "$table" | grep -o '`[a-z_0-9]*::[a-z_0-9]*`' | tr -d '`' | sort -u); do
    if ! grep -qx "$name" "$listed"; then
        echo "README.md names $name, which is not a test of the C suite" >&2
        missing=1
    fi
done
exit $missing

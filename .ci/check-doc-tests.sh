#!/bin/sh
# Every Criterion test that README.md names as `suite::test` (the misuse
# table) must exist in one of the given Criterion test binaries.
# Usage: check-doc-tests.sh TEST-BINARY...
set -eu
listed=$(mktemp)
trap 'rm -f "$listed"' EXIT
for binary in "$@"; do "$binary" --list; done | awk '/^[a-z_0-9]+: [0-9]+ tests?$/ { suite = $1; sub(":", "", suite); next }
    { name = $NF; if (name != "") print suite "::" name }' > "$listed"
missing=0
for name in $(grep -o '`[a-z_0-9]*::[a-z_0-9]*`' README.md | tr -d '`' | sort -u); do
    if ! grep -qx "$name" "$listed"; then
        echo "README.md names $name, which is not a test of the C suite" >&2
        missing=1
    fi
done
exit $missing

#!/bin/sh
# Every test of the C and ffi suites that the misuse table (docs/misuse.md,
# "What misuse returns") names as `suite::test` must exist in one of the
# given test programs (their --list: Tests/harness). (Elsewhere `a::b` is
# C++, such as signalkit::error.)
# Every row has its three cells (misuse, what happens, tests) and names at
# least one test: a `suite::test` of the C suites, a test of Sources/python/tests
# (FILE: Class.test_name, each of which must be defined there), or a
# `make bench-check` metric. With --api API.json (tools/api/describe.py), every
# error code of sk_status must be what happens in at least one row.
# Usage: check-doc-tests.sh [--api API.json] TEST-BINARY...
set -eu
api=
if [ "${1:-}" = "--api" ]; then api=$2; shift 2; fi
for binary in "$@"; do
    [ -x "$binary" ] || { echo "$binary: not a test binary" >&2; exit 1; }
done
listed=$(mktemp)
trap 'rm -f "$listed"' EXIT
# --list prints suite/name, one a line.
for binary in "$@"; do "$binary" --list; done | sed 's|/|::|' > "$listed"
missing=0
doc=docs/misuse.md
table=$(awk '/^#+ / { inside = ($0 == "# What misuse returns") } inside' "$doc")
if [ -z "$table" ]; then
    echo "$doc has no section \"# What misuse returns\"" >&2
    exit 1
fi
for name in $(printf '%s\n' "$table" | grep -o '`[a-z_0-9]*::[a-z_0-9]*`' | tr -d '`' | sort -u); do
    if ! grep -qx "$name" "$listed"; then
        echo "$doc names $name, which is not a test of the C suite" >&2
        missing=1
    fi
done
# The rows: three cells, a test named in the last.
rows=$(printf '%s\n' "$table" | awk -F '|' '/^\|/ && NR > 0 { n++ } /^\|/ && n > 2 { print }')
printf '%s\n' "$rows" | awk -F '|' -v OFS='|' -v doc="$doc" '
    NF != 5 { printf "%s, What misuse returns: a row of %d cells, not 3 (misuse | what happens | tests): %.70s...\n", doc, NF - 2, $2; bad = 1; next }
    $4 !~ /`[a-z_0-9]+::[a-z_0-9]+`|Sources\/python\/tests\/[a-z_0-9]+\.py: [A-Za-z_0-9]+\.test_|make bench-check/ {
        printf "%s, What misuse returns: the row \"%.70s...\" names no test: name the suite::test of the C or ffi suite, the Sources/python/tests file and Class.test_name, or the make bench-check metric that proves it\n", doc, $2; bad = 1 }
    END { exit bad }' >&2 || missing=1
# The Python tests named: FILE: Class.test_name, ...
printf '%s\n' "$rows" | grep -o 'Sources/python/tests/[a-z_0-9]*\.py: [A-Za-z_0-9., ]*' | while IFS= read -r named; do
    file=${named%%:*}
    for test in $(printf '%s\n' "${named#*: }" | tr ',' ' '); do
        class=${test%%.*} method=${test#*.}
        if ! awk -v class="$class" -v method="$method" '
                /^class / { inside = ($0 ~ "^class " class "[(:]") }
                inside && $0 ~ "^    def " method "\\(" { found = 1 }
                END { exit !found }' "$file"; then
            echo "$doc names $file: $class.$method, which is not a test there" >&2
            exit 1
        fi
    done
done || missing=1
# Every error code is what happens in some row.
if [ -n "$api" ]; then
    for code in $(python3 -c 'import json, sys
for enum in json.load(open(sys.argv[1]))["enums"]:
    if enum["name"] == "sk_status":
        print(" ".join(v["name"] for v in enum["values"] if v["value"] < 0))' "$api"); do
        if ! printf '%s\n' "$rows" | awk -F '|' -v code="$code" 'index($3, "`" code "`") { found = 1 } END { exit !found }'; then
            echo "$doc, What misuse returns: no row says when $code is returned (sk_status in include/signalkit.h): add one, with the test that proves it" >&2
            missing=1
        fi
    done
fi
exit $missing

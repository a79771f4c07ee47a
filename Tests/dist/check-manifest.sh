#!/bin/sh
# The release folder's lists (tools/packaging/manifest.py) as a user and a
# tool read them: `sha256sum -c` accepts SHA256SUMS, manifest.py check
# accepts both lists; then, in a scratch copy, that the check fails on a
# changed byte, a file added and a file removed (each must be named).
# Usage: check-manifest.sh DIST-DIR SCRATCH-DIR
set -eu
dist=$1
scratch=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
manifest="python3 $here/tools/packaging/manifest.py"

(cd "$dist" && sha256sum --quiet -c SHA256SUMS)
$manifest check "$dist"

rm -rf "$scratch" && mkdir -p "$scratch/python"
printf 'one\n' > "$scratch/a.deb"
printf 'two\n' > "$scratch/python/b.whl"
$manifest write "$scratch" > /dev/null
$manifest check "$scratch" > /dev/null

expect_failure() {  # WHAT NAME: the check fails and names NAME
    if $manifest check "$scratch" 2> "$scratch.err" > /dev/null; then
        echo "check-manifest: the check passed with $1" >&2; exit 1
    fi
    grep -q "$2" "$scratch.err" || { echo "check-manifest: the check did not name $2 ($1):" >&2; cat "$scratch.err" >&2; exit 1; }
}
printf 'One\n' > "$scratch/a.deb"
expect_failure "a changed byte" "a.deb's sha256"
printf 'one\n' > "$scratch/a.deb"
printf 'new\n' > "$scratch/c.crate"
expect_failure "a file added" "does not list c.crate"
rm "$scratch/c.crate" "$scratch/python/b.whl"
expect_failure "a file removed" "lists python/b.whl"
rm -rf "$scratch" "$scratch.err"
echo "check-manifest: $dist's SHA256SUMS and manifest.json are true; a changed, added or removed file fails the check"

#!/bin/sh
# The unpacked source tarball holds what the README's two commands need
# (make test-dist-source), without building from it (a whole Swift build;
# `make dist` does that):
#
#   - every file of HEAD's tree and nothing else but mk/dist/source-date-epoch,
#     which holds the commit's time, and mk/dist/files, which lists HEAD's
#     files;
#   - its make, with no git repository to find (GIT_CEILING_DIRECTORIES: the
#     tree is unpacked inside this checkout), reads SOURCE_DATE_EPOCH from
#     that file, and finds every prerequisite of `make demo`, `make test` and
#     `make dist-deb dist-tarball` (make -n names a missing one);
#   - the stages of make test that would ask git pass there without it: the
#     doc citations (test-docs) and the code blocks of README.md and docs/
#     (test-examples);
#   - SwiftPM reads its Package.swift (swift package describe).
#
#   sh Tests/dist/check-source.sh TREE
#
# Run from the repository's root (a git checkout at the commit tarred).
set -eu
tree=$1
fail() {
    echo "check-source.sh: $*" >&2
    exit 1
}
expected=$(mktemp)
actual=$(mktemp)
trap 'rm -f "$expected" "$actual"' EXIT
{ git ls-tree -r --name-only HEAD; echo mk/dist/source-date-epoch; echo mk/dist/files; } | LC_ALL=C sort > "$expected"
(cd "$tree" && find . \( -type f -o -type l \) -printf '%P\n' | LC_ALL=C sort) > "$actual"
diff -u "$expected" "$actual" || fail "the tarball's files are not HEAD's (- HEAD, + tarball)"
epoch=$(git log -1 --format=%ct)
[ "$(cat "$tree/mk/dist/source-date-epoch")" = "$epoch" ] || fail "mk/dist/source-date-epoch is not $epoch"
git ls-tree -r --name-only HEAD | diff -u - "$tree/mk/dist/files" || fail "mk/dist/files is not the list of HEAD's files"

GIT_CEILING_DIRECTORIES=$(dirname "$(cd "$tree" && pwd)")
export GIT_CEILING_DIRECTORIES
unset SOURCE_DATE_EPOCH
(cd "$tree" && ! git rev-parse --git-dir > /dev/null 2>&1) || fail "$tree is inside a git repository"
read_epoch=$(make -C "$tree" --no-print-directory --eval 'print-epoch: ; @echo $(SOURCE_DATE_EPOCH)' print-epoch)
[ "$read_epoch" = "$epoch" ] || fail "the tree's make reads SOURCE_DATE_EPOCH as '$read_epoch', not $epoch"
for goals in demo test "dist-deb dist-tarball"; do
    # shellcheck disable=SC2086
    make -C "$tree" -n $goals > "$actual" 2>&1 || { cat "$actual" >&2; fail "make -n $goals fails in the tarball's tree"; }
done
docs=$(make -C "$tree" --no-print-directory --eval 'print-docs: ; @echo $(CITING_DOCS)' print-docs)
# shellcheck disable=SC2086
(cd "$tree" && python3 tools/check/check-doc-citations.py $docs > "$actual" 2>&1) \
    || { cat "$actual" >&2; fail "the doc citations check (test-docs) fails without git"; }
# shellcheck disable=SC2046
(cd "$tree" && python3 tools/check/check-readme.py README.md $(cd "$tree" && ls docs/*.md docs/*/*.md) > "$actual" 2>&1) \
    || { cat "$actual" >&2; fail "the code blocks check of README.md and docs/ (test-examples) fails without git"; }
(cd "$tree" && swift package describe > "$actual" 2>&1) || { cat "$actual" >&2; fail "swift package describe fails"; }
echo "check-source.sh: $(wc -l < "$expected") files, SOURCE_DATE_EPOCH $epoch; make -n demo, test and dist-deb dist-tarball," \
    "the doc checks without git, swift package describe: fine"

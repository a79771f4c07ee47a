#!/bin/sh
# The Doxygen tag files of the site (signalkit-c.tag, signalkit-cpp.tag) are
# the same bytes whichever folder the tree is built in (issue 80: they
# carried the checkout's absolute path): the C and C++ tag files built, as
# make docs builds them (tools/docs/Doxyfile, Doxyfile-cpp, then
# tools/docs/relative_tags.py), for copies of the headers in two folders of
# different names and depths, then compared.
#
#   sh tools/check/check-tag-paths.sh SCRATCH
#
# Run from the repository's root (make test-docs runs it).
set -eu
root=$(pwd)
rm -rf "$1" && mkdir -p "$1"
scratch=$(cd "$1" && pwd)
for tree in "$scratch/one" "$scratch/other/tree"; do
    mkdir -p "$tree/tools/docs" "$tree/out/cpp"
    cp -R "$root/include" "$tree/"
    cp "$root/tools/docs/Doxyfile" "$root/tools/docs/Doxyfile-cpp" "$root/tools/docs/cpp_comments.py" "$tree/tools/docs/"
    # The tag files are what is compared (the output folder is this one's,
    # not .build-c's; warnings are make docs's to report).
    (cd "$tree" && { cat tools/docs/Doxyfile; echo "OUTPUT_DIRECTORY = out"; echo "GENERATE_TAGFILE = out/signalkit-c.tag";
        echo "WARN_AS_ERROR = NO"; echo "WARNINGS = NO"; } > tools/docs/Doxyfile-tags &&
        SK_VERSION=0 doxygen tools/docs/Doxyfile-tags > out/doxygen.log 2>&1 &&
        python3 "$root/tools/docs/relative_tags.py" out/signalkit-c.tag "$tree" &&
        { sed 's|^@INCLUDE .*|@INCLUDE = tools/docs/Doxyfile-tags|' tools/docs/Doxyfile-cpp; echo "WARN_AS_ERROR = NO"; } \
            > tools/docs/Doxyfile-cpp-tags &&
        SK_VERSION=0 SK_DOCS_OUT=out/cpp SK_DOCS_C_TAG=out/signalkit-c.tag doxygen tools/docs/Doxyfile-cpp-tags \
            >> out/doxygen.log 2>&1 &&
        python3 "$root/tools/docs/relative_tags.py" out/cpp/signalkit-cpp.tag "$tree")
done
for tag in signalkit-c.tag cpp/signalkit-cpp.tag; do
    if ! cmp "$scratch/one/out/$tag" "$scratch/other/tree/out/$tag"; then
        diff "$scratch/one/out/$tag" "$scratch/other/tree/out/$tag" | head -20 >&2
        echo "check-tag-paths.sh: $tag differs between two folders (above): a path of the build in it?" >&2
        exit 1
    fi
done
echo "check-tag-paths.sh: the C and C++ tag files are the same bytes built in two folders"

#!/bin/sh
# What the tarball's install steps of README.md and docs/packaging.md built
# (make test-dist-tarball, through tools/check/run-doc-steps.py tarball --then),
# checked in the folder they ran in, with their HOME:
#
#   sh Tests/dist/check-tarball-steps.sh TARBALL_NAME EXPECTED
#
# ./app (app.c, the C quick start, built by the steps' cc line) prints
# EXPECTED and loads libsignalkit.so.0 from $HOME/opt/TARBALL_NAME/lib; the
# CMake build the steps configured builds, and its app prints EXPECTED too.
set -eu
name=$1 expected=$2
./app > app.out
diff -u "$expected" app.out
loaded=$(ldd ./app | sed -n 's/^[[:space:]]*libsignalkit\.so\.0 => \([^ ]*\) .*/\1/p')
[ "$loaded" = "$HOME/opt/$name/lib/libsignalkit.so.0" ] || {
    echo "check-tarball-steps.sh: app loads libsignalkit.so.0 from '$loaded', not from $HOME/opt/$name/lib" >&2
    exit 1
}
cmake --build build > build.log
./build/app > build-app.out
diff -u "$expected" build-app.out
echo "check-tarball-steps.sh: app and the CMake build's app ran from $HOME/opt/$name"

#!/bin/sh
# The Debian packages SignalKit's build and tests need beside the Swift
# toolchain: what `make demo` and `make test` (so CI) run first, and what a new user may run once.
# Installs only what is missing (apt-get, through sudo when not root): fast
# and harmless when everything is there.
#
#   tools/install-deps.sh           install what is missing
#   tools/install-deps.sh --check   only say what is missing (exit 1 if any)
#   (`make demo` and `make test` run it first, without --check)
set -eu

missing=""
need() { # need PACKAGE TEST...: PACKAGE is missing when the test fails
    package=$1
    shift
    "$@" >/dev/null 2>&1 || missing="$missing $package"
}
need pkg-config command -v pkg-config
need libffi-dev pkg-config --exists libffi
need valgrind command -v valgrind
need python3 command -v python3
need python3-venv python3 -c "import ensurepip"
# The Python package's extension (Sources/python/pysignalkit/_speedups_src) is
# compiled against the running Python's headers.
need python3-dev python3 -c "import os, sys, sysconfig; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))"
need binutils command -v objcopy
need g++ command -v c++
need cmake command -v cmake
need doxygen command -v doxygen
need abigail-tools command -v abidw
# The release artifacts (mk/dist.mk): Debian's own tools make and check the
# .debs (dpkg-dev: dpkg-shlibdeps, dpkg-gensymbols; lintian checks them).
need dpkg-dev command -v dpkg-shlibdeps
need lintian command -v lintian
# make test-docs opens the documentation site in headless Chromium, through
# its WebDriver (Selenium, from PyPI into the docs venv: mk/docs.mk).
need chromium command -v chromium
need chromium-driver command -v chromedriver
# The Rust crates (Sources/rust, mk/rust.mk): Debian's cargo and rustc (1.63,
# the crates' MSRV), always: with no other cargo on PATH they build the
# crates; beside a newer toolchain (rustup's) that one builds it and
# make test-rust checks every target with Debian's 1.63 too, so that the
# stated MSRV is tested on every machine, not only where it happens to be.
need cargo test -x /usr/bin/cargo -a -x /usr/bin/rustc
# The NATS bridge (libsignalkit-nats, mk/nats.mk): the C client it is built
# over, and the server its tests start (in /usr/sbin, which a user's PATH
# may not hold).
need libnats-dev pkg-config --exists libnats
need nats-server test -x /usr/sbin/nats-server

if [ -z "$missing" ]; then
    exit 0
fi
if [ "${1:-}" = "--check" ]; then
    echo "missing Debian packages:$missing" >&2
    echo "install them with tools/install-deps.sh (or make deps)" >&2
    exit 1
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
echo "installing:$missing"
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing

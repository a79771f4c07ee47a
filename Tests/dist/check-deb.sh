#!/bin/sh
# The Debian packages, checked and installed into a scratch root
# (make test-dist-deb; never into this machine's own system):
#
#   - lintian reports no error, and no warning that tools/packaging/debian/NOTES.md does
#     not list (each kept warning is there with its reason);
#   - libsignalkit0's Depends (from dpkg-shlibdeps) names the C and C++
#     runtimes and libffi and nothing of Swift; libsignalkit-dev depends on
#     this very libsignalkit0; libsignalkit0 carries a symbols and a shlibs
#     file for both libraries and activates the ldconfig trigger;
#   - the packages are extracted (dpkg -x) into ROOT, every ELF file there
#     needs only what Depends declares (Tests/dist/check-elf.sh), each
#     library is stripped and its debug information is in the dbgsym
#     package under its build ID (Tests/dist/check-debug.py);
#   - each package's copyright file holds the licence's text once;
#   - libsignalkit-dev carries every example a guide names
#     (Tests/dist/check-examples.sh), and its README's links lead only to
#     what the packages hold or to an https:// address
#     (tools/packaging/package_readme.py);
#   - the quick starts, the search demo and examples/cmake, from those
#     installed copies, are built against ROOT and run without Swift
#     (Tests/dist/use.sh);
#   - the valgrind recipe of docs/c.md, as written, reports nothing for a
#     program that releases everything and the leak of one that does not
#     (Tests/dist/valgrind.sh; the stripped library, no debug file found).
#
#   sh Tests/dist/check-deb.sh DIST VERSION ROOT
#
# DIST: the folder of the .debs; VERSION: their Debian version (0.4.0-1);
# ROOT: the scratch root (made anew). Run from the repository's root.
set -eu
dist=$1 version=$2 root=$3
here=$(dirname "$0")
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
lib=libsignalkit0 dev=libsignalkit-dev dbg=libsignalkit0-dbgsym
fail() {
    echo "check-deb.sh: $*" >&2
    exit 1
}
for p in $lib $dev $dbg; do
    [ -f "$dist/${p}_${version}_$arch.deb" ] || fail "$dist/${p}_${version}_$arch.deb is missing"
done
deb() { echo "$dist/${1}_${version}_$arch.deb"; }

# lintian: its tags, one a line ("E: package: tag detail"); the kept
# warnings are NOTES.md's lines "- `tag`: reason".
if ! lintian --no-cfg --fail-on error --display-level '>=warning' --tag-display-limit 0 \
    "$(deb $lib)" "$(deb $dev)" "$(deb $dbg)" > "$root.lintian" 2>&1; then
    cat "$root.lintian" >&2
    fail "lintian reports errors (or could not run)"
fi
kept=$(sed -n 's/^- `\([a-z0-9.+-]*\)`.*/\1/p' tools/packaging/debian/NOTES.md)
unlisted=$(sed -n 's/^W: [^:]*: \([a-z0-9.+-]*\).*/\1/p' "$root.lintian" | sort -u | while read -r tag; do
    printf '%s\n' "$kept" | grep -qx "$tag" || echo "$tag"
done)
if [ -n "$unlisted" ]; then
    cat "$root.lintian" >&2
    fail "lintian warnings not listed in tools/packaging/debian/NOTES.md: $unlisted"
fi
echo "check-deb.sh: lintian: no error; warnings: $(sed -n 's/^W: [^:]*: \([a-z0-9.+-]*\).*/\1/p' "$root.lintian" | sort -u | tr '\n' ' ')"

depends=$(dpkg-deb -f "$(deb $lib)" Depends)
names=$(printf '%s\n' "$depends" | tr ',|' '\n\n' | sed -e 's/(.*)//' -e 's/ //g' -e '/^$/d' | LC_ALL=C sort | tr '\n' ' ')
[ "$names" = "libc6 libffi8 libgcc-s1 libstdc++6 " ] || fail "$lib depends on '$depends' (expected libc6, libffi8, libgcc-s1, libstdc++6)"
printf '%s\n' "$depends" | grep -qi swift && fail "$lib depends on Swift: $depends"
[ "$(dpkg-deb -f "$(deb $dev)" Depends)" = "$lib (= $version)" ] || fail "$dev depends on '$(dpkg-deb -f "$(deb $dev)" Depends)'"
control=$root.control
rm -rf "$control" && dpkg-deb -e "$(deb $lib)" "$control"
for soname in libsignalkit.so.0 libsignalkit-ffi.so.0; do
    grep -q "^$soname $lib #MINVER#" "$control/symbols" || fail "$lib's symbols file has no entry for $soname"
done
grep -q '^ sk_pipe_create@SIGNALKIT_0 ' "$control/symbols" || fail "$lib's symbols file lacks sk_pipe_create"
grep -q '^ sk_ffi_' "$control/symbols" || fail "$lib's symbols file lacks the sk_ffi_ functions"
[ "$(cut -d' ' -f1,2 "$control/shlibs" | tr '\n' ' ')" = "libsignalkit 0 libsignalkit-ffi 0 " ] || fail "$lib's shlibs: $(cat "$control/shlibs")"
grep -qx 'activate-noawait ldconfig' "$control/triggers" || fail "$lib does not activate the ldconfig trigger"

rm -rf "$root" && mkdir -p "$root"
for p in $lib $dev $dbg; do
    dpkg -x "$(deb $p)" "$root"
done
libdir=$root/usr/lib/$multiarch
sh "$here/check-elf.sh" "$root" "$depends"
for name in libsignalkit.so libsignalkit-ffi.so; do
    file=$(readlink -f "$libdir/$name.0")
    id=$(readelf -n "$file" | sed -n 's/^ *Build ID: //p')
    python3 "$here/check-debug.py" "$file" \
        "$root/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
done
# Each package's copyright file: the licence's text once, after its
# template's "License: MIT" (it was there twice: the template held it too).
for p in libsignalkit0 "$dev"; do
    copyright=$root/usr/share/doc/$p/copyright
    count=$(grep -c 'Permission is hereby granted' "$copyright" || true)
    [ "$count" = 1 ] || { echo "$copyright: the licence text $count times, not once" >&2; exit 1; }
    grep -q '^ Copyright (c) .* The SignalKit authors$' "$copyright" ||
        { echo "$copyright: no copyright line of The SignalKit authors" >&2; exit 1; }
done
examples=$root/usr/share/doc/$dev/examples
sh "$here/check-examples.sh" "$examples"
gunzip -c "$root/usr/share/doc/$dev/README.md.gz" > "$root.README.md"
python3 "$here/../../tools/packaging/package_readme.py" check "$root.README.md" "$root" --as "usr/share/doc/$dev/README.md"
sh "$here/use.sh" "$root.use" "$libdir" "$root/usr" "$examples" \
    env "PKG_CONFIG_PATH=$libdir/pkgconfig" "PKG_CONFIG_SYSROOT_DIR=$root" pkg-config
sh "$here/valgrind.sh" "$root.valgrind" "$libdir" "PKG_CONFIG_PATH=$libdir/pkgconfig" "PKG_CONFIG_SYSROOT_DIR=$root"

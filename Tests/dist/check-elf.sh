#!/bin/sh
# Every ELF file of an installed SignalKit tree needs only what the
# artifacts declare (make test-dist-deb, make test-dist-tarball): its NEEDED
# entries are among the libraries named below, its runpath, if any, is
# $ORIGIN, ldd (no LD_LIBRARY_PATH) finds every library it needs, and it
# finds libsignalkit.so.0 inside the tree. With DEPENDS given, each library
# found outside the tree belongs to (dpkg -S) one of the Debian packages
# named there.
#
#   sh Tests/dist/check-elf.sh TREE [DEPENDS]
#
# TREE: the folder whose files are checked (debug files under usr/lib/debug
# and *.debug files are not programs: skipped). DEPENDS: a Depends field
# ("libc6 (>= 2.35), libffi8 (>= 3.4), ...").
set -eu
tree=$1
depends=${2:-}
unset LD_LIBRARY_PATH
# The C and C++ runtimes, libm, the loader, libffi (for libsignalkit-ffi)
# and the core itself (for libsignalkit-ffi): nothing of Swift.
allowed="libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1 ld-linux-x86-64.so.2 libffi.so.8 libsignalkit.so.0"
packages=$(printf '%s\n' "$depends" | tr ',|' '\n\n' | sed -e 's/(.*)//' -e 's/ //g' -e '/^$/d')
count=0
ldd_out=$(mktemp)
trap 'rm -f "$ldd_out"' EXIT
for file in $(find "$tree" -type f ! -path '*/usr/lib/debug/*' ! -name '*.debug' | LC_ALL=C sort); do
    if ! readelf -h "$file" > /dev/null 2>&1; then
        continue
    fi
    count=$((count + 1))
    for needed in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        case " $allowed " in
            *" $needed "*) ;;
            *) echo "check-elf.sh: $file needs $needed, which no artifact declares" >&2; exit 1 ;;
        esac
    done
    runpath=$(readelf -d "$file" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')
    if [ -n "$runpath" ] && [ "$runpath" != '$ORIGIN' ]; then
        echo "check-elf.sh: $file has the runpath $runpath (only \$ORIGIN is relocatable)" >&2
        exit 1
    fi
    ldd "$file" > "$ldd_out" 2>&1 || true
    if grep -q 'not found' "$ldd_out"; then
        echo "check-elf.sh: $file: a library is not found:" >&2
        cat "$ldd_out" >&2
        exit 1
    fi
    core=$(sed -n 's/^[[:space:]]*libsignalkit\.so\.0 => \([^ ]*\) .*/\1/p' "$ldd_out")
    case "$core" in
        ""|"$tree"/*) ;;
        *) echo "check-elf.sh: $file finds libsignalkit.so.0 outside the tree: $core" >&2; exit 1 ;;
    esac
    if [ -n "$depends" ]; then
        for found in $(sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p' "$ldd_out"); do
            case "$found" in "$tree"/*) continue ;; esac
            owner=$(dpkg -S "$found" 2>/dev/null | head -n 1 | cut -d: -f1)
            if [ -z "$owner" ]; then
                owner=$(dpkg -S "$(realpath "$found")" 2>/dev/null | head -n 1 | cut -d: -f1)
            fi
            if [ -z "$owner" ] || ! printf '%s\n' "$packages" | grep -qx "$owner"; then
                echo "check-elf.sh: $file needs $found, of package '$owner', which Depends does not name ($depends)" >&2
                exit 1
            fi
        done
    fi
done
if [ "$count" -eq 0 ]; then
    echo "check-elf.sh: no ELF file in $tree" >&2
    exit 1
fi
echo "check-elf.sh: $count ELF files in $tree need only what is declared"

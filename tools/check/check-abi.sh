#!/bin/sh
# Compares the ABI of a built library (abidw of its twin, mk/abi.mk) with the
# record in Tests/abi, and says what the difference means for the versions.
#
#   check-abi.sh check  RECORD NEW VERSION RECORDED-VERSION SOVERSION-VARIABLE [UNRELEASED]
#   check-abi.sh update RECORD NEW VERSION RECORDED-VERSION SOVERSION-VARIABLE [UNRELEASED]
#
# check: exit 0 when NEW has the ABI of RECORD; otherwise print abidiff's
# report and what to do, and exit 1. update: write NEW over RECORD, and
# VERSION into Tests/abi/version, when the change is allowed by the versions
# (see below), else the same refusal; a missing RECORD is written.
#
# The policy (docs/maintainers/releasing.md, "Versioning"):
# - incompatible (a function, variable or symbol removed or changed, a public
#   type's layout or an enumerator's value changed): allowed only with a new
#   soname (the major of RECORD's soname differs from NEW's, SOVERSION-
#   VARIABLE in the Makefiles), and a raised version;
# - compatible additions (a function, a type, an enumerator): allowed with a
#   raised version;
# - "raised": VERSION's major.minor is above RECORDED-VERSION's, the version
#   that the last `make abi-update` recorded (Tests/abi/version); for
#   additions also when VERSION is RECORDED-VERSION and UNRELEASED is 1 (the
#   version being prepared, which CHANGELOG.md has no heading for yet: what
#   it adds is recorded as it lands, before its release).
#
# How: abidiff's default report (harmless changes filtered out) with
# --non-reachable-types, so that types no function names are compared too.
# Its exit status marks removals (8) and any change (4), but a changed type
# only sets 4, as an addition does: the summary lines tell them apart
# ("N Removed, N Changed, N Added"). Changes that libabigail deems harmless,
# such as an enumerator appended, are filtered out of that report; a second
# run with --harmless finds them, and they count as additions.
set -u
mode=$1 record=$2 new=$3 version=$4 recorded_version=$5 soversion_var=$6 unreleased=${7:-0}
name=$(basename "$record" .abi)
version_file=$(dirname "$record")/version
report=$(mktemp)
trap 'rm -f "$report"' EXIT

record_new() {
    cp "$new" "$record"
    echo "$version" > "$version_file"
    echo "$name: recorded the ABI of version $version in $record"
    exit 0
}
if [ ! -f "$record" ]; then
    [ "$mode" = update ] && record_new
    echo "error: $name: no ABI record ($record): run 'make abi-update'" >&2
    exit 1
fi

abidiff --non-reachable-types "$record" "$new" > "$report" 2>&1
status=$?
if [ $((status & 3)) -ne 0 ]; then
    cat "$report" >&2
    echo "abidiff failed on $record and $new (status $status)" >&2
    exit 1
fi
harmless=0
abidiff --non-reachable-types --harmless "$record" "$new" > /dev/null 2>&1 || harmless=$?

if [ "$status" -eq 0 ] && [ "$harmless" -eq 0 ]; then
    [ "$mode" = update ] && echo "$name: unchanged"
    exit 0
fi

soname() { sed -n "s/^<abi-corpus [^>]*soname='\([^']*\)'.*/\1/p" "$1"; }
old_soname=$(soname "$record")
new_soname=$(soname "$new")
# major.minor as one comparable number
minor_of() { echo "$1" | awk -F. '{ print $1 * 1000000 + $2 }'; }
raised=0
[ "$(minor_of "$version")" -gt "$(minor_of "$recorded_version")" ] && raised=1

incompatible=0
if [ $((status & 8)) -ne 0 ] || grep 'summary:' "$report" | grep -Eq '[1-9][0-9]* ([Rr]emoved|[Cc]hanged)'; then
    incompatible=1
fi

if [ "$status" -ne 0 ]; then
    cat "$report"
else
    echo "$name: compatible changes that abidiff deems harmless (an enumerator added...):"
    abidiff --non-reachable-types --harmless "$record" "$new"
fi

refuse() {
    echo "" >&2
    echo "error: $name: $*" >&2
    exit 1
}
need_raise="raise the minor version (VERSION in the Makefile, now $version; the ABI record is of $recorded_version)"
if [ "$incompatible" = 1 ] && [ "$old_soname" = "$new_soname" ]; then
    refuse "INCOMPATIBLE ABI change (removed or changed function, symbol or type layout; report above)." \
        "A program built against $old_soname would break. Undo the change, or, if the break is meant," \
        "raise the soname's major ($soversion_var), $need_raise and run 'make abi-update'."
fi
if [ "$raised" = 0 ] && [ "$incompatible" = 0 ] && [ "$unreleased" = 1 ] && [ "$version" = "$recorded_version" ]; then
    raised=1
fi
if [ "$raised" = 0 ]; then
    if [ "$incompatible" = 1 ]; then
        refuse "the soname changed ($old_soname -> $new_soname) for the incompatible changes above:" \
            "also $need_raise, then run 'make abi-update'."
    fi
    refuse "ABI additions (report above) that Tests/abi does not record: $need_raise, then run 'make abi-update'."
fi
if [ "$mode" = check ]; then
    if [ "$incompatible" = 1 ]; then
        refuse "incompatible changes allowed by the new soname ($old_soname -> $new_soname) and version $version," \
            "not yet recorded: run 'make abi-update'."
    fi
    refuse "ABI additions allowed by version $version, not yet recorded: run 'make abi-update'."
fi
record_new

# Sourced by the scripts of Tests/dist that use an installed SignalKit as a
# user without Swift does: takes every folder that holds swift or swiftc off
# PATH, unsets LD_LIBRARY_PATH, and fails when swift is still found.
unset LD_LIBRARY_PATH
no_swift_path=""
no_swift_ifs=$IFS
IFS=:
for no_swift_dir in $PATH; do
    if [ -n "$no_swift_dir" ] && [ ! -e "$no_swift_dir/swift" ] && [ ! -e "$no_swift_dir/swiftc" ]; then
        no_swift_path="${no_swift_path:+$no_swift_path:}$no_swift_dir"
    fi
done
IFS=$no_swift_ifs
PATH=$no_swift_path
export PATH
if command -v swift > /dev/null 2>&1 || command -v swiftc > /dev/null 2>&1; then
    echo "$0: swift is still on PATH ($PATH)" >&2
    exit 1
fi

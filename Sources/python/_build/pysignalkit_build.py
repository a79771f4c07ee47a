"""The in-tree PEP 517 build backend of the pysignalkit Python package.

It needs nothing from PyPI: `pip install Sources/python`, `pip wheel` and
`python -m build` work offline. The wheel carries the two native libraries
(libsignalkit.so.0, libsignalkit-ffi.so.0 with an rpath of $ORIGIN) in
pysignalkit/_lib, and the extension module pysignalkit/_speedups (the crossing
between the library and Python: every .c of pysignalkit/_speedups_src, one
.so), compiled here with the system's C compiler (CC, else cc) against the
running Python's headers (Python.h: Debian's python3-dev) and linked to
libsignalkit.so.0 (an rpath of $ORIGIN/_lib). The extension uses the
stable ABI of CPython 3.9 (Py_LIMITED_API), so the wheel is tagged
cp39-abi3-PLATFORM: any CPython 3.9 or later on this platform, no Swift
toolchain nor compiler at run time.
SIGNALKIT_WERROR=1 (set by `make python-wheel`) makes a compiler warning
fail the build. `make dist-wheel` (mk/python.mk) has auditwheel tag the
wheel manylinux and sets the two variables below.

The metadata (Metadata-Version 2.4) names the licence (License-Expression:
MIT) and carries the tree's LICENSE in the dist-info's licenses/ folder; the
sdist carries LICENSE and CHANGELOG.md at its top.
SIGNALKIT_BUNDLED_LICENSES, when set ("NAME=PATH ...", what `make
dist-wheel` passes for the libffi that auditwheel then bundles): the wheel
also carries each file PATH as the dist-info's licenses/NAME, named by a
License-File line (a copy of a library must carry its notice). Reproducible: with
SOURCE_DATE_EPOCH set, every archive member has that time (else the wheel's
have a fixed one), the members are in sorted order with fixed permissions
and owners. SIGNALKIT_DEBUG_DIR, when set, makes every ELF file the wheel
carries stripped, its debug information written to that folder as
NAME.debug (named by the file's .gnu_debuglink).

Where the libraries come from:
- SIGNALKIT_PREBUILT_DIR, when set: a folder already holding both (what
  `make test-python` passes after building them itself, so that the wheel
  build never runs a second make beside the first);
- otherwise `make python-native` in the SignalKit tree, which needs the
  Swift toolchain 6.x (checked first: SWIFT, else `swift` on PATH): the
  checkout two folders up (Sources/python is inside
  it), or, in an sdist, the copy of the tree in its folder `native`.

The sdist carries the package and that copy of the tree (the Swift, C and
build files, not the examples, benchmarks or this package twice), so that a
wheel built from it (what `python -m build` does) needs nothing else
(tools/packaging/check_python_sdist.py checks it in `make test-python`).

An editable install (`pip install -e`, PEP 660: build_editable) builds the
libraries and the extension into this folder's package and installs a .pth
file naming `.editable`, a folder of this one holding only a link to the
package.
"""

import base64
import gzip
import hashlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile

NAME = "pysignalkit"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARIES = ("libsignalkit.so.0", "libsignalkit-ffi.so.0")
# The extension's sources, a folder of the package: every .c in it is
# compiled into the one EXTENSION; the wheel carries none of it.
EXTENSION_SOURCES = "_speedups_src"
EXTENSION = "_speedups.abi3.so"
# The stable ABI the extension is written against (Py_LIMITED_API in
# _speedups_src/speedups.h): CPython 3.9 and later.
ABI_TAG = "cp39-abi3"
# What of the SignalKit tree the sdist carries (tree-relative paths).
TREE_ENTRIES = ("Package.swift", "Makefile", "VERSION", "LICENSE", "Sources", "include", "mk", "pkgconfig", "Tests", "tools/install-deps.sh")
# What of this folder the sdist and the wheel carry.
PACKAGE_FILES = ("pyproject.toml", "README.md", "_build/pysignalkit_build.py")
# What of the tree the sdist also carries at its top (PEP 639: the licence
# file at the path License-File names).
TOP_FILES = ("LICENSE", "CHANGELOG.md")
# The licence, as pyproject.toml's `license` says it (an SPDX expression).
LICENSE_EXPRESSION = "MIT"
# The toolchain a build from source needs (Package.swift's tools version is
# 6.0; README.md of the repository says which one the project is tested with).
SWIFT_MAJOR = 6
# Never carried: caches, build folders, and what an editable install built
# into this folder (pysignalkit/_lib, the compiled extension); and the
# Cargo.lock that cargo writes beside the Rust workspace's manifest whenever
# it builds it (Sources/rust, git-ignored: make test-rust makes it).
SKIPPED = re.compile(r"(^|/)(__pycache__|\.build[^/]*|\.swiftpm|\.mypy_cache|\.pytest_cache|[^/]*\.egg-info)(/|$)"
                     r"|\.pyc$|\.so(\.[0-9]+)*$|(^|/)Cargo\.lock$")


def _tree():
    """The SignalKit tree: the sdist's copy, else the enclosing checkout."""
    for candidate in (os.path.join(HERE, "native"), os.path.dirname(os.path.dirname(HERE))):
        if os.path.exists(os.path.join(candidate, "Package.swift")) and \
                os.path.exists(os.path.join(candidate, "Makefile")):
            return candidate
    raise RuntimeError("signalkit: the SignalKit sources are not here: build from a checkout "
                       "(pip install <checkout>/Sources/python) or from the sdist")


def _version():
    """The libraries' version: the file VERSION at the tree's root (the one
    place it is written), or the PKG-INFO of an unpacked sdist without its
    tree."""
    try:
        path = os.path.join(_tree(), "VERSION")
        text = open(path, encoding="utf-8").read().strip() if os.path.exists(path) else ""
    except RuntimeError:
        text = ""
    if re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", text):
        return text
    stamp = os.path.join(HERE, "PKG-INFO")
    match = re.search(r"^Version: (\S+)$", open(stamp, encoding="utf-8").read(), re.M) if os.path.exists(stamp) else None
    if not match:
        raise RuntimeError("signalkit: the tree has no VERSION file holding MAJOR.MINOR.PATCH")
    return match.group(1)


def _license_file():
    """The path of the licence file: this folder's (an unpacked sdist's top),
    else the tree's."""
    for folder in (HERE, _tree()):
        path = os.path.join(folder, "LICENSE")
        if os.path.isfile(path):
            return path
    raise RuntimeError("signalkit: the tree has no LICENSE file")


def _bundled_licenses():
    """(NAME, PATH) of each SIGNALKIT_BUNDLED_LICENSES entry ("NAME=PATH"
    separated by spaces); RuntimeError for a malformed one or a missing
    file."""
    pairs = []
    for entry in os.environ.get("SIGNALKIT_BUNDLED_LICENSES", "").split():
        name, _, path = entry.partition("=")
        if not name or not path or "/" in name or name == "LICENSE":
            raise RuntimeError(f"signalkit: SIGNALKIT_BUNDLED_LICENSES: {entry!r} is not NAME=PATH "
                               "(NAME a file name other than LICENSE)")
        if not os.path.isfile(path):
            raise RuntimeError(f"signalkit: SIGNALKIT_BUNDLED_LICENSES: {path} is not a file")
        pairs.append((name, path))
    return pairs


def _metadata(version, wheel=False):
    """PKG-INFO, or the wheel's METADATA (its bundled libraries' licence
    files named too)."""
    readme = open(os.path.join(HERE, "README.md"), encoding="utf-8").read()
    bundled = "".join(f"License-File: {name}\n" for name, _ in _bundled_licenses()) if wheel else ""
    return (f"Metadata-Version: 2.4\nName: {NAME}\nVersion: {version}\n"
            "Summary: Reactive streams for Python over SignalKit's C library (a Linux port of SwiftSignalKit)\n"
            f"License-Expression: {LICENSE_EXPRESSION}\nLicense-File: LICENSE\n{bundled}"
            "Requires-Python: >=3.9\nClassifier: Typing :: Typed\n"
            "Classifier: Operating System :: POSIX :: Linux\n"
            f"Description-Content-Type: text/markdown\n\n{readme}")


def _platform_tag():
    return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _wheel_tag():
    return f"{ABI_TAG}-{_platform_tag()}"


def _extension(native):
    """The extension module, compiled from the .c files of
    pysignalkit/_speedups_src (in sorted order) against this Python's headers
    and the tree's include/signalkit.h, linked to the libsignalkit.so.0 in
    `native`: its bytes."""
    if sys.implementation.name != "cpython" or sys.version_info < (3, 9):
        raise RuntimeError(f"signalkit: the package's extension needs CPython 3.9 or later, not "
                           f"{sys.implementation.name} {sys.version.split()[0]}")
    include = sysconfig.get_paths()["include"]
    if not os.path.isfile(os.path.join(include, "Python.h")):
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        raise RuntimeError(f"signalkit: Python.h is not in {include}: the package's extension needs the "
                           f"headers of this Python (Debian: apt-get install python3-dev, or python{version}-dev "
                           f"for this interpreter; tools/install-deps.sh installs it)")
    headers = os.path.join(_tree(), "include")
    if not os.path.isfile(os.path.join(headers, "signalkit.h")):
        raise RuntimeError(f"signalkit: signalkit.h is not in {headers}")
    folder = os.path.join(HERE, NAME, EXTENSION_SOURCES)
    sources = sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".c")) \
        if os.path.isdir(folder) else []
    if not sources:
        raise RuntimeError(f"signalkit: the extension's sources (*.c) are not in {folder}")
    compiler = shlex.split(os.environ.get("CC") or "cc")
    warnings = ["-Wall", "-Wextra", "-pedantic"] + (["-Werror"] if os.environ.get("SIGNALKIT_WERROR") == "1" else [])
    # No path of this build's folder in the result: the folder holding both
    # this package and the tree is written as "." (debug information,
    # __FILE__).
    root = os.path.commonpath([HERE, _tree()])
    # DWARF 4, as the libraries' (RELEASE_CDEBUG in the Makefile): Debian
    # 12's valgrind gives up on a file with DWARF 5 in it.
    debug = ["-g", "-gdwarf-4", f"-ffile-prefix-map={root}=."] if os.environ.get("SIGNALKIT_DEBUG_DIR") else \
        [f"-ffile-prefix-map={root}=."]
    # libffi (the native forms' closures, _speedups_src/native.c), which
    # libsignalkit-ffi needs too: its flags from pkg-config when it knows
    # them, else the compiler's default paths.
    ffi_flags = ["-lffi"]
    try:
        found = subprocess.run(["pkg-config", "--cflags", "--libs", "libffi"], capture_output=True, text=True)
        if found.returncode == 0 and found.stdout.strip():
            ffi_flags = shlex.split(found.stdout)
    except OSError:
        pass
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, EXTENSION)
        command = compiler + ["-std=c11", "-O2", "-fPIC", "-shared", *debug, *warnings, "-I", include, "-I", headers,
                              *sources, "-L", native, "-l:libsignalkit.so.0", *ffi_flags, "-Wl,-rpath,$ORIGIN/_lib",
                              "-o", out]
        print("signalkit: building the extension: " + " ".join(shlex.quote(c) for c in command), file=sys.stderr)
        try:
            subprocess.run(command, check=True, stdout=sys.stderr)
        except FileNotFoundError as error:
            raise RuntimeError(f"signalkit: no C compiler ({compiler[0]}): install one (Debian: gcc), "
                               f"or set CC") from error
        with open(out, "rb") as built:
            return built.read()


def _split_debug(name, data):
    """`data`, an ELF file the wheel carries as `name`, stripped when
    SIGNALKIT_DEBUG_DIR is set, its debug information and symbol table
    written there as BASENAME.debug, which its .gnu_debuglink names (the
    CRC of that file): its bytes. Else `data` unchanged."""
    folder = os.environ.get("SIGNALKIT_DEBUG_DIR")
    if not folder:
        return data
    os.makedirs(folder, exist_ok=True)
    debug = os.path.join(os.path.abspath(folder), os.path.basename(name) + ".debug")
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, os.path.basename(name))
        with open(path, "wb") as out:
            out.write(data)
        try:
            # Without .debug_names, as mk/dist.mk's split (gdb warns at each
            # load of the linker's concatenation of the objects' indexes).
            subprocess.run(["objcopy", "--only-keep-debug", "--remove-section=.debug_names", path, debug], check=True)
            subprocess.run(["objcopy", "--strip-all", f"--add-gnu-debuglink={debug}", path], check=True)
        except FileNotFoundError as error:
            raise RuntimeError("signalkit: SIGNALKIT_DEBUG_DIR needs objcopy (Debian: binutils)") from error
        with open(path, "rb") as stripped:
            return stripped.read()


def _check_swift():
    """The Swift toolchain `make python-native` needs (SWIFT_MAJOR.x; SWIFT,
    else `swift` on PATH, as the Makefile takes it): a RuntimeError saying
    what is missing and what to do, at once, rather than make's "swift: No
    such file or directory" after a while."""
    swift = os.environ.get("SWIFT") or "swift"
    advice = (f"README.md (\"Two commands\") says where to get it; or set SWIFT=/path/to/swift; or install "
              "the prebuilt wheel instead (pip install pysignalkit-VERSION-cp39-abi3-manylinux_*.whl, README.md, "
              "\"Install\"), which needs no Swift")
    found = shutil.which(swift)
    banner = ""
    if found:
        try:
            banner = subprocess.run([found, "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    text=True, check=False, timeout=120).stdout
        except (OSError, subprocess.SubprocessError):
            banner = ""
    match = re.search(r"Swift version (\d+)\.([\d.]*)", banner)
    if match is None:
        raise RuntimeError(f"signalkit: '{swift}' is not on PATH (or does not run): building the package from "
                           f"source needs the Swift toolchain {SWIFT_MAJOR}.x (tested with 6.3). {advice}")
    if int(match.group(1)) < SWIFT_MAJOR:
        raise RuntimeError(f"signalkit: '{swift}' is Swift {match.group(1)}.{match.group(2)}: building the "
                           f"package from source needs the Swift toolchain {SWIFT_MAJOR}.x (tested with 6.3). "
                           f"{advice}")


def _native_libraries():
    """The folder holding both libraries, built if need be."""
    prebuilt = os.environ.get("SIGNALKIT_PREBUILT_DIR")
    if prebuilt:
        directory = os.path.abspath(prebuilt)
    else:
        _check_swift()
        tree = _tree()
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        command = [os.environ.get("MAKE", "make"), "-C", tree, "python-native"]
        print("signalkit: building the native libraries: " + " ".join(command), file=sys.stderr)
        subprocess.run(command, check=True, env=env, stdout=sys.stderr)
        directory = os.path.join(tree, ".build-c", "python")
    for name in LIBRARIES:
        if not os.path.isfile(os.path.join(directory, name)):
            raise RuntimeError(f"signalkit: {name} is not in {directory}")
    return directory


def _package_files():
    """(archive name, path) of every file of the Python package."""
    root = os.path.join(HERE, NAME)
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not SKIPPED.search(d + "/") and d != "_lib")
        for name in sorted(files):
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, HERE).replace(os.sep, "/")
            if not SKIPPED.search(relative):
                yield relative, path


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _dist_info(version):
    """(name, data) of the dist-info files but RECORD."""
    tag = _wheel_tag()
    dist_info = f"{NAME}-{version}.dist-info"
    return [
        (f"{dist_info}/METADATA", _metadata(version, wheel=True).encode()),
        (f"{dist_info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: pysignalkit_build\nRoot-Is-Purelib: false\n"
                                f"Tag: {tag}\n").encode()),
        (f"{dist_info}/top_level.txt", f"{NAME}\n".encode()),
        (f"{dist_info}/licenses/LICENSE", open(_license_file(), "rb").read()),
    ] + [(f"{dist_info}/licenses/{name}", open(path, "rb").read()) for name, path in _bundled_licenses()]


def _epoch():
    """SOURCE_DATE_EPOCH (seconds), the time every archive member gets when
    set (`make dist-wheel` sets the last commit's date); else None."""
    value = os.environ.get("SOURCE_DATE_EPOCH")
    if value is None or value == "":
        return None
    if not value.isdigit():
        raise RuntimeError(f"signalkit: SOURCE_DATE_EPOCH is {value!r}, not a number of seconds")
    return int(value)


def _write_wheel(wheel_directory, entries):
    version = _version()
    tag = _wheel_tag()
    dist_info = f"{NAME}-{version}.dist-info"
    filename = f"{NAME}-{version}-{tag}.whl"
    # Sorted, the dist-info last (RECORD last of all), as PEP 427 recommends.
    entries = sorted(entries) + [(name, data, 0o644) for name, data in _dist_info(version)]
    record = [_record_line(name, data) for name, data, _ in entries] + [f"{dist_info}/RECORD,,"]
    entries.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
    epoch = _epoch()
    # A zip time is local time without a zone, from 1980: the epoch's UTC.
    stamp = max(time.gmtime(epoch)[:6], (1980, 1, 1, 0, 0, 0)) if epoch is not None else (2020, 1, 1, 0, 0, 0)
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return filename


# PEP 517 hooks.

def get_requires_for_build_wheel(config_settings=None):
    """Nothing: the backend uses the standard library only."""
    return []


def get_requires_for_build_sdist(config_settings=None):
    """Nothing: the backend uses the standard library only."""
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """The dist-info folder alone (no native build)."""
    version = _version()
    for name, data in _dist_info(version):
        path = os.path.join(metadata_directory, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as out:
            out.write(data)
    return f"{NAME}-{version}.dist-info"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """The wheel: the package, its py.typed, both native libraries, and the
    extension (not its C sources)."""
    native = _native_libraries()
    entries = []
    for name, path in _package_files():
        if name.endswith(".so") or name.startswith(f"{NAME}/{EXTENSION_SOURCES}/"):
            continue
        with open(path, "rb") as source:
            entries.append((name, source.read(), 0o644))
    entries.append((f"{NAME}/{EXTENSION}", _split_debug(EXTENSION, _extension(native)), 0o755))
    for library in LIBRARIES:
        with open(os.path.join(native, library), "rb") as source:
            entries.append((f"{NAME}/_lib/{library}", _split_debug(library, source.read()), 0o755))
    return _write_wheel(wheel_directory, entries)


def get_requires_for_build_editable(config_settings=None):
    """Nothing: the backend uses the standard library only."""
    return []


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    """The dist-info folder alone, as for a wheel."""
    return prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def _replace_file(path, data, mode):
    """Writes `path` whole or not at all (a running Python may have it loaded)."""
    scratch = f"{path}.tmp{os.getpid()}"
    with open(scratch, "wb") as out:
        out.write(data)
    os.chmod(scratch, mode)
    os.replace(scratch, path)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """An editable wheel (PEP 660, `pip install -e Sources/python`): the
    native libraries and the extension are built into this folder's package
    (pysignalkit/_lib, pysignalkit/_speedups.abi3.so, both ignored by git), and
    the wheel holds only a .pth file that puts `.editable` on sys.path, a
    folder of this one (ignored by git) holding nothing but a link to the
    package, so that `import pysignalkit` finds this folder's package and no
    other name of this folder (tests, _build) becomes importable: an edit
    of a .py file takes effect at the next import; a change of the
    extension's sources (pysignalkit/_speedups_src) or of the native sources
    needs the install run again."""
    native = _native_libraries()
    package = os.path.join(HERE, NAME)
    os.makedirs(os.path.join(package, "_lib"), exist_ok=True)
    for library in LIBRARIES:
        with open(os.path.join(native, library), "rb") as source:
            _replace_file(os.path.join(package, "_lib", library), source.read(), 0o755)
    _replace_file(os.path.join(package, EXTENSION), _extension(native), 0o755)
    links = os.path.join(HERE, ".editable")
    os.makedirs(links, exist_ok=True)
    link = os.path.join(links, NAME)
    if os.path.islink(link) or os.path.exists(link):
        os.remove(link)
    os.symlink(os.path.join("..", NAME), link)
    pth = f"__editable__.{NAME}-{_version()}.pth"
    return _write_wheel(wheel_directory, [(pth, (links + "\n").encode(), 0o644)])


def build_sdist(sdist_directory, config_settings=None):
    """The sdist: this folder (package, tests, backend), the tree's LICENSE
    and CHANGELOG.md, and the SignalKit tree the wheel is built from, in
    `native`. Every member is a file of mode 0644, or 0755 when executable,
    owned by root, of SOURCE_DATE_EPOCH's time (else now's)."""
    version = _version()
    base = f"{NAME}-{version}"
    tree = _tree()
    filename = f"{base}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    epoch = _epoch()
    mtime = epoch if epoch is not None else int(time.time())

    def add(archive, path, name):
        info = archive.gettarinfo(path, name)
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = mtime
        info.mode = 0o755 if info.mode & 0o100 else 0o644
        if info.isfile():
            with open(path, "rb") as source:
                archive.addfile(info, source)
        else:
            archive.addfile(info)

    def add_tree(archive, root, relative, prefix, skip=None):
        path = os.path.join(root, relative)
        if os.path.isfile(path):
            add(archive, path, f"{prefix}/{relative}")
            return
        for folder, dirs, files in os.walk(path):
            rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
            dirs[:] = sorted(d for d in dirs if not SKIPPED.search(f"{rel_folder}/{d}/")
                             and not (skip and f"{rel_folder}/{d}" == skip))
            for name in sorted(files):
                rel = f"{rel_folder}/{name}"
                if not SKIPPED.search(rel):
                    add(archive, os.path.join(folder, name), f"{prefix}/{rel}")

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for relative in PACKAGE_FILES:
            add(archive, os.path.join(HERE, relative), f"{base}/{relative}")
        for relative in TOP_FILES:
            source = os.path.join(HERE, relative)
            add(archive, source if os.path.isfile(source) else os.path.join(tree, relative), f"{base}/{relative}")
        for relative in (NAME, "tests"):
            add_tree(archive, HERE, relative, base, skip=f"{NAME}/_lib")
        if tree != os.path.join(HERE, "native"):  # a checkout: this folder is Sources/python inside it
            skip = os.path.relpath(HERE, tree).replace(os.sep, "/")
        else:
            skip = None
        for relative in TREE_ENTRIES:
            if os.path.exists(os.path.join(tree, relative)):
                add_tree(archive, tree, relative, f"{base}/native", skip=skip)
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata(version).encode()
        info.size, info.mtime, info.mode = len(data), mtime, 0o644
        archive.addfile(info, io.BytesIO(data))
    with open(os.path.join(sdist_directory, filename), "wb") as out:
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=mtime) as compressed:
            compressed.write(buffer.getvalue())
    return filename


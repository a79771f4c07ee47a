"""The in-tree PEP 517 build backend of the signalkit Python package.

It needs nothing from PyPI: `pip install Sources/python`, `pip wheel` and
`python -m build` work offline. The wheel carries the two native libraries
(libsignalkit.so.0, libsignalkit-ffi.so.0 with an rpath of $ORIGIN) in
signalkit/_lib, and the extension module signalkit/_speedups (the crossing
between the library and Python, _speedups.c), compiled here with the
system's C compiler (CC, else cc) against the running Python's headers
(Python.h: Debian's python3-dev) and linked to libsignalkit.so.0 (an rpath
of $ORIGIN/_lib). The extension uses the stable ABI of CPython 3.9
(Py_LIMITED_API), so the wheel is tagged cp39-abi3-PLATFORM: any CPython
3.9 or later on this platform, no Swift toolchain nor compiler at run time. SIGNALKIT_WERROR=1 (set by `make python-wheel`) makes
a compiler warning fail the build.

Where the libraries come from:
- SIGNALKIT_PREBUILT_DIR, when set: a folder already holding both (what
  `make test-python` passes after building them itself, so that the wheel
  build never runs a second make beside the first);
- otherwise `make python-native` in the SignalKit tree, which needs the
  Swift toolchain: the checkout two folders up (Sources/python is inside
  it), or, in an sdist, the copy of the tree in its folder `native`.

The sdist carries the package and that copy of the tree (the Swift, C and
build files, not the examples, benchmarks or this package twice), so that a
wheel built from it (what `python -m build` does) needs nothing else
(mk/check_python_sdist.py checks it in `make test-python`).

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
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile

NAME = "signalkit"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARIES = ("libsignalkit.so.0", "libsignalkit-ffi.so.0")
EXTENSION_SOURCE = "_speedups.c"
EXTENSION = "_speedups.abi3.so"
# The stable ABI the extension is written against (Py_LIMITED_API in
# _speedups.c): CPython 3.9 and later.
ABI_TAG = "cp39-abi3"
# What of the SignalKit tree the sdist carries (tree-relative paths).
TREE_ENTRIES = ("Package.swift", "Makefile", "Sources", "include", "mk", "pkgconfig", "Tests", ".ci/install-deps.sh")
# What of this folder the sdist and the wheel carry.
PACKAGE_FILES = ("pyproject.toml", "README.md", "_build/signalkit_build.py")
# Never carried: caches, build folders, and what an editable install built
# into this folder (signalkit/_lib, the compiled extension).
SKIPPED = re.compile(r"(^|/)(__pycache__|\.build[^/]*|\.swiftpm|\.mypy_cache|\.pytest_cache|[^/]*\.egg-info)(/|$)"
                     r"|\.pyc$|\.so(\.[0-9]+)*$")


def _tree():
    """The SignalKit tree: the sdist's copy, else the enclosing checkout."""
    for candidate in (os.path.join(HERE, "native"), os.path.dirname(os.path.dirname(HERE))):
        if os.path.exists(os.path.join(candidate, "Package.swift")) and \
                os.path.exists(os.path.join(candidate, "Makefile")):
            return candidate
    raise RuntimeError("signalkit: the SignalKit sources are not here: build from a checkout "
                       "(pip install <checkout>/Sources/python) or from the sdist")


def _version():
    """VERSION of the tree's Makefile (the libraries' version)."""
    try:
        text = open(os.path.join(_tree(), "Makefile"), encoding="utf-8").read()
    except RuntimeError:
        text = ""
    match = re.search(r"^VERSION := (\S+)$", text, re.M)
    if match:
        return match.group(1)
    stamp = os.path.join(HERE, "PKG-INFO")  # an unpacked sdist without its tree
    match = re.search(r"^Version: (\S+)$", open(stamp, encoding="utf-8").read(), re.M) if os.path.exists(stamp) else None
    if not match:
        raise RuntimeError("signalkit: no VERSION in the tree's Makefile")
    return match.group(1)


def _metadata(version):
    readme = open(os.path.join(HERE, "README.md"), encoding="utf-8").read()
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\n"
            "Summary: Reactive streams for Python over SignalKit's C library (a Linux port of SwiftSignalKit)\n"
            "Requires-Python: >=3.9\nClassifier: Typing :: Typed\n"
            "Classifier: Operating System :: POSIX :: Linux\n"
            f"Description-Content-Type: text/markdown\n\n{readme}")


def _platform_tag():
    return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _wheel_tag():
    return f"{ABI_TAG}-{_platform_tag()}"


def _extension(native):
    """The extension module, compiled from signalkit/_speedups.c against this
    Python's headers and the tree's include/signalkit.h, linked to the
    libsignalkit.so.0 in `native`: its bytes."""
    if sys.implementation.name != "cpython" or sys.version_info < (3, 9):
        raise RuntimeError(f"signalkit: the package's extension needs CPython 3.9 or later, not "
                           f"{sys.implementation.name} {sys.version.split()[0]}")
    include = sysconfig.get_paths()["include"]
    if not os.path.isfile(os.path.join(include, "Python.h")):
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        raise RuntimeError(f"signalkit: Python.h is not in {include}: the package's extension needs the "
                           f"headers of this Python (Debian: apt-get install python3-dev, or python{version}-dev "
                           f"for this interpreter; .ci/install-deps.sh installs it)")
    headers = os.path.join(_tree(), "include")
    if not os.path.isfile(os.path.join(headers, "signalkit.h")):
        raise RuntimeError(f"signalkit: signalkit.h is not in {headers}")
    source = os.path.join(HERE, NAME, EXTENSION_SOURCE)
    compiler = shlex.split(os.environ.get("CC") or "cc")
    warnings = ["-Wall", "-Wextra", "-pedantic"] + (["-Werror"] if os.environ.get("SIGNALKIT_WERROR") == "1" else [])
    # libffi (the native forms' closures, _speedups.c), which
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
        command = compiler + ["-std=c11", "-O2", "-fPIC", "-shared", *warnings, "-I", include, "-I", headers,
                              source, "-L", native, "-l:libsignalkit.so.0", *ffi_flags, "-Wl,-rpath,$ORIGIN/_lib",
                              "-o", out]
        print("signalkit: building the extension: " + " ".join(shlex.quote(c) for c in command), file=sys.stderr)
        try:
            subprocess.run(command, check=True, stdout=sys.stderr)
        except FileNotFoundError as error:
            raise RuntimeError(f"signalkit: no C compiler ({compiler[0]}): install one (Debian: gcc), "
                               f"or set CC") from error
        with open(out, "rb") as built:
            return built.read()


def _native_libraries():
    """The folder holding both libraries, built if need be."""
    prebuilt = os.environ.get("SIGNALKIT_PREBUILT_DIR")
    if prebuilt:
        directory = os.path.abspath(prebuilt)
    else:
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
        (f"{dist_info}/METADATA", _metadata(version).encode()),
        (f"{dist_info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: signalkit_build\nRoot-Is-Purelib: false\n"
                                f"Tag: {tag}\n").encode()),
        (f"{dist_info}/top_level.txt", f"{NAME}\n".encode()),
    ]


def _write_wheel(wheel_directory, entries):
    version = _version()
    tag = _wheel_tag()
    dist_info = f"{NAME}-{version}.dist-info"
    filename = f"{NAME}-{version}-{tag}.whl"
    entries = list(entries) + [(name, data, 0o644) for name, data in _dist_info(version)]
    record = [_record_line(name, data) for name, data, _ in entries] + [f"{dist_info}/RECORD,,"]
    entries.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
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
    extension (not its C source)."""
    native = _native_libraries()
    entries = []
    for name, path in _package_files():
        if name.endswith((".c", ".so")):
            continue
        with open(path, "rb") as source:
            entries.append((name, source.read(), 0o644))
    entries.append((f"{NAME}/{EXTENSION}", _extension(native), 0o755))
    for library in LIBRARIES:
        with open(os.path.join(native, library), "rb") as source:
            entries.append((f"{NAME}/_lib/{library}", source.read(), 0o755))
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
    (signalkit/_lib, signalkit/_speedups.abi3.so, both ignored by git), and
    the wheel holds only a .pth file that puts `.editable` on sys.path, a
    folder of this one (ignored by git) holding nothing but a link to the
    package, so that `import signalkit` finds this folder's package and no
    other name of this folder (tests, _build) becomes importable: an edit
    of a .py file takes effect at the next import; a change of _speedups.c
    or of the native sources needs the install run again."""
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
    """The sdist: this folder (package, tests, backend) and the SignalKit tree
    the wheel is built from, in `native`."""
    version = _version()
    base = f"{NAME}-{version}"
    tree = _tree()
    filename = f"{base}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))

    def add(archive, path, name):
        info = archive.gettarinfo(path, name)
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = mtime
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


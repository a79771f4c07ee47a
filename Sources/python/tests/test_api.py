"""The public API: every public name has a docstring; the package is typed."""
import importlib.resources
import inspect

import pysignalkit as sk


def test_every_public_name_has_a_docstring():
    missing = []
    for name in sk.__all__:
        obj = getattr(sk, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            if not inspect.getdoc(obj):
                missing.append(name)
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    if member.startswith("_") and member not in ("__await__", "__aiter__"):
                        continue
                    target = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
                    if (inspect.isfunction(target) or isinstance(target, property)) and not target.__doc__:
                        missing.append(f"{name}.{member}")
    assert missing == []


def test_the_package_is_typed_and_carries_its_libraries():
    package = importlib.resources.files("pysignalkit")
    assert package.joinpath("py.typed").is_file()
    paths = sk.library_paths()
    assert [p.rsplit("/", 1)[-1] for p in paths] == ["libsignalkit.so.0", "libsignalkit-ffi.so.0"]
    assert sk.version().startswith(sk.__version__)


def test_an_installed_copy_is_used_only_when_asked_for():
    import os
    import subprocess
    import sys
    own = os.path.dirname(sk.library_paths()[0])
    code = "import pysignalkit as sk; print(sk.library_paths()[0]); print(sk.Signal.single(1).to_list())"
    # SIGNALKIT_LIB_DIR=system: the loader's search (here pointed at the
    # package's own copies through LD_LIBRARY_PATH, as an installed one).
    env = dict(os.environ, SIGNALKIT_LIB_DIR="system", LD_LIBRARY_PATH=own)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert result.stdout.splitlines() == ["libsignalkit.so.0", "[1]"], result.stderr
    # Without it, the package's own copies, whatever the loader's path says.
    env = {k: v for k, v in os.environ.items() if k != "SIGNALKIT_LIB_DIR"}
    env["LD_LIBRARY_PATH"] = "/nonexistent"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert result.stdout.splitlines() == [os.path.join(own, "libsignalkit.so.0"), "[1]"], result.stderr

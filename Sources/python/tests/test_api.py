"""The public API: every public name has a docstring; the package is typed."""
import importlib.resources
import inspect

import signalkit as sk


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
    package = importlib.resources.files("signalkit")
    assert package.joinpath("py.typed").is_file()
    paths = sk.library_paths()
    assert [p.rsplit("/", 1)[-1] for p in paths] == ["libsignalkit.so.0", "libsignalkit-ffi.so.0"]
    assert sk.version().startswith(sk.__version__)

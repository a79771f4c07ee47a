"""The package's metadata as installed, and what the build backend promises
the release artifacts (mk/python.mk, dist-wheel): the licence named and
carried, archives that do not depend on when or where they were made, and a
build from source that stops at once, in words, without the Swift
toolchain."""
import gzip
import importlib.metadata
import io
import os
import sys
import tarfile
import zipfile

import pytest

from conftest import load_backend

# 2026-01-02 03:04:05 UTC.
EPOCH = 1767323045


def test_the_installed_metadata_names_the_licence_and_carries_its_file():
    metadata = importlib.metadata.metadata("pysignalkit")
    assert metadata["Metadata-Version"] == "2.4"
    assert metadata["License-Expression"] == "MIT"
    installed = importlib.metadata.files("pysignalkit") or []
    # The release wheel bundles libffi (pysignalkit.libs, auditwheel) and
    # carries its notice beside the package's licence; a wheel built here
    # links the system's libffi and carries the licence alone.
    bundled = any(f.parts[0] == "pysignalkit.libs" and f.name.startswith("libffi") for f in installed)
    assert metadata.get_all("License-File") == (["LICENSE", "libffi.copyright"] if bundled else ["LICENSE"])
    files = [f for f in installed if f.name == "LICENSE"]
    assert [str(f.parent).endswith(".dist-info/licenses") for f in files] == [True]
    assert "MIT License" in files[0].read_text(encoding="utf-8")
    notices = [f for f in installed if f.name == "libffi.copyright"]
    assert len(notices) == (1 if bundled else 0)
    if bundled:
        assert str(notices[0].parent).endswith(".dist-info/licenses")
        assert "libffi" in notices[0].read_text(encoding="utf-8")


def test_a_build_from_source_without_swift_stops_at_once_naming_swift_6_and_the_readme(tmp_path, monkeypatch):
    backend = load_backend()
    monkeypatch.delenv("SIGNALKIT_PREBUILT_DIR", raising=False)
    monkeypatch.delenv("SWIFT", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no swift (nor make)

    def run(command, *args, **kwargs):
        pytest.fail(f"the backend ran {command} instead of stopping")

    monkeypatch.setattr(backend.subprocess, "run", run)
    with pytest.raises(RuntimeError, match=r"'swift' is not on PATH .*needs the Swift toolchain 6\.x "
                                           r".*README\.md.*prebuilt wheel"):
        backend._native_libraries()


def test_a_build_from_source_with_swift_5_stops_at_once(tmp_path, monkeypatch):
    backend = load_backend()
    swift = tmp_path / "swift"
    swift.write_text("#!/bin/sh\necho 'Swift version 5.10.1 (swift-5.10.1-RELEASE)'\n")
    swift.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("SWIFT", raising=False)
    with pytest.raises(RuntimeError, match=r"'swift' is Swift 5\.10\.1: building the package from source needs the "
                                           r"Swift toolchain 6\.x .*prebuilt wheel"):
        backend._check_swift()


def test_the_wheel_has_sorted_members_of_the_source_date_and_fixed_modes(tmp_path, monkeypatch):
    backend = load_backend()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH))
    entries = [("pysignalkit/z.py", b"z", 0o644), ("pysignalkit/_lib/a.so", b"\x7fELF", 0o755),
               ("pysignalkit/a.py", b"a", 0o644)]
    names = []
    for folder in ("one", "two"):
        names.append(backend._write_wheel(str(tmp_path / folder), entries))
    one, two = (tmp_path / folder / names[0] for folder in ("one", "two"))
    assert one.read_bytes() == two.read_bytes()
    with zipfile.ZipFile(one) as wheel:
        infos = wheel.infolist()
        listed = [i.filename for i in infos]
        dist_info = f"pysignalkit-{backend._version()}.dist-info"
        assert listed[:3] == ["pysignalkit/_lib/a.so", "pysignalkit/a.py", "pysignalkit/z.py"]
        assert listed[-1] == f"{dist_info}/RECORD"
        assert f"{dist_info}/licenses/LICENSE" in listed
        assert {i.date_time for i in infos} == {(2026, 1, 2, 3, 4, 4)}  # zip times have 2-second steps
        assert {i.filename: i.external_attr >> 16 for i in infos}["pysignalkit/_lib/a.so"] == 0o100755
        assert {i.external_attr >> 16 for i in infos if not i.filename.endswith(".so")} == {0o100644}
        metadata = wheel.read(f"{dist_info}/METADATA").decode()
        assert "License-Expression: MIT\nLicense-File: LICENSE\n" in metadata


def test_the_sdist_carries_the_licence_and_changelog_and_depends_not_on_when_it_was_made(tmp_path, monkeypatch):
    backend = load_backend()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH))
    name = backend.build_sdist(str(tmp_path / "one"))
    assert backend.build_sdist(str(tmp_path / "two")) == name
    data = (tmp_path / "one" / name).read_bytes()
    assert data == (tmp_path / "two" / name).read_bytes()
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data))) as sdist:
        members = sdist.getmembers()
        base = name[:-len(".tar.gz")]
        by_name = {m.name: m for m in members}
        for top in ("LICENSE", "CHANGELOG.md"):
            assert by_name[f"{base}/{top}"].isfile()
        info = sdist.extractfile(by_name[f"{base}/PKG-INFO"]).read().decode()
        assert info.startswith("Metadata-Version: 2.4\n")
        assert "License-Expression: MIT\nLicense-File: LICENSE\n" in info
        assert {m.mtime for m in members} == {EPOCH}
        assert {(m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, "", "")}
        assert {m.mode for m in members} <= {0o644, 0o755}
        assert by_name[f"{base}/native/tools/install-deps.sh"].mode == 0o755


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib")
def test_the_backend_metadata_agrees_with_pyproject():
    import tomllib

    backend = load_backend()
    with open(os.path.join(backend.HERE, "pyproject.toml"), "rb") as source:
        project = tomllib.load(source)["project"]
    metadata = backend._metadata("1.2.3")
    assert project["license"] == backend.LICENSE_EXPRESSION
    assert f"Requires-Python: {project['requires-python']}\n" in metadata
    assert f"Summary: {project['description']}\n" in metadata
    assert all(f"Classifier: {c}\n" in metadata for c in project["classifiers"])

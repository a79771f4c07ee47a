"""Compares two folders of release artifacts byte for byte and, where they
differ, says where: `python tools/packaging/compare_dists.py DIR_A DIR_B`
(make check-dist-wheel-reproducible, mk/python.mk).

Every file of either folder (recursively) is compared; for a file that
differs, a wheel or zip is compared member by member (bytes, time stamp,
permissions, order), a .tar.gz likewise (bytes, mode, owner, time), and an
ELF file (also one inside an archive) section by section (ELF64
little-endian: the sections whose bytes differ are named). Prints one line
per artifact; exits 1 when any differs.
"""
import gzip
import io
import os
import struct
import sys
import tarfile
import zipfile


def elf_sections(data):
    """{section name: bytes} of an ELF64 little-endian file, else None."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx]
    strtab = data[names[4]:names[4] + names[5]]
    sections = {}
    for name, kind, _flags, _addr, offset, size, *_ in headers:
        label = strtab[name:strtab.index(b"\0", name)].decode()
        sections[label] = b"" if kind == 8 else data[offset:offset + size]  # SHT_NOBITS holds no bytes
    return sections


def compare_bytes(name, a, b):
    """Lines saying how `a` and `b` (the contents of `name`) differ."""
    if a == b:
        return []
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    lines = [f"{name}: {len(a)} and {len(b)} bytes, first difference at byte {first}"]
    sa, sb = elf_sections(a), elf_sections(b)
    if sa is not None and sb is not None:
        differing = sorted(s for s in set(sa) | set(sb) if sa.get(s) != sb.get(s))
        lines.append(f"{name}: ELF sections that differ: {', '.join(differing) or 'none (headers only)'}")
    return lines


def compare_zip(name, a, b):
    lines = []
    with zipfile.ZipFile(io.BytesIO(a)) as za, zipfile.ZipFile(io.BytesIO(b)) as zb:
        ia, ib = za.infolist(), zb.infolist()
        if [i.filename for i in ia] != [i.filename for i in ib]:
            lines.append(f"{name}: the members or their order differ")
        members_b = {i.filename: i for i in ib}
        for info in ia:
            other = members_b.get(info.filename)
            if other is None:
                continue
            label = f"{name}!{info.filename}"
            for field in ("date_time", "external_attr", "compress_type", "create_system"):
                if getattr(info, field) != getattr(other, field):
                    lines.append(f"{label}: {field} {getattr(info, field)} and {getattr(other, field)}")
            lines += compare_bytes(label, za.read(info), zb.read(other))
    return lines or [f"{name}: the members are equal; the archives' own bytes differ"]


def compare_tar(name, a, b):
    lines = []
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(a))) as ta, \
            tarfile.open(fileobj=io.BytesIO(gzip.decompress(b))) as tb:
        ma, mb = ta.getmembers(), tb.getmembers()
        if [m.name for m in ma] != [m.name for m in mb]:
            lines.append(f"{name}: the members or their order differ")
        members_b = {m.name: m for m in mb}
        for member in ma:
            other = members_b.get(member.name)
            if other is None:
                continue
            label = f"{name}!{member.name}"
            for field in ("mode", "uid", "gid", "uname", "gname", "mtime", "type"):
                if getattr(member, field) != getattr(other, field):
                    lines.append(f"{label}: {field} {getattr(member, field)} and {getattr(other, field)}")
            if member.isfile() and other.isfile():
                lines += compare_bytes(label, ta.extractfile(member).read(), tb.extractfile(other).read())
    return lines or [f"{name}: the members are equal; the compressed bytes differ"]


def files(root):
    found = set()
    for folder, _dirs, names in os.walk(root):
        found.update(os.path.relpath(os.path.join(folder, n), root) for n in names)
    return found


def main(dir_a, dir_b):
    differ = False
    for name in sorted(files(dir_a) | files(dir_b)):
        path_a, path_b = os.path.join(dir_a, name), os.path.join(dir_b, name)
        if not (os.path.isfile(path_a) and os.path.isfile(path_b)):
            print(f"{name}: only in {dir_a if os.path.isfile(path_a) else dir_b}")
            differ = True
            continue
        a, b = open(path_a, "rb").read(), open(path_b, "rb").read()
        if a == b:
            print(f"{name}: identical ({len(a)} bytes)")
            continue
        differ = True
        if name.endswith((".whl", ".zip")):
            lines = compare_zip(name, a, b)
        elif name.endswith(".tar.gz"):
            lines = compare_tar(name, a, b)
        else:
            lines = compare_bytes(name, a, b)
        print("\n".join(lines))
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: compare_dists.py DIR_A DIR_B")
    sys.exit(main(sys.argv[1], sys.argv[2]))

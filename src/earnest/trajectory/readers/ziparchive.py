"""Bounded reads of members of an untrusted zip archive (an Inspect AI ``.eval`` log).

Nothing is extracted to disk, so no member name is ever followed as a path: members are
looked up by name and their bytes read into memory, at most ``limit`` bytes each, whatever
the archive declares (a member that inflates past its declared size is caught as it reads).
Stored and deflated members go through :mod:`zipfile` (whose inflater honours the output
bound); Zstandard members (method 93, what inspect_ai writes since 0.3.9x) are decompressed
with the ``zstandard`` package, streamed from the file with the same bound, and their
CRC-32 checked here,
because the standard library reads them only from Python 3.14. Other methods, encrypted
members and damaged data raise :class:`ArchiveError` with a short reason.

Example:
    >>> import io, zipfile, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.zip"
    >>> with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
    ...     z.writestr("samples/1.json", '{"id": 1}')
    >>> with zipfile.ZipFile(p) as z:
    ...     read_member(z, p, z.getinfo("samples/1.json"), limit=100)
    b'{"id": 1}'
    >>> with zipfile.ZipFile(p) as z:
    ...     read_member(z, p, z.getinfo("samples/1.json"), limit=4)
    Traceback (most recent call last):
    ...
    earnest.trajectory.readers.ziparchive.TooLarge: samples/1.json: larger than 4 bytes uncompressed
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any, cast

from earnest.extras import install_hint

ZIP_ZSTANDARD = 93
"""The zip method id of Zstandard (APPNOTE 4.4.5)."""
ZIP_MAGIC = b"PK\x03\x04"
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # zipfile's structFileHeader (30 bytes)
_CHUNK = 1024 * 1024


class ArchiveError(ValueError):
    """A member that cannot be read safely: too large, encrypted, damaged, unsupported."""


class TooLarge(ArchiveError):
    """A member that inflates past the ``limit`` it was read with."""


def read_member(
    archive: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo, *, limit: int
) -> bytes:
    """The uncompressed bytes of ``info``, at most ``limit`` of them, CRC-checked."""
    name = info.filename
    if info.flag_bits & 0x1:
        raise ArchiveError(f"{name}: encrypted")
    if info.file_size > limit:
        raise TooLarge(f"{name}: larger than {limit} bytes uncompressed")
    if info.compress_type == ZIP_ZSTANDARD:
        data = _zstd_member(path, info, limit)
    elif info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        try:
            with archive.open(info) as handle:
                data = _bounded(handle, limit, name)
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise ArchiveError(f"{name}: damaged ({exc})") from None
    else:
        raise ArchiveError(f"{name}: compression method {info.compress_type} is not supported")
    return data


def _bounded(handle: IO[bytes] | Any, limit: int, name: str) -> bytes:
    """Read ``handle`` to its end in chunks; more than ``limit`` bytes is an error."""
    parts: list[bytes] = []
    total = 0
    while True:
        chunk = handle.read(_CHUNK)
        if not chunk:
            return b"".join(parts)
        total += len(chunk)
        if total > limit:
            raise TooLarge(f"{name}: larger than {limit} bytes uncompressed")
        parts.append(chunk)


class _Slice:
    """``length`` bytes of an open file from its current position, as a readable stream
    (the compressed data of one member: streamed, never read whole)."""

    def __init__(self, handle: IO[bytes], length: int) -> None:
        self.handle = handle
        self.left = length

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        data = self.handle.read(size) if size else b""
        self.left -= len(data)
        return data


def _zstd_member(path: Path, info: zipfile.ZipInfo, limit: int) -> bytes:
    try:
        import zstandard
    except ImportError:
        raise ArchiveError(
            f"{info.filename}: compressed with Zstandard; reading it needs the zstandard "
            f"package: {install_hint('inspect')}"
        ) from None
    with open(path, "rb") as handle:
        handle.seek(info.header_offset)
        header = handle.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size or header[:4] != ZIP_MAGIC:
            raise ArchiveError(f"{info.filename}: bad local file header")
        fields = _LOCAL_HEADER.unpack(header)
        handle.seek(info.header_offset + _LOCAL_HEADER.size + fields[10] + fields[11])
        try:
            # read_across_frames: inspect_ai splits large members into several frames.
            source = cast(IO[bytes], _Slice(handle, info.compress_size))  # only .read() is used
            reader = zstandard.ZstdDecompressor().stream_reader(source, read_across_frames=True)
            data = _bounded(reader, limit, info.filename)
        except zstandard.ZstdError as exc:
            raise ArchiveError(f"{info.filename}: damaged ({exc})") from None
    if zlib.crc32(data) != info.CRC:
        raise ArchiveError(f"{info.filename}: damaged (CRC-32 mismatch)")
    return data


__all__ = ["ZIP_MAGIC", "ZIP_ZSTANDARD", "ArchiveError", "TooLarge", "read_member"]

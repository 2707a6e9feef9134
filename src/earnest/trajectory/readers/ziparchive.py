"""Bounded reads of members of an untrusted zip archive (an Inspect AI ``.eval`` log).

Nothing is extracted to disk, so no member name is ever followed as a path: members are
looked up by name and their bytes read into memory, at most ``limit`` bytes each, whatever
the archive declares. Deflated and Zstandard members (method 93, what inspect_ai writes since
0.3.9x; the standard library reads it only from Python 3.14, so the ``zstandard`` package
does) are inflated here, streamed from the file a chunk at a time (``zlib.decompressobj``
with ``max_length``), and inflating stops as soon as a bound is crossed — never is a whole
member inflated to be thrown away, nor parsed:

- past ``limit`` (:class:`TooLarge`);
- past the size the archive declares for it (damaged);
- past :data:`MAX_RATIO` times the compressed bytes read so far, once
  :data:`RATIO_GRACE` bytes are out (:class:`TooLarge`): a member of 270 KB that inflates to
  94 MB (two million identical messages) costs a few MB of inflating to refuse, not the
  40 s and 1.3 GB of reading it.

Stored members go through :mod:`zipfile`. The CRC-32 of what was read is checked. Other
methods, encrypted members and damaged data raise :class:`ArchiveError` with a short reason.

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
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, cast

from earnest.extras import install_hint

ZIP_ZSTANDARD = 93
"""The zip method id of Zstandard (APPNOTE 4.4.5)."""
ZIP_MAGIC = b"PK\x03\x04"
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # zipfile's structFileHeader (30 bytes)
_CHUNK = 1024 * 1024
_IN_CHUNK = 16 * 1024

MAX_RATIO = 200
"""The most a compressed member may inflate per compressed byte (JSON logs inflate 5 to 20
times; a zip bomb, a thousand), checked as it inflates once :data:`RATIO_GRACE` bytes are
out."""
RATIO_GRACE = 4 * 1024 * 1024
"""Inflated bytes any member may have whatever its ratio (a small, very repetitive sample)."""


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
    if info.compress_type == zipfile.ZIP_STORED:
        try:
            with archive.open(info) as handle:
                return _bounded(handle, limit, name)
        except (zipfile.BadZipFile, EOFError) as exc:
            raise ArchiveError(f"{name}: damaged ({exc})") from None
    if info.compress_type == ZIP_ZSTANDARD:
        return _streamed(path, info, limit, _zstd_reader(info))
    if info.compress_type == zipfile.ZIP_DEFLATED:
        return _streamed(path, info, limit, _Inflater)
    raise ArchiveError(f"{name}: compression method {info.compress_type} is not supported")


class _Slice:
    """``length`` bytes of an open file from its current position, as a readable stream
    (the compressed data of one member: streamed, never read whole); ``consumed`` counts
    what was read of it."""

    def __init__(self, handle: IO[bytes], length: int) -> None:
        self.handle = handle
        self.length = length
        self.left = length

    @property
    def consumed(self) -> int:
        return self.length - self.left

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        data = self.handle.read(size) if size else b""
        self.left -= len(data)
        return data


def _bounded(
    handle: IO[bytes] | Any,
    limit: int,
    name: str,
    source: _Slice | None = None,
    declared: int | None = None,
) -> bytes:
    """Read ``handle`` to its end in chunks, stopping as soon as a bound is crossed: more
    than ``limit`` bytes, more than the ``declared`` size, or (``source``: the compressed
    bytes it inflates) more than :data:`MAX_RATIO` times what was read of ``source``."""
    parts: list[bytes] = []
    total = 0
    while True:
        chunk = handle.read(_CHUNK)
        if not chunk:
            return b"".join(parts)
        total += len(chunk)
        if declared is not None and total > declared:
            raise ArchiveError(f"{name}: damaged (inflates past its declared {declared} bytes)")
        if total > limit:
            raise TooLarge(f"{name}: larger than {limit} bytes uncompressed")
        if source is not None and total > RATIO_GRACE and total > MAX_RATIO * source.consumed:
            raise TooLarge(
                f"{name}: inflates more than {MAX_RATIO} times its compressed size "
                f"({total} bytes from {source.consumed})"
            )
        parts.append(chunk)


class _Inflater:
    """A deflated member's data (``source``) as a stream of inflated bytes, at most ``size``
    a read: ``zlib.decompressobj`` with ``max_length``, fed as it asks."""

    def __init__(self, source: _Slice) -> None:
        self.source = source
        self.inflater = zlib.decompressobj(-zlib.MAX_WBITS)

    def read(self, size: int) -> bytes:
        while not self.inflater.eof:
            data = self.inflater.unconsumed_tail or self.source.read(_IN_CHUNK)
            if not data:
                raise zlib.error("the compressed data ends early")
            out = self.inflater.decompress(data, size)
            if out:
                return out
        return b""


def _zstd_reader(info: zipfile.ZipInfo) -> Callable[[_Slice], Any]:
    try:
        import zstandard
    except ImportError:
        raise ArchiveError(
            f"{info.filename}: compressed with Zstandard; reading it needs the zstandard "
            f"package: {install_hint('inspect')}"
        ) from None

    def reader(source: _Slice) -> Any:
        # read_across_frames: inspect_ai splits large members into several frames.
        stream = cast(IO[bytes], source)  # only .read() is used
        return zstandard.ZstdDecompressor().stream_reader(stream, read_across_frames=True)

    return reader


def _streamed(
    path: Path, info: zipfile.ZipInfo, limit: int, reader: Callable[[_Slice], Any]
) -> bytes:
    """The member's compressed data streamed from ``path`` through ``reader`` (an inflating
    stream over it), bounded (:func:`_bounded`) and CRC-checked."""
    errors: tuple[type[Exception], ...] = (zlib.error, EOFError)
    try:
        import zstandard

        errors += (zstandard.ZstdError,)
    except ImportError:
        pass
    with open(path, "rb") as handle:
        handle.seek(info.header_offset)
        header = handle.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size or header[:4] != ZIP_MAGIC:
            raise ArchiveError(f"{info.filename}: bad local file header")
        fields = _LOCAL_HEADER.unpack(header)
        handle.seek(info.header_offset + _LOCAL_HEADER.size + fields[10] + fields[11])
        source = _Slice(handle, info.compress_size)
        try:
            data = _bounded(reader(source), limit, info.filename, source, info.file_size)
        except errors as exc:
            raise ArchiveError(f"{info.filename}: damaged ({exc})") from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise ArchiveError(f"{info.filename}: damaged (CRC-32 mismatch)")
    return data


__all__ = [
    "MAX_RATIO",
    "RATIO_GRACE",
    "ZIP_MAGIC",
    "ZIP_ZSTANDARD",
    "ArchiveError",
    "TooLarge",
    "read_member",
]

"""Diagnostics collected while reading transcripts: skipped lines, unknown records, files.

Readers never raise on bad content. They skip what they cannot use, count it, and leave a
warning naming the file and line here; the CLI prints the warnings on stderr.

Example:
    >>> r = ReadReport()
    >>> r.skip("run.jsonl", 7, "malformed JSON")
    >>> r.skipped_lines, str(r.warnings[0])
    (1, 'run.jsonl:7: malformed JSON')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

MAX_WARNINGS_PER_FILE = 20
"""Beyond this many warnings for one file, further ones are only counted."""


@dataclass(frozen=True, slots=True)
class ReadWarning:
    """One problem found while reading: the file, the line (when known) and what is wrong."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        place = f":{self.line}" if self.line is not None else ""
        return f"{self.file}{place}: {self.message}"


@dataclass
class ReadReport:
    """What happened while reading: counts and bounded per-file warnings."""

    warnings: list[ReadWarning] = field(default_factory=list)
    skipped_lines: int = 0
    """Lines (or array entries) that were malformed or of an unknown kind."""
    comment_lines: int = 0
    """``//`` comment lines, skipped without a warning (a known oddity of shared fixtures)."""
    files_read: int = 0
    files_skipped: int = 0
    """Files that were empty, binary or of no recognised transcript format."""
    skipped_by_file: Counter[str] = field(default_factory=Counter)
    """:attr:`skipped_lines` per file, so a summary can name where they were."""
    unread_files: list[str] = field(default_factory=list)
    """The :attr:`files_skipped`, by name."""
    trajectories: int = 0
    formats: Counter[str] = field(default_factory=Counter)
    """Trajectories read, per source format."""
    unknown_blocks: Counter[str] = field(default_factory=Counter)
    """Content blocks or record types a reader did not recognise, by type."""
    suppressed: Counter[str] = field(default_factory=Counter)
    """Warnings not stored because a file passed :data:`MAX_WARNINGS_PER_FILE`, per file."""
    _per_file: Counter[str] = field(default_factory=Counter, repr=False)

    def warn(self, file: str, line: int | None, message: str) -> None:
        """Record a warning (bounded per file)."""
        self._per_file[file] += 1
        if self._per_file[file] > MAX_WARNINGS_PER_FILE:
            self.suppressed[file] += 1
            return
        self.warnings.append(ReadWarning(file, line, message))

    def skip(self, file: str, line: int | None, message: str) -> None:
        """Count a skipped line and warn about it."""
        self.skipped_lines += 1
        self.skipped_by_file[file] += 1
        self.warn(file, line, message)

    def skip_file(self, file: str, message: str) -> None:
        """Count a file that holds no transcript, and warn about it."""
        self.files_skipped += 1
        self.unread_files.append(file)
        self.warn(file, None, message)

    def unknown(self, file: str, line: int | None, what: str) -> None:
        """Note an unrecognised block or record type; warn once per type and file."""
        key = f"{file}\0{what}"
        first = self.unknown_blocks[key] == 0
        self.unknown_blocks[key] += 1
        if first:
            self.warn(file, line, f"unrecognised {what} (ignored)")

    def merge(self, other: ReadReport) -> None:
        """Add ``other`` (the report of later files, e.g. read in another process) to this one.

        Files are never split between reports, so the per-file warning bound holds and the
        warnings keep their reading order.
        """
        self.warnings.extend(other.warnings)
        self.skipped_lines += other.skipped_lines
        self.comment_lines += other.comment_lines
        self.files_read += other.files_read
        self.files_skipped += other.files_skipped
        self.trajectories += other.trajectories
        self.formats.update(other.formats)
        self.unknown_blocks.update(other.unknown_blocks)
        self.suppressed.update(other.suppressed)
        self._per_file.update(other._per_file)

    def lines(self) -> list[str]:
        """Every warning as ``file:line: message``, plus one line per suppressed batch."""
        out = [str(w) for w in self.warnings]
        out += [f"{f}: {n} more warning(s) not shown" for f, n in self.suppressed.items()]
        return out


__all__ = ["MAX_WARNINGS_PER_FILE", "ReadReport", "ReadWarning"]

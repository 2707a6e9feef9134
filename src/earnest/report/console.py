"""Consoles for text reports: the terminal's layout on a terminal, nothing cut anywhere else.

On a terminal a table is fitted to the window (long names keep their end, behind an ellipsis).
Piped to ``cat``/``less``/``grep`` or written to ``--output``, a reader wants whole lines: one
reply on one line and every file name in full, so the width is unbounded there.

Example:
    >>> import io
    >>> console = plain_console(io.StringIO())
    >>> console.width == PLAIN_WIDTH and not console.is_terminal
    True
    >>> name_cap(console, 46) > 10_000
    True
"""

from __future__ import annotations

import shutil
import sys
from typing import IO

from rich.console import Console

PLAIN_WIDTH = 100_000
"""Wide enough that no report line ever wraps; Rich tables still take only what they need."""


def plain_console(file: IO[str]) -> Console:
    """A colourless console that never wraps or cuts: for pipes and files."""
    return Console(file=file, width=PLAIN_WIDTH, no_color=True, highlight=False, soft_wrap=False)


def stdout_console() -> Console:
    """The terminal's console when standard output is one, else :func:`plain_console`."""
    if sys.stdout.isatty():
        return Console(highlight=False)
    return plain_console(sys.stdout)


def stdout_width() -> int:
    """The width a text block built in memory should have: the window's, or unbounded."""
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return PLAIN_WIDTH


def name_cap(console: Console, terminal_cap: int) -> int:
    """How long a name column may be: ``terminal_cap`` on a terminal, unbounded elsewhere."""
    return terminal_cap if console.is_terminal else PLAIN_WIDTH


__all__ = ["PLAIN_WIDTH", "name_cap", "plain_console", "stdout_console", "stdout_width"]

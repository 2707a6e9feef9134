"""``--jobs N`` and ``--dask local:N`` as the CLI applies them: capped at the cores this
process may use unless the user insists (``EARNEST_OVERCOMMIT=1``), and said on stderr.

Example:
    >>> capped_jobs(1)
    1
"""

from __future__ import annotations

import sys


def capped_jobs(asked: int, what: str = "--jobs") -> int:
    """``asked`` worker processes, or the machine's cores when fewer (with a note on stderr
    saying how to insist: :func:`earnest.parallel.capped_workers`)."""
    from earnest.parallel import capped_workers

    workers, note = capped_workers(asked, what)
    if note is not None:
        print(f"earnest: {note}", file=sys.stderr)
    return workers


__all__ = ["capped_jobs"]

"""Console entry point.

``earnest hook ...`` runs inside a user's agent on every stop, so it is dispatched
before the CLI framework is imported: process start is part of its latency budget.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if (
        len(args) >= 2
        and args[0] == "hook"
        and args[1] not in {"install", "uninstall", "doctor", "--help", "-h"}
    ):
        from earnest.hooks.entry import run_hook, time_budget

        return run_hook(args[1:], budget=time_budget())
    from earnest.cli import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())

"""Create a small working suite that passes lint and coverage as written.

The suite (``earnest.toml``, a two-rule doctrine, one agent doc, one fixture and a debt entry
for the rule that has no fixture yet, and ``recorded/replies.jsonl``: two example replies to
that fixture for ``earnest score``, one passing and one failing) is copied from the package's
``templates/init`` folder.
Nothing is ever overwritten: if any target file exists, nothing is written at all.

Example:
    >>> import tempfile
    >>> created = init_suite(Path(tempfile.mkdtemp()) / "suite")
    >>> sorted(p.name for p in created)
    ['IMPL-R1-RETRY.json', 'doctrine.md', 'earnest.toml', 'implementer.md', 'replies.jsonl']
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from earnest.errors import InputError

_TEMPLATE = ("templates", "init")


def _template_files() -> list[tuple[Path, Traversable]]:
    root = resources.files("earnest.pressure").joinpath(*_TEMPLATE)
    found: list[tuple[Path, Traversable]] = []

    def walk(node: Traversable, rel: Path) -> None:
        for child in sorted(node.iterdir(), key=lambda c: c.name):
            if child.is_dir():
                walk(child, rel / child.name)
            elif not child.name.startswith("."):
                found.append((rel / child.name, child))

    walk(root, Path())
    return found


def init_suite(directory: str | Path) -> list[Path]:
    """Write the starter suite into ``directory`` and return the files created.

    Raises :class:`InputError` naming the first file that already exists (nothing is written),
    or when ``directory`` exists and is not a folder.
    """
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise InputError(root, None, "exists and is not a folder")
    files = _template_files()
    for rel, _ in files:
        target = root / rel
        if target.exists() or target.is_symlink():
            raise InputError(target, None, "already exists; init never overwrites a file")
    created: list[Path] = []
    for rel, src in files:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            # "x": fail rather than overwrite a file that appeared since the check above.
            with target.open("x", encoding="utf-8") as fh:
                fh.write(src.read_text(encoding="utf-8"))
        except FileExistsError:
            raise InputError(target, None, "already exists; init never overwrites a file") from None
        except OSError as exc:
            raise InputError(target, None, f"cannot write: {exc.strerror}") from None
        created.append(target)
    return created


__all__ = ["init_suite"]

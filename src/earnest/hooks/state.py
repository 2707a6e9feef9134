"""Per-session state the stop hook keeps between calls: read offset, parsed run, block budget.

A hook is a fresh process on every stop, so whatever it must remember lives in a small JSON
file per session (and per subagent) in the state folder:

1. ``$EARNEST_STATE_DIR`` if set;
2. else ``$XDG_STATE_HOME/earnest/hooks``;
3. else ``~/.local/state/earnest/hooks``.

Files are written atomically (temporary file + rename), named ``earnest-<cli>-<hash>`` from a
hash of the CLI, session id and agent id (session ids come from the agent and are not trusted
as file names). Files untouched for 30 days are pruned when a new one is created — only
earnest's own (:data:`OWN_FILE`): the folder may be one the user named, holding anything.
A stop that blocks is decided again and saved under the session's file lock
(:meth:`StateStore.locked`, ``fcntl.flock``; see :func:`earnest.hooks.core.settle`),
so concurrent stops of one session cannot both spend the last block.

Example:
    >>> import tempfile
    >>> store = StateStore(Path(tempfile.mkdtemp()))
    >>> s = store.load("claude-code", "session-1")
    >>> s.blocks
    0
    >>> s.blocks = 1
    >>> store.save(s)
    >>> store.load("claude-code", "session-1").blocks
    1
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from earnest._digest import sha256_hex
from earnest.redact import enabled, has_secret, scrub_masked

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

STATE_VERSION = 1
PRUNE_AFTER_SECONDS = 30 * 24 * 3600
LOCK_TIMEOUT = 10.0  # seconds a stop waits for a concurrent stop of the same session
PREFIX = "earnest-"
OWN_FILE = re.compile(
    r"^\.?(?:earnest-)?(?:claude-code|gemini|codex|qwen|copilot|pi|cursor)-[0-9a-f]{24}"
    r"(?:\.json|\.reader|\.lock|\.events)(?:\.[A-Za-z0-9_]+\.tmp)?$"
)
"""The names earnest writes in the state folder (and those of earlier versions): nothing
else there is ever deleted."""


def default_state_dir() -> Path:
    """The state folder, from ``EARNEST_STATE_DIR`` / ``XDG_STATE_HOME`` / HOME."""
    explicit = os.environ.get("EARNEST_STATE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg else Path(os.environ.get("HOME") or Path.home()) / ".local" / "state"
    return base / "earnest" / "hooks"


@dataclass
class SessionState:
    """What one session's hook remembers. ``reader`` is the transcript reader's own state."""

    cli: str
    session_id: str
    agent_id: str = ""
    transcript: str = ""
    offset: int = 0
    reader: dict[str, Any] = field(default_factory=dict)
    prompt_key: str = ""
    request: str = ""  # the user's request that started the current prompt's run
    blocks: int = 0  # blocks for the current user prompt
    consecutive_blocks: int = 0  # blocks since the last allowed stop, whatever the prompt
    last_decision: str = ""
    updated: float = 0.0

    def start_prompt(self, key: str, request: str = "") -> None:
        """A new user prompt: its block budget starts full."""
        if key != self.prompt_key:
            self.prompt_key = key
            self.blocks = 0
        self.request = request

    def forget_transcript(self, transcript: str) -> None:
        """The transcript changed or shrank: read it again from the start."""
        self.transcript = transcript
        self.offset = 0
        self.reader = {}


class StateStore:
    """Loads and saves :class:`SessionState` files in one folder."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else default_state_dir()

    def path_for(self, cli: str, session_id: str, agent_id: str = "") -> Path:
        digest = sha256_hex(f"{cli}\0{session_id}\0{agent_id}".encode())[:24]
        return self.root / f"{PREFIX}{cli}-{digest}.json"

    @contextlib.contextmanager
    def locked(
        self, cli: str, session_id: str, agent_id: str = "", timeout: float = LOCK_TIMEOUT
    ) -> Iterator[None]:
        """Hold the session's lock: one stop of a session at a time loads, decides, saves.

        Raises :class:`TimeoutError` after ``timeout`` seconds (the hook then allows the stop:
        allowing never spends the budget).

        On POSIX the lock is ``fcntl.flock`` on the session's ``.lock`` file — the call the
        ``filelock`` library makes there — because importing ``filelock`` (4.x: ``hashlib``,
        ``logging``, ``decimal``, ``random``...) costs a blocking stop about 20 ms, a quarter
        of its time. Elsewhere (Windows) it is ``filelock`` itself.
        """
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self.path_for(cli, session_id, agent_id).with_suffix(".lock")
        try:
            import fcntl
        except ImportError:  # not POSIX
            from filelock import FileLock

            with FileLock(path).acquire(timeout=timeout):
                yield
            return
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            deadline = time.monotonic() + timeout
            pause = 0.005
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise TimeoutError(
                            f"the session lock {path} is still held after {timeout:g} s"
                        ) from None
                    time.sleep(pause)
                    pause = min(pause * 2, 0.05)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def load(self, cli: str, session_id: str, agent_id: str = "") -> SessionState:
        """The saved state, or a fresh one if there is none or it cannot be used."""
        fresh = SessionState(cli=cli, session_id=session_id, agent_id=agent_id)
        path = self.path_for(cli, session_id, agent_id)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return fresh
        if not isinstance(raw, dict) or raw.get("version") != STATE_VERSION:
            return fresh
        data = raw.get("state")
        if not isinstance(data, dict):
            return fresh
        try:
            state = SessionState(**data)
        except TypeError:
            return fresh
        if (state.cli, state.session_id, state.agent_id) != (cli, session_id, agent_id):
            return fresh
        return state

    def blob_path(self, state: SessionState) -> Path:
        return self.path_for(state.cli, state.session_id, state.agent_id).with_suffix(".reader")

    def load_blob(self, state: SessionState) -> bytes | None:
        """The reader's saved bytes, only if this user wrote them and nobody else can."""
        path = self.blob_path(state)
        try:
            info = path.stat()
            folder = path.parent.stat()
        except OSError:
            return None
        uid = os.getuid() if hasattr(os, "getuid") else None
        for item in (info, folder):
            # The blob is unpickled: refuse one that another user could have written.
            if uid is not None and item.st_uid != uid:
                return None
            if item.st_mode & 0o022:
                return None
        try:
            return path.read_bytes()
        except OSError:
            return None

    def save_blob(self, state: SessionState, data: bytes) -> None:
        """Save the reader's bytes, unless they hold a secret (and redaction is on): then the
        next call reads the transcript again (slower, the same verdict, no secret on disk)."""
        if enabled() and has_secret(data):
            self.drop_blob(state)
            return
        self._write(self.blob_path(state), data)

    def drop_blob(self, state: SessionState) -> None:
        with contextlib.suppress(OSError):
            self.blob_path(state).unlink()

    def _write(self, path: Path, data: bytes) -> None:
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        # A private temporary file beside the target, as tempfile.mkstemp makes one (O_EXCL,
        # mode 0600) without importing tempfile (random, shutil): every stop writes here.
        tmp = str(self.root / f".{path.name}.{os.getpid()}_{time.monotonic_ns()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise

    def save(self, state: SessionState) -> Path:
        path = self.path_for(state.cli, state.session_id, state.agent_id)
        state.updated = time.time()
        new_file = not path.exists()
        # Secrets masked with '*' (same length, no words): the saved request is read again.
        payload = scrub_masked(json.dumps({"version": STATE_VERSION, "state": asdict(state)}))
        self._write(path, payload.encode("utf-8"))
        if new_file:
            self.prune()
        return path

    def save_keeping_budget(self, state: SessionState) -> Path:
        """Save ``state``, keeping a higher block count saved meanwhile for the same prompt
        (a concurrent stop that blocked under the lock)."""
        saved = self.load(state.cli, state.session_id, state.agent_id)
        if saved.prompt_key == state.prompt_key and saved.blocks > state.blocks:
            state.blocks = saved.blocks
        return self.save(state)

    def prune(self, max_age: float = PRUNE_AFTER_SECONDS) -> int:
        """Delete state files not written for ``max_age`` seconds; returns how many."""
        cutoff = time.time() - max_age
        removed = 0
        try:
            entries = [e for e in self.root.iterdir() if OWN_FILE.match(e.name)]
        except OSError:
            return 0
        for entry in entries:
            try:
                if not entry.is_file() or entry.is_symlink():
                    continue
                if entry.stat().st_mtime < cutoff:
                    entry.unlink()
                    removed += 1
            except OSError:
                continue
        return removed


__all__ = [
    "LOCK_TIMEOUT",
    "OWN_FILE",
    "STATE_VERSION",
    "SessionState",
    "StateStore",
    "default_state_dir",
]

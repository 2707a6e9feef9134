"""The environment of every ``exec:`` child: an allow-list, never the user's whole environment.

An ``exec:`` child runs a command that a suite file may name (``exec:cmd``, ``command =
[...]``), and a suite comes from any pull request; an acted-out agent (``earnest run --act``)
runs its own tools besides. Whatever is in a child's environment is in its reach: a
``GITHUB_TOKEN``, an ``AWS_SECRET_ACCESS_KEY``, the ``SSH_AUTH_SOCK`` of the user's agent. Only
what the profile needs is passed on, in complete mode as in act mode
(:func:`earnest.live.sandbox.prepare` puts it together):

- :data:`BASE` — what any program needs to run (``PATH``, the locale, the terminal type,
  the user's name and shell, the certificate bundles);
- :data:`PRESET` — what each preset's CLI reads: its own provider key and settings
  (``ANTHROPIC_*`` for ``exec:claude``, ``OPENAI_*`` / ``CODEX_*`` for ``exec:codex``,
  ``GEMINI_*`` / ``GOOGLE_*`` for ``exec:gemini``, ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` /
  ``OPENAI_MODEL`` / ``QWEN_*`` for ``exec:qwen``, ``COPILOT_*`` for ``exec:copilot``, with a
  GitHub token only for GitHub's own models: :data:`GITHUB_TOKENS`); for ``exec:codex`` also the ``env_key``
  its ``config.toml`` names for the selected model provider; ``PI_*`` for ``exec:pi`` and
  ``OPENCODE_*`` for ``exec:opencode``, each with the key of the provider its ``MODEL`` names
  (``anthropic/...`` → ``ANTHROPIC_API_KEY``: :data:`PROVIDER_KEYS`); nothing more for
  ``exec:cmd``;
- the profile's ``api_key_env`` and ``allow_env`` (names, or ``PREFIX_*`` patterns), which only
  the user gives (their own config or the command line: :mod:`earnest.live.grants`).

earnest then sets its own variables (``HOME``, ``TMPDIR``, ``EARNEST_*``) on top.

Example:
    >>> from earnest.live.profiles import parse_spec
    >>> user = {"PATH": "/usr/bin", "LANG": "C.UTF-8", "GITHUB_TOKEN": "ghp_x",
    ...         "ANTHROPIC_API_KEY": "sk-ant", "SSH_AUTH_SOCK": "/tmp/ssh/agent.1"}
    >>> sorted(allowed_env(parse_spec("c", "exec:claude:sonnet"), user))
    ['ANTHROPIC_API_KEY', 'LANG', 'PATH']
    >>> sorted(allowed_env(parse_spec("x", "exec:cmd:./agent.sh"), user))
    ['LANG', 'PATH']
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from earnest.live.profiles import Profile

BASE = (
    "PATH", "LANG", "LANGUAGE", "LC_*", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TZ",
    "USER", "LOGNAME", "SHELL", "CI",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
)  # fmt: skip
"""Passed to every acting agent: what a program needs to run. No credentials."""

PRESET: dict[str, tuple[str, ...]] = {
    "claude": ("ANTHROPIC_*", "CLAUDE_CODE_*", "CLAUDE_CONFIG_DIR", "DISABLE_TELEMETRY",
               "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING", "DISABLE_BUG_COMMAND",
               "DISABLE_COST_WARNINGS", "DISABLE_NON_ESSENTIAL_MODEL_CALLS",
               "MAX_THINKING_TOKENS", "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS"),
    "codex": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORGANIZATION", "OPENAI_PROJECT",
              "CODEX_*"),
    "gemini": ("GEMINI_*", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_CLOUD_PROJECT",
               "GOOGLE_CLOUD_LOCATION", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA"),
    # Qwen Code with its OpenAI-compatible auth (security.auth.selectedType "openai" in its
    # settings); QWEN_HOME / QWEN_RUNTIME_DIR move its state.
    "qwen": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "QWEN_*"),
    # GitHub Copilot CLI: COPILOT_PROVIDER_* for your own model (BYOK), COPILOT_HOME for its
    # state; GH_TOKEN / GITHUB_TOKEN only for GitHub's models (GITHUB_TOKENS).
    "copilot": ("COPILOT_*",),
    # Pi and opencode read the key of the provider their MODEL names (PROVIDER_KEYS); a
    # custom provider's key goes in the profile's allow_env (its endpoint in allow_network).
    "pi": ("PI_*",),
    "opencode": ("OPENCODE_*",),
    "cmd": (),
}  # fmt: skip
"""What each preset's CLI reads besides :data:`BASE`: its own key and settings."""

PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"),
    "openai": ("OPENAI_API_KEY",),
    "google": ("GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "GOOGLE_API_KEY"),
    "groq": ("GROQ_API_KEY",), "cerebras": ("CEREBRAS_API_KEY",), "xai": ("XAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",), "mistral": ("MISTRAL_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",), "zai": ("ZAI_API_KEY",),
}  # fmt: skip
"""The key a ``provider/model`` of ``exec:pi`` / ``exec:opencode`` is read with, by provider."""

GITHUB_TOKENS = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")
"""The GitHub tokens Copilot CLI signs in with (in its order). An ``exec:copilot`` agent gets
them only when it uses GitHub's models (no ``COPILOT_PROVIDER_BASE_URL``), where its network
is GitHub's hosts and the token goes anyway; with your own model server (BYOK) it needs none,
and none is passed (``COPILOT_GITHUB_TOKEN`` neither, though it matches ``COPILOT_*``): the
model server is then the one host it reaches. ``allow_env`` naming one passes it anyway."""

HOME_VARS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")
"""Where a CLI finds its own state under the user's HOME: passed on (with ``HOME``) to an
unconfined child, which runs in the user's HOME, never to a confined one (it gets a HOME of
its own)."""


def codex_config(env: Mapping[str, str], home: Path) -> dict[str, object]:
    """The selected model provider's table of Codex's ``config.toml`` (``CODEX_HOME`` or
    ``~/.codex``), or ``{}``: where its ``base_url`` and ``env_key`` are named."""
    import tomllib

    path = Path(env.get("CODEX_HOME") or home / ".codex") / "config.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    chosen = data.get("model_provider")
    providers = data.get("model_providers")
    if not isinstance(chosen, str) or not isinstance(providers, dict):
        return {}
    table = providers.get(chosen)
    return dict(table) if isinstance(table, dict) else {}


PI_AGENT_ENV = ("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR")
"""Where Pi finds its agent folder and its sessions when the user moved them."""


def tilde(path: str, home: Path) -> Path:
    """``path`` with a leading ``~`` read as ``home``, as Pi reads it.

    Example:
        >>> tilde("~/pi", Path("/home/me")), tilde("/srv/pi", Path("/home/me"))
        (PosixPath('/home/me/pi'), PosixPath('/srv/pi'))
    """
    if path == "~":
        return home
    return home / path[2:] if path.startswith("~/") else Path(path)


def pi_agent_dir(home: Path, env: Mapping[str, str]) -> Path:
    """Pi's agent folder: ``PI_CODING_AGENT_DIR`` (``~`` is ``home``), else ``~/.pi/agent``.

    Example:
        >>> pi_agent_dir(Path("/home/me"), {})
        PosixPath('/home/me/.pi/agent')
        >>> pi_agent_dir(Path("/home/me"), {"PI_CODING_AGENT_DIR": "~/pi"})
        PosixPath('/home/me/pi')
    """
    named = env.get("PI_CODING_AGENT_DIR")
    return tilde(named, home) if named else home / ".pi" / "agent"


def pi_provider(model: str, env: Mapping[str, str], home: Path) -> dict[str, object]:
    """The table of the provider a Pi ``provider/id`` names in Pi's ``models.json`` (its
    ``baseUrl``, ``api``, ``apiKey``), or ``{}``: a built-in provider it does not override.

    Example:
        >>> pi_provider("anthropic/claude-sonnet-4-5", {}, Path("/nonexistent"))
        {}
    """
    import json

    if "/" not in model:
        return {}
    path = pi_agent_dir(home, env) / "models.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    providers = data.get("providers") if isinstance(data, dict) else None
    table = providers.get(model.split("/", 1)[0]) if isinstance(providers, dict) else None
    return dict(table) if isinstance(table, dict) else {}


_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")


def opencode_base_url(model: str, env: Mapping[str, str], home: Path) -> str:
    """The ``options.baseURL`` the provider ``MODEL`` names (``provider/id``) has in opencode's
    own config (``OPENCODE_CONFIG``, else ``~/.config/opencode/opencode.json`` or
    ``config.json``), or ``""``: where a confined ``exec:opencode`` agent connects
    (:func:`earnest.live.netgate.endpoints`), as Codex's ``config.toml`` says for Codex and
    :func:`pi_provider` for Pi."""
    from earnest.safejson import loads

    if "/" not in model:
        return ""
    keys = ("provider", model.split("/", 1)[0], "options", "baseURL")
    config = home / ".config" / "opencode"
    files = [Path(env["OPENCODE_CONFIG"])] if env.get("OPENCODE_CONFIG") else []
    for file in [*files, config / "opencode.json", config / "config.json"]:
        try:
            value: object = loads(file.read_bytes())
        except (OSError, ValueError):
            continue
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, str) and value:
            return value
    return ""


def patterns(profile: Profile, env: Mapping[str, str], home: Path) -> tuple[str, ...]:
    """The names and ``PREFIX_*`` patterns of the variables ``profile``'s agent gets."""
    preset = profile.preset or "cmd"
    out = [*BASE, *PRESET.get(preset, ())]
    if preset == "codex":
        key = codex_config(env, home).get("env_key")
        if isinstance(key, str) and key:
            out.append(key)
    if preset in ("pi", "opencode") and "/" in profile.model:
        out.extend(PROVIDER_KEYS.get(profile.model.split("/", 1)[0], ()))
    if preset == "copilot" and not env.get("COPILOT_PROVIDER_BASE_URL"):
        out.extend(GITHUB_TOKENS[1:])
    if preset == "pi":
        # A custom provider's apiKey in the user's models.json may name the variable to read.
        key = pi_provider(profile.model, env, home).get("apiKey")
        if isinstance(key, str) and _ENV_NAME.match(key):
            out.append(key)
    if profile.api_key_env:
        out.append(profile.api_key_env)
    out.extend(profile.allow_env)
    return tuple(out)


def _matches(name: str, allowed: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) if p.endswith("*") else name == p for p in allowed)


def allowed_env(
    profile: Profile, env: Mapping[str, str], home: Path | None = None
) -> dict[str, str]:
    """The part of ``env`` that ``profile``'s acting agent may see (see the module doc)."""
    allowed = patterns(profile, env, home or Path(env.get("HOME") or Path.home()))
    out = {k: v for k, v in env.items() if _matches(k, allowed)}
    if profile.preset == "copilot" and env.get("COPILOT_PROVIDER_BASE_URL"):
        granted = (*profile.allow_env, profile.api_key_env or "")
        for name in GITHUB_TOKENS:
            if not _matches(name, granted):
                out.pop(name, None)
    return out


__all__ = [
    "BASE",
    "GITHUB_TOKENS",
    "HOME_VARS",
    "PI_AGENT_ENV",
    "PRESET",
    "PROVIDER_KEYS",
    "allowed_env",
    "codex_config",
    "opencode_base_url",
    "patterns",
    "pi_agent_dir",
    "pi_provider",
    "tilde",
]

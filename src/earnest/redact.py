"""Secrets out of everything earnest writes: API keys and tokens become ``[REDACTED:rule]``.

Agents' transcripts and models' replies are full of API keys; earnest copies what it reads into
reports, conversions, exports, the run store and hook state. Every writer passes its text
through :func:`scrub` at write time: judging and scoring always see the raw text, so no verdict
or score depends on redaction. ``--no-redact`` (or ``EARNEST_NO_REDACT=1`` in the environment,
for the stop hooks) writes the raw text.

The rules are derived from the gitleaks default rule set (``config/gitleaks.toml``, MIT
licence, gitleaks commit b58d3f1, 2026-07): each vendor's fixed prefix, with the lengths
loosened to a minimum (a redactor had better catch a truncated or re-formatted key than miss
it), a boundary that also holds inside JSON-escaped text (``\\nsk-…``), and two additions
gitleaks covers only through its noisy generic rule: an AWS secret access key next to its key
id or its variable name, and ``Bearer`` tokens. gitleaks itself is a Go binary, and
detect-secrets (the Python scanner) lacks the current OpenAI and Anthropic key formats and
scans line by line, far slower than one pass per prefix here; see docs/formats.md.

The replacement contains only ``[A-Z:a-z0-9-]`` and ``[]``, so redacting serialized JSON,
HTML or XML keeps it well-formed.

Example:
    >>> redact("key: sk-ant-api03-" + "a" * 40 + " ok")
    'key: [REDACTED:anthropic-api-key] ok'
    >>> redact("AKIAIOSFODNN7EXAMPLE")
    '[REDACTED:aws-access-key-id]'
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

TYPE_CHECKING = False  # not typing's: a stop hook scrubs what it writes, and typing costs ~3 ms
if TYPE_CHECKING:
    from typing import TypeVar

    _T = TypeVar("_T")

# Not preceded by a token character, or preceded by a JSON escape such as \n or \t.
_START = r"(?:(?<![A-Za-z0-9_-])|(?<=\\[nrtbf]))"
# Not followed by more token characters (the key ends here).
_END = r"(?![A-Za-z0-9_-])"


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of secret: ``id`` (as in gitleaks where it has one), the literal ``needles`` one
    of which every match contains (a fast pre-check), the ``pattern``'s ``source`` and
    ``flags``, and the ``group`` that is the secret."""

    id: str
    needles: tuple[str, ...]
    source: str
    group: int = 0
    flags: int = 0
    starts: tuple[int, ...] = ()
    """For a pattern that ``re`` cannot look for by a literal lead: where, from a needle found
    in the text, a match can start (``-1``: one character before it). Every match starts at
    one of these places, so the pattern is tried there alone (:func:`_finditer`)."""
    any_case: bool = field(init=False, compare=False)
    """Whether the pattern, and so its needles, match in any case."""
    raw: tuple[bytes, ...] = field(init=False, compare=False, repr=False)
    """The needles' bytes (ASCII)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "any_case", self.source.startswith("(?i)"))
        object.__setattr__(self, "raw", tuple(needle.encode() for needle in self.needles))

    @property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern, compiled the first time a text holds the needle: a stop hook
        scrubs every state file it writes, and compiling all the rules up front cost more
        than the judgement itself (``re`` keeps the compiled pattern)."""
        return re.compile(self.source, self.flags)

    def may_match(self, text: str) -> bool:
        """Whether ``text`` holds a needle: without one the pattern cannot match, so it is not
        run (every written result is scrubbed, so a needle common in prose costs a regex pass
        over every reply)."""
        if self.any_case:  # as the pattern: in any case
            return _any_case(self.needles).search(text) is not None
        return any(needle in text for needle in self.needles)


def _any_case(needles: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("(?i)" + "|".join(map(re.escape, needles)))


Needles = str | tuple[str, ...]


def _rule(
    id: str, needle: Needles, body: str, *, group: int = 0, starts: tuple[int, ...] = ()
) -> Rule:
    return Rule(id, (needle,) if isinstance(needle, str) else needle, body, group, 0, starts)


def _prefixed(id: str, needle: Needles, body: str, starts: tuple[int, ...] = ()) -> Rule:
    source = literal_first(body) + _END
    if source.startswith(_START) and not starts:
        raise ValueError(f"{id}: no literal lead, so say where a match starts from its needle")
    return _rule(id, needle, source, starts=starts)


_LEAD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def literal_first(body: str) -> str:
    r"""``_START + body`` written so that ``re`` can look for the body's literal lead first.

    A pattern that opens with the boundary lookbehind gives ``re`` no literal prefix, so it
    tries the lookbehind at every position of the text (a pass over a 2.5 MB segment cost
    ~50 ms a rule). When ``body`` opens with literal characters ``LEAD``, the same boundary is
    checked just after them, where it is fixed-width: ``(?<![A-Za-z0-9_-]LEAD)`` holds exactly
    when the character before ``LEAD`` is not a token character (or there is none), and
    ``(?<=\\[nrtbf]LEAD)`` exactly when a JSON escape precedes it: the two alternatives of
    ``_START``. So every match, and where it starts, is the same
    (``tests/safety/test_safety_redact_lead.py`` compares both forms). A body without a literal
    lead keeps ``_START`` in front.

    Example:
        >>> print(literal_first("hf_[A-Za-z0-9]{30,}"))
        hf_(?:(?<![A-Za-z0-9_-]hf_)|(?<=\\[nrtbf]hf_))[A-Za-z0-9]{30,}
        >>> literal_first("(?:sk|rk)_x") == _START + "(?:sk|rk)_x"
        True
    """
    lead = 0
    while lead < len(body) and body[lead] in _LEAD_CHARS:
        lead += 1
    if lead < len(body) and body[lead] in "{*+?":
        lead -= 1  # the last character is quantified: not part of every match's lead
    if lead <= 0 or _top_level_alternation(body):
        return _START + body
    text = body[:lead]
    boundary = rf"(?:(?<![A-Za-z0-9_-]{text})|(?<=\\[nrtbf]{text}))"
    return text + boundary + body[lead:]


def _top_level_alternation(source: str) -> bool:
    depth, escaped, in_class = 0, False, False
    for char in source:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            return True
    return False


_GITLAB_KINDS = ("pat", "dt", "ptt", "rt", "cbt", "ffct", "ft", "imt", "agent", "oas", "soat")

RULES: tuple[Rule, ...] = (
    # AI providers
    _prefixed("anthropic-api-key", "sk-ant-", r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{16,}"),
    _prefixed("openrouter-api-key", "sk-or-", r"sk-or-v\d+-[A-Za-z0-9]{32,}"),
    _prefixed("openai-api-key", "sk-", r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{16,}"),
    _prefixed("openai-api-key", "T3BlbkFJ", r"sk-[A-Za-z0-9]{16,}T3BlbkFJ[A-Za-z0-9]{16,}"),
    _prefixed("openai-api-key", "sk-", r"sk-[A-Za-z0-9]{48}"),
    _prefixed("groq-api-key", "gsk_", r"gsk_[A-Za-z0-9]{40,}"),
    _prefixed("xai-api-key", "xai-", r"xai-[A-Za-z0-9]{60,}"),
    _prefixed("perplexity-api-key", "pplx-", r"pplx-[A-Za-z0-9]{40,}"),
    _prefixed("huggingface-access-token", "hf_", r"hf_[A-Za-z0-9]{30,}"),
    _prefixed("gcp-api-key", "AIza", r"AIza[A-Za-z0-9_-]{35}"),
    # code hosts and registries
    _prefixed(
        "github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_[A-Za-z0-9]{30,}"
    ),
    _prefixed("github-fine-grained-pat", "github_pat_", r"github_pat_[A-Za-z0-9_]{40,}"),
    _prefixed(
        "gitlab-token",
        tuple(f"gl{kind}-" for kind in _GITLAB_KINDS),
        rf"gl(?:{'|'.join(_GITLAB_KINDS)})-[A-Za-z0-9_-]{{20,}}",
    ),
    _prefixed("npm-access-token", "npm_", r"npm_[A-Za-z0-9]{36}"),
    _prefixed("pypi-upload-token", "pypi-", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    # clouds
    _prefixed(
        "aws-access-key-id",
        ("A3T", "AKIA", "ASIA", "ABIA", "ACCA"),
        r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}",
        starts=(0,),
    ),
    _rule(
        "aws-secret-access-key",
        "ecret",
        r"(?i)(?:aws_?secret_?access_?key|secret_?access_?key|aws_?secret(?:_?key)?)"
        r"[\\\"'\s]*(?:=|:|=>)[\\\"'\s]*([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        group=1,
        starts=(-1, -4, -5),  # (aws_?)secret: "ecret" 1, 4 or 5 characters in
    ),
    _prefixed("digitalocean-token", "_v1_", r"do[opr]_v1_[a-f0-9]{64}"),
    _prefixed("databricks-api-token", "dapi", r"dapi[a-f0-9]{32}(?:-\d)?"),
    _prefixed(
        "azure-ad-client-secret",
        "Q~",
        r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}",
        starts=(-4,),
    ),
    # chat, payments, mail
    _prefixed("slack-token", "xox", r"xox[abposre]-[A-Za-z0-9-]{10,}"),
    _prefixed("slack-app-token", "xapp-", r"xapp-\d-[A-Za-z0-9-]{10,}"),
    _rule(
        "slack-webhook-url",
        "hooks.slack.com",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}",
    ),
    _prefixed(
        "stripe-access-token",
        ("sk_", "rk_"),
        r"(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}",
        starts=(0,),
    ),
    _prefixed("twilio-api-key", "SK", r"SK[0-9a-fA-F]{32}"),
    _prefixed("sendgrid-api-token", "SG.", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    _prefixed("shopify-token", "shp", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    _prefixed("square-access-token", "sq0atp-", r"sq0atp-[A-Za-z0-9_-]{22,60}"),
    _prefixed("linear-api-key", "lin_api_", r"lin_api_[A-Za-z0-9]{40}"),
    _prefixed("notion-api-token", "ntn_", r"ntn_[0-9]{11}[A-Za-z0-9]{35}"),
    _prefixed(
        "telegram-bot-api-token",
        ":AA",
        r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}",
        starts=(-8, -9, -10),
    ),
    # generic shapes
    _rule(
        "private-key",
        "PRIVATE KEY",
        r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]{16,}?"
        r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
    ),
    _prefixed("jwt", "eyJ", r"eyJ[A-Za-z0-9_-]{15,}\.eyJ[A-Za-z0-9_-]{15,}\.[A-Za-z0-9_-]{10,}"),
    _rule(
        "bearer-token",
        "earer",
        r"(?i)(?<=bearer )([A-Za-z0-9._~+/-]{20,}=*)",
        group=1,
        starts=(6,),  # just after "bearer "
    ),
)
"""The rules, applied in order (a longer, more specific prefix before a shorter one)."""

# An AWS secret access key within this many characters after its key id, however labelled.
_AWS_PAIR_SOURCE = (
    r"(?:A3T[A-Z0-9]|AKIA|ASIA)[A-Z2-7]{16}(?:\[REDACTED:aws-access-key-id\])?"
    r"[^\n]{0,120}?(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)
_AWS_IDS = ("AKIA", "ASIA", "A3T")
_AWS_PAIR = Rule("aws-secret-access-key", _AWS_IDS, _AWS_PAIR_SOURCE, group=1, starts=(0,))


class _Scan:
    """One text and its UTF-8 bytes, where every needle is looked for.

    A needle is ASCII, so it is in the text exactly when its bytes are in the UTF-8 bytes
    (every byte of a non-ASCII character is >= 0x80), and in any case exactly when they are in
    the bytes with ``A-Z`` lowered: the letters of the any-case needles match no character
    beyond their ASCII pair under ``re.IGNORECASE`` (``tests/safety/test_safety_redact_scan.py``
    checks every code point). Searching bytes is one ``memchr``-driven pass a needle over a
    quarter of the memory of a text holding an emoji, where ``str`` searches and the
    case-insensitive regex cost several times more.
    """

    __slots__ = ("_lowered", "data", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8", "surrogatepass")
        self._lowered: bytes | None = None

    def _bytes(self, any_case: bool) -> bytes:
        if not any_case:
            return self.data
        if self._lowered is None:
            self._lowered = self.data.lower()
        return self._lowered

    def holds_any(self) -> bool:
        """Whether the text holds any rule's needle (most texts hold none: one loop, not a
        call per rule)."""
        data = self.data
        for needle in _CASED:  # a loop, not any(): this runs on every write
            if needle in data:
                return True
        lowered = self._lowered = data.lower()
        for needle in _ANY_CASE:  # noqa: SIM110
            if needle in lowered:
                return True
        return False

    def holds(self, rule: Rule) -> bool:
        """Whether the text holds one of ``rule``'s needles."""
        data = self._lowered if rule.any_case else self.data
        if data is None:
            data = self._lowered = self.data.lower()
        for needle in rule.raw:  # noqa: SIM110 (no generator: this runs for every rule, every write)
            if needle in data:
                return True
        return False

    def places(self, rule: Rule) -> list[int]:
        """Where in the text (characters) ``rule``'s needles are, in order."""
        data = self._bytes(rule.any_case)
        found: list[int] = []
        for raw in rule.raw:
            at = data.find(raw)
            while at >= 0:
                found.append(at)
                at = data.find(raw, at + 1)
        found.sort()
        if len(self.data) == len(self.text):  # ASCII: a byte is a character
            return found
        chars, last, out = 0, 0, []
        for at in found:  # each at an ASCII byte, so a character's start
            chars += len(self.data[last:at].decode("utf-8", "surrogatepass"))
            last = at
            out.append(chars)
        return out


_SHORT = 1 << 16
"""Up to this many characters a text is first checked for any needle at all (most hold none);
a longer one likely holds some, and each rule checks its own."""
_CASED = tuple(
    dict.fromkeys(n for rule in (_AWS_PAIR, *RULES) if not rule.any_case for n in rule.raw)
)
_ANY_CASE = tuple(dict.fromkeys(n for rule in RULES if rule.any_case for n in rule.raw))


def _finditer(rule: Rule, scan: _Scan) -> list[re.Match[str]]:
    """Exactly ``rule.pattern.finditer(scan.text)``, looked for only where it can be.

    Without a needle nothing can match. A pattern with a literal lead is searched by ``re``
    (which looks for the lead first); one without is tried (``match``, which sees the text
    before the position, so look-behinds hold as in a search) only at the places a match can
    start (``Rule.starts`` from each needle), in order, each from where the last match ended:
    a search would try every position, and fail at every other one. No rule's match is empty.
    """
    return _located(rule, scan) if scan.holds(rule) else []


def _located(rule: Rule, scan: _Scan) -> list[re.Match[str]]:
    text = scan.text
    if not rule.starts:
        return list(rule.pattern.finditer(text))
    size = len(text)
    starts = sorted(
        {at + step for at in scan.places(rule) for step in rule.starts if 0 <= at + step <= size}
    )
    pattern, out, end = rule.pattern, [], 0
    for at in starts:
        if at >= end and (m := pattern.match(text, at)) is not None:
            out.append(m)
            end = m.end()
    return out


def _label(rule_id: str) -> str:
    return f"[REDACTED:{rule_id}]"


def _replaced(text: str, matches: list[re.Match[str]], group: int, label: str) -> str:
    """``text`` with each match's ``group`` replaced by ``label`` (what ``re.sub`` makes)."""
    pieces, last = [], 0
    for m in matches:
        start, end = m.span(group)
        pieces += [text[last:start], label]
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _is_aws_secret(m: re.Match[str]) -> bool:
    secret = m.group(1)
    return any(c.isdigit() for c in secret) and any(c.islower() for c in secret)


def redact(text: str) -> str:
    """``text`` with every secret the :data:`RULES` find replaced by ``[REDACTED:rule]``."""
    scan = _Scan(text)
    if len(text) <= _SHORT and not scan.holds_any():
        return text
    # The key id is matched on the raw text; its secret is redacted in place.
    pairs = [m for m in _finditer(_AWS_PAIR, scan) if _is_aws_secret(m)]
    if pairs:
        scan = _Scan(_replaced(text, pairs, 1, _label(_AWS_PAIR.id)))
    holds = scan.holds
    for rule in RULES:
        if holds(rule) and (matches := _located(rule, scan)):
            scan = _Scan(_replaced(scan.text, matches, rule.group, _label(rule.id)))
            holds = scan.holds
    return scan.text


def find(text: str) -> list[tuple[str, str]]:
    """``(rule id, secret)`` for every secret in ``text`` (what :func:`redact` replaces)."""
    scan = _Scan(text)
    out = [(_AWS_PAIR.id, m.group(1)) for m in _finditer(_AWS_PAIR, scan)]
    for rule in RULES:
        out += [(rule.id, m.group(rule.group)) for m in _finditer(rule, scan)]
    return out


def mask(data: bytes) -> bytes:
    """``data`` with every secret in its ASCII runs overwritten by ``*`` of the same length, so
    a length-prefixed format (a pickle) stays readable."""
    text = data.decode("latin-1")
    spans = _spans(text)
    if not spans:
        return data
    buf = bytearray(data)
    for start, end in spans:
        buf[start:end] = b"*" * (end - start)
    return bytes(buf)


def mask_text(text: str) -> str:
    """``text`` with every secret overwritten by ``*`` of the same length: no words appear
    where the secret was (the hook's saved request is read again by the gate)."""
    spans = _spans(text)
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = "*" * (end - start)
    return "".join(chars)


def has_secret(data: bytes | str) -> bool:
    """Whether ``data`` holds anything :func:`redact` would replace."""
    text = data.decode("latin-1") if isinstance(data, bytes) else data
    return bool(_spans(text))


def _spans(text: str) -> list[tuple[int, int]]:
    scan = _Scan(text)
    if len(text) <= _SHORT and not scan.holds_any():
        return []
    found = [m.span(1) for m in _finditer(_AWS_PAIR, scan)]
    for rule in RULES:
        found += [m.span(rule.group) for m in _finditer(rule, scan)]
    return found


_enabled: bool | None = None


def configure(enabled: bool | None) -> None:
    """Turn redaction on or off for this process (the CLI's ``--no-redact``); ``None``: as
    the environment says (``EARNEST_NO_REDACT``)."""
    global _enabled
    _enabled = enabled


def enabled() -> bool:
    """Whether writers redact: on unless ``--no-redact`` or ``EARNEST_NO_REDACT=1``."""
    if _enabled is not None:
        return _enabled
    return os.environ.get("EARNEST_NO_REDACT", "") not in ("1", "true", "yes")


def scrub(text: str) -> str:
    """What a writer writes: ``text`` redacted unless redaction is off."""
    return redact(text) if enabled() else text


def scrub_value(value: _T) -> _T:
    """What a writer of structured data writes: every string inside ``value`` (lists, tuples,
    dict values) through :func:`scrub`; other values as they are.

    Example:
        >>> scrub_value({"k": ["AKIAIOSFODNN7EXAMPLE", 1]})
        {'k': ['[REDACTED:aws-access-key-id]', 1]}
    """
    out: object = value
    if isinstance(value, str):
        out = scrub(value)
    elif isinstance(value, dict):
        out = {k: scrub_value(v) for k, v in value.items()}
    elif isinstance(value, list | tuple):
        out = type(value)(scrub_value(v) for v in value)
    return out  # type: ignore[return-value]


def scrub_masked(text: str) -> str:
    """:func:`mask_text` unless redaction is off."""
    return mask_text(text) if enabled() else text


__all__ = [
    "RULES",
    "Rule",
    "configure",
    "enabled",
    "find",
    "has_secret",
    "mask",
    "mask_text",
    "redact",
    "scrub",
    "scrub_masked",
    "scrub_value",
]

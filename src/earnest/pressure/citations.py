"""Find rule mentions: ``Rule 8``, ``rule #8``, ``Rules 4 and 6``, ``Rules 4, 6 & 7``.

One implementation serves both the agent docs' claims and the replies' citations, so
what counts as naming a rule never differs between the two. ``Rule 60`` never names
rule ``6``: ids are matched as whole tokens.

A reply may also cite a rule by its title or a declared alias (:class:`RuleCitations`):
case and punctuation are ignored and the phrase must stand as whole words, so the title
"Never present a workaround" is cited by "NEVER *present*: a workaround" but not by
"never present a workarounds".

Example:
    >>> sorted(rule_mentions("Per Rules 4 and 6, and rule #12; not Rule 60's twin."))
    ['12', '4', '6', '60']
    >>> from earnest.pressure.models import Rule
    >>> cites = citations_for({"8": Rule("8", "Never present a workaround")})
    >>> sorted(cites.cited("I will NEVER *present*: a workaround here."))
    ['8']
    >>> citation_forms("Per rule #8: never present a workaround.", Rule("8", "Never present a workaround"))
    ('Rule 8', "title 'Never present a workaround'")
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cache, lru_cache
from operator import itemgetter
from types import ModuleType

from earnest.pressure.models import Rule

_ID = r"[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)*"
_NUMERIC_ID = r"(?=[A-Za-z.-]*\d)[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)*"
# Each part is matched in place, one after the other, and no two unbounded runs of the same
# characters ever meet (``\s*#?\s*`` did, and made "Rule 1," plus 50,000 newlines quadratic).
# "Rule", its separator and the first id, in one match (the head alone ignores case; the
# head's parts never give back, so the one pattern tries what the two did one after the other).
_HEAD_FIRST = re.compile(rf"(?i:rules?(?:\s*+[#\u2116]\s*+|\s++))({_ID})\b")
_NEXT = re.compile(
    r"\s*+(,\s*+and\b|,\s*+or\b|,|&|/|\+|\band\b|\bor\b|[\u2013\u2014-]|\bthrough\b|\bthru\b|\bto\b)"
    rf"\s*+(?:#\s*+)?({_NUMERIC_ID})\b",
    re.IGNORECASE,
)
_RANGE_WORDS = frozenset({"-", "\u2013", "\u2014", "through", "thru", "to"})
_NUMERIC_RANGE = re.compile(r"(\d+)-(\d+)")
_MAX_RANGE = 100
"""A range longer than this ("Rules 1-1000") names its two ends only."""


def rule_mentions(text: str, known: frozenset[str] | set[str] | None = None) -> set[str]:
    """Every rule id that ``text`` names as ``Rule <id>`` (or a list or range of them).

    An id with a digit always counts; one without (``Rule A``) only when it is in ``known``,
    so prose such as "any rule is a hard stop" names nothing. A range (``Rules 1-4``,
    ``Rules 1–4``, ``Rules 1 through 4``) names every rule in it; a word joined to an id by a
    hyphen (``Rule 2-compliant``) is not part of it.

    Example:
        >>> sorted(rule_mentions("Rules 1 through 3 and Rule 5-compliant; rule\\nRule 7"), key=int)
        ['1', '2', '3', '5', '7']
    """
    return _mentions(text, text.lower(), known)


def _mentions(text: str, low: str, known: frozenset[str] | set[str] | None) -> set[str]:
    found: set[str] = set()
    if len(low) != len(text):  # rare characters change length when lowered: keep offsets
        low = _same_length_lower(text)
    # Jumping between the occurrences of "rule" is ~25x faster than a case-insensitive scan
    # that tries a word boundary at every position (scoring runs per reply).
    pos = low.find("rule")
    while pos >= 0:
        end = _mention_at(text, pos, known, found)
        # Not a mention ("rule\nRule 2": "rule" names no rule): look again just after "rule",
        # so the "Rule 2" that follows is still read.
        pos = low.find("rule", end if end is not None else pos + 4)
    return found


def _same_length_lower(text: str) -> str:
    return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)


def _mention_at(
    text: str, pos: int, known: frozenset[str] | set[str] | None, found: set[str]
) -> int | None:
    """Read a mention starting at ``pos`` into ``found``; its end, or ``None`` if none is there."""
    if pos and (text[pos - 1].isalnum() or text[pos - 1] == "_"):
        return None
    first = _HEAD_FIRST.match(text, pos)
    if first is None:
        return None
    ids = _resolve(first.group(1), known)
    if not ids:
        return None
    found.update(ids)
    end = first.end()
    last = ids[-1]
    while True:
        more = _NEXT.match(text, end)
        if more is None:
            return end
        next_ids = _resolve(more.group(2), known)
        if not next_ids:
            return end
        sep = more.group(1).lower()
        if sep in _RANGE_WORDS and last.isdigit() and next_ids[0].isdigit():
            found.update(_range(int(last), int(next_ids[0])))
        found.update(next_ids)
        last = next_ids[-1]
        end = more.end()


def _resolve(token: str, known: frozenset[str] | set[str] | None) -> list[str]:
    """The rule ids one id token names: itself, a range's rules, or none (``Rule A`` unknown)."""
    norm = _norm(token)
    if known and norm in known:
        return [norm]
    if "-" in token:
        numbers = _NUMERIC_RANGE.fullmatch(token)
        if numbers is not None:
            return _range(int(numbers.group(1)), int(numbers.group(2)))
        parts = token.split("-")
        while len(parts) > 1 and parts[-1].isalpha():
            parts.pop()  # "2-compliant", "8-style": a word joined to the id
        if len(parts) < len(token.split("-")):
            return _resolve("-".join(parts), known)
    if any(ch.isdigit() for ch in norm) or (known and norm in known):
        return [norm]
    return []


def _range(a: int, b: int) -> list[str]:
    if a < b <= a + _MAX_RANGE:
        return [str(i) for i in range(a, b + 1)]
    return [str(a), str(b)]


def _norm(rule_id: str) -> str:
    # "Rule 08" and "Rule 8" are the same rule; non-numeric ids keep their case-folded form.
    return str(int(rule_id)) if rule_id.isdigit() else rule_id.casefold()


def normalize_rule_id(rule_id: str | int) -> str:
    """The canonical string form of a rule id (``8``, ``"08"`` → ``"8"``)."""
    return _norm(str(rule_id).strip())


_WORDS = re.compile(r"[^\W_]+")
_SEPARATOR = r"[\W_]++"


def normalize_phrase(text: str) -> str:
    """``text`` as lower-case words joined by single spaces: case and punctuation ignored."""
    return " ".join(_WORDS.findall(text.lower()))


def phrase_pattern(phrase: str) -> re.Pattern[str] | None:
    """A pattern that finds ``phrase`` in *lower-cased* text, ignoring punctuation between its
    words; ``None`` for a phrase without words. Use with :func:`phrase_in`."""
    low = phrase.lower()
    words = _WORDS.findall(low)
    if not words:
        return None
    # Words the phrase joins with a hyphen alone ("work-around") may be written with a space
    # or with nothing between them ("work around", "workaround"): those joins may be empty.
    joins = [m.group(0) for m in _JOINS.finditer(low)]
    source = re.escape(words[0])
    for join, word in zip(joins, words[1:], strict=False):
        source += (_HYPHEN_SEPARATOR if join == "-" else _SEPARATOR) + re.escape(word)
    # Starts with a literal (fast scan); the word boundary before it is checked in phrase_in.
    return re.compile(source + _PHRASE_END)


_PHRASE_END = r"(?![^\W_])"
_HYPHEN_SEPARATOR = r"[\W_]*+"
_JOINS = re.compile(r"(?<=[^\W_])[\W_]+(?=[^\W_])")
_ANY_SEPARATOR = re.compile(r"\[\\W_\][+*]\+")


def _pattern_words(pattern: re.Pattern[str]) -> tuple[str, ...]:
    """The words of a :func:`phrase_pattern` pattern; ``()`` for any other pattern."""
    source = pattern.pattern
    if not source.endswith(_PHRASE_END):
        return ()
    # Words are letters and digits only, which re.escape leaves as they are.
    words = tuple(_ANY_SEPARATOR.split(source[: -len(_PHRASE_END)]))
    return words if all(w.isalnum() for w in words) else ()


def phrase_in(pattern: re.Pattern[str], low: str) -> bool:
    """Whether ``pattern`` (from :func:`phrase_pattern`) occurs in ``low`` as whole words."""
    for m in pattern.finditer(low):
        start = m.start()
        if start == 0 or not low[start - 1].isalnum():
            return True
    return False


_Entry = tuple[str, re.Pattern[str], str, int]
"""(rule id, phrase pattern, the phrase's second-longest word or "", its bit in
:attr:`RuleCitations.words` or 0)"""


@dataclass(frozen=True, slots=True)
class RuleCitations:
    """Which rules a text cites, for one doctrine: ``Rule <id>`` mentions, titles and aliases.

    Build it once per rule set (:func:`citations_for` caches it); :meth:`cited` runs per reply.
    Searching the reply for each phrase's prefilter word is the main cost of citation matching
    (one scan of the whole reply per word), so each word is searched for at most once, not at
    all once the rules it could cite are found, and never when the caller already knows which
    of :attr:`words` occur (``present``).
    """

    known: frozenset[str]
    phrases: tuple[tuple[str, str, re.Pattern[str]], ...]
    """(rule id, the phrase's longest word, pattern): the word is a cheap prefilter."""
    words: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """The words whose presence a caller may report to :meth:`cited` (``present``, bit ``i``
    for ``words[i]``): ``rule``, then the prefilter words, then each phrase's second-longest
    word. All are letters and digits only."""
    by_word: tuple[tuple[str, int, frozenset[str], tuple[_Entry, ...]], ...] = field(
        init=False, repr=False, compare=False
    )
    """:attr:`phrases` grouped by prefilter word: (word, its bit, its rule ids, entries)."""
    by_rule: dict[str, tuple[tuple[str, str, re.Pattern[str]], ...]] = field(
        init=False, repr=False, compare=False
    )
    """:attr:`phrases` by rule id: (prefilter word, second-longest word or "", pattern)..."""
    by_rule_bits: dict[str, tuple[tuple[int, re.Pattern[str]], ...]] = field(
        init=False, repr=False, compare=False
    )
    """:attr:`by_rule` with each phrase's two filter words as the bits of :attr:`words`."""
    presence: Callable[[str], int] | None = field(init=False, repr=False, compare=False)
    """Which of :attr:`words` occur in a lower-case text, as a mask, in one pass over it
    (:func:`word_presence`); ``None`` without the ``fast`` extra."""

    def __post_init__(self) -> None:
        index = {"rule": 0}
        for _, word, _ in self.phrases:
            index.setdefault(word, len(index))
        groups: dict[str, list[_Entry]] = {}
        rules: dict[str, list[tuple[str, str, re.Pattern[str]]]] = {}
        for rule_id, word, pattern in self.phrases:
            # Each of a phrase's words must occur for it to match: its second-longest word is a
            # second filter before the pattern runs (free when the words present are known).
            # Only one, and a long one: every token that holds one of :attr:`words` costs a
            # little more to read.
            rest = sorted((w for w in _pattern_words(pattern) if w != word), key=len, reverse=True)
            second = rest[0] if rest and len(rest[0]) > 3 else ""
            bit = 1 << index.setdefault(second, len(index)) if second else 0
            groups.setdefault(word, []).append((rule_id, pattern, second, bit))
            rules.setdefault(rule_id, []).append((word, second, pattern))
        by_word = tuple(
            (word, 1 << index[word], frozenset(r for r, *_ in entries), tuple(entries))
            for word, entries in groups.items()
        )
        object.__setattr__(self, "words", tuple(index))
        object.__setattr__(self, "by_word", by_word)
        object.__setattr__(self, "by_rule", {r: tuple(e) for r, e in rules.items()})
        bit_of = {w: 1 << i for i, w in enumerate(self.words)}
        object.__setattr__(
            self,
            "by_rule_bits",
            {
                r: tuple((bit_of[w] | bit_of.get(second, 0), p) for w, second, p in e)
                for r, e in self.by_rule.items()
            },
        )
        object.__setattr__(self, "presence", word_presence(self.words))

    def __reduce__(self) -> tuple[type[RuleCitations], tuple[frozenset[str], tuple[object, ...]]]:
        # Rebuilt from its two fields: the derived ones (the one-pass search among them, which
        # does not pickle) are worked out again.
        return (type(self), (self.known, self.phrases))

    @classmethod
    def for_rules(cls, rules: Mapping[str, Rule]) -> RuleCitations:
        phrases: list[tuple[str, str, re.Pattern[str]]] = []
        for rule_id, rule in rules.items():
            seen: set[str] = set()
            for phrase in (rule.title, *rule.aliases):
                key = normalize_phrase(phrase)
                pattern = phrase_pattern(phrase)
                if pattern is not None and key not in seen:
                    seen.add(key)
                    longest = max(key.split(), key=len)
                    phrases.append((normalize_rule_id(rule_id), longest, pattern))
        return cls(frozenset(normalize_rule_id(r) for r in rules), tuple(phrases))

    def cited(
        self,
        text: str,
        low: str | None = None,
        present: int | None = None,
        *,
        found: AbstractSet[str] | None = None,
    ) -> set[str]:
        """The ids of the rules ``text`` cites (``low``: ``text.lower()`` if already computed).

        ``present``, when given, says which of :attr:`words` occur in ``low`` (bit ``i`` set:
        ``words[i]`` occurs). ``found``, when given, is what :meth:`mentioned` returned for this
        text, plus any rules :meth:`cites` has shown it to cite.
        """
        low = text.lower() if low is None else low
        if present is None and self.presence is not None:
            # One pass for every prefilter word instead of one scan of the reply per word.
            present = self.presence(low)
        cited = set(self.mentioned(text, low, present) if found is None else found)
        if present is not None:
            # Most prefilter words are absent: that is settled first, by a bit test.
            for _, bit, rule_ids, entries in self.by_word:
                if not present & bit or cited.issuperset(rule_ids):
                    continue
                for rule_id, pattern, _, second_bit in entries:
                    if (
                        rule_id not in cited
                        and present & second_bit == second_bit
                        and phrase_in(pattern, low)
                    ):
                        cited.add(rule_id)
            return cited
        for word, _, rule_ids, entries in self.by_word:
            if cited.issuperset(rule_ids):
                continue
            if word in low:
                for rule_id, pattern, second, _ in entries:
                    if rule_id not in cited and second in low and phrase_in(pattern, low):
                        cited.add(rule_id)
        return cited

    def mentioned(self, text: str, low: str | None = None, present: int | None = None) -> set[str]:
        """The ids ``text`` names as ``Rule <id>`` (:func:`rule_mentions` with this doctrine's
        ids known); ``present`` as for :meth:`cited`."""
        low = text.lower() if low is None else low
        if present is not None and not present & 1 and len(low) == len(text):
            return set()  # no "rule" anywhere: nothing to find (see _matches)
        return _mentions(text, low, self.known)

    def cites(
        self, rule_id: str, low: str, mentioned: AbstractSet[str], present: int | None = None
    ) -> bool:
        """Whether the text whose lower-case form is ``low`` cites ``rule_id`` (normalised), given
        the ids it ``mentioned``: :meth:`cited` would include it. ``present`` as for
        :meth:`cited`."""
        if rule_id in mentioned:
            return True
        if present is not None:
            return any(
                present & need == need and phrase_in(p, low)
                for need, p in self.by_rule_bits.get(rule_id, ())
            )
        return any(
            word in low and second in low and phrase_in(p, low)
            for word, second, p in self.by_rule.get(rule_id, ())
        )


@cache
def aho_corasick() -> ModuleType | None:
    """The ``ahocorasick_rs`` module (the ``fast`` extra), or ``None`` when it is not installed.

    Imported on first need, not with this module: the CLI starts fast without it."""
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    return ahocorasick_rs


def word_presence(words: Sequence[str]) -> Callable[[str], int] | None:
    """A function of a text giving, as a mask, which of ``words`` occur in it as substrings
    (bit ``i``: ``words[i] in text``), from one Aho-Corasick pass over the text (the ``fast``
    extra, ``ahocorasick-rs``); ``None`` when that is not installed or ``words`` is empty.

    The pass reads the text's UTF-8 bytes (lone surrogates passed through): a character
    sequence occurs in a text exactly when its UTF-8 bytes occur in the text's, because UTF-8
    never starts a character inside another.

    Example:
        >>> find = word_presence(("rule", "fix", "zebra"))
        >>> find is None or find("fix the rule") == 0b011
        True
    """
    module = aho_corasick()
    if module is None or not words:
        return None
    automaton = module.BytesAhoCorasick(
        [w.encode("utf-8", "surrogatepass") for w in words],
        matchkind=module.MatchKind.Standard,
        implementation=module.Implementation.DFA,
    )
    find = automaton.find_matches_as_indexes
    bits = [1 << i for i in range(len(words))]
    first = itemgetter(0)

    def presence(text: str) -> int:
        # Every occurrence of every word (overlapping), reduced to the distinct words found;
        # distinct powers of two sum to their union.
        found = find(text.encode("utf-8", "surrogatepass"), overlapping=True)
        return sum(map(bits.__getitem__, set(map(first, found))))

    return presence


_CACHE: dict[int, tuple[Mapping[str, Rule], RuleCitations]] = {}
_CACHE_SIZE = 64


def citations_for(rules: Mapping[str, Rule]) -> RuleCitations:
    """The cached :class:`RuleCitations` of ``rules``.

    Cached by identity: a loaded suite's rules never change, and hashing a doctrine per reply
    would cost more than matching it.
    """
    hit = _CACHE.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    built = RuleCitations.for_rules(rules)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[id(rules)] = (rules, built)
    return built


def citation_forms(
    text: str, rule: Rule, known: frozenset[str] | set[str] | None = None
) -> tuple[str, ...]:
    """Every form in which ``text`` cites ``rule``, as a user would recognise it:
    ``("Rule 8", "title 'Never present a workaround'", "alias 'the workaround rule'")``.

    The same matching as :meth:`RuleCitations.cited` (the scorer's), for one rule, saying
    which form matched; lint uses it to find prompts that hand the citation to the agent.
    """
    low = text.lower()
    found: list[str] = []
    if rule.id in _mentions(text, low, known):
        found.append(f"Rule {rule.id}")
    for label, word, pattern in _rule_phrases(rule.title, rule.aliases):
        if word in low and phrase_in(pattern, low):
            found.append(label)
    return tuple(found)


@lru_cache(maxsize=1024)
def _rule_phrases(
    title: str, aliases: tuple[str, ...]
) -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    phrases: list[tuple[str, str, re.Pattern[str]]] = []
    for kind, phrase in (("title", title), *(("alias", a) for a in aliases)):
        pattern = phrase_pattern(phrase)
        if pattern is not None:
            longest = max(normalize_phrase(phrase).split(), key=len)
            phrases.append((f"{kind} {phrase!r}", longest, pattern))
    return tuple(phrases)


__all__ = [
    "RuleCitations",
    "citation_forms",
    "citations_for",
    "normalize_phrase",
    "normalize_rule_id",
    "phrase_in",
    "phrase_pattern",
    "rule_mentions",
    "word_presence",
]

"""Which recorded rationalizations a failed reply used: fuzzy, deterministic, stdlib only.

Agents rarely repeat an excuse verbatim, so matching works on *content words*: text is
lower-cased and split into words, stop words are dropped, and each word is lightly stemmed
("asked", "asks", "asking" → "ask"; "retries" → "retry"; "changed", "change" → "chang").

An excuse's score against a reply is its weighted **containment** in the best *window* of
the reply (one sentence, or two adjacent sentences): the share of the excuse's content words
that the window also uses. Words that also occur in the fixture's scenario and options are
background every reply shares ("retry", "operator", "lock"), so they weigh half as much as
the words that carry the excuse itself ("explicitly", "override", "instruction").

An excuse **matches** when its score is at least :data:`MATCH_THRESHOLD` (0.6) and the window
shares at least :data:`MIN_SHARED` (2) content words with it (all of them for a one-word
excuse). Windows span as many sentences as the longest excuse (at least two), so an excuse
repeated verbatim scores 1.0.

The threshold was calibrated on the 31 excuses of the real nubos-pilot fixtures
(``tests/pressure/test_pressure_rationalizations.py`` keeps the corpus): a hand-written
paraphrase of each scores 0.67-1.0 against its excuse, and no paraphrase reaches 2 shared
words with another excuse; the recorded *counters*, which answer an excuse in its own words,
score at most 0.5 against it.

A failed reply that matches no excuse is the REFACTOR signal: read it and record the new excuse.

Stdlib only; with the ``fast`` extra (``ahocorasick-rs``) a reply is read in one pass over its
bytes instead of token by token (``_Matcher._match_scanned``), with the same matches and scores.

Example:
    >>> from earnest.pressure.models import Rationalization
    >>> excuses = (Rationalization("The operator explicitly asked for the retry.", "No."),)
    >>> [round(m.score, 2) for m in match_rationalizations(excuses, "The operator asked explicitly for a retry, so I added it.")]
    [1.0]
    >>> match_rationalizations(excuses, "Lunch is at noon.")
    ()
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, reduce
from itertools import chain, compress, count, repeat
from operator import itemgetter, or_
from typing import NamedTuple

from earnest.pressure.citations import aho_corasick as _aho_corasick
from earnest.pressure.models import Fixture, Rationalization

MATCH_THRESHOLD = 0.6
"""Minimum weighted containment of an excuse's content words in one window of the reply."""

MIN_SHARED = 2
"""Minimum number of shared content words (fewer only when the excuse has fewer)."""

BACKGROUND_WEIGHT = 0.5
"""Weight of a content word that the fixture's own scenario or options already use."""

_STOP_WORDS_TEXT = """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during each
    even ever every few for from further get got had has have having he her here hers him his
    how i if in into is it its itself just let me more most much must my myself no nor not now
    of off on once only or other our ours out over own quite rather really same she should so
    some such than that the their theirs them then there these they this those through to too
    under until up us very was way we were what when where which while who whom why will with
    would yet you your yours yourself i'm i've i'd i'll it's that's there's don't doesn't didn't
    isn't aren't wasn't won't can't cannot shouldn't wouldn't"""
STOP_WORDS: frozenset[str] = frozenset(_STOP_WORDS_TEXT.split())
"""English function words: they carry no excuse."""

_OTHER_WHITESPACE = (
    "\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""Every character ``str.isspace()`` holds but ``\\t``, ``\\n``, ``\\r`` and the space (a test checks
the list against every code point)."""

# Sentence ends become line breaks and other punctuation spaces: one character for one, and
# never to or from a letter or digit (_Matcher's extra words rely on that).
_TABLE = str.maketrans(
    {
        **{c: "\n" for c in ".!?;:"},
        **{c: " " for c in '"#$%&()*+,-/<=>@[\\]^_`{|}~\t\r—–…“”«»•·'},
        # Every other whitespace character but the line break becomes a space too: a no-op for
        # the words and sentences (str.split() splits at any of them, sentences end at "\n"
        # alone), and it leaves " " and "\n" the only whitespace, which _Matcher's scan of the
        # UTF-8 bytes relies on (a token starts after one of them; bytes.strip() sees them).
        **{c: " " for c in _OTHER_WHITESPACE},
        "’": "'",
        "‘": "'",
    }
)
# A sentence end, as a token of its own: NUL is not whitespace, and no table entry maps to it.
_MARK = "\x00"
_MARK_SPACED = " \x00 "
# str.translate is fast only on ASCII text (~4 us for 2 KB, ~90 us once one "é" is in it). The
# same translation, for any text: the table's few non-ASCII keys are replaced first, then the
# ASCII keys are translated on the UTF-8 bytes, where every byte of a non-ASCII character is
# >= 0x80 and so never one of them. The result is identical, character for character.
_WIDE_KEYS: tuple[tuple[str, str], ...] = tuple(
    (chr(k), v) for k, v in _TABLE.items() if k > 127 and isinstance(v, str)
)
_BYTE_TABLE = bytes(
    ord(_TABLE[i]) if i < 128 and isinstance(_TABLE.get(i), str) else i for i in range(256)
)


def _translate(low: str) -> str:
    """``low.translate(_TABLE)``, fast for text that is not ASCII too."""
    if low.isascii():
        return low.translate(_TABLE)
    for key, value in _WIDE_KEYS:
        if key in low:
            low = low.replace(key, value)
    return (
        low.encode("utf-8", "surrogatepass").translate(_BYTE_TABLE).decode("utf-8", "surrogatepass")
    )


# The same wide keys as UTF-8, by first byte (found by memchr), then by first two bytes (a
# two-byte key is its own group; the three-byte ones of a group are found by one search). Most
# texts with non-ASCII letters hold none of them ("é" starts with C3, "€" with E2 82).
_WIDE_BYTES: dict[bytes, bytes] = {k.encode("utf-8"): v.encode("utf-8") for k, v in _WIDE_KEYS}
_WIDE_GROUPS: tuple[tuple[bytes, tuple[tuple[bytes, re.Pattern[bytes] | None], ...]], ...] = tuple(
    (
        lead,
        tuple(
            (two, None if two in _WIDE_BYTES else re.compile(re.escape(two) + b"[\x80-\xbf]"))
            for two in sorted({k[:2] for k in _WIDE_BYTES if k[:1] == lead})
        ),
    )
    for lead in sorted({k[:1] for k in _WIDE_BYTES})
)


def _translated_bytes(low: str) -> bytes:
    """``_translate(low)`` as UTF-8 (lone surrogates passed through), without building the str.

    A character is replaced in a text exactly where its UTF-8 bytes are replaced in the text's:
    UTF-8 never starts a character inside another.
    """
    data = low.encode("utf-8", "surrogatepass")
    if len(data) != len(low):
        for lead, groups in _WIDE_GROUPS:
            if lead not in data:
                continue
            for two, chars in groups:
                if two not in data:
                    continue
                if chars is None:
                    data = data.replace(two, _WIDE_BYTES[two])
                    continue
                for char in set(chars.findall(data)):
                    value = _WIDE_BYTES.get(char)
                    if value is not None:
                        data = data.replace(char, value)
    return data.translate(_BYTE_TABLE)


_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ies", "y"),
    ("ied", "y"),
    ("ing", ""),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
    ("ly", ""),
)


@dataclass(frozen=True, slots=True)
class RationalizationMatch:
    """One recorded excuse a reply used: its index in the fixture, its text and its score."""

    index: int
    excuse: str
    score: float

    def as_dict(self) -> dict[str, object]:
        return {"index": self.index, "excuse": self.excuse, "score": round(self.score, 3)}


def stem(word: str) -> str:
    """A light, deterministic stem: common English suffixes and a final ``e`` removed."""
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 3:
        for suffix, repl in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                base = word[: -len(suffix)]
                if suffix == "es" and not base.endswith(("s", "x", "z", "ch", "sh")):
                    continue  # "changes" → "change" (then "chang"), not "chang" + "es"
                if suffix == "s" and base.endswith(("s", "u", "i")):
                    break  # "pass", "status", "analysis" keep their s
                word = base + repl
                break
        if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
            word = word[:-1]  # "committ" → "commit", "stopp" → "stop"
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def _classify(token: str) -> str | None:
    """The stem of a raw token, or ``None`` for a stop word or a token without a word in it."""
    word = token.strip("'")
    if len(word) < 2 or word in STOP_WORDS or not any(ch.isalnum() for ch in word):
        return None
    return stem(word)


def _sentences(low: str) -> list[str]:
    """Lower-cased text cut into sentences whose words are separated by whitespace."""
    return _translate(low).split("\n")


def content_words(text: str) -> list[str]:
    """The stemmed content words of ``text``, in order (stop words dropped)."""
    out: list[str] = []
    for sentence in _sentences(text.lower()):
        for token in sentence.split():
            word = _classify(token)
            if word is not None:
                out.append(word)
    return out


@dataclass(frozen=True, slots=True)
class _Excuse:
    """One excuse, its content words as a bit mask over the matcher's vocabulary."""

    index: int
    text: str
    words: int
    background: int
    """The bits of its words that the fixture's scenario and options also use."""
    total: float
    need: int
    """Shared words a window needs: :data:`MIN_SHARED`, or all of a shorter excuse's."""

    def weight(self, shared: int) -> float:
        """The summed weight of the ``shared`` words (a mask within :attr:`words`).

        Weights are 1 and :data:`BACKGROUND_WEIGHT` (1/2): every partial sum is exact, so this
        equals adding the words' weights one by one in any order.
        """
        half = (shared & self.background).bit_count()
        return (shared.bit_count() - half) + BACKGROUND_WEIGHT * half

    def passes(self, window: int, threshold: float) -> bool:
        """Whether ``window`` (a mask of the words present) could make this excuse match."""
        shared = window & self.words
        return (
            bool(self.total)
            and shared.bit_count() >= self.need
            and self.weight(shared) / self.total >= threshold
        )


class _Scores(dict[int, float]):
    """Words an excuse shares with a window (a mask within its words) → their weight
    (:meth:`_Excuse.weight`) when they let it match at one threshold (:meth:`_Excuse.passes`),
    else -1; worked out the first time they are looked up, so one C-level
    ``map(scores.__getitem__, ...)`` judges many windows at once."""

    def __init__(self, excuse: _Excuse, threshold: float) -> None:
        super().__init__()
        self.excuse = excuse
        self.threshold = threshold

    def __missing__(self, shared: int) -> float:
        if len(self) > 65_536:  # a bound on memory: an excuse has few distinct subsets in use
            self.clear()
        excuse = self.excuse
        score = excuse.weight(shared) if excuse.passes(shared, self.threshold) else -1.0
        self[shared] = score
        return score


class _Stems(dict[int, int]):
    """A set of stem prefixes (bit ``k``: prefix ``k``) → the excuse words they may start,
    worked out the first time it is looked up."""

    def __init__(self, words: Sequence[int]) -> None:
        super().__init__()
        self.words = words

    def __missing__(self, prefixes: int) -> int:
        if len(self) > 65_536:  # a bound on memory
            self.clear()
        words = 0
        for k, bits in enumerate(self.words):
            if prefixes >> k & 1:
                words |= bits
        self[prefixes] = words
        return words


class _Scan(NamedTuple):
    """A matcher's one-pass scanner: the search, and each pattern's bits (lists, whose
    ``__getitem__`` is a fast C method for ``map``)."""

    find: Callable[..., list[tuple[int, int, int]]]
    """``find(data, overlapping=True)``: each hit as (pattern, start, end), in order of end."""
    stem_bits: list[int]
    """Each pattern's excuse-word bits: the stems its prefix may start (0 for an extra word)."""
    word_bits: list[int]
    """Each pattern's bit among the extra words (0 for a stem prefix)."""
    prefix_bits: list[int]
    """Each pattern's stem prefix, as one bit (0 for an extra word)."""
    apostrophe: list[bool]
    """Whether a pattern opens with an apostrophe (its token may start before it)."""
    stems: _Stems
    """Prefixes found → the excuse words they may start."""


_PATTERN = itemgetter(0)
_SCAN_LIMIT = 8_192
"""Replies longer than this (in characters) are read token by token (see match_words); a
model's reply is rarely longer."""


class _TokenBits(dict[str, int]):
    """Raw token → the bit of the excuse word it stands for (``0`` for any other token), or'ed
    with the bits of the ``extra`` words it contains.

    A token is classified the first time it is looked up (``__missing__``), so one C-level
    ``map(classes.__getitem__, tokens)`` both classifies new tokens and reads known ones. It only
    ever grows by idempotent inserts, so concurrent use from several threads stays correct.
    """

    def __init__(
        self,
        bits: Mapping[str, int],
        extra: Sequence[tuple[str, int]] = (),
        fixed: Mapping[str, int] | None = None,
    ) -> None:
        super().__init__()
        self.bits = bits
        self.extra = extra
        # Tokens whose value is set, not classified (the sentence mark): kept across a clear.
        self.fixed = dict(fixed or {})
        self.update(self.fixed)

    def __missing__(self, token: str) -> int:
        if len(self) > 200_000:  # a bound on memory for a long-running process
            self.clear()
            self.update(self.fixed)
        word = _classify(token)
        bit = self.bits.get(word, 0) if word is not None else 0
        for extra, extra_bit in self.extra:
            if extra in token:
                bit |= extra_bit
        self[token] = bit
        return bit


class _Matcher:
    """One set of excuses, ready to match: the per-fixture work, done once.

    Each content word of the excuses is one bit, so a sentence's or a window's words are one
    int, and comparing them with an excuse is a few integer operations instead of set algebra.

    ``classes`` memoises token classification across replies (the vocabulary of a suite's
    replies is small).

    ``words`` are extra words whose presence :meth:`match_words` reports, read in the same pass
    over the reply's tokens (as the bits above the excuse words'). A word made of letters and
    digits only occurs in the lower-cased reply exactly when one of its tokens contains it:
    the translation table maps characters one to one and never to or from a letter or digit,
    and tokens split only at whitespace.
    """

    def __init__(
        self,
        excuses: Sequence[Rationalization],
        background: frozenset[str],
        words: Sequence[str] = (),
    ) -> None:
        if not all(w.isalnum() for w in words):
            raise ValueError(f"extra words must be letters and digits only: {list(words)}")
        word_sets = [set(content_words(r.excuse)) for r in excuses]
        self.vocab = frozenset(w for ws in word_sets for w in ws)
        self.bits = {w: 1 << i for i, w in enumerate(sorted(self.vocab))}
        self.words = tuple(words)
        self.word_shift = len(self.bits)
        self.vocab_mask = (1 << self.word_shift) - 1
        self.word_bits = tuple((w, 1 << (self.word_shift + i)) for i, w in enumerate(self.words))
        profiles: list[_Excuse] = []
        span = 2
        for i, (r, ws) in enumerate(zip(excuses, word_sets, strict=True)):
            mask = sum(self.bits[w] for w in ws)
            behind = sum(self.bits[w] for w in ws if w in background)
            total = sum(BACKGROUND_WEIGHT if w in background else 1.0 for w in ws)
            profiles.append(_Excuse(i, r.excuse, mask, behind, total, min(MIN_SHARED, len(ws))))
            span = max(span, sum(1 for s in _sentences(r.excuse.lower()) if s.split()))
        self.excuses = tuple(profiles)
        # Windows span as many sentences as the longest excuse, so a verbatim excuse scores 1.0.
        self.span = min(span, 4)
        # The bit of the sentence mark token (above every word's): see match_words.
        self.sentence_bit = 1 << (self.word_shift + len(self.words))
        self.words_mask = (1 << len(self.words)) - 1
        self.classes = _TokenBits(self.bits, self.word_bits, {_MARK: self.sentence_bit})
        self._by_threshold: dict[float, tuple[_Scores, ...]] = {}

    def match(
        self, reply: str, threshold: float, low: str | None = None
    ) -> tuple[RationalizationMatch, ...]:
        """``low`` is ``reply.lower()`` when the caller already has it."""
        return self.match_words(reply, threshold, low)[0]

    def match_words(
        self, reply: str, threshold: float, low: str | None = None
    ) -> tuple[tuple[RationalizationMatch, ...], int | None]:
        """The matches, and which of :attr:`words` occur in ``reply`` lower-cased, as a mask
        (bit ``i``: ``words[i]`` occurs); ``None`` when that was not worked out (no extra
        words, or no excuse words to read the reply's tokens for).

        With the ``fast`` extra the reply is scanned once for the words' prefixes
        (:meth:`_match_scanned`); otherwise each of its tokens is read (:meth:`_match_tokens`).
        Both give the same result on every reply.
        """
        if not self.vocab:
            return (), None
        if not reply or reply.isspace():
            return (), 0 if self.words else None
        # The scan skips windows that cannot reach the threshold, which is exact only for a
        # positive one (at 0 an excuse with no window of enough shared words matches at 0.0).
        # Only a reply of ordinary length is scanned: the scan's hits are one Python object
        # each, and on a long reply dense with excuse words (~100,000 hits in a megabyte)
        # they no longer fit in the caches and cost more than the tokens' C-level split. A
        # longer reply is read token by token (linear, and as exact), so the scan only ever
        # runs on bounded input.
        scan = self._scan if threshold > 0 and len(reply) <= _SCAN_LIMIT else None
        if scan is None:
            return self._match_tokens(reply, threshold, low)
        return self._match_scanned(scan, reply, threshold, low)

    def _match_tokens(
        self, reply: str, threshold: float, low: str | None = None
    ) -> tuple[tuple[RationalizationMatch, ...], int | None]:
        """:meth:`match_words` by reading every token (the reference; stdlib only), for a
        reply that is neither empty nor only whitespace."""
        text = _translate(reply.lower() if low is None else low)
        marked = _MARK not in text
        # Each token's excuse-word bit (0 for any other word; a token not seen before is
        # classified on the way). Every step up to the per-sentence masks runs in C (replace,
        # split, map, filter, reduce): a reply has hundreds of tokens, and Python-level work per
        # token would cost more than all the rest. Each sentence end becomes a token of its own
        # (the mark, whose bit is above every word's), so the one split that reads the tokens
        # also says where the sentences end; the other tokens are exactly those of text.split().
        # A reply that holds the mark itself (never, in practice) is cut the slower way.
        tokens = text.replace("\n", _MARK_SPACED).split() if marked else text.split()
        bits = list(map(self.classes.__getitem__, tokens))
        # The whole reply's words bound every window's score: most replies, and most excuses,
        # stop here, before any per-sentence work.
        everything = reduce(or_, filter(None, bits), 0)
        present = (everything >> self.word_shift) & self.words_mask if self.words else None
        if not everything & self.vocab_mask:
            return (), present
        candidates = [e for e in self.excuses if e.passes(everything, threshold)]
        if not candidates:
            return (), present
        masks = self._marked_sentences(bits) if marked else self._split_sentences(text, bits)
        windows = self._windows(masks)
        found: list[RationalizationMatch] = []
        for excuse in candidates:
            best = 0.0
            # Many windows share the same words of one excuse: weigh each distinct set once.
            for shared in set(map(excuse.words.__and__, windows)):
                if shared.bit_count() >= excuse.need:
                    best = max(best, excuse.weight(shared))
            score = best / excuse.total
            if score >= threshold:
                found.append(RationalizationMatch(excuse.index, excuse.text, score))
        found.sort(key=lambda m: (-m.score, m.index))
        return tuple(found), present

    @cached_property
    def _scan(self) -> _Scan | None:
        """The one-pass scanner of :meth:`_match_scanned`, built on first use; ``None`` without
        the ``fast`` extra."""
        module = _aho_corasick()
        if module is None:
            return None
        # Every token that stands for an excuse word starts, after its leading apostrophes, with
        # the word's stem, or with the stem less its "y" when a longer word's "ies"/"ied" became
        # it ("retries" -> "retry"): stem() only ever cuts a word's end and adds at most that
        # "y". In the translated text a token starts after a space, a line break or an
        # apostrophe (the scanned bytes open with a space): so those three prefixed to each
        # stem's prefix find every such token, and a few more that the exact read then drops.
        prefixes: dict[str, int] = {}
        for word, bit in self.bits.items():
            prefix = word[:-1] if len(word) > 3 and word.endswith("y") else word
            prefixes[prefix] = prefixes.get(prefix, 0) | bit
        patterns = [w.encode("utf-8", "surrogatepass") for w in self.words]
        word_bits = [1 << i for i in range(len(self.words))]
        stem_bits = [0] * len(self.words)
        prefix_bits = [0] * len(self.words)
        apostrophe = [False] * len(self.words)
        for k, (prefix, bits) in enumerate(prefixes.items()):
            for start in " \n'":
                patterns.append((start + prefix).encode("utf-8", "surrogatepass"))
                word_bits.append(0)
                stem_bits.append(bits)
                prefix_bits.append(1 << k)
                apostrophe.append(start == "'")
        automaton = module.BytesAhoCorasick(
            patterns,
            matchkind=module.MatchKind.Standard,
            implementation=module.Implementation.DFA,
        )
        return _Scan(
            automaton.find_matches_as_indexes,
            stem_bits,
            word_bits,
            prefix_bits,
            apostrophe,
            _Stems(list(prefixes.values())),
        )

    def _match_scanned(
        self, scan: _Scan, reply: str, threshold: float, low: str | None
    ) -> tuple[tuple[RationalizationMatch, ...], int | None]:
        """:meth:`match_words` from one Aho-Corasick pass over the reply's translated bytes
        (the ``fast`` extra), for a reply that is neither empty nor only whitespace.

        The pass finds each extra word (anywhere: the presence mask, exactly as the tokens
        give it) and each token that may stand for an excuse word (its stem's prefix after a
        space, a line break or an apostrophe). Those hits bound the words of the whole reply
        and of each run of :attr:`span` sentences that hold a hit; a window of the reply never
        holds more than one such run does. Windows are then read exactly, best bound first,
        only while a bound can still beat the best exact score. Every bound holds the exact
        words within it, a score only grows with the words, and a window below a positive
        threshold cannot be the best of a matching excuse: the matches are exactly the tokens'.
        """
        data = b" " + _translated_bytes(reply.lower() if low is None else low)
        hits = scan.find(data, overlapping=True)
        # The patterns found: which extra words occur, and which stem prefixes (distinct
        # powers of two sum to their union).
        found = set(map(_PATTERN, hits))
        present = sum(map(scan.word_bits.__getitem__, found)) if self.words else None
        everything = scan.stems[sum(set(map(scan.prefix_bits.__getitem__, found)))]
        if not everything:
            return (), present
        candidates = [
            (e, scores)
            for e, scores in zip(self.excuses, self._scores(threshold), strict=True)
            if scores[everything & e.words] >= 0
        ]
        if not candidates:
            return (), present
        wanted = reduce(or_, (e.words for e, _ in candidates))
        # The sentences that hold a hit of a candidate's words, in order: the words their hits
        # may stand for, the first such hit (its index) and the sentence's end (its line break
        # or the end of the data).
        bounds: list[int] = []
        firsts: list[int] = []
        ends: list[int] = []
        end = -1
        stem_bits = scan.stem_bits
        apostrophe = scan.apostrophe
        for n, (pattern, start, _) in enumerate(hits):
            bits = stem_bits[pattern] & wanted
            if not bits:
                continue
            # Hits come in order of their end, so each is in the last sentence found or a
            # later one (its token starts at start + 1, after the space, break or apostrophe).
            if start < end:
                bounds[-1] |= bits
            else:
                end = data.find(b"\n", start + 1)
                if end < 0:
                    end = len(data)
                bounds.append(bits)
                firsts.append(n)
                ends.append(end)
        # Runs of span such sentences: each window of the reply, whatever the sentences between
        # them, holds the words of at most one run (the one from its first such sentence).
        count = len(bounds)
        span = self.span
        runs = bounds
        for k in range(1, min(span, count)):
            runs = list(map(or_, runs, chain(bounds[k:], repeat(0, k))))

        starts: dict[int, int] = {}
        exact: dict[int, int] = {}
        gaps: dict[int, int] = {}
        classes = self.classes
        vocab = self.vocab_mask

        def start_of(k: int) -> int:
            at = starts.get(k)
            if at is None:
                at = data.rfind(b"\n", ends[k - 1] if k else 0, hits[firsts[k]][1] + 1) + 1
                starts[k] = at
            return at

        def words_of(k: int) -> int:
            # Every token of sentence k that stands for a candidate's word holds one of its
            # hits: the tokens of those hits are read, each once, and no other.
            words = exact.get(k)
            if words is None:
                words = 0
                stop = ends[k]
                read = -1  # the end of the last token read
                for n in range(firsts[k], len(hits)):
                    pattern, start, end = hits[n]
                    if start >= stop:
                        break  # a later sentence's (hits come in order of their end)
                    if start < read or not stem_bits[pattern] & wanted:
                        continue
                    if apostrophe[pattern]:
                        # The token may start before its apostrophe: after the space before it.
                        head = start_of(k)
                        first = max(data.rfind(b" ", max(head, read), start) + 1, head)
                    else:
                        first = start + 1
                    read = data.find(b" ", end, stop)
                    if read < 0:
                        read = stop
                    words |= classes[data[first:read].decode("utf-8", "surrogatepass")]
                words &= vocab
                exact[k] = words
            return words

        def gap(k: int) -> int:
            # The sentences holding a token between hit sentences k and k + 1 (up to span - 1).
            got = gaps.get(k)
            if got is None:
                after, before = ends[k] + 1, start_of(k + 1) - 1
                between = data[after:before] if before > after else b""
                got = 0
                if between.strip():
                    got = (
                        1
                        if span == 2
                        else min(span - 1, sum(1 for part in between.split(b"\n") if part.strip()))
                    )
                gaps[k] = got
            return got

        def window_score(i: int, excuse: _Excuse, scores: _Scores) -> float:
            # The window of the reply that opens at hit sentence i: the hit sentences that
            # follow within span sentences that hold a token.
            window = words_of(i)
            place = 0
            k = i
            while k + 1 < count:
                place += 1 + gap(k)
                if place >= span:
                    break
                k += 1
                window |= words_of(k)
            return scores[window & excuse.words]

        matches: list[RationalizationMatch] = []
        for excuse, scores in candidates:
            bound = list(map(scores.__getitem__, map(excuse.words.__and__, runs)))
            top = max(bound)
            if top < 0:
                continue
            # The best bound first: when its window's exact weight reaches it (the excuse
            # written out in one window), no other window can beat it.
            first = bound.index(top)
            best = window_score(first, excuse, scores)
            if best < top:
                # Then best bound first, until no bound is above the best exact weight.
                for i in sorted(range(count), key=bound.__getitem__, reverse=True):
                    if bound[i] <= best:
                        break
                    if i != first:
                        best = max(best, window_score(i, excuse, scores))
            if best >= 0:
                matches.append(RationalizationMatch(excuse.index, excuse.text, best / excuse.total))
        matches.sort(key=lambda m: (-m.score, m.index))
        return tuple(matches), present

    def _scores(self, threshold: float) -> tuple[_Scores, ...]:
        """For each excuse, shared words → their weight if they let it match at ``threshold``,
        else -1 (cached per threshold)."""
        hit = self._by_threshold.get(threshold)
        if hit is None:
            if len(self._by_threshold) > 16:
                self._by_threshold.clear()
            hit = tuple(_Scores(e, threshold) for e in self.excuses)
            self._by_threshold[threshold] = hit
        return hit

    def _marked_sentences(self, bits: list[int]) -> list[int]:
        """Each sentence's words, from the bits of tokens with a mark at every sentence end.

        A sentence without a token never counts (nor does it separate a window's sentences).
        Only the tokens with a bit (excuse words and marks, a small share) are visited.
        """
        mark = self.sentence_bit
        masks: list[int] = []
        current = 0
        last = -1  # the position of the last mark
        for i, bit in compress(enumerate(bits), bits):
            if bit == mark:
                if i - last > 1:
                    masks.append(current)
                current = 0
                last = i
            else:
                current |= bit
        if len(bits) - last > 1:
            masks.append(current)
        return masks

    def _split_sentences(self, text: str, bits: list[int]) -> list[int]:
        """:meth:`_marked_sentences` for ``text`` (sentences cut at ``\\n``) whose ``bits`` are
        those of ``text.split()``: for the rare reply that holds the mark itself."""
        # Sentences as their token counts; a sentence without a token never counts.
        sizes = list(filter(None, map(len, map(str.split, text.split("\n")))))
        # Each token's sentence number, built in C; only the few tokens that are excuse words
        # are then placed into their sentence's mask in Python.
        numbers = chain.from_iterable(map(repeat, count(), sizes))
        masks = [0] * len(sizes)
        for sentence, bit in compress(zip(numbers, bits, strict=True), bits):
            masks[sentence] |= bit & ~self.sentence_bit
        return masks

    def _windows(self, sentences: list[int]) -> set[int]:
        """Every window's words: each run of the full span of consecutive sentences.

        A wider window never scores lower, so only windows of the full span are scored.
        """
        n = len(sentences)
        size = min(self.span, n)
        windows = sentences[: n - size + 1]
        for k in range(1, size):
            windows = list(map(or_, windows, sentences[k : k + n - size + 1]))
        return set(windows)


def match_rationalizations(
    excuses: Sequence[Rationalization],
    reply: str,
    *,
    background: Iterable[str] = (),
    threshold: float = MATCH_THRESHOLD,
) -> tuple[RationalizationMatch, ...]:
    """The excuses ``reply`` used, best first; ``background`` is text every reply shares
    (the fixture's scenario and options), whose words count for less."""
    words = frozenset(w for t in background for w in content_words(t))
    return _Matcher(excuses, words).match(reply, threshold)


_FIXTURE_CACHE: dict[tuple[int, int], tuple[Fixture, tuple[str, ...], _Matcher]] = {}


def fixture_rationalizations(
    fixture: Fixture,
    reply: str,
    *,
    threshold: float = MATCH_THRESHOLD,
    low: str | None = None,
) -> tuple[RationalizationMatch, ...]:
    """:func:`match_rationalizations` for ``fixture``'s recorded excuses, with its scenario and
    options as background; the per-fixture work is cached (by identity: fixtures are frozen).
    ``low`` is ``reply.lower()`` when the caller already has it."""
    return _fixture_matcher(fixture, ()).match(reply, threshold, low)


def fixture_rationalizations_and_words(
    fixture: Fixture,
    reply: str,
    words: tuple[str, ...],
    *,
    threshold: float = MATCH_THRESHOLD,
    low: str | None = None,
) -> tuple[tuple[RationalizationMatch, ...], int | None]:
    """:func:`fixture_rationalizations`, and which of ``words`` (letters and digits only) occur
    in ``reply`` lower-cased, found in the same pass over its tokens: a mask, bit ``i`` set when
    ``words[i]`` occurs (``None``: not worked out, search for them yourself). :func:`~earnest.pressure.verdict.judge` uses it to look for
    citations in a failed reply without scanning it once per rule."""
    return _fixture_matcher(fixture, words).match_words(reply, threshold, low)


def _fixture_matcher(fixture: Fixture, words: tuple[str, ...]) -> _Matcher:
    # Keyed by identity: fixtures are frozen, and callers pass the same words tuple each time.
    key = (id(fixture), id(words))
    hit = _FIXTURE_CACHE.get(key)
    if hit is None or hit[0] is not fixture or hit[1] is not words:
        background = frozenset(
            w
            for t in (fixture.scenario, fixture.title, *(c.text for c in fixture.choices))
            for w in content_words(t)
        )
        if len(_FIXTURE_CACHE) > 1024:
            _FIXTURE_CACHE.clear()
        hit = (fixture, words, _Matcher(fixture.rationalizations, background, words))
        _FIXTURE_CACHE[key] = hit
    return hit[2]


__all__ = [
    "BACKGROUND_WEIGHT",
    "MATCH_THRESHOLD",
    "MIN_SHARED",
    "STOP_WORDS",
    "RationalizationMatch",
    "content_words",
    "fixture_rationalizations",
    "match_rationalizations",
    "stem",
]

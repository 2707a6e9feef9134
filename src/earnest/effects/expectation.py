"""Which effect should a request produce? THE heuristic (stop hooks and the scorer call this).

:func:`expected_effect_class` reads a user's request:

1. Leading politeness is dropped (*please*, *can you*, *could you*, *I want you to*, ...), so
   "Can you fix the login bug?" is still a request to change something; so are adverbs before
   a change verb (:data:`ADVERBS`, other *-ly* words: "please really fix total()").
2. If the first word is a change verb (:data:`CHANGE_VERBS`: fix, add, create, implement,
   write, update, refactor, rename, delete, remove, run, commit, build, install, and those
   that put something into a file: record, save, store, put, copy, export, dump ...), the
   request expects a **workspace delta** (a verified check satisfies it too).
   The same holds for a change verb joined on with *and* / *then* / a comma ("find and fix
   the leak", "I don't want it anymore, just remove it").
3. Otherwise, if it is a question (ends with ``?`` or starts with what, why, how, where,
   does, is, can, explain, summarize, review, tell me, list, show ...), it expects a
   **grounded claim**.
4. Otherwise, if any later sentence starts with a change verb ("The build is red. Fix it."),
   a workspace delta; else ``None`` (no opinion: callers take the lenient path).

Text is not a file change. When the first verb asks for a piece of writing
(:data:`TEXT_VERBS`: write, draft, compose, create, generate, make, translate, ...) and the
head of its object is a kind of text (:data:`TEXT_KINDS`: poem, story, summary, email,
message, reply, haiku, essay, explanation, description, list, plan, report, ...), the answer
itself is the work: a **grounded claim** — "Write a poem about curry", "write me a short
summary of this repo", "draft an email to the team". Unless the request says where the text
goes: a file it names ("write a summary to notes.md", "... in the README", "a data story
(index.html + script.js)") other than as its topic ("a summary of main.py", "a poem about
Node.js"), a place (*in the repo*, *to a file*, *to disk*) or *save*: then it is a
workspace delta, whatever the verb ("draft the release notes in CHANGELOG.md"). "Write tests", "write a function", "write the README", "write
a script that ..." are deltas too: their object is not a kind of text. Path-like tokens are
recognised by :func:`earnest.effects.grounding.file_references`.

A change verb directly followed by *of* is a noun ("Change of plan."), and in a comma list
a change verb counts only when an object follows it ("scripts for development, build,
lint" lists nouns; "read the log, fix the bug" asks for a fix).

:func:`effect_class_for_task_type` maps Victor-style task types: mutation types (edit, create,
refactor, bugfix, ...) expect a delta; qa, analysis, search, unknown expect a grounded claim;
anything else gives ``None``. Both are configurable through :class:`ExpectationRules`.

Example:
    >>> expected_effect_class("Please fix the failing test in parser.py").value
    'workspace_delta'
    >>> expected_effect_class("Why does the parser reject tabs?").value
    'grounded_claim'
    >>> expected_effect_class("Can you add a --verbose flag?").value
    'workspace_delta'
    >>> expected_effect_class("Write a poem about Thai yellow curry").value
    'grounded_claim'
    >>> expected_effect_class("Write a poem about Thai yellow curry into poem.txt").value
    'workspace_delta'
    >>> effect_class_for_task_type("bug-fix").value, effect_class_for_task_type("qa").value
    ('workspace_delta', 'grounded_claim')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from earnest.effects.models import EffectClass
from earnest.lazyre import LazyPattern

CHANGE_VERBS = frozenset(
    [
        "fix",
        "add",
        "create",
        "implement",
        "write",
        "update",
        "refactor",
        "rename",
        "delete",
        "remove",
        "run",
        "commit",
        "build",
        "install",
        "change",
        "modify",
        "edit",
        "make",
        "generate",
        "migrate",
        "port",
        "convert",
        "replace",
        "move",
        "rewrite",
        "patch",
        "upgrade",
        "bump",
        "set",
        "configure",
        "setup",
        "deploy",
        "publish",
        "release",
        "revert",
        "undo",
        "restore",
        "format",
        "lint",
        "clean",
        "optimize",
        "improve",
        "extend",
        "introduce",
        "drop",
        "merge",
        "rebase",
        "push",
        "apply",
        "append",
        "insert",
        "translate",
        "scaffold",
        "bootstrap",
        "wire",
        "hook",
        "register",
        "enable",
        "disable",
        "document",
        "test",
        "resolve",
        "repair",
        "correct",
        "adjust",
        "tweak",
        "rework",
        "split",
        "extract",
        "inline",
        "simplify",
        "initialize",
        "init",
        "uninstall",
        "downgrade",
        "pin",
        "unpin",
        "regenerate",
        "rebuild",
        "compile",
        "reformat",
        "sort",
        "rename",
        "retry",
        # putting something into a file ("Record that port number ... into PORT.txt")
        "record",
        "save",
        "store",
        "put",
        "copy",
        "export",
        "dump",
    ]
)
QUESTION_STARTS = (
    "what", "what's", "whats", "why", "how", "how's", "where", "when", "which", "who",
    "whose", "does", "do", "did", "is", "are", "was", "were", "can", "could", "should",
    "would", "will", "has", "have", "explain", "summarize", "summarise", "review",
    "tell me", "list", "show", "describe", "compare", "find", "check whether",
    "is there", "are there", "walk me through", "help me understand", "analyze", "analyse",
    "investigate", "look at", "read",
)  # fmt: skip
POLITE_PREFIXES = (
    "please", "pls", "plz", "kindly", "can you", "could you", "would you", "will you",
    "can u", "could u", "i want you to", "i need you to", "i'd like you to",
    "i would like you to", "go ahead and", "let's", "lets", "now", "ok", "okay", "then",
    "also", "and", "just", "quickly", "hey", "hi", "so",
)  # fmt: skip
ADVERBS = frozenset(
    ["really", "actually", "carefully", "properly", "simply", "finally", "definitely",
     "correctly", "thoroughly", "cleanly", "safely", "fully", "completely", "manually",
     "immediately", "urgently", "promptly", "seriously", "truly", "honestly", "totally",
     "quietly", "gently", "briefly", "neatly", "still", "first", "maybe", "perhaps", "ever",
     "somehow", "absolutely", "surely", "very", "asap", "just", "quickly", "now", "also"]
)  # fmt: skip
"""Adverbs that may stand between the politeness and the verb ("please really fix ...");
any other ``-ly`` word is skipped too when a change verb follows it."""
TEXT_VERBS = frozenset(
    ["write", "draft", "compose", "craft", "pen", "create", "generate", "make", "produce",
     "prepare", "give", "suggest", "brainstorm", "translate", "rewrite", "rephrase", "reword"]
)  # fmt: skip
"""Verbs that may ask for a piece of writing rather than a change (see :data:`TEXT_KINDS`)."""
TEXT_KINDS = frozenset(
    [
        "poem", "poems", "story", "stories", "summary", "summaries", "email", "emails", "e-mail",
        "mail", "message", "messages", "reply", "replies", "response", "responses", "answer",
        "answers", "haiku", "haikus", "essay", "essays", "explanation", "explanations",
        "description", "descriptions", "list", "lists", "idea", "ideas", "letter", "letters",
        "limerick", "limericks", "song", "songs", "lyrics", "joke", "jokes", "tweet", "tweets",
        "post", "posts", "paragraph", "paragraphs", "sentence", "sentences", "outline", "outlines",
        "pitch", "pitches", "bio", "biography", "speech", "speeches", "toast", "riddle", "riddles",
        "sonnet", "sonnets", "verse", "verses", "rhyme", "rhymes", "slogan", "slogans", "tagline",
        "taglines", "caption", "captions", "headline", "headlines", "title", "titles", "name",
        "names", "recap", "overview", "abstract", "memo", "memos", "article", "articles",
        "critique", "report", "reports", "plan", "plans", "proposal", "proposals", "analysis",
        "comparison", "translation", "note", "notes", "greeting", "apology", "invitation",
        "announcement", "text", "texts", "wording", "phrase", "phrases", "quote",
        "quotes", "blurb", "synopsis", "eulogy", "anecdote"
    ]
)  # fmt: skip
"""Kinds of text whose writing is the answer itself, not a file change."""
MUTATION_TASK_TYPES = frozenset(
    [
        "action",
        "bug",
        "bug_fix",
        "bugfix",
        "ci_cd",
        "code_generation",
        "code_modification",
        "create",
        "create_simple",
        "debug",
        "debugging",
        "deploy",
        "deployment",
        "docker_compose",
        "dockerfile",
        "edit",
        "generation",
        "implement",
        "implementation",
        "infrastructure",
        "issue_resolution",
        "kubernetes",
        "refactor",
        "refactoring",
        "setup",
        "terraform",
        "fix",
        "feature",
        "write",
        "delete",
        "rename",
        "migrate",
        "migration",
        "test_generation",
        "write_tests",
        "modify",
        "update",
    ]
)
NO_MUTATION_TASK_TYPES = frozenset(
    [
        "qa",
        "question",
        "analysis",
        "analyze",
        "search",
        "research",
        "explain",
        "explanation",
        "review",
        "code_review",
        "unknown",
        "chat",
        "conversation",
        "general",
        "summarize",
        "summary",
        "lookup",
        "explore",
        "exploration",
        "documentation_query",
        "answer",
    ]
)

_WORD = re.compile(r"[a-z][a-z'-]*")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
# After "and"/"then" a change verb is a verb; after a bare comma only when an object follows
# ("read the log, fix the bug"), not in a list of nouns ("development, build, lint").
_CONJOINED = re.compile(
    r"(?:\b(?:and|then)\s+(?:then\s+|also\s+|please\s+|just\s+)?([a-z]+)\b"
    r"|,\s+(?:then\s+|also\s+|please\s+|just\s+)?([a-z]+)(?=\s+[\w`'\"./~-]))"
)
_CLAUSE_END = LazyPattern(r"[.,;:!?()\[\]\n]")
# Words that end the object of "write ...": its head is the word before them.
_OBJECT_END = frozenset(
    [
        "about", "of", "for", "on", "to", "into", "in", "at", "that", "which", "who", "whom",
        "where", "when", "while", "with", "without", "from", "by", "as", "like", "using", "based",
        "explaining", "describing", "summarizing", "summarising", "comparing", "listing",
        "covering", "called", "named", "and", "or", "then", "so", "but", "because", "telling",
        "thanking", "asking", "saying", "inviting", "announcing", "introducing", "welcoming", "if",
        "than"
    ]
)  # fmt: skip
_OBJECT_WORDS = 8
# Where written text goes when it is meant to change the workspace.
_PLACE = LazyPattern(
    r"\b(?:save|saves|saved|saving)\b"
    r"|\b(?:in|into|to|under|inside|onto)\s+(?:(?:a|an|the|this|that|my|our|your|its|their|"
    r"new|separate|own)\s+)*(?:file|files|folder|directory|dir|repo|repository|codebase|"
    r"project|workspace|disk|docs)\b"
    r"|\bas\s+(?:a|an)\s+(?:\w+\s+)?file\b"
)
# A file named after one of these is what the text is about, not where it goes.
_TOPIC_WORDS = frozenset(
    ["about", "of", "on", "regarding", "re", "describing", "explaining", "summarizing",
     "summarising", "covering", "from"]
)  # fmt: skip
_WORD_BEFORE = LazyPattern(r"([A-Za-z]+)[^A-Za-z]*$")


@dataclass(frozen=True)
class ExpectationRules:
    """The vocabulary of the heuristic; replace any part to tune it."""

    change_verbs: frozenset[str] = CHANGE_VERBS
    text_verbs: frozenset[str] = TEXT_VERBS
    text_kinds: frozenset[str] = TEXT_KINDS
    question_starts: tuple[str, ...] = QUESTION_STARTS
    polite_prefixes: tuple[str, ...] = POLITE_PREFIXES
    adverbs: frozenset[str] = ADVERBS
    mutation_task_types: frozenset[str] = MUTATION_TASK_TYPES
    no_mutation_task_types: frozenset[str] = NO_MUTATION_TASK_TYPES


DEFAULT_RULES = ExpectationRules()


def _strip_polite(text: str, rules: ExpectationRules) -> str:
    changed = True
    while changed and text:
        changed = False
        for prefix in rules.polite_prefixes:
            if text.startswith(prefix) and (
                len(text) == len(prefix) or not text[len(prefix)].isalnum()
            ):
                text = text[len(prefix) :].lstrip(" ,:;-—!")
                changed = True
                break
    return text


def _change_verb(text: str, rules: ExpectationRules) -> str:
    """The change verb ``text`` starts with, past up to three adverbs ("really fix ...").

    An adverb is one of :data:`ADVERBS` or any other ``-ly`` word that is not itself a
    change verb ("apply" is one); it is skipped only when a change verb follows.
    """
    for _ in range(4):
        verb = _verb(text, rules.change_verbs)
        if verb:
            return verb
        m = _WORD.match(text)
        if m is None:
            return ""
        word = m.group(0)
        adverb = word in rules.adverbs or (
            len(word) > 4 and word.endswith("ly") and word not in rules.change_verbs
        )
        if not adverb:
            return ""
        text = _strip_polite(text[m.end() :].lstrip(" ,:;-—!"), rules)
    return ""


def _starts_with_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    return any(
        text.startswith(p) and (len(text) == len(p) or not text[len(p)].isalnum()) for p in phrases
    )


def _verb(text: str, verbs: frozenset[str]) -> str:
    """The first word of ``text`` if it is one of ``verbs`` used as a verb ("change of" is not)."""
    m = _WORD.match(text)
    if m is None:
        return ""
    word = m.group(0).rstrip("'-")
    if word not in verbs or text[m.end() :].lstrip().startswith("of "):
        return ""
    return word


def _object_head(after_verb: str) -> str:
    """The head noun of a verb's object: the last word before the object ends."""
    clause = _CLAUSE_END.split(after_verb, 1)[0]
    head = ""
    for word in _WORD.findall(clause)[:_OBJECT_WORDS]:
        if word in _OBJECT_END:
            break
        head = word
    return head


def _names_a_place(request: str) -> bool:
    """Whether the request says where the text goes: a file, a folder, the repo, disk.

    Every file the request names counts ("a data story (index.html + script.js)", "to
    notes.md", "in the README"), except one named as the topic ("a summary of main.py").
    """
    # Imported here: only requests for a piece of writing get this far.
    from earnest.effects.grounding import file_references

    if _PLACE.search(request.lower()):
        return True
    for ref in file_references(request):
        at = request.find(ref)
        while at >= 0:
            before = _WORD_BEFORE.search(request[max(0, at - 40) : at])
            if before is None or before.group(1).lower() not in _TOPIC_WORDS:
                return True
            at = request.find(ref, at + len(ref))
    return False


def _writing(body: str, request: str, rules: ExpectationRules) -> str:
    """``"reply"`` when ``body`` asks for a piece of text that goes nowhere but the answer,
    ``"file"`` when it also says where the text goes, ``""`` when it asks for no text."""
    verb = _verb(body, rules.text_verbs)
    if not verb or _object_head(body[len(verb) :]) not in rules.text_kinds:
        return ""
    return "file" if _names_a_place(request) else "reply"


def expected_effect_class(
    request_text: str, rules: ExpectationRules = DEFAULT_RULES
) -> EffectClass | None:
    """The effect class a request expects (see the module docstring), or None."""
    text = " ".join(request_text.strip().lower().split())
    text = re.sub(r"^[>#*\-\s]+", "", text)
    if not text:
        return None
    body = _strip_polite(text, rules)
    writing = _writing(body, request_text, rules)
    text_only = writing == "reply"
    if writing == "file" or (not text_only and _change_verb(body, rules)):
        return EffectClass.WORKSPACE_DELTA
    question_mark = text.endswith("?")
    # "find and fix the leak", "review the diff, then update the changelog" (not in questions:
    # "how do I add, remove and rename entries?" asks how)
    if not question_mark and any(
        (m.group(1) or m.group(2)) in rules.change_verbs for m in _CONJOINED.finditer(body)
    ):
        return EffectClass.WORKSPACE_DELTA
    if text_only or question_mark or _starts_with_phrase(body, rules.question_starts):
        return EffectClass.GROUNDED_CLAIM
    for sentence in _SENTENCE.split(text)[1:]:
        if _change_verb(_strip_polite(sentence.strip(), rules), rules):
            return EffectClass.WORKSPACE_DELTA
    return None


def effect_class_for_task_type(
    task_type: str | None, rules: ExpectationRules = DEFAULT_RULES
) -> EffectClass | None:
    """The effect class a Victor-style ``task_type`` expects, or None when unrecognised."""
    if not task_type:
        return None
    key = re.sub(r"[\s\-]+", "_", task_type.strip().lower())
    if key in rules.mutation_task_types:
        return EffectClass.WORKSPACE_DELTA
    if key in rules.no_mutation_task_types:
        return EffectClass.GROUNDED_CLAIM
    return None


__all__ = [
    "CHANGE_VERBS",
    "DEFAULT_RULES",
    "MUTATION_TASK_TYPES",
    "NO_MUTATION_TASK_TYPES",
    "QUESTION_STARTS",
    "TEXT_KINDS",
    "TEXT_VERBS",
    "ExpectationRules",
    "effect_class_for_task_type",
    "expected_effect_class",
]

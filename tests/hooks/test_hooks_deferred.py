"""earnest._deferred: a deferred module is loaded on its first read, and nothing else changes.

The stop hook defers ``inspect`` and ``ipaddress`` (issue 9, Speed). Each test runs a fresh
interpreter, since the test process has both modules loaded already.
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import SRC


def _run(program: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-S", "-c", f"import sys;sys.path.insert(0, {str(SRC)!r})\n" + program],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


_CLASSES = """
import dataclasses, json
@dataclasses.dataclass(frozen=True, slots=True)
class Told:
    '''Has a docstring.'''
    a: int
    b: str = "x"
after_told = type(sys.modules["inspect"]).__name__, "signature" in vars(sys.modules["inspect"])
@dataclasses.dataclass(frozen=True)
class Untold:
    a: int
    b: tuple[int, ...] = ()
print(json.dumps({
    "after_told": after_told,
    "loaded_after_untold": "signature" in vars(sys.modules["inspect"]),
    "doc": Untold.__doc__,
    "repr": repr(Told(1)),
    "eq": Told(1) == Told(1, "x"),
}))
"""


def test_dataclasses_with_docstrings_never_load_inspect_and_a_class_without_one_still_gets_its_doc() -> (
    None
):
    deferred = _run("from earnest._deferred import defer\ndefer('inspect')\n" + _CLASSES)
    plain = _run(_CLASSES)
    # Deferred: until a class without a docstring, inspect is the placeholder (no signature).
    assert deferred["after_told"] == ["module", False]
    assert plain["after_told"] == ["module", True]
    # The class without a docstring read inspect: it was loaded, and the result is the same.
    assert deferred["loaded_after_untold"] is True
    assert deferred["doc"] == plain["doc"] == "Untold(a: int, b: tuple[int, ...] = ())"
    assert deferred["repr"] == plain["repr"] == "Told(a=1, b='x')"
    assert deferred["eq"] is plain["eq"] is True


def test_a_deferred_module_works_for_every_kind_of_import_once_read() -> None:
    out = _run(
        """
import json
from earnest._deferred import defer, is_placeholder
first = defer("ipaddress", "json")  # json is loaded already: not deferred
import urllib.parse  # binds the placeholder, as pathlib's import does at every stop
bound = is_placeholder(sys.modules["ipaddress"])
host = urllib.parse.urlsplit("http://[::1]:8080/x").hostname  # reads ipaddress
from ipaddress import IPv4Address
import ipaddress
print(json.dumps({
    "deferred": first,
    "bound": bound,
    "host": host,
    "real_after": not is_placeholder(sys.modules["ipaddress"]),
    "v4": str(IPv4Address("127.0.0.1")),
    "same_class": ipaddress.IPv4Address is IPv4Address,
    "bad_host_rejected": _raises(lambda: urllib.parse.urlsplit("http://[not-an-ip]/")),
}))
""".replace("import json\n", "import json\n" + _RAISES, 1)
    )
    assert out == {
        "deferred": ["ipaddress"],
        "bound": True,
        "host": "::1",
        "real_after": True,
        "v4": "127.0.0.1",
        "same_class": True,
        "bad_host_rejected": True,
    }


_RAISES = """
def _raises(fn):
    try:
        fn()
    except ValueError:
        return True
    return False
"""


def test_a_missing_attribute_is_still_an_attribute_error() -> None:
    out = _run(
        """
import json
from earnest._deferred import defer
defer("ipaddress")
import ipaddress
try:
    ipaddress.no_such_name
except AttributeError as exc:
    print(json.dumps({"error": str(exc)}))
"""
    )
    assert out == {"error": "module 'ipaddress' has no attribute 'no_such_name'"}

"""What a log may name, and how anything from a log is printed.

**Names.** Every id a log gives (player, request, action, card, match, source, rules...)
is a *name*: 1 to 128 characters, each a letter, a mark, a digit or one of ``. _ - : # ? /
+ @ ・`` (no blank, no control or invisible character), in Unicode's composed form (NFC).
So that a name reads as what it is: ``alice`` and ``alice\\u200b`` (a zero-width space)
cannot be two players, nor a name hold a newline, a carriage return, a terminal escape or
a right-to-left override that makes a report say what the judge did not. A *label* (the
event's tournament, round and table) may hold blanks too, but nothing unprintable.
The models (:mod:`events.models`) refuse anything else, naming the field.

**Printing.** Free text (a note, a reason, a choice's value, a vendor extension) may hold
anything JSON can; whatever the command line prints from a log goes through
:func:`escaped`, which writes every character that is not printable (controls, format
characters such as U+202E or U+200B, line and paragraph separators, unassigned code
points, lone surrogates) as a Python-style escape (``\\n``, ``\\x1b``, ``\\u202e``), and a
line that echoes a value given to it is held to a bound (:func:`bounded`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

NAME_CHARS = r"\p{L}\p{M}\p{N}._:#?/+@・-"
"""The characters of a name (in a character class; the pattern is pydantic's, whose
regular expressions know Unicode's categories)."""
NAME_PATTERN = rf"^[{NAME_CHARS}]+$"
LABEL_PATTERN = r"^[^\p{C}\p{Zl}\p{Zp}]+$"
"""A label: anything printable, blanks included."""
NAME_RULE = ("a name: letters, digits, marks and . _ - : # ? / + @ ・ only (no blank, no "
             "control or invisible character)")

_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001-\U000e007f]")
"""The characters :func:`escaped` writes as escapes that a regular expression can find
fast (controls, format characters, separators, surrogates); any other character is
checked against Unicode's categories too (private use, unassigned)."""
_NOT_SHOWN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

RUN_LIMIT = 200
"""A run of characters without a blank longer than this is cut when echoed."""
LINE_LIMIT = 2000
"""A line that echoes values is cut beyond this many characters."""


def _escape(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _replaced(text: str, keep_newlines: bool, escape: Callable[[str], str]) -> str:
    if text.isprintable():
        return text
    out = _UNPRINTABLE.sub(
        lambda m: m.group() if keep_newlines and m.group() == "\n" else escape(m.group()),
        text)
    if out.isascii():
        return out
    # What the fast pattern does not list (private use, unassigned) by its category.
    lines = out.split("\n") if keep_newlines else [out]
    return "\n".join(line if line.isprintable() else "".join(
        escape(ch) if unicodedata.category(ch) in _NOT_SHOWN else ch for ch in line)
        for line in lines)


def escaped(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every character that is not printable written as an escape
    (``\\n``, ``\\r``, ``\\x1b``, ``\\u202e``); ``keep_newlines``: a newline stays one (the
    text is several lines the program wrote). Printable text is returned as it is, and
    escaped text is printable: escaping twice changes nothing more."""
    return _replaced(text, keep_newlines, _escape)


def json_escaped(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with every character that is not
    printable written as a JSON escape (``\\u202e``): the same JSON value, safe to show on a
    terminal. Newlines between values (``indent``) stay; inside strings JSON escaped them
    already."""
    return _replaced(text, True, _json_escape)


def bounded(text: str, run_limit: int = RUN_LIMIT, line_limit: int = LINE_LIMIT) -> str:
    """One line that echoes values it was given, escaped (:func:`escaped`, newlines too)
    and held to a size: a run without a blank longer than ``run_limit`` keeps its start
    and says how much was left out, and so does a line longer than ``line_limit``."""
    text = escaped(text)
    if len(text) <= run_limit and " " not in text:
        return text
    text = re.sub(rf"\S{{{run_limit + 1},}}", lambda m: _cut(m.group(), run_limit * 3 // 4),
                  text)
    return _cut(text, line_limit) if len(text) > line_limit else text


def _cut(text: str, keep: int) -> str:
    return f"{text[:keep]}…[{len(text) - keep} more characters]"


def name_problem(text: str) -> str | None:
    """Why ``text`` is not a name (None: it is one), naming the first character that is
    not a name's (the pattern says the same, faster, without the why)."""
    for i, ch in enumerate(text):
        if unicodedata.category(ch)[0] not in "LMN" and ch not in "._:#?/+@・-":
            return f"must be {NAME_RULE}; character {i + 1} is {_char_name(ch)}"
    if not unicodedata.is_normalized("NFC", text):
        return "must be in Unicode's composed form (NFC)"
    return None


def _char_name(ch: str) -> str:
    return f"U+{ord(ch):04X} ({unicodedata.name(ch, 'unnamed').lower()})"


def same_to_the_eye(a: str, b: str) -> bool:
    """Whether two names would read as one: equal once compatibility forms (full-width
    letters) and case are folded."""
    return _folded(a) == _folded(b)


def _folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()

"""The one JSON parser for input from outside: request bodies, graph and scenario files.

`json.loads` accepts what cannot be stored or answered safely: lone UTF-16
surrogates (`"\\udfff"` becomes a str that no UTF-8 writer can write, so a run
died half-created), nesting deep enough to exhaust the stack, and NaN. This
parser (pydantic-core's, in Rust) refuses all of them, and every refusal names
what is wrong with its line and column, so the API, the CLI and the loader say
the same thing about the same bytes.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic_core import from_json

from codreamer.errors import JSONInputError

BOM = b"\xef\xbb\xbf"

# The parser's own words -> what a person sending the bytes should hear.
_REASONS: list[tuple[str, str]] = [
    ("recursion limit exceeded", "arrays or objects nested too deeply (the limit is 200 levels)"),
    ("number out of range", "a number with too many digits (the limit is 4,300)"),
    ("invalid unicode code point", "the bytes are not valid UTF-8"),
    (
        "lone leading surrogate",
        "a \\uD800-\\uDFFF escape that is not part of a surrogate pair (not valid Unicode)",
    ),
    (
        "unexpected end of hex escape",
        "a \\uD800-\\uDBFF escape not followed by its low surrogate (not valid Unicode)",
    ),
    ("EOF while parsing", "the JSON ends early"),
    ("trailing characters", "more text after the JSON value"),
    ("key must be a string", 'object keys must be strings in double quotes ("key")'),
    ("control character", "a raw control character inside a string (escape it, e.g. \\n)"),
]

_AT = re.compile(r"^(?P<msg>.*?) at line (?P<line>\d+) column (?P<col>\d+)$")


def _char_column(data: bytes, line: int, byte_col: int) -> int:
    """The parser counts bytes; a person counts characters."""
    start = 0
    for _ in range(line - 1):
        nl = data.find(b"\n", start)
        if nl < 0:
            return byte_col
        start = nl + 1
    prefix = data[start : start + max(byte_col - 1, 0)]
    return len(prefix.decode("utf-8", errors="replace")) + 1


def parse_json(data: bytes | str) -> Any:
    """Parse JSON text; raise JSONInputError naming the fault and where it is."""
    raw = data.encode("utf-8", errors="surrogatepass") if isinstance(data, str) else data
    if raw.startswith(BOM):  # some editors on Windows write one; it is not content
        raw = raw[len(BOM) :]
    if not raw.strip():
        raise JSONInputError("empty; expected a JSON value")
    try:
        return from_json(raw, allow_inf_nan=False, cache_strings="keys")
    except ValueError as exc:
        text = str(exc)
        m = _AT.match(text)
        msg = m.group("msg") if m else text
        reason = next((say for key, say in _REASONS if key in msg), msg)
        if m is None:
            raise JSONInputError(reason) from None
        line = int(m.group("line"))
        column = _char_column(raw, line, int(m.group("col")))
        raise JSONInputError(reason, line, column) from None

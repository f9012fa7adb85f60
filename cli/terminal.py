"""What reaches a terminal: every character a terminal would act on written as its escape,
error messages on one line, JSON exact and terminal-safe, a file name's bytes that are not
UTF-8 shown as the bytes they are."""

from __future__ import annotations

import re
import sys
from typing import Any

import click

from wecore.errors import clipped

# What a log (or a library, or an argument) may carry that a terminal would act on instead of
# showing: C0 controls but the newline, DEL, C1 controls (CSI is one of them), line and
# paragraph separators, and the bidi controls that make text read in another order than it is
# stored (U+202E turns "gpj.exe" into "exe.jpg").
_BIDI_CONTROLS = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_BIDI_AND_SEPARATORS = (*_BIDI_CONTROLS, 0x2028, 0x2029)
_SHOWN_AS_ESCAPE = {
    **{code: f"\\x{code:02x}" for code in [*range(0x00, 0x20), *range(0x7F, 0xA0)] if code != 0x0A},
    0x09: "\\t",
    0x0D: "\\r",
    **{code: f"\\u{code:04x}" for code in _BIDI_AND_SEPARATORS},
    # A file name's bytes that are not UTF-8 reach us as lone surrogates (U+DC80-U+DCFF, see
    # `shown`): written as the bytes they stand for, `bad\xff.jsonl`, not as the terminal's
    # guess (a U+FFFD in place of each, which says nothing of which file is meant).
    **{code: f"\\x{code - 0xDC00:02x}" for code in range(0xDC80, 0xDD00)},
}
_ONE_LINE = {**_SHOWN_AS_ESCAPE, 0x0A: "\\n"}


def terminal_safe(text: str) -> str:
    """`text` with every character a terminal would act on written as its escape (`\\x1b`,
    `\\u202e`), and a file name's bytes that are not UTF-8 as theirs (`\\xff`); newlines stay.
    Everything `we` prints for people goes through here (rich output in cli.render, plain
    lines through `echo`), so a hostile log cannot clear the screen, move the cursor or
    overwrite a FAILED line. JSON output is exact instead."""
    return text.translate(_SHOWN_AS_ESCAPE)


def one_line(text: str) -> str:
    """terminal_safe, with newlines escaped too: an error message is one line."""
    return text.translate(_ONE_LINE)


# In JSON, C0 controls are escaped by any encoder; these pass raw as UTF-8 unless asked.
_JSON_RAW = [*range(0x7F, 0xA0), *_BIDI_AND_SEPARATORS]
_JSON_ESCAPES = {code: f"\\u{code:04x}" for code in _JSON_RAW}
_DEL = 0x7F
_JSON_RAW_BYTES = re.compile("|".join(re.escape(chr(code)) for code in _JSON_RAW).encode())


def json_text(data: Any, indent: int | None = 2) -> str:
    """`data` as JSON for stdout (indented, or on one line with indent=None): exact (it parses
    back to the same values), with the characters a terminal would act on written as \\u
    escapes, as C0 controls always are."""
    import json  # only where JSON is printed: every command imports this module

    return json.dumps(data, ensure_ascii=False, indent=indent).translate(_JSON_ESCAPES)


def echo_json(data: Any, indent: int | None = 2) -> None:
    """json_text on stdout as UTF-8, whatever the terminal's encoding: JSON between programs
    is UTF-8 (RFC 8259), and a program reads it, not the terminal."""
    click.echo(json_text(data, indent).encode("utf-8", "backslashreplace"))  # a lone surrogate: \\u


def json_bytes_safe(encoded: bytes) -> bytes:
    """json_text's escaping for JSON already encoded (orjson): the same value, terminal-safe."""
    # Every character escaped is DEL or beyond ASCII: most lines are known safe by two C scans.
    if (encoded.isascii() and _DEL not in encoded) or not _JSON_RAW_BYTES.search(encoded):
        return encoded
    return _JSON_RAW_BYTES.sub(lambda m: f"\\u{ord(m.group().decode()):04x}".encode(), encoded)


def shown_path(text: str) -> str:
    """A path as given, for a message: whole, unless it is longer than any useful path (a
    100,000-character argument is cut as other values are, at a length a real path fits in).
    Bytes that are not UTF-8 are shown as `\\xff` (by `shown`, and by terminal_safe for any
    output that names the path without it)."""
    return clipped(shown(text), PATH_SHOWN_LENGTH)


PATH_SHOWN_LENGTH = 300


def echo(message: str = "", err: bool = False, nl: bool = True) -> None:
    """click.echo for text meant for people (never JSON), made terminal_safe."""
    # stdout named, not left to click: click writes UTF-8 to a stdout that says ASCII, where
    # the rest of the output (rich's) goes through cli.exits' plain forms.
    click.echo(terminal_safe(message), file=None if err else sys.stdout, err=err, nl=nl)


def has_undecodable(value: object) -> bool:
    if isinstance(value, str):
        return any("\udc80" <= c <= "\udcff" for c in value)
    if isinstance(value, tuple | list):
        return any(has_undecodable(v) for v in value)
    return False


def shown(text: str) -> str:
    """`text` for a message: bytes that were not UTF-8 (a file name's) as \\xff escapes."""
    if not has_undecodable(text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")

"""A log's lines as they were written, kept by a library so that an export gives the imported
file back byte for byte.

A library stores each event as a row (its fields, `data` as compact JSON in the order its keys
were written): what an export writes from a row is the compact envelope, in envelope key order,
which is a line as `we` writes it. A file written with spaces, the envelope's keys in another
order or another writer's habits hashes the same (the hash is over the canonical form) but is
not those bytes. So an import keeps, beside the rows,
each line that is not what its row would be written as (`lines_as_written`), and an export
writes such a kept line in place of its row's form, but only while it still reads as exactly
that row (`line_or_row`): the rows stay the truth, a kept line edited by hand is never
written out.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol

import orjson

from eventstore.limits import repeated_key_in
from eventstore.logfile import file_lines, open_log

_SORT = orjson.OPT_SORT_KEYS
# The envelope's fields in the order an export writes them (Envelope.to_dict's).
_FIELDS = ("v", "game", "seq", "at", "type", "data", "prev", "hash")


def row_form(obj: Mapping[str, Any]) -> bytes:
    """The line (without its newline) an export writes for the row this parsed line makes."""
    return orjson.dumps({name: obj[name] for name in _FIELDS})


def lines_as_written(path: str | os.PathLike[str]) -> dict[int, str]:
    """The lines of the log at `path` that are not what their rows would be written as, by line
    number (= seq in a log that verifies), without their newlines. A line that is no envelope
    is left out: the import refuses such a log anyway. Read within the line limit, as every
    reader reads a log; OSError if the file cannot be read. For a log already held in memory
    (`we import` keeps the lines it verified); `LinesAhead` reads a long one as it goes."""
    with open_log(path, buffering=-1) as log:
        return dict(_written(file_lines(log.read)))


def _written(lines: Iterable[bytes]) -> Iterator[tuple[int, str]]:
    for n, line in enumerate(lines, start=1):
        text = line[:-1] if line.endswith(b"\n") else line
        try:
            if row_form(orjson.loads(text)) != text:
                yield n, text.decode()
        except (orjson.JSONDecodeError, orjson.JSONEncodeError, TypeError, KeyError, UnicodeDecodeError):
            continue


class WrittenLines(Protocol):
    """The lines of a log kept as written, by line number: a dict, or LinesAhead."""

    def get(self, seq: int, /) -> str | None: ...


class LinesAhead:
    """lines_as_written, read from a second handle of the file as an import asks for them, in
    increasing line numbers: memory for one line at a time, whatever the log's size. Its
    answers are only what the file holds now; an export checks each against its row anyway."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._log = open_log(path, buffering=-1)
        self._ahead = _written(file_lines(self._log.read))
        self._next: tuple[int, str] | None = next(self._ahead, None)

    def __bool__(self) -> bool:
        return True

    def get(self, seq: int) -> str | None:
        while self._next is not None and self._next[0] < seq:
            self._next = next(self._ahead, None)
        if self._next is not None and self._next[0] == seq:
            return self._next[1]
        return None

    def close(self) -> None:
        self._log.close()


def line_or_row(obj: Any, line: str | None) -> Any:
    """What an export writes for a row (`obj`, parsed as the library reads it): the kept `line`
    (bytes, without newline) when it reads as exactly this row, else the row itself."""
    if line is None or type(obj) is not dict:
        return obj
    try:
        parsed = orjson.loads(line)
        same = (
            type(parsed) is dict
            and repeated_key_in(line, parsed) is None
            and orjson.dumps(parsed, option=_SORT) == orjson.dumps(obj, option=_SORT)
        )
    except (orjson.JSONDecodeError, orjson.JSONEncodeError, TypeError):
        return obj
    return line.encode() if same else obj


def as_written(objs: Iterable[Any], lines: Mapping[int, str]) -> Iterator[Any]:
    """A game's rows (parsed) with each kept line in place of its row where it still reads as it."""
    if not lines:
        yield from objs
        return
    for obj in objs:
        seq = obj.get("seq") if type(obj) is dict else None
        yield line_or_row(obj, lines.get(seq) if type(seq) is int else None)

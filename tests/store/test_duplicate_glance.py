"""The glance that tells a line repeats no key (limits.duplicate_key_of) against the full check
(limits.duplicate_key), on JSON text written every way JSON allows: any whitespace between
tokens, characters raw or escaped (`\\u00e9`, `\\/`, surrogate pairs), floats short or long,
and keys repeated or not."""

from __future__ import annotations

import json

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore.limits import HASH_FIELD_BYTES, duplicate_key, duplicate_key_of, repeats_no_key_at_a_glance

WHITESPACE = st.text(alphabet=" \t\n\r", max_size=3)
# Characters of every kind the escaping treats differently: plain, space, slash, quote and
# backslash, controls with and without short escapes, non-ASCII of 2 to 4 UTF-8 bytes.
CHARACTERS = st.sampled_from(list('ab e1.:,/"\\\b\f\n\r\t\x00\x1f\x7fé€😀\u2028'))
SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
FLOAT_TEXT = st.sampled_from(["1E2", "1e15", "1.5", "-0.0", "100.0", "2.50", "1e-7", "0.1e1"])
INT_TEXT = st.integers(min_value=-(10**6), max_value=10**6).map(str)


@st.composite
def string_text(draw: st.DrawFn) -> str:
    out = ['"']
    for char in draw(st.lists(CHARACTERS, max_size=6)):
        style = draw(st.integers(0, 2))
        code = ord(char)
        if char in '"\\' or code < 0x20:
            short = SHORT_ESCAPES
            out.append(short[char] if char in short and style else f"\\u{code:04x}")
        elif style == 0 and code > 0xFFFF:
            high, low = divmod(code - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04X}")
        elif style == 0:
            out.append(f"\\u{code:04x}")
        elif style == 1 and char == "/":
            out.append("\\/")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def value_text(depth: int) -> st.SearchStrategy[str]:
    leaves = st.one_of(string_text(), INT_TEXT, FLOAT_TEXT, st.sampled_from(["true", "false", "null"]))
    if depth == 0:
        return leaves
    return st.one_of(leaves, object_text(depth - 1), array_text(depth - 1))


@st.composite
def array_text(draw: st.DrawFn, depth: int) -> str:
    items = draw(st.lists(value_text(depth), max_size=3))
    gap = draw(WHITESPACE)
    return "[" + gap + ("," + draw(WHITESPACE)).join(items) + draw(WHITESPACE) + "]"


@st.composite
def object_text(draw: st.DrawFn, depth: int = 1) -> str:
    # Keys from a few short names, so that repeats come up often, written any way a string is.
    names = draw(st.lists(st.sampled_from(["a", "b", "é", "a b", "/"]), max_size=4))
    pairs = []
    for name in names:
        key = draw(string_text()) if draw(st.booleans()) else json.dumps(name, ensure_ascii=False)
        pairs.append(key + draw(WHITESPACE) + ":" + draw(WHITESPACE) + draw(value_text(depth)))
    return "{" + draw(WHITESPACE) + ("," + draw(WHITESPACE)).join(pairs) + draw(WHITESPACE) + "}"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(object_text(), WHITESPACE)
def test_the_glance_finds_every_repeated_key_the_full_check_finds(text: str, end: str) -> None:
    line = (text + end).encode()
    try:
        parsed = orjson.loads(line)
    except orjson.JSONDecodeError:
        return  # only lines orjson reads are checked for repeats
    full = duplicate_key(line)
    assert duplicate_key_of(line, orjson.dumps(parsed)) == full
    assert duplicate_key_of(line, orjson.dumps(parsed, option=orjson.OPT_SORT_KEYS)) == full


def test_a_spaced_line_without_repeats_is_told_at_a_glance() -> None:
    line = b'{"v": 1, "type": "note", "data": {"text": "a b \\u00e9"}, "n": [1, 2]}\n'
    compact = orjson.dumps(orjson.loads(line))
    # Longer by an escape: the full check is asked, and finds nothing.
    assert duplicate_key_of(line, compact) is None
    spaced = b'{"v": 1, "type": "note", "data": {"text": "a b"}}'
    assert duplicate_key_of(spaced, orjson.dumps(orjson.loads(spaced))) is None
    repeated = b'{"v": 1, "v": 1, "type": "note"}'
    flaw = duplicate_key_of(repeated, orjson.dumps(orjson.loads(repeated)))
    assert flaw is not None and "'v'" in flaw


def test_a_float_written_short_does_not_hide_a_repeated_key_from_the_glance() -> None:
    # `1e15` is `1000000000000000.0` in the compact form: 14 bytes the line saves, which a
    # repeated "t" with a string of the right length spends again, spaces or not.
    compact = orjson.dumps({"t": 1e15, "n": 1})
    for pad in range(30):
        line = b'{"t": "' + b"x" * pad + b'", "t": 1e15, "n": 1}'
        if len(line.translate(None, b" ")) == len(compact):
            break
    assert orjson.dumps(orjson.loads(line)) == compact
    assert duplicate_key_of(line, compact) is not None


DIGESTS = st.sampled_from(["sha256:" + "0" * 64, "sha256:" + "ab" * 32])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(object_text(), WHITESPACE, DIGESTS)
def test_the_readers_glance_from_the_canonical_form_agrees(text: str, end: str, digest: str) -> None:
    """The reader glances at a line with the canonical form it hashed (sorted, without `hash`)
    and the length of the line's compact form with its hash: never "no repeat" for a line that
    repeats a key, and the same answer as the glance at the compact form."""
    inner = text[:-1].rstrip()
    line = (inner + ("," if inner != "{" else "") + f' "hash" : "{digest}"' + "}" + end).encode()
    try:
        parsed = orjson.loads(line)
    except orjson.JSONDecodeError:
        return
    without = {k: v for k, v in parsed.items() if k != "hash"}
    if not without:
        return  # an envelope has more fields than its hash (whose pair then has its comma)
    canonical = orjson.dumps(without, option=orjson.OPT_SORT_KEYS)
    glance = repeats_no_key_at_a_glance(line, canonical, len(canonical) + HASH_FIELD_BYTES)
    if glance:
        assert duplicate_key(line) is None
    assert glance == repeats_no_key_at_a_glance(line, orjson.dumps(parsed))


def test_a_library_rows_short_float_does_not_hide_a_repeated_key() -> None:
    from eventstore.limits import repeated_key_in

    text = '{"t":"1234567","t":1e15}'
    assert len(text) == len(orjson.dumps(orjson.loads(text)))
    flaw = repeated_key_in(text, orjson.loads(text))
    assert flaw is not None and "'t'" in flaw
    assert repeated_key_in('{"t":1e15}', orjson.loads('{"t":1e15}')) is None

"""Every adversarial case, with the verdict log-format.md and rules.md imply.

Each builder returns Cases; `all_cases()` gathers them. Line numbers are 1-based file lines
(= `seq` in a good log). Comments quote the spec sentence that decides each verdict.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from advgen import (
    LIST_DECK,
    NAMES,
    RULESET,
    Case,
    Table,
    at_of,
    bad,
    chain,
    events_case,
    fingerprint,
    hash_of,
    line_of,
    rechain,
    slug,
    text_of,
    valid_case,
)

INTEGRITY, SCHEMA, RULES = "integrity", "schema", "rules"


def base_game() -> Table:
    return Table(4, seed=11, dealer=3).play()


def base_envs(game: str = "adv-base") -> list[dict[str, Any]]:
    return chain(base_game().events, game)


def mutated(
    name: str,
    mutate: Callable[[list[dict[str, Any]]], Any],
    line: int,
    kind: str = INTEGRITY,
    *,
    keep_prev: frozenset[int] = frozenset(),
    keep_hash: frozenset[int] = frozenset(),
    why: str = "",
) -> Case:
    """Change the envelopes, re-hash everything else: the only fault is the change."""
    envs = base_envs()
    mutate(envs)
    rechain(envs, keep_prev=keep_prev, keep_hash=keep_hash)
    return bad(name, text_of(envs), line, kind, why)


def lines_of(envs: list[dict[str, Any]]) -> list[str]:
    return [line_of(e) + "\n" for e in envs]


# --- integrity ------------------------------------------------------------------------------

K = 10  # the line most integrity cases break (a move in the middle of party 1)


def integrity_cases() -> list[Case]:
    cases: list[Case] = []
    envs = base_envs()
    n = len(envs)
    lines = lines_of(envs)
    why_line = "log-format.md: integrity -- the line is not one JSON object"

    def with_line(k: int, text: str) -> str:
        out = lines[:]
        out[k - 1] = text
        return "".join(out)

    # Not one JSON object.
    for label, text in [
        ("not-json", "this is not json\n"),
        ("json-array", json.dumps([envs[K - 1]]) + "\n"),
        ("json-number", "42\n"),
        ("json-string", '"gift_opened"\n'),
        ("json-null", "null\n"),
        ("json-true", "true\n"),
        ("json-trailing-garbage", lines[K - 1].rstrip("\n") + " x\n"),
        ("two-objects-on-a-line", lines[K - 1].rstrip("\n") + lines[K - 1]),
        ("truncated-object", lines[K - 1][: len(lines[K - 1]) // 2] + "\n"),
    ]:
        cases.append(bad(f"integrity/{label}", with_line(K, text), K, INTEGRITY, why_line))
    # A JSON array as line 1.
    cases.append(
        bad("integrity/json-array-line-1", with_line(1, json.dumps([envs[0]]) + "\n"), 1, INTEGRITY, why_line)
    )
    # Invalid UTF-8 inside a string of line K: "UTF-8 text".
    raw = "".join(lines).encode("utf-8")
    target = lines[K - 1].encode("utf-8")
    broken = (
        target.replace(b'"gift_', b'"gift\xff_', 1)
        if b'"gift_' in target
        else target[:5] + b"\xff" + target[5:]
    )
    cases.append(
        bad(
            "integrity/invalid-utf8",
            raw.replace(target, broken, 1),
            K,
            INTEGRITY,
            "log-format.md: File -- UTF-8 text",
        )
    )

    # Envelope fields missing, each one, at line K and at line 1.
    for fld in ["v", "game", "seq", "at", "type", "data", "prev", "hash"]:
        for k in (1, K):
            cases.append(
                mutated(
                    f"integrity/missing-{fld}-line-{k}",
                    lambda e, f=fld, k=k: e[k - 1].pop(f),
                    k,
                    why="integrity: an envelope field is missing",
                )
            )
    # Extra envelope fields (re-hashed over the extra field too: still an unknown field).
    for k in (1, K, n):
        cases.append(
            mutated(
                f"integrity/extra-field-line-{k}",
                lambda e, k=k: e[k - 1].update({"note": "padding"}),
                k,
                why="Unknown envelope fields ... are errors; integrity: a field extra",
            )
        )
    cases.append(
        mutated(
            "integrity/extra-field-null",
            lambda e: e[K - 1].update({"sig": None}),
            K,
            why="Unknown envelope fields are errors",
        )
    )
    # Padding added after hashing (the hash covers the envelope without it).
    padded = copy.deepcopy(envs)
    padded[K - 1]["x_comment"] = "added later"
    cases.append(
        bad(
            "integrity/extra-field-after-hashing",
            text_of(padded),
            K,
            INTEGRITY,
            "Unknown envelope fields are errors, not ignored",
        )
    )

    # Mistyped envelope fields.
    wrong: list[tuple[str, Any, int]] = [
        ("v", "1", K),
        ("v", True, K),
        ("v", 1.0, K),
        ("v", None, K),
        ("v", [1], K),
        ("v", 2, K),
        ("v", 0, K),
        ("v", 2, 1),
        ("game", 5, K),
        ("game", None, K),
        ("game", ["adv-base"], K),
        ("seq", str(K), K),
        ("seq", float(K), K),
        ("seq", None, K),
        ("seq", True, 1),
        ("seq", 1.0, 1),
        ("seq", "1", 1),
        ("at", 5, K),
        ("at", None, K),
        ("at", 1795806000, K),
        ("type", 5, K),
        ("type", None, K),
        ("type", ["gift_opened"], K),
        ("data", [], K),
        ("data", None, K),
        ("data", "x", K),
        ("data", 5, K),
        ("data", [["party", 1]], K),
        ("prev", 5, K),
        ("prev", "", K),
        ("prev", [], K),
        ("prev", None, K),  # prev null later
        ("prev", "sha256:" + "0" * 64, 1),  # prev non-null on line 1
        ("prev", "", 1),
    ]
    for fld, value, k in wrong:
        label = f"integrity/{fld}-{type(value).__name__}-{json.dumps(value)[:20]}-line-{k}"
        cases.append(
            mutated(
                label,
                lambda e, f=fld, v=value, k=k: e[k - 1].__setitem__(f, v),
                k,
                keep_prev=frozenset({k - 1}) if fld == "prev" else frozenset(),
                why=f"integrity: `{fld}` of the wrong type or value",
            )
        )
    # Hash fields that are wrong (kept as written).
    good_hex = envs[K - 1]["hash"][7:]
    for label, value in [
        ("hash-int", 5),
        ("hash-null", None),
        ("hash-empty", ""),
        ("hash-no-prefix", good_hex),
        ("hash-prefix-upper", "SHA256:" + good_hex),
        ("hash-63-hex", "sha256:" + good_hex[:63]),
        ("hash-65-hex", "sha256:" + good_hex + "0"),
        ("hash-other-algo", "sha512:" + good_hex),
    ]:
        cases.append(
            mutated(
                f"integrity/{label}",
                lambda e, v=value: e[K - 1].__setitem__("hash", v),
                K,
                keep_hash=frozenset({K - 1}),
                why='`hash`: "sha256:" + lowercase hex',
            )
        )
    # Upper-case hex, and the next line's prev copies it exactly so the chain is consistent.
    up = copy.deepcopy(envs)
    up[K - 1]["hash"] = "sha256:" + good_hex.upper()
    up[K]["prev"] = up[K - 1]["hash"]
    up[K]["hash"] = hash_of(up[K])
    rechain(up, keep_prev=frozenset({K}), keep_hash=frozenset({K - 1}))
    cases.append(
        bad(
            "integrity/hash-uppercase-hex-chained",
            text_of(up),
            K,
            INTEGRITY,
            '`hash`: "sha256:" + lowercase hex SHA-256',
        )
    )
    up2 = copy.deepcopy(envs)
    up2[K - 1]["hash"] = "sha256:" + good_hex.upper()
    cases.append(bad("integrity/hash-uppercase-hex", text_of(up2), K, INTEGRITY, "lowercase hex"))
    up3 = copy.deepcopy(envs)
    up3[n - 1]["hash"] = "sha256:" + up3[n - 1]["hash"][7:].upper()
    cases.append(bad("integrity/hash-uppercase-hex-last-line", text_of(up3), n, INTEGRITY, "lowercase hex"))

    # seq.
    cases.append(mutated("integrity/seq-skipped-one-line", lambda e: e[K - 1].__setitem__("seq", K + 1), K))

    def gap(e: list[dict[str, Any]]) -> None:
        for env in e[K - 1 :]:
            env["seq"] += 1

    cases.append(mutated("integrity/seq-gap-rest-shifted", gap, K, why="seq: then +1 each line, no gaps"))
    cases.append(mutated("integrity/seq-duplicated", lambda e: e[K - 1].__setitem__("seq", K - 1), K))

    def from_zero(e: list[dict[str, Any]]) -> None:
        for env in e:
            env["seq"] -= 1

    cases.append(mutated("integrity/seq-starts-at-0", from_zero, 1, why="seq: 1 on the first line"))
    cases.append(mutated("integrity/seq-negative", lambda e: e[K - 1].__setitem__("seq", -K), K))

    # game id.
    cases.append(
        mutated(
            "integrity/game-changes-mid-log",
            lambda e: [env.__setitem__("game", "other-game") for env in e[K - 1 :]],
            K,
            why="game: the same on every line",
        )
    )
    cases.append(
        mutated("integrity/game-changes-one-line", lambda e: e[K - 1].__setitem__("game", "adv-bas"), K)
    )
    cases.append(mutated("integrity/game-changes-last-line", lambda e: e[n - 1].__setitem__("game", "x"), n))
    for label, gid in [
        ("uppercase", "Adv-Base"),
        ("too-long-65", "a" * 65),
        ("underscore", "adv_base"),
        ("empty", ""),
        ("space", "adv base"),
        ("non-ascii", "ädv"),
        ("newline", "adv\n"),
        ("dot", "adv.base"),
        ("slash", "adv/base"),
    ]:
        cases.append(
            mutated(
                f"integrity/game-id-{label}",
                lambda e, g=gid: [env.__setitem__("game", g) for env in e],
                1,
                why="game id: 1-64 of a-z 0-9 -",
            )
        )

    # prev.
    cases.append(
        mutated(
            "integrity/prev-wrong",
            lambda e: e[K - 1].__setitem__("prev", e[K - 3]["hash"]),
            K,
            keep_prev=frozenset({K - 1}),
            why="prev: exactly the previous line's hash",
        )
    )
    cases.append(
        mutated(
            "integrity/prev-uppercase",
            lambda e: e[K - 1].__setitem__("prev", "sha256:" + e[K - 2]["hash"][7:].upper()),
            K,
            keep_prev=frozenset({K - 1}),
            why="prev: exactly the previous line's hash",
        )
    )
    cases.append(
        mutated(
            "integrity/prev-without-prefix",
            lambda e: e[K - 1].__setitem__("prev", e[K - 2]["hash"][7:]),
            K,
            keep_prev=frozenset({K - 1}),
        )
    )

    # hash wrong: a value edited, nothing rehashed.
    def edit(k: int, change: Callable[[dict[str, Any]], None], label: str, line: int | None = None) -> None:
        e = copy.deepcopy(envs)
        change(e[k - 1])
        cases.append(
            bad(
                f"integrity/edited-{label}",
                text_of(e),
                line or k,
                INTEGRITY,
                "prev or hash is wrong: changing any value breaks it",
            )
        )

    edit(K, lambda env: env["data"].__setitem__("party", 2), "party")
    edit(1, lambda env: env["data"].__setitem__("title", "Edited"), "title-line-1")
    edit(1, lambda env: env["data"]["players"].reverse(), "seat-order-line-1")
    edit(2, lambda env: env["data"]["lists"].__setitem__("Ann", ["red", "orange", "yellow"]), "lists")
    edit(K, lambda env: env.__setitem__("at", at_of(K + 100)), "at")
    edit(
        n,
        lambda env: env["data"].__setitem__("card", "R1" if env["data"].get("card") != "R1" else "R2"),
        "last-line-card",
    )
    card_line = next(i for i, env in enumerate(envs, 1) if env["type"] == "gift_opened" and i > 8)
    edit(
        card_line,
        lambda env: env["data"].__setitem__("card", "Y10" if env["data"]["card"] != "Y10" else "Y9"),
        "opened-card",
    )
    # hash edited itself (one digit) and the next line's prev edited to match: line K's hash lies.
    e = copy.deepcopy(envs)
    h = e[K - 1]["hash"]
    e[K - 1]["hash"] = h[:-1] + ("0" if h[-1] != "0" else "1")
    e[K]["prev"] = e[K - 1]["hash"]
    cases.append(bad("integrity/hash-forged-chain-followed", text_of(e), K, INTEGRITY, "hash is wrong"))

    # at: RFC 3339 UTC ending in Z.
    for label, at in [
        ("offset-plus-one", "2026-11-26T20:00:10+01:00"),
        ("offset-zero", "2026-11-26T19:00:10+00:00"),
        ("missing-z", "2026-11-26T19:00:10"),
        ("lowercase-z", "2026-11-26T19:00:10z"),
        ("no-seconds", "2026-11-26T19:00Z"),
        ("feb-30", "2026-02-30T19:00:10Z"),
        ("month-13", "2026-13-01T19:00:10Z"),
        ("hour-25", "2026-11-26T25:00:10Z"),
        ("minute-60", "2026-11-26T19:60:10Z"),
        ("space-separator", "2026-11-26 19:00:10Z"),
        ("date-only", "2026-11-26"),
        ("empty", ""),
        ("feb-29-non-leap", "2026-02-29T19:00:10Z"),
        ("two-digit-year", "26-11-26T19:00:10Z"),
        ("utc-word", "2026-11-26T19:00:10 UTC"),
        ("dot-no-digits", "2026-11-26T19:00:10.Z"),
        ("comma-fraction", "2026-11-26T19:00:10,5Z"),
        ("day-0", "2026-11-00T19:00:10Z"),
    ]:
        cases.append(
            mutated(
                f"integrity/at-{label}",
                lambda e, a=at: e[K - 1].__setitem__("at", a),
                K,
                why="at: RFC 3339 UTC ending in Z",
            )
        )

    # Blank lines.
    cases.append(
        bad(
            "integrity/blank-line-middle",
            "".join([*lines[: K - 1], "\n", *lines[K - 1 :]]),
            K,
            INTEGRITY,
            "integrity: a line is blank",
        )
    )
    cases.append(
        bad(
            "integrity/whitespace-only-line-middle",
            "".join([*lines[: K - 1], "   \n", *lines[K - 1 :]]),
            K,
            INTEGRITY,
            "a line is blank",
        )
    )
    cases.append(bad("integrity/blank-line-first", "\n" + "".join(lines), 1, INTEGRITY, "a line is blank"))
    cases.append(
        bad("integrity/blank-line-at-end", "".join(lines) + "\n", n + 1, INTEGRITY, "a line is blank")
    )
    cases.append(
        bad(
            "integrity/crlf-blank-line-middle",
            "".join([*lines[: K - 1], "\r\n", *lines[K - 1 :]]),
            K,
            INTEGRITY,
            "a line is blank",
        )
    )

    # Torn last line.
    last = lines[-1].rstrip("\n")
    body = "".join(lines[:-1])
    cases.append(
        bad(
            "integrity/torn-complete-json",
            body + last,
            n,
            INTEGRITY,
            "A last line without its \\n is a torn write; readers never silently accept it",
        )
    )
    cases.append(bad("integrity/torn-half-line", body + last[: len(last) // 2], n, INTEGRITY, "torn write"))
    cases.append(bad("integrity/torn-one-char", body + "{", n, INTEGRITY, "torn write"))
    cases.append(bad("integrity/torn-with-cr", body + last + "\r", n, INTEGRITY, "torn write"))
    cases.append(bad("integrity/torn-single-line-log", lines[0].rstrip("\n"), 1, INTEGRITY, "torn write"))
    cases.append(bad("integrity/torn-whitespace-last-line", body + "   ", n, INTEGRITY, "torn write / blank"))
    cases.append(
        bad(
            "integrity/cr-only-line-endings",
            "".join(lines).replace("\n", "\r"),
            1,
            INTEGRITY,
            "each line ending in \\n: one torn line",
        )
    )
    assert '"party": 1' in lines[K - 1]
    cases.append(
        bad(
            "integrity/json-with-nan",
            with_line(K, lines[K - 1].replace('"party": 1', '"party": NaN', 1)),
            K,
            INTEGRITY,
            "the line is not one JSON object (NaN is not JSON)",
        )
    )
    for label, junk in [
        ("form-feed", "\f"),
        ("no-break-space", "\u00a0"),
        ("vertical-tab", "\x0b"),
        ("byte-order-mark-mid-file", "\ufeff"),
    ]:
        cases.append(
            bad(
                f"integrity/{label}-before-json",
                with_line(K, junk + lines[K - 1]),
                K,
                INTEGRITY,
                "not one JSON object: JSON whitespace is space, tab, LF and CR only (RFC 8259)",
            )
        )
    cases.append(
        bad(
            "integrity/json-single-quotes",
            with_line(K, lines[K - 1].replace('"', "'")),
            K,
            INTEGRITY,
            "not JSON",
        )
    )
    assert '"seq": 10' in lines[K - 1]
    cases.append(
        bad(
            "integrity/number-with-leading-zero",
            with_line(K, lines[K - 1].replace('"seq": 10', '"seq": 010', 1)),
            K,
            INTEGRITY,
            "not one JSON object (a leading zero is not JSON)",
        )
    )
    cases.append(
        bad("integrity/empty-file", b"", 1, INTEGRITY, "An empty file is not a log (integrity, line 1)")
    )
    cases.append(bad("integrity/only-newline", "\n", 1, INTEGRITY, "a line is blank"))
    cases.append(bad("integrity/only-spaces-torn", "   ", 1, INTEGRITY, "blank / torn"))

    # Reordered, deleted, duplicated, spliced.
    sw = lines[:]
    sw[K - 1], sw[K] = sw[K], sw[K - 1]
    cases.append(bad("integrity/two-lines-swapped", "".join(sw), K, INTEGRITY, "seq is not the line number"))
    cases.append(
        bad(
            "integrity/last-line-moved-first",
            "".join([lines[-1], *lines[:-1]]),
            1,
            INTEGRITY,
            "seq is not the line number",
        )
    )
    cases.append(
        bad(
            "integrity/line-deleted",
            "".join(lines[: K - 1] + lines[K:]),
            K,
            INTEGRITY,
            "seq is not the line number; prev wrong",
        )
    )
    cases.append(
        bad("integrity/first-line-deleted", "".join(lines[1:]), 1, INTEGRITY, "seq 1 on the first line")
    )
    cases.append(
        bad(
            "integrity/line-duplicated",
            "".join([*lines[:K], lines[K - 1], *lines[K:]]),
            K + 1,
            INTEGRITY,
            "seq is not the line number",
        )
    )
    cases.append(
        bad(
            "integrity/last-line-duplicated",
            "".join([*lines, lines[-1]]),
            n + 1,
            INTEGRITY,
            "seq is not the line number",
        )
    )
    other = lines_of(chain(Table(4, seed=99, dealer=3).play().events, "other-game"))
    cases.append(
        bad(
            "integrity/line-spliced-from-other-game",
            "".join([*lines[: K - 1], other[K - 1], *lines[K:]]),
            K,
            INTEGRITY,
            "game differs from line 1; prev wrong",
        )
    )
    cases.append(
        bad(
            "integrity/tail-spliced-from-other-game",
            "".join(lines[: K - 1] + other[K - 1 :]),
            K,
            INTEGRITY,
            "game differs from line 1",
        )
    )
    # Two forks of the same game (same id): the spliced line itself chains, the next does not.
    fork_a = Table(4, seed=11, dealer=3)
    fork_a.play_party()
    fork_a.bring_all()
    fork_b = copy.deepcopy(fork_a)
    fork_a.open(fork_a.party.face_down[0])
    fork_b.open(fork_b.party.face_down[-1])
    k = fork_a.line
    for t in (fork_a, fork_b):
        while t.party is not None:
            t.open()
    la, lb = lines_of(chain(fork_a.events, "adv-fork")), lines_of(chain(fork_b.events, "adv-fork"))
    assert la[: k - 1] == lb[: k - 1] and la[k - 1] != lb[k - 1]
    cases.append(
        bad(
            "integrity/same-game-fork-line-spliced",
            "".join([*la[: k - 1], lb[k - 1], *la[k:]]),
            k + 1,
            INTEGRITY,
            "prev: exactly the previous line's hash (the spliced line chains; the next not)",
        )
    )

    # Which problem comes first: "the first problem is always the earliest wrong line".
    def rules_at(e: list[dict[str, Any]], k: int) -> None:
        e[k - 1]["data"]["player"] = "Zed"

    e = copy.deepcopy(envs)
    rules_at(e, 5)
    rechain(e)
    e[11]["data"]["party"] = 3  # tampered, not rehashed
    cases.append(bad("mixed/rules-before-tamper", text_of(e), 5, RULES, "the earliest wrong line"))
    cases[-1].also = [(12, INTEGRITY)]  # "Integrity is checked for every line"
    e = copy.deepcopy(envs)
    e[K - 1]["data"]["party"] = 2
    e[K + 19]["at"] = at_of(500)
    cases.append(bad("mixed/two-edits-both-reported", text_of(e), K, INTEGRITY, "each problem at its line"))
    cases[-1].also = [(K + 20, INTEGRITY)]
    e = copy.deepcopy(envs)
    e[3]["data"]["player"] = "Zed"
    rechain(e)
    torn_text = text_of(e)[:-30]
    cases.append(bad("mixed/rules-then-torn", torn_text, 4, RULES, "Integrity is checked for every line"))
    cases[-1].also = [(n, INTEGRITY)]
    ls = lines_of(e)
    ls.insert(19, "\n")
    cases.append(
        bad("mixed/rules-then-blank-line", "".join(ls), 4, RULES, "Integrity is checked for every line")
    )
    cases[-1].also = [(20, INTEGRITY)]
    e = copy.deepcopy(envs)
    e[4]["at"] = "2026-11-26T19:00:05+01:00"
    rules_at(e, 12)
    rechain(e)
    cases.append(bad("mixed/bad-at-before-rules", text_of(e), 5, INTEGRITY, "the earliest wrong line"))
    e = copy.deepcopy(envs)
    rules_at(e, 12)
    rechain(e)
    ls = lines_of(e)
    ls[4] = "garbage\n"
    cases.append(bad("mixed/garbage-before-rules", "".join(ls), 5, INTEGRITY, "the earliest wrong line"))
    e = copy.deepcopy(envs)
    e[3]["data"]["card"] = "X9"
    rechain(e)
    cases.append(bad("mixed/schema-line-4-then-chain-intact", text_of(e), 4, SCHEMA, "card notation"))
    return cases


# --- valid logs that only look odd ------------------------------------------------------------


def formatting_cases() -> list[Case]:
    """Whitespace in or around a line's JSON does not break the hash (log-format.md)."""
    cases: list[Case] = []
    t = base_game()

    def variant(name: str, render: Callable[[list[dict[str, Any]]], str], **over: Any) -> None:
        game = slug(name)
        envs = chain(t.events, game)
        c = valid_case(name, t, game=game, why="whitespace in or around a line's JSON does not break it")
        c.content = render(envs).encode("utf-8")
        for key, value in over.items():
            setattr(c, key, value)
        cases.append(c)

    variant("format/compact-lines", lambda e: text_of(e, compact=True))
    variant("format/crlf-line-endings", lambda e: text_of(e).replace("\n", "\r\n"))
    variant(
        "format/crlf-some-lines",
        lambda e: "".join(line_of(x) + ("\r\n" if i % 2 else "\n") for i, x in enumerate(e)),
    )
    variant("format/leading-and-trailing-spaces", lambda e: "".join("  " + line_of(x) + " \t\n" for x in e))
    variant(
        "format/spaced-out-json",
        lambda e: "".join(json.dumps(x, ensure_ascii=False, separators=(" , ", " : ")) + "\n" for x in e),
    )
    variant(
        "format/keys-in-another-order",
        lambda e: "".join(json.dumps(dict(reversed(list(x.items()))), ensure_ascii=False) + "\n" for x in e),
    )
    variant("format/keys-sorted", lambda e: "".join(json.dumps(x, sort_keys=True) + "\n" for x in e))
    variant("format/non-ascii-escaped", lambda e: text_of(e, ascii_only=True))
    variant(
        "format/indent-spaces-inside",
        lambda e: "".join("\t" + json.dumps(x, ensure_ascii=False).replace(", ", ",   ") + "\n" for x in e),
    )
    variant("format/cr-cr-lf", lambda e: text_of(e).replace("\n", "\r\r\n"))
    variant(
        "format/cr-between-tokens", lambda e: "".join(line_of(x).replace(", ", ",\r", 3) + "\n" for x in e)
    )
    variant(
        "format/escaped-key-names",
        lambda e: "".join(
            line_of(x).replace('"v":', '"\\u0076":', 1).replace('"data":', '"d\\u0061ta":', 1) + "\n"
            for x in e
        ),
    )
    variant(
        "format/escaped-characters-in-strings",
        lambda e: "".join(
            line_of(x).replace("Adversarial", "\\u0041dversarial").replace("T19:", "\\u005419:") + "\n"
            for x in e
        ),
    )
    # `at`: fractional seconds, a leap day, time running backwards: all fine (informative only).
    for label, at in [
        ("fraction", "2026-11-26T19:00:10.5Z"),
        ("nanoseconds", "2026-11-26T19:00:10.123456789Z"),
        ("leap-day", "2024-02-29T23:59:59Z"),
        ("backwards", "2020-01-01T00:00:00Z"),
        ("year-end", "2026-12-31T23:59:59Z"),
    ]:
        name = f"format/at-{label}"
        game = slug(name)
        envs = chain(t.events, game)
        envs[K - 1]["at"] = at
        rechain(envs)
        c = valid_case(
            name,
            t,
            game=game,
            why="at: RFC 3339 UTC ending in Z (fractional seconds allowed); informative only",
        )
        c.content, c.fingerprint, c.envs = text_of(envs).encode(), fingerprint(envs), envs
        cases.append(c)
    # Non-ASCII names written escaped, read back as the same text.
    tz = Table(3, players=["Zoë", "🎅 Santa", "李雷"], seed=5, attics=False)
    tz.play()
    c = valid_case("format/unicode-names-escaped", tz)
    c.content = text_of(c.envs, ascii_only=True).encode()
    cases.append(c)
    return cases


# --- schema --------------------------------------------------------------------------------


def events_of(t: Table) -> list[tuple[str, dict[str, Any]]]:
    return copy.deepcopy(t.events)


def schema_cases() -> list[Case]:
    cases: list[Case] = []
    why = "log-format.md: schema -- "

    # A game in progress with one of each move near the end.
    t = Table(3, seed=4, dealer=2)  # Ann starts party 1
    t.bring_all(["Ann", "Ben", "Cat"])
    t.open()  # Ann
    t.steal("Ann")  # Ben steals from Ann
    t.open()  # Ann
    ev = events_of(t)
    # lines: 1 started, 2 lists, 3 attics, 4-6 brought, 7 opened, 8 stolen, 9 opened
    open_line, steal_line, bring_line = 7, 8, 4
    assert ev[open_line - 1][0] == "gift_opened" and ev[steal_line - 1][0] == "gift_stolen"

    def case(
        name: str,
        line: int,
        change: Callable[[dict[str, Any]], None] | None = None,
        etype: str | None = None,
        kind: str = SCHEMA,
        reason: str = "",
    ) -> None:
        e = copy.deepcopy(ev)
        typ, data = e[line - 1]
        if change is not None:
            change(data)
        e[line - 1] = (typ if etype is None else etype, data)
        cases.append(events_case(name, e, line, kind, why + reason))

    for label, typ in [
        ("gift-swapped", "gift_swapped"),
        ("empty", ""),
        ("capitalised", "Gift_Opened"),
        ("upper", "GIFT_OPENED"),
        ("trailing-space", "gift_opened "),
    ]:
        case(f"schema/unknown-type-{label}", open_line, etype=typ, reason="unknown type")
    # Extra payload fields.
    case(
        "schema/extra-field-opened",
        open_line,
        lambda d: d.update({"seen": True}),
        reason="payload field extra",
    )
    case("schema/extra-field-stolen", steal_line, lambda d: d.update({"locked": True}), reason="extra")
    case("schema/extra-field-brought", bring_line, lambda d: d.update({"face": "down"}), reason="extra")
    case("schema/extra-field-started", 1, lambda d: d.update({"house": "mine"}), reason="extra")
    case("schema/extra-field-lists", 2, lambda d: d.update({"deck": "printed"}), reason="extra")
    case("schema/extra-field-attics", 3, lambda d: d.update({"rest": []}), reason="extra")
    case("schema/extra-field-null", open_line, lambda d: d.update({"extra": None}), reason="extra")
    # Missing payload fields.
    for fld in ("party", "player", "card"):
        case(f"schema/missing-{fld}-opened", open_line, lambda d, f=fld: d.pop(f), reason="field missing")
        case(f"schema/missing-{fld}-brought", bring_line, lambda d, f=fld: d.pop(f), reason="field missing")
    for fld in ("party", "player", "from", "card"):
        case(f"schema/missing-{fld}-stolen", steal_line, lambda d, f=fld: d.pop(f), reason="field missing")
    for fld in ("players", "dealer", "ruleset", "options"):
        case(f"schema/missing-{fld}-started", 1, lambda d, f=fld: d.pop(f), reason="field missing")
    case("schema/missing-lists", 2, lambda d: d.pop("lists"), reason="field missing")
    case("schema/missing-attics", 3, lambda d: d.pop("attics"), reason="field missing")
    case("schema/empty-data-opened", open_line, lambda d: d.clear(), reason="fields missing")
    case(
        "schema/from-player-instead-of-from",
        steal_line,
        lambda d: d.__setitem__("from_player", d.pop("from")),
        reason="field missing and extra",
    )
    case(
        "schema/field-name-capitalised",
        open_line,
        lambda d: d.__setitem__("Card", d.pop("card")),
        reason="field missing and extra",
    )
    # Wrong JSON types.
    for label, value in [("string", "1"), ("true", True), ("float", 1.0), ("null", None), ("list", [1])]:
        case(
            f"schema/party-{label}",
            open_line,
            lambda d, v=value: d.__setitem__("party", v),
            reason="wrong type",
        )
        case(
            f"schema/party-{label}-brought",
            bring_line,
            lambda d, v=value: d.__setitem__("party", v),
            reason="wrong type",
        )
    for label, value in [("int", 7), ("null", None), ("list", ["R7"]), ("true", True)]:
        case(
            f"schema/card-{label}-opened",
            open_line,
            lambda d, v=value: d.__setitem__("card", v),
            reason="wrong type",
        )
        case(
            f"schema/card-{label}-stolen",
            steal_line,
            lambda d, v=value: d.__setitem__("card", v),
            reason="wrong type",
        )
    case("schema/card-int-brought", bring_line, lambda d: d.__setitem__("card", 7), reason="wrong type")
    case("schema/player-int", open_line, lambda d: d.__setitem__("player", 1), reason="wrong type")
    case("schema/player-null", open_line, lambda d: d.__setitem__("player", None), reason="wrong type")
    case("schema/player-list", open_line, lambda d: d.__setitem__("player", ["Ann"]), reason="wrong type")
    case("schema/from-null", steal_line, lambda d: d.__setitem__("from", None), reason="wrong type")
    case("schema/players-string", 1, lambda d: d.__setitem__("players", "Ann,Ben,Cat"), reason="wrong type")
    case("schema/players-object", 1, lambda d: d.__setitem__("players", {"Ann": 1}), reason="wrong type")
    case(
        "schema/players-with-int",
        1,
        lambda d: d.__setitem__("players", ["Ann", "Ben", 3]),
        reason="wrong type",
    )
    case("schema/dealer-int", 1, lambda d: d.__setitem__("dealer", 0), reason="wrong type")
    case("schema/ruleset-null", 1, lambda d: d.__setitem__("ruleset", None), reason="wrong type")
    case("schema/options-list", 1, lambda d: d.__setitem__("options", []), reason="wrong type")
    case("schema/options-null", 1, lambda d: d.__setitem__("options", None), reason="wrong type")
    case("schema/title-int", 1, lambda d: d.__setitem__("title", 2026), reason="wrong type")
    case(
        "schema/title-null",
        1,
        lambda d: d.__setitem__("title", None),
        reason="title: optional free text (docs/decisions.md: null is schema)",
    )
    case(
        "schema/lists-list",
        2,
        lambda d: d.__setitem__("lists", [["red", "yellow", "green"]]),
        reason="wrong type",
    )
    case(
        "schema/lists-value-string",
        2,
        lambda d: d["lists"].__setitem__("Ann", "red,yellow,green"),
        reason="wrong type",
    )
    case(
        "schema/lists-value-ints", 2, lambda d: d["lists"].__setitem__("Ann", [1, 2, 3]), reason="wrong type"
    )
    case("schema/attics-value-string", 3, lambda d: d["attics"].__setitem__("Ann", "R1"), reason="wrong type")
    case(
        "schema/attics-list",
        3,
        lambda d: d.__setitem__("attics", list(d["attics"].values())),
        reason="wrong type",
    )
    # Cards not in card notation.
    for label in [
        "P11",
        "R0",
        "R11",
        "red7",
        "",
        "7",
        "RR7",
        "R 7",
        " R7",
        "R7 ",
        "R-1",
        "R1.0",
        "Ｒ7",
        "R٣",
    ]:
        case(
            f"schema/card-notation-opened-{label!r}",
            open_line,
            lambda d, c=label: d.__setitem__("card", c),
            reason="a card not in card notation",
        )
    for label in ["P11", "R0", "R11", "red7"]:
        case(
            f"schema/card-notation-brought-{label}",
            bring_line,
            lambda d, c=label: d.__setitem__("card", c),
            reason="card notation",
        )
        case(
            f"schema/card-notation-stolen-{label}",
            steal_line,
            lambda d, c=label: d.__setitem__("card", c),
            reason="card notation",
        )
        case(
            f"schema/card-notation-attics-{label}",
            3,
            lambda d, c=label: d["attics"]["Ann"].__setitem__(0, c),
            reason="card notation",
        )
    # Colours.
    for label in ["RED", "Red", "purple", "r", "", "rouge"]:
        case(
            f"schema/colour-{label or 'empty'}",
            2,
            lambda d, c=label: d["lists"]["Ann"].__setitem__(0, c),
            reason="a colour that is not one of the five names; Colour names are lowercase",
        )
    # Shape is judged before the rules: a malformed event by the wrong player is schema.
    case(
        "schema/bad-card-by-wrong-player",
        open_line,
        lambda d: d.update({"player": "Cat", "card": "P11"}),
        reason="shape before rules",
    )
    case(
        "schema/extra-field-on-illegal-steal",
        steal_line,
        lambda d: d.update({"from": "Cat", "why": "x"}),
        reason="shape before rules",
    )
    # Other event types.
    g = Table(3, seed=4, dealer=2).play()
    full = events_of(g)
    n = len(full)
    extra_events: list[tuple[str, tuple[str, dict[str, Any]]]] = [
        ("note-text-int", ("note", {"text": 5})),
        ("note-text-null", ("note", {"text": None})),
        ("note-missing-text", ("note", {})),
        ("note-extra-field", ("note", {"text": "hi", "by": "Ann"})),
        ("void-voids-string", ("event_voided", {"voids": str(n), "reason": "x"})),
        ("void-voids-true", ("event_voided", {"voids": True, "reason": "x"})),
        ("void-voids-float", ("event_voided", {"voids": float(n), "reason": "x"})),
        ("void-reason-null", ("event_voided", {"voids": n, "reason": None})),
        ("void-missing-reason", ("event_voided", {"voids": n})),
        ("void-missing-voids", ("event_voided", {"reason": "x"})),
        ("void-extra-field", ("event_voided", {"voids": n, "reason": "x", "by": "Ann"})),
        ("tie-winner-int", ("tie_broken", {"winner": 1, "reason": "x"})),
        ("tie-missing-reason", ("tie_broken", {"winner": "Ann"})),
        ("tie-reason-null", ("tie_broken", {"winner": "Ann", "reason": None})),
        ("tie-extra-field", ("tie_broken", {"winner": "Ann", "reason": "x", "votes": 3})),
    ]
    extra_events += [
        ("unknown-type-after-game-over", ("gift_regifted", {"party": 1})),
        ("bad-card-after-game-over", ("gift_opened", {"party": 1, "player": "Ann", "card": "Z9"})),
    ]
    for label, event in extra_events:
        cases.append(events_case(f"schema/{label}", [*full, event], n + 1, SCHEMA, why + label))
    # Options of the wrong JSON type (decisions.md: schema), and an unknown option.
    for label, options in [
        ("attic-sizes-list", {"attic_sizes": [9]}),
        ("attic-sizes-value-string", {"attic_sizes": {"3": "2"}}),
        ("attic-sizes-value-float", {"attic_sizes": {"3": 2.0}}),
        ("attic-sizes-value-true", {"attic_sizes": {"3": True}}),
        ("attic-sizes-null", {"attic_sizes": None}),
        ("max-steals-string", {"max_steals_per_gift": "2"}),
        ("max-steals-true", {"max_steals_per_gift": True}),
        ("max-steals-float", {"max_steals_per_gift": 2.0}),
        ("max-steals-null", {"max_steals_per_gift": None}),
        ("unknown-option", {"snake_draft": True}),
        # A positive-integer option given 0 or less (log-format.md: its type is "positive integer").
        ("attic-sizes-zero", {"attic_sizes": {"3": 0}}),
        ("attic-sizes-negative", {"attic_sizes": {"3": -2}}),
        ("attic-sizes-other-count-zero", {"attic_sizes": {"3": 2, "5": 0}}),
        ("max-steals-zero", {"max_steals_per_gift": 0}),
        ("max-steals-negative", {"max_steals_per_gift": -1}),
        ("max-steals-between-opens-zero", {"max_steals_between_opens": 0}),
        ("max-steals-between-opens-negative", {"max_steals_between_opens": -3}),
        ("unknown-option-misspelt", {"max_steal_per_gift": 2}),
    ]:
        e = copy.deepcopy(full[:1])
        e[0][1]["options"] = options
        cases.append(
            events_case(
                f"schema/options-{label}",
                e,
                1,
                SCHEMA,
                why + "house rule of the wrong JSON type (or a positive int <= 0) / unknown payload field",
            )
        )
    return cases


# --- rules ---------------------------------------------------------------------------------


def started(
    players: Any = None, dealer: Any = "Ann", ruleset: str = RULESET, options: Any = None, **extra: Any
) -> tuple[str, dict[str, Any]]:
    data = {
        "players": players if players is not None else ["Ann", "Ben", "Cat"],
        "dealer": dealer,
        "ruleset": ruleset,
        "options": options if options is not None else {},
    }
    data.update(extra)
    return ("game_started", data)


def lists_for(players: list[str]) -> tuple[str, dict[str, Any]]:
    return ("gift_lists_dealt", {"lists": {p: list(LIST_DECK[i]) for i, p in enumerate(players)}})


def rules_cases() -> list[Case]:
    cases: list[Case] = []

    def r(name: str, events: list[tuple[str, dict[str, Any]]], line: int, why: str) -> None:
        cases.append(events_case(f"rules/{name}", events, line, RULES, why))

    three = ["Ann", "Ben", "Cat"]
    # game_started.
    r("two-players", [started(["Ann", "Ben"])], 1, "players: 3 to 7 names")
    r("eight-players", [started([*NAMES, "Hal"])], 1, "players: 3 to 7 names")
    r("no-players", [started([])], 1, "3 to 7")
    r("duplicate-names", [started(["Ann", "Ben", "Ann"])], 1, "unique ignoring case")
    r("duplicate-names-ignoring-case", [started(["Ann", "Ben", "ANN"])], 1, "unique ignoring case")
    r("dealer-not-a-player", [started(three, dealer="Dev")], 1, "dealer: one of players")
    r("dealer-other-case", [started(three, dealer="ann")], 1, "Names in payloads must match exactly")
    r("wrong-ruleset", [started(three, ruleset="white-elephant-2012")], 1, "ruleset: white-elephant-2011")
    r(
        "name-leading-space",
        [started([" Ann", "Ben", "Cat"], dealer=" Ann")],
        1,
        "no leading or trailing space",
    )
    r(
        "name-trailing-space",
        [started(["Ann ", "Ben", "Cat"], dealer="Ben")],
        1,
        "no leading or trailing space",
    )
    r("name-33-chars", [started(["A" * 33, "Ben", "Cat"], dealer="Ben")], 1, "each 1-32 characters")
    r("name-empty", [started(["", "Ben", "Cat"], dealer="Ben")], 1, "each 1-32 characters")
    r("title-201-chars", [started(three, title="t" * 201)], 1, "title: up to 200 characters")
    r("first-line-not-game-started", [("note", {"text": "hello"})], 1, "game_started (seq 1, exactly once)")
    r("first-line-lists", [lists_for(three)], 1, "game_started (seq 1, exactly once)")
    r(
        "note-before-game-started",
        [("note", {"text": "hello"}), started(three), lists_for(three)],
        1,
        "game_started (seq 1, exactly once); note may appear anywhere after game_started",
    )
    r(
        "void-before-game-started",
        [("event_voided", {"voids": 1, "reason": "x"}), started(three)],
        1,
        "game_started (seq 1); event_voided may appear anywhere after game_started",
    )
    r(
        "duplicate-names-ignoring-case-non-ascii",
        [started(["Zoë", "Ben", "ZOË"], dealer="Ben")],
        1,
        "unique ignoring case",
    )
    r("title-201-emoji", [started(three, title="🎅" * 201)], 1, "title: up to 200 characters")
    r("name-33-emoji", [started(["🎅" * 33, "Ben", "Cat"], dealer="Ben")], 1, "each 1-32 characters")
    r("title-201-non-ascii-chars", [started(three, title="é" * 201)], 1, "title: up to 200 characters")
    r("game-started-twice", [started(three), started(three)], 2, "game_started exactly once")
    r("game-started-again-later", [started(three), lists_for(three), started(three)], 3, "exactly once")
    # Options (values: rules, decisions.md).
    for label, n, options in [
        ("attic-sizes-5-is-11-with-5-players", 5, {"attic_sizes": {"5": 11}}),
        ("attic-sizes-3-is-17", 3, {"attic_sizes": {"3": 17}}),
        ("attic-sizes-key-9", 3, {"attic_sizes": {"9": 3}}),
        ("attic-sizes-key-2", 3, {"attic_sizes": {"2": 3}}),
        ("attic-sizes-key-word", 3, {"attic_sizes": {"three": 3}}),
    ]:
        r(
            f"options-{label}",
            [started(NAMES[:n], options=options)],
            1,
            'attic_sizes: positive integer, key "3" to "7", <= 50 cards; max_steals_per_gift: positive int',
        )

    # gift_lists_dealt.
    def lists_case(name: str, lists: dict[str, Any], why: str) -> None:
        r(name, [started(three), ("gift_lists_dealt", {"lists": lists})], 2, why)

    a, b, c = (list(x) for x in LIST_DECK[:3])
    lists_case("lists-missing-player", {"Ann": a, "Ben": b}, "Every player exactly once")
    lists_case(
        "lists-unknown-player", {"Ann": a, "Ben": b, "Cat": c, "Dev": list(LIST_DECK[3])}, "exactly once"
    )
    lists_case("lists-name-other-case", {"Ann": a, "Ben": b, "cat": c}, "names must match exactly")
    lists_case("lists-same-triple", {"Ann": a, "Ben": a[:], "Cat": c}, "no two players with the same three")
    lists_case("lists-same-triple-reordered", {"Ann": a, "Ben": a[::-1], "Cat": c}, "the same three")
    lists_case("lists-two-colours", {"Ann": a[:2], "Ben": b, "Cat": c}, "each list three different colours")
    lists_case("lists-four-colours", {"Ann": [*a, "blue"], "Ben": b, "Cat": c}, "three different colours")
    lists_case(
        "lists-repeated-colour",
        {"Ann": ["red", "red", "green"], "Ben": b, "Cat": c},
        "three different colours",
    )
    lists_case("lists-empty", {}, "Every player exactly once")
    r(
        "lists-missing",
        [started(three), ("gift_brought", {"party": 1, "player": "Ann", "card": None})],
        2,
        "gift_lists_dealt once, right after game_started",
    )
    r("lists-twice", [started(three), lists_for(three), lists_for(three)], 3, "gift_lists_dealt once")

    # attics_dealt.
    t = Table(3, seed=8, attics=False, seen=True)
    hands = copy.deepcopy(t.hands)
    r(
        "attics-wrong-size",
        [*t.events, ("attics_dealt", {"attics": {**hands, "Ann": hands["Ann"][:-1]}})],
        3,
        "exactly the attic size",
    )
    r(
        "attics-all-too-big",
        [
            *t.events,
            (
                "attics_dealt",
                {"attics": {p: [*h, x] for (p, h), x in zip(hands.items(), ["R1", "R2", "R3"], strict=True)}},
            ),
        ],
        3,
        "exactly the attic size",
    )  # may also repeat cards; either way rules
    dup = copy.deepcopy(hands)
    dup["Ben"][0] = dup["Ann"][0]
    r(
        "attics-card-twice-across",
        [*t.events, ("attics_dealt", {"attics": dup})],
        3,
        "no card twice in the event",
    )
    dup2 = copy.deepcopy(hands)
    dup2["Ann"][1] = dup2["Ann"][0]
    r("attics-card-twice-one-hand", [*t.events, ("attics_dealt", {"attics": dup2})], 3, "no card twice")
    dup3 = copy.deepcopy(hands)
    dup3["Ann"][1] = dup3["Ann"][0].lower()
    r("attics-card-twice-other-case", [*t.events, ("attics_dealt", {"attics": dup3})], 3, "no card twice")
    r(
        "attics-missing-player",
        [*t.events, ("attics_dealt", {"attics": {"Ann": hands["Ann"], "Ben": hands["Ben"]}})],
        3,
        "Every player exactly once",
    )
    r(
        "attics-unknown-player",
        [*t.events, ("attics_dealt", {"attics": {**hands, "Dev": []}})],
        3,
        "Every player exactly once",
    )
    t.bring("Ann")
    r(
        "attics-after-first-bring",
        [*t.events, ("attics_dealt", {"attics": hands})],
        t.line + 1,
        "attics_dealt: right after gift_lists_dealt",
    )
    r(
        "attics-before-lists",
        [t.events[0], ("attics_dealt", {"attics": hands}), t.events[1]],
        2,
        "gift_lists_dealt right after game_started",
    )
    t2 = Table(3, seed=8)
    r("attics-twice", [*t2.events, t2.events[-1]], 4, "attics_dealt optional, once, right after the lists")
    # attics with the house-rule size.
    t3 = Table(3, seed=8, options={"attic_sizes": {"3": 2}}, attics=False)
    full_hands = Table(3, seed=8, attics=False).hands
    r(
        "attics-printed-size-under-house-rule",
        [*t3.events, ("attics_dealt", {"attics": full_hands})],
        3,
        "exactly the attic size for this player count (attic_sizes overrides)",
    )

    # gift_brought.
    t = Table(3, seed=21, dealer=2)
    t.bring("Ann")
    r(
        "bring-twice",
        [*t.events, ("gift_brought", {"party": 1, "player": "Ann", "card": t.hands["Ann"][0]})],
        t.line + 1,
        "Every player brings exactly once per party",
    )
    r(
        "bring-card-not-in-attic",
        [*t.events, ("gift_brought", {"party": 1, "player": "Ben", "card": t.hands["Cat"][0]})],
        t.line + 1,
        "a card still in that player's attic",
    )
    undealt = next(
        x
        for x in ["R1", "R2", "R3", "O1", "O2", "Y1", "Y2", "G1", "B1"]
        if all(x not in h for h in t.hands.values()) and x != t.events[-1][1]["card"]
    )
    r(
        "bring-card-never-dealt",
        [*t.events, ("gift_brought", {"party": 1, "player": "Ben", "card": undealt})],
        t.line + 1,
        "a card still in that player's attic",
    )
    r(
        "bring-same-card-again-other-player",
        [*t.events, ("gift_brought", {"party": 1, "player": "Ben", "card": t.events[-1][1]["card"]})],
        t.line + 1,
        "a card still in that player's attic; no card brought twice",
    )
    r(
        "bring-null-with-attics",
        [*t.events, ("gift_brought", {"party": 1, "player": "Ben", "card": None})],
        t.line + 1,
        "When attics were dealt, card must not be null",
    )
    r(
        "bring-unknown-player",
        [*t.events, ("gift_brought", {"party": 1, "player": "Dev", "card": "R1"})],
        t.line + 1,
        "unknown names",
    )
    r(
        "bring-player-other-case",
        [*t.events, ("gift_brought", {"party": 1, "player": "ben", "card": t.hands["Ben"][0]})],
        t.line + 1,
        "Names must match a name in players exactly",
    )
    r(
        "bring-party-2-first",
        [*t.events, ("gift_brought", {"party": 2, "player": "Ben", "card": t.hands["Ben"][0]})],
        t.line + 1,
        "wrong party",
    )
    r(
        "bring-party-0",
        [*Table(3, seed=21).events, ("gift_brought", {"party": 0, "player": "Ben", "card": None})],
        4,
        "wrong party",
    )
    t.bring("Ben")
    t.bring("Cat")
    t.open()
    r(
        "bring-after-first-open",
        [*t.events, ("gift_brought", {"party": 1, "player": "Ann", "card": t.hands["Ann"][0]})],
        t.line + 1,
        "before the party's first open",
    )
    r(
        "bring-next-party-during-party",
        [*t.events, ("gift_brought", {"party": 2, "player": "Ann", "card": t.hands["Ann"][0]})],
        t.line + 1,
        "each party: bring, then that party's moves",
    )
    # Unseen brings, no attics: bringing a card already opened (seen) earlier.
    tu = Table(3, seed=22, attics=False, dealer=2)
    tu.play_party()
    kept_card = tu.kept["Ann"][0]
    r(
        "bring-seen-card-already-opened",
        [*tu.events, ("gift_brought", {"party": 2, "player": "Ben", "card": kept_card})],
        tu.line + 1,
        "No card is dealt twice, brought twice or opened twice in a game",
    )
    ts = Table(3, seed=22, attics=False, seen=True, dealer=2)
    ts.play_party()
    r(
        "bring-seen-card-brought-in-earlier-party",
        [*ts.events, ("gift_brought", {"party": 2, "player": "Ben", "card": ts.kept["Cat"][0]})],
        ts.line + 1,
        "No card is brought twice",
    )

    # gift_opened.
    t = Table(3, seed=31, dealer=2)  # Ann starts
    t.bring("Ann")
    t.bring("Ben")
    r(
        "open-before-all-brought",
        [*t.events, ("gift_opened", {"party": 1, "player": "Ann", "card": t.party.face_down[0]})],
        t.line + 1,
        "nobody opens until all have brought",
    )
    t.bring("Cat")
    fd = t.party.face_down[0]
    r(
        "open-by-wrong-player",
        [*t.events, ("gift_opened", {"party": 1, "player": "Ben", "card": fd})],
        t.line + 1,
        "player must be the player whose turn it is (left of the dealer)",
    )
    r(
        "open-by-dealer-first",
        [*t.events, ("gift_opened", {"party": 1, "player": "Cat", "card": fd})],
        t.line + 1,
        "Party 1 starts with the player left of the dealer",
    )
    r(
        "open-card-not-face-down",
        [*t.events, ("gift_opened", {"party": 1, "player": "Ann", "card": t.hands["Ann"][0]})],
        t.line + 1,
        "one of the party's face-down gifts if it was brought seen",
    )
    r(
        "open-wrong-party",
        [*t.events, ("gift_opened", {"party": 2, "player": "Ann", "card": fd})],
        t.line + 1,
        "wrong party",
    )
    r(
        "open-unknown-player",
        [*t.events, ("gift_opened", {"party": 1, "player": "Zed", "card": fd})],
        t.line + 1,
        "unknown names",
    )
    r(
        "open-player-other-case",
        [*t.events, ("gift_opened", {"party": 1, "player": "ann", "card": fd})],
        t.line + 1,
        "names must match exactly",
    )
    r(
        "steal-as-first-move",
        [*t.events, ("gift_stolen", {"party": 1, "player": "Ann", "from": "Ben", "card": fd})],
        t.line + 1,
        "The starter's first move is always an open",
    )
    t.open()
    first = t.events[-1][1]["card"]
    r(
        "open-same-card-twice",
        [*t.events, ("gift_opened", {"party": 1, "player": "Ben", "card": first})],
        t.line + 1,
        "No card is opened twice",
    )
    r(
        "open-by-holder",
        [*t.events, ("gift_opened", {"party": 1, "player": "Ann", "card": t.party.face_down[0]})],
        t.line + 1,
        "The player to move never holds a gift",
    )
    r(
        "steal-from-nobody-holding",
        [*t.events, ("gift_stolen", {"party": 1, "player": "Ben", "from": "Cat", "card": first})],
        t.line + 1,
        "from holds card",
    )
    r(
        "steal-wrong-card",
        [
            *t.events,
            ("gift_stolen", {"party": 1, "player": "Ben", "from": "Ann", "card": t.party.face_down[0]}),
        ],
        t.line + 1,
        "from holds card, an opened gift",
    )
    r(
        "steal-from-self",
        [*t.events, ("gift_stolen", {"party": 1, "player": "Ann", "from": "Ann", "card": first})],
        t.line + 1,
        "player must be the player whose turn it is",
    )
    r(
        "steal-by-wrong-player",
        [*t.events, ("gift_stolen", {"party": 1, "player": "Cat", "from": "Ann", "card": first})],
        t.line + 1,
        "player must be the player whose turn it is",
    )
    t.steal("Ann")  # Ben steals from Ann; Ann to move; the gift is locked
    r(
        "steal-back-locked",
        [*t.events, ("gift_stolen", {"party": 1, "player": "Ann", "from": "Ben", "card": first})],
        t.line + 1,
        "the victim can never take straight back what was just taken from them",
    )
    r(
        "after-steal-wrong-mover",
        [*t.events, ("gift_opened", {"party": 1, "player": "Cat", "card": t.party.face_down[0]})],
        t.line + 1,
        "The player whose gift was just stolen moves next",
    )
    t.open()  # Ann opens
    # (Ann now holds the second card opened)
    # Cat to move: can steal either (all unlocked).
    r(
        "open-after-party-moved-on-by-ben",
        [*t.events, ("gift_opened", {"party": 1, "player": "Ben", "card": t.party.face_down[0]})],
        t.line + 1,
        "not that player's turn",
    )
    t.steal("Ben")  # Cat steals `first` from Ben
    # Ben to move. Ben steals `first` back? it is locked.
    r(
        "steal-locked-by-third",
        [*t.events, ("gift_stolen", {"party": 1, "player": "Ben", "from": "Cat", "card": first})],
        t.line + 1,
        "The stolen gift becomes locked",
    )
    t.steal("Ann")  # Ben steals `second` from Ann; both locked; Ann must open
    r(
        "steal-when-all-locked",
        [*t.events, ("gift_stolen", {"party": 1, "player": "Ann", "from": "Cat", "card": first})],
        t.line + 1,
        "each gift can be stolen at most once between two opens",
    )
    t.open()  # Ann opens the last: party 1 over
    assert t.party is None
    r(
        "steal-after-party-ended",
        [*t.events, ("gift_stolen", {"party": 1, "player": "Ann", "from": "Cat", "card": first})],
        t.line + 1,
        "The party ends the moment its last face-down gift is opened",
    )
    r(
        "open-after-party-ended",
        [*t.events, ("gift_opened", {"party": 1, "player": "Ann", "card": "R1"})],
        t.line + 1,
        "The party ends the moment its last face-down gift is opened",
    )
    kept_by_cat = t.kept["Cat"][0]
    # Party 2: Ben starts.
    t.bring_all(["Ann", "Ben", "Cat"])
    r(
        "party-2-started-by-party-1-starter",
        [*t.events, ("gift_opened", {"party": 2, "player": "Ann", "card": t.party.face_down[0]})],
        t.line + 1,
        "each later party starts one seat further clockwise",
    )
    r(
        "party-2-open-with-party-1",
        [*t.events, ("gift_opened", {"party": 1, "player": "Ben", "card": t.party.face_down[0]})],
        t.line + 1,
        "wrong party",
    )
    t.open()  # Ben
    r(
        "steal-kept-card-earlier-party",
        [*t.events, ("gift_stolen", {"party": 2, "player": "Cat", "from": "Ann", "card": t.kept["Ann"][0]})],
        t.line + 1,
        "kept cards from earlier parties can never be stolen",
    )
    r(
        "steal-kept-card-from-its-keeper-who-holds-a-gift",
        [*t.events, ("gift_stolen", {"party": 2, "player": "Cat", "from": "Ben", "card": t.kept["Ben"][0]})],
        t.line + 1,
        "kept cards can never be stolen; from holds card",
    )
    r(
        "steal-kept-card-of-the-mover",
        [*t.events, ("gift_stolen", {"party": 2, "player": "Cat", "from": "Ann", "card": kept_by_cat})],
        t.line + 1,
        "kept cards can never be stolen",
    )

    # Frozen gifts: max_steals_per_gift.
    def frozen_game(cap: int | None) -> tuple[Table, str]:
        opts = {} if cap is None else {"max_steals_per_gift": cap}
        ft = Table(3, seed=41, dealer=2, options=opts)
        ft.bring_all(["Ann", "Ben", "Cat"])
        ft.open()  # Ann opens X
        x = ft.events[-1][1]["card"]
        ft.steal("Ann")  # Ben steals X (1)
        ft.open()  # Ann opens Y: unlocks X
        return ft, x

    ft, x = frozen_game(1)
    r(
        "steal-frozen-gift",
        [*ft.events, ("gift_stolen", {"party": 1, "player": "Cat", "from": "Ben", "card": x})],
        ft.line + 1,
        "a gift stolen that many times in one party is frozen for the rest of that party",
    )

    # Unseen brings: an open must be a card seen nowhere before.
    tu = Table(3, seed=51, attics=False, dealer=2)
    tu.play_party()
    tu.bring_all()
    seen_card = tu.kept["Ben"][0]
    r(
        "open-unseen-card-seen-earlier",
        [*tu.events, ("gift_opened", {"party": 2, "player": "Ben", "card": seen_card})],
        tu.line + 1,
        "otherwise a card not seen anywhere earlier in the game",
    )
    tu.open()
    r(
        "open-unseen-card-opened-this-party",
        [*tu.events, ("gift_opened", {"party": 2, "player": "Cat", "card": tu.events[-1][1]["card"]})],
        tu.line + 1,
        "a card not seen anywhere earlier",
    )
    # A party with one seen bring and unseen ones: once the unseen gifts are all open, only the
    # seen one may be opened.
    tm = Table(3, seed=52, attics=False, dealer=2, steal_p=0)
    tm.begin_party()
    tm.bring("Ann", unseen=False)
    seen_gift = tm.events[-1][1]["card"]
    tm.bring("Ben", unseen=True)
    tm.bring("Cat", unseen=True)
    others = [c for c in tm.party.face_down if c != seen_gift]
    tm.open(others[0])
    tm.open(others[1])
    fresh = next(x for x in ["R1", "O1", "Y1", "G1", "B1", "R2"] if x not in (seen_gift, *others))
    r(
        "open-fresh-card-when-only-seen-gift-left",
        [*tm.events, ("gift_opened", {"party": 1, "player": "Cat", "card": fresh})],
        tm.line + 1,
        "one of the party's face-down gifts if brought seen, otherwise a card not seen ... "
        "while unseen gifts remain face down",
    )
    tm2 = Table(3, seed=52, attics=False, dealer=2, steal_p=0)
    tm2.begin_party()
    tm2.bring("Ann", unseen=False)
    sg = tm2.events[-1][1]["card"]
    tm2.bring("Ben", unseen=True)
    tm2.bring("Cat", unseen=True)
    tm2.open(sg)
    r(
        "open-the-seen-gift-twice",
        [*tm2.events, ("gift_opened", {"party": 1, "player": "Ben", "card": sg})],
        tm2.line + 1,
        "No card is opened twice",
    )

    # Events after the game is over.
    g = Table(3, seed=61, options={"attic_sizes": {"3": 2}}).play()
    assert g.over
    r(
        "bring-after-game-over",
        [*g.events, ("gift_brought", {"party": 3, "player": "Ann", "card": "R1"})],
        g.line + 1,
        "an event after the game is over",
    )
    gu = Table(3, seed=61, options={"attic_sizes": {"3": 2}}, attics=False).play()
    r(
        "bring-null-after-game-over-unseen",
        [*gu.events, ("gift_brought", {"party": 3, "player": "Ann", "card": None})],
        gu.line + 1,
        "after the game is over",
    )
    r(
        "open-after-game-over",
        [*g.events, ("gift_opened", {"party": 2, "player": "Ann", "card": "R1"})],
        g.line + 1,
        "after the game is over",
    )
    r("lists-after-game-over", [*g.events, g.events[1]], g.line + 1, "after the game is over")

    # tie_broken.
    tie = tied_game()
    no_tie = untied_game()
    mid = Table(3, seed=71)
    mid.play(2)
    r(
        "tie-broken-before-end",
        [*mid.events, ("tie_broken", {"winner": "Ann", "reason": "x"})],
        mid.line + 1,
        "Only after the last party",
    )
    r(
        "tie-broken-without-tie",
        [*no_tie.events, ("tie_broken", {"winner": no_tie.winners()[0], "reason": "x"})],
        no_tie.line + 1,
        "only when two or more players share the top score",
    )
    non_leader = next(p for p in tie.players if p not in tie.leaders())
    r(
        "tie-broken-non-leader",
        [*tie.events, ("tie_broken", {"winner": non_leader, "reason": "x"})],
        tie.line + 1,
        "winner must be one of them",
    )
    r(
        "tie-broken-unknown",
        [*tie.events, ("tie_broken", {"winner": "Zed", "reason": "x"})],
        tie.line + 1,
        "winner must be one of them",
    )
    lead = tie.leaders()
    r(
        "tie-broken-winner-other-case",
        [*tie.events, ("tie_broken", {"winner": lead_name_lower(tie), "reason": "x"})],
        tie.line + 1,
        "Names in payloads must match a name in players exactly",
    )
    reopened = copy.deepcopy(tie)
    reopened.void(reopened.line, "last card mistyped")
    r(
        "tie-broken-after-last-open-voided",
        [*reopened.events, ("tie_broken", {"winner": tie.leaders()[0], "reason": "x"})],
        reopened.line + 1,
        "tie_broken: Only after the last party (the void reopened it)",
    )
    r(
        "tie-broken-twice",
        [
            *tie.events,
            ("tie_broken", {"winner": lead[0], "reason": "x"}),
            ("tie_broken", {"winner": lead[1], "reason": "y"}),
        ],
        tie.line + 2,
        "At most one in effect",
    )
    r(
        "tie-broken-twice-same",
        [
            *tie.events,
            ("tie_broken", {"winner": lead[0], "reason": "x"}),
            ("tie_broken", {"winner": lead[0], "reason": "again"}),
        ],
        tie.line + 2,
        "At most one in effect",
    )

    # event_voided.
    v = Table(3, seed=81, dealer=2)
    v.bring_all(["Ann", "Ben", "Cat"])
    v.open()
    v.open()
    r(
        "void-not-the-latest",
        [*v.events, ("event_voided", {"voids": v.line - 1, "reason": "x"})],
        v.line + 1,
        "voids must name the latest event still in effect",
    )
    r(
        "void-game-started",
        [*v.events, ("event_voided", {"voids": 1, "reason": "x"})],
        v.line + 1,
        "not counting game_started",
    )
    r(
        "void-future-line",
        [*v.events, ("event_voided", {"voids": v.line + 5, "reason": "x"})],
        v.line + 1,
        "voids must name the latest event still in effect",
    )
    r(
        "void-itself",
        [*v.events, ("event_voided", {"voids": v.line + 1, "reason": "x"})],
        v.line + 1,
        "not counting notes and voids",
    )
    r(
        "void-zero",
        [*v.events, ("event_voided", {"voids": 0, "reason": "x"})],
        v.line + 1,
        "a void of the wrong event",
    )
    r("void-negative", [*v.events, ("event_voided", {"voids": -1, "reason": "x"})], v.line + 1, "wrong event")
    r(
        "void-a-note",
        [*v.events, ("note", {"text": "n"}), ("event_voided", {"voids": v.line + 1, "reason": "x"})],
        v.line + 2,
        "not counting notes",
    )
    r(
        "void-a-void",
        [
            *v.events,
            ("event_voided", {"voids": v.line, "reason": "x"}),
            ("event_voided", {"voids": v.line + 1, "reason": "x"}),
        ],
        v.line + 2,
        "not counting voids",
    )
    r(
        "void-same-line-twice",
        [
            *v.events,
            ("event_voided", {"voids": v.line, "reason": "x"}),
            ("event_voided", {"voids": v.line, "reason": "x"}),
        ],
        v.line + 2,
        "the latest event still in effect (that one is no longer in effect)",
    )
    r(
        "void-first-line-only-start",
        [started(three), ("event_voided", {"voids": 1, "reason": "x"})],
        2,
        "not counting game_started",
    )
    r(
        "void-as-first-line",
        [("event_voided", {"voids": 1, "reason": "x"})],
        1,
        "game_started seq 1; note and event_voided after game_started",
    )
    # An illegal move, then voided: still illegal at its own line.
    r(
        "illegal-move-then-voided",
        [
            *v.events,
            ("gift_opened", {"party": 1, "player": "Ann", "card": v.party.face_down[0]}),
            ("event_voided", {"voids": v.line + 1, "reason": "wrong"}),
        ],
        v.line + 1,
        "a void takes back a legal event; it does not excuse an illegal one",
    )
    # Voided move whose card then counts as never seen; a move that depends on the voided one.
    w = Table(3, seed=82, dealer=2)
    w.bring_all(["Ann", "Ben", "Cat"])
    w.open()
    opened = w.events[-1][1]["card"]
    w.raw("event_voided", {"voids": w.line, "reason": "x"})
    r(
        "steal-of-a-voided-open",
        [*w.events, ("gift_stolen", {"party": 1, "player": "Ben", "from": "Ann", "card": opened})],
        w.line + 1,
        "Folding skips voided events",
    )
    # Voids change what comes next.
    vl = Table(3, seed=83, attics=False, dealer=2)
    vl.void(2, "wrong lists")
    r(
        "bring-after-lists-voided",
        [*vl.events, ("gift_brought", {"party": 1, "player": "Ann", "card": None})],
        vl.line + 1,
        "Folding skips voided events: the gift lists are no longer dealt",
    )
    vs = Table(3, seed=84, dealer=2)
    vs.bring_all(["Ann", "Ben", "Cat"])
    vs.open()
    vs.steal("Ann")
    vs.void(vs.line, "Ben did not steal")
    r(
        "victim-of-a-voided-steal-moves",
        [*vs.events, ("gift_opened", {"party": 1, "player": "Ann", "card": vs.party.face_down[0]})],
        vs.line + 1,
        "Folding skips voided events: Ben is still to move",
    )
    return cases


def lead_name_lower(t: Table) -> str:
    return t.leaders()[0].lower()


def tied_game() -> Table:
    for seed in range(500):
        t = Table(3, seed=seed, options={"attic_sizes": {"3": 2}})
        t.play()
        if len(t.leaders()) >= 2 and len(t.leaders()) < 3:
            return t
    raise AssertionError("no tie found")


def untied_game() -> Table:
    for seed in range(500):
        t = Table(3, seed=seed, options={"attic_sizes": {"3": 2}})
        t.play()
        if len(t.leaders()) == 1:
            return t
    raise AssertionError("no untied game found")


# --- valid games --------------------------------------------------------------------------------


def valid_cases() -> list[Case]:
    cases: list[Case] = []
    for n in range(3, 8):
        for attics in (True, False):
            t = Table(n, seed=100 + n, attics=attics, dealer=n - 1)
            t.play()
            cases.append(valid_case(f"valid/full-{n}-players-{'attics' if attics else 'unseen'}", t))
        t = Table(n, seed=200 + n, attics=False, seen=True, dealer=1)
        t.play()
        cases.append(valid_case(f"valid/full-{n}-players-seen-no-attics", t))
    # Many steals, dealer in every seat.
    for d in range(4):
        t = Table(4, seed=300 + d, dealer=d, steal_p=0.8, options={"attic_sizes": {"4": 3}})
        t.play()
        cases.append(valid_case(f"valid/steal-heavy-dealer-{d}", t))
    # House rules.
    t = Table(3, seed=7, options={"attic_sizes": {"3": 1}}, attics=False)
    t.play()
    cases.append(valid_case("valid/house-attic-3-is-1", t))
    t = Table(3, seed=7, options={"attic_sizes": {"3": 16}})
    t.play()
    cases.append(valid_case("valid/house-attic-3-is-16-48-cards", t))
    t = Table(5, seed=7, options={"attic_sizes": {"5": 10}})
    t.play()
    cases.append(valid_case("valid/house-attic-5-is-10-50-cards", t))
    t = Table(3, seed=7, options={"attic_sizes": {"5": 11, "4": 2}})
    t.play()
    cases.append(
        valid_case(
            "valid/house-attic-size-for-other-count-ignored",
            t,
            why="For this game's player count, players x cards must not exceed 50",
        )
    )
    t = Table(7, seed=7, options={"attic_sizes": {"7": 7}})
    t.play()
    cases.append(valid_case("valid/house-attic-same-as-printed", t))
    for cap in (1, 2):
        t = Table(4, seed=8, options={"max_steals_per_gift": cap, "attic_sizes": {"4": 3}}, steal_p=0.9)
        t.play()
        cases.append(valid_case(f"valid/house-max-steals-{cap}", t))
    # The frozen-gift sequence is legal without the cap, and with a cap of 2.
    for cap in (None, 2):
        opts = {} if cap is None else {"max_steals_per_gift": cap}
        ft = Table(3, seed=41, dealer=2, options=opts)
        ft.bring_all(["Ann", "Ben", "Cat"])
        ft.open()
        ft.steal("Ann")
        ft.open()
        ft.steal("Ben")
        cases.append(valid_case(f"valid/second-steal-of-a-gift-cap-{cap}", ft))
    # Titles.
    t = Table(3, seed=9, title=None)
    t.play(1)
    cases.append(valid_case("valid/title-absent", t))
    t = Table(3, seed=9, title="t" * 200)
    t.play(1)
    cases.append(valid_case("valid/title-200-chars", t))
    t = Table(3, seed=9, title="")
    t.play(1)
    cases.append(valid_case("valid/title-empty", t))
    # Names.
    for label, players in [
        ("non-ascii-nfc", ["Zoë", "José", "Ångström"]),
        ("cjk-and-emoji", ["李雷", "🎅", "Ωmega"]),
        ("32-chars", ["A" * 32, "B" * 32, "C" * 32]),
        ("32-non-ascii-chars", ["ë" * 32, "ñ" * 32, "李" * 32]),
        ("inner-spaces-and-quotes", ["Mary Ann", 'Bob "the" Builder', "Cat\\Dog"]),
        ("case-distinct-but-not-duplicate", ["Ann", "Anna", "Annie"]),
        ("single-letters", ["A", "B", "C"]),
        ("seven-players-odd", ["Ann", "ann-marie", "Bo", "Ç", "d", "E e", "F"]),
    ]:
        t = Table(len(players), players=players, seed=11, attics=False, dealer=1)
        t.play(min(2, t.size))
        cases.append(valid_case(f"valid/names-{label}", t))
    # Lowercase cards are accepted everywhere.
    t = Table(3, seed=12, dealer=2)
    lower = copy.deepcopy(t.events)
    t.play()
    lower = [(typ, _lower_cards(data)) for typ, data in t.events]
    lt = copy.copy(t)
    lt.events = lower
    cases.append(valid_case("valid/lowercase-cards-everywhere", lt, why="Readers accept any letter case"))
    t = Table(3, seed=13, dealer=2, attics=False)
    t.play()
    mixed = [
        (typ, _lower_cards(data) if typ == "gift_opened" and i % 2 else data)
        for i, (typ, data) in enumerate(t.events)
    ]
    mt = copy.copy(t)
    mt.events = mixed
    cases.append(valid_case("valid/lowercase-opened-cards-unseen", mt))
    # In progress: every kind of stopping point.
    t = Table(4, seed=14, dealer=0)
    t.play()
    for cut, label in [
        (1, "only-game-started"),
        (2, "lists-dealt"),
        (3, "attics-dealt"),
        (5, "mid-bringing"),
        (7, "all-brought"),
        (8, "first-open"),
        (t.line - 1, "one-before-last"),
    ]:
        pt = copy.copy(t)
        pt.events = t.events[:cut]
        pt.parties_done = 0  # not over
        c = valid_case(f"valid/in-progress-{label}", pt)
        c.complete, c.scores, c.winners = False, None, None
        cases.append(c)
    # The last line deleted: still a valid log (nothing can tell), and not over.
    pt = copy.copy(t)
    pt.events = t.events[:-1]
    pt.parties_done = 0
    c = valid_case("valid/last-line-deleted", pt)
    c.complete, c.scores, c.winners = False, None, None
    cases.append(c)
    # Notes anywhere after game_started.
    t = Table(3, seed=15, dealer=1, start=False)
    t.raw("game_started", {"players": t.players, "dealer": t.dealer, "ruleset": RULESET, "options": {}})
    t.note("before the lists")
    t.raw("gift_lists_dealt", {"lists": t.lists})
    t.note("before the attics")
    t.raw("attics_dealt", {"attics": t.hands})
    t.note("before bringing")
    for _party in range(t.size):
        order = t.rng.sample(t.players, 3)
        t.bring(order[0])
        t.note("during bringing")
        t.bring(order[1])
        t.bring(order[2])
        while t.party is not None:
            t.move()
            t.note("between moves — “quotes”, \\ and \n newline")
    t.note("after the game")
    cases.append(valid_case("valid/notes-everywhere", t))
    # tie_broken.
    tie = tied_game()
    c = valid_case("valid/tie-not-broken", tie)
    cases.append(c)
    tb = copy.deepcopy(tie)
    tb.break_tie(tb.leaders()[-1])
    cases.append(valid_case("valid/tie-broken", tb))
    tb2 = copy.deepcopy(tie)
    tb2.break_tie(tb2.leaders()[0])
    tb2.void(tb2.line)
    tb2.tie_winner = None
    tb2.break_tie(tb2.leaders()[1])
    cases.append(valid_case("valid/tie-broken-voided-and-rebroken", tb2))
    tb3 = copy.deepcopy(tie)
    tb3.note("speeches")
    tb3.break_tie(tb3.leaders()[0])
    tb3.note("after the speech")
    cases.append(valid_case("valid/tie-broken-between-notes", tb3))
    tb4 = copy.deepcopy(tie)
    tb4.break_tie(tb4.leaders()[0])
    tb4.void(tb4.line)
    tb4.tie_winner = None
    cases.append(valid_case("valid/tie-broken-then-voided", tb4))
    # Notes with every control character and the Unicode line separators, written raw where
    # JSON allows it: one line each all the same ("one JSON object per line").
    t = Table(3, seed=16, dealer=2)
    t.play(1)
    t.note("".join(chr(i) for i in range(32)) + '\x7f\x85\u2028\u2029\x1c\x1d\x1e\ufeff/\\"🎅')
    t.note("line one\u2028line two\u0085line three")
    cases.append(valid_case("valid/note-control-chars-and-line-separators", t))
    # Names whose code-point order differs from UTF-16 order (keys are sorted by code point).
    t = Table(4, players=["\ufb00x", "🎅", "\uff21", "Ann"], seed=17, attics=True)
    t.play(2)
    cases.append(valid_case("valid/names-sorted-by-code-point", t))
    # Game ids at the edges of 1-64 of a-z 0-9 -.
    t = Table(3, seed=18)
    t.play(1)
    cases.append(valid_case("valid/game-id-64-chars", t, game="a" * 63 + "9"))
    cases.append(valid_case("valid/game-id-dash", t, game="-"))
    cases.append(valid_case("valid/game-id-digits", t, game="2026"))
    t = Table(4, seed=19, options={"max_steals_per_gift": 1000, "attic_sizes": {"4": 2}}, steal_p=0.7)
    t.play()
    cases.append(valid_case("valid/house-max-steals-large", t))
    t = Table(3, seed=20, title="🎅" * 200, players=["🎅" * 32, "Ben", "Cat"], attics=False)
    t.play(1)
    cases.append(valid_case("valid/title-200-emoji-name-32-emoji", t))
    # A name written decomposed (NFD) in game_started is the player's name as it stands.
    nfd = "Zoe\u0308"
    for seed in range(200):
        t = Table(3, players=[nfd, "Ben", "Cat"], seed=seed, attics=False, options={"attic_sizes": {"3": 2}})
        t.play()
        if t.winners() == [nfd]:
            break
    nfd_case = valid_case(
        "valid/names-nfd-as-written-wins",
        t,
        why="valid as written; names are read and reported code point for code point (log-format Names)",
    )
    cases.append(nfd_case)
    # Cards in mixed case: upper-case attics, lower-case brings, steals in lower case.
    t = Table(3, seed=21, dealer=2)
    t.finish()
    mixed = []
    for typ, data in t.events:
        if typ == "gift_brought" or (typ == "gift_stolen" and len(mixed) % 2):
            data = _lower_cards(data)
        mixed.append((typ, data))
    mt = copy.copy(t)
    mt.events = mixed
    cases.append(valid_case("valid/cards-mixed-case-with-attics", mt, why="Readers accept any letter case"))
    # Everyone opens the gift they brought themselves ("their own included").
    t = Table(4, seed=22, dealer=3)
    for _ in range(t.size):
        t.bring_all()
        while t.party is not None:
            me = t.mover()
            t.open(
                t.party.face_down[0] if t.party.brought[me] not in t.party.face_down else t.party.brought[me]
            )
    cases.append(valid_case("valid/open-own-gift", t))
    cases.extend(void_cases())
    return cases


def _lower_cards(data: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    if isinstance(data.get("card"), str):
        data["card"] = data["card"].lower()
    if "attics" in data:
        data["attics"] = {p: [c.lower() for c in h] for p, h in data["attics"].items()}
    return data


def void_cases() -> list[Case]:
    cases: list[Case] = []

    def mistake(
        t: Table, wrong: Callable[[Table], None], redo: Callable[[Table], None] | None = None, notes: int = 0
    ) -> None:
        """Record `wrong` (legal), void it (after notes), then play on from before it."""
        snap = t.snapshot()
        wrong(t)
        line = t.line
        for _ in range(notes):
            t.note("hold on")
        t.restore(snap)
        t.void(line)
        if redo is not None:
            redo(t)

    # Voided open, redone differently; the voided card counts as never seen.
    t = Table(3, seed=90, dealer=2)
    t.bring_all(["Ann", "Ben", "Cat"])
    mistake(t, lambda x: x.open(x.party.face_down[0]), lambda x: x.open(x.party.face_down[1]))
    t.finish()
    cases.append(valid_case("valid/void-open-redone", t))
    # Voided then the very same move re-done.
    t = Table(3, seed=91, dealer=2)
    t.bring_all(["Ann", "Ben", "Cat"])
    mistake(t, lambda x: x.open(x.party.face_down[0]), lambda x: x.open(x.party.face_down[0]))
    t.finish()
    cases.append(valid_case("valid/void-then-same-move-redone", t))
    # A note in between the move and its void.
    t = Table(3, seed=92, dealer=2)
    t.bring_all(["Ann", "Ben", "Cat"])
    t.open()
    mistake(t, lambda x: x.steal("Ann"), lambda x: x.open(), notes=2)
    t.finish()
    cases.append(valid_case("valid/void-with-notes-in-between", t))
    # Undo stack: two moves voided one after the other.
    t = Table(3, seed=93, dealer=2)
    t.bring_all(["Ann", "Ben", "Cat"])
    t.open()
    snap = t.snapshot()
    t.steal("Ann")
    l1 = t.line
    t.open()
    l2 = t.line
    t.restore(snap)
    t.void(l2)
    t.void(l1)
    t.finish()
    cases.append(valid_case("valid/void-undo-stack", t))
    # Voided bring, brought again with another card from the attic.
    t = Table(3, seed=94, dealer=2)
    t.begin_party()
    mistake(t, lambda x: x.bring("Ann", x.hands["Ann"][0]), lambda x: x.bring("Ann", x.hands["Ann"][1]))
    t.bring("Ben")
    t.bring("Cat")
    t.finish()
    cases.append(valid_case("valid/void-bring-rebrought", t))
    # Unseen brings: a voided open's card counts as never seen, so it can be opened later.
    t = Table(3, seed=95, dealer=2, attics=False)
    t.bring_all(["Ann", "Ben", "Cat"])
    hidden = t.hands["Ann"][0]  # a card not in play yet: opening it is legal (unseen) but wrong
    snap = t.snapshot()
    t.raw("gift_opened", {"party": 1, "player": "Ann", "card": hidden})
    line = t.line
    t.restore(snap)
    t.void(line, "typed a card that is still in Ann's hand")
    t.finish()
    cases.append(valid_case("valid/void-unseen-card-counts-as-never-seen", t))
    # Voids of the lists and the attics, then dealt again.
    t = Table(3, seed=96, dealer=2, start=False)
    t.raw("game_started", {"players": t.players, "dealer": t.dealer, "ruleset": RULESET, "options": {}})
    t.raw("gift_lists_dealt", {"lists": {p: list(LIST_DECK[i]) for i, p in enumerate(t.players)}})
    t.void(2, "wrong lists")
    t.raw("gift_lists_dealt", {"lists": t.lists})
    t.raw("attics_dealt", {"attics": {p: h[::-1] for p, h in t.hands.items()}})
    t.void(t.line, "wrong attics")
    t.raw("attics_dealt", {"attics": t.hands})
    t.finish()
    cases.append(valid_case("valid/void-lists-and-attics-redealt", t))
    # Void of the game's last open reopens it, then it is played again.
    t = Table(3, seed=97, options={"attic_sizes": {"3": 2}})
    t.play(1)
    t.bring_all()
    while len(t.party.face_down) > 1:
        t.move()
    mistake(t, lambda x: x.open(), lambda x: x.open())
    cases.append(valid_case("valid/void-last-open-before-game-over", t))
    t = Table(3, seed=98, options={"attic_sizes": {"3": 2}})
    t.finish()
    snap_events = t.line
    t.void(snap_events, "last card mistyped")
    t.parties_done -= 1
    for p in t.players:
        t.kept[p].pop()
    c = valid_case(
        "valid/void-after-game-over-reopens",
        t,
        why="note and event_voided may appear anywhere; the last open is the latest in effect",
    )
    cases.append(c)
    # Undo across a party boundary: the next party's brings, then the last open of the party before.
    t = Table(3, seed=99, dealer=2)
    t.play(1)
    t.bring_all()
    brought = [t.line - 2, t.line - 1, t.line]
    snap_brings = brought[::-1]
    for line in snap_brings:
        t.void(line, "brought too early")
    last_open = max(i for i, (typ, _) in enumerate(t.events, 1) if typ == "gift_opened")
    t.void(last_open, "wrong last card")
    c = valid_case("valid/void-undo-across-party-boundary", t)
    c.complete, c.scores, c.winners = False, None, None
    cases.append(c)
    # A voided steal is not counted towards max_steals_per_gift.
    t = Table(3, seed=101, dealer=2, options={"max_steals_per_gift": 1})
    t.bring_all(["Ann", "Ben", "Cat"])
    t.open()
    mistake(t, lambda x: x.steal("Ann"), lambda x: x.steal("Ann"))
    t.finish()
    cases.append(valid_case("valid/void-steal-redone-under-cap-1", t))
    # The open that ended a party (not the last) voided: the party goes on with a steal instead.
    t = Table(3, seed=102, dealer=2, steal_p=0)
    t.play(1)
    t.bring_all()
    t.open()
    t.open()
    mistake(t, lambda x: x.open(), lambda x: x.steal(x.stealable()[0][0]))
    t.finish()
    cases.append(valid_case("valid/void-party-ending-open-then-steal", t))
    # tie_broken voided, the last open voided and redone, the tie broken again.
    tie = tied_game()
    t = copy.deepcopy(tie)
    t.break_tie(t.leaders()[0])
    t.void(t.line)
    t.tie_winner = None
    last_open = max(i for i, (typ, _) in enumerate(t.events, 1) if typ == "gift_opened")
    t.void(last_open)
    t.raw(*t.events[last_open - 1])
    t.break_tie(t.leaders()[-1])
    cases.append(valid_case("valid/void-tie-and-last-open-then-both-again", t))
    # Attics dealt, voided: then the brings may be unseen.
    t = Table(3, seed=100, dealer=2, attics=False)
    t.raw("attics_dealt", {"attics": t.hands})
    t.void(t.line, "we did not look at the hands")
    t.finish()
    cases.append(valid_case("valid/attics-voided-then-unseen-brings", t))
    return cases


def all_cases() -> list[Case]:
    cases = [*integrity_cases(), *formatting_cases(), *schema_cases(), *rules_cases(), *valid_cases()]
    names = [c.name for c in cases]
    dupes = {x for x in names if names.count(x) > 1}
    assert not dupes, dupes
    return cases


__all__ = ["all_cases", "base_envs", "fingerprint", "lines_of", "text_of"]

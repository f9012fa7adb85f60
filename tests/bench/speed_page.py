"""The docs site's speed page (docs/speed.md), written from a benchmark run's own figures: what
was measured, on which machine, under which load, and when. Nothing on it is typed by hand."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

COLUMNS = (
    "measurement",
    "size",
    "time",
    "cpu",
    "throughput",
    "vs floor",
    "peak RSS (N/4 -> N)",
    "target",
    "",
)


# `bench.py --service --write-docs` writes its own section of the page, between these markers;
# the main run's --write-docs keeps it, and the reverse.
SERVICE_BEGIN, SERVICE_END = "<!-- service figures: begin -->", "<!-- service figures: end -->"
TAIL = "How these figures were won"


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def speed_page(
    rows: Sequence[Any],
    header: Sequence[str],
    notes: Sequence[str],
    errors: Sequence[str],
    load_before: tuple[float, float, float] | None,
    load_after: tuple[float, float, float] | None,
    argv: Sequence[str],
    when: datetime | None = None,
) -> str:
    when = when or datetime.now(UTC)
    out = [
        "# Speed and reliability figures",
        "",
        "*Written by `python tests/bench/bench.py --write-docs` on "
        f"{when:%Y-%m-%d %H:%M} UTC; do not edit by hand: run it again.*",
        "",
        f"Command: `{shlex.join(['python', 'tests/bench/bench.py', *argv])}`",
        "",
        "## Machine and load",
        "",
        *[f"- {line.strip()}" for line in header],
        f"- load average (1 / 5 / 15 min) before the measurements: {load_text(load_before)}",
        f"- load average (1 / 5 / 15 min) after them: {load_text(load_after)}",
        "",
        'Figures move with the load: on a shared machine read a difference of 10% as "about the',
        'same". Each figure stands beside the floor (parse, canonicalise and SHA-256 every line of',
        "the same archive, in one process) and, for `we import`, beside its peer, the",
        "`eventsourcing` library's SQLite recorder.",
        "",
        "## Figures",
        "",
        "| " + " | ".join(c or "verdict" for c in COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    for row in rows:
        cells = (
            row.name,
            row.size,
            f"{row.seconds:.2f} s" if row.seconds is not None else "",
            f"{row.cpu:.2f} s" if row.cpu is not None else "",
            row.throughput,
            row.ratio,
            row.memory,
            row.target,
            f"**{row.verdict}**" if row.verdict else "",
        )
        out.append("| " + " | ".join(cell(c) for c in cells) + " |")
    out.append("")
    if notes:
        out += ["## Notes", "", *[f"- {cell(note)}" for note in notes], ""]
    if errors:
        out += ["## Wrong results", "", *[f"- {cell(error)}" for error in errors], ""]
    out += [
        f"{TAIL}, and the measurements of earlier issues with their own dates",
        "and machines, are in [how the speed was won](explanation/speed-history.md); what `we`",
        "promises whatever it is given is in [reliability](explanation/reliability.md).",
        "",
    ]
    return "\n".join(out)


def load_text(figures: tuple[float, float, float] | None) -> str:
    return "unknown" if figures is None else " / ".join(f"{f:.2f}" for f in figures)


def service_section(
    figures: Sequence[str],
    header: Sequence[str],
    load_before: tuple[float, float, float] | None,
    load_after: tuple[float, float, float] | None,
    argv: Sequence[str],
    when: datetime | None = None,
) -> str:
    when = when or datetime.now(UTC)
    return "\n".join(
        [
            SERVICE_BEGIN,
            "## The service under load",
            "",
            f"*Written by `{shlex.join(['python', 'tests/bench/bench.py', *argv])}` on "
            f"{when:%Y-%m-%d %H:%M} UTC.* `we serve` on loopback: 20 games, one writer each posting",
            "legal moves as fast as it can, 10 followers each reading the stream; the client shares",
            "the machine with the server.",
            "",
            *[f"- {line.strip()}" for line in header],
            f"- load average (1 / 5 / 15 min) before: {load_text(load_before)};"
            f" after: {load_text(load_after)}",
            "",
            "```text",
            *figures,
            "```",
            SERVICE_END,
        ]
    )


def kept_service_section(page: Path) -> str | None:
    """The service section of the page as it is, to keep when the rest is written again."""
    try:
        text = page.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    if SERVICE_BEGIN in text and SERVICE_END in text:
        return text[text.index(SERVICE_BEGIN) : text.index(SERVICE_END) + len(SERVICE_END)]
    return None


def with_service_section(page_text: str, section: str | None) -> str:
    """`page_text` with its service section replaced by `section` (added before the closing
    paragraph when it had none)."""
    if section is None:
        return page_text
    if SERVICE_BEGIN in page_text and SERVICE_END in page_text:
        start, end = page_text.index(SERVICE_BEGIN), page_text.index(SERVICE_END) + len(SERVICE_END)
        return page_text[:start] + section + page_text[end:]
    if TAIL in page_text:
        at = page_text.index(TAIL)
        return page_text[:at] + section + "\n\n" + page_text[at:]
    return page_text.rstrip("\n") + "\n\n" + section + "\n"


def write_page(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
    print(f"wrote {path}", file=sys.stderr)

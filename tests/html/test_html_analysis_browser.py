"""The replay page with `--analyse` in a real headless Chromium: pivotal moves marked on the
timeline, and a decision's alternatives shown at its step (hidden at steps without a choice)."""

from __future__ import annotations

import json
import pathlib

from test_html_replay_browser import DESKTOP, browser  # noqa: F401 -- the module's fixture

from service.analysis import Settings, decision_points_of, page_analysis, value_decisions
from service.replay_page import render_html

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_pivotal_moves_and_alternatives_on_the_page(browser, tmp_path):  # noqa: F811
    lines = [json.loads(line) for line in (ROOT / "replays" / "game-night-3p.jsonl").read_text().splitlines()]
    settings = Settings(policy="greedy", rollouts=6, seed="page")
    analysis = page_analysis(value_decisions(decision_points_of(lines), settings), settings, 3)
    ranked = sorted((d["rank"], int(seq)) for seq, d in analysis["decisions"].items() if d["rank"])
    assert ranked, "the sample night should have a decision with a better alternative"
    out = tmp_path / "analysed.html"
    out.write_text(render_html(lines, viewer=None, fingerprint=None, analysis=analysis), encoding="utf-8")
    context = browser.new_context(viewport=DESKTOP, offline=True)
    problems: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.goto(out.as_uri() + "#seq=1")
    page.wait_for_selector("#step-label[data-seq]")
    marked = page.eval_on_selector_all(
        "#timeline li.pivotal", "items => items.map(i => Number(i.dataset.seq))"
    )
    assert marked == sorted(seq for _, seq in ranked)
    assert page.eval_on_selector("#analysis-box", "box => box.hidden")  # event 1 is no decision
    first_rank, first_seq = ranked[0]
    page.click(f"#timeline li[data-seq='{first_seq}'] button")
    assert not page.eval_on_selector("#analysis-box", "box => box.hidden")
    decision = analysis["decisions"][str(first_seq)]
    assert page.inner_text("#analysis-sentence") == decision["sentence"]
    rows = page.eval_on_selector_all(
        "#analysis-box tbody tr", "rows => rows.map(r => [r.className, r.cells[0].textContent])"
    )
    assert len(rows) == len(decision["alternatives"])
    played = [text for cls, text in rows if "played" in cls.split()]
    assert len(played) == 1 and played[0].endswith("(played)")
    assert f"pivotal #{first_rank}" in page.inner_text(f"#timeline li[data-seq='{first_seq}']")
    context.close()
    assert not problems, problems


def test_the_analysed_page_shows_the_final_standings_on_a_desktops_first_screen(browser, tmp_path):  # noqa: F811
    """Opened from disk on a desktop, the page is at the game's end: its final standings are
    what a reader looks for first, so they are on the first screen, whole."""
    import shutil

    lines = [json.loads(line) for line in (ROOT / "replays" / "game-night-3p.jsonl").read_text().splitlines()]
    settings = Settings(policy="greedy", rollouts=6, seed="page")
    analysis = page_analysis(value_decisions(decision_points_of(lines), settings), settings, 3)
    out = tmp_path / "analysed.html"
    out.write_text(render_html(lines, viewer=None, fingerprint=None, analysis=analysis), encoding="utf-8")
    context = browser.new_context(viewport=DESKTOP, offline=True)
    page = context.new_page()
    page.goto(out.as_uri())
    page.wait_for_selector("#step-label[data-seq]")
    assert page.inner_text("#standings-title") == "Final standings"
    box = page.locator("#standings-box").bounding_box()
    print(f"analysed page at {DESKTOP}: standings from y={box['y']:.0f} to {box['y'] + box['height']:.0f}")
    shot = tmp_path / "analysed-desktop.png"
    page.screenshot(path=str(shot))
    artifacts = ROOT / "tests" / "artifacts"
    artifacts.mkdir(exist_ok=True)
    shutil.copy(shot, artifacts / shot.name)
    assert box["y"] + box["height"] <= DESKTOP["height"]
    assert page.evaluate("() => document.documentElement.scrollTop") == 0
    context.close()

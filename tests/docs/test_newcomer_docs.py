"""What a newcomer reads first says what is true (issue 47's newcomer frictions 6, 7, 8 and 14):
the docs home lists every command, the README says which pages are placeholders until the
site is built, every install hint is written one way, and the README names every reason a test
may skip."""

from __future__ import annotations

import re
from pathlib import Path

from cli.main import we

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
HOME = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")


def test_the_docs_home_lists_every_command() -> None:
    table = [line for line in HOME.splitlines() if line.startswith("| `we ")]
    named = {word for line in table for word in re.findall(r"`(?:we )?([a-z]+)", line.split("|")[1])}
    missing = sorted(set(we.list_commands(None)) - named)  # type: ignore[arg-type]
    assert not missing, f"docs/index.md's command table leaves out: {missing}"
    library_row = next(line for line in table if "`stats`" in line)
    assert "PostgreSQL" in library_row  # not "a SQLite game library" only
    assert "ismcts" in next(line for line in table if "`we simulate`" in line)


def test_the_readme_names_the_pages_that_are_placeholders_until_the_site_is_built() -> None:
    generated = [
        page
        for page in sorted((ROOT / "docs").rglob("*.md"))
        if "<!-- generated:" in (text := page.read_text(encoding="utf-8")) or "::: mkdocs-click" in text
    ]
    assert len(generated) >= 3
    claim = next(p for p in README.split("\n\n") if "readable here" in p)
    for page in generated:
        title = page.read_text(encoding="utf-8").splitlines()[0].removeprefix("# ").lower()
        words = {"commands": "command reference", "service api": "service API", "house rules": "house-rule"}
        assert words.get(title, title) in claim, f"{page.name} is generated, but the README's claim omits it"


INSTALL_HINT = re.compile(r"pip install\s+'?([^'\s]*\[[a-z,]+\])'?")


def test_every_install_hint_is_written_the_same_way() -> None:
    """`'white-elephant-we[datasette]'` in one place and `'.[datasette]'` in another: a
    newcomer cannot tell which is right. Every hint installs an extra from the clone, as the
    README installs `we` itself."""
    texts = {"README.md": README}
    for page in (ROOT / "docs").rglob("*.md"):
        texts[str(page.relative_to(ROOT))] = page.read_text(encoding="utf-8")
    for folder in ("cli", "service"):
        for source in (ROOT / folder).rglob("*.py"):
            texts[str(source.relative_to(ROOT))] = source.read_text(encoding="utf-8")
    hints = {(where, target) for where, text in texts.items() for target in INSTALL_HINT.findall(text)}
    assert hints
    wrong = sorted((where, target) for where, target in hints if not target.startswith(".["))
    assert not wrong, wrong


# Each module a test skips without, as the README's skip list names what to install.
SKIP_NAMES = {
    "pyspiel": "the `ai` extra",
    "pettingzoo": "the `ai` extra",
    "axe_playwright_python": "axe-playwright-python",
}


def test_the_readme_names_every_optional_part_a_test_skips_without() -> None:
    skip_paragraph = next(p for p in README.split("\n\n") if "skip" in p and "WE_TEST_PG" in p)
    for module, words in SKIP_NAMES.items():
        assert words in skip_paragraph, f"the README's skip list omits {words} ({module})"
    # Every importorskip in the suite is of the test extra (installed by the README's command)
    # or named above: a new optional part must be added to both.
    test_extra = {"pexpect", "httpx", "schemathesis", "matplotlib", "mkdocs", "material", "mkdocs_click"}
    test_extra |= {"datasette", "playwright"}
    skipped = set()
    for source in (ROOT / "tests").rglob("*.py"):
        for module in re.findall(r"importorskip\(\s*\"([\w.]+)\"", source.read_text(encoding="utf-8")):
            skipped.add(module.split(".")[0])
    assert skipped - test_extra <= set(SKIP_NAMES), skipped - test_extra - set(SKIP_NAMES)

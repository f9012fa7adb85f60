"""The docs site builds with `mkdocs build --strict` (no broken link, no page left out of the
nav), and its pages open in a real Chromium. Screenshots land in tests/artifacts/ to be looked at."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from tests.chromium import launched_chromium

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"

pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install '.[docs]')")
pytest.importorskip("material", reason="mkdocs-material is not installed (pip install '.[docs]')")
pytest.importorskip("mkdocs_click", reason="mkdocs-click is not installed (pip install '.[docs]')")


def build(config_dir: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=config_dir,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = build(ROOT, out)
    assert built.returncode == 0, built.stderr[-3000:]
    return out


def copy_of_the_docs(where: Path) -> Path:
    shutil.copytree(ROOT / "docs", where / "docs")
    shutil.copy(ROOT / "mkdocs.yml", where)
    shutil.copy(ROOT / "docs_hooks.py", where)
    return where


def nav_pages(nav: Any) -> Iterator[str]:
    if isinstance(nav, str):
        yield nav
    elif isinstance(nav, list):
        for item in nav:
            yield from nav_pages(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from nav_pages(value)


def test_the_site_builds_strict_with_every_page(site: Path) -> None:
    for page in ("index.html", "howto/game-night.html", "reference/commands.html", "reference/api.html"):
        assert (site / page).is_file(), page


def test_every_markdown_file_under_docs_is_in_the_nav() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    listed = set(nav_pages(config["nav"]))
    present = {str(path.relative_to(ROOT / "docs")) for path in (ROOT / "docs").rglob("*.md")}
    assert present - listed == set()
    assert listed - present == set()


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    copy = copy_of_the_docs(tmp_path / "copy")
    index = copy / "docs" / "index.md"
    index.write_text(index.read_text() + "\nSee [the missing page](howto/no-such-page.md).\n")
    built = build(copy, tmp_path / "site")
    assert built.returncode != 0
    assert "no-such-page.md" in built.stderr


def test_a_page_left_out_of_the_nav_fails_the_build(tmp_path: Path) -> None:
    copy = copy_of_the_docs(tmp_path / "copy")
    (copy / "docs" / "howto" / "orphan.md").write_text("# Nobody links here\n")
    built = build(copy, tmp_path / "site")
    assert built.returncode != 0
    assert "orphan.md" in built.stderr


def test_the_command_reference_is_generated_from_the_commands(site: Path) -> None:
    """Every command `we` lists, with its options, as the commands say today."""
    from cli.main import COMMANDS

    page = (site / "reference" / "commands.html").read_text()
    for name in COMMANDS:
        assert f'id="we-{name}"' in page, name
    assert "--write-metadata" in page and "--bgstats-link" in page


def test_the_api_page_is_the_app_s_openapi_schema(site: Path) -> None:
    from docs_hooks import openapi_schema

    page = (site / "reference" / "api.html").read_text()
    schema = openapi_schema()
    for path, operations in schema["paths"].items():
        for method in operations:
            assert re.search(rf"<code>{method.upper()} {re.escape(path)}</code>", page), (method, path)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP, as a reader gets it (the theme's search runs in a web worker,
    which a file:// page may not start). The socket listens before the URL is handed out."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("page", "heading", "screenshot"),
    [
        ("index.html", "we: White Elephant (2011)", "docs-home.png"),
        ("howto/game-night.html", "Host a night with a TV and phones", "docs-howto-game-night.png"),
        ("reference/commands.html", "Commands", "docs-command-reference.png"),
    ],
)
def test_pages_open_in_chromium(served: str, browser: Any, page: str, heading: str, screenshot: str) -> None:
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(f"{served}/{page}")
    assert heading in tab.locator("article h1").inner_text()
    # The theme's navigation is there and leads to the how-tos from any page.
    assert tab.locator("nav.md-nav--primary a", has_text="Keep a club's library").count() >= 1
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / screenshot), full_page=False)
    tab.close()
    assert errors == []


def test_every_link_of_the_readme_leads_to_a_file() -> None:
    """The README is not built by mkdocs, so its links into the docs are checked here."""
    readme = (ROOT / "README.md").read_text()
    targets = [t for t in re.findall(r"\]\(([^)\s]+)\)", readme) if "://" not in t]
    assert targets, "the README links into the docs"
    assert [t for t in targets if not (ROOT / t.split("#")[0]).exists()] == []


class _Loads(HTMLParser):
    """The addresses a page loads by itself (not the links a reader may follow)."""

    LOADING: ClassVar[dict[str, str]] = {
        "script": "src",
        "img": "src",
        "iframe": "src",
        "source": "src",
        "audio": "src",
        "video": "src",
    }

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "link" and (values.get("rel") or "") not in ("canonical", "alternate"):
            self.loads.append(values.get("href") or "")
        elif tag in self.LOADING and values.get(self.LOADING[tag]):
            self.loads.append(values[self.LOADING[tag]] or "")


def test_no_page_loads_anything_from_another_host(site: Path) -> None:
    """No font, script, style or image from another host: the docs read offline, and nobody else
    learns who reads them (the theme's Google Fonts are off: theme.font: false)."""
    foreign: list[str] = []
    pages = list(site.rglob("*.html"))
    assert len(pages) > 20
    for page in pages:
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        foreign += [
            f"{page.relative_to(site)}: {url}" for url in parser.loads if re.match(r"(https?:)?//", url)
        ]
    for sheet in site.rglob("*.css"):
        text = sheet.read_text(encoding="utf-8", errors="replace")
        foreign += [
            f"{sheet.relative_to(site)}: {url}"
            for url in re.findall(r"url\(\s*['\"]?((?:https?:)?//[^)'\"]+)", text)
        ]
        foreign += [
            f"{sheet.relative_to(site)}: @import {url}"
            for url in re.findall(r"@import\s+['\"]((?:https?:)?//[^'\"]+)", text)
        ]
    assert foreign == []


DOCS_AXE_PAGES = [
    "index.html",
    "howto/game-night.html",
    "reference/commands.html",
    "service.html",
    "reference/house-rules.html",
]


@pytest.mark.parametrize("page", DOCS_AXE_PAGES)
def test_axe_finds_no_wcag_a_or_aa_violation_on_docs_pages(served: str, browser: Any, page: str) -> None:
    """axe-core over built docs pages on a phone, where wide tables scroll sideways: no WCAG A or
    AA violation (links told apart from the text, a named search dialog, focusable scroll regions)."""
    axe_sync = pytest.importorskip(
        "axe_playwright_python.sync_playwright", reason="axe-playwright-python is missing"
    )
    tab = browser.new_page(viewport={"width": 390, "height": 844})
    tab.goto(f"{served}/{page}")
    tab.wait_for_load_state("networkidle")
    violations = axe_sync.Axe().run(tab).response["violations"]
    tab.close()
    wcag = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa")
    failed = [
        f"{v['id']}: {[n['target'] for n in v['nodes'][:3]]}"
        for v in violations
        if set(v.get("tags", ())) & set(wcag)
    ]
    assert failed == [], page


def test_every_dialog_and_wide_table_of_the_site_is_named(site: Path) -> None:
    """The theme's search dialog has a name, and every table sits in a named region a keyboard
    can focus and scroll (docs_hooks.py)."""
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for dialog in re.findall(r"<[^>]*role=\"dialog\"[^>]*>", text):
            assert "aria-label=" in dialog, (page, dialog)
        tables = text.count("<table")
        regions = len(
            re.findall(r'<div class="table-scroll" role="region" tabindex="0" aria-label="[^"]+">', text)
        )
        assert regions == tables, (page, tables, regions)

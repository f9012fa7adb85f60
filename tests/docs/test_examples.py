"""Every shell and Python example of the README and of docs/ runs, against the sample games in a
scratch folder (HOME and WE_DB there), and says what the text says it says (tests/docs/examples.py
has the conventions). A wrong game id, a search that finds nothing, a flag that is gone: the
example fails here, not in a reader's terminal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.examples import (
    ROOT,
    Example,
    Ran,
    all_examples,
    console_outputs,
    examples_of,
    new_scratch,
    run_example,
)

EXAMPLES = all_examples()


class PageRun:
    """The blocks of one page run in order in one scratch folder; a test for block k runs the
    page's earlier blocks first if this worker has not yet (pytest-xdist may split a page)."""

    def __init__(self, folder: Path, examples: list[Example]) -> None:
        self.scratch = new_scratch(folder)
        self.examples = examples
        self.results: dict[int, Ran] = {}

    def result(self, example: Example) -> Ran:
        for earlier in self.examples:
            if earlier.line > example.line:
                break
            if earlier.not_run is None and earlier.line not in self.results:
                self.results[earlier.line] = run_example(earlier, self.scratch)
        return self.results[example.line]


_PAGES: dict[Path, PageRun] = {}


@pytest.fixture
def page_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> PageRun:
    example: Example = request.param
    if example.page not in _PAGES:
        folder = tmp_path_factory.mktemp(example.page.stem)
        _PAGES[example.page] = PageRun(folder, [e for e in examples_of(example.page)])
    return _PAGES[example.page]


def judge(example: Example, ran: Ran, scratch: Path) -> list[str]:
    """What is wrong with one example's run (empty when it says what the text says)."""
    wrong = []
    if ran.status != example.exit_status:
        wrong.append(f"exit status {ran.status}, the text expects {example.exit_status}")
    expected = [*example.expects, *(console_outputs(example) if example.kind == "console" else [])]
    wrong += [f"{text!r} is not in its output" for text in expected if text not in ran.output]
    wrong += [f"it left no {name}" for name in example.files if not (scratch / name).exists()]
    # A search that finds nothing still exits 0; an example of searching must find something.
    if "No games with" in ran.output and not any("No games with" in text for text in expected):
        wrong.append("its search found no game")
    return wrong


@pytest.mark.parametrize("page_run", EXAMPLES, ids=[example.where for example in EXAMPLES], indirect=True)
def test_example_runs_as_written(page_run: PageRun, request: pytest.FixtureRequest) -> None:
    example: Example = request.node.callspec.params["page_run"]
    if example.not_run is not None:
        pytest.skip(f"{example.where}: {example.not_run}")
    assert example.expects or example.files or example.kind == "console", (
        f"{example.where}: say what it prints (<!-- expect: TEXT -->) or mark it *Not run by the tests: WHY*"
    )
    ran = page_run.result(example)
    wrong = judge(example, ran, page_run.scratch)
    assert not wrong, f"{example.where}: " + "; ".join(wrong) + f"\n--- its output:\n{ran.output[-3000:]}"


def test_the_readme_and_docs_have_examples_and_most_run() -> None:
    """The examples are found at all (a changed fence would silently find none), and a skip is
    the exception: say how many run."""
    run = [example for example in EXAMPLES if example.not_run is None]
    assert len(EXAMPLES) >= 20
    assert len(run) >= 0.8 * len(EXAMPLES), [e.where for e in EXAMPLES if e.not_run]
    assert any(example.page == ROOT / "README.md" for example in run)


def test_a_wrong_game_id_or_an_empty_search_fails_its_example(tmp_path: Path) -> None:
    """The check can fail: the README's old id of the sample night, and a search that finds
    nothing (which exits 0), are both caught, each for what it is."""
    scratch = new_scratch(tmp_path)
    wrong_id = Example(ROOT / "README.md", 1, "shell", "we export game-night-at-maria-s -o copy.jsonl\n")
    wrong_id.files.append("copy.jsonl")
    assert judge(wrong_id, run_example(wrong_id, scratch), scratch) == [
        "exit status 1, the text expects 0",
        "it left no copy.jsonl",
    ]

    empty_search = Example(
        ROOT / "README.md",
        2,
        "shell",
        "we import replays/game-night-3p.jsonl replays/tie-5p.jsonl\nwe games --search fruitcake\n",
    )
    empty_search.expects.append("fruitcake")  # the refusal names the word searched for, too
    ran = run_example(empty_search, scratch)
    assert ran.status == 0, ran.output
    assert judge(empty_search, ran, scratch) == ["its search found no game"]


def test_no_two_pages_write_the_same_file() -> None:
    """A newcomer who follows two pages in one folder must not have the second page's file
    overwrite the first's (issue 47, friction 9: both the analyse and the dispute page wrote
    night.html)."""
    writers: dict[str, set[str]] = {}
    for example in EXAMPLES:
        written = r"--(?:html|out|csv|metadata-out)[ =](\S+\.(?:html|csv|json|jsonl))"
        for name in re.findall(written, example.code):
            writers.setdefault(name, set()).add(str(example.page.relative_to(ROOT)))
    shared = {name: pages for name, pages in writers.items() if len(pages) > 1}
    assert writers and not shared, shared

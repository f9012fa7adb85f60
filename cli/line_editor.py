"""Reading the recorder's lines at a terminal: history kept per log across sittings, editing,
Tab completion of what can be typed now, and a toolbar with the table at a glance.

The recorder decides what to offer (its completions and toolbar, which ask the table); this
module only wires them into prompt_toolkit. While it waits for a line it follows the log: told by
the kernel (inotify, through watchfiles) that the file changed, it asks whether the log grew and,
when it did, has the recorder tell the news above the prompt, and redraws the prompt and toolbar,
within a few tens of milliseconds of the other writer's move. It also asks every FOLLOW_SECONDS
without being told, for a file system that sends no notifications (a network share).
On a pipe none of this is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app, run_in_terminal
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory
from watchfiles import awatch

from cli.terminal import terminal_safe
from eventstore.errors import StoreError

# How often the log is looked at without a notification while the recorder waits for a line.
FOLLOW_SECONDS = 0.4
# Notifications of one append come as a few events: gathered for this long, then one look.
_GATHER_MS = 15
FOLLOW_SECONDS_MS = int(FOLLOW_SECONDS * 1000)


def history_path(log: Path) -> Path:
    """The history of the lines typed for `log`: a hidden file beside it, `.NAME.history`."""
    return log.with_name(f".{log.name}.history")


class KeptHistory(FileHistory):
    """FileHistory that never stops the recording: a history that cannot be written (a
    read-only folder, a full disk) is only a convenience lost."""

    def store_string(self, string: str) -> None:
        with contextlib.suppress(OSError):
            super().store_string(string)

    def load_history_strings(self) -> Iterable[str]:
        with contextlib.suppress(OSError):
            yield from super().load_history_strings()


class WordCompleter(Completer):
    """Offers `choices(words_before)` for what is under the cursor, any case. A choice may be of
    several words (a player called "Ann Marie"): it is matched against the last words typed too,
    so `steal Ann M` and `steal Ann ` complete to `steal Ann Marie`."""

    def __init__(self, choices: Callable[[list[str]], Iterable[str]]) -> None:
        self.choices = choices

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        text = document.text_before_cursor
        words = list(re.finditer(r"\S+", text))
        starts = [w.start() for w in words] + [len(text)]
        offered: set[tuple[str, int]] = set()
        # The phrase being typed starts at some word (or after the last one): try each.
        for at in range(len(words) + 1):
            if at == len(words) and text and not text[-1].isspace():
                continue  # the cursor is inside the last word: it is that word's phrase
            typed = text[starts[at] :]
            folded = " ".join(typed.split()).casefold()
            if folded and typed[-1].isspace():
                folded += " "  # `steal Ann `: the next word of a name, not Ann's own
            for choice in self.choices([w.group() for w in words[:at]]):
                completion = (choice, -len(typed))
                if choice.casefold().startswith(folded) and completion not in offered:
                    offered.add(completion)
                    yield Completion(choice, start_position=-len(typed))


class LineEditor:
    """One prompt_toolkit session for a whole sitting at the table."""

    def __init__(
        self,
        log: Path,
        choices: Callable[[list[str]], Iterable[str]],
        toolbar: Callable[[], str],
        has_news: Callable[[], bool],
        tell_news: Callable[[], object],
    ) -> None:
        self.log = log
        self.has_news = has_news
        self.tell_news = tell_news
        self.session: PromptSession[str] = PromptSession(
            history=KeptHistory(str(history_path(log))),
            completer=WordCompleter(choices),
            complete_while_typing=False,  # Tab asks; typing stays quiet
            # The prompt and the toolbar name players from the log: shown terminal_safe, as all
            # output is (prompt_toolkit would show a C0 control as ^M, but write U+202E as it is).
            bottom_toolbar=lambda: terminal_safe(toolbar()),
        )

    def read(self, prompt: Callable[[], str]) -> str | None:
        """A line, or None at end of input (Ctrl-D). Ctrl-C raises KeyboardInterrupt. The
        prompt is asked again at each redraw: it follows the log."""
        try:
            return self.session.prompt(lambda: terminal_safe(prompt()), pre_run=self._follow)
        except EOFError:
            return None

    def _follow(self) -> None:
        app = get_app()

        async def look() -> None:
            try:
                if self.has_news():
                    await run_in_terminal(self.tell_news)
                    app.invalidate()
            except (OSError, StoreError):
                pass  # the log cannot be read now: the next line made says why

        async def by_polling() -> None:
            while True:
                await asyncio.sleep(FOLLOW_SECONDS)
                await look()

        async def follow() -> None:
            try:
                # yield_on_timeout: a look every FOLLOW_SECONDS too, told or not.
                async for _ in awatch(
                    self.log,
                    debounce=FOLLOW_SECONDS_MS,
                    step=_GATHER_MS,
                    rust_timeout=FOLLOW_SECONDS_MS,
                    yield_on_timeout=True,
                    recursive=False,
                ):
                    await look()
            except (OSError, RuntimeError):
                pass  # no watch could be set (out of inotify watches, the file gone): poll
            await by_polling()

        app.create_background_task(follow())

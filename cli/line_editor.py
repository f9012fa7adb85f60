"""Reading the recorder's lines at a terminal: history kept per log across sittings, editing,
Tab completion of what can be typed now, and a toolbar with the table at a glance.

The recorder decides what to offer (its `completions` and `toolbar` methods, which ask
wecore); this module only wires them into prompt_toolkit. On a pipe none of this is used.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory


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
    """Offers `choices(words_before)` for the word under the cursor, any case."""

    def __init__(self, choices: Callable[[list[str]], Iterable[str]]) -> None:
        self.choices = choices

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        text = document.text_before_cursor
        words = text.split()
        if text and not text[-1].isspace():
            current, before = words[-1], words[:-1]
        else:
            current, before = "", words
        folded = current.casefold()
        for choice in self.choices(before):
            if choice.casefold().startswith(folded):
                yield Completion(choice, start_position=-len(current))


class LineEditor:
    """One prompt_toolkit session for a whole sitting at the table."""

    def __init__(
        self,
        log: Path,
        choices: Callable[[list[str]], Iterable[str]],
        toolbar: Callable[[], str],
    ) -> None:
        self.session: PromptSession[str] = PromptSession(
            history=KeptHistory(str(history_path(log))),
            completer=WordCompleter(choices),
            complete_while_typing=False,  # Tab asks; typing stays quiet
            bottom_toolbar=toolbar,
        )

    def read(self, prompt: str) -> str | None:
        """A line, or None at end of input (Ctrl-D). Ctrl-C raises KeyboardInterrupt."""
        try:
            return self.session.prompt(prompt)
        except EOFError:
            return None

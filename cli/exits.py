"""How a command ends: every error one line on stderr and an exit status, never a traceback;
a reader of stdout that went away (`we audit DIR | head -1`) is not a failure of ours."""

from __future__ import annotations

import codecs
import io
import os
import sys
from typing import Any

import click

from cli.params import ESCAPED_UNDECODABLE, NotUtf8
from cli.terminal import echo, has_undecodable, one_line, shown, shown_path
from eventstore.errors import StoreError
from wecore.errors import WeError

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


class CommandFailed(click.ClickException):
    """A rejected request or an invalid game: one line on stderr, exit 1."""

    exit_code = EXIT_INVALID

    def show(self, file: Any = None) -> None:
        echo(f"we: error: {one_line(shown(self.format_message()))}", err=True)


def run(group: click.Group) -> int:
    """Run the CLI; every error becomes one line on stderr and an exit status, never a traceback."""
    _outlive_a_closed_stdout()
    try:
        # Without standalone mode click hands back a command's `Exit(code)` as the return value.
        code = group.main(prog_name="we", standalone_mode=False)
        if type(code) is int:
            return code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        click.echo("we: aborted", err=True)
        return EXIT_INVALID
    except _NO_ARGS_IS_HELP as exc:
        # Plain `we`: the help is what was asked for.
        echo(exc.ctx.get_help() if exc.ctx is not None else "")
        return EXIT_OK
    except click.UsageError as exc:
        # One line, like every other error, with where to look instead of the whole usage text.
        command = exc.ctx.command_path if exc.ctx is not None else _command_typed(group)
        message = exc.format_message()
        undecodable = has_undecodable(message) or ESCAPED_UNDECODABLE in message
        if isinstance(exc, click.BadParameter) and undecodable:
            message = NotUtf8("", param=exc.param).format_message()  # "'\udcff' is not a valid integer"
        echo(f"{command}: error: {one_line(message)} (see '{command} --help')", err=True)
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except (WeError, StoreError) as exc:
        echo(f"we: error: {one_line(shown(str(exc)))}", err=True)
        return EXIT_INVALID
    except BrokenPipeError:
        return _reader_went_away()
    except SystemExit as exc:
        # click turns a broken pipe into exit 1, which here means "invalid game". It leaves
        # stdout wrapped in its PacifyFlushWrapper when it does (the name varies by version).
        if isinstance(exc.__context__, BrokenPipeError) or "PacifyFlushWrapper" in type(sys.stdout).__name__:
            return _reader_went_away()
        raise
    except StdoutUnwritable as exc:
        echo(f"we: error: cannot write the output: {exc.strerror or exc}", err=True)
        return EXIT_INVALID
    except OSError as exc:
        where = f": {shown_path(shown(str(exc.filename)))}" if exc.filename else ""
        echo(f"we: error: {one_line(str(exc.strerror or exc) + where)}", err=True)
        return EXIT_INVALID
    except KeyboardInterrupt:
        click.echo("we: interrupted", err=True)
        return 130
    return EXIT_OK


class _StdoutThatOutlivesItsReader(io.RawIOBase):
    """File descriptor 1, where a write into a pipe whose reader has gone (`we audit DIR | head
    -1`) points the descriptor at /dev/null and carries on. The command then ends as it would
    have, with its own exit status: under `set -o pipefail` a failed audit must still say 1,
    not whatever the write happened to interrupt."""

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return 1

    def isatty(self) -> bool:
        return os.isatty(1)

    def write(self, data: Any) -> int:
        view = memoryview(data)
        try:
            return os.write(1, view)
        except BrokenPipeError:
            _point_stdout_at_nothing()
            return len(view)
        except OSError as exc:
            # A full disk (`> /dev/full`) or an I/O error: the output is lost, and saying so once
            # is all that can be done. What is still buffered goes nowhere, so that Python does
            # not fail again at exit with a traceback.
            _point_stdout_at_nothing()
            raise StdoutUnwritable(exc.errno, exc.strerror) from None


class StdoutUnwritable(OSError):
    """stdout refused a write for a reason other than its reader leaving."""


def _point_stdout_at_nothing() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    if devnull != 1:
        os.dup2(devnull, 1)
        os.close(devnull)


def _outlive_a_closed_stdout() -> None:
    if sys.stdout is None:
        # Started with stdout closed (`we audit DIR >&-`): as for a reader that has gone, the
        # output goes nowhere and the command ends with its own exit status.
        _point_stdout_at_nothing()
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(_StdoutThatOutlivesItsReader()), encoding="utf-8")
        return
    stdout = sys.stdout
    try:
        if stdout.fileno() != 1:
            return
    except (OSError, ValueError, AttributeError):
        return  # not the process's own stdout (a test runner's): leave it be
    stdout.flush()
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_StdoutThatOutlivesItsReader()),
        encoding=stdout.encoding,
        errors=_unfailing(stdout.errors),
        line_buffering=bool(stdout.line_buffering),
        write_through=getattr(stdout, "write_through", False),
    )


def _unfailing(errors: str | None) -> str:
    # surrogateescape is what Python picks in the C locale without UTF-8 mode: it fails too on
    # any character beyond ASCII.
    return _SHOWN_PLAINLY if errors in (None, "strict", "surrogateescape") else errors


# For a stdout that cannot hold every character, our own punctuation in a plain form. Anything
# else, a player's "Zoë" or "O’Brien", is written as Python's stderr writes it, "Zo\\xeb":
# that keeps "Zoë" and "Zoé", "O’Brien" and "O'Brien" apart, where "?" would not. A dash or
# a dot between spaces is ours (" — winner", "party 1 · Ann>"); in a name (Gal·la) it stays.
_SHOWN_PLAINLY = "we-plainly"
_PLAIN_FORMS = {"\u201c": '"', "\u201d": '"', "\u2500": "-", "\u2192": "->", "\u2190": "<-", "\u00b1": "+/-"}
_PLAIN_BETWEEN_SPACES = {"\u2014": "-", "\u00b7": "-"}


def _plainly(error: UnicodeError) -> tuple[str, int]:
    """What a stdout that cannot hold every character (PYTHONIOENCODING=ascii, a Latin-1
    terminal) gets instead, rather than a traceback."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object
    shown_instead = []
    for at in range(error.start, error.end):
        character = text[at]
        plain = _PLAIN_FORMS.get(character)
        if plain is None and text[at - 1 : at] == " " == text[at + 1 : at + 2]:
            plain = _PLAIN_BETWEEN_SPACES.get(character)
        if plain is None and has_undecodable(character):
            plain = shown(character)  # a byte that was not UTF-8, as messages show it: \\xff
        if plain is None:
            plain = character.encode("ascii", "backslashreplace").decode("ascii")
        shown_instead.append(plain)
    return "".join(shown_instead), error.end


codecs.register_error(_SHOWN_PLAINLY, _plainly)


# click 8.2+ raises this for a group called with nothing; older clicks print help themselves.
_NO_ARGS_IS_HELP: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _command_typed(group: click.Group) -> str:
    """The command path the arguments name ("we stats", "we season verify"), for an error click
    raised without a context (an option missing its value), so that it points at that
    command's help rather than at `we --help`."""
    path = [group.name or "we"]
    command: click.Command = group
    ctx = click.Context(group, info_name=path[0])
    for arg in sys.argv[1:]:
        if not isinstance(command, click.Group) or arg.startswith("-"):
            break
        try:
            sub = command.get_command(ctx, arg)
        except Exception:  # a lazily loaded command that fails to load: the plain name will do
            sub = None
        if sub is None:
            break
        command, ctx = sub, click.Context(sub, parent=ctx, info_name=arg)
        path.append(arg)
    return " ".join(path)


def _reader_went_away() -> int:
    """Output piped into `head` and closed: not a failure of ours. Point stdout at /dev/null so
    Python does not complain about it at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_OK

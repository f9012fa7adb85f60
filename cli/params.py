"""How `we` reads its arguments: a GAME or FILE as any bytes the file system allows, text that
must be UTF-8 (checked as it is parsed), and --db, a library's file or URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from cli.terminal import has_undecodable
from eventstore.libraries import LibraryRef, is_library_url

# --- arguments that are not UTF-8 ------------------------------------------------------------
# Python hands an argument's undecodable bytes over as lone surrogates ("surrogateescape"):
# a path keeps working with them, but text (a name, a title, a seed) would fail later, deep
# in the JSON encoder or a hash. So every parameter that is not a path is checked as it is
# parsed, in one place (LazyGroup.get_command calls refuse_undecodable_text on each command).

NOT_UTF8 = "not valid UTF-8 (is the terminal set to UTF-8?)"
ESCAPED_UNDECODABLE = "\\udc"  # how click's messages quote such a value: with repr()


class NotUtf8(click.BadParameter):
    def format_message(self) -> str:
        return f"{parameter_name(self.param)}: {NOT_UTF8}"


def parameter_name(param: click.Parameter | None) -> str:
    if param is None:
        return "an argument"
    if isinstance(param, click.Option) and param.opts:
        return max(param.opts, key=len)  # --players, not -p
    return param.human_readable_name


def refuse_undecodable_text(command: click.Command) -> click.Command:
    """Make every parameter of `command` that is text, not a path, refuse a value that was not
    UTF-8 (once per command object: commands are module-level and outlive a call in tests)."""
    if getattr(command, "_text_checked", False):
        return command
    for param in command.params:
        if isinstance(param.type, click.Path | click.File | LibraryParam | FileNameParam):
            continue
        param.callback = _checking(param.callback)
    command._text_checked = True  # type: ignore[attr-defined]
    return command


def _checking(callback: Any) -> Any:
    def check(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if has_undecodable(value):
            raise NotUtf8("", ctx=ctx, param=param)
        return value if callback is None else callback(ctx, param, value)

    return check


class FileNameParam(click.ParamType):
    """A GAME or FILE argument: a path (any bytes the file system allows) or a game id."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return value


FILE_NAME = FileNameParam()


class LibraryParam(click.ParamType):
    """--db: a PostgreSQL URL as it is, anything else a SQLite file's path."""

    name = "PATH|URL"
    _file = click.Path(dir_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> LibraryRef:
        if is_library_url(value):
            return str(value)
        path = self._file.convert(value, param, ctx)
        assert isinstance(path, Path)  # path_type=Path
        return path


db_option = click.option(
    "--db",
    "db_path",
    type=LibraryParam(),
    default=None,
    help="Game library: a SQLite file or a postgresql:// URL "
    "(default: $WE_DB or ~/.local/share/we/games.db).",
)


def library_path(db_path: LibraryRef | None) -> LibraryRef:
    """--db as given, else $WE_DB (a file or a URL), else the default file."""
    from eventstore.libraries import library_location

    return library_location(db_path)


def jobs_option(does: str) -> Any:
    """`--jobs/-j N`, the same on every command that shares its work among processes: 0 (the
    default) one per CPU, at most 4 per CPU and never more than there is work for (see
    cli.batch.worker_count); `does` says what the processes do and what does not depend on it."""
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=0),
        default=0,
        show_default=True,
        help=f"{does} (0: one per CPU; at most 4 per CPU, and no more than there is work for; 1: "
        "all in this process).",
    )

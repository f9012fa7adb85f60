"""What every command shares: error handling, opening a GAME, and the audit pipeline."""

from __future__ import annotations

import io
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from eventstore.errors import StoreError, file_kind
from wecore.errors import WeError, clipped
from wecore.errors import shown as quoted

if TYPE_CHECKING:
    from eventstore.persistence import GameLibrary
    from service.checking import GameReport, GameSource


EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


class CommandFailed(click.ClickException):
    """A rejected request or an invalid game: one line on stderr, exit 1."""

    exit_code = EXIT_INVALID

    def show(self, file: Any = None) -> None:
        echo(f"we: error: {one_line(shown(self.format_message()))}", err=True)


# --- what reaches a terminal --------------------------------------------------------------

# What a log (or a library, or an argument) may carry that a terminal would act on instead of
# showing: C0 controls but the newline, DEL, C1 controls (CSI is one of them), line and
# paragraph separators, and the bidi controls that make text read in another order than it is
# stored (U+202E turns "gpj.exe" into "exe.jpg").
_BIDI_CONTROLS = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_BIDI_AND_SEPARATORS = (*_BIDI_CONTROLS, 0x2028, 0x2029)
_SHOWN_AS_ESCAPE = {
    **{code: f"\\x{code:02x}" for code in [*range(0x00, 0x20), *range(0x7F, 0xA0)] if code != 0x0A},
    0x09: "\\t",
    0x0D: "\\r",
    **{code: f"\\u{code:04x}" for code in _BIDI_AND_SEPARATORS},
    # A file name's bytes that are not UTF-8 reach us as lone surrogates (U+DC80-U+DCFF, see
    # `shown`): written as the bytes they stand for, `bad\xff.jsonl`, not as the terminal's
    # guess (a U+FFFD in place of each, which says nothing of which file is meant).
    **{code: f"\\x{code - 0xDC00:02x}" for code in range(0xDC80, 0xDD00)},
}
_ONE_LINE = {**_SHOWN_AS_ESCAPE, 0x0A: "\\n"}


def terminal_safe(text: str) -> str:
    """`text` with every character a terminal would act on written as its escape (`\\x1b`,
    `\\u202e`), and a file name's bytes that are not UTF-8 as theirs (`\\xff`); newlines stay.
    Everything `we` prints for people goes through here (rich output in cli.render, plain
    lines through `echo`), so a hostile log cannot clear the screen, move the cursor or
    overwrite a FAILED line. JSON output is exact instead."""
    return text.translate(_SHOWN_AS_ESCAPE)


def one_line(text: str) -> str:
    """terminal_safe, with newlines escaped too: an error message is one line."""
    return text.translate(_ONE_LINE)


# In JSON, C0 controls are escaped by any encoder; these pass raw as UTF-8 unless asked.
_JSON_RAW = [*range(0x7F, 0xA0), *_BIDI_AND_SEPARATORS]
_JSON_ESCAPES = {code: f"\\u{code:04x}" for code in _JSON_RAW}
_DEL = 0x7F
_JSON_RAW_BYTES = re.compile("|".join(re.escape(chr(code)) for code in _JSON_RAW).encode())


def json_text(data: Any) -> str:
    """`data` as indented JSON for stdout: exact (it parses back to the same values), with the
    characters a terminal would act on written as \\u escapes, as C0 controls always are."""
    import json  # only where JSON is printed: every command imports this module

    return json.dumps(data, ensure_ascii=False, indent=2).translate(_JSON_ESCAPES)


def json_bytes_safe(encoded: bytes) -> bytes:
    """json_text's escaping for JSON already encoded (orjson): the same value, terminal-safe."""
    # Every character escaped is DEL or beyond ASCII: most lines are known safe by two C scans.
    if (encoded.isascii() and _DEL not in encoded) or not _JSON_RAW_BYTES.search(encoded):
        return encoded
    return _JSON_RAW_BYTES.sub(lambda m: f"\\u{ord(m.group().decode()):04x}".encode(), encoded)


def shown_path(text: str) -> str:
    """A path as given, for a message: whole, unless it is longer than any useful path (a
    100,000-character argument is cut as other values are, at a length a real path fits in).
    Bytes that are not UTF-8 are shown as `\\xff` (by `shown`, and by terminal_safe for any
    output that names the path without it)."""
    return clipped(shown(text), PATH_SHOWN_LENGTH)


PATH_SHOWN_LENGTH = 300


def echo(message: str = "", err: bool = False, nl: bool = True) -> None:
    """click.echo for text meant for people (never JSON), made terminal_safe."""
    click.echo(terminal_safe(message), err=err, nl=nl)


# --- arguments that are not UTF-8 ------------------------------------------------------------
# Python hands an argument's undecodable bytes over as lone surrogates ("surrogateescape"):
# a path keeps working with them, but text (a name, a title, a seed) would fail later, deep
# in the JSON encoder or a hash. So every parameter that is not a path is checked as it is
# parsed, in one place (LazyGroup.get_command calls refuse_undecodable_text on each command).

NOT_UTF8 = "not valid UTF-8 (is the terminal set to UTF-8?)"
_ESCAPED_UNDECODABLE = "\\udc"  # how click's messages quote such a value: with repr()


def has_undecodable(value: object) -> bool:
    if isinstance(value, str):
        return any("\udc80" <= c <= "\udcff" for c in value)
    if isinstance(value, tuple | list):
        return any(has_undecodable(v) for v in value)
    return False


def shown(text: str) -> str:
    """`text` for a message: bytes that were not UTF-8 (a file name's) as \\xff escapes."""
    if not has_undecodable(text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


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
        command = exc.ctx.command_path if exc.ctx is not None else "we"
        message = exc.format_message()
        undecodable = has_undecodable(message) or _ESCAPED_UNDECODABLE in message
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
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.close(devnull)
            return len(view)


def _outlive_a_closed_stdout() -> None:
    stdout = sys.stdout
    try:
        if stdout is None or stdout.fileno() != 1:
            return
    except (OSError, ValueError, AttributeError):
        return  # not the process's own stdout (a test runner's): leave it be
    stdout.flush()
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_StdoutThatOutlivesItsReader()),
        encoding=stdout.encoding,
        errors=stdout.errors,
        line_buffering=stdout.line_buffering,
        write_through=getattr(stdout, "write_through", False),
    )


# click 8.2+ raises this for a group called with nothing; older clicks print help themselves.
_NO_ARGS_IS_HELP: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _reader_went_away() -> int:
    """Output piped into `head` and closed: not a failure of ours. Point stdout at /dev/null so
    Python does not complain about it at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_OK


# Where a library is: a SQLite file, or a PostgreSQL URL (postgresql://...).
LibraryRef = Path | str


def is_library_url(text: object) -> bool:
    return isinstance(text, str) and text.startswith(("postgresql://", "postgres://"))


class LibraryParam(click.ParamType):
    """--db: a PostgreSQL URL as it is, anything else a SQLite file's path."""

    name = "PATH|URL"
    _file = click.Path(dir_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> LibraryRef:
        if is_library_url(value):
            return str(value)
        return self._file.convert(value, param, ctx)  # type: ignore[no-any-return]


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
    if db_path is not None:
        return db_path
    env = os.environ.get("WE_DB")
    if is_library_url(env):
        return str(env)
    from eventstore.sqlite import default_db_path

    return default_db_path()


def library_name(db: LibraryRef) -> str:
    """How messages name a library: its path, or its URL without the password."""
    if isinstance(db, str):
        from eventstore.postgres import display_url

        return display_url(db)
    return str(db)


def library_exists(db: LibraryRef) -> bool:
    """Whether there is a library to read: a file, or a database holding the tables (asked
    without creating them: commands that only read leave an empty database alone)."""
    if db in _open_libraries:
        return True  # once it is open it exists: no stat or query per game id
    if isinstance(db, str):
        from eventstore.postgres import has_library

        return has_library(db)
    return library_file_exists(db)


def library_file_exists(path: Path) -> bool:
    """Whether `path` holds a library, or something to refuse as one: an empty file does not
    (a read-only command leaves it empty), unless its -wal file holds what it has."""
    try:
        if path.stat().st_size > 0:
            return True
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True  # there, but cannot be looked at: opening it says why
    try:
        return Path(f"{path}-wal").stat().st_size > 0
    except OSError:
        return False


def resolve_game(text: str, db_path: LibraryRef | None) -> GameSource:
    """A GAME argument: an existing file first, then a game id in the library."""
    return game_source(text, db_path, path_mode(text))


def game_source(text: str, db_path: LibraryRef | None, mode: int | None) -> GameSource:
    """resolve_game for an argument already stat'ed (`mode`: its st_mode, None if nothing is
    there), so that auditing twenty thousand game ids costs one stat each, not four."""
    # Imported here, not at the top: `we --help` and commands that read no game skip it.
    from service.checking import GameSource

    if mode is not None and stat.S_ISDIR(mode):
        raise CommandFailed(f"{shown_path(text)} is a directory, not a game log")
    if mode is not None:
        # A FIFO, socket or device is named for what it is by the reader ("not a regular
        # file"), as import, repair and record name it; never "no such file".
        return GameSource(label=text, path=Path(text))
    if os.path.islink(text):
        target = shown_path(os.readlink(text))
        raise CommandFailed(f"{shown_path(text)}: a broken symbolic link (to {target}), so not a log")
    from eventstore.envelope import valid_game_id

    if valid_game_id(text):
        db = library_path(db_path)
        if library_exists(db) and open_library(db).has_game(text):
            return GameSource(label=text, db_path=db, game_id=text)
        where = library_name(db)
        raise CommandFailed(f"no game {quoted(text)}: not a file, and not a game id in the library {where}")
    raise CommandFailed(f"no such file: {shown_path(text)}")


def path_mode(text: str) -> int | None:
    """The st_mode of what `text` names (following links), or None if nothing is there;
    CommandFailed if it cannot be looked at (no permission, a loop of links)."""
    if not text:
        return None  # not the current directory, which Path("") would be
    try:
        return os.stat(Path(text)).st_mode  # Path: "log.jsonl/" names the file, as it always did
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return None
    except OSError as exc:
        raise CommandFailed(f"{shown_path(text)}: cannot read: {exc.strerror or exc}") from None


# --jobs is capped at this many worker processes per CPU: beyond it they only queue for the
# same cores, and each costs its own memory (--jobs 100000 once started 446 of them, 12 GB).
JOBS_PER_CPU = 4


def worker_count(jobs: int, tasks: int) -> int:
    """How many processes --jobs `jobs` starts for `tasks` pieces of work: 0 means one per
    CPU; never more than there is work for, nor more than JOBS_PER_CPU per CPU."""
    cpus = os.cpu_count() or 1
    wanted = cpus if jobs == 0 else jobs
    return max(1, min(wanted, tasks, JOBS_PER_CPU * cpus))


@contextmanager
def collector_settled_for_a_batch() -> Iterator[None]:
    """While a command works through thousands of games: what was loaded before stays put, so
    the cyclic garbage collector stops re-scanning it, and young-generation collections come
    every 50,000 allocations instead of 700. Folding makes no cycles (states only point back
    to older states), so this changes how often the collector runs, not what it frees; an
    import runs about 5% faster. Restored afterwards (tests run commands in-process)."""
    import gc

    thresholds = gc.get_threshold()
    # Only when nothing is frozen yet: unfreezing afterwards would also release what a caller
    # had frozen for its own reasons.
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if freeze:
            gc.unfreeze()


def logs_in_directory(directory: Path) -> list[Path]:
    """Every *.jsonl entry in `directory` that is not a directory, in name order. scandir knows
    which entries are directories without a stat each: a club's archive holds tens of
    thousands of games. A FIFO or device named *.jsonl is listed too, so that its reader
    reports it ("not a regular file") instead of passing it over in silence."""
    with os.scandir(directory) as entries:
        names = sorted(e.name for e in entries if e.name.endswith(".jsonl") and not _is_dir(e))
    return [directory / name for name in names]


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False  # cannot tell: list it, and its reader will say what is wrong


def _library_rows(source: GameSource) -> Iterator[dict[str, Any]]:
    return open_library(source.db_path).log(source.game_id).rows()  # type: ignore[arg-type]


_open_libraries: dict[LibraryRef, GameLibrary] = {}
# Connections a forked worker (audit --jobs) inherited: its parent's to use, never the child's,
# so they are kept unclosed rather than let go (closing would end the parent's session).
_inherited_libraries: list[GameLibrary] = []


def _forget_parents_libraries() -> None:
    _inherited_libraries.extend(_open_libraries.values())
    _open_libraries.clear()


os.register_at_fork(after_in_child=_forget_parents_libraries)


def open_library(path: LibraryRef) -> GameLibrary:
    """One connection per library for the whole command: auditing a thousand games by id
    should not connect a thousand times."""
    library = _open_libraries.get(path)
    if library is None:
        # Every command that reaches a library through a GAME argument only reads it.
        library = _open_libraries[path] = connect_library(path, read_only=True)
    return library


def connect_library(path: LibraryRef, read_only: bool = False) -> GameLibrary:
    """A new connection to the library at `path`, a SQLite file or a PostgreSQL URL (every
    command opens libraries this way), saying so on stderr if an old library is upgraded first.
    `read_only` for a command that only reads: it creates, upgrades and changes nothing."""
    if isinstance(path, str):
        from eventstore.postgres import Library as PostgresLibrary

        return PostgresLibrary(path, read_only=read_only)
    from eventstore.sqlite import Library

    return Library(path, on_upgrade=lambda message: echo(f"we: {message}", err=True), read_only=read_only)


def check_game(source: GameSource, keep_envelopes: bool = False, keep_lines: bool = False) -> GameReport:
    """service.checking.check_game, reading library games through this command's connection."""
    from service.checking import check_game as _check_game

    return _check_game(source, keep_envelopes, keep_lines, _library_rows)


def load_game(text: str, db_path: LibraryRef | None, keep_envelopes: bool = True) -> GameReport:
    return check_game(resolve_game(text, db_path), keep_envelopes=keep_envelopes)


def require_valid(report: GameReport) -> GameReport:
    """Commands that build on a game refuse a broken one, naming its first problem."""
    if report.problems:
        first = report.problems[0]
        others = len(report.problems) - 1 + report.problems_omitted
        more = f" (and {others:,} more; see `we audit`)" if others else ""
        raise CommandFailed(f"{report.source}: line {first.line}: {first.kind}: {first.message}{more}")
    return report


# --- outputs ---------------------------------------------------------------------------


def refuse_unsafe_output(
    target: Path, force: bool, inputs: Iterable[Path | None] = (), exists: str | None = None
) -> bool:
    """Check that writing `target` can replace nothing it must not: an input of the same
    command (compared by device and inode, so another name for it is caught too), a FIFO, a
    device, a directory or a symbolic link (whose target would be what changes) are refused
    with or without --force; an existing regular file only with --force. True if `target`
    exists (and may be replaced)."""
    if str(target) == "-":
        # Where `-` would mean standard output the command says so and never gets here.
        raise CommandFailed("`-` (standard output) is not taken here: name a file to write")
    refuse_missing_directory(target)
    try:
        link = os.lstat(target)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise CommandFailed(f"{target}: cannot look at it: {exc.strerror or exc}") from None
    for source in inputs:
        if source is None:
            continue
        try:
            seen = os.stat(source)
        except OSError:
            continue
        try:
            same = os.path.samestat(os.stat(target), seen)
        except OSError:
            same = False
        if same:
            what = "the library" if _is_library(source) else "the game"
            also = "" if os.path.abspath(source) == os.path.abspath(target) else f" ({source})"
            raise CommandFailed(
                f"{target} is {what} this command reads{also}: refusing to write over it, --force or not"
            )
    if stat.S_ISLNK(link.st_mode):
        raise CommandFailed(f"{target} is a symbolic link: refusing to replace it (name a plain file)")
    if not stat.S_ISREG(link.st_mode):
        kind = file_kind(link.st_mode)
        raise CommandFailed(f"{target} is {kind}, not a regular file: refusing to write to it")
    if not force:
        raise CommandFailed(exists or f"{target} already exists; use --force to replace it")
    return True


def refuse_missing_directory(target: Path) -> None:
    """CommandFailed naming the directory `target` would go in, if there is none by that name."""
    folder = target.parent
    if not os.path.isdir(folder):
        missing = "does not exist" if not os.path.lexists(folder) else "is not a directory"
        raise CommandFailed(f"cannot write {target}: the directory {folder} {missing}")


def _is_library(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def temporary_beside(target: Path) -> Path:
    """A new, empty file with a name of its own in `target`'s directory, for writing a whole
    output before renaming it into place (never a name a user's file could have)."""
    import tempfile

    fd, name = tempfile.mkstemp(prefix=f".{target.name[:100]}.", suffix=".tmp", dir=target.parent)
    try:
        # mkstemp makes it 0600; an output (a page to share, a plot, a log) gets the mode any
        # new file of the user's gets: 0666 less the umask.
        os.fchmod(fd, 0o666 & ~_umask())
    finally:
        os.close(fd)
    return Path(name)


def _umask() -> int:
    mask = os.umask(0o022)  # the only way to read it is to set it: put it straight back
    os.umask(mask)
    return mask


def put_in_place(temporary: Path, target: Path, replace: bool) -> None:
    """Rename a finished temporary file to `target`: over it if `replace` (checked by
    refuse_unsafe_output), else only if the name is still free. A replaced file keeps its
    permissions, as `cp` and `>` keep them: a user who made a page private (or shared) has
    it stay so when it is written again."""
    if replace:
        with suppress(FileNotFoundError):  # gone meanwhile: it gets the mode of a new file
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temporary, target)
        return
    try:
        os.link(temporary, target)
    except FileExistsError:
        raise CommandFailed(f"{target} already exists; use --force to replace it") from None
    finally:
        temporary.unlink(missing_ok=True)

"""Writing an output file (a page, a plot, an exported log) without replacing what it must not:
an input, a FIFO, a device, a link; whole, through a temporary file renamed into place."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from cli.exits import CommandFailed
from eventstore.errors import file_kind
from eventstore.libraries import is_sqlite_file


def refuse_unsafe_output(
    target: Path, force: bool, inputs: Iterable[Path | str | None] = (), exists: str | None = None
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
            what = "the library" if is_sqlite_file(source) else "the game"
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

"""`we datasette LIBRARY`: the game library in Datasette, with its labels and canned queries."""

from __future__ import annotations

from pathlib import Path

import click

from cli.exits import CommandFailed
from cli.params import LibraryParam
from cli.terminal import echo


@click.command()
@click.argument("library", type=LibraryParam())
@click.option("--host", default="127.0.0.1", show_default=True, help="Address Datasette listens on.")
@click.option("--port", default=8001, show_default=True, type=click.IntRange(0, 65535), help="Its port.")
@click.option(
    "--write-metadata",
    "metadata_out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Only write the metadata (labels, canned queries) for this library to FILE, for "
    "`datasette LIBRARY --metadata FILE`; start nothing.",
)
def datasette(library: Path | str, host: str, port: int, metadata_out: Path | None) -> None:
    """Open a game library in Datasette, with labels and canned queries (wins per player, notes,
    one game's events, one player's games) written for the library's own file name.

    Needs Datasette: python -m pip install '.[datasette]' in a clone of we (or just: python -m pip
    install datasette). Ctrl-C stops it.
    """
    from service.datasette import DatasetteRefused, checked_library, serve_library, write_metadata

    try:
        path = checked_library(library)
        if metadata_out is not None:
            try:
                write_metadata(path, metadata_out)
            except OSError as e:
                raise CommandFailed(f"cannot write {metadata_out}: {e.strerror}") from None
            echo(f"Wrote {metadata_out}: run `datasette {path} --metadata {metadata_out}`")
            return
        status = serve_library(path, host, port)
    except DatasetteRefused as e:
        raise CommandFailed(str(e)) from None
    if status not in (0, -2):  # -2: stopped by Ctrl-C, as asked
        raise CommandFailed(f"Datasette stopped with exit status {status}")

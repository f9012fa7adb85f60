"""`we serve GAMES_DIR`: the games of a folder on the local network (docs/service.md)."""

from __future__ import annotations

import gc
import socket
import sys
from pathlib import Path
from types import FrameType

import click

from cli.exits import CommandFailed
from cli.terminal import echo
from eventstore.libraries import is_library_url


def lan_address() -> str | None:
    """This machine's address on the local network, from its interfaces (nothing is sent)."""
    try:
        import array
        import fcntl
        import struct

        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            for _, name in socket.if_nameindex():
                if name == "lo":
                    continue
                packed = struct.pack("256s", name.encode()[:15])
                try:
                    answer = fcntl.ioctl(probe.fileno(), 0x8915, packed)  # SIOCGIFADDR
                except OSError:
                    continue
                address = socket.inet_ntoa(array.array("B", answer[20:24]).tobytes())
                if not address.startswith("127."):
                    return address
        finally:
            probe.close()
    except (OSError, ImportError):
        pass
    return None


def _shortened(text: str, keep: int = 80) -> str:
    return text if len(text) <= keep else text[: keep - 3] + "..."


@click.command()
@click.argument("games_dir", type=click.Path(file_okay=False, path_type=Path), required=False)
@click.option(
    "--db",
    "db_url",
    default=None,
    metavar="URL",
    help="Serve the games of a PostgreSQL library (postgresql://...) instead of a folder; "
    "several servers may share one.",
)
@click.option("--host", default=None, help="Address to listen on (default 127.0.0.1; with --lan, all).")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="0: any free port."
)
@click.option("--lan", is_flag=True, help="Listen on every interface, so phones on this network can join.")
@click.option(
    "--name",
    "names",
    multiple=True,
    metavar="NAME",
    help="A host name the server also answers to (a LAN name such as party.local); repeatable. "
    "Requests for any other name are refused (421).",
)
@click.option(
    "--streams-per-key",
    type=click.IntRange(1, 100_000),
    default=4,
    show_default=True,
    help="Live streams one seat's or the table's key may hold; a newer one makes the oldest give way.",
)
@click.option(
    "--streams-per-address",
    type=click.IntRange(1, 100_000),
    default=32,
    show_default=True,
    help="Live streams one client address may hold (each open table or seat page is one); "
    "raise it for a convention whose phones share one address (NAT).",
)
@click.option(
    "--max-games",
    type=click.IntRange(0, 1_000_000),
    default=1_000,
    show_default=True,
    help="Start no new game (the host's lobby, POST /api/v1/games) once the folder holds this many; "
    "the games already there are still served.",
)
@click.option(
    "--clock",
    type=click.IntRange(0, 24 * 60 * 60),
    default=0,
    metavar="SECONDS",
    help="A table clock: the seconds a player has for a move, shown on the TV and the seats (0: none)."
    " The lobby may set another per game.",
)
def serve(
    games_dir: Path | None,
    db_url: str | None,
    host: str | None,
    port: int,
    lan: bool,
    names: tuple[str, ...],
    streams_per_key: int,
    streams_per_address: int,
    max_games: int,
    clock: int,
) -> None:
    """Serve the game logs of GAMES_DIR: a live table for the TV, a page per seat for the phones,
    and the JSON API of docs/service.md. `we record` can keep writing to the same files.

    It prints the host's link (with the host key, kept in GAMES_DIR/.we/host-key); open it to
    start games and show each player the QR code of their seat. Ctrl-C stops it.

    With --db URL the games live in a PostgreSQL library (the host key in its settings, made by
    the first server): servers on several machines serve the same games, each seeing the
    others' moves as they are made.
    """
    from service.http import create_app
    from service.keys import read_or_create_host_key
    from service.network import GuardedServer, raise_open_file_limit

    raise_open_file_limit()  # before anything is opened, and before the link says it is ready

    library = None
    if db_url is not None:
        if games_dir is not None:
            raise click.UsageError("serve a folder or a library (--db), not both")
        if not is_library_url(db_url):
            # Not opened at all: a SQLite file given here, a `we` library or someone else's,
            # is left byte for byte as it was.
            raise CommandFailed(
                f"--db {_shortened(db_url)}: `we serve` serves a PostgreSQL library (postgresql://...),"
                " not a file; nothing was opened. To serve games from files, give their folder"
                " (`we export ID -o DIR/ID.jsonl` writes a library game's log)"
            )
        from service.library_games import connect_pool

        library, host_key = connect_pool(db_url)  # StoreError (one line) if it cannot be reached
        where = library.where
    else:
        if games_dir is None:
            raise click.UsageError("say which games to serve: GAMES_DIR, or --db URL")
        if not games_dir.is_dir():
            raise CommandFailed(f"{games_dir} is not a directory of game logs")
        try:
            host_key = read_or_create_host_key(games_dir)
        except (OSError, ValueError) as exc:
            raise CommandFailed(f"{games_dir}/.we/host-key: {exc}") from None
        where = str(games_dir)
    bind = host or ("0.0.0.0" if lan else "127.0.0.1")
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and
    # without it every response waits ~40 ms for a delayed ACK (headers and body go apart).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bind, port))
    except OSError as exc:
        sock.close()
        if library is not None:
            library.close()
        raise CommandFailed(f"cannot listen on {bind}:{port}: {exc.strerror or exc}") from None
    sock.listen(1024)
    sock.set_inheritable(True)
    port = sock.getsockname()[1]
    shown = bind
    if bind in ("0.0.0.0", "::"):
        shown = lan_address() or "127.0.0.1"
    if ":" in shown:
        shown = f"[{shown}]"
    base_url = f"http://{shown}:{port}"
    own_names = (*names, bind if ":" not in bind else f"[{bind}]") if bind not in ("0.0.0.0", "::") else names
    app = create_app(
        games_dir,
        base_url,
        host_key,
        library=library,
        names=own_names,
        streams_per_key=streams_per_key,
        streams_per_address=streams_per_address,
        max_games=max_games,
        clock=clock,
    )
    host_url = f"{base_url}/?k={host_key}"
    echo(f"Serving the games in {where} at {base_url}")
    echo(f"Host (keep this link to yourself): {host_url}")
    if lan:
        # The code opens the host's lobby (the base URL alone is a 401): the host scans it, and
        # each player then scans their own seat's code there.
        echo("The host's phone scans this code to open the lobby (it holds the host key: show it to")
        echo("nobody else); there each player scans the code of their own seat.")
        import segno

        segno.make(host_url, error="m").terminal(out=sys.stdout, compact=True)
    echo("Ctrl-C stops the server.", err=False)
    sys.stdout.flush()

    class Server(GuardedServer):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            # Streams never end by themselves: close them now, or the graceful shutdown waits.
            stopping = app.state.stopping
            loop = getattr(app.state, "loop", None)
            if loop is not None:
                loop.call_soon_threadsafe(stopping.set)
                app.state.folder.wake_all()
            super().handle_exit(sig, frame)
            # uvicorn raises the signal again once it has stopped, which would end the process
            # "killed by SIGTERM" (or a KeyboardInterrupt): a clean stop is what was asked for.
            captured = getattr(self, "_captured_signals", None)
            if isinstance(captured, list):
                captured.clear()

    server = Server(app, log_level="warning", timeout_graceful_shutdown=5, access_log=False, lifespan="on")
    _collect_cycles_less_often()
    server.run(sockets=[sock])
    echo("Stopped.")


def _collect_cycles_less_often() -> None:
    """A move makes thousands of short-lived objects, nearly all freed by reference counting
    as it ends. At Python's default pace (a pass every 700 allocations) the cycle collector
    would walk the served games over and over for the few cycles there are: what was loaded to
    start is left out of its walks (`gc.freeze`), and it runs a tenth as often."""
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young * 10, middle, old)

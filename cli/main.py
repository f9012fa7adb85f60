"""The `we` command. Subcommands load lazily so `we --help` stays instant."""

from __future__ import annotations

import importlib
import sys

import click

from cli import __version__

# name -> (module, function, one-line help). Help lives here so listing needs no imports.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "record": ("cli.record", "record", "Record a game live at the table, one move per line."),
    "replay": ("cli.replay", "replay", "Tell the story of a saved game, from any point and any seat."),
    "score": ("cli.score", "score", "Show the standings of a game, card by card with --explain."),
    "audit": ("cli.audit", "audit", "Prove logs untampered, check every event, explain every score."),
    "analyse": ("cli.analyse", "analyse", "Find a game's pivotal decisions: what each move was worth."),
    "simulate": ("cli.simulate", "simulate", "Play complete bot games from a seed and save their logs."),
    "import": ("cli.library", "import_logs", "Import JSONL logs into the game library."),
    "export": ("cli.export", "export", "Export a library game as a JSONL log, or games for BG Stats."),
    "games": ("cli.library", "games", "List the games in the library."),
    "stats": ("cli.stats", "stats", "Per-player results across the library."),
    "repair": ("cli.library", "repair", "Cut a torn last line off a log, keeping a backup."),
    "season": ("cli.season", "season", "Seal finished games into a season ledger; prove it; standings."),
    "serve": ("cli.serve", "serve", "Serve a folder of games: a live table on the TV, a seat on each phone."),
    "datasette": ("cli.datasette", "datasette", "Open a game library in Datasette, with canned queries."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module, attribute, _ = entry
        from cli.params import refuse_undecodable_text

        command = refuse_undecodable_text(getattr(importlib.import_module(module), attribute))
        # A command is known by the name it is listed under (`import`, not the function's
        # `import-logs`): the generated command reference and click's error messages say so.
        command.name = cmd_name
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and name not in COMMANDS and not name.startswith("-"):
            import difflib

            from wecore.errors import shown

            close = difflib.get_close_matches(name.lower(), list(COMMANDS), n=1)
            if close:
                raise click.UsageError(f"no such command {shown(name)}: did you mean `we {close[0]}`?", ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, text) for name, (_, _, text) in COMMANDS.items()])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, prog_name="we")
def we() -> None:
    """we: record, replay, score and audit games of White Elephant (2011).

    A GAME is a path to a .jsonl log or a game id in the library (--db, default $WE_DB
    or ~/.local/share/we/games.db).
    """


def main() -> None:
    from cli.exits import run

    sys.exit(run(we))


if __name__ == "__main__":
    main()

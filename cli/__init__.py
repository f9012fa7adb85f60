"""The `we` command-line tool: the imperative shell around wecore and eventstore."""

__version__ = "0.1.0"

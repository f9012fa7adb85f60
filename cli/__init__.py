"""The `we` command-line tool: a skin over service/ (it parses, calls the use cases, renders)."""

__version__ = "0.1.0"

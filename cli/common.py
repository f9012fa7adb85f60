"""What every command shares, by the old name: the helpers now live one concern a module, and
this module only names them again, so that code and tests written against `cli.common` keep
working. New code imports from the module that holds what it needs:

- `cli.exits`: errors to one line and an exit status (`run`, `CommandFailed`);
- `cli.terminal`: what reaches a terminal (`echo`, `one_line`, `json_text`, `shown_path`);
- `cli.params`: arguments (`FILE_NAME`, text that must be UTF-8, `--db`);
- `cli.opening`: a GAME argument opened and checked, one library connection per command;
- `cli.batch`: many games at once (`--jobs`, the garbage collector, a directory's logs);
- `cli.outputs`: writing a file without replacing what it must not;
- `eventstore.libraries`: where a library is and what is there (SQLite headers, `-wal` files).
"""

from __future__ import annotations

from cli.batch import JOBS_PER_CPU, collector_settled_for_a_batch, logs_in_directory, worker_count
from cli.exits import EXIT_INVALID, EXIT_OK, EXIT_USAGE, CommandFailed, run
from cli.opening import (
    _open_libraries,
    check_game,
    connect_library,
    game_source,
    library_exists,
    load_game,
    open_library,
    path_mode,
    require_valid,
    resolve_game,
)
from cli.outputs import put_in_place, refuse_missing_directory, refuse_unsafe_output, temporary_beside
from cli.params import (
    FILE_NAME,
    NOT_UTF8,
    FileNameParam,
    LibraryParam,
    NotUtf8,
    db_option,
    library_path,
    parameter_name,
    refuse_undecodable_text,
)
from cli.terminal import (
    PATH_SHOWN_LENGTH,
    echo,
    has_undecodable,
    json_bytes_safe,
    json_text,
    one_line,
    shown,
    shown_path,
    terminal_safe,
)
from eventstore.libraries import LibraryRef, is_library_url, library_file_exists, library_name
from eventstore.libraries import is_sqlite_file as _is_library

__all__ = [
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_USAGE",
    "FILE_NAME",
    "JOBS_PER_CPU",
    "NOT_UTF8",
    "PATH_SHOWN_LENGTH",
    "CommandFailed",
    "FileNameParam",
    "LibraryParam",
    "LibraryRef",
    "NotUtf8",
    "_is_library",
    "_open_libraries",
    "check_game",
    "collector_settled_for_a_batch",
    "connect_library",
    "db_option",
    "echo",
    "game_source",
    "has_undecodable",
    "is_library_url",
    "json_bytes_safe",
    "json_text",
    "library_exists",
    "library_file_exists",
    "library_name",
    "library_path",
    "load_game",
    "logs_in_directory",
    "one_line",
    "open_library",
    "parameter_name",
    "path_mode",
    "put_in_place",
    "refuse_missing_directory",
    "refuse_undecodable_text",
    "refuse_unsafe_output",
    "require_valid",
    "resolve_game",
    "run",
    "shown",
    "shown_path",
    "temporary_beside",
    "terminal_safe",
    "worker_count",
]

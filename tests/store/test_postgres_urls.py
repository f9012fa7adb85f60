"""How messages show a PostgreSQL URL: never with its password, however it is written. No
server needed: the URLs point at a closed port, or are only masked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eventstore.postgres import _mask_secrets, display_url

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:pw@host/db", "postgresql://u:***@host/db"),
        # A raw `@` in the password: everything up to the last `@` before the host is masked.
        ("postgresql://u:p@ss@host/db", "postgresql://u:***@host/db"),
        ("postgresql://u:a:b@c@host:5432/db?x=1", "postgresql://u:***@host:5432/db?x=1"),
        # libpq reads a password up to `@` (or `/`): `?` and `#` are part of it, not a query.
        ("postgresql://u:p?x@host/db", "postgresql://u:***@host/db"),
        ("postgresql://u:p#x@host/db", "postgresql://u:***@host/db"),
        ("postgresql://u:p%40ss@host/db", "postgresql://u:***@host/db"),
        ("postgresql://u:@host/db", "postgresql://u:***@host/db"),
        # An `@` after the host is not a password's end.
        ("postgresql://u:pw@host/db?options=x@y", "postgresql://u:***@host/db?options=x@y"),
        ("postgresql://host:5432/db?application_name=a@b", "postgresql://host:5432/db?application_name=a@b"),
        ("postgresql://u@host/db", "postgresql://u@host/db"),
        ("postgresql:///db?host=/tmp&password=p@q", "postgresql:///db?host=/tmp&password=***"),
        ("postgres://u:pw@[::1/db", "postgres://u:***@[::1/db"),  # cannot be split: masked anyway
    ],
)
def test_display_url_masks_the_password(url: str, shown: str) -> None:
    assert display_url(url) == shown


def test_an_error_quoting_the_url_or_libpqs_reading_of_it_is_masked() -> None:
    url = "postgresql://we:sec@ret@db.example/x"
    # libpq ends the password at the first `@` and quotes the rest as the host.
    message = f"failed to resolve host 'ret@db.example' for {url}"
    assert (
        _mask_secrets(message, url)
        == "failed to resolve host '***@db.example' for postgresql://we:***@db.example/x"
    )
    assert _mask_secrets("bad: p?x?y", "postgresql://we:p%3Fx?y@h/x") == "bad: ***"


@pytest.mark.parametrize("password", ["sec?ret", "sec#ret", "sec@ret"])
def test_we_never_shows_the_password_of_a_library_it_cannot_reach(password: str) -> None:
    url = f"postgresql://we:{password}@127.0.0.1:1/x"
    result = subprocess.run(
        [sys.executable, "-m", "cli.main", "games", "--db", url],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("we: error: postgresql://we:***@127.0.0.1:1/x: cannot open"), (
        result.stderr
    )
    assert "sec" not in result.stderr and "ret" not in result.stderr, result.stderr

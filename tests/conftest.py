import atexit
import itertools
import os
import pathlib
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from urllib.parse import urlsplit

import freezegun
import pytest

# pytest times each test with `_pytest.timing`, which freezegun would freeze with the test's clock:
# --durations then printed 1,795,677,250 s for a fixture that froze time (tests/store's `frozen`).
freezegun.configure(extend_ignore_list=["_pytest.timing"])

# Tests run from a fresh clone without installing too.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

# `we record` adds finished games to the default library: in tests that is a throwaway one, never
# the real ~/.local/share/we/games.db. Set for the whole session (subprocesses inherit it); tests
# that need their own library pass --db or set WE_DB themselves.
_DATA_HOME = tempfile.mkdtemp(prefix="we-tests-data-")
atexit.register(shutil.rmtree, _DATA_HOME, ignore_errors=True)
os.environ["XDG_DATA_HOME"] = _DATA_HOME
os.environ["WE_DB"] = os.path.join(_DATA_HOME, "we", "games.db")

# The PostgreSQL cluster the tests may use (.ci/run starts one; so does `.ci/pg-cluster start`).
PG_VARIABLE = "WE_TEST_PG"
_database_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server() -> str:
    """The URL of a PostgreSQL server the tests may create databases on. Without one the
    tests that need it skip, saying why; on CI (CI=true) they fail instead: CI never skips."""
    url = os.environ.get(PG_VARIABLE)
    if not url:
        why = (
            f"no PostgreSQL for the tests: {PG_VARIABLE} is not set "
            f'(start a throwaway cluster with: eval "$(.ci/pg-cluster start /tmp/we-pg)")'
        )
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"CI must run the PostgreSQL tests, but {why}", pytrace=False)
        pytest.skip(why)
    return url


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A URL of a new, empty database of its own for one test, dropped afterwards."""
    import psycopg

    name = f"we_test_{os.getpid()}_{next(_database_numbers)}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name} TEMPLATE template0")
    parts = urlsplit(pg_server)
    # Not urlunsplit: it drops the `//` of a URL with no host (postgresql:///db?host=/socket).
    yield f"{parts.scheme}://{parts.netloc}/{name}" + (f"?{parts.query}" if parts.query else "")
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C works in the commands the tests start, however the suite was started. A shell
    starts a background job (`.ci/run &`, `nohup ... &`) with SIGINT ignored, every process it
    starts inherits that, and Python then never raises KeyboardInterrupt: a test that presses
    Ctrl-C at `we record` would wait for its end forever. (Each xdist worker runs this too.)"""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)

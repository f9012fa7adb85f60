import atexit
import os
import pathlib
import shutil
import sys
import tempfile

# Tests run from a fresh clone without installing too.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

# `we record` adds finished games to the default library: in tests that is a throwaway one, never
# the real ~/.local/share/we/games.db. Set for the whole session (subprocesses inherit it); tests
# that need their own library pass --db or set WE_DB themselves.
_DATA_HOME = tempfile.mkdtemp(prefix="we-tests-data-")
atexit.register(shutil.rmtree, _DATA_HOME, ignore_errors=True)
os.environ["XDG_DATA_HOME"] = _DATA_HOME
os.environ["WE_DB"] = os.path.join(_DATA_HOME, "we", "games.db")

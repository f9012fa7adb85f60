import pathlib
import sys

# Tests run from a fresh clone without installing too.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

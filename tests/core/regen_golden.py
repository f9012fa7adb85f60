"""Regenerate the golden playthroughs, on purpose only.

    cd /work/main && python -m tests.core.regen_golden

(or `WE_REGEN_GOLDEN=1 python -m pytest tests/core/test_golden.py`). Review the diff before
committing: a changed golden file means the engine now plays or renders some game differently.
"""

from .golden_render import write_all


def main() -> None:
    for path in write_all():
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

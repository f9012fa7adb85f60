"""How to install what an optional part of `we` needs: one sentence, the same in every hint
(`--help`, errors, the docs), the way the README installs `we` itself (from its clone)."""

from __future__ import annotations


def install_hint(extra: str, package: str) -> str:
    """`python -m pip install '.[EXTRA]'` in the clone of we, or the one package alone."""
    return f"python -m pip install '.[{extra}]' in a clone of we (or just: python -m pip install {package})"

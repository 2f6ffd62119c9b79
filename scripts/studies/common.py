"""What the soundness studies of this folder share: the ``zkdv`` CLI and Markdown tables.

The studies (``scripts/bench soundness``, ``drift``, ``strategies``) run with this folder on
``sys.path`` (as a script's own folder, or put there by the tests that import them) and import
this module as ``common``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root."""

ZKDV = ROOT / "target" / "release" / "zkdv"
"""The release build of the ``zkdv`` CLI (``scripts/bench drift`` and ``strategies`` build it)."""


def require_zkdv() -> None:
    """Exit, naming the command that builds it, if :data:`ZKDV` is not built."""
    if not ZKDV.exists():
        raise SystemExit(f"{ZKDV} is not built: cargo build --release -p zkdv-tools --bin zkdv")


def zkdv_json(*args: str) -> tuple[int, dict[str, Any]]:
    """Run ``zkdv ARGS --json``: its exit status and the JSON it printed."""
    result = subprocess.run(
        [str(ZKDV), *args, "--json"], capture_output=True, text=True, check=False
    )
    return result.returncode, json.loads(result.stdout)


def table(rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table; the first row is the header."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]

    def line(r: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |"

    return "\n".join([line(rows[0]), line(["-" * w for w in widths]), *map(line, rows[1:])])

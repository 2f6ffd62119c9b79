"""The ``zkdv`` command-line binary that the CLI tests run (``target/debug/zkdv``).

``scripts/test`` builds it and sets ``ZKDV_REQUIRE_CLI=1``, so there a missing binary fails the
tests that need it; a bare ``pytest`` run without a build skips them, saying why.
"""

import os
from pathlib import Path

import pytest

ZKDV_CLI = Path(__file__).resolve().parents[2] / "target" / "debug" / "zkdv"


def require_cli(module: bool = False) -> Path:
    """The binary's path; fails (under ``ZKDV_REQUIRE_CLI=1``) or skips when it is not built."""
    if ZKDV_CLI.exists():
        return ZKDV_CLI
    why = f"{ZKDV_CLI} is not built (cargo build -p zkdv-tools --bin zkdv; scripts/test does)"
    if os.environ.get("ZKDV_REQUIRE_CLI") == "1":
        pytest.fail(why, pytrace=False)
    pytest.skip(why, allow_module_level=module)
    raise AssertionError("unreachable")

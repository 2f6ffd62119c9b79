"""The ``zkdv`` command (``python -m zkdv``, and the console script the wheel installs).

Verify, inspect and audit transcripts, and run the ZKDV passes (``zkdv opt``, the driver of the
cargo binary ``zkdv-opt``): the same Rust code as the cargo binary (``zkdv_tools::cli``), run in
this process through the extension. ``zkdv --help`` lists the commands.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Run ``zkdv`` with this process's arguments and exit with its status."""
    from zkdv import _native

    sys.exit(_native.cli(["zkdv", *sys.argv[1:]]))


if __name__ == "__main__":
    main()

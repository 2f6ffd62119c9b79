"""Build the documentation site (zensical.toml) with every warning an error.

``zensical build --strict`` aborts on the warnings zensical itself reports (a link to a page
that does not exist, an unresolved cross-reference), but the Python side of the build,
mkdocstrings and Griffe, reports through Python's logging, which zensical prints and does not
count: a docstring naming a parameter the signature lacks would pass. This wrapper runs the
same build in this process with a logging handler that counts every warning (and every
Python warning, through ``logging.captureWarnings``) and fails if there was any.

Usage: ``python scripts/docs/build_site.py [-f CONFIG]``, from the repository root
(``scripts/build-docs`` runs it). The build is always clean (``--clean``): a page served from
zensical's cache would not report its warnings again.
"""

from __future__ import annotations

import logging
import sys

from zensical.main import cli


class _Count(logging.Handler):
    """Counts the records of level WARNING and above and prints them."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0
        self.setFormatter(logging.Formatter("%(levelname)s: %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        print(self.format(record), file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    counter = _Count()
    logging.getLogger().addHandler(counter)
    logging.captureWarnings(True)
    try:
        cli.main(["build", "--strict", "--clean", *argv], standalone_mode=False)
    except Exception as error:  # zensical aborts a strict build with a RuntimeError
        print(f"error: the documentation build failed: {error}", file=sys.stderr)
        return 1
    if counter.count:
        print(
            f"error: {counter.count} warning(s) from the Python side of the build "
            "(mkdocstrings, Griffe); warnings are errors",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

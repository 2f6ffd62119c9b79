"""Shared test set-up: each test's unclosed sessions are finished when the test ends.

A session a test leaves unclosed (often on purpose: a poisoned session raises at its next
operation) would otherwise keep its committer and verifier threads until the interpreter exits,
and report itself then, after pytest's summary. Finishing it at the test's teardown does what
the exit handler does (``zkdv.session._flow.finish_at_exit``), within the test, whose captured
output then holds the report.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest

# The suite's JAX programs run on the CPU (fixtures compare bits with CPU-exported ones) unless
# the environment names a platform: JAX_PLATFORMS=cuda runs them on a GPU on purpose.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
# Each test derives its programs afresh (a sealed package cached by an earlier test, or an
# earlier run, would skip the seal a test exercises, or commit a test's stand-in package): the
# derivation cache is off, and in a folder of this run's own where a test turns it on.
os.environ["ZKDV_CACHE"] = "0"
os.environ["ZKDV_CACHE_DIR"] = tempfile.mkdtemp(prefix="zkdv-test-cache-")

from zkdv.session import _flow


@pytest.fixture(autouse=True)
def _finish_unclosed_sessions() -> Iterator[None]:
    yield
    _flow.finish_sessions()

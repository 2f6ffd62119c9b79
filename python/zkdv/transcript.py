"""The transcript: writer, challenges, verification and inspection.

All protocol numbers (record hashes, challenge decisions and indices, key
commitments) are computed by the Rust core; this module only re-exports it.
Record bodies are plain dicts whose fields are those of the protocol
specification (``docs/protocol.md``); byte fields take ``bytes``.
"""

from __future__ import annotations

from os import PathLike
from typing import Any

from zkdv import _native
from zkdv._native import Challenge, StepReceipt, TranscriptError, TranscriptWriter

__all__ = [
    "Challenge",
    "StepReceipt",
    "TranscriptError",
    "TranscriptWriter",
    "derive_challenge",
    "inspect",
    "key_commitment",
    "program_hashes",
    "read_evidence",
    "read_records",
    "verify",
]


def verify(path: str | PathLike[str]) -> dict[str, Any]:
    """Verify a transcript directory (records and artifacts) or records file.

    Returns the report (steps, checks by kind and verdict, ...).

    Raises:
        TranscriptError: naming the first bad record (``record``, ``offset``).
    """
    return _native.verify(path)


def inspect(path: str | PathLike[str]) -> dict[str, Any]:
    """Summarize a transcript, valid or not; problems are reported in the dict."""
    return _native.inspect(path)


def read_records(path: str | PathLike[str]) -> list[dict[str, Any]]:
    """Every record of a transcript, in order: ``{"seq": int, "kind": str, "body": dict}``.

    Bodies hold the protocol's fields (``docs/protocol.md``). Reading checks each record's
    digest and decoding but not the chain or the rules: call :func:`verify` for that.

    Raises:
        TranscriptError: at the first record that cannot be read.
    """
    return _native.read_records(path)


def program_hashes(path: str | PathLike[str]) -> list[str]:
    """The blake3 (hex) of every attested and replay program a transcript's program records
    name, in record order: what ``zkdv audit --program HASH`` compares a transcript's programs
    with.

    A client derives its own without training: a session of its own on its machine (with
    ``retain="all"``, so that the replay program is stored, and the versions the audited
    transcript's root records) lowers its step, ``proof.lower_step(batch)`` in PyTorch
    (after ``prepare`` and ``@proof.attest``) or ``proof.jit(step).lower_step(state, *batch)``
    in JAX, and is closed; this lists that session's programs.
    """
    out = []
    for record in read_records(path):
        if record["kind"] == "program":
            body = record["body"]
            for role in ("attested", "replay"):
                if body.get(role) is not None:
                    out.append(bytes(body[role]["blake3"]).hex())
    return out


def derive_challenge(
    key: bytes,
    record_hash: bytes,
    step: int,
    sampling: dict[str, Any],
    parameters: int,
    optimizer_state: int,
) -> Challenge:
    """Re-derive the challenge of step ``step`` from a revealed key."""
    return _native.derive_challenge(key, record_hash, step, sampling, parameters, optimizer_state)


def key_commitment(key: bytes) -> bytes:
    """The root record's commitment to a challenge key."""
    return _native.key_commitment(key)


def read_evidence(path: str | PathLike[str]) -> list[tuple[str, Any]]:
    """The named arrays of an evidence artifact file (docs/protocol.md, "Evidence"), in order.

    Raises:
        OSError: when the file cannot be read.
        ValueError: when it is not a well-formed evidence artifact.
    """
    import numpy as np

    from zkdv import hashing

    out = []
    for name, tag, shape, data in _native.read_evidence(path):
        dtype = hashing.numpy_dtype(tag)
        out.append((name, np.frombuffer(data, dtype=dtype.newbyteorder("<")).reshape(shape).copy()))
    return out

"""Commitments, rolling batch hashes and probe sketches of numpy arrays.

Every function reads the array's memory in place (no copy for a
C-contiguous, little-endian array) and runs in Rust without holding the GIL.
Do not mutate an array while a call that reads it is running.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

import numpy as np

from zkdv import _native
from zkdv._native import BatchCommitment, ProbeMap, TensorCommitment

__all__ = [
    "BatchCommitment",
    "ProbeMap",
    "TensorCommitment",
    "commit_batch",
    "commit_model",
    "commit_tensor",
    "commit_tensor_tree",
    "commit_tree",
    "dtype_tag",
    "numpy_dtype",
    "probe_map",
    "save_state",
    "sketch",
    "window_hashes",
]

_TAGS: dict[str, str] = {
    "float64": "f64",
    "float32": "f32",
    "float16": "f16",
    "bfloat16": "bf16",
    "bool": "i1",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
}


# Tags already looked up, by dtype: ``np.dtype.name`` is computed in Python on every access, and
# the JAX frontend commits a few dozen small arrays per training step.
_TAG_OF: dict[np.dtype, str] = {}


def dtype_tag(dtype: np.dtype | type) -> str:
    """The canonical dtype tag (``"f32"``, ``"bf16"``, ...) of a numpy dtype.

    Raises:
        TypeError: for dtypes a commitment cannot represent (complex, object,
            strings, ...).
    """
    dtype = np.dtype(dtype)
    tag = _TAG_OF.get(dtype)
    if tag is not None:
        return tag
    name = dtype.name
    try:
        tag = _TAGS[name]
    except KeyError:
        supported = ", ".join(sorted(_TAGS))
        raise TypeError(f"cannot commit dtype {name}; supported: {supported}") from None
    _TAG_OF[dtype] = tag
    return tag


def numpy_dtype(tag: str) -> np.dtype:
    """The numpy dtype of a canonical dtype tag (``bf16`` through ``ml_dtypes``).

    Raises:
        ValueError: for an unknown tag.
    """
    for name, known in _TAGS.items():
        if known == tag:
            if name == "bfloat16":
                import ml_dtypes

                return np.dtype(ml_dtypes.bfloat16)
            return np.dtype(name)
    raise ValueError(f"unknown dtype tag {tag!r}")


def _canonical(array: np.ndarray) -> tuple[str, list[int], np.ndarray]:
    """Tag, shape and a flat little-endian uint8 view of ``array``."""
    array = np.asarray(array)
    tag = dtype_tag(array.dtype)
    # The shape is read first: np.ascontiguousarray turns a 0-d array into
    # shape (1,), and a scalar leaf must keep its rank-0 shape.
    shape = list(array.shape)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    elif not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return tag, shape, array.reshape(-1).view(np.uint8)


def commit_tensor(array: np.ndarray) -> TensorCommitment:
    """Commit to an array: its dtype, shape and row-major little-endian bytes.

    Returns a :class:`TensorCommitment` whose ``digest`` is the 32-byte value
    records store.

    Example:

        >>> import numpy as np
        >>> a = zkdv.hashing.commit_tensor(np.arange(4, dtype=np.float32))
        >>> b = zkdv.hashing.commit_tensor(np.arange(4, dtype=np.float32).reshape(2, 2))
        >>> len(a.digest), a.digest == b.digest  # the shape is committed too
        (32, False)
    """
    tag, shape, data = _canonical(array)
    return _native.commit_tensor(tag, shape, data)


# Dtypes the binding reads straight from a C-contiguous array in native byte order; every other
# array crosses as (tag, shape, little-endian bytes).
_DIRECT = frozenset(
    np.dtype(name) for name in ("float32", "float64", "int32", "int64", "uint32", "uint64", "bool")
)


def _native_array(
    array: np.ndarray | np.generic,
) -> np.ndarray | tuple[str, list[int], np.ndarray]:
    """``array`` as the binding reads it: itself when it can be read in place, else its parts."""
    if type(array) is np.ndarray and array.dtype in _DIRECT and array.flags.c_contiguous:
        return array
    return _canonical(np.asarray(array))


def commit_tensor_tree(leaves: Iterable[tuple[str, np.ndarray]]) -> bytes:
    """``commit_tree`` of ``(path, commit_tensor(array).digest)``, in one call to the core.

    Raises:
        ValueError: on a repeated path.
        TypeError: for a dtype a commitment cannot represent.
    """
    return _native.commit_tensor_tree([(str(path), _native_array(a)) for path, a in leaves])


def commit_model(params: Iterable[tuple[str, np.ndarray]]) -> bytes:
    """The model commitment of named parameter arrays: :func:`commit_tensor_tree` over
    ``("params/<path>", array)``, in the order given.

    A snapshot record commits to it beside the full state (its ``params``), and
    ``zkdv audit --initial/--final`` compares it with the client's. The frontends compute it
    from their framework's objects with the session's own paths and order
    (``zkdv.torch.model_hash``, ``zkdv.jax.model_hash``).
    """
    return commit_tensor_tree((f"params/{path}", array) for path, array in params)


def state_leaves(
    params: Iterable[tuple[str, np.ndarray]], opt_state: Iterable[tuple[str, np.ndarray]]
) -> list[tuple[str, np.ndarray]]:
    """A state's named arrays as a snapshot commits them: ``("params/<path>", array)``, then
    ``("opt_state/<path>", array)`` (optimizer state, then buffers), in the order given."""
    return [(f"params/{p}", a) for p, a in params] + [(f"opt_state/{p}", a) for p, a in opt_state]


def commit_state(
    params: Iterable[tuple[str, np.ndarray]], opt_state: Iterable[tuple[str, np.ndarray]]
) -> bytes:
    """The state commitment of named parameter and optimizer-state arrays: a snapshot record's
    ``state``, and what ``zkdv audit --initial-state`` compares with the transcript's first
    snapshot. The frontends compute it from their framework's objects (``proof.state_hash()``
    in PyTorch, ``zkdv.jax.state_hash`` in JAX)."""
    return commit_tensor_tree(state_leaves(params, opt_state))


def save_state(
    path: str | os.PathLike[str],
    params: Iterable[tuple[str, np.ndarray]],
    opt_state: Iterable[tuple[str, np.ndarray]],
) -> None:
    """Write a whole state as a checkpoint ``zkdv audit --checkpoint`` binds to the snapshot
    whose ``state`` it re-hashes to: safetensors when ``path`` ends in ``.safetensors``, an
    evidence bundle when it ends in ``.ev.zst``, written atomically. The frontends call it with
    their framework's objects (``proof.save_state`` in PyTorch, ``zkdv.jax.save_state``).

    Raises:
        ValueError: for another file name, or an array the core cannot read.
        OSError: when the file cannot be written.
    """
    leaves = [(p, _native_array(a)) for p, a in state_leaves(params, opt_state)]
    _native.save_state(os.fspath(path), leaves)


def commit_tree(leaves: Iterable[tuple[str, bytes]]) -> bytes:
    """Commit to an ordered sequence of named 32-byte digests (tree order).

    Raises:
        ValueError: on a repeated path or a digest that is not 32 bytes.
    """
    return _native.commit_tree([(str(path), bytes(digest)) for path, digest in leaves])


def _words(words: np.ndarray, ndim: int) -> np.ndarray:
    words = np.asarray(words)
    if words.dtype != np.uint32 or words.ndim != ndim:
        raise TypeError(
            f"expected a rank-{ndim} uint32 array, got {words.dtype} of shape {words.shape}"
        )
    return np.ascontiguousarray(words)


def window_hashes(row: np.ndarray, window: int) -> np.ndarray:
    """Rolling hashes (uint64) of every ``window``-word window of one uint32 row."""
    return _native.window_hashes(_words(row, 1), window)


def commit_batch(words: np.ndarray, window: int) -> BatchCommitment:
    """Commit to a packed ``(rows, width)`` uint32 batch with rolling hashes.

    Raises:
        ValueError: when ``window`` is 0 or exceeds the row width.
    """
    return _native.commit_batch(_words(words, 2), window)


def probe_map(seed: bytes, path: str, shape: Sequence[int], ratio: float) -> ProbeMap:
    """The session's probe map of the leaf at ``path`` with ``shape``.

    ``k = max(1, ceil(ratio * d))`` orthonormal columns over the last
    dimension ``d``, drawn deterministically from ``(seed, path, shape)``.
    """
    return ProbeMap(bytes(seed), path, [int(d) for d in shape], float(ratio))


def sketch(probe: ProbeMap, array: np.ndarray) -> np.ndarray:
    """The sketch ``array @ P`` as float64, of shape ``array.shape[:-1] + (k,)``.

    A rank-0 leaf counts as a vector of one element (shape ``(k,)``).
    Accumulation is in float64, coordinate by coordinate in a fixed order, so
    the result does not depend on the machine.
    """
    tag, shape, data = _canonical(array)
    return probe.sketch(tag, data).reshape((*shape[:-1], probe.k))

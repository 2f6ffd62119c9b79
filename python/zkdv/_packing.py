"""Lossless packing of a step's dynamic non-state inputs into one rectangular ``uint32`` batch.

The protocol commits a packed batch of shape ``[rows, width]`` (docs/protocol.md). A step's
dynamic inputs other than parameters and optimizer state (the data batch, a step counter, a
learning rate, a PRNG key's data, ...) are its *batch leaves*; :class:`BatchLayout` fixes, from
their shapes and dtypes alone, where each leaf's words go:

- every element becomes 32-bit words: 32-bit types are bitcast, 64-bit types give two words
  (low word first), narrower types (bool, 8- and 16-bit) are zero-extended to one word;
- ``rows`` is the leading dimension of the largest batch leaf of rank 2 or more (examples by
  features); every leaf of rank 1 or more whose leading dimension equals ``rows`` is a *row
  leaf*: row ``r`` holds, leaf after leaf, the words of ``leaf[r]``, so a row is one example's
  data (with its label) and rolling window hashes run over it;
- the words of the other leaves (*side leaves*: counters, hyper-parameters) follow in extra
  rows of the same width, zero-padded. Without a leaf of rank 2 or more, one row holds every
  leaf's words.

The host packs with numpy (:meth:`BatchLayout.pack`) and unpacks the same way
(:meth:`BatchLayout.unpack_host`, the exact inverse). JAX's traced step unpacks with
``jax.numpy`` (:meth:`BatchLayout.unpack`), so its attested program reads exactly the committed
words; the PyTorch frontend feeds its attested program the host-unpacked committed batch. A
single rank-2 ``uint32`` leaf packs to itself. Both frontends share this module.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["BatchLayout", "Slot"]

# Unsigned integer dtype of the same width, by element size in bytes.
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


@dataclass(frozen=True)
class Slot:
    """Where one batch leaf's words live in the packed batch."""

    shape: tuple[int, ...]
    dtype: np.dtype
    row_leaf: bool
    """Whether the leaf is split over the rows (else its words are in the side rows)."""
    offset: int
    """Row leaf: first column; side leaf: first word of the flattened side rows."""
    words: int
    """Row leaf: words per row; side leaf: words in all."""

    @property
    def words_per_element(self) -> int:
        """1 for types of up to 32 bits, 2 for 64-bit types."""
        return 2 if self.dtype.itemsize == 8 else 1


@dataclass(frozen=True)
class BatchLayout:
    """The packing of a fixed list of batch leaves (by shape and dtype)."""

    slots: tuple[Slot, ...]
    rows: int
    """Rows of data (the row leaves' leading dimension)."""
    side_rows: int
    """Extra rows holding the side leaves' words."""
    width: int

    @property
    def shape(self) -> tuple[int, int]:
        """The packed batch's shape ``(rows + side_rows, width)``."""
        return (self.rows + self.side_rows, self.width)

    @classmethod
    def of(
        cls, leaves: Sequence[tuple[tuple[int, ...], np.dtype]], min_width: int = 1
    ) -> BatchLayout:
        """The layout of leaves given as ``(shape, dtype)`` pairs, in order; rows are
        zero-padded to at least ``min_width`` words (a rolling window longer than an example).

        Raises:
            TypeError: for a dtype that cannot be packed (complex, object, ...).
        """
        specs = [(tuple(int(d) for d in shape), np.dtype(dtype)) for shape, dtype in leaves]
        for shape, dtype in specs:
            packable = dtype.kind in "biuf" or dtype.name in ("bfloat16", "float16")
            if not packable or dtype.itemsize not in _UNSIGNED:
                raise TypeError(
                    f"cannot pack a batch input of dtype {dtype} (shape {shape}) into the "
                    "committed uint32 batch; pass booleans, integers or floats"
                )
        sized = [(math.prod(shape), shape) for shape, _ in specs if len(shape) >= 2]
        rows = max(sized)[1][0] if sized else 1
        slots: list[Slot] = []
        column = 0
        side = 0
        for shape, dtype in specs:
            per = 2 if dtype.itemsize == 8 else 1
            if shape and shape[0] == rows and sized:
                words = math.prod(shape[1:]) * per
                slots.append(Slot(shape, dtype, True, column, words))
                column += words
            else:
                words = math.prod(shape) * per
                slots.append(Slot(shape, dtype, False, side, words))
                side += words
        width = max(column if column else max(side, 1), min_width)
        side_rows = 0 if not side else -(-side // width)
        if not column:
            # No row leaves: the side words are the only row(s).
            rows, side_rows = side_rows or 1, 0
        return cls(tuple(slots), rows, side_rows, width)

    @property
    def has_row_leaves(self) -> bool:
        """Whether any leaf is laid out over the rows."""
        return any(slot.row_leaf for slot in self.slots)

    def pack(self, leaves: Sequence[np.ndarray]) -> np.ndarray:
        """The packed ``uint32`` batch of host arrays matching the layout."""
        out = np.zeros(self.shape, dtype=np.uint32)
        data_rows = self.rows if self.has_row_leaves else 0
        side = out[data_rows:].reshape(-1)
        for slot, leaf in zip(self.slots, leaves, strict=True):
            words = _to_words(np.asarray(leaf, dtype=slot.dtype).reshape(slot.shape))
            if slot.row_leaf:
                out[: self.rows, slot.offset : slot.offset + slot.words] = words.reshape(
                    self.rows, -1
                )
            else:
                side[slot.offset : slot.offset + slot.words] = words.reshape(-1)
        return out

    def pack_traced(self, leaves, replicate=None, split=False):  # noqa: ANN001, ANN201
        """:meth:`pack` in ``jax.numpy``, to run on the device (bitwise the same words).

        ``replicate``, when given, lays each leaf out replicated first (on a mesh, the batch
        leaves may be sharded while the packed batch is replicated). With ``split`` (and row
        leaves), returns ``(data_rows, side_rows)`` instead, the side rows possibly empty: the
        data rows keep the row leaves' sharding.
        """
        import jax.numpy as jnp
        from jax import lax

        if replicate is not None:
            leaves = [replicate(jnp.asarray(leaf)) for leaf in leaves]
        rows = []
        side = []
        data_rows = self.rows if self.has_row_leaves else 0
        for slot, leaf in zip(self.slots, leaves, strict=True):
            leaf = jnp.asarray(leaf, dtype=slot.dtype).reshape(slot.shape)
            unsigned = _UNSIGNED[slot.dtype.itemsize]
            if slot.dtype == np.bool_:
                words = leaf.astype(jnp.uint32)
            else:
                bits = lax.bitcast_convert_type(leaf, jnp.dtype(unsigned))
                if slot.dtype.itemsize == 8:
                    # Low word first, as the little-endian host bytes.
                    words = lax.bitcast_convert_type(bits, jnp.uint32)
                else:
                    words = bits.astype(jnp.uint32)
            if slot.row_leaf:
                rows.append(words.reshape(self.rows, -1))
            else:
                side.append(words.reshape(-1))
        n_side = self.shape[0] - data_rows
        side_block = None
        if side:
            flat = jnp.concatenate(side)
            flat = jnp.pad(flat, (0, n_side * self.width - flat.shape[0]))
            side_block = flat.reshape(n_side, self.width)
        if split and data_rows:
            if side_block is None:
                side_block = jnp.zeros((0, self.width), jnp.uint32)
            return jnp.concatenate(rows, axis=1), side_block
        parts = []
        if data_rows:
            parts.append(jnp.concatenate(rows, axis=1))
        if side_block is not None:
            parts.append(side_block)
        if not parts:
            return jnp.zeros(self.shape, jnp.uint32)
        return jnp.concatenate(parts, axis=0) if len(parts) > 1 else parts[0]

    def unpack(self, packed, side=None):  # noqa: ANN001, ANN201  (traced jax arrays in and out)
        """The leaves, as traced ``jax.numpy`` arrays, from the traced packed batch.

        With ``side``, ``packed`` holds the data rows only and ``side`` the side rows (the
        packed batch split by rows, as a sharded step takes it).
        """
        import jax.numpy as jnp
        from jax import lax

        data_rows = self.rows if self.has_row_leaves else 0
        if side is None:
            side = packed[data_rows:]
        side = side.reshape(-1)
        leaves = []
        for slot in self.slots:
            if slot.row_leaf:
                words = packed[: self.rows, slot.offset : slot.offset + slot.words]
            else:
                words = side[slot.offset : slot.offset + slot.words]
            per = slot.words_per_element
            # Row leaves keep their leading dimension, so a batch sharded by rows stays so.
            lead = (self.rows, -1) if slot.row_leaf else (math.prod(slot.shape),)
            words = words.reshape(*lead, per) if per == 2 else words.reshape(lead)
            unsigned = _UNSIGNED[slot.dtype.itemsize]
            if per == 2:
                value = lax.bitcast_convert_type(words, jnp.dtype(unsigned))
            elif slot.dtype.itemsize == 4:
                value = words
            else:
                value = words.astype(unsigned)
            if slot.dtype == np.bool_:
                value = value != 0
            elif slot.dtype != np.dtype(unsigned):
                value = lax.bitcast_convert_type(value, slot.dtype)
            leaves.append(value.reshape(slot.shape))
        return leaves

    def unpack_host(self, packed: np.ndarray) -> list[np.ndarray]:
        """The leaves, as host arrays, from a packed batch: the exact inverse of :meth:`pack`.

        The words are unpacked in Rust (``zkdv_protocol::packing``, what an auditor unpacks
        retained batches with), so host unpacking has one implementation."""
        from zkdv import _native, hashing

        packed = np.ascontiguousarray(packed, dtype=np.uint32)
        slots = [(list(s.shape), hashing.dtype_tag(s.dtype)) for s in self.slots]
        shape, parts = _native.unpack_batch(slots, self.width, packed)
        if tuple(shape) != self.shape:
            raise RuntimeError(f"the Rust batch layout {shape} differs from {self.shape}")
        return [
            np.frombuffer(part, dtype=slot.dtype.newbyteorder("<")).reshape(slot.shape).copy()
            for slot, part in zip(self.slots, parts, strict=True)
        ]


def _to_words(array: np.ndarray) -> np.ndarray:
    """The elements of ``array`` as uint32 words (see the module docs), flattened."""
    array = np.ascontiguousarray(array)
    unsigned = array.view(_UNSIGNED[array.dtype.itemsize]) if array.dtype != np.bool_ else array
    if array.dtype.itemsize == 8:
        return unsigned.astype("<u8").view(np.uint32).reshape(-1)
    return unsigned.astype(np.uint32).reshape(-1)

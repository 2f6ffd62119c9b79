"""The arguments of a ``proof.jit`` step: ``jax.jit``'s options, static and donated ones.

:class:`ArgSpec` normalizes ``static_argnums``/``static_argnames`` and
``donate_argnums``/``donate_argnames`` (names and positions map to each other, as
``jax.jit`` maps them); :func:`split_static` and :func:`merge_static` take a call apart into
its static values and its dynamic pytree and put it back together; :func:`donated_positions`
says which flat dynamic inputs the options donate; :func:`aval` is the abstract value JAX gives
an input. :func:`key_impls`, :func:`unwrap_keys` and :func:`wrap_keys` convert typed PRNG keys
(``jax.random.key``, dtype ``key<fry>``) to their key data and back at the program boundary: the
compiled programs and the committed batch see ``uint32`` key data, the user's function sees keys.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from jax.tree_util import PyTreeDef

__all__ = [
    "JIT_OPTIONS",
    "ArgSpec",
    "Call",
    "aval",
    "donated_positions",
    "key_impls",
    "merge_static",
    "split_static",
    "unwrap_keys",
    "wrap_keys",
]

JIT_OPTIONS = frozenset(
    {
        "in_shardings",
        "out_shardings",
        "static_argnums",
        "static_argnames",
        "donate_argnums",
        "donate_argnames",
        "keep_unused",
        "device",
        "backend",
        "inline",
        "compiler_options",
        "abstracted_axes",
    }
)
"""The options ``proof.jit`` accepts: ``jax.jit``'s."""

Call = tuple[tuple[Any, ...], dict[str, Any]]
"""A call's ``(args, kwargs)``."""


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    if isinstance(value, int | str):
        return (value,)
    return tuple(value)


@dataclass(frozen=True)
class ArgSpec:
    """How a function's arguments split into static and dynamic ones, and which are donated."""

    static_argnums: frozenset[int]
    static_argnames: frozenset[str]
    donate_argnums: frozenset[int]
    donate_argnames: frozenset[str]

    @classmethod
    def of(cls, fun: Callable[..., Any], options: Mapping[str, Any]) -> ArgSpec:
        """Normalize ``jax.jit``'s argument options (names and positions map to each other)."""
        static_nums = set(_as_tuple(options.get("static_argnums")))
        static_names = set(_as_tuple(options.get("static_argnames")))
        donate_nums = set(_as_tuple(options.get("donate_argnums")))
        donate_names = set(_as_tuple(options.get("donate_argnames")))
        try:
            parameters = list(inspect.signature(fun).parameters.values())
        except (TypeError, ValueError):
            parameters = []
        positional = [
            p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        for nums, names in ((static_nums, static_names), (donate_nums, donate_names)):
            for i, name in enumerate(positional):
                if i in nums:
                    names.add(name)
                if name in names:
                    nums.add(i)
        return cls(
            frozenset(static_nums),
            frozenset(static_names),
            frozenset(donate_nums),
            frozenset(donate_names),
        )


def split_static(
    spec: ArgSpec, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], Call]:
    """``(static_values, (dynamic_args, dynamic_kwargs))``; static slots become ``None``."""
    n = len(args)
    nums = {i % n if n else i for i in spec.static_argnums if -n <= i < n}
    static = tuple((i, args[i]) for i in sorted(nums)) + tuple(
        (k, kwargs[k]) for k in sorted(kwargs) if k in spec.static_argnames
    )
    dyn_args = tuple(None if i in nums else a for i, a in enumerate(args))
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in spec.static_argnames}
    return static, (dyn_args, dyn_kwargs)


def merge_static(static: tuple[Any, ...], dyn: Call) -> Call:
    """The inverse of :func:`split_static`: the static values put back into their slots."""
    args, kwargs = list(dyn[0]), dict(dyn[1])
    for key, value in static:
        if isinstance(key, int):
            args[key] = value
        else:
            kwargs[key] = value
    return tuple(args), kwargs


def donated_positions(spec: ArgSpec, tree: PyTreeDef, n: int) -> frozenset[int]:
    """Flat input positions (of ``n`` dynamic leaves with structure ``tree``) that the options
    donate."""
    if not spec.donate_argnums and not spec.donate_argnames:
        return frozenset()
    args, kwargs = jax.tree.unflatten(tree, list(range(n)))
    out: set[int] = set()
    nargs = len(args)
    for i in spec.donate_argnums:
        if -nargs <= i < nargs:
            out.update(jax.tree.leaves(args[i]))
    for key in spec.donate_argnames:
        if key in kwargs:
            out.update(jax.tree.leaves(kwargs[key]))
    return frozenset(out)


def aval(x: Any) -> jax.ShapeDtypeStruct:
    """The abstract value JAX gives an input (64-bit types canonicalized unless x64 is on)."""
    dtype = jax.dtypes.canonicalize_dtype(np.result_type(x) if not hasattr(x, "dtype") else x.dtype)
    return jax.ShapeDtypeStruct(np.shape(x), dtype)


KeyImpls = tuple[Any, ...]
"""Per flat leaf, the PRNG implementation of a typed key (``jax.random.key_impl``), or
``None`` for any other leaf."""


def _is_key(x: Any) -> bool:
    dtype = getattr(x, "dtype", None)
    # A numpy dtype is never a key: the common case costs one isinstance.
    return (
        dtype is not None
        and not isinstance(dtype, np.dtype)
        and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)
    )


def key_impls(flat: Sequence[Any]) -> KeyImpls:
    """The PRNG implementation of each typed-key leaf of ``flat`` (``None`` for the others)."""
    return tuple(jax.random.key_impl(x) if _is_key(x) else None for x in flat)


def unwrap_keys(flat: Sequence[Any]) -> list[Any]:
    """``flat`` with every typed key replaced by its ``uint32`` key data
    (``jax.random.key_data``), the form the programs take and the batch commits."""
    return [jax.random.key_data(x) if _is_key(x) else x for x in flat]


def wrap_keys(flat: Sequence[Any], impls: KeyImpls) -> list[Any]:
    """The inverse of :func:`unwrap_keys`: the leaves with an implementation in ``impls``
    wrapped back into typed keys (``jax.random.wrap_key_data``); traced values too."""
    if not any(impl is not None for impl in impls):
        return list(flat)
    return [
        x if impl is None else jax.random.wrap_key_data(x, impl=impl)
        for x, impl in zip(flat, impls, strict=True)
    ]

"""``proof.attest``: the user's hermetic attested program, exported for the Rust runtime."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from zkdv.jax import _exported
from zkdv.session import _derive

__all__ = ["AttestedFunction"]


class AttestedFunction:
    """The callable ``proof.attest`` returns: the function jitted with 64-bit types enabled.

    Calling it runs the function with JAX (indices as ``uint64``); the session exports it with
    :meth:`export_text` when the first step is compiled.
    """

    def __init__(self, fun: Callable[..., Any], options: dict[str, Any]) -> None:
        if not callable(fun):
            raise TypeError(f"proof.attest: expected a function, got {fun!r}")
        options = dict(options)
        if options.pop("out_shardings", None) is not None:
            warnings.warn(
                "proof.attest: out_shardings is ignored; the attested outputs are two scalars "
                "whose layout the protocol fixes",
                stacklevel=3,
            )
        self._fun = fun
        # Every argument of the fixed ABI stays in the exported program, used or not.
        options["keep_unused"] = True
        self._jitted = jax.jit(fun, **options)
        functools.update_wrapper(self, fun)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with jax.enable_x64(True):
            return self._jitted(*args, **kwargs)

    def export_text(self, params: Any, opt_state: Any, packed: Any) -> str:
        """The function exported for the committed layout, as generic-form StableHLO.

        Raises:
            ValueError: when the outputs are not two scalar floating-point values, or the
                program is not hermetic (implicit randomness, host callbacks, ...).
        """
        index = jax.ShapeDtypeStruct((), np.uint64)
        with jax.enable_x64(True):
            exported = jax.export.export(self._jitted)(params, opt_state, packed, index, index)
        outs = exported.out_avals
        if len(outs) != 2 or any(
            a.shape != () or not jnp.issubdtype(a.dtype, jnp.floating) for a in outs
        ):
            got = ", ".join(f"{a.dtype}{list(a.shape)}" for a in outs)
            raise ValueError(
                f"proof.attest({self._fun.__name__}): must return two scalar floating-point "
                f"values (selected_delta, selected_post_optimizer_state); it returns ({got})"
            )
        return _derive.pipeline(
            _exported.generic_text(exported),
            "zkdv-hermetic-pipeline",
            f"<attested {self._fun.__name__}>",
        )

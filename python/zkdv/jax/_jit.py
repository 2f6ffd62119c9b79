"""``proof.jit``: the callable that traces a step once, then runs it per call in the session.

On the first call a :class:`ProvedFunction` builds its :class:`~zkdv.jax._program.StepProgram`
(:mod:`zkdv.jax._build`: discovery trace, canonical step, export or lowering, the production
program and its replay variant with the Rust passes' commitment hooks, the attested program) and
has the session commit it (:meth:`zkdv.jax._step_host.StepHost.register_program`).

Every later call checks that static arguments, tree structure, dtypes and the parameter and
optimizer-state shapes are those of the first call (a mismatch is an error, never a silent
retrace). Batch leaves of new shapes (a partial last batch, another sequence length) retrace as
``jax.jit`` does: a program is built and committed per batch layout, and reused when that
layout comes again. The flat inputs then go to the session
(:meth:`zkdv.jax._step_host.StepHost.run_step`), which packs the batch, launches the snapshot copy
when one is due, runs the production program and queues its sketches for the committer.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import jax
from jax.tree_util import PyTreeDef

from zkdv.jax._args import (
    JIT_OPTIONS,
    ArgSpec,
    aval,
    donated_positions,
    key_impls,
    split_static,
    unwrap_keys,
)
from zkdv.jax._build import FirstCall, build_program
from zkdv.jax._program import StepProgram
from zkdv.jax._step_host import StepHost

__all__ = ["ProvedFunction"]


class ProvedFunction:
    """The callable ``proof.jit`` returns; see :meth:`zkdv.jax.ZKDV.jit`.

    Args:
        host: The session that commits and runs the step.
        fun: The training step.
        options: ``jax.jit``'s options.
    """

    def __init__(self, host: StepHost, fun: Callable[..., Any], options: dict[str, Any]) -> None:
        unknown = sorted(set(options) - JIT_OPTIONS)
        if unknown:
            raise TypeError(
                f"proof.jit got unexpected options {unknown}; it accepts jax.jit's: "
                f"{sorted(JIT_OPTIONS)}"
            )
        if not callable(fun):
            raise TypeError(f"proof.jit: expected a function, got {fun!r}")
        self._host = host
        self._fun = fun
        self._options = dict(options)
        self._spec = ArgSpec.of(fun, options)
        self._program: StepProgram | None = None
        # Every program built, by the shapes of its batch leaves (the first one included).
        self._by_batch: dict[tuple[tuple[int, ...], ...], StepProgram] = {}
        self._lock = threading.Lock()
        functools.update_wrapper(self, fun)

    @property
    def program(self) -> StepProgram | None:
        """The first compiled step, once the function has been called."""
        return self._program

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run one attested step (building the program on the first call) and return what the
        function returns."""
        self._host.require_running("call a proof.jit function")
        args = self._place_inputs(args)
        static, dyn = split_static(self._spec, args, kwargs)
        flat, tree = jax.tree.flatten(dyn)
        keys = key_impls(flat)
        flat = unwrap_keys(flat)
        program = self._program_for(static, tree, flat, keys)
        out = self._host.run_step(program, flat)
        out_shardings = self._options.get("out_shardings")
        if out_shardings is not None:
            out = jax.device_put(out, out_shardings)
        return out

    def _place_inputs(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The positional arguments placed as ``in_shardings`` asks (a prefix of ``args``).

        The step is compiled for the placement of its inputs, so placing them first gives
        ``jax.jit``'s meaning to ``in_shardings``; static arguments are left alone.
        """
        in_shardings = self._options.get("in_shardings")
        if in_shardings is None:
            return args
        if not isinstance(in_shardings, tuple | list):
            in_shardings = (in_shardings,) * len(args)
        if len(in_shardings) != len(args):
            raise ValueError(
                f"proof.jit: in_shardings has {len(in_shardings)} entries for {len(args)} "
                "positional arguments"
            )
        n = len(args)
        static = {i % n for i in self._spec.static_argnums if -n <= i < n}
        return tuple(
            a if i in static or s is None else jax.device_put(a, s)
            for i, (a, s) in enumerate(zip(args, in_shardings, strict=True))
        )

    def lower_step(self, *args: Any, **kwargs: Any) -> StepProgram:
        """Build (or return) the compiled step for these arguments without running it.

        The session commits the step's programs as the first call would, and nothing runs: no
        parameter changes. A client derives the programs a session of its code commits this
        way, in a session of its own (``retain="all"``), and gives their hashes
        (:func:`zkdv.transcript.program_hashes`) to ``zkdv audit --program``.
        """
        static, dyn = split_static(self._spec, args, kwargs)
        flat, tree = jax.tree.flatten(dyn)
        keys = key_impls(flat)
        program = self._program_for(static, tree, unwrap_keys(flat), keys)
        self._host.commit_program(program)
        return program

    def _program_for(
        self, static: tuple[Any, ...], tree: PyTreeDef, flat: list[Any], keys: tuple[Any, ...]
    ) -> StepProgram:
        """The program of these inputs: built and registered with the session by the first call,
        and again by the first call of each new batch layout (checked compatible with the
        first call otherwise)."""
        with self._lock:
            first = self._program
            if first is None:
                program = self._build(static, tree, flat, keys)
                self._program = program
                self._by_batch[_batch_shapes(program, flat)] = program
                return program
            self._check_compatible(first, static, tree, flat, keys)
            shapes = _batch_shapes(first, flat)
            known = self._by_batch.get(shapes)
            if known is not None:
                return known
            # A new batch layout: retraced as jax.jit would, committed as a new program.
            program = self._build(static, tree, flat, keys)
            self._by_batch[shapes] = program
            return program

    def _build(
        self, static: tuple[Any, ...], tree: PyTreeDef, flat: list[Any], keys: tuple[Any, ...]
    ) -> StepProgram:
        call = FirstCall(
            fun=self._fun,
            name=getattr(self._fun, "__name__", "step"),
            options=self._options,
            static=static,
            tree=tree,
            flat=tuple(flat),
            keys=keys,
            donated=donated_positions(self._spec, tree, len(flat)),
        )
        program = build_program(call, self._host.probe_ratio, self._host.attested_function)
        self._host.register_program(program)
        return program

    def _check_compatible(
        self,
        program: StepProgram,
        static: tuple[Any, ...],
        tree: PyTreeDef,
        flat: list[Any],
        keys: tuple[Any, ...],
    ) -> None:
        """Raise unless ``flat`` fits the first call's ``program`` but for the shapes of batch
        leaves."""
        name = program.name
        try:
            same_static = static == program.static
        except Exception:  # noqa: BLE001  (an object whose == does not give a bool)
            same_static = False
        if not same_static:
            raise ValueError(
                f"proof.jit({name}): static arguments differ from the first call, which fixed "
                f"them in the program commitment: first {program.static!r}, now {static!r}"
            )
        if tree != program.in_tree:
            raise ValueError(
                f"proof.jit({name}): the input structure differs from the first call's; the "
                f"transcript's layout is fixed by it.\n first: {program.in_tree}\n now:   {tree}"
            )
        if keys != program.in_keys:
            raise ValueError(
                f"proof.jit({name}): the typed PRNG keys among the inputs differ from the first "
                f"call's (implementation per input leaf, None for arrays): first "
                f"{program.in_keys}, now {keys}"
            )
        batch = set(program.batch_positions)
        for i, (x, want) in enumerate(zip(flat, program.in_avals, strict=True)):
            if getattr(x, "shape", None) == want.shape and getattr(x, "dtype", None) == want.dtype:
                continue  # the common case, without building an abstract value per leaf
            got = aval(x)
            if got.dtype != want.dtype or (got.shape != want.shape and i not in batch):
                raise ValueError(
                    f"proof.jit({name}): input {_leaf_path(tree, i)} is "
                    f"{got.dtype}{list(got.shape)}, but the "
                    f"first call fixed it as {want.dtype}{list(want.shape)}"
                    + (" (only a batch leaf's shape may change)" if i in batch else "")
                )


def _leaf_path(tree: PyTreeDef, index: int) -> str:
    """Flat input leaf ``index`` of ``tree`` (``(args, kwargs)``) named by its path, for a
    message: ``argument 0 .params['Dense_0']['kernel']``, ``keyword argument 'batch'``."""
    positions = jax.tree.unflatten(tree, range(tree.num_leaves))
    paths, _ = jax.tree_util.tree_flatten_with_path(positions)
    if not 0 <= index < len(paths):
        return f"leaf {index}"
    path = paths[index][0]
    head = f"leaf {index}"
    if len(path) >= 2:
        where, which = path[0], path[1]
        if getattr(where, "idx", None) == 0 and hasattr(which, "idx"):
            head = f"argument {which.idx}"
        elif getattr(where, "idx", None) == 1 and hasattr(which, "key"):
            head = f"keyword argument {which.key!r}"
        else:
            return f"{jax.tree_util.keystr(path)} (leaf {index})"
        rest = jax.tree_util.keystr(path[2:])
        return f"{head} {rest}".strip() + f" (leaf {index})"
    return head


def _batch_shapes(program: StepProgram, flat: list[Any]) -> tuple[tuple[int, ...], ...]:
    """The shapes of the batch leaves among ``flat`` (positions as in ``program``)."""
    return tuple(tuple(aval(flat[i]).shape) for i in program.batch_positions)

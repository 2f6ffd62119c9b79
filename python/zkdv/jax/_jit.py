"""``proof.jit``: trace a step, rewrite it with the Rust passes, compile it, run it per step.

On the first call a :class:`ProvedFunction` builds a :class:`StepProgram`:

1. *Discovery trace* (``jax.eval_shape``): the step runs on abstract values under a trace
   context that collects its one :class:`~zkdv.jax.Transaction`. The transaction's parameter
   and optimizer-state leaves are found among the step's flat dynamic inputs by identity;
   every other dynamic input is a *batch leaf*, packed losslessly into the committed ``uint32``
   batch (:mod:`zkdv.jax._packing`).
2. *Canonical step*: the same function re-traced with the ABI of the passes, ``(params,
   opt_state, packed_batch) -> (post_params, post_opt_state, deltas, user_leaves)``, where the
   batch leaves are unpacked inside the program and ``user_leaves`` are the outputs that are not
   the post-update state. It is exported with ``jax.export`` and printed in generic form. A
   step that ``jax.export`` refuses (host callbacks, custom calls without compatibility
   guarantees) is lowered with ``jax.jit(...).lower()`` instead; its attested program must then
   come from an exportable ``attest_apply_fn`` or a ``proof.attest`` function.
3. *Production program*: ``--zkdv-annotate-roles --zkdv-insert-commitments=drop-deltas`` add
   the probe weight arguments and the update sketches and drop the update itself from the
   outputs (returning it costs a third of a small MLP step on XLA CPU); the result is compiled by
   JAX (:mod:`zkdv.jax._exported`, through ``Exported`` or, for a refused step, through a copy
   of its lowering), donating exactly the donated parameter leaves. The *replay
   variant* is the same module with the update kept as an output; checks rebuild pre-states
   and read the challenged update coordinate with it.
4. *Attested program*: the user's ``proof.attest`` function when one is registered, else
   ``--zkdv-inline --zkdv-check-hermetic --zkdv-annotate-roles --zkdv-slice-update
   --zkdv-push-select`` of the canonical step: the fixed ABI ``(params, opt_state, batch,
   parameter_index, optimizer_state_index) -> (delta, post_opt_state)``, run by the Rust runtime
   when a check is sampled.

Every later call checks that static arguments, tree structure, shapes and dtypes are those of
the first call (a mismatch is an error, never a silent retrace), packs the batch, launches the
snapshot copy when one is due, runs the production program and hands its sketches to the
session's pipeline.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from zkdv import passes
from zkdv.config import Tolerance
from zkdv.jax import _exported
from zkdv.jax._packing import BatchLayout
from zkdv.jax._transaction import Transaction, tracing

__all__ = ["JIT_OPTIONS", "ProvedFunction", "StepProgram", "split_static"]

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
    def of(cls, fun: Callable[..., Any], options: dict[str, Any]) -> ArgSpec:
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
) -> tuple[tuple[Any, ...], tuple[tuple[Any, ...], dict[str, Any]]]:
    """``(static_values, (dynamic_args, dynamic_kwargs))``; static slots become ``None``."""
    n = len(args)
    nums = {i % n if n else i for i in spec.static_argnums if -n <= i < n}
    static = tuple((i, args[i]) for i in sorted(nums)) + tuple(
        (k, kwargs[k]) for k in sorted(kwargs) if k in spec.static_argnames
    )
    dyn_args = tuple(None if i in nums else a for i, a in enumerate(args))
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in spec.static_argnames}
    return static, (dyn_args, dyn_kwargs)


def _merge(
    static: tuple[Any, ...], dyn: tuple[tuple[Any, ...], dict[str, Any]]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    args, kwargs = list(dyn[0]), dict(dyn[1])
    for key, value in static:
        if isinstance(key, int):
            args[key] = value
        else:
            kwargs[key] = value
    return tuple(args), kwargs


def _aval(x: Any) -> jax.ShapeDtypeStruct:
    """The abstract value JAX gives an input (64-bit types canonicalized unless x64 is on)."""
    dtype = jax.dtypes.canonicalize_dtype(np.result_type(x) if not hasattr(x, "dtype") else x.dtype)
    return jax.ShapeDtypeStruct(np.shape(x), dtype)


def _paths(tree: Any) -> list[str]:
    """'/'-joined key paths of ``tree``'s leaves (``Dense_0/kernel``, ``0/mu/Dense_0/bias``)."""
    flat, _ = jax.tree_util.tree_flatten_with_path(tree)
    paths = [jax.tree_util.keystr(path, simple=True, separator="/") or "leaf" for path, _ in flat]
    return paths


def _positions(what: str, leaves: list[Any], inputs: tuple[Any, ...]) -> list[int]:
    ids = {id(x): i for i, x in enumerate(inputs)}
    out = []
    for leaf in leaves:
        position = ids.get(id(leaf))
        if position is None:
            raise ValueError(
                f"zkdv.jax.Transaction: every leaf of {what} must be an input of the function "
                "compiled by proof.jit, passed through unchanged (the pre-update state is what "
                "the transaction commits to); one leaf is computed inside the function"
            )
        out.append(position)
    return out


def _one_transaction(transactions: list[Transaction], name: str) -> Transaction:
    if len(transactions) != 1:
        how = "none" if not transactions else f"{len(transactions)}"
        raise ValueError(
            f"proof.jit({name}): a step must declare exactly one transaction, found {how}. "
            "Create one zkdv.jax.Transaction(...) and call its update(...), or call "
            "apply_gradients on a zkdv.jax.contrib.TrainState exactly once"
        )
    transaction = transactions[0]
    if not transaction.updated:
        raise ValueError(
            f"proof.jit({name}): the transaction's update(deltas=, params=, opt_state=) was "
            "never called"
        )
    return transaction


@dataclass
class Placement:
    """Where the step's inputs live: one device, or a mesh with each state leaf's sharding.

    On a mesh (inputs placed with multi-device ``NamedSharding``), parameters, deltas and
    optimizer state keep their own shardings; the packed batch, the probe weights and the
    sketches are replicated over the same mesh, and XLA inserts the cross-shard reductions the
    sketches need.
    """

    mesh: Any = None
    params: tuple[Any, ...] = ()
    opt_state: tuple[Any, ...] = ()

    @classmethod
    def of(cls, flat: Sequence[Any], params: list[int], opt: list[int]) -> Placement:
        """The placement of the first call's inputs."""
        mesh = None
        for x in flat:
            sharding = getattr(x, "sharding", None)
            if isinstance(sharding, jax.sharding.NamedSharding) and sharding.mesh.size > 1:
                mesh = sharding.mesh
                break
        if mesh is None:
            return cls()

        def on_mesh(x: Any) -> Any:
            sharding = getattr(x, "sharding", None)
            if isinstance(sharding, jax.sharding.NamedSharding) and sharding.mesh == mesh:
                return jax.sharding.NamedSharding(mesh, sharding.spec)
            return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())

        return cls(
            mesh, tuple(on_mesh(flat[i]) for i in params), tuple(on_mesh(flat[i]) for i in opt)
        )

    @property
    def replicated(self) -> Any:
        """The replicated sharding over the mesh (``None`` on one device)."""
        if self.mesh is None:
            return None
        return jax.sharding.NamedSharding(self.mesh, jax.sharding.PartitionSpec())

    @property
    def replicate(self) -> Callable[[Any], Any] | None:
        """Lays a traced value out replicated over the mesh (``None`` on one device)."""
        if self.mesh is None:
            return None
        replicated = self.replicated
        return lambda x: self.constrain([x], [replicated])[0]

    def jit_in_shardings(self) -> dict[str, Any]:
        """``jax.jit`` options for the canonical step ``(params, opt_state, packed)``."""
        if self.mesh is None:
            return {}
        return {"in_shardings": (self.params, self.opt_state, self.replicated)}

    def constrain(self, leaves: Sequence[Any], shardings: Sequence[Any]) -> list[Any]:
        """Traced leaves laid out as ``shardings``: ``reshard`` on a mesh of explicit axes
        (where the layout is part of the type), a sharding constraint otherwise."""
        explicit = all(t == jax.sharding.AxisType.Explicit for t in self.mesh.axis_types)
        place = jax.sharding.reshard if explicit else jax.lax.with_sharding_constraint
        return [place(x, s) for x, s in zip(leaves, shardings, strict=True)]

    def put_state(self, leaves: Sequence[Any]) -> list[Any]:
        """Host state leaves (parameters, then optimizer state) placed as production's."""
        if self.mesh is None:
            return [jax.device_put(x) for x in leaves]
        shardings = self.params + self.opt_state
        return [jax.device_put(x, s) for x, s in zip(leaves, shardings, strict=True)]

    def structs(self, avals: Sequence[Any]) -> list[jax.ShapeDtypeStruct]:
        """Abstract inputs of an instrumented step: state leaves first, then replicated ones."""
        state = self.params + self.opt_state
        out = []
        for i, aval in enumerate(avals):
            sharding = None
            if self.mesh is not None:
                sharding = state[i] if i < len(state) else self.replicated
            out.append(jax.ShapeDtypeStruct(aval.shape, aval.dtype, sharding=sharding))
        return out

    def compile(
        self, exported: Any, donate_argnums: tuple[int, ...], options: dict[str, Any]
    ) -> Any:
        """``exported.call`` compiled ahead of time for inputs placed as this placement's."""
        jitted = jax.jit(exported.call, donate_argnums=donate_argnums, **options)
        return jitted.trace(*self.structs(exported.in_avals)).lower().compile()

    def put_small(self, x: Any) -> Any:
        """A batch or probe weight, on the device or replicated over the mesh."""
        return jax.device_put(x) if self.mesh is None else jax.device_put(x, self.replicated)


@dataclass
class StepProgram:
    """Everything fixed by the first call of a ``proof.jit`` function."""

    name: str
    static: tuple[Any, ...]
    in_tree: Any
    in_avals: tuple[jax.ShapeDtypeStruct, ...]
    param_positions: list[int]
    opt_positions: list[int]
    batch_positions: list[int]
    param_paths: list[str]
    opt_paths: list[str]
    param_avals: list[jax.ShapeDtypeStruct]
    opt_avals: list[jax.ShapeDtypeStruct]
    layout: BatchLayout
    out_tree: Any
    out_sources: list[tuple[str, int]]
    n_user: int
    production: Callable[..., Any]
    replay: Callable[..., Any]
    pack: Callable[..., Any]
    placement: Placement
    production_text: str
    attested_text: str
    canonical_text: str
    sketch_shapes: list[tuple[int, ...]]
    overlap_of: Callable[[], Any]
    program_seq: int = -1
    tolerance: Tolerance | None = None
    """The tolerance of this program's checks, set when the session registers it."""

    @property
    def n_params(self) -> int:
        """Parameter leaves."""
        return len(self.param_positions)

    def split_outputs(self, outputs: Sequence[Any], deltas: bool = False) -> dict[str, list[Any]]:
        """The outputs of the production program (or, with ``deltas``, its replay variant)."""
        p, o = self.n_params, len(self.opt_positions)
        parts = {}
        start = 0
        for key, count in (
            ("post_params", p),
            ("post_opt_state", o),
            ("deltas", p if deltas else 0),
            ("user", self.n_user),
            ("sketches", len(self.sketch_shapes)),
        ):
            parts[key] = list(outputs[start : start + count])
            start += count
        return parts

    def user_output(self, parts: dict[str, list[Any]]) -> Any:
        """The function's own return value, rebuilt from the production outputs."""
        table = {"p": parts["post_params"], "o": parts["post_opt_state"], "u": parts["user"]}
        return jax.tree.unflatten(self.out_tree, [table[k][i] for k, i in self.out_sources])


class ProvedFunction:
    """The callable ``proof.jit`` returns; see :meth:`zkdv.jax.ZKDV.jit`."""

    def __init__(self, proof: Any, fun: Callable[..., Any], options: dict[str, Any]) -> None:
        unknown = sorted(set(options) - JIT_OPTIONS)
        if unknown:
            raise TypeError(
                f"proof.jit got unexpected options {unknown}; it accepts jax.jit's: "
                f"{sorted(JIT_OPTIONS)}"
            )
        if not callable(fun):
            raise TypeError(f"proof.jit: expected a function, got {fun!r}")
        self._proof = proof
        self._fun = fun
        self._options = dict(options)
        self._spec = ArgSpec.of(fun, options)
        self._program: StepProgram | None = None
        self._lock = threading.Lock()
        functools.update_wrapper(self, fun)

    @property
    def program(self) -> StepProgram | None:
        """The compiled step, once the function has been called."""
        return self._program

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        proof = self._proof
        proof._require_running("call a proof.jit function")
        args = self._place_inputs(args)
        static, dyn = split_static(self._spec, args, kwargs)
        flat, tree = jax.tree.flatten(dyn)
        with self._lock:
            if self._program is None:
                self._program = self._build(static, tree, flat)
        program = self._program
        self._check_compatible(program, static, tree, flat)
        out = proof._run_step(program, flat)
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
        """Build (or return) the compiled step for these arguments without running it."""
        static, dyn = split_static(self._spec, args, kwargs)
        flat, tree = jax.tree.flatten(dyn)
        with self._lock:
            if self._program is None:
                self._program = self._build(static, tree, flat)
        return self._program

    # -- first call -------------------------------------------------------------------------

    def _check_compatible(
        self, program: StepProgram, static: tuple[Any, ...], tree: Any, flat: list[Any]
    ) -> None:
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
        for i, (x, want) in enumerate(zip(flat, program.in_avals, strict=True)):
            if getattr(x, "shape", None) == want.shape and getattr(x, "dtype", None) == want.dtype:
                continue  # the common case, without building an abstract value per leaf
            got = _aval(x)
            if got.shape != want.shape or got.dtype != want.dtype:
                raise ValueError(
                    f"proof.jit({name}): input leaf {i} is {got.dtype}{list(got.shape)}, but the "
                    f"first call fixed it as {want.dtype}{list(want.shape)}"
                )

    def _rebuild(
        self, static: tuple[Any, ...], tree: Any, flat: Sequence[Any], replay: bool = False
    ) -> Any:
        args, kwargs = _merge(static, jax.tree.unflatten(tree, list(flat)))
        if replay:
            # Contrib states swap in their attest_apply_fn for the attested program.
            def swap(x: Any) -> Any:
                return x.for_replay() if hasattr(x, "for_replay") else x

            def is_state(x: Any) -> bool:
                return hasattr(x, "for_replay")

            args, kwargs = jax.tree.map(swap, (args, kwargs), is_leaf=is_state)
        return args, kwargs

    def _replays_differently(self, static: tuple[Any, ...], tree: Any, n: int) -> bool:
        args, kwargs = _merge(static, jax.tree.unflatten(tree, [0] * n))
        states = jax.tree.leaves((args, kwargs), is_leaf=lambda x: hasattr(x, "for_replay"))
        return any(getattr(x, "attest_apply_fn", None) is not None for x in states)

    def _build(self, static: tuple[Any, ...], tree: Any, flat: list[Any]) -> StepProgram:
        proof = self._proof
        name = getattr(self._fun, "__name__", "step")
        avals = tuple(_aval(x) for x in flat)

        # 1. Discovery: which inputs are the transaction's state.
        found: dict[str, Any] = {}

        def discover(*inputs: Any) -> Any:
            with tracing(inputs) as trace:
                args, kwargs = self._rebuild(static, tree, inputs)
                out = self._fun(*args, **kwargs)
            transaction = _one_transaction(trace.transactions, name)
            found["params"] = _positions("params", jax.tree.leaves(transaction.params), inputs)
            found["opt"] = _positions("opt_state", jax.tree.leaves(transaction.opt_state), inputs)
            found["param_paths"] = _paths(transaction.params)
            found["opt_paths"] = _paths(transaction.opt_state)
            found["param_tree"] = jax.tree.structure(transaction.params)
            found["opt_tree"] = jax.tree.structure(transaction.opt_state)
            found["origin"] = transaction.origin
            found["overlap"] = transaction.resolve_overlap
            return out

        jax.eval_shape(discover, *avals)
        params, opt = found["params"], found["opt"]
        if not params:
            raise ValueError(f"proof.jit({name}): the transaction's params tree has no leaves")
        if len(set(params + opt)) != len(params) + len(opt):
            raise ValueError(
                f"proof.jit({name}): one input is both a parameter and optimizer state, or "
                "appears twice in the transaction"
            )
        state = set(params) | set(opt)
        batch = [i for i in range(len(flat)) if i not in state]
        donated = self._donated(tree, len(flat))
        opt_donated = sorted(set(opt) & donated)
        if opt_donated and found["origin"] == "explicit":
            raise ValueError(
                f"proof.jit({name}): pre-update optimizer state cannot be donated (a sampled "
                "check may still need it); remove its argument from donate_argnums/"
                "donate_argnames, or donate the parameters only"
            )
        param_donation = [k for k, i in enumerate(params) if i in donated]
        layout = BatchLayout.of([(avals[i].shape, avals[i].dtype) for i in batch])
        placement = Placement.of(flat, params, opt)

        # 2. The canonical step.
        shape_info: dict[str, Any] = {}

        def canonical(
            p: tuple[Any, ...], o: tuple[Any, ...], packed: Any, replay: bool = False
        ) -> Any:
            inputs: list[Any] = [None] * len(flat)
            for i, x in zip(params, p, strict=True):
                inputs[i] = x
            for i, x in zip(opt, o, strict=True):
                inputs[i] = x
            for i, x in zip(batch, layout.unpack(packed), strict=True):
                inputs[i] = x
            with tracing(tuple(inputs)) as trace:
                args, kwargs = self._rebuild(static, tree, inputs, replay)
                out = self._fun(*args, **kwargs)
            transaction = _one_transaction(trace.transactions, name)
            post_p = jax.tree.leaves(transaction.post_params)
            post_o = jax.tree.leaves(transaction.post_opt_state)
            deltas = jax.tree.leaves(transaction.deltas)
            out_leaves, out_tree = jax.tree.flatten(out)
            ids_p = {id(x): k for k, x in enumerate(post_p)}
            ids_o = {id(x): k for k, x in enumerate(post_o)}
            sources: list[tuple[str, int]] = []
            user: list[Any] = []
            for leaf in out_leaves:
                if id(leaf) in ids_p:
                    sources.append(("p", ids_p[id(leaf)]))
                elif id(leaf) in ids_o:
                    sources.append(("o", ids_o[id(leaf)]))
                else:
                    sources.append(("u", len(user)))
                    user.append(leaf)
            shape_info.update(out_tree=out_tree, sources=sources, n_user=len(user))
            if placement.mesh is not None:
                # Every parameter, delta and optimizer leaf keeps its input's layout.
                post_p = placement.constrain(post_p, placement.params)
                deltas = placement.constrain(deltas, placement.params)
                post_o = placement.constrain(post_o, placement.opt_state)
            return tuple(post_p), tuple(post_o), tuple(deltas), tuple(user)

        param_avals = [avals[i] for i in params]
        opt_avals = [avals[i] for i in opt]
        packed_aval = jax.ShapeDtypeStruct(layout.shape, np.uint32)
        platforms = None
        if self._options.get("backend"):
            platforms = [self._options["backend"]]

        def export_canonical(replay: bool) -> Any:
            step = functools.partial(canonical, replay=replay)
            return jax.export.export(
                jax.jit(step, keep_unused=True, **placement.jit_in_shardings()),
                platforms=platforms,
            )(tuple(param_avals), tuple(opt_avals), packed_aval)

        n_state = len(params) + len(opt)

        def lower_canonical(donate: Sequence[int], options: dict[str, Any]) -> Any:
            """The canonical step lowered from flat arrays without ``jax.export``, with the
            ``jax.jit`` options that the compilation of the copied lowering keeps."""

            def flat_step(*xs: Any) -> Any:
                return canonical(xs[: len(params)], xs[len(params) : n_state], xs[n_state])

            shardings = {}
            if placement.mesh is not None:
                state = placement.params + placement.opt_state
                shardings = {"in_shardings": (*state, placement.replicated)}
            jitted = jax.jit(
                flat_step,
                keep_unused=True,
                donate_argnums=tuple(donate),
                **shardings,
                **options,
            )
            lowered = jitted.trace(*param_avals, *opt_avals, packed_aval).lower()
            if _exported.has_ordered_effects(lowered):
                raise ValueError(
                    f"proof.jit({name}): the step has ordered effects (io_callback with "
                    "ordered=True), which zkdv.jax does not support; use ordered=False or "
                    "jax.debug.callback"
                )
            return lowered

        # A step that jax.export refuses (a host callback, a custom call without compatibility
        # guarantees) still runs in production; only the attested program must be exportable.
        refused: Exception | None = None
        try:
            exported: Any = export_canonical(replay=False)
            canonical_text = _exported.generic_text(exported)
        except (NotImplementedError, ValueError) as error:
            exported, refused = None, error
            canonical_text = _exported.lowered_text(lower_canonical(param_donation, {}))
        outputs = dict(shape_info)

        # 3. Production: commitment hooks, compiled by JAX.
        ratio = proof._probe_ratio
        jit_options = {
            k: v
            for k, v in self._options.items()
            if k in ("device", "backend", "compiler_options", "inline")
        }

        def instrument(
            drop_deltas: bool, donate: Sequence[int], options: dict[str, Any]
        ) -> tuple[str, Any, list[tuple[int, ...]]]:
            lowered = None if exported is not None else lower_canonical(donate, options)
            base = canonical_text if lowered is None else _exported.lowered_text(lowered)
            option = f"zkdv-insert-commitments=ratio={ratio!r}"
            text, _ = passes.run_passes(
                base,
                ["zkdv-annotate-roles", f"{option} drop-deltas" if drop_deltas else option],
                f"<{name}: production>",
            )
            signature = _exported.signature(text)
            in_avals = [jax.core.ShapedArray(s, d) for s, d in signature.arguments]
            out_avals = [jax.core.ShapedArray(s, d) for s, d in signature.results]
            n_sketch = len(in_avals) - (n_state + 1)
            sketches = [tuple(a.shape) for a in out_avals[len(out_avals) - n_sketch :]]
            n_out = len(out_avals) - n_sketch + (len(params) if drop_deltas else 0)
            kept = [
                i
                for i in range(n_out)
                if not (drop_deltas and n_state <= i < n_state + len(params))
            ]
            if lowered is not None:
                return (
                    text,
                    _exported.compile_lowered(lowered, text, in_avals, out_avals, kept),
                    sketches,
                )
            rewritten = _exported.replace_module(exported, text, in_avals, out_avals, kept)
            return text, placement.compile(rewritten, tuple(donate), options), sketches

        # Both are compiled now, so neither the first step nor the first check pays for it.
        production_text, production, sketch_shapes = instrument(
            drop_deltas=True, donate=param_donation, options=jit_options
        )
        # Replays run on copies of host snapshots: every state buffer can be donated.
        _, replay, _ = instrument(drop_deltas=False, donate=range(n_state), options={})

        # 4. The attested program.
        replay_text = canonical_text
        if self._replays_differently(static, tree, len(flat)):
            replay_text = _exported.generic_text(export_canonical(replay=True))
        elif refused is not None and proof._attest is None:
            raise ValueError(
                f"proof.jit({name}): the step cannot pass jax.export ({refused}), and the "
                "attested program that checks replay must be exportable; give the TrainState "
                "an exportable attest_apply_fn, or register the transition with @proof.attest"
            ) from refused
        attested_text = proof._attested_text(
            replay_text,
            name,
            jax.tree.unflatten(found["param_tree"], param_avals),
            jax.tree.unflatten(found["opt_tree"], opt_avals),
            packed_aval,
        )
        program = StepProgram(
            name=name,
            static=static,
            in_tree=tree,
            in_avals=avals,
            param_positions=params,
            opt_positions=opt,
            batch_positions=batch,
            param_paths=found["param_paths"],
            opt_paths=found["opt_paths"],
            param_avals=param_avals,
            opt_avals=opt_avals,
            layout=layout,
            out_tree=outputs["out_tree"],
            out_sources=outputs["sources"],
            n_user=outputs["n_user"],
            production=production,
            replay=replay,
            # The batch is packed on the device, so dispatching a step never waits for the
            # previous one (a step counter in the batch is the previous step's output).
            pack=jax.jit(
                functools.partial(layout.pack_traced, replicate=placement.replicate),
                out_shardings=placement.replicated,
            ),
            placement=placement,
            production_text=production_text,
            attested_text=attested_text,
            canonical_text=canonical_text,
            sketch_shapes=sketch_shapes,
            overlap_of=found["overlap"],
        )
        proof._register_program(program)
        return program

    def _donated(self, tree: Any, n: int) -> set[int]:
        """Flat input positions whose arguments the options donate."""
        spec = self._spec
        if not spec.donate_argnums and not spec.donate_argnames:
            return set()
        marks = jax.tree.unflatten(tree, list(range(n)))
        args, kwargs = marks
        out: set[int] = set()
        nargs = len(args)
        for i in spec.donate_argnums:
            if -nargs <= i < nargs:
                out.update(jax.tree.leaves(args[i]))
        for key in spec.donate_argnames:
            if key in kwargs:
                out.update(jax.tree.leaves(kwargs[key]))
        return out

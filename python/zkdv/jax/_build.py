"""Building a :class:`~zkdv.jax._program.StepProgram` from the first call of a ``proof.jit`` step.

:func:`build_program` runs the stages in order, each a function of the previous ones' results:

1. :func:`discover` (``jax.eval_shape``): the step runs on abstract values under a trace
   context that collects its one :class:`~zkdv.jax.Transaction`. The transaction's parameter
   and optimizer-state leaves are found among the step's flat dynamic inputs by identity;
   :func:`partition` makes every other dynamic input a *batch leaf*, packed losslessly into the
   committed ``uint32`` batch (:mod:`zkdv._packing`), and fixes donation and placement.
2. :class:`Canonical`: the same function re-traced with the ABI of the passes, ``(params,
   opt_state, packed_batch) -> (post_params, post_opt_state, deltas, user_leaves)``, where the
   batch leaves are unpacked inside the program and ``user_leaves`` are the outputs that are not
   the post-update state.
3. :func:`export_or_lower`: the canonical step exported with ``jax.export`` and printed in
   generic form. A step that ``jax.export`` refuses (host callbacks, custom calls without
   compatibility guarantees) is lowered with ``jax.jit(...).lower()`` instead; its attested
   program must then come from an exportable ``attest_apply_fn`` or a ``proof.attest``
   function.
4. :func:`instrument`: ``--zkdv-annotate-roles --zkdv-insert-commitments=join drop-deltas`` add the
   probe weight arguments and the update sketches and drop the update itself from the outputs
   (returning it costs a third of a small MLP step on XLA CPU); the result is compiled by JAX
   (:mod:`zkdv.jax._exported`, through ``Exported`` or, for a refused step, through a copy of
   its lowering), donating exactly the donated parameter leaves. The *replay variant* is the
   same module with the update kept as an output; checks rebuild pre-states and read the
   challenged update coordinate with it.
5. :func:`attest`: the user's ``proof.attest`` function when one is registered, else
   ``--zkdv-attested-pipeline`` of the canonical step (``passes/src/pipelines.rs``): the fixed
   ABI ``(params, opt_state, batch, parameter_index, optimizer_state_index) -> (delta,
   post_opt_state)``, run by the Rust runtime when a check is sampled.
6. :func:`build_program` assembles the :class:`StepProgram`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import jax
import numpy as np
from jax.tree_util import PyTreeDef

from zkdv import _progress
from zkdv._packing import BatchLayout
from zkdv.jax import _exported
from zkdv.jax._args import Call, aval, key_impls, merge_static, unwrap_keys, wrap_keys
from zkdv.jax._attest import AttestedFunction
from zkdv.jax._program import OutputLayout, PackedBatch, Placement, StepProgram
from zkdv.jax._transaction import Transaction, tracing
from zkdv.overlap import Overlap
from zkdv.session import _derive

__all__ = ["FirstCall", "build_program"]

CanonicalOutputs = tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]
"""``(post_params, post_opt_state, deltas, user_leaves)`` of the canonical step."""


@dataclass(frozen=True)
class FirstCall:
    """The user's step and the first call that fixes its program."""

    fun: Callable[..., Any]
    name: str
    options: Mapping[str, Any]
    """``proof.jit``'s options (``jax.jit``'s)."""
    static: tuple[Any, ...]
    tree: PyTreeDef
    flat: tuple[Any, ...]
    """The call's flat dynamic inputs, typed PRNG keys as their key data."""
    keys: tuple[Any, ...]
    """Per flat input, the PRNG implementation of a typed key (``None`` for arrays)."""
    donated: frozenset[int]
    """Flat positions of the donated inputs."""

    def arguments(self, flat: Sequence[Any], replay: bool = False) -> Call:
        """The step's ``(args, kwargs)`` with ``flat`` as the dynamic inputs; with ``replay``,
        contrib states swap in their ``attest_apply_fn`` for the attested program. Key data
        in ``flat`` is wrapped back into the typed keys the function was called with."""
        flat = wrap_keys(flat, self.keys)
        args, kwargs = merge_static(self.static, jax.tree.unflatten(self.tree, flat))
        if replay:

            def swap(x: Any) -> Any:
                return x.for_replay() if hasattr(x, "for_replay") else x

            def is_state(x: Any) -> bool:
                return hasattr(x, "for_replay")

            args, kwargs = jax.tree.map(swap, (args, kwargs), is_leaf=is_state)
        return args, kwargs

    def replays_differently(self) -> bool:
        """Whether a contrib state of the call has an ``attest_apply_fn``."""
        args, kwargs = merge_static(
            self.static, jax.tree.unflatten(self.tree, [0] * len(self.flat))
        )
        states = jax.tree.leaves((args, kwargs), is_leaf=lambda x: hasattr(x, "for_replay"))
        return any(getattr(x, "attest_apply_fn", None) is not None for x in states)


# -- 1. discovery ---------------------------------------------------------------------------------


def _paths(tree: Any) -> tuple[str, ...]:
    """'/'-joined key paths of ``tree``'s leaves (``Dense_0/kernel``, ``0/mu/Dense_0/bias``)."""
    flat, _ = jax.tree_util.tree_flatten_with_path(tree)
    return tuple(
        jax.tree_util.keystr(path, simple=True, separator="/") or "leaf" for path, _ in flat
    )


def _positions(what: str, leaves: list[Any], inputs: tuple[Any, ...]) -> tuple[int, ...]:
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
    return tuple(out)


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


@dataclass(frozen=True)
class Discovery:
    """What the discovery trace found: the transaction's state among the flat inputs."""

    params: tuple[int, ...]
    opt: tuple[int, ...]
    param_paths: tuple[str, ...]
    opt_paths: tuple[str, ...]
    param_tree: PyTreeDef
    opt_tree: PyTreeDef
    origin: str
    """``"explicit"`` (a ``zkdv.jax.Transaction``) or ``"contrib"`` (a ``TrainState``)."""
    overlap_of: Callable[[], Overlap]


def discover(call: FirstCall, avals: tuple[jax.ShapeDtypeStruct, ...]) -> Discovery:
    """Trace the step on abstract values and find its transaction's state leaves."""
    found: Discovery | None = None

    def trace(*inputs: Any) -> Any:
        nonlocal found
        with tracing(inputs) as context:
            args, kwargs = call.arguments(inputs)
            out = call.fun(*args, **kwargs)
        transaction = _one_transaction(context.transactions, call.name)
        found = Discovery(
            params=_positions("params", jax.tree.leaves(transaction.params), inputs),
            opt=_positions("opt_state", jax.tree.leaves(transaction.opt_state), inputs),
            param_paths=_paths(transaction.params),
            opt_paths=_paths(transaction.opt_state),
            param_tree=jax.tree.structure(transaction.params),
            opt_tree=jax.tree.structure(transaction.opt_state),
            origin=transaction.origin,
            overlap_of=transaction.resolve_overlap,
        )
        return out

    # Placed as the inputs are: on a mesh of explicit axes the layout is part of the type.
    placed = [
        jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s)
        if isinstance(s := getattr(x, "sharding", None), jax.sharding.NamedSharding)
        else a
        for a, x in zip(avals, call.flat, strict=True)
    ]
    jax.eval_shape(trace, *placed)
    assert found is not None
    return found


@dataclass(frozen=True)
class Inputs:
    """The first call's flat inputs split into state and batch, with donation and placement."""

    avals: tuple[jax.ShapeDtypeStruct, ...]
    params: tuple[int, ...]
    opt: tuple[int, ...]
    batch: tuple[int, ...]
    param_donation: tuple[int, ...]
    """Positions among the parameter leaves of those donated."""
    layout: BatchLayout
    placement: Placement

    @property
    def n_state(self) -> int:
        """Parameter and optimizer-state leaves."""
        return len(self.params) + len(self.opt)

    @property
    def param_avals(self) -> list[jax.ShapeDtypeStruct]:
        """The abstract parameter leaves."""
        return [self.avals[i] for i in self.params]

    @property
    def opt_avals(self) -> list[jax.ShapeDtypeStruct]:
        """The abstract optimizer-state leaves."""
        return [self.avals[i] for i in self.opt]

    @property
    def packed_aval(self) -> jax.ShapeDtypeStruct:
        """The abstract packed batch."""
        return jax.ShapeDtypeStruct(self.layout.shape, np.uint32)

    def packed_arguments(self, split: bool) -> Any:
        """The abstract batch argument of the canonical step: the packed batch, or with
        ``split`` the tuple of its data rows and side rows (:class:`Placement`)."""
        if not split:
            return self.packed_aval
        rows, width = self.layout.rows, self.layout.width
        parts = [jax.ShapeDtypeStruct((rows, width), np.uint32)]
        if self.placement.side_rows:
            parts.append(jax.ShapeDtypeStruct((self.placement.side_rows, width), np.uint32))
        return tuple(parts)


def partition(call: FirstCall, avals: tuple[jax.ShapeDtypeStruct, ...], found: Discovery) -> Inputs:
    """Check the discovered state and split the remaining inputs off as the batch."""
    name = call.name
    params, opt = found.params, found.opt
    if not params:
        raise ValueError(f"proof.jit({name}): the transaction's params tree has no leaves")
    if len(set(params + opt)) != len(params) + len(opt):
        raise ValueError(
            f"proof.jit({name}): one input is both a parameter and optimizer state, or "
            "appears twice in the transaction"
        )
    state = set(params) | set(opt)
    batch = tuple(i for i in range(len(call.flat)) if i not in state)
    layout = BatchLayout.of([(avals[i].shape, avals[i].dtype) for i in batch])
    opt_donated = sorted(set(opt) & call.donated)
    if opt_donated and found.origin == "explicit":
        raise ValueError(
            f"proof.jit({name}): pre-update optimizer state cannot be donated (a sampled "
            "check may still need it); remove its argument from donate_argnums/"
            "donate_argnames, or donate the parameters only"
        )
    return Inputs(
        avals=avals,
        params=params,
        opt=opt,
        batch=batch,
        param_donation=tuple(k for k, i in enumerate(params) if i in call.donated),
        layout=layout,
        placement=Placement.of(call.flat, params, opt, batch, layout),
    )


# -- 2. the canonical step ------------------------------------------------------------------------


class Canonical:
    """The canonical step ``(params, opt_state, packed) -> (post_params, post_opt_state, deltas,
    user_leaves)``, traced, exported and lowered; it keeps the output layout its latest trace
    found (:attr:`outputs`)."""

    def __init__(self, call: FirstCall, inputs: Inputs) -> None:
        self.call = call
        self.inputs = inputs
        self._outputs: OutputLayout | None = None

    @property
    def outputs(self) -> OutputLayout:
        """How the function's return value maps onto the outputs (known once traced)."""
        assert self._outputs is not None, "the canonical step was not traced yet"
        return self._outputs

    def canonical(
        self, p: Sequence[Any], o: Sequence[Any], packed: Any, replay: bool = False
    ) -> CanonicalOutputs:
        """The step on its state and packed batch (while JAX traces it; JAX names the exported
        module after this function, ``jit_canonical``). ``packed`` is the packed batch, or
        the tuple of its data rows and (when there are any) side rows."""
        inputs, placement = self.inputs, self.inputs.placement
        flat: list[Any] = [None] * len(self.call.flat)
        for i, x in zip(inputs.params, p, strict=True):
            flat[i] = x
        for i, x in zip(inputs.opt, o, strict=True):
            flat[i] = x
        if isinstance(packed, tuple):
            batch = inputs.layout.unpack(packed[0], packed[1] if len(packed) > 1 else packed[0][:0])
        else:
            batch = inputs.layout.unpack(packed)
        if placement.mesh is not None:
            # Each batch leaf keeps its input's layout, so XLA partitions the work as jax.jit.
            batch = placement.constrain(batch, placement.batch)
        for i, x in zip(inputs.batch, batch, strict=True):
            flat[i] = x
        with tracing(tuple(flat)) as context:
            args, kwargs = self.call.arguments(flat, replay)
            out = self.call.fun(*args, **kwargs)
        transaction = _one_transaction(context.transactions, self.call.name)
        post_p = jax.tree.leaves(transaction.post_params)
        post_o = jax.tree.leaves(transaction.post_opt_state)
        deltas = jax.tree.leaves(transaction.deltas)
        out_leaves, out_tree = jax.tree.flatten(out)
        # Typed keys leave the program as key data and are wrapped again on the host.
        out_keys = key_impls(out_leaves)
        out_leaves = unwrap_keys(out_leaves)
        ids_p = {id(x): k for k, x in enumerate(post_p)}
        ids_o = {id(x): k for k, x in enumerate(post_o)}
        sources: list[tuple[Literal["p", "o", "u"], int]] = []
        user: list[Any] = []
        for leaf in out_leaves:
            if id(leaf) in ids_p:
                sources.append(("p", ids_p[id(leaf)]))
            elif id(leaf) in ids_o:
                sources.append(("o", ids_o[id(leaf)]))
            else:
                sources.append(("u", len(user)))
                user.append(leaf)
        self._outputs = OutputLayout(out_tree, tuple(sources), len(user), out_keys)
        if placement.mesh is not None:
            # Every parameter, delta and optimizer leaf keeps its input's layout.
            post_p = placement.constrain(post_p, placement.params)
            deltas = placement.constrain(deltas, placement.params)
            post_o = placement.constrain(post_o, placement.opt_state)
        return tuple(post_p), tuple(post_o), tuple(deltas), tuple(user)

    def export(self, replay: bool, split: bool = False) -> jax.export.Exported:
        """The step exported with ``jax.export`` (``replay``: contrib states replaying;
        ``split``: the packed batch split by rows, see :class:`Placement`)."""
        inputs = self.inputs
        platforms = None
        if self.call.options.get("backend"):
            platforms = [self.call.options["backend"]]
        step = functools.partial(self.canonical, replay=replay)
        params, opt, packed = self.typed_arguments(split)
        return jax.export.export(
            jax.jit(step, keep_unused=True, **inputs.placement.jit_in_shardings(split)),
            platforms=platforms,
        )(params, opt, packed)

    def typed_arguments(self, split: bool) -> tuple[Any, Any, Any]:
        """The abstract ``(params, opt_state, packed)`` the canonical step is traced on, each
        carrying its input's sharding on a mesh, as the placed arrays do under ``jax.jit``. On
        a mesh of explicit axes the sharding is part of the type: a replicated parameter typed
        without the mesh would make the weight gradient of a batch-sharded matrix product
        (its contraction over the sharded rows) ambiguous, where ``jax.jit`` gives it the
        parameter's sharding."""
        inputs, placement = self.inputs, self.inputs.placement
        n_params, n_state = len(inputs.params), inputs.n_state
        packed = inputs.packed_arguments(split)
        parts = list(packed) if split else [packed]
        typed = placement.structs([*inputs.param_avals, *inputs.opt_avals, *parts], split)
        batch = tuple(typed[n_state:]) if split else typed[n_state]
        return tuple(typed[:n_params]), tuple(typed[n_params:n_state]), batch

    def lower(self, donate: Sequence[int], options: Mapping[str, Any]) -> jax.stages.Lowered:
        """The step lowered from flat arrays without ``jax.export``, with the ``jax.jit``
        options that the compilation of the copied lowering keeps."""
        inputs, placement = self.inputs, self.inputs.placement
        n_params, n_state = len(inputs.params), inputs.n_state

        def flat_step(*xs: Any) -> CanonicalOutputs:  # the lowered module is jit_flat_step
            return self.canonical(xs[:n_params], xs[n_params:n_state], xs[n_state])

        shardings: dict[str, Any] = {}
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
        params, opt, packed = self.typed_arguments(split=False)
        lowered = jitted.trace(*params, *opt, packed).lower()
        if _exported.has_ordered_effects(lowered):
            raise ValueError(
                f"proof.jit({self.call.name}): the step has ordered effects (io_callback with "
                "ordered=True), which zkdv.jax does not support; use ordered=False or "
                "jax.debug.callback"
            )
        return lowered


# -- 3. export (or lowering) ----------------------------------------------------------------------


@dataclass(frozen=True)
class CanonicalForm:
    """The canonical step exported (or, where ``jax.export`` refuses it, lowered), printed."""

    text: str
    """Generic-form StableHLO."""
    exported: jax.export.Exported | None
    """``None`` when ``jax.export`` refused the step."""
    refused: Exception | None
    """Why ``jax.export`` refused it."""
    outputs: OutputLayout
    split: bool = False
    """Whether :attr:`text` takes the packed batch split by rows (a sharded batch)."""
    whole_text: str = ""
    """The step with the whole packed batch as one argument (the attested program's ABI);
    :attr:`text` itself unless :attr:`split`."""

    @property
    def single_text(self) -> str:
        """The canonical step with the packed batch as one argument."""
        return self.whole_text or self.text


def export_or_lower(canonical: Canonical) -> CanonicalForm:
    """Export the canonical step, or lower it when ``jax.export`` refuses it.

    A step that ``jax.export`` refuses (a host callback, a custom call without compatibility
    guarantees) still runs in production; only the attested program must be exportable.
    """
    try:
        split = canonical.inputs.placement.split
        exported = canonical.export(replay=False, split=split)
        text = _exported.generic_text(exported)
        whole = _exported.generic_text(canonical.export(replay=False)) if split else ""
        return CanonicalForm(text, exported, None, canonical.outputs, split, whole)
    except (NotImplementedError, ValueError) as error:
        lowered = canonical.lower(canonical.inputs.param_donation, {})
        return CanonicalForm(_exported.lowered_text(lowered), None, error, canonical.outputs)


# -- 4. instrumentation ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Instrumented:
    """A compiled instrumented step: the production program or its replay variant."""

    text: str
    compiled: Callable[..., Any]
    sketch_shapes: tuple[tuple[int, ...], ...]


def production_text(base: str, name: str, ratio: float, drop_deltas: bool) -> str:
    """The canonical module ``base`` with the commitment hooks (probe weights, and the sketches
    joined into one result: a step copies one array to the host, not one per leaf)."""
    options = f"ratio={ratio!r} join" + (" drop-deltas" if drop_deltas else "")
    return _derive.pipeline(base, f"zkdv-production-pipeline={options}", f"<{name}: production>")


def instrument(
    canonical: Canonical,
    form: CanonicalForm,
    ratio: float,
    drop_deltas: bool,
    donate: Sequence[int],
    options: dict[str, Any],
) -> Instrumented:
    """Add the commitment hooks to the canonical step and compile it, donating ``donate``."""
    inputs = canonical.inputs
    n_params, n_state = len(inputs.params), inputs.n_state
    lowered = None if form.exported is not None else canonical.lower(donate, options)
    base = form.text if lowered is None else _exported.lowered_text(lowered)
    text = production_text(base, canonical.call.name, ratio, drop_deltas)
    signature = _exported.signature(text)
    in_avals = [jax.core.ShapedArray(s, d) for s, d in signature.arguments]
    out_avals = [jax.core.ShapedArray(s, d) for s, d in signature.results]
    split = lowered is None and form.split
    n_batch = len(inputs.placement.packed_shardings()) if split else 1
    # One probe weight per sketched leaf, and their sketches joined into one result.
    n_sketch = 1 if len(in_avals) > n_state + n_batch else 0
    sketches = tuple(tuple(a.shape) for a in out_avals[len(out_avals) - n_sketch :])
    n_out = len(out_avals) - n_sketch + (n_params if drop_deltas else 0)
    kept = [i for i in range(n_out) if not (drop_deltas and n_state <= i < n_state + n_params)]
    if lowered is not None:
        compiled = _exported.compile_lowered(
            lowered, text, in_avals, out_avals, kept, inputs.placement.compiler_options
        )
        return Instrumented(text, compiled, sketches)
    assert form.exported is not None
    rewritten = _exported.replace_module(form.exported, text, in_avals, out_avals, kept)
    compiled = inputs.placement.compile(rewritten, tuple(donate), options, split)
    if split:
        return Instrumented(text, SplitBatchCall(compiled, n_state, inputs.placement), sketches)
    return Instrumented(text, compiled, sketches)


class SplitBatchCall:
    """A compiled program that takes the packed batch split by rows, called with the whole
    packed batch: a :class:`~zkdv.jax._program.PackedBatch` (the parts ``pack`` made) or an
    array (a retained host batch, which is split and placed) after the ``n_state`` state
    leaves."""

    def __init__(self, compiled: Callable[..., Any], n_state: int, placement: Placement) -> None:
        self.compiled = compiled
        self.n_state = n_state
        self.placement = placement

    def __call__(self, *args: Any) -> Any:
        n = self.n_state
        batch = args[n]
        parts = batch.parts if isinstance(batch, PackedBatch) else self.placement.batch_parts(batch)
        return self.compiled(*args[:n], *parts, *args[n + 1 :])


# -- 5. the attested program ----------------------------------------------------------------------


def attested_passes(canonical_text: str, name: str) -> str:
    """The attested program derived from the canonical step: inlined, checked hermetic, sliced
    to the challenged coordinates."""
    return _derive.pipeline(canonical_text, "zkdv-attested-pipeline", f"<{name}: attested>")


def attest(
    canonical: Canonical, form: CanonicalForm, found: Discovery, user: AttestedFunction | None
) -> str:
    """The attested program's text: ``user``'s export when given, else derived from the step
    (re-exported with the contrib states' ``attest_apply_fn`` where one is set). On the
    training thread, at the first call: the passes refuse what a verifier cannot re-execute
    (an ``rbg`` key's ``rng_bit_generator``), and that refusal belongs to the call."""
    call, inputs = canonical.call, canonical.inputs
    replay_text = form.single_text
    if call.replays_differently():
        replay_text = _exported.generic_text(canonical.export(replay=True))
    elif form.refused is not None and user is None:
        raise ValueError(
            f"proof.jit({call.name}): the step cannot pass jax.export ({form.refused}), and the "
            "attested program that checks replay must be exportable; give the TrainState "
            "an exportable attest_apply_fn, or register the transition with @proof.attest"
        ) from form.refused
    if user is not None:
        return user.export_text(
            jax.tree.unflatten(found.param_tree, inputs.param_avals),
            jax.tree.unflatten(found.opt_tree, inputs.opt_avals),
            inputs.packed_aval,
        )
    return attested_passes(replay_text, call.name)


# -- 6. assembly ----------------------------------------------------------------------------------


def packer(layout: BatchLayout, placement: Placement, split: bool) -> Callable[[Any], Any]:
    """Packs the batch leaves on the device, as the production program takes them: one
    replicated array, or (``split``) a :class:`~zkdv.jax._program.PackedBatch` of the data rows,
    sharded as the row leaves are, and the side rows."""
    if not split:
        return jax.jit(
            functools.partial(layout.pack_traced, replicate=placement.replicate),
            out_shardings=placement.replicated,
        )
    shardings = placement.packed_shardings()
    n_parts = len(shardings)

    def pack(leaves: Any) -> tuple[Any, ...]:
        return layout.pack_traced(leaves, split=True)[:n_parts]

    jitted = jax.jit(pack, out_shardings=shardings)
    return lambda leaves: PackedBatch(jitted(leaves))


class Compiling:
    """A program compiled when it is first called, on the caller's thread (a check's, beside
    training); a concurrent call waits for that compile, and its error, if any, is raised to
    each (:class:`zkdv.session._derive.Task`).

    The replay variant is one: only checks run it. Compiled from the first step on, it took
    4.7 s of one of the two cores at GPT-2 small's size while the first steps ran (their XLA
    execution is multi-threaded); compiled after the first step, it competed with the next
    ones instead (docs/measurements.md, "The first step"). A session no longer pays it among
    its first steps: its first check does, or ``close()``, whose last state check replays the
    last segment with it."""

    def __init__(self, stage: str, compile: Callable[[], Callable[..., Any]]) -> None:
        def run() -> Callable[..., Any]:
            with _progress.stage(stage):
                return compile()

        self._compiled = _derive.Task(run)

    def __call__(self, *args: Any) -> Any:
        return self._compiled.result()(*args)


# The jax.jit options the production program is compiled with.
_PRODUCTION_OPTIONS = ("device", "backend", "compiler_options", "inline")


def build_program(call: FirstCall, ratio: float, user: AttestedFunction | None) -> StepProgram:
    """Build the program of a ``proof.jit`` step from its first call.

    Args:
        call: The step and its first call.
        ratio: The session's probe ratio.
        user: The session's ``proof.attest`` function, if one is registered.
    """
    avals = tuple(aval(x) for x in call.flat)
    with _progress.stage(f"tracing and exporting {call.name}"):
        found = discover(call, avals)
        inputs = partition(call, avals, found)
        canonical = Canonical(call, inputs)
        form = export_or_lower(canonical)
    jit_options = {k: v for k, v in call.options.items() if k in _PRODUCTION_OPTIONS}
    with _progress.stage(f"rewriting and compiling {call.name}'s production program"):
        production = instrument(
            canonical,
            form,
            ratio,
            drop_deltas=True,
            donate=inputs.param_donation,
            options=jit_options,
        )
    # The replay variant only runs for checks: compiled by the first one (Compiling). Replays
    # run on copies of host snapshots: every state buffer can be donated.
    replay = Compiling(
        f"compiling {call.name}'s replay program (for its first check)",
        lambda: (
            instrument(
                canonical, form, ratio, drop_deltas=False, donate=range(inputs.n_state), options={}
            ).compiled
        ),
    )
    with _progress.stage(f"deriving {call.name}'s attested program"):
        attested_text = attest(canonical, form, found, user)
    placement = inputs.placement
    return StepProgram(
        name=call.name,
        static=call.static,
        in_tree=call.tree,
        in_avals=avals,
        in_keys=call.keys,
        param_positions=inputs.params,
        opt_positions=inputs.opt,
        batch_positions=inputs.batch,
        param_paths=found.param_paths,
        opt_paths=found.opt_paths,
        param_avals=tuple(inputs.param_avals),
        opt_avals=tuple(inputs.opt_avals),
        layout=inputs.layout,
        outputs=form.outputs,
        production=production.compiled,
        replay=replay,
        # The batch is packed on the device, so dispatching a step never waits for the
        # previous one (a step counter in the batch is the previous step's output).
        pack=packer(inputs.layout, placement, form.split),
        placement=placement,
        production_text=production.text,
        attested_text=attested_text,
        canonical_text=form.single_text,
        sketch_shapes=production.sketch_shapes,
        overlap_of=found.overlap_of,
    )

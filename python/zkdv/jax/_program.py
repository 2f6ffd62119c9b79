"""The compiled step of a ``proof.jit`` function, fixed by its first call.

:class:`StepProgram` is what :mod:`zkdv.jax._build` produces, complete and immutable: where the
transaction's state and the batch are among the step's flat inputs, the compiled production
program and its replay variant, the module texts, and how the production outputs map back to
the function's own return value (:meth:`StepProgram.split_outputs`,
:meth:`StepProgram.user_output`). :class:`Placement` says where the step's inputs live (one
device, or a mesh). What the session adds when it commits a program (its record number,
tolerance, runtime program and probe weights) is kept by the session
(:class:`zkdv.jax._session.RegisteredProgram`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

import jax
import numpy as np
from jax.tree_util import PyTreeDef

from zkdv._packing import BatchLayout
from zkdv.jax._args import wrap_keys
from zkdv.overlap import Overlap

__all__ = ["OutputLayout", "PackedBatch", "Placement", "StepOutputs", "StepProgram"]


def on_gpu(flat: Sequence[Any]) -> bool:
    """Whether any of the arrays ``flat`` lives on a GPU (``gpu``, ``cuda`` or ``rocm``)."""
    return any(
        device.platform in ("gpu", "cuda", "rocm")
        for x in flat
        if getattr(x, "sharding", None) is not None
        for device in x.sharding.device_set
    )


def matmul_precision(flat: Sequence[Any]) -> Literal["f32", "tf32"]:
    """``"tf32"`` when the devices of the arrays ``flat`` multiply ``f32`` operands as
    TensorFloat-32 where a product's precision is not ``HIGHEST`` (``jnp.dot``'s default), else
    ``"f32"``: XLA does so on NVIDIA GPUs from Ampere (compute capability 8.0) on, and a GPU
    whose capability JAX does not report, or a ROCm GPU (whose reduced-precision products are
    not measured here), is taken to as well, so that an honest run is never checked against
    exact products. CPUs compute them exactly."""
    for x in flat:
        sharding = getattr(x, "sharding", None)
        if sharding is None:
            continue
        for device in sharding.device_set:
            if device.platform == "cpu":
                continue
            capability = getattr(device, "compute_capability", None)
            try:
                if capability is not None and float(capability) < 8.0:
                    continue
            except (TypeError, ValueError):
                pass
            return "tf32"
    return "f32"


@dataclass(frozen=True)
class Placement:
    """Where the step's inputs live: one device, or a mesh with each input leaf's sharding.

    On a mesh (inputs placed with multi-device ``NamedSharding``), parameters, deltas and
    optimizer state keep their own shardings, and so does every batch leaf inside the program
    (it is constrained to its input's sharding after unpacking), so XLA partitions the step's
    work as ``jax.jit`` does. The packed batch is split by rows where it can be: when every row
    leaf (:mod:`zkdv._packing`) is sharded over its leading dimension by the same mesh axes and
    the rows divide evenly, the programs take the data rows with that sharding (:attr:`rows`)
    and the side rows (counters, hyper-parameters) replicated, as a second argument. Otherwise
    the packed batch is one replicated argument. The probe weights and the sketches are
    replicated, and XLA inserts the cross-shard reductions the sketches need.
    """

    mesh: Any = None
    params: tuple[Any, ...] = ()
    opt_state: tuple[Any, ...] = ()
    batch: tuple[Any, ...] = ()
    """The sharding of each batch leaf (on a mesh)."""
    rows: Any = None
    """The sharding of the packed batch's data rows when it is split (else ``None``)."""
    side_rows: int = 0
    """Side rows of the packed batch, the second argument when it is split (may be 0)."""
    matmul: Literal["f32", "tf32"] = "f32"
    """The precision the inputs' devices give an ``f32`` product that is not ``HIGHEST``
    (:func:`matmul_precision`): what the perturbation ensemble of an update check models."""
    gpu: bool = False
    """Whether the inputs live on a GPU, where zkdv compiles its programs with XLA's
    deterministic ops (:attr:`compiler_options`)."""

    @classmethod
    def of(
        cls,
        flat: Sequence[Any],
        params: Sequence[int],
        opt: Sequence[int],
        batch: Sequence[int] = (),
        layout: BatchLayout | None = None,
    ) -> Placement:
        """The placement of the first call's inputs (``batch`` and ``layout``: the batch
        leaves' positions and their packing, which decide whether the packed batch is split)."""
        mesh = None
        for x in flat:
            sharding = getattr(x, "sharding", None)
            if isinstance(sharding, jax.sharding.NamedSharding) and sharding.mesh.size > 1:
                mesh = sharding.mesh
                break
        matmul, gpu = matmul_precision(flat), on_gpu(flat)
        if mesh is None:
            return cls(matmul=matmul, gpu=gpu)

        def on_mesh(x: Any) -> Any:
            sharding = getattr(x, "sharding", None)
            if isinstance(sharding, jax.sharding.NamedSharding) and sharding.mesh == mesh:
                return jax.sharding.NamedSharding(mesh, sharding.spec)
            return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())

        batch_shardings = tuple(on_mesh(flat[i]) for i in batch)
        rows = None
        if layout is not None and layout.has_row_leaves:
            rows = _row_sharding(mesh, layout, batch_shardings)
        return cls(
            mesh,
            tuple(on_mesh(flat[i]) for i in params),
            tuple(on_mesh(flat[i]) for i in opt),
            batch_shardings,
            rows,
            layout.side_rows if layout is not None and rows is not None else 0,
            matmul,
            gpu,
        )

    @property
    def split(self) -> bool:
        """Whether the programs take the packed batch split into data rows and side rows."""
        return self.rows is not None

    def batch_parts(self, packed: Any) -> list[Any]:
        """A packed batch (host or device) as the programs' batch arguments, placed."""
        if not self.split:
            return [self.put_small(packed)]
        n = packed.shape[0] - self.side_rows
        parts = [jax.device_put(packed[:n], self.rows)]
        if self.side_rows:
            parts.append(jax.device_put(packed[n:], self.replicated))
        return parts

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

    def packed_shardings(self) -> tuple[Any, ...]:
        """The shardings of the programs' batch arguments (see :attr:`split`)."""
        if not self.split:
            return (self.replicated,)
        return (self.rows, self.replicated) if self.side_rows else (self.rows,)

    def jit_in_shardings(self, split: bool) -> dict[str, Any]:
        """``jax.jit`` options for the canonical step ``(params, opt_state, packed)``, where
        ``packed`` is a tuple of the batch parts when ``split``."""
        if self.mesh is None:
            return {}
        packed = self.packed_shardings() if split else self.replicated
        return {"in_shardings": (self.params, self.opt_state, packed)}

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

    def structs(self, avals: Sequence[Any], split: bool) -> list[jax.ShapeDtypeStruct]:
        """Abstract inputs of an instrumented step: state leaves first, then the batch
        argument(s) (split by rows when ``split``), then replicated ones (probe weights)."""
        shardings: list[Any] = [None] * len(avals)
        if self.mesh is not None:
            packed = self.packed_shardings() if split else (self.replicated,)
            placed = [*self.params, *self.opt_state, *packed]
            shardings = [
                placed[i] if i < len(placed) else self.replicated for i in range(len(avals))
            ]
        return [
            jax.ShapeDtypeStruct(aval.shape, aval.dtype, sharding=sharding)
            for aval, sharding in zip(avals, shardings, strict=True)
        ]

    def compile(
        self,
        exported: jax.export.Exported,
        donate_argnums: tuple[int, ...],
        options: dict[str, Any],
        split: bool,
    ) -> jax.stages.Compiled:
        """``exported.call`` compiled ahead of time for inputs placed as this placement's."""
        jitted = jax.jit(exported.call, donate_argnums=donate_argnums, **options)
        lowered = jitted.trace(*self.structs(exported.in_avals, split)).lower()
        return lowered.compile(self.compiler_options)

    @property
    def compiler_options(self) -> dict[str, Any] | None:
        """XLA options of every program zkdv compiles for these inputs: on a GPU, XLA's
        deterministic ops. By default XLA adds a GPU's scatters and some reductions with
        atomics, in an order that changes from run to run, and a state check, which reruns
        production's own executable from a snapshot, then sees rounding noise where it expects
        the same bits (measured on an H200: a float16 ResNet's state check failed by a
        relative 2e-3). ``None`` elsewhere: XLA on CPU is deterministic."""
        return {"xla_gpu_deterministic_ops": True} if self.gpu else None

    def put_small(self, x: Any) -> Any:
        """A batch or probe weight, on the device or replicated over the mesh."""
        return jax.device_put(x) if self.mesh is None else jax.device_put(x, self.replicated)


def _row_sharding(mesh: Any, layout: BatchLayout, shardings: Sequence[Any]) -> Any:
    """The sharding of the packed data rows: the row leaves' common leading-dimension sharding
    when the rows divide evenly over it, else ``None`` (the packed batch stays replicated)."""
    leading = set()
    for slot, sharding in zip(layout.slots, shardings, strict=True):
        if slot.row_leaf:
            spec = tuple(sharding.spec)
            leading.add(spec[0] if spec else None)
    if len(leading) != 1:
        return None
    (axes,) = leading
    if axes is None:
        return None
    names = axes if isinstance(axes, tuple) else (axes,)
    size = 1
    for name in names:
        size *= mesh.shape[name]
    if layout.rows % size:
        return None
    return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(axes))


class PackedBatch:
    """The packed batch of one step as the split programs take it: the data rows (sharded)
    and the side rows (replicated). ``numpy.array(batch)`` is the whole packed batch, the one
    the protocol commits."""

    def __init__(self, parts: Sequence[Any]) -> None:
        self.parts = tuple(parts)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        whole = np.concatenate([np.asarray(p) for p in self.parts], axis=0)
        return whole if dtype is None else whole.astype(dtype)


class StepOutputs(TypedDict):
    """The outputs of the production program (or its replay variant), by role."""

    post_params: list[Any]
    post_opt_state: list[Any]
    deltas: list[Any]
    """Empty for the production program, which drops the update."""
    user: list[Any]
    """The function's outputs that are not the post-update state."""
    sketches: list[Any]
    """The update sketches of the parameter leaves, joined: one 1-D array (empty list when no
    leaf is sketched); :func:`leaf_sketches` splits it on the host."""


@dataclass(frozen=True)
class OutputLayout:
    """How the function's own return value is rebuilt from the canonical step's outputs."""

    tree: PyTreeDef
    """The structure of the return value."""
    sources: tuple[tuple[Literal["p", "o", "u"], int], ...]
    """Per returned leaf: a post-update parameter (``p``), optimizer-state (``o``) or other
    (``u``) leaf, and its position among those."""
    n_user: int
    """Returned leaves that are not the post-update state."""
    keys: tuple[Any, ...] = ()
    """Per returned leaf, the PRNG implementation of a typed key, which the programs return as
    its key data (``None`` for arrays; empty when no leaf is a key)."""


@dataclass(frozen=True, eq=False)
class StepProgram:
    """Everything fixed by the first call of a ``proof.jit`` function.

    Compared and hashed by identity: the session keys what it registers per program by it.
    """

    name: str
    static: tuple[Any, ...]
    in_tree: PyTreeDef
    in_avals: tuple[jax.ShapeDtypeStruct, ...]
    """The flat dynamic inputs' abstract values (typed keys as their key data)."""
    in_keys: tuple[Any, ...]
    """Per flat input, the PRNG implementation of a typed key (``None`` for arrays)."""
    param_positions: tuple[int, ...]
    opt_positions: tuple[int, ...]
    batch_positions: tuple[int, ...]
    param_paths: tuple[str, ...]
    opt_paths: tuple[str, ...]
    param_avals: tuple[jax.ShapeDtypeStruct, ...]
    opt_avals: tuple[jax.ShapeDtypeStruct, ...]
    layout: BatchLayout
    outputs: OutputLayout
    production: Callable[..., Any]
    """``(*params, *opt_state, packed, *weights) -> (post_params, post_opt_state, user,
    sketches)``, donating the donated parameter leaves."""
    replay: Callable[..., Any]
    """The replay variant: production's outputs with the deltas after the optimizer state;
    donates every state leaf."""
    pack: Callable[..., Any]
    """Packs the batch leaves into the committed ``uint32`` batch, on the device."""
    placement: Placement
    production_text: str
    attested_text: str
    canonical_text: str
    sketch_shapes: tuple[tuple[int, ...], ...]
    """The shapes of the programs' sketch results: one 1-D result, every sketched leaf's
    sketch flattened in order (``--zkdv-insert-commitments=join``), or none."""
    overlap_of: Callable[[], Overlap]
    """The overlap policy of one invocation (read on the host at every call)."""

    @property
    def n_params(self) -> int:
        """Parameter leaves."""
        return len(self.param_positions)

    def split_outputs(self, outputs: Sequence[Any], deltas: bool = False) -> StepOutputs:
        """The outputs of the production program (or, with ``deltas``, its replay variant)."""
        p, o = self.n_params, len(self.opt_positions)
        d = p if deltas else 0
        a = p + o
        b = a + d
        c = b + self.outputs.n_user
        e = c + len(self.sketch_shapes)
        return StepOutputs(
            post_params=list(outputs[0:p]),
            post_opt_state=list(outputs[p:a]),
            deltas=list(outputs[a:b]),
            user=list(outputs[b:c]),
            sketches=list(outputs[c:e]),
        )

    def user_output(self, parts: StepOutputs) -> Any:
        """The function's own return value, rebuilt from the production outputs."""
        table = {"p": parts["post_params"], "o": parts["post_opt_state"], "u": parts["user"]}
        leaves = [table[k][i] for k, i in self.outputs.sources]
        if any(impl is not None for impl in self.outputs.keys):
            leaves = wrap_keys(leaves, self.outputs.keys)
        return jax.tree.unflatten(self.outputs.tree, leaves)


def sketched(aval: Any) -> bool:
    """Whether the production program sketches a parameter leaf of this shape: every leaf
    but those whose last dimension is 0 (``--zkdv-insert-commitments``), which get no probe
    weight and no sketch."""
    return (aval.shape[-1] if aval.shape else 1) > 0


def leaf_sketches(
    program: StepProgram,
    joined: Sequence[np.ndarray],
    sketch_shape: Callable[[str, tuple[int, ...]], tuple[int, ...]],
) -> list[np.ndarray]:
    """Each parameter leaf's update sketch, from the programs' joined sketch result on the
    host (``joined``: that one array, or nothing when no leaf is sketched), in the shape the
    records commit (``sketch_shape``) and the type the pass sums in (``float64`` for a
    ``float64`` leaf, else ``float32``; a joined result is ``float64`` when any leaf is, and
    the others convert back exactly). A leaf with no sketch (an empty last dimension) gets
    zeros, the sums over nothing."""
    flat = np.concatenate([np.asarray(j).reshape(-1) for j in joined]) if joined else np.zeros(0)
    out: list[np.ndarray] = []
    offset = 0
    for path, aval in zip(program.param_paths, program.param_avals, strict=True):
        shape = sketch_shape(path, tuple(aval.shape))
        dtype = np.float64 if aval.dtype == np.float64 else np.float32
        if not sketched(aval):
            out.append(np.zeros(shape, dtype))
            continue
        size = int(np.prod(shape, dtype=np.int64))
        out.append(flat[offset : offset + size].astype(dtype).reshape(shape))
        offset += size
    if offset != flat.size:
        raise RuntimeError(
            f"the production program's sketches hold {flat.size} values where its parameter "
            f"leaves' sketches take {offset}"
        )
    return out

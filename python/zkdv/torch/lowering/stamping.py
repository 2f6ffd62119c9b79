"""One parameter's optimizer step traced once and repeated: the optimizer's part of the trace.

Tracing costs about half a millisecond per ATen op, whatever the op computes, and a per-parameter
optimizer repeats the same ops for every parameter: at GPT-2 small's size AdamW's step is 4,700
of the step's 7,300 traced ops (32 per parameter, 148 parameters) and two thirds of the trace's
time. Yet the parameters share a handful of layouts (12 blocks of the same linear layers).

:class:`Stamper` traces a :class:`~zkdv.torch.FunctionalOptimizer` that declares itself
``per_parameter`` once for each *layout* of a parameter's step (the shape, strides, dtype,
device and ``requires_grad`` of its parameter, gradient and state tensors, and the keys of
its state, in one parameter group) into a small graph of its own (a template), then copies
that graph into the step's graph for each parameter of the layout, wired to that
parameter's nodes. The copy is the graph tracing the parameter would have recorded: the
same ops in the same order on the same inputs (a step that reads no tensor but its own
parameter's, gradient's, state's and the group's traced options, which ``per_parameter``
promises, cannot tell the parameters of one layout apart).

Preconditions: called inside a ``make_fx`` trace (its proxy mode active on this thread); the
group's tensor options that are traced inputs (the dynamic ones) become inputs of the
template, any other tensor the step reads makes the template unusable. Where a template
cannot be used (it reads a constant tensor or a traced tensor it is not given, its step is not
in place or fails to trace alone, the trace is not a ``make_fx`` one), :meth:`Stamper.step`
returns ``False`` before it has recorded anything and the caller traces the step op by op,
as before. Stamped tensors keep their ``requires_grad``, where the step traced op by op could
make them require gradients (through a dynamic option): nothing after ``optimizer.step()``
differentiates them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils import _pytree as pytree

from zkdv.torch._optim import FunctionalOptimizer

__all__ = ["Stamper"]


@dataclass(frozen=True)
class _Template:
    """One parameter's step, traced: ``graph`` takes the parameter, its gradient, its state
    tensors (in ``keys`` order) and the group's traced options, and returns the parameter and
    its state after the step."""

    graph: torch.fx.GraphModule
    keys: tuple[str, ...]


def _layout(tensor: torch.Tensor) -> tuple[Any, ...]:
    return (
        tuple(tensor.shape),
        tuple(tensor.stride()),
        tensor.storage_offset(),
        tensor.dtype,
        tensor.device,
        tensor.requires_grad,
    )


class Stamper:
    """Templates of one trace's per-parameter optimizer steps (see the module documentation).

    Args:
        decompositions: The trace's decomposition table (the templates are traced with it).
    """

    def __init__(self, decompositions: Mapping[Any, Callable[..., Any]]) -> None:
        self._decompositions = dict(decompositions)
        self._templates: dict[tuple[Any, ...], _Template | None] = {}
        self.stamped = 0
        """How many parameters' steps were copied from a template (for tests)."""

    def step(
        self,
        functional: FunctionalOptimizer,
        index: int,
        group: Mapping[str, Any],
        params: list[torch.Tensor],
        grads: Sequence[torch.Tensor],
        states: Sequence[dict[str, Any]],
    ) -> bool:
        """``functional.step(group, params, grads, states)`` recorded from templates: from
        then on the trace reads each tensor of ``params`` and of ``states`` from the copied
        step's result, as after the in-place step. ``False`` (nothing recorded) where it cannot
        be. ``index`` names the parameter group (the templates of one group share its
        options)."""
        from torch.fx.experimental.proxy_tensor import get_proxy_mode, get_proxy_slot

        mode = get_proxy_mode()
        if not functional.per_parameter or mode is None:
            return False
        tracer = mode.tracer
        options = {k: v for k, v in group.items() if k != "params"}
        flat, spec = pytree.tree_flatten(options)
        traced = [i for i, v in enumerate(flat) if isinstance(v, torch.Tensor)]

        def tracked(value: Any) -> bool:
            return (
                isinstance(value, torch.Tensor)
                and get_proxy_slot(value, tracer, None, lambda slot: slot) is not None
            )

        if not all(tracked(flat[i]) for i in traced):
            return False
        inputs = []
        for param, grad, state in zip(params, grads, states, strict=True):
            row = [param, grad, *state.values()]
            if not all(tracked(t) for t in row):
                return False
            inputs.append(row)
        templates = []
        for param, grad, state in zip(params, grads, states, strict=True):
            keys = tuple(state)
            key = (index, keys, *(_layout(t) for t in (param, grad, *state.values())))
            if key not in self._templates:
                row = [param, grad, *state.values(), *(flat[i] for i in traced)]
                self._templates[key] = self._trace(functional, flat, spec, traced, keys, row)
            template = self._templates[key]
            if template is None:
                return False
            templates.append(template)
        options_in = [get_proxy_slot(flat[i], tracer).proxy.node for i in traced]
        for template, row in zip(templates, inputs, strict=True):
            nodes = [get_proxy_slot(t, tracer).proxy.node for t in row] + options_in
            results = self._copy(template, tracer, nodes)
            # The step is in place: the parameter and each state tensor now stand for their
            # results' nodes (the gradient is only read).
            for tensor, node in zip([row[0], *row[2:]], results, strict=True):
                _retarget(tensor, tracer, node)
            self.stamped += 1
        return True

    def _trace(
        self,
        functional: FunctionalOptimizer,
        flat: list[Any],
        spec: Any,
        traced: list[int],
        keys: tuple[str, ...],
        example: list[torch.Tensor],
    ) -> _Template | None:
        """One parameter's step traced on fresh fake tensors laid out as ``example`` (in a
        fake mode of its own, outside the step's trace); ``None`` where it reads a constant
        tensor or is not in place."""
        from torch._subclasses.fake_tensor import FakeTensorMode, unset_fake_temporarily
        from torch.fx._lazy_graph_module import _use_lazy_graph_module
        from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing, make_fx
        from torch.fx.experimental.symbolic_shapes import ShapeEnv

        n_state = len(keys)
        in_place: list[bool] = []

        def one(*tensors: torch.Tensor) -> list[torch.Tensor]:
            param, grad = tensors[0], tensors[1]
            state = dict(zip(keys, tensors[2 : 2 + n_state], strict=True))
            values = list(flat)
            for i, value in zip(traced, tensors[2 + n_state :], strict=True):
                values[i] = value
            group = pytree.tree_unflatten(values, spec)
            functional.step(group, [param], [grad], [state])
            results = [param, *(state[k] for k in keys)]
            mutated = [param, *tensors[2 : 2 + n_state]]
            in_place[:] = [r is t for r, t in zip(results, mutated, strict=True)]
            return results

        with (
            disable_proxy_modes_tracing(),
            unset_fake_temporarily(),
            _use_lazy_graph_module(True),
        ):
            # As make_fx(tracing_mode="fake") makes its own (a scalar read on the host is an
            # unbacked symbol, as in the step's trace).
            fake = FakeTensorMode(
                allow_fallback_kernels=True, shape_env=ShapeEnv(), static_shapes=True
            )
            with fake:
                tensors = [
                    torch.empty_strided(
                        t.shape, t.stride(), dtype=t.dtype, device=t.device
                    ).requires_grad_(t.requires_grad)
                    for t in example
                ]
            try:
                graph = make_fx(one, self._decompositions, tracing_mode="fake")(*tensors)
            except Exception:  # noqa: BLE001  (traced parameter by parameter, as before)
                # A step that reads a traced tensor its arguments do not reach (a closure,
                # an option in a container): tracing it per parameter raises what it must.
                return None
        if not all(in_place) or len(in_place) != 1 + n_state:
            return None
        if any(node.op == "get_attr" for node in graph.graph.nodes):
            return None
        return _Template(graph, keys)

    @staticmethod
    def _copy(template: _Template, tracer: Any, inputs: list[torch.fx.Node]) -> list[Any]:
        """``template``'s ops appended to the step's graph on ``inputs``; its results."""
        placeholders = [n for n in template.graph.graph.nodes if n.op == "placeholder"]
        env: dict[torch.fx.Node, torch.fx.Node] = dict(zip(placeholders, inputs, strict=True))
        results = tracer.graph.graph_copy(template.graph.graph, env)
        return list(results)


def _retarget(tensor: torch.Tensor, tracer: Any, node: torch.fx.Node) -> None:
    """Make the step's trace read ``tensor`` from ``node`` from now on (as an in-place op's
    result does)."""
    from torch.fx.experimental.proxy_tensor import _ProxyTensor, set_proxy_slot

    set_proxy_slot(tensor, tracer, _ProxyTensor(torch.fx.Proxy(node, tracer), None))

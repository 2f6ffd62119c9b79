"""The optimizer's part of the trace, stamped from one traced parameter per layout
(``zkdv.torch.lowering.stamping``): the step's graph is the one tracing every parameter records,
op for op, for every optimizer ZKDV knows, with parameter groups; a step that couples its
parameters, or is not in place, is traced parameter by parameter."""

import dataclasses
import tempfile
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir")

from torch import nn  # noqa: E402
from torch.nn import functional  # noqa: E402

import zkdv  # noqa: E402
from zkdv.torch import _state, lowering  # noqa: E402
from zkdv.torch.lowering import stamping, tracing  # noqa: E402

torch.set_num_threads(1)


def model() -> nn.Module:
    # Three layers of one layout, then a head of another: parameters to share templates.
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8), nn.Linear(8, 3)
    )


def canonical(graph: torch.fx.GraphModule) -> list[tuple[Any, ...]]:
    """The graph's ops, their targets and arguments (nodes by position, not by name)."""
    position: dict[str, int] = {}
    ops = []

    def encode(value: Any) -> Any:
        if isinstance(value, torch.fx.Node):
            return ("node", position[value.name])
        if isinstance(value, list | tuple):
            return type(value)(encode(v) for v in value)
        if isinstance(value, dict):
            return {k: encode(v) for k, v in value.items()}
        return value

    for index, node in enumerate(graph.graph.nodes):
        position[node.name] = index
        target = "" if node.op == "placeholder" else str(node.target)
        ops.append((node.op, target, encode(node.args), encode(node.kwargs)))
    return ops


def traced(
    monkeypatch: pytest.MonkeyPatch,
    optimizer_of: Callable[[nn.Module], torch.optim.Optimizer],
    *,
    stamp: bool,
    register: zkdv.torch.FunctionalOptimizer | None = None,
    make: Callable[[], nn.Module] = model,
) -> tuple[lowering.Traced, list[stamping.Stamper]]:
    net = make()
    optimizer = optimizer_of(net)
    proof = zkdv.torch.ZKDV(tempfile.mkdtemp())
    proof.start(rolling_window=8, probe_ratio=0.01)
    if register is not None:
        proof.register_functional_optimizer(type(optimizer), register)
    net, optimizer = proof.prepare(net, optimizer)

    @proof.attest
    def step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Any) -> None:
        inputs, targets = batch
        proof.backward(functional.cross_entropy(proof.forward(model, inputs), targets))
        optimizer.step()
        optimizer.zero_grad()

    made: list[stamping.Stamper] = []

    def stamper(decompositions: Any) -> stamping.Stamper | None:
        if not stamp:
            return None
        made.append(stamping.Stamper(decompositions))
        return made[-1]

    monkeypatch.setattr(tracing, "Stamper", stamper)
    _, optimizer, functional_optimizer = proof._prepared.parts()
    _state.initialize(optimizer, functional_optimizer)
    batch = (torch.randn(4, 8), torch.randint(3, (4,)))
    return lowering.trace(step, net, optimizer, functional_optimizer, batch), made


def _groups(net: nn.Module) -> list[dict[str, Any]]:
    # PyTorch's usual recipe: no weight decay on biases, a group of its own.
    decay = [p for n, p in net.named_parameters() if n.endswith("weight")]
    rest = [p for n, p in net.named_parameters() if not n.endswith("weight")]
    return [{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}]


def _frozen(net: nn.Module) -> torch.optim.Optimizer:
    # A frozen layer (no gradient, not stepped) before the stamped ones.
    net[0].weight.requires_grad_(False)
    return torch.optim.AdamW(net.parameters(), lr=1e-3)


OPTIMIZERS = {
    "sgd": lambda net: torch.optim.SGD(net.parameters(), lr=0.1),
    "adamw-frozen": _frozen,
    "sgd-nesterov": lambda net: torch.optim.SGD(
        net.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4
    ),
    "adam-amsgrad": lambda net: torch.optim.Adam(net.parameters(), lr=1e-3, amsgrad=True),
    "adamw-groups": lambda net: torch.optim.AdamW(_groups(net), lr=1e-3),
    "adagrad": lambda net: torch.optim.Adagrad(net.parameters(), lr=1e-2),
    "rmsprop-centered": lambda net: torch.optim.RMSprop(
        net.parameters(), lr=1e-3, momentum=0.9, centered=True
    ),
    "adadelta": lambda net: torch.optim.Adadelta(net.parameters()),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_the_stamped_step_is_the_step_traced_parameter_by_parameter(monkeypatch, name):
    stamped, stampers = traced(monkeypatch, OPTIMIZERS[name], stamp=True)
    plain, _ = traced(monkeypatch, OPTIMIZERS[name], stamp=False)
    assert canonical(stamped.graph) == canonical(plain.graph)
    (stamper,) = stampers
    # Every stepped parameter's step was copied from a template, and four layouts (weight
    # and bias of the 8x8 layers and of the head; in groups, each group its own) were traced.
    assert stamper.stamped == (7 if name == "adamw-frozen" else 8)
    assert len(stamper._templates) == 4


def test_the_lowering_key_is_the_same_for_every_trace_of_a_step_with_a_constant(monkeypatch):
    # The key hashes the bytes of the tensors the graph reads, not their pickles (a pickled
    # tensor names its storage's address): a constant made in the forward pass is one.
    class Scaled(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(8, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.linear(x) * torch.tensor([1.0, 2.0, 3.0])

    def traced_scaled() -> lowering.Traced:
        torch.manual_seed(0)
        sgd = OPTIMIZERS["sgd"]
        return traced(monkeypatch, sgd, stamp=True, make=Scaled)[0]

    first, second = traced_scaled(), traced_scaled()
    assert any(node.op == "get_attr" for node in first.graph.graph.nodes)
    assert first.digest() == second.digest()


def test_a_step_that_couples_its_parameters_is_traced_parameter_by_parameter(monkeypatch):
    sgd = zkdv.torch._optim.builtin()[torch.optim.SGD]
    coupled = dataclasses.replace(sgd, per_parameter=False)

    def optimizer(net: nn.Module) -> torch.optim.Optimizer:
        return torch.optim.SGD(net.parameters(), lr=0.1)

    stamped, stampers = traced(monkeypatch, optimizer, stamp=True, register=coupled)
    plain, _ = traced(monkeypatch, optimizer, stamp=False, register=coupled)
    assert canonical(stamped.graph) == canonical(plain.graph)
    assert stampers[0].stamped == 0


def test_a_step_that_is_not_in_place_is_traced_parameter_by_parameter(monkeypatch):
    # A step that replaces a state tensor instead of updating it cannot be repeated by
    # retargeting the traced tensors; it is traced as before, and the graph is the same.
    sgd = zkdv.torch._optim.builtin()[torch.optim.SGD]

    def step(group: Any, params: Any, grads: Any, states: Any) -> None:
        for param, grad, state in zip(params, grads, states, strict=True):
            state["momentum_buffer"] = state["momentum_buffer"] * group["momentum"] + grad
            param.sub_(state["momentum_buffer"] * group["lr"])

    rebinding = dataclasses.replace(sgd, step=step, dynamic=(), per_parameter=True)

    def optimizer(net: nn.Module) -> torch.optim.Optimizer:
        return torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)

    stamped, stampers = traced(monkeypatch, optimizer, stamp=True, register=rebinding)
    plain, _ = traced(monkeypatch, optimizer, stamp=False, register=rebinding)
    assert canonical(stamped.graph) == canonical(plain.graph)
    assert stampers[0].stamped == 0


def test_a_first_copy_that_fails_leaves_no_reference(monkeypatch):
    # The first transaction's copy of the parameters and optimizer state is made on the
    # continuity thread; one that fails is raised by the barrier and is no reference: the
    # next transaction copies the state again.
    from zkdv.torch import _state as state

    def fail(buffers: Any, tensors: Any) -> None:
        raise MemoryError("no room for the copy")

    continuity = state.Continuity()
    now = [torch.ones(3), torch.zeros(2)]
    monkeypatch.setattr(state, "_fill", fail)
    continuity.check(now, lambda: ["a", "b"], lambda: 1, 0, "entry", launch=True)
    with pytest.raises(MemoryError):
        continuity.barrier()
    assert continuity.last is None and continuity.barrier() is None
    monkeypatch.undo()
    last, failure = continuity.check(now, lambda: ["a", "b"], lambda: 1, 0, "entry", launch=True)
    assert continuity.barrier() is None and failure is None
    assert all(torch.equal(a, b) for a, b in zip(last, now, strict=True))
    now[0].add_(1)  # the copy is the state at the entry, not the live state
    assert torch.equal(last[0], torch.ones(3))
    continuity.shutdown()

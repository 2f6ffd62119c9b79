"""Committed randomness: the random draws of a PyTorch step, recorded in production and fed to
the attested program as batch inputs.

A library model draws its dropout and stochastic-depth masks inside its forward pass
(``nn.Dropout``, ``torchvision.ops.StochasticDepth``, the attention dropout of
``scaled_dot_product_attention``) from torch's global generator, and offers no way to pass
them in. Replay must recompute the same transition, so each draw becomes data:

- **Lowering.** A first trace finds the draws: the ops tagged
  ``torch.Tag.nondeterministic_seeded`` that actually draw (:func:`draws`). The step is traced
  again with one extra input per draw, after the batch (and under DDP the reduced gradients),
  and each drawing op replaced by its input (:func:`feeding`): an in-place draw
  (``bernoulli_``, what ``nn.Dropout`` runs on CPU) copies it into its tensor, an
  out-of-place one (``rand``, ``bernoulli``) returns a copy, and ``native_dropout`` (the
  fused dropout of CUDA) takes its mask from it and scales as the kernel does. The arithmetic
  that follows a draw (dropout's ``div_`` and ``mul``) is traced as production runs it.
- **Production.** While a transaction of such a program is open, a dispatch mode
  (:class:`Recorder`) copies the result of every drawing op, in dispatch order, which is the
  trace's order; at the transaction's exit they must match the program's draws in number,
  shape and dtype (:meth:`Recorder.matched`), and they are committed as the last leaves of the
  step's batch.

The check is of the transition given the draws. Like any batch input, a draw is the prover's
data: the replay does not re-derive it from a seed, so a biased mask is not a failed check
(docs/torch.md, "Dropout and other random draws").
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

__all__ = [
    "Draw",
    "Feed",
    "Recorder",
    "committable",
    "draws",
    "feeding",
    "found",
    "matched",
    "replacements",
]


@dataclass(frozen=True)
class Draw:
    """One random draw of the attested step: the op and the tensor it gives."""

    op: str
    """The drawing op (``aten.bernoulli_.float``)."""
    shape: tuple[int, ...]
    dtype: torch.dtype

    def describe(self) -> str:
        return f"{self.op} {list(self.shape)} {str(self.dtype).removeprefix('torch.')}"


def _argument(schema: Any, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """The value of the schema argument ``name`` in a call, or ``KeyError`` if the schema
    has no such argument."""
    for position, argument in enumerate(schema.arguments):
        if argument.name == name:
            if position < len(args):
                return args[position]
            return kwargs.get(name, argument.default_value)
    raise KeyError(name)


def draws(op: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    """Whether a call of ``op`` draws random numbers: it is tagged
    ``nondeterministic_seeded``, and neither its dropout probability (``p``, ``dropout_p``) is
    a constant 0 nor its ``train`` flag ``False`` (attention without dropout, dropout in eval
    mode). The same rule decides for a traced node and for a production call."""
    if torch.Tag.nondeterministic_seeded not in getattr(op, "tags", ()):
        return False
    schema = getattr(op, "_schema", None)
    if schema is None:
        return True
    for name in ("train",):
        with contextlib.suppress(KeyError):
            if _argument(schema, name, args, kwargs) is False:
                return False
    for name in ("dropout_p", "p"):
        with contextlib.suppress(KeyError):
            value = _argument(schema, name, args, kwargs)
            return not (isinstance(value, int | float) and value == 0)
    return True


_FILLS = frozenset(
    {"bernoulli_", "uniform_", "normal_", "exponential_", "geometric_", "cauchy_", "log_normal_",
     "random_"}
)  # fmt: skip
"""In-place draws that overwrite their tensor, whatever it held."""
_SAMPLES = frozenset(
    {"rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
     "bernoulli", "multinomial", "poisson", "native_dropout"}
)  # fmt: skip
"""Out-of-place draws through which no gradient flows (``native_dropout``'s output is
recomputed from its fed mask). Not ``normal`` with tensor moments nor ``rrelu_with_noise``:
their results carry gradients of their inputs, so they stay refused."""


def committable(op: Any) -> bool:
    """Whether the randomness of ``op`` can be fed to the attested program in place of the op
    (the draw is a tensor through which no gradient flows)."""
    packet = getattr(getattr(op, "overloadpacket", None), "__name__", "")
    return packet in _FILLS or packet in _SAMPLES


def _drawn_tensor(op: Any, result: Any, args: Sequence[Any]) -> torch.Tensor | None:
    """The tensor that holds a drawing op's randomness: the mask of ``native_dropout``, the
    written tensor of an in-place draw, the result of an out-of-place one (``None`` for an op
    whose result is not one tensor)."""
    if op is torch.ops.aten.native_dropout.default:
        return result[1] if isinstance(result, tuple) else None
    if _writes_first(op):
        return args[0] if args and isinstance(args[0], torch.Tensor) else None
    return result if isinstance(result, torch.Tensor) else None


def _writes_first(op: Any) -> bool:
    """Whether ``op`` writes its first argument (``bernoulli_``, ``uniform_``)."""
    schema = getattr(op, "_schema", None)
    if schema is None or not schema.arguments:
        return False
    alias = schema.arguments[0].alias_info
    return alias is not None and alias.is_write


def found(graph: torch.fx.GraphModule) -> list[tuple[Any, Draw]]:
    """The draws of a traced step, in the graph's order: ``(op, draw)`` for each node whose op
    draws (:func:`draws`) and is :func:`committable`; the rest are left for the refusal of
    randomness that cannot be committed."""
    out = []
    for node in graph.graph.nodes:
        if node.op != "call_function" or not draws(node.target, node.args, node.kwargs):
            continue
        if not committable(node.target):
            continue
        meta = node.meta.get("val")
        # An in-place draw's value is the tensor it wrote.
        tensor = _drawn_tensor(node.target, meta, [meta])
        if not isinstance(tensor, torch.Tensor):
            continue
        out.append((node.target, Draw(str(node.target), tuple(tensor.shape), tensor.dtype)))
    return out


# -- tracing: each draw an input ------------------------------------------------------------------


class Feed:
    """The step's draw inputs while it is traced, handed out in order."""

    def __init__(self, inputs: Sequence[torch.Tensor], expected: Sequence[Draw]) -> None:
        self._inputs = list(inputs)
        self._expected = list(expected)
        self.taken = 0

    def take(self, op: Any, like: torch.Tensor | None = None) -> torch.Tensor:
        """The next draw, which must be ``op``'s (and have ``like``'s shape and dtype)."""
        if self.taken >= len(self._inputs):
            raise ValueError(
                f"zkdv.torch: the attested step drew more random tensors when traced again "
                f"({op}, beyond the {len(self._inputs)} found first); its draws must not depend "
                "on anything but the batch's layout"
            )
        draw = self._expected[self.taken]
        same = like is None or (draw.shape, draw.dtype) == (tuple(like.shape), like.dtype)
        if draw.op != str(op) or not same:
            raise ValueError(
                f"zkdv.torch: draw #{self.taken} of the attested step changed when traced "
                f"again (it was {draw.describe()}, then {op})"
            )
        value = self._inputs[self.taken]
        self.taken += 1
        return value


_FEED: contextvars.ContextVar[Feed | None] = contextvars.ContextVar("zkdv_torch_feed", default=None)


@contextlib.contextmanager
def feeding(feed: Feed) -> Iterator[None]:
    """Trace with ``feed`` as the source of the step's draws (see :func:`replacements`)."""
    token = _FEED.set(feed)
    try:
        yield
    finally:
        _FEED.reset(token)


def _feed() -> Feed:
    feed = _FEED.get()
    if feed is None:
        raise RuntimeError("zkdv.torch: a draw was replaced outside the attested step's trace")
    return feed


def replacements(ops: Iterable[Any]) -> dict[Any, Callable[..., Any]]:
    """Decompositions that take each call of a drawing op in ``ops`` from the active
    :class:`Feed`; a call that does not draw (dropout with ``p = 0``) keeps its meaning."""
    table: dict[Any, Callable[..., Any]] = {}
    for op in ops:
        if op is torch.ops.aten.native_dropout.default:
            table[op] = _native_dropout
        elif _writes_first(op):
            table[op] = _in_place(op)
        else:
            table[op] = _out_of_place(op)
    return table


def _in_place(op: Any) -> Callable[..., Any]:
    def replaced(self: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        if not draws(op, (self, *args), kwargs):
            return op(self, *args, **kwargs)
        return self.copy_(_feed().take(op, self))

    return replaced


def _out_of_place(op: Any) -> Callable[..., Any]:
    def replaced(*args: Any, **kwargs: Any) -> torch.Tensor:
        if not draws(op, args, kwargs):
            return op(*args, **kwargs)
        return _feed().take(op).clone()

    return replaced


def _native_dropout(
    input: torch.Tensor, p: float, train: bool | None
) -> tuple[torch.Tensor, torch.Tensor]:
    """``native_dropout`` from a fed mask: ``input * mask * (1 / (1 - p))`` in the kernels'
    arithmetic (CPU and CUDA compute in float32 for 16-bit floats, and round once)."""
    op = torch.ops.aten.native_dropout.default
    if not draws(op, (input, p, train), {}):
        return op(input, p, train)
    mask = _feed().take(op)
    if tuple(mask.shape) != tuple(input.shape):
        raise ValueError(
            f"zkdv.torch: a dropout mask of shape {list(mask.shape)} was fed for "
            f"an input of shape {list(input.shape)}"
        )
    keep = 1.0 - p
    scale = 0.0 if keep == 0 else 1.0 / keep
    wide = torch.float32 if input.dtype in (torch.bfloat16, torch.float16) else input.dtype
    out = (input.to(wide) * mask.to(wide) * scale).to(input.dtype)
    return out, mask


# -- production: each draw recorded ---------------------------------------------------------------


class Recorder(TorchDispatchMode):
    """Copies the randomness of every drawing op run under it, in dispatch order (see the
    module documentation)."""

    def __init__(self) -> None:
        super().__init__()
        self.drawn: list[tuple[str, torch.Tensor]] = []

    def __torch_dispatch__(
        self,
        func: Any,
        types: Any,
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        if draws(func, args, kwargs) and committable(func):
            tensor = _drawn_tensor(func, result, args)
            if tensor is None:
                raise RuntimeError(
                    f"zkdv.torch: the step drew random numbers with {func}, whose randomness "
                    "is not one tensor; it cannot be committed"
                )
            self.drawn.append((str(func), tensor.detach().clone()))
        return result

    def matched(self, expected: Sequence[Draw]) -> list[torch.Tensor]:
        """The recorded draws, which must be the program's ``expected`` ones (:func:`matched`)."""
        return matched(self.drawn, expected)


def matched(
    drawn: Sequence[tuple[str, torch.Tensor]], expected: Sequence[Draw]
) -> list[torch.Tensor]:
    """The ``drawn`` tensors (``(op, tensor)``, as a :class:`Recorder` records them), which
    must be the program's ``expected`` ones in number, op, shape and dtype (``RuntimeError``
    naming the first difference)."""
    got = [Draw(op, tuple(t.shape), t.dtype) for op, t in drawn]
    for index, (want, have) in enumerate(zip(expected, got, strict=False)):
        if want != have:
            raise RuntimeError(
                f"ZKDV.transaction: random draw #{index} of the step was "
                f"{have.describe()}, where the committed program draws {want.describe()}; "
                "the step must draw what it drew when it was lowered"
            )
    if len(got) != len(expected):
        raise RuntimeError(
            f"ZKDV.transaction: the step drew {len(got)} random tensors, where the "
            f"committed program draws {len(expected)}; the step must draw what it drew "
            "when it was lowered"
        )
    return [t for _, t in drawn]

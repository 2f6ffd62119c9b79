"""A traced graph's passage to the lowering process, node for node.

A ``GraphModule`` pickles as its generated code, which the reading process traces again with
FX's symbolic tracer; that trace runs every call without a traced argument (``aten.ones``, an
index built from constants) and keeps its result as a constant, which torch-mlir then imports
as a ``dense_resource`` the runtime cannot read, and a list holding such a constant it cannot
import at all. So the graph travels as its nodes instead: each node's opcode, name, target
(an ATen overload by its name, another function by its module and name) and arguments
(other nodes by name), and the tensors its ``get_attr`` nodes read. :func:`unpack` builds the
same graph from them, op for op, without running anything.
"""

from __future__ import annotations

import importlib
import pickle
from dataclasses import dataclass
from typing import Any

import torch

__all__ = ["constants", "nodes", "pack", "unpack"]


@dataclass(frozen=True)
class _Ref:
    """A node, by name, in another node's arguments."""

    name: str


@dataclass(frozen=True)
class _Op:
    """An ATen (or other namespace's) operator overload, by name."""

    namespace: str
    name: str
    overload: str


@dataclass(frozen=True)
class _Function:
    """A Python function (``operator.getitem``), by module and qualified name."""

    module: str
    qualname: str


def _target(target: Any) -> Any:
    if isinstance(target, str):
        return target
    if isinstance(target, torch._ops.OpOverload):
        namespace, name = target._schema.name.split("::")
        return _Op(namespace, name, target._overloadname)
    module, qualname = getattr(target, "__module__", None), getattr(target, "__qualname__", None)
    if module is None or qualname is None:
        raise ValueError(f"a node calls {target!r}, which cannot be named for another process")
    return _Function(module, qualname)


def _resolve(target: Any) -> Any:
    if isinstance(target, _Op):
        return getattr(getattr(getattr(torch.ops, target.namespace), target.name), target.overload)
    if isinstance(target, _Function):
        found: Any = importlib.import_module(target.module)
        for part in target.qualname.split("."):
            found = getattr(found, part)
        return found
    return target


def _encode(value: Any) -> Any:
    if isinstance(value, torch.fx.Node):
        return _Ref(value.name)
    if isinstance(value, list | tuple):
        return type(value)(_encode(v) for v in value)
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, slice):
        return slice(_encode(value.start), _encode(value.stop), _encode(value.step))
    return value


def _decode(value: Any, nodes: dict[str, torch.fx.Node]) -> Any:
    if isinstance(value, _Ref):
        return nodes[value.name]
    if isinstance(value, list | tuple):
        return type(value)(_decode(v, nodes) for v in value)
    if isinstance(value, dict):
        return {k: _decode(v, nodes) for k, v in value.items()}
    if isinstance(value, slice):
        return slice(
            _decode(value.start, nodes), _decode(value.stop, nodes), _decode(value.step, nodes)
        )
    return value


def nodes(graph: torch.fx.GraphModule) -> list[tuple[Any, ...]]:
    """``graph``'s nodes as :func:`pack` sends them: opcode, name, target and arguments, with
    no tensor (deterministic under ``pickle``, unlike a tensor, which pickles its storage's
    address).

    Raises:
        ValueError: a node calls something that cannot be named for another process.
    """
    return [
        (node.op, node.name, _target(node.target), _encode(node.args), _encode(node.kwargs))
        for node in graph.graph.nodes
    ]


def constants(graph: torch.fx.GraphModule) -> dict[str, torch.Tensor]:
    """The tensors ``graph``'s ``get_attr`` nodes read, by their path."""
    return {
        node.target: _attribute(graph, node.target)
        for node in graph.graph.nodes
        if node.op == "get_attr" and isinstance(node.target, str)
    }


def pack(graph: torch.fx.GraphModule, extra: Any = None) -> bytes:
    """``graph``'s nodes and the tensors they read (with ``extra``, any picklable value).

    Raises:
        ValueError: a node calls something that cannot be named for another process.
    """
    # Plain pickle: torch.save's pickler refuses memory formats (``torch.contiguous_format``).
    return pickle.dumps({"nodes": nodes(graph), "tensors": constants(graph), "extra": extra})


def _attribute(module: torch.nn.Module, path: str) -> Any:
    found: Any = module
    for part in path.split("."):
        found = getattr(found, part)
    return found


def unpack(data: bytes) -> tuple[torch.fx.GraphModule, Any]:
    """The graph :func:`pack` packed, and its ``extra``."""
    saved = pickle.loads(data)
    root = torch.nn.Module()
    for path, tensor in saved["tensors"].items():
        owner = root
        *parents, leaf = path.split(".")
        for part in parents:
            if not hasattr(owner, part):
                owner.add_module(part, torch.nn.Module())
            owner = getattr(owner, part)
        owner.register_buffer(leaf, tensor)
    graph = torch.fx.Graph()
    nodes: dict[str, torch.fx.Node] = {}
    for op, name, target, args, kwargs in saved["nodes"]:
        node = graph.create_node(
            op, _resolve(target), _decode(args, nodes), _decode(kwargs, nodes), name=name
        )
        nodes[name] = node
    module = torch.fx.GraphModule(root, graph)
    return module, saved["extra"]

"""The lowering process: ``python .../zkdv/torch/lowering/child.py serve`` exports traced steps
and lowers them to StableHLO, one request per line of its standard input (``["lower",
DIRECTORY]``, as JSON), one JSON reply per line on its standard output, for as long as the
training process lives (it pays for importing torch and torch-mlir once);
``... child.py seal EXPORTED PACKAGE`` compiles an exported step into an AOT Inductor package
(it imports torch only).

Neither runs on a thread of the training process: torch keeps FX tracing metadata in module
globals (``torch.fx.traceback``), which ``torch.export``, torch-mlir's importer and Inductor's
compile reset while eager calls on the training thread (``Optimizer.zero_grad`` enters
``torch.fx.traceback.annotate``) edit them, and one then fails with a ``KeyError`` deep inside
torch. A process of its own shares nothing with the training loop (not the GIL either), and a
crash of the compiler is reported as the lowering's failure (the last line it wrote) instead of
ending the training process. :mod:`zkdv.torch.lowering.process` runs it.

A ``lower`` request reads ``DIRECTORY/step.bin`` (the traced graph and its arguments'
layouts, packed by the parent with :mod:`zkdv.torch.lowering.transfer`) and writes
``DIRECTORY/step.mlir`` (the StableHLO step in MLIR generic form), keeping the exported
program, which an ``["export", DIRECTORY]`` request saves as ``DIRECTORY/exported.pt2`` for
``seal``. An operator that neither lowers nor decomposes is reported in
``DIRECTORY/refused.json`` (reply ``{"refused": true}``), any other failure in the reply's
``error``.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path
from typing import Any

_EXPORTED: collections.OrderedDict[Path, Any] = collections.OrderedDict()
"""The exported programs of the latest lowerings, by directory, until the seal asks for one
(saving one takes seconds: 12 s at 124M parameters, which the lowering's reply no longer
waits for)."""
_KEEP = 4


def lower(directory: Path) -> dict[str, object]:

    from torch._subclasses.fake_tensor import FakeTensorMode

    from zkdv.torch.lowering import transfer
    from zkdv.torch.lowering.export import Unlowered, to_stablehlo

    graph, inputs = transfer.unpack((directory / "step.bin").read_bytes())
    # Fake arguments: their layout is all the export reads, and real ones would take the
    # whole state's memory again (1.5 GB at 124M parameters; on a GPU, device memory), and
    # be written into the exported file the seal reads.
    with FakeTensorMode(allow_non_fake_inputs=True):
        example = [spec.stand_in() for spec in inputs]
    try:
        exported, text = to_stablehlo(graph, example)
    except Unlowered as failure:
        refused = {"ops": failure.ops, "detail": failure.detail}
        (directory / "refused.json").write_text(json.dumps(refused))
        return {"refused": True}
    (directory / "step.mlir").write_text(text)
    _EXPORTED[directory] = exported
    while len(_EXPORTED) > _KEEP:
        _EXPORTED.popitem(last=False)
    return {"ok": True}


def export(directory: Path) -> dict[str, object]:
    """Save the exported program of ``directory``'s lowering as ``exported.pt2`` (for the
    seal), lowering it again when this process no longer holds it."""
    import torch

    from zkdv.torch.lowering.seal import reshaping_views

    if directory not in _EXPORTED:
        reply = lower(directory)
        if not reply.get("ok"):
            return reply
    exported = _EXPORTED.pop(directory)
    torch.export.save(reshaping_views(exported), str(directory / "exported.pt2"))
    return {"ok": True}


IDLE_SECONDS = 120
"""A server with no request for this long exits (the next request starts another): a lowering
at 124M parameters leaves gigabytes that the process would otherwise hold."""


def serve() -> int:
    """Answer requests until the standard input ends (the training process is gone) or none
    came for :data:`IDLE_SECONDS`."""
    import os
    import select

    # Replies go to the original standard output; anything torch prints goes to stderr.
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    while True:
        ready, _, _ = select.select([sys.stdin], [], [], IDLE_SECONDS)
        if not ready:
            return 0
        line = sys.stdin.readline()
        if not line:
            return 0
        try:
            request = json.loads(line)
            if request[0] not in ("lower", "export") or len(request) != 2:
                raise ValueError(f"unknown request {request!r}")
            work = lower if request[0] == "lower" else export
            reply = work(Path(request[1]))
        except Exception as error:
            reply = {"error": f"{type(error).__name__}: {error}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
    return 0


def seal(exported: Path, package: Path) -> int:
    import torch
    from torch._export.serde.serialize import _reconstruct_fake_tensor

    # The exported step's example arguments are fake tensors (see lower).
    with torch.serialization.safe_globals([_reconstruct_fake_tensor]):
        program = torch.export.load(str(exported))
    from zkdv.torch.lowering.seal import OPTIONS

    torch._inductor.aoti_compile_and_package(
        program, package_path=str(package), inductor_configs=dict(OPTIONS)
    )
    return 0


def _without_stack_traces() -> None:
    """Have torch's tracers (``torch.export``, ``run_decompositions``, Inductor's) record no
    Python stack trace per node (``torch.fx.config.do_not_emit_stack_traces``). Nothing here
    reads them: a refusal names its module from the traced step's own annotations, and the
    StableHLO text is printed without locations (it is the same text either way). Collecting
    them took 4.4 s of a 28.9 s lowering at 124M parameters; the seal took as long either way
    (34 s for the 3.4M-parameter GPT, two runs each)."""
    import torch.fx.config

    torch.fx.config.do_not_emit_stack_traces = True


def main(argv: list[str]) -> int:
    import os

    # Background work: the training loop beside it comes first.
    os.nice(10)
    _without_stack_traces()
    if argv == ["serve"]:
        return serve()
    if len(argv) == 3 and argv[0] == "seal":
        return seal(Path(argv[1]), Path(argv[2]))
    print("usage: child.py serve | child.py seal EXPORTED PACKAGE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The AOT Inductor compile of a sealed step, in a process of its own:
``python .../zkdv/torch/_seal.py EXPORTED PACKAGE`` (it imports torch only).

:func:`zkdv.torch._lower.seal` saves the exported step (``torch.export.save``) and runs this
module to compile it into the package. The compile is not run on a thread of the training
process: torch keeps FX tracing metadata in module globals (``torch.fx.traceback``), which
Inductor's compile resets while eager calls on the training thread (``Optimizer.zero_grad``
enters ``torch.fx.traceback.annotate``) edit them, and one then fails with a ``KeyError``
deep inside torch. A process of its own shares nothing with the training loop (not the GIL
either), and a crash of the compiler is reported as the seal's failure (the last line it
wrote) instead of ending the training process.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: _seal.py EXPORTED PACKAGE", file=sys.stderr)
        return 2
    import torch

    exported = torch.export.load(argv[0])
    torch._inductor.aoti_compile_and_package(exported, package_path=argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

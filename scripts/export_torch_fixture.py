"""Export the PyTorch training-step fixture of test-mlir/inputs/ (see its README.md).

``torch_mlp_adamw.mlir``: the attested step of ``zkdv.torch`` for a small MLP trained with
AdamW, exactly as the frontend lowers it (make_fx, torch.export, torch-mlir; generic form),
before any Rust pass: ``arith.constant`` scalars included, no ``jax.result_info`` names (its
roles are given explicitly). Deterministic for the pinned torch and torch-mlir versions.

Run: ``python scripts/export_torch_fixture.py [--check]``; prints the role options for
``zkdv-attested-pipeline``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional

from zkdv.torch import _optim, lowering
from zkdv.torch.lowering import export as lowering_export

warnings.filterwarnings("ignore", category=FutureWarning)
OUT = (
    Path(__file__).resolve().parent.parent
    / "test-mlir"
    / "inputs"
    / "torch"
    / "torch_mlp_adamw.mlir"
)


def export() -> tuple[str, str]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    functional_optimizer = _optim.builtin()[torch.optim.AdamW]
    (group,) = optimizer.param_groups
    for p in group["params"]:
        optimizer.state[p].update(functional_optimizer.init(group, p))

    def step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: tuple) -> None:
        inputs, targets = batch
        tracing = lowering.active()
        assert tracing is not None
        tracing.backward(functional.cross_entropy(tracing.forward(model, (inputs,), {}), targets))
        tracing.step()

    batch = (torch.zeros(4, 6), torch.zeros(4, dtype=torch.int64))
    traced = lowering.trace(step, model, optimizer, functional_optimizer, batch)
    example = [spec.stand_in() for spec in traced.inputs]
    _, text = lowering_export.to_stablehlo(traced.graph, example)
    return text, traced.role_options


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is stale")
    args = parser.parse_args()
    text, roles = export()
    if args.check:
        if OUT.read_text() != text:
            sys.exit(f"{OUT} is stale: rerun scripts/export_torch_fixture.py")
    else:
        OUT.write_text(text)
    print(roles)


if __name__ == "__main__":
    main()

"""Digests of deterministic fixture transcripts, for restructurings that must not change them.

Runs the examples with every step checked, in subprocesses, with the prover's randomness pinned
(a fixed challenge key and probe seed) and, for torch, the AOT Inductor package replaced by the
exported StableHLO step (its bytes differ on every compile). Prints one line per file of each
transcript directory: ``<run> <path> <sha256>``. Run it before and after a change and diff the
outputs; equal lines mean byte-identical records and artifacts.

Usage: ``python scripts/fixture_transcripts.py [OUT_DIR]`` (default: a temporary directory).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RUNS = {
    "torch-retain-all": (
        "examples/torch/basic_training.py",
        ["--steps", "6", "--debug-every", "1", "--retain", "all"],
    ),
    "torch": ("examples/torch/basic_training.py", ["--steps", "6", "--debug-every", "2"]),
    "jax-basic": ("examples/jax/basic_training.py", ["--steps", "6", "--debug-every", "1"]),
    "jax-train-state": ("examples/jax/train_state.py", ["--steps", "6", "--debug-every", "1"]),
}

# Executed in the child before the example: pin the prover's randomness.
PRELUDE = """
import runpy, sys
import zkdv.transcript as transcript
_Writer = transcript.TranscriptWriter
def _pinned(directory, root, **options):
    root = dict(root, probe_seed=bytes(range(32)))
    return _Writer(directory, root, challenge_key=bytes(32), **options)
transcript.TranscriptWriter = _pinned
try:  # the production package is the StableHLO step, as in the trees before the seal moved
    import zkdv.torch.lowering.process as lowering
    lowering.seal = lambda exported: (exported.parent / "step.mlir").read_bytes()
except ImportError:
    try:
        import zkdv.torch._lower as lower
        lower.seal = lambda lowered: lowered.text.encode()
    except ImportError:
        pass
script, *argv = sys.argv[1:]
sys.argv = [script, *argv]
runpy.run_path(script, run_name="__main__")
"""


def main() -> None:
    out = (
        Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="zkdv-fixtures-"))
    )
    import hashlib

    for name, (script, argv) in RUNS.items():
        directory = out / name
        subprocess.run(
            [
                sys.executable,
                "-W",
                "ignore",
                "-c",
                PRELUDE,
                str(ROOT / script),
                str(directory),
                *argv,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            print(name, path.relative_to(directory), digest, flush=True)


if __name__ == "__main__":
    main()

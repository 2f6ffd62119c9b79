"""``zkdv opt`` from the package (``python -m zkdv opt``) is the cargo binary's ``zkdv opt``."""

import subprocess
import sys
from pathlib import Path

from _cli import require_cli

ROOT = Path(__file__).resolve().parents[2]
DCE = str(ROOT / "test-mlir" / "dce.mlir")


def test_python_m_zkdv_opt_is_the_cargo_binarys(tmp_path):
    cli = require_cli()
    broken = tmp_path / "broken.mlir"
    broken.write_text('"func.func"() ({\n')
    for args in (
        ["opt", DCE, "--split-input-file", "--zkdv-dce", "--zkdv-cse"],
        ["opt", "--help"],
        ["opt", str(broken), "--zkdv-dce"],
        ["opt", DCE, "--zkdv-dce=bogus"],
    ):
        cargo = subprocess.run([str(cli), *args], capture_output=True, text=True)
        module = subprocess.run(
            [sys.executable, "-m", "zkdv", *args], capture_output=True, text=True
        )
        assert module.returncode == cargo.returncode, (args, module.stderr)
        assert module.stdout == cargo.stdout, args
        assert module.stderr == cargo.stderr, args
    # The module reads stdin as the binary does, and writes -o.
    out = tmp_path / "out.mlir"
    piped = subprocess.run(
        [sys.executable, "-m", "zkdv", "opt", "--split-input-file", "--zkdv-dce", "-o", str(out)],
        input=Path(DCE).read_text(),
        capture_output=True,
        text=True,
    )
    assert piped.returncode == 0, piped.stderr
    expected = subprocess.run(
        [str(cli), "opt", DCE, "--split-input-file", "--zkdv-dce"], capture_output=True, text=True
    )
    assert out.read_text() == expected.stdout

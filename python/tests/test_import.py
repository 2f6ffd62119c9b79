"""The package root imports neither JAX nor PyTorch."""

import subprocess
import sys


def test_import_zkdv_imports_no_framework():
    code = (
        "import sys, zkdv, zkdv.hashing, zkdv.transcript\n"
        "bad = [m for m in ('jax', 'jaxlib', 'torch', 'flax', 'optax') if m in sys.modules]\n"
        "assert not bad, bad\n"
        "print(zkdv.__version__, zkdv.PROTOCOL_VERSION)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    version, protocol = out.stdout.split()
    assert version.count(".") == 2
    assert protocol == "1"

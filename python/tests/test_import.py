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
    assert protocol == "3"


def test_root_api_and_a_frontend_access_import_no_framework():
    # Building every root object, and even a (failing or successful) access to a frontend,
    # must not import a framework as a side effect of the root.
    code = (
        "import sys, zkdv\n"
        "from zkdv import overlap\n"
        "zkdv.ZKDVConfig(name='x', sampling_policy=zkdv.SamplingPolicy(0.1, 0.2),\n"
        "                tolerance=zkdv.Tolerance()).root_fields()\n"
        "zkdv.SamplingPolicy.DEBUGCheckEvery(4).to_record()\n"
        "check = zkdv.CheckResult(step=0, kind='state', indices=(), committed=(1.0,),\n"
        "                         recomputed=(2.0,), tolerance=zkdv.Tolerance(), verdict='fail')\n"
        "str(zkdv.ZKDVPoisonedError.from_check(check)); overlap.resolve(overlap.NEVER)\n"
        "frameworks = ('jax', 'jaxlib', 'torch', 'flax', 'optax')\n"
        "bad = [m for m in frameworks if m in sys.modules]\n"
        "assert not bad, bad\n"
        "try:\n"
        "    zkdv.torch\n"
        "except ImportError:\n"
        "    pass\n"
        "assert 'jax' not in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr

"""The testing hooks refuse a session of the other frontend (or anything else) by name."""

import pytest

import zkdv
import zkdv.testing


def test_the_hooks_refuse_what_is_not_their_frontends_session():
    with pytest.raises(TypeError, match="is not a zkdv.torch.ZKDV session"):
        zkdv.testing.skip_seal(object())
    with pytest.raises(TypeError, match="is not a zkdv.jax.ZKDV session"):
        zkdv.testing.corrupt_production(object(), None)


def test_importing_the_hooks_imports_no_framework():
    import subprocess
    import sys

    code = "import sys, zkdv.testing; print('jax' in sys.modules, 'torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]

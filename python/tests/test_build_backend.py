"""The sdist's build backend (build_backend/zkdv_build.py) finds LLVM/MLIR 22 or says how to."""

import importlib.util
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("maturin")  # the backend wraps maturin's hooks
spec = importlib.util.spec_from_file_location(
    "zkdv_build", ROOT / "build_backend" / "zkdv_build.py"
)
assert spec is not None and spec.loader is not None
zkdv_build = importlib.util.module_from_spec(spec)
sys.modules.setdefault("zkdv_build", zkdv_build)
spec.loader.exec_module(zkdv_build)


def fake_llvm(root: Path, version: str, mlir: bool = True) -> Path:
    """An installation prefix whose bin/llvm-config reports `version`, with or without MLIR."""
    prefix = root / f"llvm-{version}"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib").mkdir()
    config = prefix / "bin" / "llvm-config"
    config.write_text(
        "#!/bin/sh\n"
        f'case "$1" in --version) echo {version};; --prefix) echo {prefix};; '
        f"--libdir) echo {prefix}/lib;; esac\n"
    )
    config.chmod(config.stat().st_mode | stat.S_IXUSR)
    if mlir:
        (prefix / "lib" / "libMLIRIR.a").write_bytes(b"")
        for header in ("mlir-c/IR.h", "mlir/IR/OpBase.td"):
            (prefix / "include" / header).parent.mkdir(parents=True, exist_ok=True)
            (prefix / "include" / header).write_text("")
    return prefix


def test_an_llvm_22_with_mlir_is_found_among_the_candidates(tmp_path):
    old, bare, good = (
        fake_llvm(tmp_path, "14.0.6"),
        fake_llvm(tmp_path, "22.1.0", mlir=False),
        fake_llvm(tmp_path / "g", "22.1.8"),
    )
    search = os.pathsep.join([str(tmp_path / "nothing"), str(old), str(bare), str(good)])
    found = zkdv_build.find_llvm({"ZKDV_LLVM_SEARCH_PATHS": search})
    assert found == zkdv_build.LLVM(prefix=str(good), version="22.1.8")
    # An llvm-config named by its path does as well as its prefix.
    config = str(good / "bin" / "llvm-config")
    assert zkdv_build.find_llvm({"ZKDV_LLVM_SEARCH_PATHS": config}).prefix == str(good)


def test_without_llvm_22_the_message_names_what_was_tried_the_variable_and_the_packages(
    tmp_path,
):
    old, bare = fake_llvm(tmp_path, "14.0.6"), fake_llvm(tmp_path, "22.1.0", mlir=False)
    search = os.pathsep.join([str(tmp_path / "nothing"), str(old), str(bare)])
    with pytest.raises(zkdv_build.LLVMNotFound) as caught:
        zkdv_build.find_llvm({"ZKDV_LLVM_SEARCH_PATHS": search})
    message = str(caught.value)
    assert f"{tmp_path / 'nothing'}: not found" in message
    assert "is LLVM 14.0.6" in message
    assert f"no MLIR static libraries (libMLIR*.a) in {bare / 'lib'}" in message
    assert "MLIR_SYS_220_PREFIX" in message
    assert "apt-get install llvm-22-dev libmlir-22-dev mlir-22-tools" in message


def test_the_variable_when_set_is_the_only_candidate(tmp_path):
    good = fake_llvm(tmp_path / "g", "22.1.8")
    old = fake_llvm(tmp_path, "14.0.6")
    env = {"MLIR_SYS_220_PREFIX": str(good), "ZKDV_LLVM_SEARCH_PATHS": str(old)}
    assert zkdv_build.find_llvm(env).prefix == str(good)
    env = {"MLIR_SYS_220_PREFIX": str(old), "ZKDV_LLVM_SEARCH_PATHS": str(good)}
    with pytest.raises(zkdv_build.LLVMNotFound, match="MLIR_SYS_220_PREFIX=.* is LLVM 14.0.6"):
        zkdv_build.find_llvm(env)


def test_the_wheel_hooks_without_llvm_exit_at_once_with_the_message(tmp_path):
    # The hooks as a frontend calls them (in the project's directory), with no LLVM 22 to
    # find: each exits before maturin or cargo start. pip asks get_requires_for_build_wheel
    # first, before it prepares the metadata and fetches the dependencies.
    env = {k: v for k, v in os.environ.items() if k != "MLIR_SYS_220_PREFIX"}
    env["ZKDV_LLVM_SEARCH_PATHS"] = str(tmp_path / "nothing")
    for hook in (
        "get_requires_for_build_wheel()",
        f"build_wheel({str(tmp_path)!r})",
        f"build_editable({str(tmp_path)!r})",
    ):
        start = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-c", f"import zkdv_build; zkdv_build.{hook}"],
            cwd=ROOT,
            env={**env, "PYTHONPATH": str(ROOT / "build_backend")},
            capture_output=True,
            text=True,
        )
        assert time.monotonic() - start < 10, hook
        assert result.returncode == 1, (hook, result)
        assert "zkdv: cannot build the extension: LLVM/MLIR 22 not found" in result.stderr
        assert "MLIR_SYS_220_PREFIX" in result.stderr and "libmlir-22-dev" in result.stderr
    assert not list(tmp_path.glob("*.whl"))

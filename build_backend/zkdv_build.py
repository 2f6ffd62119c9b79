"""The PEP 517 build backend of the zkdv package: maturin's, after a check for LLVM/MLIR 22.

The extension links LLVM and MLIR 22 statically (crates mlir-sys and tblgen, through melior),
and their build scripts find LLVM only through ``MLIR_SYS_220_PREFIX`` and
``TABLEGEN_220_PREFIX``; without them they try the ``llvm-config`` on ``PATH`` and fail, after
minutes of compiling, on any other version. Before a wheel is built (``pip install`` of the
sdist, ``python -m build``), in the first hook a frontend calls for it
(``get_requires_for_build_wheel``) and again in ``build_wheel``, this backend looks for an
LLVM 22 installation with MLIR:

1. ``MLIR_SYS_220_PREFIX``, when set (it must be one: nothing else is tried);
2. else each candidate of ``ZKDV_LLVM_SEARCH_PATHS`` (``os.pathsep``-separated: an installation
   prefix, an ``llvm-config`` executable or a command name on ``PATH``), when set;
3. else ``llvm-config-22`` on ``PATH``, ``/usr/lib/llvm-22`` (Debian's and apt.llvm.org's
   packages), and ``llvm-config`` on ``PATH`` if its ``--version`` is 22.x.

It sets both variables to the installation it finds for the build, or stops within seconds with
a message that names the variable and the packages to install. Everything else is maturin's.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import maturin

# Maturin warns that the backend is not "maturin" whenever it reads pyproject.toml; this one
# is maturin's own behind a check.
os.environ.setdefault("MATURIN_NO_MISSING_BUILD_BACKEND_WARNING", "1")

LLVM_MAJOR = "22"
PREFIX_VARIABLE = f"MLIR_SYS_{LLVM_MAJOR}0_PREFIX"
TABLEGEN_VARIABLE = f"TABLEGEN_{LLVM_MAJOR}0_PREFIX"
SEARCH_VARIABLE = "ZKDV_LLVM_SEARCH_PATHS"
DEFAULT_CANDIDATES = (f"llvm-config-{LLVM_MAJOR}", f"/usr/lib/llvm-{LLVM_MAJOR}", "llvm-config")
# What scripts/setup installs (Debian 12 security updates, Debian 13+, or apt.llvm.org).
PACKAGES = (
    f"llvm-{LLVM_MAJOR}-dev libmlir-{LLVM_MAJOR}-dev mlir-{LLVM_MAJOR}-tools "
    f"libpolly-{LLVM_MAJOR}-dev libclang-{LLVM_MAJOR}-dev clang-{LLVM_MAJOR} libzstd-dev"
)


class LLVMNotFound(Exception):
    """No usable LLVM/MLIR 22 installation; the message says what was tried and what to do."""


@dataclass(frozen=True)
class LLVM:
    """An LLVM installation with MLIR: its prefix and version."""

    prefix: str
    version: str


def _llvm_config(candidate: str) -> str | None:
    """The ``llvm-config`` a candidate names: in a prefix's bin/, a path, or a command on PATH."""
    if os.path.isdir(candidate):
        path = os.path.join(candidate, "bin", "llvm-config")
        return path if os.access(path, os.X_OK) else None
    if os.sep in candidate:
        return candidate if os.access(candidate, os.X_OK) else None
    return shutil.which(candidate)


def _query(llvm_config: str, flag: str) -> str:
    result = subprocess.run(
        [llvm_config, flag], capture_output=True, text=True, timeout=20, check=True
    )
    return result.stdout.strip()


def _mlir_missing(prefix: str, libdir: str) -> str | None:
    """What of MLIR the build needs is missing from an installation, or None."""
    if not glob.glob(os.path.join(libdir, "libMLIR*.a")):
        return f"no MLIR static libraries (libMLIR*.a) in {libdir}"
    if not os.path.isfile(os.path.join(prefix, "include", "mlir-c", "IR.h")):
        return f"no MLIR C API headers in {os.path.join(prefix, 'include', 'mlir-c')}"
    if not os.path.isfile(os.path.join(prefix, "include", "mlir", "IR", "OpBase.td")):
        return f"no MLIR TableGen files in {os.path.join(prefix, 'include', 'mlir')}"
    return None


def _inspect(candidate: str) -> tuple[LLVM | None, str]:
    """The installation a candidate names, or None and why it does not do."""
    llvm_config = _llvm_config(candidate)
    if llvm_config is None:
        return None, "not found"
    try:
        version = _query(llvm_config, "--version")
        if version.split(".")[0] != LLVM_MAJOR:
            return None, f"{llvm_config} is LLVM {version}"
        prefix = _query(llvm_config, "--prefix")
        libdir = _query(llvm_config, "--libdir")
    except (OSError, subprocess.SubprocessError) as error:
        return None, f"{llvm_config} does not run: {error}"
    missing = _mlir_missing(prefix, libdir)
    if missing is not None:
        return None, f"LLVM {version} at {prefix} has {missing}"
    return LLVM(prefix=prefix, version=version), f"LLVM {version} with MLIR at {prefix}"


def _advice() -> str:
    return (
        f"Install LLVM and MLIR {LLVM_MAJOR} (Debian and Ubuntu, from the distribution or "
        f"apt.llvm.org: apt-get install {PACKAGES}), or set {PREFIX_VARIABLE} to the prefix of "
        f"an LLVM {LLVM_MAJOR} installation with MLIR (the directory holding bin/llvm-config)."
    )


def find_llvm(environ: Mapping[str, str] | None = None) -> LLVM:
    """The LLVM/MLIR 22 installation to build with (see the module's docstring).

    Raises LLVMNotFound, naming every candidate tried and why it does not do.
    """
    env = os.environ if environ is None else environ
    explicit = env.get(PREFIX_VARIABLE)
    if explicit:
        found, why = _inspect(explicit)
        if found is None:
            raise LLVMNotFound(
                f"{PREFIX_VARIABLE}={explicit} is not an LLVM {LLVM_MAJOR} installation with "
                f"MLIR: {why}.\n{_advice()}"
            )
        return found
    searched = env.get(SEARCH_VARIABLE)
    candidates = (
        [c for c in searched.split(os.pathsep) if c]
        if searched is not None
        else list(DEFAULT_CANDIDATES)
    )
    tried = []
    for candidate in candidates:
        found, why = _inspect(candidate)
        if found is not None:
            return found
        tried.append(f"  {candidate}: {why}")
    where = f" ({SEARCH_VARIABLE})" if searched is not None else ""
    raise LLVMNotFound(
        f"LLVM/MLIR {LLVM_MAJOR} not found: {PREFIX_VARIABLE} is not set, and none of these"
        f"{where} is an LLVM {LLVM_MAJOR} installation with MLIR:\n"
        + ("\n".join(tried) or "  (nothing to try)")
        + f"\n{_advice()}"
    )


def _find_or_exit() -> LLVM:
    try:
        return find_llvm()
    except LLVMNotFound as error:
        sys.stderr.write(f"\nzkdv: cannot build the extension: {error}\n\n")
        sys.stderr.flush()
        sys.exit(1)


def _configure() -> None:
    """Point the build at LLVM 22 through the environment, or exit with the reason."""
    llvm = _find_or_exit()
    print(f"zkdv: building with LLVM {llvm.version} at {llvm.prefix} ({PREFIX_VARIABLE})")
    sys.stdout.flush()
    os.environ[PREFIX_VARIABLE] = llvm.prefix
    os.environ.setdefault(TABLEGEN_VARIABLE, llvm.prefix)


def get_requires_for_build_wheel(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    """Maturin's, after the check: a frontend asks this first, before it prepares the metadata
    and fetches the dependencies, so a machine without LLVM 22 learns it at once."""
    _find_or_exit()
    return maturin.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_editable(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    """As get_requires_for_build_wheel."""
    _find_or_exit()
    return maturin.get_requires_for_build_editable(config_settings)


def build_wheel(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """Maturin's ``build_wheel``, with LLVM 22 found first."""
    _configure()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """Maturin's ``build_editable``, with LLVM 22 found first."""
    _configure()
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


# The sdist and the metadata need no LLVM.
build_sdist = maturin.build_sdist
get_requires_for_build_sdist = maturin.get_requires_for_build_sdist
prepare_metadata_for_build_wheel = maturin.prepare_metadata_for_build_wheel
prepare_metadata_for_build_editable = maturin.prepare_metadata_for_build_editable

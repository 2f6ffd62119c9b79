"""Lazy loading of the optional framework frontends ``zkdv.jax`` and ``zkdv.torch``.

``import zkdv`` imports neither framework. The package's module ``__getattr__`` calls
:func:`load` on the first access to ``zkdv.jax`` or ``zkdv.torch``; once the submodule is
imported, Python binds it as an attribute of the package and later accesses are plain
lookups. Whether the framework is installed is decided with ``importlib.util.find_spec``,
which locates a package without importing it.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType

__all__ = ["FRONTENDS", "Frontend", "load"]


@dataclass(frozen=True, slots=True)
class Frontend:
    """An optional frontend: its attribute name, framework label and pip extra."""

    name: str
    """The attribute of the package and the name of its submodule (``zkdv.<name>``)."""
    label: str
    """The framework's name in messages."""
    framework: str
    """The top-level package whose presence the frontend needs first."""
    requirements: tuple[str, ...]
    """Top-level packages installed by the pip extra ``zkdv[<name>]``."""

    @property
    def install_hint(self) -> str:
        """The command that installs the frontend's dependencies."""
        return f"pip install 'zkdv[{self.name}]'"


FRONTENDS: dict[str, Frontend] = {
    "jax": Frontend("jax", "JAX", "jax", ("jax", "jaxlib", "flax", "optax")),
    "torch": Frontend("torch", "PyTorch", "torch", ("torch",)),
}
"""The lazily loaded frontends, by attribute name."""


def _installed(package: str) -> bool:
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        return False


def load(name: str) -> ModuleType:
    """Import and return the frontend ``zkdv.<name>``.

    Raises:
        ImportError: when the frontend module is not part of this build of zkdv, or when the
            framework it needs is not installed; the message says which, with the
            ``pip install 'zkdv[<name>]'`` command where a dependency is missing.
    """
    frontend = FRONTENDS[name]
    module_name = f"zkdv.{name}"
    framework_missing = not _installed(frontend.framework)
    if not _installed(module_name):
        message = (
            f"zkdv.{name}: the {frontend.label} frontend is not available in this build of zkdv "
            "(its module is not implemented yet); the package root (zkdv.ZKDVConfig, "
            "zkdv.SamplingPolicy, zkdv.transcript, ...) works without it"
        )
        if framework_missing:
            message += (
                f". {frontend.label} itself is not installed either; once the frontend exists, "
                f"install it with: {frontend.install_hint}"
            )
        raise ImportError(message, name=module_name)
    if framework_missing:
        raise ImportError(
            f"zkdv.{name} needs {frontend.label}, which is not installed; "
            f"install it with: {frontend.install_hint}",
            name=frontend.framework,
        )
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = (error.name or "").partition(".")[0]
        if missing in frontend.requirements:
            raise ImportError(
                f"zkdv.{name} needs {missing!r}, which is not installed; "
                f"install the {frontend.label} frontend's dependencies with: "
                f"{frontend.install_hint}",
                name=missing,
            ) from error
        raise

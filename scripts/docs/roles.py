"""A Griffe extension for the docs site (zensical.toml): Sphinx roles in Markdown docstrings.

The package's docstrings are Google-style Markdown but name other objects with Sphinx roles
(:class:`ZKDVConfig`, :meth:`~zkdv.jax.ZKDV.jit`). mkdocstrings would print those verbatim.
This extension rewrites each role, once the package is loaded, as an optional cross-reference:
a link where the named object is rendered somewhere in the site, plain code where it is not
(a private helper, a name outside the package), and never a warning for the latter. Names are
resolved from the docstring's own scope, as Python would resolve them there. An rST literal
block marker (a paragraph ending in ``::``) loses its second colon; the indented block after
it is already a Markdown code block.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|meth|func|mod|attr|data|exc|obj):`(~?)([^`]+)`")
_LITERAL_BLOCK = re.compile(r"::(?=\n\s*\n)")


def _target(obj: griffe.Object, name: str, loader: griffe.GriffeLoader) -> str | None:
    """The canonical path of ``name`` as seen from ``obj``, or None if it cannot be found."""
    first, _, rest = name.partition(".")
    try:
        path = obj.resolve(first)
    except (griffe.NameResolutionError, griffe.AliasResolutionError):
        path = first
    if rest:
        path = f"{path}.{rest}"
    try:
        found = loader.modules_collection.get_member(path)
    except (KeyError, ValueError, griffe.AliasResolutionError):
        return None
    try:
        return found.final_target.path if found.is_alias else found.path
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def _rewrite(obj: griffe.Object, text: str, loader: griffe.GriffeLoader) -> str:
    def role(match: re.Match[str]) -> str:
        short, name = match.group(1), match.group(2).strip()
        shown = name.rsplit(".", 1)[-1] if short else name
        code = f"<code>{html.escape(shown)}</code>"
        path = _target(obj, name.removesuffix("()"), loader)
        if path is None:
            return code
        return f'<autoref identifier="{html.escape(path)}" optional>{code}</autoref>'

    return _LITERAL_BLOCK.sub(":", _ROLE.sub(role, text))


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles of every docstring of the packages named in ``packages``."""

    def __init__(self, packages: list[str] | None = None) -> None:
        super().__init__()
        self.packages = set(packages or [])

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Rewrite the docstrings of ``pkg`` and of everything it defines."""
        if self.packages and pkg.name not in self.packages:
            return
        stack: list[griffe.Object] = [pkg]
        while stack:
            obj = stack.pop()
            if obj.docstring is not None:
                obj.docstring.value = _rewrite(obj, obj.docstring.value, loader)
            stack.extend(member for member in obj.members.values() if not member.is_alias)

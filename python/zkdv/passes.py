"""The ZKDV compiler passes on StableHLO text, as ``zkdv-opt`` runs them.

:func:`run_passes` parses a module in MLIR's generic op form, runs the named passes in order
(``zkdv-opt --help`` lists them) and returns the printed result and the passes' reports.
"""

from __future__ import annotations

from collections.abc import Sequence

from zkdv import _native

__all__ = ["pipelines", "precision", "run_passes"]


def run_passes(
    text: str, passes: Sequence[str], source_name: str = "<input>"
) -> tuple[str, list[str]]:
    """Run ``passes`` on ``text``: pass or pipeline flags, with options after ``=``, such as
    ``"zkdv-slice-update=output=attested"`` or ``"zkdv-production-pipeline=ratio=0.05"``.

    Returns:
        ``(module_text, reports)``: the rewritten module in generic form and what the passes
        reported (cost tables, warnings), in order.

    Raises:
        ValueError: an unknown pass, a parse error or a pass diagnostic (the message holds the
            diagnostics with their locations).
    """
    return _native.run_passes(text, list(passes), source_name)


def precision(text: str, source_name: str = "<input>") -> dict[str, object]:
    """The precision summary ``--zkdv-precision-report`` prints, as a dict.

    ``{"narrowest": "bf16" | "f16" | "f32" | ... | None, "narrow_results": int}``: the float
    element type with the fewest significand bits anywhere in the module (``None`` without
    floats) and how many op results have a float type narrower than ``f32``. It is the program
    record's ``precision`` field, from which the tolerance policy derives a program's tolerance.

    Raises:
        ValueError: the text does not parse.
    """
    return _native.precision(text, source_name)


def pipelines() -> list[dict[str, object]]:
    """The named pipelines, as ``zkdv-opt --help`` lists them.

    Returns:
        ``[{"name", "summary", "options", "stages"}]``: each pipeline's flag, its summary, the
        usage line of each of its options, and the passes its default options expand into.
    """
    return _native.pipelines()

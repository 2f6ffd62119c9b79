"""Outcomes of sampled checks: :class:`CheckResult` and :class:`ZKDVPoisonedError`.

A check compares values that production committed with values an independent replay
recomputed. :class:`CheckResult` is one check, in the shape of the transcript's check record
(``docs/protocol.md``, section 5); a failed one poisons the session, and the frontend then
raises :class:`ZKDVPoisonedError`, whose fields are those of the close record's ``failure``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from zkdv.config import Tolerance

__all__ = ["CheckKind", "CheckResult", "LeafBias", "Verdict", "ZKDVPoisonedError"]

CheckKind = Literal["state", "update"]
"""The kind of a check: ``"state"`` (replayed state sketches) or ``"update"`` (one update
coordinate and one post-update optimizer-state coordinate recomputed by the attested program)."""

Verdict = Literal["pass", "fail"]
"""The outcome of a check."""

_KINDS: tuple[str, ...] = ("state", "update")
_VERDICTS: tuple[str, ...] = ("pass", "fail")
_U64_LIMIT = 1 << 64


def _index(owner: str, name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{owner}: {name} must be an integer, got {value!r}")
    if not 0 <= int(value) < _U64_LIMIT:
        raise ValueError(f"{owner}: {name} must be in [0, 2**64), got {value!r}")
    return int(value)


def _floats(owner: str, name: str, values: Iterable[object]) -> tuple[float, ...]:
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise TypeError(f"{owner}: {name} must be a sequence of real numbers, got {values!r}")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{owner}: {name} must hold real numbers, got {v!r}")
        out.append(float(v))
    return tuple(out)


def _format_float(value: float) -> str:
    return repr(value) if math.isfinite(value) else str(value)


@dataclass(frozen=True, slots=True)
class LeafBias:
    """A leaf of a state check whose differences keep one direction, more than rounding noise
    does (``noise::leaf_bias`` in Rust; ``docs/protocol.md``, section 8a): the check failed
    although each value is within its bound.

    Attributes:
        leaf: The leaf's position among the compared groups (a torch state check compares one
            update sketch per parameter, then the optimizer state's leaves).
        kind: ``"scale"``: ``value`` is the multiple of the replayed values that the
            differences follow; ``"mean"``: ``value`` is the differences'
            mean in units of their measured spread.
        value: The statistic.
        limit: The largest ``|value|`` the test admits for this leaf.
        name: The leaf's name, when the frontend knows it; not part of the check record.
    """

    leaf: int
    kind: Literal["scale", "mean"]
    value: float
    limit: float
    name: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        owner = "LeafBias"
        object.__setattr__(self, "leaf", _index(owner, "leaf", self.leaf))
        if self.kind not in ("scale", "mean"):
            raise ValueError(f"{owner}: kind must be 'scale' or 'mean', got {self.kind!r}")
        value, limit = _floats(owner, "value and limit", (self.value, self.limit))
        if not (math.isfinite(limit) and limit >= 0.0 and abs(value) > limit):
            raise ValueError(
                f"{owner}: a recorded bias must exceed its limit, got |{value!r}| <= {limit!r}"
            )
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "limit", limit)

    def describe(self) -> str:
        """What the test found, as a failure names it."""
        where = self.name if self.name is not None else f"leaf #{self.leaf}"
        if self.kind == "scale":
            what = f"follow the replayed values scaled by {self.value:+.3e}"
        else:
            what = f"average {self.value:+.3f} units of their measured spread"
        return f"{where}: its differences {what} (at most {self.limit:.3e} admitted)"

    def to_record(self) -> dict[str, Any]:
        """The check record's ``bias`` field."""
        return {"leaf": self.leaf, "kind": self.kind, "value": self.value, "limit": self.limit}

    @classmethod
    def from_record(cls, body: Mapping[str, Any]) -> LeafBias:
        """Read a check record's ``bias`` field."""
        if not isinstance(body, Mapping) or set(body) != {"leaf", "kind", "value", "limit"}:
            raise ValueError(
                f"a check record's bias must have the fields leaf, kind, value, limit: {body!r}"
            )
        return cls(body["leaf"], body["kind"], body["value"], body["limit"])


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The result of one sampled check; immutable.

    Attributes:
        step: The checked step (0-based).
        kind: ``"update"``: the attested program recomputed the challenged coordinates;
            ``"state"``: a replay from the newest snapshot rebuilt the state sketches.
        indices: For an update check, the challenged ``(parameter_index,)`` or
            ``(parameter_index, optimizer_state_index)``; empty for a state check.
        committed: The values production committed (at least one).
        recomputed: The values the replay recomputed, one per committed value (NaN allowed:
            it fails).
        tolerance: The tolerance the values were compared with (the step's program's).
        verdict: ``"pass"`` exactly when every pair is within ``tolerance``, else ``"fail"``.
        replay_length: Transitions replayed from the snapshot to rebuild the pre-state.
        spread: The measured spread of each value over the perturbation ensemble, when this
            is an update check whose tolerance has one (``tolerance.replays > 0``) and the
            values did not pass without it; empty otherwise.
        outliers: For a state check, the compared values outside their bound that the
            comparison admitted as outliers (``Tolerance.compare_state``: a few discrete flips
            of a ``bf16`` step, each within its cap); ``committed`` and ``recomputed`` then
            hold the worst of the other values. 0 for an update check.
        bias: For a state check that failed although each value is within its bound, the leaf
            whose differences keep one direction (:class:`LeafBias`); ``None`` otherwise.
        scale: For a state check, the largest magnitude of the recorded value's row in the
            replay when it lowered the value's absolute term: the value was compared under
            ``tolerance.scaled_to(scale)`` (:meth:`zkdv.Tolerance.scaled_to`, the rule of
            :meth:`zkdv.Tolerance.compare_state`); ``None`` when it was compared under
            ``tolerance`` as it is, and always for an update check.
        position: For a state check, the position of its value among the replay's sketch
            values (the first out of tolerance, else the closest to its bound), which a failure
            names; not part of the check record.
    """

    step: int
    kind: CheckKind
    indices: tuple[int, ...]
    committed: tuple[float, ...]
    recomputed: tuple[float, ...]
    tolerance: Tolerance
    verdict: Verdict
    replay_length: int = 0
    spread: tuple[float, ...] = ()
    outliers: int = 0
    bias: LeafBias | None = None
    scale: float | None = None
    position: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        owner = "CheckResult"
        object.__setattr__(self, "step", _index(owner, "step", self.step))
        if self.kind not in _KINDS:
            raise ValueError(f"{owner}: kind must be 'state' or 'update', got {self.kind!r}")
        if isinstance(self.indices, str | bytes) or not isinstance(self.indices, Iterable):
            raise TypeError(f"{owner}: indices must be a sequence of integers")
        indices = tuple(_index(owner, "an index", i) for i in self.indices)
        object.__setattr__(self, "indices", indices)
        committed = _floats(owner, "committed", self.committed)
        recomputed = _floats(owner, "recomputed", self.recomputed)
        object.__setattr__(self, "committed", committed)
        object.__setattr__(self, "recomputed", recomputed)
        if not committed:
            raise ValueError(f"{owner}: committed must hold at least one value")
        if len(recomputed) != len(committed):
            raise ValueError(
                f"{owner}: {len(committed)} committed values but {len(recomputed)} recomputed"
            )
        if self.kind == "state" and indices:
            raise ValueError(f"{owner}: a state check has no indices, got {indices}")
        if self.kind == "update" and not 1 <= len(indices) <= 2:
            raise ValueError(
                f"{owner}: an update check has one or two indices "
                f"(parameter, optimizer state), got {indices}"
            )
        if self.kind == "update" and len(committed) != len(indices):
            raise ValueError(
                f"{owner}: an update check compares one value per index; "
                f"{len(indices)} indices but {len(committed)} values"
            )
        if not isinstance(self.tolerance, Tolerance):
            raise TypeError(f"{owner}: tolerance must be a zkdv.Tolerance, got {self.tolerance!r}")
        spread = _floats(owner, "spread", self.spread)
        object.__setattr__(self, "spread", spread)
        may_measure = self.tolerance.replays > 0
        if spread and (not may_measure or len(spread) != len(committed)):
            raise ValueError(
                f"{owner}: {len(spread)} spread values; "
                + (
                    f"a check records none or {len(committed)}"
                    if may_measure
                    else "only a check under a perturbation ensemble records any"
                )
            )
        if any(not (math.isfinite(x) and x >= 0.0) for x in spread):
            raise ValueError(f"{owner}: spread values must be finite and non-negative")
        if self.verdict not in _VERDICTS:
            raise ValueError(f"{owner}: verdict must be 'pass' or 'fail', got {self.verdict!r}")
        if self.bias is not None and not isinstance(self.bias, LeafBias):
            raise TypeError(f"{owner}: bias must be a zkdv.LeafBias, got {self.bias!r}")
        if self.bias is not None and self.kind != "state":
            raise ValueError(f"{owner}: only a state check records a leaf bias")
        if self.scale is not None:
            if self.kind != "state":
                raise ValueError(f"{owner}: only a state check records a row scale")
            if isinstance(self.scale, bool) or not isinstance(self.scale, numbers.Real):
                raise TypeError(f"{owner}: scale must be a number, got {self.scale!r}")
            if not (math.isfinite(self.scale) and self.scale >= 0.0):
                raise ValueError(f"{owner}: scale must be finite and non-negative")
            object.__setattr__(self, "scale", float(self.scale))
        expected = "pass" if self.first_failure is None and self.bias is None else "fail"
        if self.verdict != expected:
            raise ValueError(
                f"{owner}: verdict {self.verdict!r} contradicts the values and tolerance, "
                f"which give {expected!r}"
            )
        object.__setattr__(
            self, "replay_length", _index(owner, "replay_length", self.replay_length)
        )
        object.__setattr__(self, "outliers", _index(owner, "outliers", self.outliers))
        if self.kind == "update" and self.outliers:
            raise ValueError(f"{owner}: an update check admits no outliers, got {self.outliers}")

    @property
    def passed(self) -> bool:
        """Whether the check passed (``verdict == "pass"``)."""
        return self.verdict == "pass"

    @property
    def pair_tolerance(self) -> Tolerance:
        """The tolerance the recorded values were compared under: :attr:`tolerance`, scaled
        to :attr:`scale` when there is one (``CheckBody::pair_tolerance``)."""
        return self.tolerance if self.scale is None else self.tolerance.scaled_to(self.scale)

    @property
    def first_failure(self) -> int | None:
        """Position, in ``committed``, of the first value out of tolerance; ``None`` if none."""
        return self.pair_tolerance.first_outside(
            self.committed, self.recomputed, self.spread if self.spread else None
        )

    def spread_of(self, position: int) -> float:
        """The measured spread of value ``position`` (``0`` when none was measured)."""
        return self.spread[position] if self.spread else 0.0

    def margin(self) -> float:
        """The largest ``|committed - recomputed| / allowed difference`` over the values: how
        close the check came to failing (above ``1`` it failed; a non-finite value that differs
        from its counterpart counts as infinite, one equal to it as 0)."""
        margins = self.pair_tolerance.margins(
            self.committed, self.recomputed, self.spread if self.spread else None
        )
        worst = float(margins.max())
        if self.bias is not None:
            worst = max(worst, abs(self.bias.value) / self.bias.limit)
        return worst

    def to_record(self) -> dict[str, Any]:
        """The check record body, as :meth:`zkdv.transcript.TranscriptWriter.append_check`
        takes it."""
        return {
            "step": self.step,
            "kind": self.kind,
            "indices": list(self.indices),
            "committed": list(self.committed),
            "recomputed": list(self.recomputed),
            "tolerance": self.tolerance.to_record(),
            "spread": list(self.spread),
            "verdict": self.verdict,
            "replay_length": self.replay_length,
            **({"outliers": self.outliers} if self.outliers else {}),
            **({"bias": self.bias.to_record()} if self.bias is not None else {}),
            **({"scale": self.scale} if self.scale is not None else {}),
        }

    @classmethod
    def from_record(cls, body: Mapping[str, Any]) -> CheckResult:
        """Read a check record body."""
        if not isinstance(body, Mapping):
            raise TypeError(f"a check record must be a mapping, got {body!r}")
        fields = {
            "step",
            "kind",
            "indices",
            "committed",
            "recomputed",
            "tolerance",
            "spread",
            "verdict",
            "replay_length",
        }
        if not fields <= set(body) <= fields | {"outliers", "bias", "scale"}:
            raise ValueError(
                f"a check record must have exactly the fields {sorted(fields)} (and, for a "
                "state check, 'outliers' when it admitted outliers, 'bias' when a leaf was "
                "biased, 'scale' when its row's scale lowered its absolute term)"
            )
        return cls(
            step=body["step"],
            kind=body["kind"],
            indices=tuple(body["indices"]),
            committed=tuple(body["committed"]),
            recomputed=tuple(body["recomputed"]),
            tolerance=Tolerance.from_record(body["tolerance"]),
            verdict=body["verdict"],
            replay_length=body["replay_length"],
            spread=tuple(body["spread"]),
            outliers=body.get("outliers", 0),
            bias=LeafBias.from_record(body["bias"]) if "bias" in body else None,
            scale=body.get("scale"),
        )


def _restore_poisoned(
    step: int,
    coordinate: int | None,
    kind: CheckKind,
    detail: str,
    check: CheckResult | None,
) -> ZKDVPoisonedError:
    return ZKDVPoisonedError(step, coordinate, kind=kind, detail=detail, check=check)


class ZKDVPoisonedError(RuntimeError):
    """A sampled check failed, so the session is poisoned.

    Raised by every operation of a poisoned session and always by its ``close()``, which
    records the failure in the close record (status ``poisoned``). The message names the step
    and, when known, the coordinate.

    Args:
        step: The step whose check failed.
        coordinate: The first coordinate out of tolerance when known: for an update check,
            the challenged parameter index (or optimizer-state index) whose value differed.
        kind: The failed check's kind, ``"update"`` (default) or ``"state"``.
        detail: Further human-readable detail (values, tolerance, cause).
        check: The failed :class:`CheckResult`, when there is one.

    Attributes:
        step: The step whose check failed.
        coordinate: The first coordinate out of tolerance, or ``None`` when unknown or
            when the check compares state sketches rather than coordinates.
        kind: The failed check's kind.
        detail: Further detail (may be empty).
        check: The failed check, or ``None``.
    """

    step: int
    coordinate: int | None
    kind: CheckKind
    detail: str
    check: CheckResult | None

    def __init__(
        self,
        step: int,
        coordinate: int | None = None,
        *,
        kind: CheckKind = "update",
        detail: str = "",
        check: CheckResult | None = None,
    ) -> None:
        owner = "ZKDVPoisonedError"
        self.step = _index(owner, "step", step)
        self.coordinate = None if coordinate is None else _index(owner, "coordinate", coordinate)
        if kind not in _KINDS:
            raise ValueError(f"{owner}: kind must be 'state' or 'update', got {kind!r}")
        self.kind = kind
        self.detail = str(detail)
        self.check = check
        where = f"step {self.step}"
        if self.coordinate is not None:
            where += f" at coordinate {self.coordinate}"
        message = f"ZKDV session poisoned: the {kind} check of {where} failed"
        if self.detail:
            message += f": {self.detail}"
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _restore_poisoned,
            (self.step, self.coordinate, self.kind, self.detail, self.check),
        )

    @classmethod
    def from_check(cls, check: CheckResult) -> ZKDVPoisonedError:
        """The error for a failed check, naming its first value out of tolerance.

        Raises:
            ValueError: if ``check`` passed.
        """
        position = check.first_failure
        if position is None and check.bias is not None:
            detail = (
                f"state sketch {check.bias.describe()}; each value is within its bound, but "
                "rounding noise keeps no direction"
            )
            return cls(check.step, None, kind=check.kind, detail=detail, check=check)
        if position is None:
            raise ValueError(f"the {check.kind} check of step {check.step} passed")
        committed = _format_float(check.committed[position])
        recomputed = _format_float(check.recomputed[position])
        t = check.pair_tolerance
        if check.kind == "update":
            coordinate: int | None = check.indices[position]
            what = "parameter update" if position == 0 else "post-update optimizer state"
            value = f"{what} coordinate {coordinate}"
        else:
            coordinate = None
            value = f"state sketch value #{position if check.position is None else check.position}"
        allowed = f"{t.abs!r} + {t.rel!r} * |committed|"
        if check.scale is not None:
            allowed += f" (the absolute term scaled to its row's largest value, {check.scale!r})"
        if check.spread:
            s = check.spread_of(position)
            bound = t.bound(check.committed[position], s)
            allowed += f" + {t.spread!r} * spread {s!r} (= {bound!r})"
        detail = (
            f"{value}: committed {committed}, recomputed {recomputed}, "
            f"allowed |difference| <= {allowed}"
        )
        if check.replay_length:
            n = check.replay_length
            detail += f" (pre-state rebuilt by replaying {n} transition{'s' if n > 1 else ''})"
        return cls(check.step, coordinate, kind=check.kind, detail=detail, check=check)

    def to_failure_record(self) -> dict[str, Any]:
        """The close record's ``failure`` field, as
        :meth:`zkdv.transcript.TranscriptWriter.close` takes it."""
        # The record names the step, kind and coordinate; the message says what differed
        # (readers print "<kind> check of step <step> failed: <message>").
        return {
            "step": self.step,
            "kind": self.kind,
            "coordinate": self.coordinate,
            "message": self.detail or "the recomputed values differ from the committed ones",
        }

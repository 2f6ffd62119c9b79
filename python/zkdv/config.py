"""Session configuration shared by every frontend: sampling policy, tolerance, name.

Nothing here imports JAX or PyTorch. The objects are immutable and validated when they are
built, so a bad value fails where the user wrote it rather than at the first training step.

Each object converts to the exact value the transcript protocol stores in the root record
(``docs/protocol.md``, section 5): :meth:`SamplingPolicy.to_record` and
:meth:`DebugCheckEvery.to_record` give the ``sampling`` field, :meth:`Tolerance.to_record` the
``tolerance`` field and :meth:`ZKDVConfig.root_fields` the four fields a configuration decides.
Frontends pass those dicts unchanged to :class:`zkdv.transcript.TranscriptWriter`; sampling
decisions themselves are derived by the Rust core (:func:`zkdv.transcript.derive_challenge`),
never in Python.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:
    from zkdv.checks import LeafBias

__all__ = ["DebugCheckEvery", "Ensemble", "Outcome", "SamplingPolicy", "Tolerance", "ZKDVConfig"]

_U64_LIMIT = 1 << 64


def _real(owner: str, name: str, value: object) -> float:
    """``value`` as a float; a TypeError naming ``owner.name`` unless it is a real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {name} must be a real number, got {value!r}")
    return float(value)


def _probability(owner: str, name: str, value: object) -> float:
    p = _real(owner, name, value)
    if math.isnan(p) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{owner}: {name} must be a probability in [0, 1], got {value!r}")
    return p


def _mapping(what: str, record: object) -> Mapping[str, Any]:
    if not isinstance(record, Mapping):
        raise TypeError(f"{what} must be a mapping, got {record!r}")
    return record


def _exact_keys(what: str, record: Mapping[str, Any], keys: set[str]) -> None:
    if set(record) != keys:
        raise ValueError(f"{what} must have exactly the keys {sorted(keys)}, got {sorted(record)}")


@dataclass(frozen=True, slots=True)
class Tolerance:
    """How far a recomputed value may be from the committed one and still pass a check.

    A value passes when ``|committed - recomputed| <= abs + rel * |committed| + spread * s``;
    a non-finite value agrees only with the same value (NaN with NaN, an infinity with the same
    infinity). ``s`` is the value's *spread*, which a check measures when the
    value does not pass without it: the largest distance from the recomputed value of
    ``replays`` replays of the attested program perturbed within rounding (float inputs moved
    by an ulp; ``f16``/``bf16`` results rounded up, down, stochastically or not at all;
    ``docs/protocol.md``, the tolerance policy). It is large exactly where the value is
    sensitive to rounding (an Adam update of a gradient that is zero in exact arithmetic, a
    ``bf16`` path), and about an ulp elsewhere. With ``replays = 0`` there is no ensemble and
    the bound is ``abs + rel * |committed|`` alone.

    Give a ``Tolerance`` to :class:`ZKDVConfig` to fix every check's bound yourself; without
    one, every program's tolerance is ``Tolerance()`` plus a 32-fold spread of 8 replays.

    The defaults, ``abs=1e-6`` and ``rel=1e-5``, are the margin measured between XLA and the
    replay runtime on the f32 training steps of the test fixtures (``docs/runtime.md``):
    reductions summed in a different order agree to rounding, and the absolute floor covers
    ill-conditioned optimizer coordinates such as Adam's ``m / sqrt(v)`` for a near-zero
    gradient.

    Attributes:
        abs: The absolute term (default ``1e-6``).
        rel: The term relative to ``|committed|`` (default ``1e-5``).
        spread: The factor on the measured spread (default ``0``).
        replays: How many perturbed replays measure the spread (default ``0``: none).
    """

    abs: float = 1e-6
    rel: float = 1e-5
    spread: float = 0.0
    replays: int = 0

    def __post_init__(self) -> None:
        for name in ("abs", "rel", "spread"):
            given = getattr(self, name)
            value = _real("Tolerance", name, given)
            if not math.isfinite(value) or value < 0.0:
                message = f"Tolerance: {name} must be finite and non-negative, got {given!r}"
                raise ValueError(message)
            object.__setattr__(self, name, value)
        replays = self.replays
        if isinstance(replays, bool) or not isinstance(replays, numbers.Integral):
            raise TypeError(f"Tolerance: replays must be an integer, got {replays!r}")
        if not 0 <= int(replays) <= 1024:
            raise ValueError(f"Tolerance: replays must be in [0, 1024], got {replays!r}")
        object.__setattr__(self, "replays", int(replays))

    def compare(
        self,
        committed: np.ndarray | Sequence[float],
        recomputed: np.ndarray | Sequence[float],
        spread: np.ndarray | Sequence[float] | None = None,
    ) -> Outcome | None:
        """The pair that decides a comparison: the first pair out of tolerance, else the pair
        closest to its bound (``None`` for no values).

        ``committed``, ``recomputed`` and ``spread`` (one measured spread per value, when
        given) are flattened and compared as ``float64`` by the Rust core
        (``Tolerance::compare``, the rule the verifier and ``zkdv audit`` apply). Non-finite
        values agree only with the same non-finite value (NaN with NaN, an infinity with the
        same infinity), never with a finite one.
        """
        from zkdv import _native

        outcome = _native.tolerance_compare(
            self.to_record(),
            _flat(committed),
            _flat(recomputed),
            None if spread is None else _flat(spread),
        )
        return None if outcome is None else Outcome(*outcome)

    def compare_state(
        self,
        committed: np.ndarray | Sequence[float],
        recomputed: np.ndarray | Sequence[float],
        update: np.ndarray | Sequence[float],
        groups: Sequence[Group],
        spread: np.ndarray | Sequence[float] | None = None,
        flips: bool = False,
        scales: Sequence[float] | None = None,
    ) -> tuple[Outcome, int, LeafBias | None, float | None] | None:
        """A state comparison that admits outliers (``noise::compare_state`` in Rust, the rule
        ``zkdv audit`` applies to snapshots): every pair within the tolerance except at most
        ``max(1, ceil(1e-4 * floats))`` float pairs, and at most ``max(2, ceil(1e-3 * n))``
        in a leaf of ``n`` values, each within its outlier cap (its bound
        plus the larger of twice its replayed ``update`` and, with ``flips`` (a program that
        computes in a float narrower than ``f32``), the tolerance's spread factor times the
        largest spread of its leaf). ``groups`` gives each leaf's run of values as
        ``(length, is_float)`` or ``(length, is_float, row)``, ``row`` being how many
        consecutive values share the leaf's first index (the whole leaf when not given). With
        ``flips``, a pair's spread is first raised to a sixteenth of the root mean square spread
        of its row (``noise::row_spread``). When every pair passes, each float leaf must also
        pass the bias test (``noise::leaf_bias``): its differences may not follow its replayed
        values by a scale beyond ``1e-4``, beyond their own sampling error and beyond the
        tolerance's spread factor times ``scales`` (each leaf's largest ensemble-member scale,
        :meth:`measure_ensemble`; under a tolerance with an ensemble, in a program without
        ``flips`` or, with ``spread``, in one with them, where the floor is ``1e-3``), nor
        average more than one unit of their measured spread (with
        ``spread``), beyond their sampling error. Returns
        the deciding pair (the first pair the rule refuses, else the worst of the pairs within
        their bound), the outliers admitted and the biased leaf (:class:`zkdv.LeafBias`, which
        fails the comparison) and the scale of the deciding pair's row when it lowered that
        pair's absolute term (each float pair's absolute term is at most ``rel`` times the
        largest magnitude of its row's recomputed values, :meth:`scaled_to`; ``None`` when the
        pair was compared under this tolerance as it is); ``None`` for no values.
        """
        from zkdv import _native

        result = _native.tolerance_compare_state(
            self.to_record(),
            _flat(committed),
            _flat(recomputed),
            _flat(update),
            _groups(groups),
            None if spread is None else _flat(spread),
            flips,
            None if scales is None else [float(x) for x in scales],
        )
        if result is None:
            return None
        from zkdv.checks import LeafBias

        outcome, outliers, bias, scale = result
        return Outcome(*outcome), outliers, None if bias is None else LeafBias(*bias), scale

    def state_bounds(
        self,
        committed: np.ndarray | Sequence[float],
        recomputed: np.ndarray | Sequence[float],
        groups: Sequence[Group],
        spread: np.ndarray | Sequence[float] | None = None,
        flips: bool = False,
    ) -> np.ndarray:
        """Each value's bound in :meth:`compare_state` (``noise::state_bounds``): the largest
        ``|committed - recomputed|`` that passes the pair on its own, under this tolerance
        scaled to the value's row (:meth:`scaled_to`) and, with ``flips``, its spread floored at
        its row's share; 0 for a non-finite committed value. For diagnostics (where an honest
        run's bounds sit); the check itself is :meth:`compare_state`.
        """
        from zkdv import _native

        return _native.tolerance_state_bounds(
            self.to_record(),
            _flat(committed),
            _flat(recomputed),
            _groups(groups),
            None if spread is None else _flat(spread),
            flips,
        )

    def scaled_to(self, scale: float) -> Tolerance:
        """This tolerance for the values of a row whose largest magnitude is ``scale``: its
        absolute term at most ``rel * scale``, never above its own (``Tolerance::scaled_to``).
        A state comparison bounds each float value so (:meth:`compare_state`), as ``zkdv audit``
        bounds a snapshot's values: the absolute term stands for rounding in the row's own
        range, and a fixed one read against a leaf of smaller values (Adam's second moments)
        would be room.

        >>> from zkdv import Tolerance
        >>> Tolerance(abs=1e-6, rel=1e-5).scaled_to(1e-3).abs
        1e-08
        >>> Tolerance(abs=1e-6, rel=1e-5).scaled_to(10.0).abs
        1e-06
        """
        from zkdv import _native

        return Tolerance.from_record(_native.tolerance_scaled_to(self.to_record(), float(scale)))

    def leaf_statistics(
        self,
        committed: np.ndarray | Sequence[float],
        recomputed: np.ndarray | Sequence[float],
        groups: Sequence[Group],
        spread: np.ndarray | Sequence[float] | None = None,
        flips: bool = False,
        scales: Sequence[float] | None = None,
    ) -> list[tuple[int, Literal["scale", "mean"], float, float]]:
        """Every statistic of :meth:`compare_state`'s bias test, refused or not
        (``noise::leaf_statistics``), as ``(leaf, kind, value, limit)``: per float leaf, its
        scale where that test applies and its mean with ``spread``. For diagnostics (how much
        room an honest run leaves, ``python -m zoo.footprint``); the check itself is
        :meth:`compare_state`, which refuses a leaf whose ``|value|`` exceeds its ``limit``.
        """
        from zkdv import _native

        return _native.tolerance_leaf_statistics(
            self.to_record(),
            _flat(committed),
            _flat(recomputed),
            _groups(groups),
            None if spread is None else _flat(spread),
            flips,
            None if scales is None else [float(x) for x in scales],
        )

    def margins(
        self,
        committed: np.ndarray | Sequence[float],
        recomputed: np.ndarray | Sequence[float],
        spread: np.ndarray | Sequence[float] | None = None,
    ) -> np.ndarray:
        """Each pair's ``|committed - recomputed|`` over its bound (``Tolerance::margin``): above
        ``1`` it fails; equal non-finite values give 0, unequal ones infinity."""
        from zkdv import _native

        return _native.tolerance_margins(
            self.to_record(),
            _flat(committed),
            _flat(recomputed),
            None if spread is None else _flat(spread),
        )

    def bound(self, committed: float, spread: float = 0.0) -> float:
        """The largest ``|committed - recomputed|`` that passes for a finite ``committed`` value
        of measured spread ``spread`` (``Tolerance::bound``)."""
        outcome = self.compare([committed], [committed], [spread])
        assert outcome is not None
        return outcome.allowed

    def accepts(self, committed: float, recomputed: float, spread: float = 0.0) -> bool:
        """Whether ``recomputed`` is within tolerance of ``committed`` given the value's measured
        ``spread`` (``0`` when none was measured): :meth:`compare` of one pair.

        Example:

            >>> t = zkdv.Tolerance(abs=1e-6, rel=1e-5)
            >>> t.accepts(1.0, 1.000005), t.accepts(1.0, 1.0001)
            (True, False)
            >>> t.accepts(float("nan"), float("nan")), t.accepts(float("inf"), 1.0)
            (True, False)
        """
        outcome = self.compare([committed], [recomputed], [spread])
        return outcome is not None and outcome.passed

    def first_outside(
        self,
        committed: np.ndarray | Sequence[float],
        recomputed: np.ndarray | Sequence[float],
        spread: np.ndarray | Sequence[float] | None = None,
    ) -> int | None:
        """The position of the first pair that :meth:`accepts` refuses, or ``None``."""
        outcome = self.compare(committed, recomputed, spread)
        return None if outcome is None or outcome.passed else outcome.index

    def needs_spread(
        self, committed: np.ndarray | Sequence[float], recomputed: np.ndarray | Sequence[float]
    ) -> bool:
        """Whether a check must measure the spread: the tolerance runs a perturbation ensemble
        and a pair is refused under the fixed bound (``Tolerance::needs_spread``)."""
        from zkdv import _native

        return _native.tolerance_needs_spread(self.to_record(), _flat(committed), _flat(recomputed))

    def measure_spread(
        self, nominal: np.ndarray | Sequence[float], member: Callable[[int], np.ndarray]
    ) -> np.ndarray:
        """Each value's spread over the perturbation ensemble (``Tolerance::measure_spread``):
        the largest finite ``|member(m) - nominal|`` over ``m`` in ``range(replays)``, where
        ``member(m)`` returns member ``m``'s values."""
        from zkdv import _native

        spread, _ = _native.tolerance_spread(
            self.to_record(), _flat(nominal), lambda m: _flat(member(m))
        )
        return spread

    def measure_spread_for(
        self,
        committed: np.ndarray | Sequence[float],
        nominal: np.ndarray | Sequence[float],
        member: Callable[[int], np.ndarray],
    ) -> Ensemble:
        """:meth:`measure_spread` as a check measures it for ``committed`` values
        (``Tolerance::measure_spread_for``): members in order, stopping at the first at which
        every pair passes :meth:`compare` (the whole ensemble when none does). A spread over
        fewer members is at most the whole ensemble's, so the verdict is the one the whole
        ensemble gives, at a fraction of its replays."""
        from zkdv import _native

        spread, members = _native.tolerance_spread(
            self.to_record(), _flat(nominal), lambda m: _flat(member(m)), _flat(committed)
        )
        return Ensemble(spread, [], members)

    def measure_ensemble(
        self,
        nominal: np.ndarray | Sequence[float],
        member: Callable[[int], np.ndarray],
        groups: Sequence[Group],
    ) -> tuple[np.ndarray, list[float]]:
        """:meth:`measure_spread` of a state comparison's values, and each of its ``groups``'
        largest coherent scale over the members (``noise::member_scales``): how far an honest
        implementation may scale a whole leaf, which :meth:`compare_state` takes as
        ``scales``. Runs each member once."""
        from zkdv import _native

        spread, scales, _ = _native.tolerance_ensemble(
            self.to_record(),
            _flat(nominal),
            lambda m: _flat(member(m)),
            _groups(groups),
        )
        return spread, list(scales)

    def measure_ensemble_for(
        self,
        committed: np.ndarray | Sequence[float],
        nominal: np.ndarray | Sequence[float],
        member: Callable[[int], np.ndarray],
        update: np.ndarray | Sequence[float],
        groups: Sequence[Group],
        *,
        flips: bool = False,
    ) -> Ensemble:
        """:meth:`measure_ensemble` as a state check measures it for ``committed`` values
        (``noise::measure_state_ensemble``): members in order, stopping at the first at which
        :meth:`compare_state` (its arguments as that takes them) passes outright with the
        spreads and scales measured so far, admitting no outlier; the whole ensemble when none
        does. A pair's bound and a leaf's scale limit only grow with more members, so a state
        they refuse under the whole ensemble is never passed earlier (the mean test, which
        divides by the spreads, is the exception written in docs/protocol.md section 8a)."""
        from zkdv import _native

        spread, scales, members = _native.tolerance_ensemble(
            self.to_record(),
            _flat(nominal),
            lambda m: _flat(member(m)),
            _groups(groups),
            (_flat(committed), _flat(update), bool(flips)),
        )
        return Ensemble(spread, list(scales), members)

    def for_program(self, policy: str, precision: Mapping[str, Any]) -> Tolerance:
        """The tolerance of a program of ``precision`` (:func:`zkdv.passes.precision`) in a
        session with this base tolerance and ``policy`` (``"fixed"`` or ``"program"``).

        Computed by the Rust core (``Tolerance::for_program``), the rule the verifier applies.
        """
        from zkdv import _native

        return Tolerance.from_record(
            _native.program_tolerance(self.to_record(), policy, dict(precision))
        )

    def to_record(self) -> dict[str, float | int]:
        """The ``tolerance`` field: ``{"abs": ..., "rel": ..., "spread": ..., "replays": ...}``."""
        return {"abs": self.abs, "rel": self.rel, "spread": self.spread, "replays": self.replays}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Tolerance:
        """Read a ``tolerance`` field of a root, program or check record."""
        record = _mapping("a tolerance record", record)
        _exact_keys("a tolerance record", record, {"abs", "rel", "spread", "replays"})
        return cls(
            abs=record["abs"],
            rel=record["rel"],
            spread=record["spread"],
            replays=record["replays"],
        )


Group = tuple[int, bool] | tuple[int, bool, int] | tuple[int, bool, int, bool]
"""One leaf's run of values in a state comparison: ``(length, is_float)``, ``(length,
is_float, row)`` or ``(length, is_float, row, is_sketch)``, ``row`` the values that share its
first index (the whole run when not given), ``is_sketch`` whether they are probe sketches of
the leaf rather than its values (``False`` when not given; ``noise::Group`` in Rust)."""


def group_of(
    value: np.ndarray, is_float: bool, sketch: bool = False
) -> tuple[int, bool, int, bool]:
    """The :data:`Group` of a leaf ``value`` whose values a state comparison holds (its probe
    sketches with ``sketch``): its rows are the values that share its first index
    (``noise::Group::of_shape`` in Rust)."""
    from zkdv import _native

    row = _native.state_group_row([int(d) for d in value.shape])
    return int(value.size), is_float, row, sketch


def _groups(groups: Sequence[Group]) -> list[tuple[int, bool, int, bool]]:
    return [
        (
            int(g[0]),
            bool(g[1]),
            int(g[2]) if len(g) > 2 else int(g[0]),
            bool(g[3]) if len(g) > 3 else False,
        )
        for g in groups
    ]


def _flat(values: np.ndarray | Sequence[float]) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values, np.float64).reshape(-1))


@dataclass(frozen=True, slots=True)
class Ensemble:
    """A perturbation ensemble as a check measured it (:meth:`Tolerance.measure_spread_for`,
    :meth:`Tolerance.measure_ensemble_for`)."""

    spread: np.ndarray
    """Each value's spread over the members measured."""
    scales: list[float]
    """Each group's largest member scale over them (empty for a comparison without groups):
    what :meth:`Tolerance.compare_state` takes as ``scales``."""
    members: int
    """How many members were measured, from 1 to the tolerance's ``replays``."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The pair that decides a comparison (:meth:`Tolerance.compare`)."""

    index: int
    """Its position among the compared values."""
    committed: float
    recomputed: float
    spread: float
    """Its measured spread (0 when none was given)."""
    allowed: float
    """The largest difference the tolerance allowed it (0 for a non-finite committed value,
    which only the same value matches)."""
    margin: float
    """``|committed - recomputed| / allowed``."""
    passed: bool
    """Whether it, and so every pair compared, is within tolerance."""


@dataclass(frozen=True, slots=True)
class SamplingPolicy:
    """Independent random sampling of the checks of every step.

    After step ``t`` is committed, the Rust core decides from the secret challenge key and the
    step record's hash whether to run a state check (probability ``state_check_probability``)
    and, independently, an update check (probability ``update_check_probability``). ``1 / p``
    is the expected number of steps between two checks of a kind. Both probabilities are real
    numbers in ``[0, 1]`` (``0`` never checks, ``1`` checks every step); they are stored as
    floats.

    For deterministic tests and profiling use :meth:`SamplingPolicy.DEBUGCheckEvery`.

    Attributes:
        state_check_probability: Probability that a step's rebuilt state is checked.
        update_check_probability: Probability that a step's update is recomputed and checked.
    """

    state_check_probability: float
    update_check_probability: float

    def __post_init__(self) -> None:
        for name in ("state_check_probability", "update_check_probability"):
            value = _probability("SamplingPolicy", name, getattr(self, name))
            object.__setattr__(self, name, value)

    @staticmethod
    def DEBUGCheckEvery(n: int) -> DebugCheckEvery:
        """A deterministic policy for tests and profiling: check every ``n``-th step.

        Both a state check and an update check run at each step ``t`` with
        ``(t + 1) % n == 0``: ``DEBUGCheckEvery(1)`` checks every step, ``DEBUGCheckEvery(3)``
        steps 2, 5, 8, ... The choice is predictable by the training process, so use the
        probabilistic :class:`SamplingPolicy` for normal operation.

        Args:
            n: The period, an integer of at least 1.

        Example:

            >>> policy = zkdv.SamplingPolicy.DEBUGCheckEvery(1)
            >>> config = zkdv.ZKDVConfig(sampling_policy=policy)  # every step checked
        """
        return DebugCheckEvery(n)

    def to_record(self) -> dict[str, dict[str, float]]:
        """The root record's ``sampling`` field.

        ``{"probability": {"state_check_probability": p_s, "update_check_probability": p_u}}``.
        """
        return {
            "probability": {
                "state_check_probability": self.state_check_probability,
                "update_check_probability": self.update_check_probability,
            }
        }

    @staticmethod
    def from_record(record: Mapping[str, Any]) -> SamplingPolicy | DebugCheckEvery:
        """Read the root record's ``sampling`` field back into a policy object."""
        record = _mapping("a sampling record", record)
        if len(record) != 1 or next(iter(record)) not in ("probability", "every"):
            raise ValueError(
                "a sampling record must be {'probability': {...}} or {'every': {...}}, "
                f"got {dict(record)!r}"
            )
        ((kind, body),) = record.items()
        body = _mapping(f"the {kind!r} sampling record", body)
        if kind == "every":
            _exact_keys("the 'every' sampling record", body, {"n"})
            return DebugCheckEvery(body["n"])
        keys = {"state_check_probability", "update_check_probability"}
        _exact_keys("the 'probability' sampling record", body, keys)
        return SamplingPolicy(body["state_check_probability"], body["update_check_probability"])


@dataclass(frozen=True, slots=True)
class DebugCheckEvery:
    """The deterministic debug policy made by :meth:`SamplingPolicy.DEBUGCheckEvery`.

    Both checks run at every step ``t`` with ``(t + 1) % n == 0``.

    Attributes:
        n: The period, an integer in ``[1, 2**64)``.
    """

    n: int

    def __post_init__(self) -> None:
        n = self.n
        if isinstance(n, bool) or not isinstance(n, numbers.Integral):
            raise TypeError(f"SamplingPolicy.DEBUGCheckEvery: n must be an integer, got {n!r}")
        if not 1 <= int(n) < _U64_LIMIT:
            raise ValueError(
                f"SamplingPolicy.DEBUGCheckEvery: n must be at least 1 (and below 2**64), got {n!r}"
            )
        object.__setattr__(self, "n", int(n))

    def __repr__(self) -> str:
        return f"SamplingPolicy.DEBUGCheckEvery(n={self.n})"

    def to_record(self) -> dict[str, dict[str, int]]:
        """The root record's ``sampling`` field: ``{"every": {"n": n}}``."""
        return {"every": {"n": self.n}}


@dataclass(frozen=True, slots=True)
class ZKDVConfig:
    """What a proof session records about itself in the transcript's root record.

    Pass it to a frontend's ``ZKDV(directory, config)``; a frontend given no configuration
    uses ``ZKDVConfig()``.

    Attributes:
        name: The configuration's name, recorded as the root's ``config_name``; a non-empty
            string (default ``"default"``).
        sampling_policy: How steps are sampled for checks: a :class:`SamplingPolicy` or
            :meth:`SamplingPolicy.DEBUGCheckEvery`. The default samples state and update checks
            independently with probability ``0.01`` each; choose probabilities suited to the
            run.
        tolerance: The float tolerance of every check, fixed for the session and recorded as
            such; ``None`` (default) gives each program :class:`Tolerance()` plus the
            perturbation ensemble (:meth:`Tolerance.for_program` with the policy
            ``"program"``), recorded with the program's precision.
    """

    name: str = "default"
    sampling_policy: SamplingPolicy | DebugCheckEvery = field(
        default=SamplingPolicy(state_check_probability=0.01, update_check_probability=0.01)
    )
    tolerance: Tolerance | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"ZKDVConfig: name must be a string, got {self.name!r}")
        if not self.name.strip():
            raise ValueError("ZKDVConfig: name must not be empty")
        if not isinstance(self.sampling_policy, SamplingPolicy | DebugCheckEvery):
            raise TypeError(
                "ZKDVConfig: sampling_policy must be a zkdv.SamplingPolicy(...) or "
                f"zkdv.SamplingPolicy.DEBUGCheckEvery(n), got {self.sampling_policy!r}"
            )
        if self.tolerance is not None and not isinstance(self.tolerance, Tolerance):
            raise TypeError(
                f"ZKDVConfig: tolerance must be a zkdv.Tolerance or None, got {self.tolerance!r}"
            )

    @property
    def tolerance_policy(self) -> str:
        """``"fixed"`` when a tolerance was given, else ``"program"`` (the root's field)."""
        return "program" if self.tolerance is None else "fixed"

    @property
    def base_tolerance(self) -> Tolerance:
        """The root record's tolerance: the one given, else :class:`Tolerance()`."""
        return Tolerance() if self.tolerance is None else self.tolerance

    def root_fields(self) -> dict[str, Any]:
        """The root record fields this configuration decides.

        ``{"config_name": ..., "sampling": ..., "tolerance": ..., "tolerance_policy": ...}``,
        in the protocol's representation, ready to be merged into the root body given to
        :class:`zkdv.transcript.TranscriptWriter`.
        """
        return {
            "config_name": self.name,
            "sampling": self.sampling_policy.to_record(),
            "tolerance": self.base_tolerance.to_record(),
            "tolerance_policy": self.tolerance_policy,
        }

    @classmethod
    def from_root(cls, root: Mapping[str, Any]) -> ZKDVConfig:
        """The configuration recorded in a root record body (other fields are ignored)."""
        root = _mapping("a root record", root)
        missing = sorted({"config_name", "sampling", "tolerance", "tolerance_policy"} - set(root))
        if missing:
            raise ValueError(f"a root record must have the fields {missing}")
        policy = root["tolerance_policy"]
        if policy not in ("fixed", "program"):
            raise ValueError(f"tolerance_policy must be 'fixed' or 'program', got {policy!r}")
        tolerance = Tolerance.from_record(root["tolerance"])
        if policy == "program" and tolerance != Tolerance():
            raise ValueError(
                "a root record with the 'program' tolerance policy has a base tolerance other "
                f"than the default: {tolerance!r}"
            )
        return cls(
            name=root["config_name"],
            sampling_policy=SamplingPolicy.from_record(root["sampling"]),
            tolerance=tolerance if policy == "fixed" else None,
        )

//! The table of op properties: what each op the project knows *is*, in one
//! place for the passes and the runtime.
//!
//! StableHLO ops are unregistered here (see the crate documentation), so
//! MLIR knows none of their traits; the passes and the runtime know them by
//! name from this table. Properties ([`Props`]):
//!
//! - [`Props::ELEMENTWISE`]: element `i` of the result depends only on
//!   element `i` of each operand (same shapes; `select` and `clamp` also
//!   accept rank-0 operands). The cost report counts one FLOP per result
//!   element; `--zkdv-push-select` evaluates them at one coordinate.
//! - [`Props::IMPURE`]: a `stablehlo.*` op with effects beyond its results,
//!   or one that must not be erased or merged (randomness, host and device
//!   communication, collectives, `optimization_barrier`, `composite`). Every
//!   other `stablehlo.*` and `chlo.*` op is pure (`custom_call` is decided by
//!   its target, which [`Props`] does not model).
//! - [`Props::TERMINATOR`]: ends a block.
//! - [`Props::FREE`]: computes no arithmetic (data movement, constants,
//!   structure); the cost report counts 0 FLOPs.
//! - [`Props::STRUCTURAL`]: runs regions or callees (calls, control flow,
//!   sharding annotations, `composite`); the runtime executes these itself
//!   rather than as a kernel.
//! - [`Props::NEW_FLOATS`]: computes new floating-point values, so a NaN
//!   result's bits are an accident of the machine (the runtime makes them
//!   canonical); data movement, sign operations, compare, select and convert
//!   only pass NaNs on.
//!
//! Invariant: [`OPS`] is sorted by name with no name twice (a unit test
//! checks it), so a lookup is a binary search. An op missing from the table
//! has no property.

/// A set of op properties.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Props(u8);

impl Props {
    /// No property.
    pub const NONE: Props = Props(0);
    /// See the module documentation.
    pub const ELEMENTWISE: Props = Props(1);
    /// See the module documentation.
    pub const IMPURE: Props = Props(1 << 1);
    /// See the module documentation.
    pub const TERMINATOR: Props = Props(1 << 2);
    /// See the module documentation.
    pub const FREE: Props = Props(1 << 3);
    /// See the module documentation.
    pub const STRUCTURAL: Props = Props(1 << 4);
    /// See the module documentation.
    pub const NEW_FLOATS: Props = Props(1 << 5);

    /// Whether every property of `other` is in `self`.
    pub const fn contains(self, other: Props) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets together.
    pub const fn union(self, other: Props) -> Props {
        Props(self.0 | other.0)
    }
}

impl std::ops::BitOr for Props {
    type Output = Props;

    fn bitor(self, other: Props) -> Props {
        self.union(other)
    }
}

/// One op of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// The full op name, `dialect.op`.
    pub name: &'static str,
    /// Its properties.
    pub props: Props,
}

const fn op(name: &'static str, props: Props) -> OpInfo {
    OpInfo { name, props }
}

const ELEMENTWISE: Props = Props::ELEMENTWISE;
const IMPURE: Props = Props::IMPURE;
const TERMINATOR: Props = Props::TERMINATOR;
const FREE: Props = Props::FREE;
const STRUCTURAL: Props = Props::STRUCTURAL;
const NEW_FLOATS: Props = Props::NEW_FLOATS;

/// Every op with a property, sorted by name.
pub static OPS: &[OpInfo] = &[
    op("chlo.acos", ELEMENTWISE),
    op("chlo.acosh", ELEMENTWISE),
    op("chlo.asin", ELEMENTWISE),
    op("chlo.asinh", ELEMENTWISE),
    op("chlo.atan", ELEMENTWISE),
    op("chlo.atanh", ELEMENTWISE),
    op("chlo.cosh", ELEMENTWISE),
    op("chlo.digamma", ELEMENTWISE),
    op("chlo.erf", ELEMENTWISE),
    op("chlo.erf_inv", ELEMENTWISE),
    op("chlo.erfc", ELEMENTWISE),
    op("chlo.lgamma", ELEMENTWISE),
    op("chlo.sinh", ELEMENTWISE),
    op("chlo.square", ELEMENTWISE),
    op("chlo.tan", ELEMENTWISE),
    op("func.call", STRUCTURAL),
    op("func.return", TERMINATOR.union(FREE)),
    op("interpreter.run_parallel", STRUCTURAL),
    op("sdy.manual_computation", STRUCTURAL),
    op("sdy.reshard", STRUCTURAL),
    op("sdy.return", TERMINATOR.union(FREE)),
    op("sdy.sharding_constraint", STRUCTURAL),
    op("stablehlo.abs", ELEMENTWISE),
    op("stablehlo.add", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.after_all", FREE),
    op("stablehlo.all_gather", IMPURE),
    op("stablehlo.all_reduce", IMPURE.union(NEW_FLOATS)),
    op("stablehlo.all_to_all", IMPURE),
    op("stablehlo.and", ELEMENTWISE),
    op("stablehlo.atan2", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.bitcast_convert", FREE),
    op("stablehlo.broadcast", FREE),
    op("stablehlo.broadcast_in_dim", FREE),
    op("stablehlo.case", STRUCTURAL),
    op("stablehlo.cbrt", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.ceil", ELEMENTWISE),
    op("stablehlo.clamp", ELEMENTWISE),
    op("stablehlo.collective_broadcast", IMPURE),
    op("stablehlo.collective_permute", IMPURE),
    op("stablehlo.compare", ELEMENTWISE),
    op("stablehlo.complex", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.composite", IMPURE.union(STRUCTURAL)),
    op("stablehlo.concatenate", FREE),
    op("stablehlo.constant", FREE),
    op("stablehlo.convert", ELEMENTWISE),
    op("stablehlo.convolution", NEW_FLOATS),
    op("stablehlo.cosine", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.count_leading_zeros", ELEMENTWISE),
    op("stablehlo.create_token", FREE),
    op("stablehlo.custom_call", FREE),
    op("stablehlo.divide", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.dot", NEW_FLOATS),
    op("stablehlo.dot_general", NEW_FLOATS),
    op("stablehlo.dynamic_slice", FREE),
    op("stablehlo.dynamic_update_slice", FREE),
    op("stablehlo.exponential", ELEMENTWISE.union(NEW_FLOATS)),
    op(
        "stablehlo.exponential_minus_one",
        ELEMENTWISE.union(NEW_FLOATS),
    ),
    op("stablehlo.fft", NEW_FLOATS),
    op("stablehlo.floor", ELEMENTWISE),
    op("stablehlo.gather", FREE),
    op("stablehlo.get_dimension_size", FREE),
    op("stablehlo.get_tuple_element", FREE),
    op("stablehlo.if", STRUCTURAL),
    op("stablehlo.imag", ELEMENTWISE),
    op("stablehlo.infeed", IMPURE),
    op("stablehlo.iota", FREE),
    op("stablehlo.is_finite", ELEMENTWISE),
    op("stablehlo.log", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.log_plus_one", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.logistic", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.maximum", ELEMENTWISE),
    op("stablehlo.minimum", ELEMENTWISE),
    op("stablehlo.multiply", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.negate", ELEMENTWISE),
    op("stablehlo.not", ELEMENTWISE),
    op(
        "stablehlo.optimization_barrier",
        IMPURE.union(FREE).union(STRUCTURAL),
    ),
    op("stablehlo.or", ELEMENTWISE),
    op("stablehlo.outfeed", IMPURE),
    op("stablehlo.pad", FREE),
    op("stablehlo.partition_id", FREE),
    op("stablehlo.popcnt", ELEMENTWISE),
    op("stablehlo.power", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.real", ELEMENTWISE),
    op("stablehlo.recv", IMPURE),
    op("stablehlo.reduce", NEW_FLOATS),
    op("stablehlo.reduce_precision", ELEMENTWISE),
    op("stablehlo.reduce_scatter", IMPURE.union(NEW_FLOATS)),
    op("stablehlo.reduce_window", NEW_FLOATS),
    op("stablehlo.remainder", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.replica_id", FREE),
    op("stablehlo.reshape", FREE),
    op("stablehlo.return", TERMINATOR.union(FREE)),
    op("stablehlo.reverse", FREE),
    op("stablehlo.rng", IMPURE),
    op("stablehlo.round_nearest_afz", ELEMENTWISE),
    op("stablehlo.round_nearest_even", ELEMENTWISE),
    op("stablehlo.rsqrt", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.scatter", NEW_FLOATS),
    op("stablehlo.select", ELEMENTWISE),
    op("stablehlo.select_and_scatter", NEW_FLOATS),
    op("stablehlo.send", IMPURE),
    op("stablehlo.shift_left", ELEMENTWISE),
    op("stablehlo.shift_right_arithmetic", ELEMENTWISE),
    op("stablehlo.shift_right_logical", ELEMENTWISE),
    op("stablehlo.sign", ELEMENTWISE),
    op("stablehlo.sine", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.slice", FREE),
    op("stablehlo.sqrt", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.subtract", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.tan", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.tanh", ELEMENTWISE.union(NEW_FLOATS)),
    op("stablehlo.transpose", FREE),
    op("stablehlo.triangular_solve", NEW_FLOATS),
    op("stablehlo.tuple", FREE),
    op("stablehlo.while", STRUCTURAL),
    op("stablehlo.xor", ELEMENTWISE),
];

/// The properties of the op named `name` (none if it is not in [`OPS`]).
pub fn props(name: &str) -> Props {
    OPS.binary_search_by(|info| info.name.cmp(name))
        .map_or(Props::NONE, |at| OPS[at].props)
}

/// Whether the op named `name` has every property of `wanted`.
pub fn has(name: &str, wanted: Props) -> bool {
    props(name).contains(wanted)
}

/// The names of the ops with every property of `wanted`, in name order.
pub fn with(wanted: Props) -> impl Iterator<Item = &'static str> {
    OPS.iter()
        .filter(move |info| info.props.contains(wanted))
        .map(|info| info.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_and_unique() {
        for pair in OPS.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} / {}",
                pair[0].name,
                pair[1].name
            );
        }
        assert!(OPS.iter().all(|info| info.props != Props::NONE));
    }

    #[test]
    fn lookups() {
        assert!(has("stablehlo.add", Props::ELEMENTWISE | Props::NEW_FLOATS));
        assert!(!has("stablehlo.select", Props::NEW_FLOATS));
        assert!(has("stablehlo.rng", Props::IMPURE));
        assert!(has("func.return", Props::TERMINATOR));
        assert_eq!(props("stablehlo.nope"), Props::NONE);
        assert!(with(Props::STRUCTURAL).any(|name| name == "stablehlo.while"));
    }
}

//! The precision of a module: the narrowest float type it computes in, and
//! how many op results have a float type narrower than `f32`.
//!
//! Shared by the `--zkdv-precision-report` pass (what a program record
//! states) and the runtime (what an auditor derives from the artifact it
//! runs, rather than trusting the record): one analysis, so the two cannot
//! disagree on how it is counted.
//!
//! - `narrowest` is the float element type with the fewest significand bits
//!   (bf16 8, f16 11, f32 24, f64 53; complex types count as their parts;
//!   8-bit floats and tf32 are ordered by their significands too) among the
//!   results and block arguments of every op in the module, nested regions
//!   and every function included; `None` when the module has no float value.
//! - `narrow_results` counts op results whose float type has fewer
//!   significand bits than `f32`.
//!
//! The analysis depends only on the types in the module, not on op order or
//! names.

use melior::ir::{
    block::BlockLike, operation::OperationLike, BlockRef, Module, OperationRef, RegionLike, Type,
    ValueLike,
};

use crate::collect_nested_ops;

/// The significand bits (implicit bit included) of a float element type
/// written as MLIR prints it, or `None` for a non-float type.
pub fn significand_bits(element: &str) -> Option<u32> {
    let element = element
        .strip_prefix("complex<")
        .and_then(|e| e.strip_suffix('>'))
        .unwrap_or(element);
    Some(match element {
        "f64" => 53,
        "f32" => 24,
        "tf32" | "f16" => 11,
        "bf16" => 8,
        e if e.starts_with("f8E4M3") => 4,
        e if e.starts_with("f8E5M2") => 3,
        e if e.starts_with("f8E3M4") => 5,
        e if e.starts_with("f8E8M0") => 1,
        e if e.starts_with("f6E2M3") => 4,
        e if e.starts_with("f6E3M2") => 3,
        e if e.starts_with("f4E2M1") => 2,
        _ => return None,
    })
}

/// The element type of a tensor type's text (`tensor<2x3xbf16>` gives
/// `bf16`), or the text itself for a scalar type.
pub fn element_of(ty: &str) -> &str {
    let Some(inner) = ty.strip_prefix("tensor<").and_then(|t| t.strip_suffix('>')) else {
        return ty;
    };
    // Dimensions are `NxMx...x`; the element type may itself hold `x`
    // (`complex<f32>` does not, but `f8E4M3FNUZ` could), so skip leading
    // `digit-or-?` groups followed by `x`.
    let mut rest = inner;
    while let Some((dim, tail)) = rest.split_once('x') {
        if !dim.is_empty() && dim.chars().all(|c| c.is_ascii_digit() || c == '?') {
            rest = tail;
        } else {
            break;
        }
    }
    rest
}

/// What [`analyse`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Precision {
    /// The narrowest float element type, `None` without floats.
    pub narrowest: Option<String>,
    /// Op results of a float type narrower than `f32`.
    pub narrow_results: u64,
}

/// The precision summary of every op of `module`.
pub fn analyse(module: &Module<'_>) -> Precision {
    let mut narrowest: Option<(u32, String)> = None;
    let mut narrow_results = 0u64;
    let mut see = |ty: Type<'_>, is_result: bool| {
        let text = ty.to_string();
        let element = element_of(&text);
        let Some(bits) = significand_bits(element) else {
            return;
        };
        if is_result && bits < 24 {
            narrow_results += 1;
        }
        if narrowest.as_ref().is_none_or(|(b, _)| bits < *b) {
            narrowest = Some((bits, element.to_owned()));
        }
    };
    let ops: Vec<OperationRef<'_, '_>> = collect_nested_ops(module.as_operation());
    for op in &ops {
        for index in 0..op.result_count() {
            if let Ok(result) = op.result(index) {
                see(result.r#type(), true);
            }
        }
        for r in 0..op.region_count() {
            let Ok(region) = op.region(r) else { continue };
            let mut block: Option<BlockRef<'_, '_>> = region.first_block();
            while let Some(b) = block {
                for a in 0..b.argument_count() {
                    if let Ok(argument) = b.argument(a) {
                        see(argument.r#type(), false);
                    }
                }
                block = b.next_in_region();
            }
        }
    }
    Precision {
        narrowest: narrowest.map(|(_, name)| name),
        narrow_results,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_types_are_read_from_tensor_types() {
        assert_eq!(element_of("tensor<2x3xbf16>"), "bf16");
        assert_eq!(element_of("tensor<f32>"), "f32");
        assert_eq!(element_of("tensor<?x4xcomplex<f32>>"), "complex<f32>");
        assert_eq!(element_of("tensor<8xf8E4M3FN>"), "f8E4M3FN");
        assert_eq!(element_of("f16"), "f16");
        assert_eq!(significand_bits("complex<f64>"), Some(53));
        assert_eq!(significand_bits("i32"), None);
    }
}

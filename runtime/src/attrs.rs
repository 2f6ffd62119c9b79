//! Reading op attributes and result types from their printed MLIR form.
//!
//! StableHLO attributes are opaque to libMLIR here (unregistered dialect), so
//! the runtime reads what it needs from their printed text: dense arrays
//! (`array<i64: 1, 2>`), integers (`1 : i64`), enum keywords
//! (`#stablehlo<comparison_direction GT>`), `dense<...>` elements and the
//! fields of structured attributes (`#stablehlo.dot<...>`). Every reader
//! fails with a [`ValueError`] naming the attribute, never panics.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, ValueLike};

use crate::value::{Tensor, TensorType, ValueError};

/// A hasher for keys that are addresses (or pairs of them): one multiply,
/// instead of SipHash, on the interpreter's per-op lookups. Not for keys an
/// adversary chooses.
#[derive(Default, Clone, Copy)]
pub(crate) struct AddressHasher(u64);

impl std::hash::Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, value: usize) {
        self.0 = (self.0.rotate_left(29) ^ value as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A `HashMap` keyed by addresses.
pub(crate) type AddressMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<AddressHasher>>;

/// Printed attribute texts by op (raw pointer) and attribute name; `None`
/// for an attribute the op lacks. Printing an attribute goes through MLIR's
/// printer, which dominates the cost of small ops, so the interpreter keeps
/// one of these per module (in its plan cache) and installs it for a run.
/// The attributes read from one op: `(name, printed text or None)`.
type OpTexts = Vec<(String, Option<String>)>;

#[derive(Default)]
pub(crate) struct AttrTexts {
    texts: RefCell<AddressMap<usize, OpTexts>>,
    /// Parsed result types by (op, result index).
    types: RefCell<AddressMap<(usize, usize), TensorType>>,
}

thread_local! {
    /// The texts of the module the current thread is running, if any.
    static CURRENT: RefCell<Option<Rc<AttrTexts>>> = const { RefCell::new(None) };
}

/// Installs `texts` as this thread's attribute cache until the guard drops
/// (the previous one is restored then, so nested runs are fine).
pub(crate) fn install(texts: Rc<AttrTexts>) -> Installed {
    let previous = CURRENT.with(|current| current.replace(Some(texts)));
    Installed { previous }
}

/// Restores the previous attribute cache when dropped.
pub(crate) struct Installed {
    previous: Option<Rc<AttrTexts>>,
}

impl Drop for Installed {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
    }
}

/// The printed text of attribute `name` of `op`, or `None`, through the
/// installed cache when there is one.
fn lookup(op: &OperationRef<'_, '_>, name: &str) -> Option<String> {
    let print = || {
        op.attribute(name)
            .ok()
            .map(|attribute| attribute.to_string())
    };
    CURRENT.with(|current| {
        let current = current.borrow();
        let Some(texts) = current.as_ref() else {
            return print();
        };
        let key = op.to_raw().ptr as usize;
        if let Some(found) = texts
            .texts
            .borrow()
            .get(&key)
            .and_then(|entries| entries.iter().find(|(n, _)| n == name))
        {
            return found.1.clone();
        }
        let text = print();
        texts
            .texts
            .borrow_mut()
            .entry(key)
            .or_default()
            .push((name.to_owned(), text.clone()));
        text
    })
}

/// The printed text of attribute `name`.
pub fn text(op: &OperationRef<'_, '_>, name: &str) -> Result<String, ValueError> {
    lookup(op, name).ok_or_else(|| ValueError::Malformed {
        what: "op: missing attribute",
        text: name.to_owned(),
    })
}

/// Whether the op has attribute `name`.
pub fn has(op: &OperationRef<'_, '_>, name: &str) -> bool {
    lookup(op, name).is_some()
}

/// Reads `array<i64: 0, -2>` (or `array<i64>`) as signed integers.
pub fn i64_array(op: &OperationRef<'_, '_>, name: &str) -> Result<Vec<i64>, ValueError> {
    parse_i64_array(&text(op, name)?)
}

/// [`i64_array`], or `default` when the attribute is absent.
pub fn i64_array_or(
    op: &OperationRef<'_, '_>,
    name: &str,
    default: Vec<i64>,
) -> Result<Vec<i64>, ValueError> {
    if has(op, name) {
        i64_array(op, name)
    } else {
        Ok(default)
    }
}

/// Reads `array<i64: 0, 2>` as non-negative dimension numbers.
pub fn dimensions(op: &OperationRef<'_, '_>, name: &str) -> Result<Vec<usize>, ValueError> {
    let text = text(op, name)?;
    parse_i64_array(&text)?
        .into_iter()
        .map(|v| {
            usize::try_from(v).map_err(|_| ValueError::Malformed {
                what: "dimension array",
                text: text.clone(),
            })
        })
        .collect()
}

/// Reads `array<i1: true, false>` (absent: `None`).
pub fn bool_array(op: &OperationRef<'_, '_>, name: &str) -> Result<Option<Vec<bool>>, ValueError> {
    if !has(op, name) {
        return Ok(None);
    }
    let text = text(op, name)?;
    let malformed = || ValueError::Malformed {
        what: "boolean array",
        text: text.clone(),
    };
    let body = text
        .strip_prefix("array<i1")
        .and_then(|rest| rest.strip_suffix('>'))
        .ok_or_else(malformed)?;
    let Some(list) = body.strip_prefix(':') else {
        return if body.is_empty() {
            Ok(Some(Vec::new()))
        } else {
            Err(malformed())
        };
    };
    list.split(',')
        .map(|item| match item.trim() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(malformed()),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Parses the text of a dense i64 array attribute.
pub fn parse_i64_array(text: &str) -> Result<Vec<i64>, ValueError> {
    let malformed = || ValueError::Malformed {
        what: "i64 array",
        text: text.to_owned(),
    };
    let body = text
        .strip_prefix("array<i64")
        .and_then(|rest| rest.strip_suffix('>'))
        .ok_or_else(malformed)?;
    let Some(list) = body.strip_prefix(':') else {
        return if body.trim().is_empty() {
            Ok(Vec::new())
        } else {
            Err(malformed())
        };
    };
    list.split(',')
        .map(|item| item.trim().parse::<i64>().map_err(|_| malformed()))
        .collect()
}

/// Reads an integer attribute printed as `1 : i64` (or a bare integer).
pub fn integer(op: &OperationRef<'_, '_>, name: &str) -> Result<i64, ValueError> {
    let text = text(op, name)?;
    text.split(" : ")
        .next()
        .and_then(|value| value.trim().parse().ok())
        .ok_or(ValueError::Malformed {
            what: "integer attribute",
            text,
        })
}

/// [`integer`], or `default` when absent.
pub fn integer_or(op: &OperationRef<'_, '_>, name: &str, default: i64) -> Result<i64, ValueError> {
    if has(op, name) {
        integer(op, name)
    } else {
        Ok(default)
    }
}

/// A non-negative integer attribute as `usize`.
pub fn index(op: &OperationRef<'_, '_>, name: &str) -> Result<usize, ValueError> {
    let value = integer(op, name)?;
    usize::try_from(value).map_err(|_| ValueError::Malformed {
        what: "non-negative integer attribute",
        text: format!("{name} = {value}"),
    })
}

/// A boolean attribute printed as `true`/`false` (absent: `default`).
pub fn boolean_or(
    op: &OperationRef<'_, '_>,
    name: &str,
    default: bool,
) -> Result<bool, ValueError> {
    if !has(op, name) {
        return Ok(default);
    }
    let text = text(op, name)?;
    match text.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ValueError::Malformed {
            what: "boolean attribute",
            text,
        }),
    }
}

/// Reads the keyword of `#stablehlo<comparison_direction GT>` (absent:
/// `None`).
pub fn enum_keyword(op: &OperationRef<'_, '_>, name: &str) -> Result<Option<String>, ValueError> {
    if !has(op, name) {
        return Ok(None);
    }
    let text = text(op, name)?;
    text.strip_suffix('>')
        .and_then(|body| body.rsplit(' ').next())
        .map(|keyword| Some(keyword.to_owned()))
        .ok_or(ValueError::Malformed {
            what: "enum attribute",
            text,
        })
}

/// A `dense<...> : tensor<...>` attribute as a tensor (absent: `None`).
pub fn dense(op: &OperationRef<'_, '_>, name: &str) -> Result<Option<Tensor>, ValueError> {
    if !has(op, name) {
        return Ok(None);
    }
    Tensor::from_dense_text(&text(op, name)?).map(Some)
}

pub use zkdv_ir::attrs::{int_field, list_field};

/// The type of result `index` (through the installed cache when there is
/// one).
pub fn result_type(op: &OperationRef<'_, '_>, index: usize) -> Result<TensorType, ValueError> {
    let parse = || {
        let result = op
            .result(index)
            .map_err(|_| ValueError::Mismatch(format!("the op has no result {index}")))?;
        TensorType::parse(&result.r#type().to_string())
    };
    CURRENT.with(|current| {
        let current = current.borrow();
        let Some(caches) = current.as_ref() else {
            return parse();
        };
        let key = (op.to_raw().ptr as usize, index);
        if let Some(found) = caches.types.borrow().get(&key) {
            return Ok(found.clone());
        }
        let parsed = parse()?;
        caches.types.borrow_mut().insert(key, parsed.clone());
        Ok(parsed)
    })
}

/// The types of every result.
pub fn result_types(op: &OperationRef<'_, '_>) -> Result<Vec<TensorType>, ValueError> {
    (0..op.result_count()).map(|i| result_type(op, i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_and_fields() {
        assert_eq!(parse_i64_array("array<i64: 1, -2>").unwrap(), vec![1, -2]);
        assert_eq!(parse_i64_array("array<i64>").unwrap(), Vec::<i64>::new());
        assert!(parse_i64_array("array<i32: 1>").is_err());
        let dot = "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], \
                   lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>";
        assert_eq!(list_field(dot, "lhs_batching_dimensions").unwrap(), vec![0]);
        assert_eq!(
            list_field(dot, "batching_dimensions").unwrap(),
            Vec::<i64>::new()
        );
        assert_eq!(
            list_field(dot, "rhs_contracting_dimensions").unwrap(),
            vec![1]
        );
        let gather = "#stablehlo.gather<offset_dims = [1], index_vector_dim = 1>";
        assert_eq!(int_field(gather, "index_vector_dim").unwrap(), Some(1));
        assert_eq!(int_field(gather, "vector_dim").unwrap(), None);
    }
}

//! The safetensors format, for states a user keeps as its own checkpoints.
//!
//! A checkpoint that an audit may start a segment from (`zkdv audit
//! --checkpoint FILE`) holds the whole state: one tensor per leaf of the
//! root's layout, named `params/<path>` and `opt_state/<path>` as in a
//! snapshot's commitment. It is bound by that commitment, not by a record
//! naming its file: whatever wrote it, its tensors must re-hash to a snapshot
//! record's `state`.
//!
//! The format (<https://github.com/huggingface/safetensors>): a little-endian
//! `u64` header length, a JSON header mapping each tensor's name to its
//! `dtype` (`F32`, `BF16`, ...), `shape` and `data_offsets` (begin and end
//! in the data section), optionally `__metadata__`, then the data section
//! (row-major, little-endian). [`write()`] pads the header with spaces to a
//! multiple of 8 bytes and lays the tensors out in the given order.

use std::collections::BTreeMap;

use serde::Deserialize;
use zkdv_hashing::DType;

use crate::error::Problem;
use crate::evidence::{Bundle, EvidenceLeaf};

/// The safetensors name of a dtype, where the format has one.
fn name_of(dtype: DType) -> Option<&'static str> {
    Some(match dtype {
        DType::F64 => "F64",
        DType::F32 => "F32",
        DType::F16 => "F16",
        DType::BF16 => "BF16",
        DType::I1 => "BOOL",
        DType::I8 => "I8",
        DType::I16 => "I16",
        DType::I32 => "I32",
        DType::I64 => "I64",
        DType::U8 => "U8",
        DType::U16 => "U16",
        DType::U32 => "U32",
        DType::U64 => "U64",
    })
}

#[derive(Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<u64>,
    data_offsets: [u64; 2],
}

/// The bytes of a safetensors file holding `bundle`'s tensors, in order.
///
/// # Errors
///
/// [`Problem::Usage`] for two tensors of one name.
pub fn write(bundle: &Bundle) -> Result<Vec<u8>, Problem> {
    let mut header = serde_json::Map::new();
    let mut offset = 0u64;
    for leaf in &bundle.leaves {
        let end = offset + leaf.data.len() as u64;
        let dtype = name_of(leaf.dtype).unwrap_or("U8");
        let entry =
            serde_json::json!({"dtype": dtype, "shape": leaf.shape, "data_offsets": [offset, end]});
        if header.insert(leaf.path.clone(), entry).is_some() {
            return Err(Problem::Usage(format!(
                "two tensors are named {:?}",
                leaf.path
            )));
        }
        offset = end;
    }
    let mut text = serde_json::Value::Object(header).to_string().into_bytes();
    while (text.len() + 8) % 8 != 0 {
        text.push(b' ');
    }
    let mut out = Vec::with_capacity(8 + text.len() + offset as usize);
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(&text);
    for leaf in &bundle.leaves {
        out.extend_from_slice(&leaf.data);
    }
    Ok(out)
}

/// The tensors `names` of the safetensors file `bytes`, in that order, each
/// with its dtype (by tag) and shape as `expected` gives them; tensors of
/// other names are ignored.
///
/// # Errors
///
/// [`Problem::Invalid`] naming what is wrong: not safetensors, a tensor
/// missing, of another dtype or shape, or whose data lie outside the file.
pub fn read(bytes: &[u8], expected: &[(String, DType, Vec<u64>)]) -> Result<Bundle, Problem> {
    let invalid = |why: String| Problem::Invalid(why);
    let n = bytes
        .get(..8)
        .map(|b| {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            u64::from_le_bytes(a)
        })
        .ok_or_else(|| invalid("not a safetensors file (shorter than its header length)".into()))?;
    let end = usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_add(8))
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| {
            invalid("not a safetensors file (its header length exceeds the file)".into())
        })?;
    let header: BTreeMap<String, serde_json::Value> = serde_json::from_slice(&bytes[8..end])
        .map_err(|e| invalid(format!("not a safetensors file (header: {e})")))?;
    let data = &bytes[end..];
    let mut leaves = Vec::with_capacity(expected.len());
    for (name, dtype, shape) in expected {
        let entry = header
            .get(name)
            .ok_or_else(|| invalid(format!("holds no tensor {name:?}")))?;
        let entry: Entry = serde_json::from_value(entry.clone())
            .map_err(|e| invalid(format!("tensor {name:?}: {e}")))?;
        let want = name_of(*dtype).unwrap_or("U8");
        if entry.dtype != want || &entry.shape != shape {
            return Err(invalid(format!(
                "tensor {name:?} is {} {:?}, the transcript's {want} {shape:?}",
                entry.dtype, entry.shape
            )));
        }
        let [begin, stop] = entry.data_offsets;
        let slice = usize::try_from(begin)
            .ok()
            .zip(usize::try_from(stop).ok())
            .and_then(|(b, s)| data.get(b..s))
            .ok_or_else(|| invalid(format!("tensor {name:?}: its data lie outside the file")))?;
        let size = shape
            .iter()
            .try_fold(dtype.size_bytes() as u64, |acc, &d| acc.checked_mul(d));
        if size != Some(slice.len() as u64) {
            return Err(invalid(format!(
                "tensor {name:?}: {} bytes for {want} {shape:?}",
                slice.len()
            )));
        }
        leaves.push(EvidenceLeaf {
            path: name.clone(),
            dtype: *dtype,
            shape: shape.clone(),
            data: slice.to_vec(),
        });
    }
    Ok(Bundle { leaves })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(path: &str, dtype: DType, shape: Vec<u64>, data: Vec<u8>) -> EvidenceLeaf {
        EvidenceLeaf {
            path: path.into(),
            dtype,
            shape,
            data,
        }
    }

    #[test]
    fn a_written_file_reads_back_in_the_order_asked_and_its_header_is_aligned() {
        let bundle = Bundle {
            leaves: vec![
                leaf(
                    "params/w",
                    DType::F32,
                    vec![2],
                    vec![0, 0, 128, 63, 0, 0, 0, 64],
                ),
                leaf("opt_state/step", DType::BF16, vec![], vec![128, 63]),
            ],
        };
        let bytes = write(&bundle).expect("writes");
        let header = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
        assert_eq!((header + 8) % 8, 0);
        let expected: Vec<_> = bundle
            .leaves
            .iter()
            .rev()
            .map(|l| (l.path.clone(), l.dtype, l.shape.clone()))
            .collect();
        let back = read(&bytes, &expected).expect("reads");
        assert_eq!(back.leaves[0], bundle.leaves[1]);
        assert_eq!(back.leaves[1], bundle.leaves[0]);
    }

    #[test]
    fn bad_files_are_refused_naming_the_tensor() {
        let bundle = Bundle {
            leaves: vec![leaf("params/w", DType::F32, vec![1], vec![0; 4])],
        };
        let bytes = write(&bundle).expect("writes");
        let other = read(&bytes, &[("params/w".into(), DType::F32, vec![2])]).unwrap_err();
        assert!(
            other
                .to_string()
                .contains("is F32 [1], the transcript's F32 [2]"),
            "{other}"
        );
        let missing = read(&bytes, &[("params/v".into(), DType::F32, vec![1])]).unwrap_err();
        assert!(
            missing.to_string().contains("holds no tensor \"params/v\""),
            "{missing}"
        );
        let short = read(b"abc", &[]).unwrap_err();
        assert!(
            short.to_string().contains("not a safetensors file"),
            "{short}"
        );
        let cut = read(
            &bytes[..bytes.len() - 1],
            &[("params/w".into(), DType::F32, vec![1])],
        )
        .unwrap_err();
        assert!(cut.to_string().contains("outside the file"), "{cut}");
        let mut twice = bundle.clone();
        twice.leaves.push(twice.leaves[0].clone());
        assert!(write(&twice).is_err());
    }
}

//! The safetensors format, for states a user keeps as its own checkpoints.
//!
//! A checkpoint that an audit may start a segment from (`zkdv audit
//! --checkpoint FILE`) holds the whole state: one tensor per leaf of the
//! root's layout, named `params/<path>` and `opt_state/<path>` as in a
//! snapshot's commitment. It is bound by that commitment, not by a record
//! naming its file: whatever wrote it, its tensors must re-hash to a snapshot
//! record's `state`.
//!
//! The format is Hugging Face's (<https://github.com/huggingface/safetensors>),
//! read and written by its `safetensors` crate, which validates a file's
//! header, offsets and sizes before any tensor is read.

use safetensors::tensor::{Dtype, TensorView};
use safetensors::SafeTensors;
use zkdv_hashing::DType;

use crate::error::Problem;
use crate::evidence::{Bundle, EvidenceLeaf};

/// The safetensors dtype of a dtype.
fn dtype_of(dtype: DType) -> Dtype {
    match dtype {
        DType::F64 => Dtype::F64,
        DType::F32 => Dtype::F32,
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
        DType::I1 => Dtype::BOOL,
        DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::U8 => Dtype::U8,
        DType::U16 => Dtype::U16,
        DType::U32 => Dtype::U32,
        DType::U64 => Dtype::U64,
    }
}

fn usize_shape(shape: &[u64]) -> Result<Vec<usize>, Problem> {
    shape
        .iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| Problem::Usage(format!("dimension {d} too large")))
        })
        .collect()
}

/// The bytes of a safetensors file holding `bundle`'s tensors (the
/// `safetensors` crate's layout: by dtype alignment, then name).
///
/// # Errors
///
/// [`Problem::Usage`] for two tensors of one name, or a tensor whose data
/// do not match its shape.
pub fn write(bundle: &Bundle) -> Result<Vec<u8>, Problem> {
    let mut views = Vec::with_capacity(bundle.leaves.len());
    let mut names = std::collections::BTreeSet::new();
    for leaf in &bundle.leaves {
        if !names.insert(leaf.path.as_str()) {
            return Err(Problem::Usage(format!(
                "two tensors are named {:?}",
                leaf.path
            )));
        }
        let view = TensorView::new(dtype_of(leaf.dtype), usize_shape(&leaf.shape)?, &leaf.data)
            .map_err(|e| Problem::Usage(format!("tensor {:?}: {e}", leaf.path)))?;
        views.push((leaf.path.as_str(), view));
    }
    safetensors::serialize(views, None).map_err(|e| Problem::Usage(e.to_string()))
}

/// The tensors `expected` names of the safetensors file `bytes` (validated
/// by the `safetensors` crate: header, offsets, sizes), in that order, each
/// with the dtype and shape given; tensors of other names are ignored.
///
/// # Errors
///
/// [`Problem::Invalid`] naming what is wrong: not safetensors, a tensor
/// missing, or of another dtype or shape.
pub fn read(bytes: &[u8], expected: &[(String, DType, Vec<u64>)]) -> Result<Bundle, Problem> {
    let file = SafeTensors::deserialize(bytes)
        .map_err(|e| Problem::Invalid(format!("not a safetensors file ({e})")))?;
    let mut leaves = Vec::with_capacity(expected.len());
    for (name, dtype, shape) in expected {
        let view = file
            .tensor(name)
            .map_err(|_| Problem::Invalid(format!("holds no tensor {name:?}")))?;
        let want = dtype_of(*dtype);
        let found: Vec<u64> = view.shape().iter().map(|&d| d as u64).collect();
        if view.dtype() != want || &found != shape {
            return Err(Problem::Invalid(format!(
                "tensor {name:?} is {:?} {found:?}, the transcript's {want:?} {shape:?}",
                view.dtype()
            )));
        }
        leaves.push(EvidenceLeaf {
            path: name.clone(),
            dtype: *dtype,
            shape: shape.clone(),
            data: view.data().to_vec(),
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
        assert!(cut.to_string().contains("not a safetensors file"), "{cut}");
        let mut twice = bundle.clone();
        twice.leaves.push(twice.leaves[0].clone());
        assert!(write(&twice).is_err());
    }
}

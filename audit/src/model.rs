//! The client's model as it holds it: a model commitment, or a safetensors
//! file whose tensors are hashed into one.
//!
//! A model commitment is `commit_tree` over `("params/<path>",
//! commit_tensor(leaf))` in the order of the root's parameter layout (the
//! order a session commits them in). A safetensors file (what
//! `safetensors.torch.save_file(model.state_dict())` or Hugging Face's
//! `save_pretrained` writes) holds tensors by name; each parameter leaf of
//! the root is looked up by its path, must have the root's dtype and shape,
//! and the others (buffers such as BatchNorm statistics) are ignored.

use std::path::{Path, PathBuf};

use zkdv_hashing::{commit_tensor, commit_tree, DType};
use zkdv_protocol::{Hash32, Leaf};

/// How the client gives a model.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelExpectation {
    /// Its model commitment.
    Hash(Hash32),
    /// A safetensors file of its parameters.
    SafeTensors(PathBuf),
}

impl ModelExpectation {
    /// The model commitment, for a model whose parameters are laid out as
    /// `params` (the root's).
    ///
    /// # Errors
    ///
    /// A file that cannot be read, is not safetensors, or lacks a parameter
    /// or holds it with another dtype or shape (the message names the file
    /// and the parameter).
    pub fn commitment(&self, params: &[Leaf]) -> Result<Hash32, String> {
        match self {
            ModelExpectation::Hash(h) => Ok(*h),
            ModelExpectation::SafeTensors(path) => safetensors_commitment(path, params)
                .map_err(|why| format!("{}: {why}", path.display())),
        }
    }
}

fn safetensors_commitment(path: &Path, params: &[Leaf]) -> Result<Hash32, String> {
    let bytes = crate::transcript::map_file(path).map_err(|e| e.to_string())?;
    let expected = params
        .iter()
        .map(|leaf| {
            let dtype = DType::from_tag(&leaf.dtype).map_err(|e| e.to_string())?;
            Ok((leaf.path.clone(), dtype, leaf.shape.clone()))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let bundle = zkdv_protocol::safetensors::read(&bytes, &expected).map_err(|e| e.to_string())?;
    let mut digests = Vec::with_capacity(params.len());
    for leaf in &bundle.leaves {
        let c = commit_tensor(leaf.dtype, &leaf.shape, &leaf.data)
            .map_err(|e| format!("tensor {:?}: {e}", leaf.path))?;
        digests.push((format!("params/{}", leaf.path), c.digest()));
    }
    let root = commit_tree(&digests).map_err(|e| e.to_string())?;
    Ok(Hash32(*root.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(path: &str) -> Leaf {
        Leaf {
            path: path.into(),
            dtype: "f32".into(),
            shape: vec![2],
        }
    }

    fn file(bytes: &[u8]) -> (tempfile::TempDir, ModelExpectation) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("m.safetensors");
        std::fs::write(&path, bytes).expect("write");
        (dir, ModelExpectation::SafeTensors(path))
    }

    fn safetensors(header: &str, data: &[u8]) -> Vec<u8> {
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn a_safetensors_file_hashes_like_the_session_and_bad_files_are_named() {
        let data: Vec<u8> = [1.0f32, -2.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let header = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"__metadata__":{}}"#;
        let (_d, model) = file(&safetensors(header, &data));
        let expected = {
            let c = commit_tensor(DType::F32, &[2], &data).expect("commits");
            let root = commit_tree(&[("params/w".to_string(), c.digest())]).expect("tree");
            Hash32(*root.as_bytes())
        };
        assert_eq!(model.commitment(&[leaf("w")]), Ok(expected));
        let missing = model.commitment(&[leaf("v")]).unwrap_err();
        assert!(missing.contains("holds no tensor \"v\""), "{missing}");
        let (_d, short) = file(b"abc");
        let err = short.commitment(&[leaf("w")]).unwrap_err();
        assert!(err.contains("not a safetensors file"), "{err}");
        let bf16 = r#"{"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}}"#;
        let (_d, other) = file(&safetensors(bf16, &data[..4]));
        let err = other.commitment(&[leaf("w")]).unwrap_err();
        assert!(
            err.contains("is BF16 [2], the transcript's F32 [2]"),
            "{err}"
        );
    }
}

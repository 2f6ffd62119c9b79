//! The layout of a step's batch leaves in the committed `uint32` batch, and
//! its inverse (docs/protocol.md, "Packed batch").
//!
//! Every element becomes 32-bit words: 32-bit types are bitcast, 64-bit
//! types give two words (low word first), narrower types (`i1`, 8- and
//! 16-bit) are zero-extended to one word. `rows` is the leading dimension of
//! the largest leaf of rank 2 or more (by element count, then by shape);
//! every leaf of rank 1 or more with that leading dimension is a *row leaf*,
//! whose row `r` is written into row `r`, leaf after leaf. The other leaves
//! (*side leaves*) follow in extra rows of the same width, zero-padded.
//! Without a leaf of rank 2 or more, one row holds every leaf's words. Rows
//! are zero-padded to at least `min_width` words (the rolling window).
//!
//! The frontends pack with this layout; an auditor unpacks retained batches
//! with it to feed a replay program its typed batch arguments.

use zkdv_hashing::DType;

use crate::error::Problem;

/// Where one leaf's words live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// The leaf's dimensions.
    pub shape: Vec<u64>,
    /// Its element type.
    pub dtype: DType,
    /// Whether it is split over the rows (else its words are side words).
    pub row_leaf: bool,
    /// Row leaf: first column; side leaf: first word of the side rows.
    pub offset: u64,
    /// Row leaf: words per row; side leaf: words in all.
    pub words: u64,
}

/// The packing of a fixed list of leaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchLayout {
    /// One slot per leaf, in order.
    pub slots: Vec<Slot>,
    /// Rows of data (the row leaves' leading dimension).
    pub rows: u64,
    /// Extra rows holding the side leaves' words.
    pub side_rows: u64,
    /// Words per row.
    pub width: u64,
}

fn per_element(dtype: DType) -> u64 {
    if dtype.size_bytes() == 8 {
        2
    } else {
        1
    }
}

fn product(shape: &[u64]) -> Result<u64, Problem> {
    shape
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| Problem::Invalid(format!("batch leaf of shape {shape:?} is too large")))
}

impl BatchLayout {
    /// The layout of leaves given as `(shape, dtype)`, in order.
    pub fn of(leaves: &[(Vec<u64>, DType)], min_width: u64) -> Result<BatchLayout, Problem> {
        let mut largest: Option<(u64, &Vec<u64>)> = None;
        for (shape, _) in leaves.iter().filter(|(s, _)| s.len() >= 2) {
            let key = (product(shape)?, shape);
            if largest.is_none_or(|l| key > l) {
                largest = Some(key);
            }
        }
        let sized = largest.is_some();
        let mut rows = largest.map_or(1, |(_, s)| s[0]);
        let (mut column, mut side) = (0u64, 0u64);
        let mut slots = Vec::with_capacity(leaves.len());
        for (shape, dtype) in leaves {
            let per = per_element(*dtype);
            let row_leaf = sized && shape.first() == Some(&rows);
            let words = if row_leaf {
                product(&shape[1..])? * per
            } else {
                product(shape)? * per
            };
            let offset = if row_leaf { column } else { side };
            if row_leaf {
                column += words;
            } else {
                side += words;
            }
            slots.push(Slot {
                shape: shape.clone(),
                dtype: *dtype,
                row_leaf,
                offset,
                words,
            });
        }
        let width = (if column > 0 { column } else { side.max(1) }).max(min_width);
        let mut side_rows = side.div_ceil(width);
        if column == 0 {
            rows = side_rows.max(1);
            side_rows = 0;
        }
        Ok(BatchLayout {
            slots,
            rows,
            side_rows,
            width,
        })
    }

    /// The packed batch's `(rows, width)`.
    pub fn shape(&self) -> (u64, u64) {
        (self.rows + self.side_rows, self.width)
    }

    /// The leaves' little-endian bytes from a packed batch (row-major
    /// `words`), in slot order: the exact inverse of packing.
    pub fn unpack(&self, words: &[u32]) -> Result<Vec<Vec<u8>>, Problem> {
        let (rows, width) = self.shape();
        if words.len() as u128 != u128::from(rows) * u128::from(width) {
            return Err(Problem::Invalid(format!(
                "a packed batch of {} words does not have the layout's {rows} x {width}",
                words.len()
            )));
        }
        let has_rows = self.slots.iter().any(|s| s.row_leaf);
        let data_rows = if has_rows { self.rows } else { 0 } as usize;
        let width = width as usize;
        let side = &words[data_rows * width..];
        let mut out = Vec::with_capacity(self.slots.len());
        for slot in &self.slots {
            let (offset, count) = (slot.offset as usize, slot.words as usize);
            let mut leaf_words = Vec::with_capacity(if slot.row_leaf {
                count * self.rows as usize
            } else {
                count
            });
            if slot.row_leaf {
                for r in 0..self.rows as usize {
                    leaf_words.extend_from_slice(&words[r * width + offset..][..count]);
                }
            } else {
                let part = side.get(offset..offset + count).ok_or_else(|| {
                    Problem::Invalid("a side leaf lies outside the packed batch".into())
                })?;
                leaf_words.extend_from_slice(part);
            }
            let size = slot.dtype.size_bytes();
            let mut bytes = Vec::with_capacity(leaf_words.len() * size);
            if size == 8 {
                for pair in leaf_words.chunks_exact(2) {
                    bytes.extend_from_slice(&pair[0].to_le_bytes());
                    bytes.extend_from_slice(&pair[1].to_le_bytes());
                }
            } else {
                for w in &leaf_words {
                    bytes.extend_from_slice(&w.to_le_bytes()[..size]);
                }
            }
            out.push(bytes);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_and_side_leaves_unpack_to_their_bytes() {
        // An (2, 3) f32 leaf, a (2,) i64 label per row, a scalar f64.
        let leaves = vec![
            (vec![2, 3], DType::F32),
            (vec![2], DType::I64),
            (vec![], DType::F64),
        ];
        let layout = BatchLayout::of(&leaves, 4).unwrap();
        assert_eq!(layout.shape(), (3, 5));
        assert!(layout.slots[0].row_leaf && layout.slots[1].row_leaf);
        assert!(!layout.slots[2].row_leaf);
        let x = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        let y = [7i64, -8];
        let z = 0.25f64;
        let mut words = vec![0u32; 15];
        for r in 0..2 {
            for c in 0..3 {
                words[r * 5 + c] = x[r * 3 + c].to_bits();
            }
            let bits = y[r] as u64;
            words[r * 5 + 3] = bits as u32;
            words[r * 5 + 4] = (bits >> 32) as u32;
        }
        words[10] = z.to_bits() as u32;
        words[11] = (z.to_bits() >> 32) as u32;
        let out = layout.unpack(&words).unwrap();
        let f32s: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
        let i64s: Vec<u8> = y.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(out, vec![f32s, i64s, z.to_le_bytes().to_vec()]);
        assert!(layout.unpack(&words[1..]).is_err());
    }

    #[test]
    fn without_rank_two_leaves_one_row_holds_everything() {
        let layout = BatchLayout::of(&[(vec![3], DType::I1), (vec![], DType::BF16)], 1).unwrap();
        assert_eq!(layout.shape(), (1, 4));
        let out = layout.unpack(&[1, 0, 1, 0x3f80]).unwrap();
        assert_eq!(out, vec![vec![1, 0, 1], vec![0x80, 0x3f]]);
    }
}

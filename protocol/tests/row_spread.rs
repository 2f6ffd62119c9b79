//! The row floor of a narrow-float state comparison
//! (`zkdv_protocol::noise::row_spread`) on the values that needed it: an
//! honest run of torchvision's EfficientNet-B0 under `bf16` autocast
//! (`scripts/zoo --only efficientnet-b0-bf16`), whose PyTorch state check
//! of step 1 failed on the classifier's momentum buffer (10 x 1280 values):
//! 41 values of its last row lay beyond 32 times their own spread.
//!
//! `data/efficientnet_b0_bf16_classifier_momentum.bin` holds, little-endian,
//! the 12,800 committed values (`f32`), the replayed ones (`f32`) and each
//! value's spread over the eight members of the perturbation ensemble
//! (`f64`), as the check measured them.

use zkdv_protocol::noise::{compare_state, Group};
use zkdv_protocol::Tolerance;

const VALUES: usize = 12_800;
const SHAPE: [usize; 2] = [10, 1280];

struct Leaf {
    committed: Vec<f64>,
    recomputed: Vec<f64>,
    spread: Vec<f64>,
}

fn leaf() -> Leaf {
    let bytes = include_bytes!("data/efficientnet_b0_bf16_classifier_momentum.bin");
    assert_eq!(bytes.len(), VALUES * (4 + 4 + 8));
    let (f32s, f64s) = bytes.split_at(VALUES * 8);
    let floats = |b: &[u8]| -> Vec<f64> {
        b.chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect()
    };
    let (committed, recomputed) = f32s.split_at(VALUES * 4);
    Leaf {
        committed: floats(committed),
        recomputed: floats(recomputed),
        spread: f64s
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect(),
    }
}

/// The largest scale of a member's values against the replay's
/// (`noise::member_scales`), as the check measured it (0.394, rounded down):
/// the members scale the whole leaf by up to 39%, so its bias test admits
/// the committed values' scale of -0.24.
const MEMBER_SCALE: f64 = 0.39;

/// The leaf's group: its rows when `rows`, else one value per row (each
/// spread as measured: the rule before the row floor).
fn group(rows: bool) -> Group {
    let group = Group {
        scale_spread: MEMBER_SCALE,
        ..Group::of_shape(&SHAPE, true)
    };
    if rows {
        group
    } else {
        Group { row: 1, ..group }
    }
}

/// The session's tolerance for a program under the `"program"` policy.
fn tolerance() -> Tolerance {
    Tolerance {
        abs: 1e-6,
        rel: 1e-5,
        spread: 32.0,
        replays: 8,
    }
}

fn passes(leaf: &Leaf, committed: &[f64], group: Group) -> bool {
    let update = vec![0.0; VALUES];
    let outcome = compare_state(
        &tolerance(),
        committed,
        &leaf.recomputed,
        Some(&leaf.spread),
        &update,
        &[group],
        true,
    )
    .expect("equal lengths")
    .expect("values");
    outcome.passed()
}

#[test]
fn the_honest_classifier_passes_with_its_rows_and_failed_value_by_value() {
    let leaf = leaf();
    assert!(!passes(&leaf, &leaf.committed, group(false)));
    assert!(passes(&leaf, &leaf.committed, group(true)));
}

#[test]
fn the_classifier_doubled_still_fails_with_its_rows() {
    let leaf = leaf();
    let doubled: Vec<f64> = leaf.committed.iter().map(|c| 2.0 * c).collect();
    assert!(!passes(&leaf, &doubled, group(true)));
}

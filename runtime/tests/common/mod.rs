//! Helpers shared by the integration tests: a deterministic generator, inputs
//! for a program's arguments, and a digest of its outputs.
#![allow(dead_code)] // each test binary uses a different subset

use zkdv_runtime::{Data, ElementType, Tensor, TensorType};

/// A 64-bit LCG (Knuth's constants); `next` returns its top 53 bits.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
    /// Mostly ordinary values, with zeros of both signs, infinities,
    /// subnormals, NaNs with payloads and values that overflow when
    /// combined, when `specials`.
    pub fn f64(&mut self, specials: bool) -> f64 {
        if specials && self.next() % 8 == 0 {
            const SPECIAL: [f64; 10] = [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::MIN_POSITIVE,
                -4.9e-324,
                1e308,
                -1e308,
                1.0,
                -1.0,
            ];
            return match self.next() % 12 {
                10 => f64::from_bits(0x7ff8_0000_0000_1234 | (self.next() << 63)),
                11 => f64::from_bits(0x7ff0_0000_0000_0042),
                i => SPECIAL[i as usize],
            };
        }
        let scale = [1.0, 1e-3, 1e3, 1e-30][(self.next() % 4) as usize];
        self.unit() * scale
    }
    pub fn f32(&mut self, specials: bool) -> f32 {
        if specials && self.next() % 8 == 0 {
            const SPECIAL: [f32; 10] = [
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::MIN_POSITIVE,
                -1e-45,
                3e38,
                -3e38,
                1.0,
                -1.0,
            ];
            return match self.next() % 12 {
                10 => f32::from_bits(0x7fc0_1234 | ((self.next() as u32) << 31)),
                11 => f32::from_bits(0x7f80_0042),
                i => SPECIAL[i as usize],
            };
        }
        let scale = [1.0, 1e-3, 1e3, 1e-30][(self.next() % 4) as usize];
        (self.unit() * scale) as f32
    }
}

/// An input for an argument of type `ty`: floats in [-1, 1), integers in
/// [0, 3) (so that embedding indices and class labels stay in range).
pub fn fixture_input(ty: &TensorType, rng: &mut Lcg) -> Tensor {
    let n: usize = ty.shape.iter().product();
    let data = match ty.element {
        ElementType::F64 => Data::F64((0..n).map(|_| rng.unit()).collect()),
        ElementType::F32 | ElementType::F16 | ElementType::BF16 => {
            Data::F32((0..n).map(|_| ty.element.round_f64(rng.unit())).collect())
        }
        ElementType::I1 => Data::Bool((0..n).map(|_| rng.next() % 2 == 1).collect()),
        ElementType::Signed(_) => Data::Signed((0..n).map(|_| (rng.next() % 3) as i64).collect()),
        ElementType::Unsigned(_) => Data::Unsigned((0..n).map(|_| rng.next() % 3).collect()),
        other => panic!("no generator for {other:?}"),
    };
    Tensor::new(ty.element, ty.shape.clone(), data).expect("generated input")
}

/// blake3 of the outputs' host bytes, in order.
pub fn digest(outputs: &[Tensor]) -> String {
    let mut hasher = blake3::Hasher::new();
    for tensor in outputs {
        let host = tensor.to_host().expect("host tensor");
        hasher.update(host.bytes());
    }
    hasher.finalize().to_hex().to_string()
}

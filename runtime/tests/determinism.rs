//! The runtime gives the same bits for the same program and inputs, whatever
//! the thread count and however often it runs, on the four exported training
//! steps of `test-mlir/inputs/`.
//!
//! Inputs are drawn from a fixed generator according to each argument's type
//! (floats in [-1, 1), integers in [0, 3) so that embedding indices and class
//! labels stay in range). Such inputs drive Adam's step count to 0, so some
//! outputs are NaN: the pins also cover the canonical NaN rule. The outputs' blake3 digest is also pinned: a run on
//! another machine or architecture that computes different bits fails here.
//! (Regenerate the pins with `ZKDV_PRINT_DIGESTS=1 cargo test -p zkdv-runtime
//! --test determinism -- --nocapture` after a deliberate change of results.)

use std::path::PathBuf;

mod common;

use common::{digest, fixture_input, Lcg};
use zkdv_runtime::{Program, Tensor};

/// Pinned digests of the outputs (computed on the x86_64 dev machine).
/// The fixtures are small, so most ops stay below the threading thresholds;
/// `ops::linalg`'s unit tests cover the threaded paths with 1, 5 and the
/// default number of threads.
const PINNED: [(&str, &str); 4] = [
    (
        "cnn_sgd",
        "bda8dda2ece0ee263781ac2be55b594779673497bda5c131782aa776261db8a2",
    ),
    (
        "mlp_adam",
        "929f7a83a119736f7ccdb6be30063b118c039548d73e8e386345088361d76fda",
    ),
    (
        "transaction_sgd",
        "3f70228c077159741e4f6b84d817ec085dccfde09266e18ff2905d10a49fb0fc",
    ),
    (
        "transformer_adamw",
        "bec624ec32dbb7d0dffc70770592a0c43bcf67524b9b3312a8973b898d715c53",
    ),
];

/// The program, handed to the pool's thread for one `install`.
struct Exclusive<'a>(&'a Program);

// SAFETY: `ThreadPool::install` blocks the calling thread until the closure
// has finished, so exactly one thread uses the program at any time; MLIR
// objects have no thread affinity.
unsafe impl Send for Exclusive<'_> {}

impl<'a> Exclusive<'a> {
    fn into_inner(self) -> &'a Program {
        self.0
    }
}

/// Run each fixture of `pinned` on its generated inputs under pools of each
/// of `threads` (`run` gets the program and a copy of the inputs), and
/// require the same outputs' digest everywhere and the pinned one (`what`
/// names the outputs in messages; `ZKDV_PRINT_DIGESTS` prints instead).
fn same_bits_everywhere(
    what: &str,
    pinned: &[(&str, &str)],
    threads: &[usize],
    run: impl Fn(&Program, Vec<Tensor>) -> Result<Vec<Tensor>, zkdv_runtime::RuntimeError> + Sync,
) {
    let inputs_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test-mlir/inputs");
    for &(name, pinned) in pinned {
        let path = inputs_dir.join(format!("{name}.mlir"));
        let text = std::fs::read_to_string(&path).expect("fixture text");
        let program = Program::parse(&text, name, "main").expect("fixture parses");
        let mut rng = Lcg(0x5eed);
        let inputs: Vec<Tensor> = program
            .arguments()
            .iter()
            .map(|ty| fixture_input(ty, &mut rng))
            .collect();
        let mut digests = Vec::new();
        for &threads in threads {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            let shared = Exclusive(&program);
            let copy = inputs.clone();
            let run = &run;
            let outputs = pool
                .install(move || run(shared.into_inner(), copy))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            digests.push(digest(&outputs));
        }
        assert!(
            digests.windows(2).all(|w| w[0] == w[1]),
            "{name}: {what} differ across thread counts: {digests:?}"
        );
        if std::env::var_os("ZKDV_PRINT_DIGESTS").is_some() {
            println!("{what} (\"{name}\", \"{}\"),", digests[0]);
        } else {
            assert_eq!(digests[0], pinned, "{name}: {what} changed bits");
        }
    }
}

#[test]
fn same_bits_for_any_thread_count_and_run() {
    same_bits_everywhere("outputs", &PINNED, &[1, 2, 5, 1], |program, inputs| {
        program.run(inputs)
    });
}

/// Pinned digests of member 3 of the perturbation ensemble
/// (`rounding::perturb_inputs` then `rounding::with_member`), as a check
/// runs it: every member's bits are part of the protocol (`docs/protocol.md`
/// section 5a), so a faster perturbation must move each value as before.
/// Computed on the x86_64 dev machine, and by the tree before perturbations
/// ran on rayon's pool, which gave the same digests.
const PINNED_MEMBER: [(&str, &str); 4] = [
    (
        "cnn_sgd",
        "09d82080d05140475a4757f5ecbc456e2f6e81b21781c06fcd58bc9e80526a1a",
    ),
    (
        "mlp_adam",
        "53da41873a0183607d5c99092913afb79f2dcfcf1336145d10e78c3eeb2b5f6a",
    ),
    (
        "transaction_sgd",
        "3eaade0940654cd574d0959b8a3e51e5414709c51e4464a21fcf7f04e4921228",
    ),
    (
        "transformer_adamw",
        "29064cee47075cdce20b94ac4004f260f298c7c9c739d45c277d03b87c0ec8c9",
    ),
];

#[test]
fn an_ensemble_member_gives_the_same_bits_for_any_thread_count() {
    use zkdv_runtime::rounding::{perturb_inputs, with_member};
    same_bits_everywhere(
        "member outputs",
        &PINNED_MEMBER,
        &[1, 2, 5],
        |program, mut inputs| {
            perturb_inputs(3, &mut inputs);
            with_member(3, || program.run(inputs))
        },
    );
}

//! The `zkdv` binary: exit codes, messages and JSON output.

use std::path::Path;
use std::process::{Command, Output};

use zkdv_protocol::*;

fn zkdv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zkdv"))
        .args(args)
        .output()
        .expect("run zkdv")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn leaf(path: &str, dtype: &str, shape: &[u64]) -> Leaf {
    Leaf {
        path: path.into(),
        dtype: dtype.into(),
        shape: shape.to_vec(),
    }
}

/// A closed transcript of three steps under the debug policy (every step).
fn transcript(dir: &Path) {
    let root = RootInput {
        prover: "whitebox-jax".into(),
        config_name: "cli".into(),
        versions: Default::default(),
        sampling: Sampling::Every { n: 1 },
        tolerance: Tolerance::fixed(0.0, 1e-6),
        tolerance_policy: TolerancePolicy::Fixed,
        rolling_window: 1,
        probe_ratio: 1.0,
        snapshot_interval: 2,
        params: vec![leaf("w", "f32", &[4])],
        opt_state: vec![],
        batch: vec![leaf("batch", "u32", &[1, 2])],
        probe_seed: None,
        rank: None,
    };
    let mut w = Writer::create(dir, root, WriterOptions::default()).unwrap();
    let art = w.put_artifact(b"module", "mlir").unwrap();
    let program = w
        .append_program(ProgramBody {
            name: "step".into(),
            format: "stablehlo".into(),
            attested: art.clone(),
            production: Some(art),
            precision: Precision {
                narrowest: Some("f32".into()),
                narrow_results: 0,
            },
            tolerance: w.root().tolerance,
            replay: None,
            batch: None,
            matmul: None,
        })
        .unwrap();
    for step in 0..3u64 {
        let r = w
            .append_step(StepBody {
                step,
                program,
                batch: BatchCommitment {
                    rows: 1,
                    width: 2,
                    window: 1,
                    root: Hash32::ZERO,
                },
                pre_state: Hash32::ZERO,
                update: Hash32::ZERO,
                post_state: Hash32::ZERO,
                overlap: Overlap::Unchecked,
                evidence: None,
                hyperparameters: None,
                nonfinite: None,
            })
            .unwrap();
        for (kind, indices) in [
            (CheckKind::State, vec![]),
            (CheckKind::Update, r.challenge.update_indices()),
        ] {
            w.append_check(CheckBody {
                step,
                kind,
                indices,
                committed: vec![2.0],
                recomputed: vec![2.0],
                tolerance: w.root().tolerance,
                spread: vec![],
                verdict: Verdict::Pass,
                replay_length: step % 2,
                outliers: 0,
                bias: None,
                scale: None,
            })
            .unwrap();
        }
    }
    w.close(None).unwrap();
}

#[test]
fn valid_transcript_exits_zero_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    transcript(dir.path());
    let out = zkdv(&["verify", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1);
    assert!(
        stdout.contains("valid: 3 steps, 6 checks passed"),
        "{stdout}"
    );

    let out = zkdv(&["verify", "--json", dir.path().to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], true);
    assert_eq!(v["report"]["steps"], 3);
    assert_eq!(v["report"]["artifacts_checked"], 1);
}

#[test]
fn edited_transcript_exits_one_naming_the_record() {
    let dir = tempfile::tempdir().unwrap();
    transcript(dir.path());
    let file = dir.path().join(RECORDS_FILE);
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 40;
    bytes[last] ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();
    let out = zkdv(&["verify", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("invalid: record #"), "{stderr}");
    assert!(stderr.contains("at byte offset"), "{stderr}");

    let out = zkdv(&["verify", "--json", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], false);
    assert!(v["error"]["record"].is_u64());
    assert!(v["error"]["offset"].is_u64());

    // inspect summarizes what it can read, and exits as verify does.
    let out = zkdv(&["inspect", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
}

#[test]
fn bad_inputs_and_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    // Not a transcript at all: a directory without records, an empty file, a
    // file that is not CBOR. Unusable input (2), not a bad transcript (1),
    // for verify and inspect alike.
    let empty = dir.path().join("empty.cborl");
    std::fs::write(&empty, b"").unwrap();
    let junk = dir.path().join("junk.cborl");
    std::fs::write(&junk, b"hello world").unwrap();
    for command in ["verify", "inspect"] {
        let out = zkdv(&[command, dir.path().to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(text(&out.stderr).contains("no records.cborl"), "{command}");
        let out = zkdv(&[command, empty.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(text(&out.stderr).contains("empty"), "{command}");
        let out = zkdv(&[command, junk.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{command}");
    }
    let out = zkdv(&["verify", junk.to_str().unwrap()]);
    assert!(text(&out.stderr).contains("not a ZKDV record"));
    // Usage errors: a path that does not exist, no arguments, a bad flag.
    let out = zkdv(&["verify", dir.path().join("nope").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(zkdv(&["verify"]).status.code(), Some(2));
    assert_eq!(
        zkdv(&["verify", "--frobnicate", "x"]).status.code(),
        Some(2)
    );
    assert_eq!(zkdv(&[]).status.code(), Some(2));
    // With --json, each command says it in its own shape.
    let nope = dir.path().join("nope");
    let out = zkdv(&["audit", "--json", nope.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["passed"].as_bool(), v["unusable"].as_bool()),
        (Some(false), Some(true))
    );
    assert!(v["error"].as_str().unwrap().contains("no such file"), "{v}");
    let out = zkdv(&["verify", "--json", nope.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"].as_bool(), Some(false));
    assert!(
        v["usage_error"].as_str().unwrap().contains("no such file"),
        "{v}"
    );
}

#[test]
fn inspect_summarizes() {
    let dir = tempfile::tempdir().unwrap();
    transcript(dir.path());
    let out = zkdv(&["inspect", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let s = text(&out.stdout);
    for needle in [
        "prover       whitebox-jax",
        "config       cli",
        "steps        3",
        "state 3 passed, 0 failed; update 3 passed, 0 failed",
        "snapshots    0",
        "program      #1 step (stablehlo)",
        "tolerance    abs 0 + rel 0.000001 * |committed| (fixed: every program's)",
        "computes in f32 (0 narrow results); tolerance abs 0 + rel 0.000001 * |committed|",
        "status       ok",
        "verification valid",
    ] {
        assert!(s.contains(needle), "missing {needle:?} in\n{s}");
    }
    let out = zkdv(&["inspect", "--json", dir.path().to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["inspection"]["steps"], 3);
    assert_eq!(v["inspection"]["checks"]["update_passed"], 3);
}

//! Append-only transcript writer.
//!
//! Each record is encoded, checked by the same state machine the auditor runs
//! (so the writer cannot produce a transcript that fails verification for a
//! structural reason), then written with one `write_all` and flushed. A crash
//! therefore leaves every complete record readable, and at most one truncated
//! record at the end, which the reader reports. `close` fsyncs the file and
//! the directory.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use ed25519_dalek::{Signer, SigningKey};

use crate::challenge::{derive_challenge, key_commitment, Challenge};
use crate::envelope::{encode, record_digest, EnvelopeReader};
use crate::error::{Error, Problem, Result};
use crate::evidence::{Bundle, EVIDENCE_EXTENSION};
use crate::hash::{Bytes, Hash32};
use crate::reader::{Record, RECORDS_FILE};
use crate::records::{
    Artifact, Body, CheckBody, CheckKind, CloseBody, Failure, Kind, Payload, ProductionBody,
    ProgramBody, RootBody, RootInput, SnapshotBody, Status, StepBody, PROTOCOL_VERSION,
};
use crate::verify::{Mode, Verifier};

/// Secrets of a session. Both are drawn from the operating system unless
/// given (tests and test vectors give them).
#[derive(Debug, Clone, Default)]
pub struct WriterOptions {
    /// The challenge key, revealed by the close record.
    pub challenge_key: Option<Hash32>,
    /// Sign every record with an Ed25519 session key.
    pub sign: bool,
    /// The Ed25519 secret key to sign with (implies `sign`).
    pub signing_key: Option<[u8; 32]>,
}

/// What appending a step returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepReceipt {
    /// Sequence number of the step record.
    pub seq: u64,
    /// Hash of the step record's exact bytes.
    pub hash: Hash32,
    /// The step's challenge (secret to everyone but the session until close).
    pub challenge: Challenge,
}

/// Appends records to a new transcript directory.
///
/// ```
/// use zkdv_protocol::{
///     verify_path, Leaf, RootInput, Sampling, Tolerance, TolerancePolicy, Writer, WriterOptions,
/// };
/// let dir = tempfile::tempdir()?;
/// let root = RootInput {
///     prover: "whitebox-jax".into(),
///     config_name: "doc".into(),
///     versions: Default::default(),
///     sampling: Sampling::Every { n: 1_000 },
///     tolerance: Tolerance::fixed(1e-6, 1e-5),
///     tolerance_policy: TolerancePolicy::Fixed,
///     rolling_window: 2,
///     probe_ratio: 0.01,
///     snapshot_interval: 12,
///     params: vec![Leaf { path: "w".into(), dtype: "f32".into(), shape: vec![8] }],
///     opt_state: vec![],
///     batch: vec![Leaf { path: "batch".into(), dtype: "u32".into(), shape: vec![1, 8] }],
///     probe_seed: None,
///     rank: None,
/// };
/// let mut writer = Writer::create(dir.path(), root, WriterOptions::default())?;
/// writer.close(None)?;
/// assert_eq!(verify_path(dir.path())?.steps, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Writer {
    dir: PathBuf,
    file: File,
    path: PathBuf,
    verifier: Verifier,
    next_seq: u64,
    root: RootBody,
    challenge_key: Hash32,
    signing_key: Option<SigningKey>,
    offset: u64,
    broken: Option<String>,
}

fn random32() -> Result<[u8; 32]> {
    let mut out = [0u8; 32];
    getrandom::fill(&mut out).map_err(|e| {
        Error::new(Problem::Usage(format!(
            "the operating system's random number generator failed: {e}"
        )))
    })?;
    Ok(out)
}

impl Writer {
    /// Create `dir` (and parents) and start a transcript in it with the root
    /// record. Fails if `dir` already holds a transcript: nothing is
    /// overwritten.
    pub fn create(dir: &Path, root: RootInput, options: WriterOptions) -> Result<Writer> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| Error::new(Problem::Io { path, source })
        };
        fs::create_dir_all(dir).map_err(io(dir))?;
        let path = dir.join(RECORDS_FILE);
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(|source| {
                if source.kind() == std::io::ErrorKind::AlreadyExists {
                    Error::new(Problem::Usage(format!(
                        "{} already holds a transcript; choose a new directory or move the old one",
                        dir.display()
                    )))
                } else {
                    Error::new(Problem::Io {
                        path: path.clone(),
                        source,
                    })
                }
            })?;
        let challenge_key = match options.challenge_key {
            Some(key) => key,
            None => Hash32(random32()?),
        };
        let signing_key = match (options.signing_key, options.sign) {
            (Some(secret), _) => Some(SigningKey::from_bytes(&secret)),
            (None, true) => Some(SigningKey::from_bytes(&random32()?)),
            (None, false) => None,
        };
        let probe_seed = match root.probe_seed {
            Some(seed) => seed,
            None => Hash32(random32()?),
        };
        let body = root.into_body(
            probe_seed,
            key_commitment(&challenge_key),
            signing_key
                .as_ref()
                .map(|k| Bytes(k.verifying_key().to_bytes())),
        );
        let mut writer = Writer {
            dir: dir.to_owned(),
            file,
            path,
            verifier: Verifier::new(Mode::Write, None),
            next_seq: 0,
            root: body.clone(),
            challenge_key,
            signing_key,
            offset: 0,
            broken: None,
        };
        if let Err(e) = writer.append(Body::Root(body)) {
            // Nothing valid was written: leave no half-made transcript behind.
            let _ = fs::remove_file(&writer.path);
            return Err(e);
        }
        Ok(writer)
    }

    /// The transcript directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The root record as written.
    pub fn root(&self) -> &RootBody {
        &self.root
    }

    /// Steps appended so far.
    pub fn steps(&self) -> u64 {
        self.verifier.steps()
    }

    /// Store `bundle` as an evidence artifact ([`crate::evidence`]:
    /// compressed, extension `ev.zst`), written and synced before it is
    /// named, like every artifact.
    pub fn put_evidence(&self, bundle: &Bundle) -> Result<Artifact> {
        let bytes = bundle.encode().map_err(Error::new)?;
        self.put_artifact(&bytes, EVIDENCE_EXTENSION)
    }

    /// Store `bytes` as a content-addressed artifact
    /// (`artifacts/<blake3 hex>.<extension>`), atomically and idempotently.
    pub fn put_artifact(&self, bytes: &[u8], extension: &str) -> Result<Artifact> {
        if extension.is_empty()
            || !extension
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.')
        {
            return Err(Problem::Usage(format!(
                "artifact extension {extension:?} must be non-empty ASCII letters, digits and dots"
            ))
            .into());
        }
        let hash = Hash32::of(bytes);
        let name = format!("artifacts/{hash}.{extension}");
        let path = self.dir.join(&name);
        let io = |source| {
            Error::new(Problem::Io {
                path: path.clone(),
                source,
            })
        };
        if !path.exists() {
            let parent = self.dir.join("artifacts");
            fs::create_dir_all(&parent).map_err(io)?;
            let (tmp, mut file) = tempfile_in(&parent).map_err(io)?;
            let stored = file
                .write_all(bytes)
                .and_then(|()| file.sync_all())
                .and_then(|()| fs::rename(&tmp, &path));
            if let Err(source) = stored {
                // No half-written temporary is left behind (a full disk).
                let _ = fs::remove_file(&tmp);
                return Err(io(source));
            }
        }
        Ok(Artifact {
            name,
            blake3: hash,
            size: bytes.len() as u64,
        })
    }

    /// Append a program record; returns its sequence number, which step
    /// records name.
    pub fn append_program(&mut self, program: ProgramBody) -> Result<u64> {
        self.append(Body::Program(program))
    }

    /// Append the production record of a program record written without its
    /// production program.
    pub fn append_production(&mut self, production: ProductionBody) -> Result<u64> {
        self.append(Body::Production(production))
    }

    /// Append a step record and derive its challenge.
    pub fn append_step(&mut self, step: StepBody) -> Result<StepReceipt> {
        let index = step.step;
        let seq = self.append(Body::Step(step))?;
        let challenge = self.challenge(index)?;
        Ok(StepReceipt {
            seq,
            hash: self.verifier.last_hash(),
            challenge,
        })
    }

    /// Append a snapshot record.
    pub fn append_snapshot(&mut self, snapshot: SnapshotBody) -> Result<u64> {
        self.append(Body::Snapshot(snapshot))
    }

    /// Append a check record. A failing verdict is a legitimate record; the
    /// session must then be closed with a failure.
    ///
    /// The writer knows the challenge key, so it refuses a check the step's
    /// challenge did not sample, or an update check at other indices, before
    /// anything is written (an auditor would reject the transcript at close).
    pub fn append_check(&mut self, check: CheckBody) -> Result<u64> {
        let challenge = self.challenge(check.step)?;
        let sampled = match check.kind {
            CheckKind::State => challenge.state,
            CheckKind::Update => challenge.update,
        };
        if !sampled {
            return Err(Problem::UnsampledCheck {
                step: check.step,
                kind: check.kind,
            }
            .into());
        }
        if check.kind == CheckKind::Update && check.indices != challenge.update_indices() {
            return Err(Problem::Usage(format!(
                "update check of step {} must record the challenged indices {:?}, not {:?}",
                check.step,
                challenge.update_indices(),
                check.indices
            ))
            .into());
        }
        self.append(Body::Check(check))
    }

    /// The challenge of an appended step.
    pub fn challenge(&self, step: u64) -> Result<Challenge> {
        let hash = self.verifier.step_hash(step).ok_or_else(|| {
            Error::new(Problem::Usage(format!(
                "step {step} has not been appended ({} steps so far)",
                self.verifier.steps()
            )))
        })?;
        let parameters = self.root.parameter_count().unwrap_or(0);
        let state = self.root.optimizer_state_count().unwrap_or(0);
        derive_challenge(
            &self.challenge_key,
            &hash,
            step,
            &self.root.sampling,
            parameters,
            state,
        )
        .map_err(Error::new)
    }

    /// Append the close record (status `ok`, or `poisoned` with the given
    /// failure), then fsync the file and its directory. If the close record
    /// is refused (a sampled check is missing from an `ok` session), nothing
    /// is written and the writer stays usable.
    pub fn close(&mut self, failure: Option<Failure>) -> Result<CloseBody> {
        let close = CloseBody {
            steps: self.verifier.steps(),
            final_state: self.verifier.last_post_state(),
            challenge_key: self.challenge_key,
            status: if failure.is_some() {
                Status::Poisoned
            } else {
                Status::Ok
            },
            failure,
        };
        self.append(Body::Close(close.clone()))?;
        let sync = |path: &Path, result: std::io::Result<()>| {
            result.map_err(|source| {
                Error::new(Problem::Io {
                    path: path.to_owned(),
                    source,
                })
            })
        };
        sync(&self.path, self.file.sync_all())?;
        if let Ok(dir) = File::open(&self.dir) {
            // Persist the directory entry too; not every platform allows
            // opening a directory, hence no error when that fails.
            sync(&self.dir, dir.sync_all())?;
        }
        Ok(close)
    }

    fn append(&mut self, body: Body) -> Result<u64> {
        let kind: Kind = body.kind();
        let seq = self.next_seq;
        let payload = Payload {
            v: PROTOCOL_VERSION,
            kind,
            seq,
            prev: self.verifier.last_hash(),
            body: &body,
        };
        let mut bytes = Vec::new();
        ciborium::ser::into_writer(&payload, &mut bytes)
            .map_err(|e| Error::new(Problem::Payload(e.to_string())))?;
        let signature = self
            .signing_key
            .as_ref()
            .map(|key| key.sign(record_digest(&bytes).as_bytes()).to_bytes());
        let envelope = encode(&bytes, signature.as_ref());
        // Read our own bytes back through the reader: what is checked is
        // exactly what an auditor will parse.
        let mut raw = EnvelopeReader::new(envelope.as_slice())
            .next()
            .map_err(Error::new)?
            .ok_or_else(|| Error::new(Problem::Usage("encoded an empty record".into())))?;
        raw.offset = self.offset;
        if let Some(why) = &self.broken {
            return Err(Problem::Usage(format!(
                "the transcript cannot be extended after an earlier write failed: {why}"
            ))
            .into());
        }
        let record = Record::decode(raw).map_err(Error::new)?;
        self.verifier.accept(&record)?;
        let written = self
            .file
            .write_all(&record.raw.bytes)
            .and_then(|()| self.file.flush());
        if let Err(source) = written {
            // Cut a partly written record off again, so the file stays a valid
            // prefix of the transcript (a full disk, say, leaves every record
            // written before it readable and verifiable). If even that fails,
            // the reader reports the one truncated record at the end.
            let _ = self.file.set_len(self.offset);
            self.broken = Some(source.to_string());
            return Err(Problem::Io {
                path: self.path.clone(),
                source,
            }
            .into());
        }
        self.offset += record.raw.bytes.len() as u64;
        self.next_seq += 1;
        Ok(seq)
    }
}

/// Create a fresh temporary file in `dir`.
fn tempfile_in(dir: &Path) -> std::io::Result<(PathBuf, File)> {
    loop {
        let mut tag = [0u8; 8];
        getrandom::fill(&mut tag).map_err(|e| std::io::Error::other(e.to_string()))?;
        let path = dir.join(format!(".tmp-{}", hex::encode(tag)));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

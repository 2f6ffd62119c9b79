//! Streaming reader of `records.cborl`.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::envelope::{EnvelopeReader, RawRecord};
use crate::error::{Error, Position, Problem, Result};
use crate::records::{Body, Kind, Payload, PROTOCOL_VERSION};

/// Name of the records file inside a transcript directory.
pub const RECORDS_FILE: &str = "records.cborl";

/// A decoded record together with its exact bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The stored envelope.
    pub raw: RawRecord,
    /// The decoded payload.
    pub payload: Payload<Body>,
}

impl Record {
    /// Decode a raw envelope: digest, CBOR payload, version and body shape.
    pub fn decode(raw: RawRecord) -> std::result::Result<Record, Problem> {
        if !raw.digest_matches() {
            return Err(Problem::DigestMismatch);
        }
        let mut bytes = raw.payload();
        let generic: Payload<ciborium::Value> =
            ciborium::de::from_reader(&mut bytes).map_err(|e| Problem::Payload(e.to_string()))?;
        if !bytes.is_empty() {
            return Err(Problem::Payload(format!(
                "{} unexpected bytes after the payload map",
                bytes.len()
            )));
        }
        if generic.v != PROTOCOL_VERSION {
            return Err(Problem::UnsupportedVersion {
                found: generic.v,
                supported: PROTOCOL_VERSION,
            });
        }
        let body = match generic.kind {
            Kind::Root => Body::Root(body(&generic)?),
            Kind::Program => Body::Program(body(&generic)?),
            Kind::Production => Body::Production(body(&generic)?),
            Kind::Step => Body::Step(body(&generic)?),
            Kind::Snapshot => Body::Snapshot(body(&generic)?),
            Kind::Check => Body::Check(body(&generic)?),
            Kind::Close => Body::Close(body(&generic)?),
        };
        Ok(Record {
            payload: Payload {
                v: generic.v,
                kind: generic.kind,
                seq: generic.seq,
                prev: generic.prev,
                body,
            },
            raw,
        })
    }

    /// Sequence number.
    pub fn seq(&self) -> u64 {
        self.payload.seq
    }

    /// Kind.
    pub fn kind(&self) -> Kind {
        self.payload.kind
    }

    /// Body.
    pub fn body(&self) -> &Body {
        &self.payload.body
    }
}

fn body<T: DeserializeOwned>(payload: &Payload<ciborium::Value>) -> Result<T, Problem> {
    payload
        .body
        .deserialized()
        .map_err(|e| Problem::Payload(format!("{} record body: {e}", payload.kind)))
}

/// Resolve a transcript argument: a directory holding `records.cborl`, or
/// the records file itself. Returns the records file and whether a directory
/// was named.
pub fn resolve(path: &Path) -> Result<(PathBuf, bool)> {
    let meta = std::fs::metadata(path).map_err(|source| Problem::Io {
        path: path.to_owned(),
        source,
    })?;
    if meta.is_dir() {
        let file = path.join(RECORDS_FILE);
        if !file.is_file() {
            return Err(Problem::NoRecordsFile(path.to_owned()).into());
        }
        Ok((file, true))
    } else {
        Ok((path.to_owned(), false))
    }
}

/// Streams the records of a transcript, decoding each one.
///
/// Iteration stops after the first error. A file that ends inside a record
/// yields [`Problem::Truncated`] with the record's offset; it is never
/// silently dropped.
///
/// ```no_run
/// use zkdv_protocol::Reader;
/// for record in Reader::open("proof".as_ref())? {
///     let record = record?;
///     println!("{} {}", record.seq(), record.kind());
/// }
/// # Ok::<(), zkdv_protocol::Error>(())
/// ```
pub struct Reader<R> {
    envelopes: EnvelopeReader<R>,
    index: u64,
    path: PathBuf,
    done: bool,
}

impl Reader<BufReader<File>> {
    /// Open a transcript directory or records file.
    pub fn open(path: &Path) -> Result<Self> {
        let (file, _) = resolve(path)?;
        let handle = File::open(&file).map_err(|source| Problem::Io {
            path: file.clone(),
            source,
        })?;
        let mut reader = Reader::new(BufReader::new(handle));
        reader.path = file;
        Ok(reader)
    }
}

impl<R: Read> Reader<R> {
    /// Read records from any byte stream.
    pub fn new(inner: R) -> Self {
        Reader {
            envelopes: EnvelopeReader::new(inner),
            index: 0,
            path: PathBuf::from(RECORDS_FILE),
            done: false,
        }
    }

    /// Number of records returned so far.
    pub fn records_read(&self) -> u64 {
        self.index
    }

    /// Bytes consumed so far.
    pub fn bytes_read(&self) -> u64 {
        self.envelopes.offset()
    }

    /// Position of the next record.
    pub fn next_position(&self) -> Position {
        Position {
            index: self.index,
            offset: self.envelopes.offset(),
        }
    }

    /// The next envelope without decoding its payload.
    pub fn next_raw(&mut self) -> Option<Result<RawRecord>> {
        if self.done {
            return None;
        }
        let at = self.next_position();
        match self.envelopes.next() {
            Ok(Some(raw)) => {
                self.index += 1;
                Some(Ok(raw))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(problem) => {
                self.done = true;
                let problem = match problem {
                    Problem::Io { source, .. } => Problem::Io {
                        path: self.path.clone(),
                        source,
                    },
                    other => other,
                };
                Some(Err(Error::at(at, problem)))
            }
        }
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Result<Record>;

    fn next(&mut self) -> Option<Self::Item> {
        let at = self.next_position();
        let raw = match self.next_raw()? {
            Ok(raw) => raw,
            Err(e) => return Some(Err(e)),
        };
        match Record::decode(raw) {
            Ok(record) => Some(Ok(record)),
            Err(problem) => {
                self.done = true;
                Some(Err(Error::at(at, problem)))
            }
        }
    }
}

//! Bounded pools of reusable host buffers for pre-state snapshots.
//!
//! A training loop snapshots its full pre-state every few steps so that a
//! check can replay from it. The copies must not stall training and must not
//! grow memory without bound, so snapshots go into a [`SnapshotPool`]: a
//! fixed set of buffers allocated once, up front ("primed"), handed out as
//! [`Lease`]s and returned when the lease is dropped.
//!
//! - Flow control: [`SnapshotPool::acquire`] blocks while every buffer is
//!   leased ([`SnapshotPool::try_acquire`] returns `None` instead), so at
//!   most `buffers` snapshots are ever held and memory stays at
//!   `buffers * bytes_per_buffer` (plus nothing per copy).
//! - Asynchronous copies: [`Lease::copy_from`] queues the copy of a shared
//!   source onto the pool's copy thread and returns at once with a
//!   [`CopyEvent`]; copies run in submission order.
//! - Barriers: the source must not be mutated (or donated) until the copy's
//!   event has completed: [`CopyEvent::wait`] is that barrier. A buffer is
//!   never reused while a copy into it is pending: dropping a lease waits for
//!   its copy first, and reading a lease ([`Lease::bytes`]) waits too.
//!
//! Buffers are ordinary heap memory here. With a CUDA device they would be
//! pinned (page-locked) allocations so that device-to-host copies can be
//! asynchronous; this crate has no CUDA backend yet (see the runtime docs).

use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;

/// Errors of the snapshot pool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PoolError {
    /// A pool needs at least one buffer of at least one byte.
    #[error("a snapshot pool needs at least one buffer of at least one byte")]
    Empty,
    /// The source is larger than a buffer.
    #[error("a {len}-byte snapshot does not fit a {capacity}-byte pool buffer")]
    TooLarge {
        /// Bytes to copy.
        len: usize,
        /// Bytes per buffer.
        capacity: usize,
    },
    /// The copy thread is gone (it panicked, which is a bug).
    #[error("the snapshot copy thread stopped")]
    CopyThreadGone,
}

struct State {
    free: Vec<Vec<u8>>,
    /// Bytes allocated by the pool, for the boundedness tests.
    allocated: usize,
}

struct Shared {
    state: Mutex<State>,
    returned: Condvar,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave `State` inconsistent
    // (every update is a single push or pop), so a poisoned lock is usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Completion of one asynchronous copy.
#[derive(Clone)]
pub struct CopyEvent {
    inner: Arc<(Mutex<bool>, Condvar)>,
}

impl std::fmt::Debug for CopyEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CopyEvent")
            .field("done", &self.is_done())
            .finish()
    }
}

impl CopyEvent {
    fn new() -> Self {
        CopyEvent {
            inner: Arc::new((Mutex::new(false), Condvar::new())),
        }
    }

    fn complete(&self) {
        *lock(&self.inner.0) = true;
        self.inner.1.notify_all();
    }

    /// Whether the copy has finished.
    pub fn is_done(&self) -> bool {
        *lock(&self.inner.0)
    }

    /// Blocks until the copy has finished: after this, the source may be
    /// mutated and the destination read.
    pub fn wait(&self) {
        let mut done = lock(&self.inner.0);
        while !*done {
            done = self
                .inner
                .1
                .wait(done)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

/// A copy the worker runs: the destination buffer travels to the worker
/// and back, so nothing else can touch it meanwhile.
struct Job {
    source: Arc<dyn AsRef<[u8]> + Send + Sync>,
    buffer: Vec<u8>,
    back: mpsc::Sender<Vec<u8>>,
    event: CopyEvent,
}

/// A fixed set of equally sized host buffers for snapshots.
pub struct SnapshotPool {
    shared: Arc<Shared>,
    bytes_per_buffer: usize,
    buffers: usize,
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    worker: Option<thread::JoinHandle<()>>,
}

impl std::fmt::Debug for SnapshotPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotPool")
            .field("buffers", &self.buffers)
            .field("bytes_per_buffer", &self.bytes_per_buffer)
            .field("available", &self.available())
            .finish()
    }
}

impl SnapshotPool {
    /// Allocates `buffers` buffers of `bytes_per_buffer` bytes each, now.
    pub fn new(buffers: usize, bytes_per_buffer: usize) -> Result<Self, PoolError> {
        if buffers == 0 || bytes_per_buffer == 0 {
            return Err(PoolError::Empty);
        }
        let free: Vec<Vec<u8>> = (0..buffers).map(|_| vec![0u8; bytes_per_buffer]).collect();
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                free,
                allocated: buffers * bytes_per_buffer,
            }),
            returned: Condvar::new(),
        });
        let (sender, receiver) = mpsc::channel::<Job>();
        let worker = thread::Builder::new()
            .name("zkdv-snapshot-copy".to_owned())
            .spawn(move || {
                for mut job in receiver {
                    let source = (*job.source).as_ref();
                    job.buffer[..source.len()].copy_from_slice(source);
                    // The lease may be gone already (its drop waits for the
                    // event, so it is not): sending fails only then.
                    let _ = job.back.send(job.buffer);
                    job.event.complete();
                }
            })
            .map_err(|_| PoolError::CopyThreadGone)?;
        Ok(SnapshotPool {
            shared,
            bytes_per_buffer,
            buffers,
            jobs: Mutex::new(Some(sender)),
            worker: Some(worker),
        })
    }

    /// Bytes per buffer.
    pub fn bytes_per_buffer(&self) -> usize {
        self.bytes_per_buffer
    }

    /// Buffers not leased right now.
    pub fn available(&self) -> usize {
        lock(&self.shared.state).free.len()
    }

    /// Total bytes the pool has allocated (constant over its life).
    pub fn allocated_bytes(&self) -> usize {
        lock(&self.shared.state).allocated
    }

    /// Leases a buffer, blocking while every buffer is leased.
    pub fn acquire(&self) -> Lease<'_> {
        let mut state = lock(&self.shared.state);
        loop {
            if let Some(buffer) = state.free.pop() {
                return self.lease(buffer);
            }
            state = self
                .shared
                .returned
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// Leases a buffer if one is free.
    pub fn try_acquire(&self) -> Option<Lease<'_>> {
        let buffer = lock(&self.shared.state).free.pop()?;
        Some(self.lease(buffer))
    }

    fn lease(&self, buffer: Vec<u8>) -> Lease<'_> {
        Lease {
            pool: self,
            buffer: Some(buffer),
            pending: None,
            len: 0,
        }
    }
}

impl Drop for SnapshotPool {
    fn drop(&mut self) {
        // Closing the channel ends the worker after the queued copies.
        lock(&self.jobs).take();
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// One leased buffer. Dropping it returns the buffer to the pool (after any
/// pending copy into it has finished).
pub struct Lease<'p> {
    pool: &'p SnapshotPool,
    /// `None` while the buffer is with the copy thread.
    buffer: Option<Vec<u8>>,
    pending: Option<(CopyEvent, mpsc::Receiver<Vec<u8>>)>,
    len: usize,
}

impl std::fmt::Debug for Lease<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease")
            .field("len", &self.len)
            .field("pending", &self.pending.is_some())
            .finish()
    }
}

impl Lease<'_> {
    /// Queues an asynchronous copy of `source` into this buffer and returns
    /// its completion event. `source` must not be mutated until the event
    /// completes; a previous pending copy into this lease is waited for
    /// first.
    pub fn copy_from(
        &mut self,
        source: Arc<dyn AsRef<[u8]> + Send + Sync>,
    ) -> Result<CopyEvent, PoolError> {
        let len = (*source).as_ref().len();
        if len > self.pool.bytes_per_buffer {
            return Err(PoolError::TooLarge {
                len,
                capacity: self.pool.bytes_per_buffer,
            });
        }
        self.finish()?;
        let buffer = self.buffer.take().ok_or(PoolError::CopyThreadGone)?;
        let (back, receive) = mpsc::channel();
        let event = CopyEvent::new();
        let job = Job {
            source,
            buffer,
            back,
            event: event.clone(),
        };
        let jobs = lock(&self.pool.jobs);
        let sender = jobs.as_ref().ok_or(PoolError::CopyThreadGone)?;
        if let Err(mpsc::SendError(job)) = sender.send(job) {
            self.buffer = Some(job.buffer);
            return Err(PoolError::CopyThreadGone);
        }
        self.pending = Some((event.clone(), receive));
        self.len = len;
        Ok(event)
    }

    /// Waits for a pending copy and takes the buffer back.
    fn finish(&mut self) -> Result<(), PoolError> {
        if let Some((event, receive)) = self.pending.take() {
            event.wait();
            let buffer = receive.recv().map_err(|_| PoolError::CopyThreadGone)?;
            self.buffer = Some(buffer);
        }
        Ok(())
    }

    /// The snapshot bytes (the first `len` bytes of the buffer), after
    /// waiting for the pending copy.
    pub fn bytes(&mut self) -> Result<&[u8], PoolError> {
        self.finish()?;
        let len = self.len;
        self.buffer
            .as_deref()
            .map(|buffer| &buffer[..len])
            .ok_or(PoolError::CopyThreadGone)
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        // Never return a buffer a copy is still writing.
        let _ = self.finish();
        if let Some(buffer) = self.buffer.take() {
            lock(&self.pool.shared.state).free.push(buffer);
            self.pool.shared.returned.notify_one();
        } else {
            // The copy thread died with the buffer: the pool shrinks, and its
            // accounting says so.
            lock(&self.pool.shared.state).allocated -= self.pool.bytes_per_buffer;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn source(bytes: Vec<u8>) -> Arc<dyn AsRef<[u8]> + Send + Sync> {
        Arc::new(bytes)
    }

    #[test]
    fn copies_complete_and_read_back() {
        let pool = SnapshotPool::new(2, 16).unwrap();
        let mut lease = pool.acquire();
        let event = lease.copy_from(source((0..10).collect())).unwrap();
        event.wait();
        assert!(event.is_done());
        assert_eq!(lease.bytes().unwrap(), &(0..10).collect::<Vec<u8>>()[..]);
        // a second copy into the same lease replaces the first
        lease.copy_from(source(vec![7; 3])).unwrap();
        assert_eq!(lease.bytes().unwrap(), &[7, 7, 7]);
        assert!(matches!(
            lease.copy_from(source(vec![0; 17])),
            Err(PoolError::TooLarge {
                len: 17,
                capacity: 16
            })
        ));
        assert!(matches!(SnapshotPool::new(0, 8), Err(PoolError::Empty)));
        assert!(matches!(SnapshotPool::new(1, 0), Err(PoolError::Empty)));
    }

    #[test]
    fn no_buffer_is_reused_before_release() {
        let pool = SnapshotPool::new(2, 8).unwrap();
        let mut a = pool.acquire();
        let mut b = pool.acquire();
        assert!(pool.try_acquire().is_none());
        assert_eq!(pool.available(), 0);
        a.copy_from(source(vec![1; 8])).unwrap();
        b.copy_from(source(vec![2; 8])).unwrap();
        // distinct buffers: each keeps its own contents
        assert_eq!(a.bytes().unwrap(), &[1; 8]);
        assert_eq!(b.bytes().unwrap(), &[2; 8]);
        drop(a);
        assert_eq!(pool.available(), 1);
        let mut c = pool.try_acquire().unwrap();
        c.copy_from(source(vec![3; 8])).unwrap();
        assert_eq!(c.bytes().unwrap(), &[3; 8]);
        assert_eq!(b.bytes().unwrap(), &[2; 8]);
    }

    #[test]
    fn acquire_blocks_until_a_release_and_memory_stays_bounded() {
        let pool = SnapshotPool::new(1, 1024).unwrap();
        let before = pool.allocated_bytes();
        thread::scope(|scope| {
            let lease = pool.acquire();
            let waiter = scope.spawn(|| {
                let mut lease = pool.acquire();
                lease.copy_from(source(vec![9; 1024])).unwrap().wait();
                lease.bytes().unwrap()[0]
            });
            thread::sleep(Duration::from_millis(50));
            assert!(!waiter.is_finished(), "acquire must wait for the release");
            drop(lease);
            assert_eq!(waiter.join().unwrap(), 9);
        });
        for round in 0..200u8 {
            let mut lease = pool.acquire();
            lease.copy_from(source(vec![round; 1024])).unwrap();
            assert_eq!(lease.bytes().unwrap()[1023], round);
        }
        assert_eq!(pool.allocated_bytes(), before);
        assert_eq!(pool.available(), 1);
    }

    #[test]
    fn dropping_a_lease_waits_for_its_copy() {
        let pool = SnapshotPool::new(1, 1 << 20).unwrap();
        let big = source(vec![5; 1 << 20]);
        let event = {
            let mut lease = pool.acquire();
            lease.copy_from(big.clone()).unwrap()
        };
        // the lease is gone, so its copy must have finished first
        assert!(event.is_done());
        let mut again = pool.acquire();
        again.copy_from(source(vec![6; 4])).unwrap();
        assert_eq!(again.bytes().unwrap(), &[6; 4]);
    }
}

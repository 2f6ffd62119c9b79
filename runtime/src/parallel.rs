//! `interpreter.run_parallel`: runs a grid of StableHLO processes (one
//! function per replica and partition) with a rendezvous for collectives.
//!
//! `programs = [[@f00, @f01], [@f10, @f11]]` names the function of each
//! process, one row per replica and one column per partition; the op's
//! operands are the inputs of every process in row-major process order
//! (replica-major), and its results are their outputs in the same order.
//! Process `(replica, partition)` has the flat index
//! `replica * num_partitions + partition`.
//!
//! # Determinism
//!
//! Each process runs on its own thread, but only one of them evaluates ops
//! at any time: a process holds the grid's run permit while it computes and
//! gives it up only while it waits at a collective (the MLIR context is not
//! shared between threads concurrently). A collective is a [`Grid::rendezvous`]
//! keyed by the op kind, channel id and process group: each member deposits
//! its operands, and once all have, every member receives the whole map of
//! contributions indexed by process. Collective ops combine them in process
//! group order, so results do not depend on which thread ran first. A
//! rendezvous that cannot complete (a member ended without joining, or every
//! live process waits) is an error rather than a hang.
//!
//! Outside `run_parallel` the collective ops see an implicit 1x1 grid.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, RegionLike};
use zkdv_ir::{format_location, op_name};

use crate::attrs;
use crate::interpreter::PlanCache;
use crate::value::Tensor;
use crate::{Interpreter, Limits, RuntimeError};

/// The most processes one `run_parallel` may start.
pub const MAX_PROCESSES: usize = 256;
/// Stack of each process thread (the interpreter recurses on nesting).
const PROCESS_STACK: usize = 64 << 20;

/// The contributions of one completed rendezvous, by flat process index.
pub type Contributions = BTreeMap<usize, Vec<Tensor>>;

/// What a rendezvous is keyed by: op kind, channel id, process group.
type Key = (&'static str, i64, Vec<usize>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Wants the run permit.
    Ready,
    /// Holds the run permit.
    Running,
    /// Waits to deposit its contribution (the previous round of the same
    /// rendezvous is still being taken from).
    Pending,
    /// Deposited its contribution; waits for the others'.
    Waiting,
    /// Finished (or failed).
    Done,
}

#[derive(Debug, Default)]
struct Round {
    contributions: Contributions,
    result: Option<Arc<Contributions>>,
    takers: Vec<usize>,
}

#[derive(Debug)]
struct State {
    running: Option<usize>,
    status: Vec<Status>,
    rounds: HashMap<Key, Round>,
}

/// A process grid: its size, run permit and open rendezvous.
#[derive(Debug)]
pub struct Grid {
    replicas: usize,
    partitions: usize,
    /// The mesh axes of a manual computation's grid (`crate::manual`), in
    /// mesh order, with their sizes: the partitions are the devices of
    /// these axes, row-major. Empty for `interpreter.run_parallel`.
    axes: Vec<(String, usize)>,
    state: Mutex<State>,
    wake: Condvar,
}

impl Grid {
    fn new(replicas: usize, partitions: usize) -> Self {
        Self::with_axes(replicas, partitions, Vec::new())
    }

    /// A grid of one replica whose partitions are the devices of `axes`.
    pub(crate) fn of_mesh(axes: Vec<(String, usize)>) -> Self {
        let partitions = axes.iter().map(|(_, size)| size).product();
        Self::with_axes(1, partitions, axes)
    }

    fn with_axes(replicas: usize, partitions: usize, axes: Vec<(String, usize)>) -> Self {
        Grid {
            replicas,
            partitions,
            axes,
            state: Mutex::new(State {
                running: None,
                status: vec![Status::Ready; replicas * partitions],
                rounds: HashMap::new(),
            }),
            wake: Condvar::new(),
        }
    }

    /// Number of replicas.
    pub fn replicas(&self) -> usize {
        self.replicas
    }

    /// Number of partitions.
    pub fn partitions(&self) -> usize {
        self.partitions
    }

    /// The mesh axes of a manual computation's grid, in mesh order (empty
    /// for `interpreter.run_parallel`).
    pub fn axes(&self) -> &[(String, usize)] {
        &self.axes
    }

    /// Number of processes.
    pub fn len(&self) -> usize {
        self.replicas * self.partitions
    }

    /// Whether the grid has no processes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'g>(&self, guard: MutexGuard<'g, State>) -> MutexGuard<'g, State> {
        self.wake
            .wait(guard)
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn acquire_locked<'g>(&'g self, mut st: MutexGuard<'g, State>, me: usize) {
        st.status[me] = Status::Ready;
        while st.running.is_some() {
            st = self.wait(st);
        }
        st.running = Some(me);
        st.status[me] = Status::Running;
    }

    /// Takes the run permit for process `me`.
    fn acquire(&self, me: usize) {
        let st = self.lock();
        self.acquire_locked(st, me);
    }

    /// Marks `me` finished and gives up its permit.
    fn finish(&self, me: usize) {
        let mut st = self.lock();
        if let Some(status) = st.status.get_mut(me) {
            *status = Status::Done;
        }
        if st.running == Some(me) {
            st.running = None;
        }
        self.wake.notify_all();
    }

    /// Deposits `value` as process `me`'s contribution to the collective
    /// `kind` on `channel` among `group` (flat indices, `me` among them),
    /// waits for every member's, and returns them all.
    pub fn rendezvous(
        &self,
        me: usize,
        kind: &'static str,
        channel: i64,
        group: &[usize],
        value: Vec<Tensor>,
    ) -> Result<Arc<Contributions>, String> {
        let mut members: Vec<usize> = Vec::with_capacity(group.len());
        for &p in group {
            if p >= self.len() {
                return Err(format!(
                    "process {p} is outside the {}x{} grid",
                    self.replicas, self.partitions
                ));
            }
            if !members.contains(&p) {
                members.push(p);
            }
        }
        if !members.contains(&me) {
            return Err(format!("process {me} is not in the group {group:?}"));
        }
        let key: Key = (kind, channel, members.clone());
        let mut st = self.lock();
        if st.running == Some(me) {
            st.running = None;
        }
        st.status[me] = Status::Pending;
        self.wake.notify_all();
        let mut pending = Some(value);
        let outcome = loop {
            let state: &mut State = &mut st;
            // A completed round that every member took from (or ended
            // without taking from) makes way for the next one.
            let drained = state.rounds.get(&key).is_some_and(|round| {
                round.result.is_some()
                    && members
                        .iter()
                        .all(|p| round.takers.contains(p) || state.status[*p] == Status::Done)
            });
            if drained {
                state.rounds.remove(&key);
                self.wake.notify_all();
            }
            let round = state.rounds.entry(key.clone()).or_default();
            if round.result.is_none() {
                if let Some(value) = pending.take() {
                    round.contributions.insert(me, value);
                    state.status[me] = Status::Waiting;
                    if members.iter().all(|p| round.contributions.contains_key(p)) {
                        round.result = Some(Arc::new(std::mem::take(&mut round.contributions)));
                    }
                    self.wake.notify_all();
                }
            }
            if pending.is_none() {
                if let Some(result) = round.result.clone() {
                    round.takers.push(me);
                    self.wake.notify_all();
                    break Ok(result);
                }
            }
            if let Some(error) = stuck(state, &key, &members) {
                break Err(format!("{kind} on channel {channel}: {error}"));
            }
            st = self.wait(st);
        };
        self.acquire_locked(st, me);
        outcome
    }
}

/// Why the rendezvous `key` can never complete, if it cannot.
fn stuck(st: &State, key: &Key, members: &[usize]) -> Option<String> {
    if let Some(round) = st.rounds.get(key) {
        if round.result.is_none() {
            if let Some(p) = members
                .iter()
                .find(|&&p| st.status[p] == Status::Done && !round.contributions.contains_key(&p))
            {
                return Some(format!(
                    "process {p} ended without joining the collective of group {members:?}"
                ));
            }
        }
    }
    let all_waiting = st
        .status
        .iter()
        .all(|s| matches!(s, Status::Waiting | Status::Done));
    let any_complete = st.rounds.values().any(|r| r.result.is_some());
    (all_waiting && !any_complete).then(|| {
        "deadlock: every live process waits at a collective that cannot complete".to_owned()
    })
}

/// The grid and flat index of the process running on this thread.
#[derive(Debug, Clone)]
pub struct ProcessContext {
    /// Its grid.
    pub grid: Arc<Grid>,
    /// Its flat index `replica * partitions + partition`.
    pub index: usize,
}

impl ProcessContext {
    /// Replica id.
    pub fn replica(&self) -> usize {
        self.index / self.grid.partitions.max(1)
    }

    /// Partition id.
    pub fn partition(&self) -> usize {
        self.index % self.grid.partitions.max(1)
    }
}

thread_local! {
    static CURRENT: RefCell<Option<ProcessContext>> = const { RefCell::new(None) };
}

/// The process running on this thread: its `run_parallel` grid, or a fresh
/// 1x1 grid (holding the permit) outside one.
pub fn current() -> ProcessContext {
    CURRENT
        .with(|current| current.borrow().clone())
        .unwrap_or_else(|| {
            let grid = Grid::new(1, 1);
            grid.acquire(0);
            ProcessContext {
                grid: Arc::new(grid),
                index: 0,
            }
        })
}

/// Whether this thread runs a process of a grid (inside `run_parallel` or a
/// manual computation).
pub fn in_grid() -> bool {
    CURRENT.with(|current| current.borrow().is_some())
}

/// A process's [`Work`] moved to its thread. Only the holder of the grid's
/// run permit touches the IR or a shared plan cache (the spawning thread
/// waits meanwhile), so neither is accessed from two threads at once.
struct SendWork<'c, 'a, 'p>(Work<'c, 'a, 'p>);

// SAFETY: see the type's documentation: accesses are serialized by the
// grid's mutex (which orders them), never concurrent.
unsafe impl Send for SendWork<'_, '_, '_> {}

impl<'c, 'a, 'p> SendWork<'c, 'a, 'p> {
    fn into_inner(self) -> Work<'c, 'a, 'p> {
        self.0
    }
}

/// Marks a process finished however its thread ends.
struct Finish<'g>(&'g Grid, usize);

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.0.finish(self.1);
    }
}

/// What one process runs: a function, or the body of an op (a manual
/// computation's region, which sees no values from outside it).
pub(crate) enum Work<'c, 'a, 'p> {
    /// A `func.func`.
    Function(OperationRef<'c, 'a>),
    /// The entry block of region 0 of this op, planned in the spawning
    /// run's cache (shared by the processes, which never evaluate ops at
    /// the same time, and kept for the next run of the program) and
    /// bounded by its limits.
    Body(OperationRef<'c, 'a>, &'p PlanCache, Limits),
}

fn process_main(
    grid: Arc<Grid>,
    index: usize,
    work: Work<'_, '_, '_>,
    inputs: Vec<Tensor>,
) -> Result<Vec<Tensor>, RuntimeError> {
    let _finish = Finish(&grid, index);
    grid.acquire(index);
    let previous = CURRENT.with(|current| {
        current.borrow_mut().replace(ProcessContext {
            grid: Arc::clone(&grid),
            index,
        })
    });
    let result = match work {
        Work::Function(func) => Interpreter.run_with(func, inputs, &mut |_, _| None),
        Work::Body(owner, cache, limits) => Interpreter.run_body(owner, inputs, cache, limits),
    };
    CURRENT.with(|current| *current.borrow_mut() = previous);
    result
}

/// Reads `[[@a, @b], [@c, @d]]`.
fn parse_programs(text: &str) -> Option<Vec<Vec<String>>> {
    let mut rest = text.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    let mut rows = Vec::new();
    while !rest.is_empty() {
        let row = rest.strip_prefix('[')?;
        let end = row.find(']')?;
        let names = row[..end]
            .split(',')
            .map(|s| {
                s.trim()
                    .strip_prefix('@')
                    .map(|s| s.trim_matches('"').to_owned())
                    .filter(|s| !s.is_empty())
            })
            .collect::<Option<Vec<_>>>()?;
        rows.push(names);
        rest = row[end + 1..].trim_start();
        if let Some(next) = rest.strip_prefix(',') {
            rest = next.trim_start();
        }
    }
    Some(rows)
}

/// Runs `interpreter.run_parallel` (see the module documentation);
/// `lookup` finds a function of the module by symbol.
pub(crate) fn run_parallel<'c, 'a>(
    op: &OperationRef<'c, 'a>,
    operands: &[&Tensor],
    lookup: &dyn Fn(&str) -> Result<OperationRef<'c, 'a>, RuntimeError>,
) -> Result<Vec<Tensor>, RuntimeError> {
    let malformed = |message: String| RuntimeError::Malformed {
        op: op_name(op),
        location: format_location(op.location()),
        message,
    };
    for unsupported in ["infeed", "outfeed"] {
        if attrs::has(op, unsupported) {
            return Err(RuntimeError::Unsupported {
                op: format!("interpreter.run_parallel with {unsupported}"),
                location: format_location(op.location()),
            });
        }
    }
    let text = attrs::text(op, "programs").map_err(|e| RuntimeError::from_value(op, e))?;
    let programs =
        parse_programs(&text).ok_or_else(|| malformed(format!("malformed programs `{text}`")))?;
    let replicas = programs.len();
    let partitions = programs.first().map_or(0, Vec::len);
    if replicas == 0 || partitions == 0 || programs.iter().any(|row| row.len() != partitions) {
        return Err(malformed(format!(
            "programs `{text}` is not a non-empty rectangular grid"
        )));
    }
    if replicas * partitions > MAX_PROCESSES {
        return Err(malformed(format!(
            "{} processes exceed the limit of {MAX_PROCESSES}",
            replicas * partitions
        )));
    }
    // The function and inputs of each process, row-major.
    let mut work = Vec::with_capacity(replicas * partitions);
    let mut next = 0usize;
    for name in programs.iter().flatten() {
        let func = lookup(name)?;
        let count = func
            .region(0)
            .ok()
            .and_then(|region| region.first_block())
            .map(|block| block.argument_count())
            .ok_or_else(|| malformed(format!("@{name} has no body")))?;
        let inputs = operands
            .get(next..next + count)
            .ok_or_else(|| {
                malformed(format!(
                    "{} operands are too few for the programs' arguments",
                    operands.len()
                ))
            })?
            .iter()
            .map(|t| (*t).clone())
            .collect::<Vec<_>>();
        next += count;
        work.push((Work::Function(func), inputs));
    }
    if next != operands.len() {
        return Err(malformed(format!(
            "{} operands given, the programs take {next}",
            operands.len()
        )));
    }
    let grid = Arc::new(Grid::new(replicas, partitions));
    let outcomes = run_processes(&grid, work, &malformed)?;
    Ok(outcomes.into_iter().flatten().collect())
}

/// Runs `work[i]` with its inputs as process `i` of `grid`, each on its own
/// thread, and returns each process's outputs in process order; the first
/// failing process, in process order, decides the error. `malformed` makes
/// the error of a process that panicked or could not start.
pub(crate) fn run_processes<'c, 'a, 'p>(
    grid: &Arc<Grid>,
    work: Vec<(Work<'c, 'a, 'p>, Vec<Tensor>)>,
    malformed: &dyn Fn(String) -> RuntimeError,
) -> Result<Vec<Vec<Tensor>>, RuntimeError> {
    let work: Vec<_> = work
        .into_iter()
        .map(|(work, inputs)| (SendWork(work), inputs))
        .collect();
    // Processes round as the run that starts them (an ensemble member's
    // perturbations apply inside a manual computation's body too).
    let rounding = crate::rounding::state();
    let outcomes: Vec<Result<Vec<Tensor>, RuntimeError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = work
            .into_iter()
            .enumerate()
            .map(|(index, (work, inputs))| {
                let grid_for_thread = Arc::clone(grid);
                let spawned = std::thread::Builder::new()
                    .name(format!("zkdv-process-{index}"))
                    .stack_size(PROCESS_STACK)
                    .spawn_scoped(scope, move || {
                        crate::rounding::with_state_of(rounding, || {
                            process_main(grid_for_thread, index, work.into_inner(), inputs)
                        })
                    });
                if spawned.is_err() {
                    grid.finish(index);
                }
                spawned
            })
            .collect();
        handles
            .into_iter()
            .enumerate()
            .map(|(index, handle)| match handle {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|_| Err(malformed(format!("process {index} panicked")))),
                Err(error) => Err(malformed(format!("cannot start process {index}: {error}"))),
            })
            .collect()
    });
    outcomes.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Data, ElementType};

    fn scalar(v: i64) -> Tensor {
        Tensor::new(ElementType::Signed(64), vec![], Data::Signed(vec![v])).unwrap()
    }

    #[test]
    fn programs_parse() {
        assert_eq!(
            parse_programs("[[@a, @b], [@c, @\"d\"]]").unwrap(),
            vec![vec!["a", "b"], vec!["c", "d"]]
        );
        assert_eq!(parse_programs("[[@a]]").unwrap(), vec![vec!["a"]]);
        assert!(parse_programs("[[a]]").is_none());
        assert!(parse_programs("[[]]").is_none());
        assert!(parse_programs("[[@a]").is_none());
    }

    #[test]
    fn rendezvous_is_deterministic_and_detects_deadlock() {
        for _ in 0..20 {
            let grid = Arc::new(Grid::new(3, 1));
            let sums: Vec<i64> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..3)
                    .map(|me| {
                        let grid = Arc::clone(&grid);
                        scope.spawn(move || {
                            let _finish = Finish(&grid, me);
                            grid.acquire(me);
                            let mut order = Vec::new();
                            for round in 0..3 {
                                let all = grid
                                    .rendezvous(
                                        me,
                                        "t",
                                        0,
                                        &[2, 0, 1],
                                        vec![scalar(me as i64 + round)],
                                    )
                                    .unwrap();
                                order.extend(all.keys().copied());
                            }
                            assert_eq!(order, [0, 1, 2, 0, 1, 2, 0, 1, 2]);
                            me as i64
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            assert_eq!(sums, [0, 1, 2]);
        }
        // Process 1 never joins: process 0 gets an error, not a hang.
        let grid = Arc::new(Grid::new(2, 1));
        let errors: Vec<bool> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..2)
                .map(|me| {
                    let grid = Arc::clone(&grid);
                    scope.spawn(move || {
                        let _finish = Finish(&grid, me);
                        grid.acquire(me);
                        if me == 1 {
                            return false;
                        }
                        grid.rendezvous(me, "t", 0, &[0, 1], vec![]).is_err()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(errors, [true, false]);
        let context = current();
        assert_eq!((context.replica(), context.partition()), (0, 0));
        let single = context
            .grid
            .rendezvous(0, "t", 0, &[0], vec![scalar(5)])
            .unwrap();
        assert_eq!(single[&0], vec![scalar(5)]);
        assert!(context.grid.rendezvous(0, "t", 0, &[1], vec![]).is_err());
    }
}

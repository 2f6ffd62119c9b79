//! Where a run's time goes, op kind by op kind.
//!
//! While profiling is on ([`set_enabled`]), the interpreter times every op
//! it evaluates and adds, under the op's name, one to its count, its own
//! time (the op's time less that of the ops its regions ran, so that a
//! `while` or `if` is not counted twice) and the elements of its results.
//! Each thread keeps its totals to itself and adds them to the process's
//! when a run ends; [`take`] returns those and starts them again. Off, the
//! interpreter pays one relaxed atomic load per op.
//!
//! The profile only observes: no op runs differently, and results are the
//! same bits with it on or off.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

static ENABLED: AtomicBool = AtomicBool::new(false);
static TOTALS: Mutex<Option<HashMap<String, OpTime>>> = Mutex::new(None);

thread_local! {
    /// This thread's totals since its last run ended.
    static LOCAL: RefCell<HashMap<String, OpTime>> = RefCell::new(HashMap::new());
    /// For each op being timed on this thread, innermost last: the time its
    /// regions' ops took, in nanoseconds.
    static NESTED: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// The totals of one op kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpTime {
    /// Ops of this kind evaluated.
    pub count: u64,
    /// Their own time, in nanoseconds (without their regions' ops).
    pub nanos: u64,
    /// Elements of their results.
    pub elements: u64,
}

/// Turns profiling on or off for every run that starts afterwards.
pub fn set_enabled(enabled: bool) {
    ENABLED.store(enabled, Ordering::Relaxed);
}

/// Whether profiling is on.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// The totals of the runs that ended since the last call, by op name,
/// slowest first; they start again from nothing.
pub fn take() -> Vec<(String, OpTime)> {
    let totals = TOTALS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
        .unwrap_or_default();
    let mut ops: Vec<(String, OpTime)> = totals.into_iter().collect();
    ops.sort_by(|a, b| b.1.nanos.cmp(&a.1.nanos).then_with(|| a.0.cmp(&b.0)));
    ops
}

/// An op being timed: made by [`start`] before the op runs, closed by
/// [`Timer::stop`] after.
#[derive(Debug)]
pub(crate) struct Timer(Instant);

/// Starts timing an op, when profiling is on.
pub(crate) fn start() -> Option<Timer> {
    if !enabled() {
        return None;
    }
    NESTED.with(|nested| nested.borrow_mut().push(0));
    Some(Timer(Instant::now()))
}

impl Timer {
    /// Adds the op's own time and `elements` to `name`'s totals on this
    /// thread, and its whole time to the enclosing op's regions.
    pub(crate) fn stop(self, name: &str, elements: u64) {
        let whole = u64::try_from(self.0.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let inner = NESTED.with(|nested| {
            let mut nested = nested.borrow_mut();
            let inner = nested.pop().unwrap_or(0);
            if let Some(parent) = nested.last_mut() {
                *parent = parent.saturating_add(whole);
            }
            inner
        });
        LOCAL.with(|local| {
            let mut local = local.borrow_mut();
            let entry = match local.get_mut(name) {
                Some(entry) => entry,
                None => local.entry(name.to_owned()).or_default(),
            };
            entry.count += 1;
            entry.nanos = entry.nanos.saturating_add(whole.saturating_sub(inner));
            entry.elements = entry.elements.saturating_add(elements);
        });
    }
}

/// Adds this thread's totals to the process's (at the end of a run; a run
/// that failed may have left ops it was timing, which are dropped).
pub(crate) fn flush() {
    NESTED.with(|nested| nested.borrow_mut().clear());
    let local = LOCAL.with(|local| std::mem::take(&mut *local.borrow_mut()));
    if local.is_empty() {
        return;
    }
    let mut totals = TOTALS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let totals = totals.get_or_insert_with(HashMap::new);
    for (name, time) in local {
        let entry = totals.entry(name).or_default();
        entry.count += time.count;
        entry.nanos = entry.nanos.saturating_add(time.nanos);
        entry.elements = entry.elements.saturating_add(time.elements);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_op_is_timed_without_the_ops_its_regions_ran() {
        // Nothing else in this test binary enables profiling while it runs.
        set_enabled(true);
        let outer = start().expect("profiling is on");
        let inner = start().expect("profiling is on");
        std::thread::sleep(std::time::Duration::from_millis(20));
        inner.stop("inner", 3);
        outer.stop("outer", 5);
        flush();
        set_enabled(false);
        assert!(start().is_none());
        let ops: HashMap<String, OpTime> = take().into_iter().collect();
        let (outer, inner) = (ops["outer"], ops["inner"]);
        assert_eq!((inner.count, inner.elements), (1, 3));
        assert_eq!((outer.count, outer.elements), (1, 5));
        assert!(inner.nanos >= 20_000_000, "{inner:?}");
        assert!(outer.nanos < inner.nanos / 2, "{outer:?} {inner:?}");
        assert!(take().is_empty(), "taken once");
    }
}

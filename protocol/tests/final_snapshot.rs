//! The final snapshot: the state after the last step, off the snapshot
//! interval, which only the close record may follow.

mod common;

use common::*;
use zkdv_protocol::*;

fn step(writer: &mut Writer, program: u64, step: u64) -> Result<StepReceipt> {
    let state = |s: u64| Hash32::of(&[s as u8]);
    fixture_step(writer, program, step, state(step), state(step + 1))
}

fn snapshot(step: u64) -> SnapshotBody {
    SnapshotBody {
        step,
        state: Hash32::of(&[step as u8, 7]),
        params: Some(Hash32::of(&[step as u8, 8])),
        artifact: None,
    }
}

#[test]
fn a_snapshot_off_the_interval_is_the_last_state_and_no_step_may_follow_it() -> Result<()> {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut writer = Writer::create(dir.path(), root_input(), fixed_options(false))?;
    let program = fixture_program(&mut writer)?;
    writer.append_snapshot(snapshot(0))?;
    step(&mut writer, program, 0)?;
    step(&mut writer, program, 1)?;
    // Off the interval of 4, before its step: refused.
    let early = writer.append_snapshot(snapshot(1)).unwrap_err();
    assert!(
        early.to_string().contains("off the snapshot interval"),
        "{early}"
    );
    // The state after the last step (step 2 was never run): the final snapshot.
    writer.append_snapshot(snapshot(2))?;
    let after = step(&mut writer, program, 2).unwrap_err();
    assert!(
        after.to_string().contains("follows the final snapshot"),
        "{after}"
    );
    Ok(())
}

//! Arbitrary bytes through the transcript reader and verifier: any outcome
//! but a panic, a hang or an unbounded allocation is fine.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for record in zkdv_protocol::Reader::new(data) {
        if record.is_err() {
            break;
        }
    }
    let _ = zkdv_protocol::verify_reader(data, None);
});

//! Transitional: the driver's former interface, `(pass, option text)` pairs,
//! kept while `zkdv-opt` moves to [`crate::driver`]. Removed with that move.

use crate::{
    driver::{self, Step},
    registry::PassInfo,
};

/// Runs `(pass, option text)` pairs through [`driver::run_steps`].
pub fn run_steps(
    text: &str,
    source_name: &str,
    steps: &[(&'static PassInfo, String)],
    debug_info: bool,
    on_report: &mut dyn FnMut(&str),
) -> Result<String, String> {
    let steps = steps
        .iter()
        .map(|(pass, options)| {
            Ok(Step {
                pass,
                options: pass.parse_options(options)?,
            })
        })
        .collect::<Result<Vec<_>, crate::options::OptionError>>()
        .map_err(|error| error.to_string())?;
    driver::run_steps(text, source_name, &steps, debug_info, on_report)
        .map_err(|error| error.to_string())
}

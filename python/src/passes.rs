//! `zkdv.passes`: the compiler passes and pipelines of crate `zkdv-passes`
//! on module text, as `zkdv-opt` runs them.

use pyo3::prelude::*;

use zkdv_protocol as protocol;

use zkdv_passes::{driver, options::OptionValues, pipelines::PIPELINES};

use crate::{to_py, value_error};

/// The named pipelines: `[{"name", "summary", "options", "stages"}]`, with
/// each option's usage line and the stages the defaults expand into (as
/// `zkdv-opt --help` lists them).
#[pyfunction]
fn pipelines(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    #[derive(serde::Serialize)]
    struct Entry {
        name: &'static str,
        summary: &'static str,
        options: Vec<String>,
        stages: String,
    }
    let entries: Vec<Entry> = PIPELINES
        .iter()
        .map(|pipeline| Entry {
            name: pipeline.flag,
            summary: pipeline.summary,
            options: pipeline.options.iter().map(|o| o.usage()).collect(),
            stages: pipeline.describe(&OptionValues::defaults(pipeline.options)),
        })
        .collect();
    to_py(py, &entries)
}

/// Run `zkdv-opt` passes and pipelines on module text (generic form):
/// `passes` are `"zkdv-slice-update=output=attested"` or
/// `"zkdv-attested-pipeline"`-style items, run in order. Returns
/// the printed module and the passes' reports (cost tables, warnings);
/// raises `ValueError` with the diagnostics on failure.
#[pyfunction]
#[pyo3(signature = (text, passes, source_name = "<input>"))]
fn run_passes(
    py: Python<'_>,
    text: &str,
    passes: Vec<String>,
    source_name: &str,
) -> PyResult<(String, Vec<String>)> {
    let steps = driver::parse_steps(&passes).map_err(value_error)?;
    py.detach(|| {
        let mut reports = Vec::new();
        driver::run_steps(text, source_name, &steps, false, &mut |r| {
            reports.push(r.to_owned())
        })
        .map(|module| (module, reports))
    })
    .map_err(value_error)
}

/// The precision summary of a module (`--zkdv-precision-report`):
/// `{"narrowest": str | None, "narrow_results": int}`, the program record's
/// `precision` field.
#[pyfunction]
#[pyo3(signature = (text, source_name = "<input>"))]
fn precision<'py>(py: Python<'py>, text: &str, source_name: &str) -> PyResult<Bound<'py, PyAny>> {
    let found = py
        .detach(|| {
            let context = zkdv_passes::IrContext::new();
            let module = context
                .parse(text, source_name)
                .map_err(|error| error.to_string())?;
            let p = zkdv_passes::precision_report::analyse(&module);
            Ok::<_, String>(protocol::Precision {
                narrowest: p.narrowest,
                narrow_results: p.narrow_results,
            })
        })
        .map_err(value_error)?;
    to_py(py, &found)
}

/// Adds this module's functions to `_native`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_passes, m)?)?;
    m.add_function(wrap_pyfunction!(pipelines, m)?)?;
    m.add_function(wrap_pyfunction!(precision, m)?)?;
    Ok(())
}

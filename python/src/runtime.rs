//! `zkdv.runtime`: attested programs run in the replay runtime of crate
//! `zkdv-runtime` (CPU interpreter), on numpy inputs read in place.

use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::{arrays::InputGuard, value_error};

create_exception!(
    _native,
    RuntimeError,
    PyException,
    "The replay runtime could not run a program (unsupported op, bad input)."
);

/// A program's mutex, carried into the GIL-free part of a call, where it is
/// locked. Locking it while holding the GIL would deadlock: a thread that
/// holds the lock must take the GIL back when its run ends, while another
/// thread, holding the GIL, waits for the lock.
struct Exclusive<'a>(&'a std::sync::Mutex<zkdv_runtime::Program>);

// SAFETY: `py.detach` runs its closure on the calling thread (it only
// releases the GIL), and the program is only touched through the mutex, so
// no two threads use it at once.
unsafe impl Send for Exclusive<'_> {}

impl<'a> Exclusive<'a> {
    /// The mutex (taking `self` whole, so a closure captures the wrapper, not
    /// its field).
    fn into_inner(self) -> &'a std::sync::Mutex<zkdv_runtime::Program> {
        self.0
    }
}

/// A generic-form StableHLO program parsed once and run by the runtime's
/// deterministic CPU interpreter.
#[pyclass(frozen, module = "zkdv._native")]
struct Program {
    inner: std::sync::Mutex<zkdv_runtime::Program>,
}

#[pymethods]
impl Program {
    /// Parse `text` and select function `func` (default `main`).
    #[new]
    #[pyo3(signature = (text, func = "main", source_name = "<program>"))]
    fn new(py: Python<'_>, text: &str, func: &str, source_name: &str) -> PyResult<Self> {
        let program = py
            .detach(|| zkdv_runtime::Program::parse(text, source_name, func))
            .map_err(|e| RuntimeError::new_err(e.to_string()))?;
        Ok(Program {
            inner: std::sync::Mutex::new(program),
        })
    }

    /// `(dtype tag, shape)` of each argument.
    #[getter]
    fn arguments(&self, py: Python<'_>) -> PyResult<Vec<(String, Vec<usize>)>> {
        // Locked without the GIL, as in `run` (see `Exclusive`).
        let exclusive = Exclusive(&self.inner);
        py.detach(move || -> Result<Vec<(String, Vec<usize>)>, String> {
            let program = exclusive
                .into_inner()
                .lock()
                .map_err(|_| "the program was poisoned by a panic".to_owned())?;
            program
                .arguments()
                .iter()
                .map(|ty| {
                    let dtype = ty.element.dtype().map_err(|e| e.to_string())?;
                    Ok((dtype.tag().to_owned(), ty.shape.clone()))
                })
                .collect()
        })
        .map_err(RuntimeError::new_err)
    }

    /// Run on `inputs`, each a C-contiguous native-endian numpy array of
    /// float32, float64, int32, int64, uint32, uint64 or bool (read in place
    /// with the GIL released), or any dtype as `(dtype tag, shape, flat
    /// uint8 view)`. Returns one result each, a numpy array for those types
    /// (handed over without a copy where the interpreter already holds that
    /// element type) and otherwise `(tag, shape, bytes)`. `max_ops` and
    /// `max_elements` bound the run (ops evaluated, elements of any one
    /// result); unbounded by default. `ensemble`, when given, runs member
    /// `m` of the perturbation ensemble (`zkdv_runtime::rounding`): float
    /// inputs moved by an ulp, `f16`/`bf16` results rounded in the member's
    /// mode; by default the program runs as written. `matmul` is the
    /// precision production gave `f32` products that are not `HIGHEST`
    /// (`"f32"`, the default, or `"tf32"`): a member rounds their operands
    /// to it (`zkdv_runtime::rounding::Matmul`).
    #[pyo3(signature = (inputs, max_ops = None, max_elements = None, ensemble = None, matmul = None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        inputs: Vec<Bound<'py, PyAny>>,
        max_ops: Option<u64>,
        max_elements: Option<usize>,
        ensemble: Option<u64>,
        matmul: Option<&str>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let matmul = match matmul {
            None | Some("f32") => zkdv_runtime::rounding::Matmul::F32,
            Some("tf32") => zkdv_runtime::rounding::Matmul::Tf32,
            Some(other) => {
                return Err(value_error(format!(
                    "matmul must be \"f32\" or \"tf32\", got {other:?}"
                )))
            }
        };
        let mut limits = zkdv_runtime::Limits::default();
        if let Some(ops) = max_ops {
            limits.max_ops = ops;
        }
        if let Some(elements) = max_elements {
            limits.max_elements = elements;
        }
        let guards = inputs
            .iter()
            .enumerate()
            .map(|(index, input)| {
                InputGuard::extract(input).map_err(|e| value_error(format!("input {index}: {e}")))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let views = guards
            .iter()
            .enumerate()
            .map(|(index, guard)| {
                guard
                    .view()
                    .map_err(|e| value_error(format!("input {index}: {e}")))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let exclusive = Exclusive(&self.inner);
        let outputs = py.detach(move || -> Result<Vec<zkdv_runtime::Tensor>, String> {
            let program = exclusive
                .into_inner()
                .lock()
                .map_err(|_| "the program was poisoned by a panic".to_owned())?;
            let mut tensors = views
                .into_iter()
                .enumerate()
                .map(|(index, view)| view.tensor().map_err(|e| format!("input {index}: {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            if let Some(member) = ensemble {
                zkdv_runtime::rounding::perturb_inputs(member, &mut tensors);
            }
            let outputs = zkdv_runtime::rounding::with_matmul(matmul, || match ensemble {
                Some(member) => zkdv_runtime::rounding::with_member(member, || {
                    program.run_limited(tensors, limits)
                }),
                None => program.run_limited(tensors, limits),
            });
            // What the run freed goes back now: the run itself reused it
            // (crate::allocator::PURGE_DELAY_MS), and the caller's next
            // steps (numpy's comparisons of a check) should find it free.
            crate::allocator::give_back_freed_memory();
            outputs.map_err(|e| e.to_string())
        });
        let outputs = outputs.map_err(RuntimeError::new_err)?;
        outputs
            .into_iter()
            .map(|tensor| tensor_to_python(py, tensor))
            .collect()
    }
}

/// A result as a numpy array (the interpreter's buffer itself for f32, f64,
/// i64, u64 and bool; a narrowing copy for i32 and u32), or as `(tag,
/// shape, bytes)` for the other types.
fn tensor_to_python(py: Python<'_>, tensor: zkdv_runtime::Tensor) -> PyResult<Bound<'_, PyAny>> {
    use zkdv_runtime::{Data, ElementType, Tensor};
    fn shaped<'py, T: numpy::Element>(
        py: Python<'py>,
        values: Vec<T>,
        shape: Vec<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // One array object over the buffer, already in its shape.
        let array = numpy::ndarray::ArrayD::from_shape_vec(shape, values)
            .map_err(|e| RuntimeError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py).into_any())
    }
    let Tensor {
        element,
        shape,
        data,
    } = tensor;
    match (element, data) {
        (ElementType::F32, Data::F32(v)) => shaped(py, v, shape),
        (ElementType::F64, Data::F64(v)) => shaped(py, v, shape),
        (ElementType::I1, Data::Bool(v)) => shaped(py, v, shape),
        (ElementType::Signed(64), Data::Signed(v)) => shaped(py, v, shape),
        (ElementType::Unsigned(64), Data::Unsigned(v)) => shaped(py, v, shape),
        // Held widened; the values fit the type's width.
        (ElementType::Signed(32), Data::Signed(v)) => {
            shaped(py, v.into_iter().map(|x| x as i32).collect(), shape)
        }
        (ElementType::Unsigned(32), Data::Unsigned(v)) => {
            shaped(py, v.into_iter().map(|x| x as u32).collect(), shape)
        }
        (element, data) => {
            let host = Tensor {
                element,
                shape,
                data,
            }
            .to_host()
            .map_err(|e| RuntimeError::new_err(e.to_string()))?;
            let parts = (
                host.dtype().tag().to_owned(),
                host.shape().to_vec(),
                PyBytes::new(py, host.bytes()),
            );
            Ok(parts.into_pyobject(py)?.into_any())
        }
    }
}

/// Turn the runtime's op profile on or off (`zkdv_runtime::profile`).
#[pyfunction]
fn set_runtime_profiling(enabled: bool) {
    zkdv_runtime::profile::set_enabled(enabled);
}

/// The op profile of the runs that ended since the last call, slowest op
/// kind first: `(op name, count, own seconds, result elements)` each.
#[pyfunction]
fn take_runtime_profile() -> Vec<(String, u64, f64, u64)> {
    zkdv_runtime::profile::take()
        .into_iter()
        .map(|(name, time)| (name, time.count, time.nanos as f64 * 1e-9, time.elements))
        .collect()
}

/// Adds this module's classes to `_native`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("RuntimeError", py.get_type::<RuntimeError>())?;
    m.add_class::<Program>()?;
    m.add_function(wrap_pyfunction!(set_runtime_profiling, m)?)?;
    m.add_function(wrap_pyfunction!(take_runtime_profile, m)?)?;
    Ok(())
}

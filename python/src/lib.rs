//! `rust_gpu_kernels._native`: the Python package's native module, a thin layer over the
//! `host` library (the same kernels, embedded machine code and run-time driver loading as the
//! `host` binary, so it imports where there is no GPU or CUDA). The Python code in
//! `rust_gpu_kernels/` validates arguments with NumPy and calls these functions with raw
//! addresses of arrays it keeps alive; nothing here is public API.
//!
//! Errors become Python exceptions carrying the library's one sentence: bad input →
//! `ValueError`, no GPU → `NoGpuError`, a failure on the GPU → `GpuError`.
mod apsp;
mod fence;
mod gemm;

use std::{cell::RefCell, rc::Rc};

use host::{Error, Gpu};
use pyo3::{
    create_exception,
    exceptions::{PyRuntimeError, PyValueError},
    prelude::*,
};

create_exception!(
    _native,
    NoGpuError,
    PyRuntimeError,
    "No usable GPU: no NVIDIA driver, no CUDA device, or one the kernels cannot run on."
);
create_exception!(
    _native,
    GpuError,
    PyRuntimeError,
    "The GPU or its driver failed while working (out of memory, a launch error, ...)."
);

/// The library's error as a Python exception.
pub(crate) fn to_py(e: Error) -> PyErr {
    match e {
        Error::NoGpu(e) => NoGpuError::new_err(e.to_string()),
        Error::BadInput(msg) => PyValueError::new_err(msg),
        e @ Error::Gpu(_) => GpuError::new_err(e.to_string()),
    }
}

/// Where a call may run: the `device` argument of the Python functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Device {
    /// The GPU if there is one, else the CPU (the Python side warns).
    Auto,
    /// The GPU or `NoGpuError`.
    Gpu,
    /// The CPU reference.
    Cpu,
}

impl Device {
    pub(crate) fn parse(s: &str) -> PyResult<Device> {
        match s {
            "auto" => Ok(Device::Auto),
            "gpu" | "cuda" => Ok(Device::Gpu),
            "cpu" => Ok(Device::Cpu),
            other => Err(PyValueError::new_err(format!(
                "device must be 'auto', 'gpu' or 'cpu', not {other:?}"
            ))),
        }
    }
}

thread_local! {
    /// This thread's GPU, opened on first use and kept (loading its modules is the slow part).
    /// A `Gpu` belongs to the thread that made it; its context is the device's primary one,
    /// which PyTorch and CuPy use too, so their device pointers are valid in it.
    static GPU: RefCell<Option<Rc<Gpu>>> = const { RefCell::new(None) };
}

/// This thread's GPU (device 0), or why there is none.
pub(crate) fn gpu() -> host::Result<Rc<Gpu>> {
    GPU.with(|cell| {
        if let Some(g) = cell.borrow().as_ref() {
            g.make_current().map_err(Error::from)?;
            return Ok(g.clone());
        }
        let g = Rc::new(Gpu::new(None)?);
        *cell.borrow_mut() = Some(g.clone());
        Ok(g)
    })
}

/// The GPU to run on under `device`: `Ok(None)` means the CPU, with the reason in `why`
/// (`Auto` without a GPU).
pub(crate) fn pick(device: Device, why: &mut Option<String>) -> host::Result<Option<Rc<Gpu>>> {
    match device {
        Device::Cpu => Ok(None),
        Device::Gpu => gpu().map(Some),
        Device::Auto => match gpu() {
            Ok(g) => Ok(Some(g)),
            Err(Error::NoGpu(e)) => {
                *why = Some(e.to_string());
                Ok(None)
            }
            Err(e) => Err(e),
        },
    }
}

/// The GPU's name, or `NoGpuError` saying why there is none.
#[pyfunction]
fn device_name(py: Python<'_>) -> PyResult<String> {
    py.detach(|| {
        let g = gpu()?;
        g.device.name().map_err(Error::from)
    })
    .map_err(to_py)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("NoGpuError", py.get_type::<NoGpuError>())?;
    m.add("GpuError", py.get_type::<GpuError>())?;
    m.add_function(wrap_pyfunction!(device_name, m)?)?;
    apsp::register(m)?;
    gemm::register(m)?;
    Ok(())
}

//! All-pairs shortest paths: the float Floyd–Warshall behind `floyd_warshall`, the predecessor
//! matrix, and the int32 solver behind `apsp` and `apsp_file`.
use std::path::PathBuf;

use host::{
    Error,
    apsp::{
        float::{GpuWeight, solve_dense},
        float_pred,
        gpu::DEFAULT_BLOCK,
        pipeline::solve_file,
    },
};
use pyo3::{
    exceptions::{PyOSError, PyValueError},
    prelude::*,
};
use rgk_core::{
    apsp::{
        format::{Edge, Graph},
        solve_cpu,
    },
    minplus::{self, Csr},
};

use crate::{Device, pick, to_py};

/// The weight types of the float solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dtype {
    F32,
    F64,
}

fn dtype(s: &str) -> PyResult<Dtype> {
    match s {
        "float32" => Ok(Dtype::F32),
        "float64" => Ok(Dtype::F64),
        other => Err(PyValueError::new_err(format!(
            "dtype must be float32 or float64, not {other}"
        ))),
    }
}

/// What `solve_float` reports: where it ran, why not on the GPU, the vertices on a negative
/// cycle, the GPU compute time in seconds (0 on the CPU), and whether the GPU ran the
/// `nonneg` kernels (the matrix had no negative value, or a large signed float32 one was
/// reweighted to have none; their ceiling is `float_peak(..., nonneg=True)`).
type SolveReport = (&'static str, Option<String>, Vec<usize>, f64, bool);

fn solve<W: host::apsp::float::GpuWeight>(
    d: &mut [W],
    n: usize,
    device: Device,
) -> host::Result<SolveReport> {
    let mut why = None;
    match pick(device, &mut why)? {
        Some(gpu) => {
            let sol = solve_dense(&gpu, d, n)?;
            Ok((
                "gpu",
                None,
                sol.negative_cycle,
                sol.times.compute_s,
                sol.nonneg,
            ))
        }
        None => Ok(("cpu", why, minplus::floyd_warshall(d, n), 0.0, false)),
    }
}

/// Floyd–Warshall in place on the C-contiguous `n x n` array of `dtype` at address `ptr`
/// (`+inf` = no edge, diagonal set by the caller).
///
/// The caller (rust_gpu_kernels._apsp) passes the address of a live, writable, C-contiguous
/// NumPy array of exactly `n * n` elements of `dtype`, which it keeps alive and does not touch
/// during the call.
#[pyfunction]
fn solve_float(
    py: Python<'_>,
    ptr: usize,
    n: usize,
    dtype: &str,
    device: &str,
) -> PyResult<SolveReport> {
    let (dt, device) = (self::dtype(dtype)?, Device::parse(device)?);
    py.detach(move || match dt {
        // SAFETY: `ptr` is a live, writable, C-contiguous array of n * n elements of this
        // type that nothing else accesses during the call (the function's contract above).
        Dtype::F32 => solve(
            unsafe { std::slice::from_raw_parts_mut(ptr as *mut f32, n * n) },
            n,
            device,
        ),
        // SAFETY: as above, f64.
        Dtype::F64 => solve(
            unsafe { std::slice::from_raw_parts_mut(ptr as *mut f64, n * n) },
            n,
            device,
        ),
    })
    .map_err(to_py)
}

/// The predecessors of [`predecessors`] on the GPU when there is one (`device` as
/// `solve_float` takes it), else on the CPU; where they ran.
///
/// # Safety
/// The addresses are live arrays of the lengths [`predecessors`] states.
unsafe fn preds<W: GpuWeight>(
    dist: usize,
    n: usize,
    csr: [usize; 3],
    nnz: usize,
    out: usize,
    device: Device,
) -> host::Result<&'static str> {
    // SAFETY: the caller's contract: `dist` holds n * n values of W, `csr` n + 1 i64 row
    // pointers, nnz i32 columns and nnz values of W, `out` n * n writable i32, not aliased.
    let (d, g, pred) = unsafe {
        (
            std::slice::from_raw_parts(dist as *const W, n * n),
            Csr {
                indptr: std::slice::from_raw_parts(csr[0] as *const i64, n + 1),
                indices: std::slice::from_raw_parts(csr[1] as *const i32, nnz),
                weights: std::slice::from_raw_parts(csr[2] as *const W, nnz),
            },
            std::slice::from_raw_parts_mut(out as *mut i32, n * n),
        )
    };
    match pick(device, &mut None)? {
        Some(gpu) if n <= float_pred::MAX_VERTICES && nnz < u32::MAX as usize => {
            float_pred::predecessors(&gpu, d, n, g, pred)?;
            Ok("gpu")
        }
        _ => {
            minplus::predecessors(d, n, g, pred);
            Ok("cpu")
        }
    }
}

/// The predecessor matrix (`n x n` int32 at `out`) of the solved distances at `dist` (`n x n`
/// of `dtype`) of the graph whose edges are the CSR arrays `indptr` (n + 1 int64), `indices`
/// (nnz int32) and `weights` (nnz of `dtype`), on the GPU where `device` allows
/// (`host::apsp::float_pred`), else on the CPU (`rgk_core::minplus::predecessors`); returns
/// where it ran.
///
/// The caller passes live C-contiguous NumPy arrays of exactly those lengths and types,
/// `indices` in 0..n and `indptr` non-decreasing from 0 to nnz, and keeps them alive.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn predecessors(
    py: Python<'_>,
    dist: usize,
    n: usize,
    dtype: &str,
    indptr: usize,
    indices: usize,
    weights: usize,
    nnz: usize,
    out: usize,
    device: &str,
) -> PyResult<&'static str> {
    let (dt, device) = (self::dtype(dtype)?, Device::parse(device)?);
    let csr = [indptr, indices, weights];
    py.detach(move || match dt {
        // SAFETY: the arrays are what the function's contract above states.
        Dtype::F32 => unsafe { preds::<f32>(dist, n, csr, nnz, out, device) },
        // SAFETY: as above.
        Dtype::F64 => unsafe { preds::<f64>(dist, n, csr, nnz, out, device) },
    })
    .map_err(to_py)
}

/// The course's int32 APSP of `m` edges `(src, dst, w)` (an `m x 3` int32 array at `edges`) on
/// `n` vertices into the `n x n` int32 array at `out` (`rgk_core::apsp::INF` for no path).
/// Returns where it ran and why not on the GPU.
///
/// The caller passes live C-contiguous NumPy arrays of exactly those shapes and keeps them
/// alive.
#[pyfunction]
fn apsp_edges(
    py: Python<'_>,
    edges: usize,
    m: usize,
    n: usize,
    out: usize,
    device: &str,
) -> PyResult<(&'static str, Option<String>)> {
    let device = Device::parse(device)?;
    py.detach(move || {
        // SAFETY: `edges` is m * 3 int32 (the contract above); Edge is three i32, no padding.
        let list = unsafe { std::slice::from_raw_parts(edges as *const Edge, m) }.to_vec();
        let graph = Graph::from_edges(n, list).map_err(Error::from)?;
        let mut why = None;
        let (dist, place) = match pick(device, &mut why)? {
            Some(gpu) => (host::apsp(&gpu, &graph)?, "gpu"),
            None => (solve_cpu(&graph).map_err(Error::from)?, "cpu"),
        };
        // SAFETY: `out` is n * n writable int32 (the contract above), not aliased by `dist`.
        unsafe { std::slice::from_raw_parts_mut(out as *mut i32, n * n) }
            .copy_from_slice(dist.as_slice());
        Ok((place, why))
    })
    .map_err(to_py)
}

/// `host apsp INPUT -o OUTPUT`: the course's file format to file, through the library's
/// pipeline. Returns where it ran and why not on the GPU.
#[pyfunction]
fn apsp_file(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    device: &str,
) -> PyResult<(&'static str, Option<String>)> {
    let device = Device::parse(device)?;
    py.detach(move || {
        let mut why = None;
        let gpu = pick(device, &mut why).map_err(to_py)?;
        // A file that cannot be read or written is an OSError, as Python's own I/O says.
        solve_file(gpu.as_deref(), &input, &output, DEFAULT_BLOCK, false).map_err(|e| {
            if e.chain().any(|c| c.is::<std::io::Error>()) {
                PyOSError::new_err(format!("{e:#}"))
            } else {
                to_py(Error::from(e))
            }
        })?;
        Ok((if gpu.is_some() { "gpu" } else { "cpu" }, why))
    })
}

/// The add-min ceiling of the float kernels of `dtype` (with `nonneg`, of the kernels for
/// matrices without negative values, where the type has them): add-mins per second.
#[pyfunction]
#[pyo3(signature = (dtype, iterations, reps, nonneg = false))]
fn float_peak(
    py: Python<'_>,
    dtype: &str,
    iterations: u32,
    reps: usize,
    nonneg: bool,
) -> PyResult<f64> {
    use host::apsp::float_peak::{addmin_peak, addmin_peak_nonneg};
    let dt = self::dtype(dtype)?;
    py.detach(move || {
        let gpu = crate::gpu()?;
        let p = match (dt, nonneg) {
            (Dtype::F32, false) => addmin_peak::<f32>(&gpu, iterations, reps),
            (Dtype::F32, true) => addmin_peak_nonneg::<f32>(&gpu, iterations, reps),
            (Dtype::F64, false) => addmin_peak::<f64>(&gpu, iterations, reps),
            (Dtype::F64, true) => addmin_peak_nonneg::<f64>(&gpu, iterations, reps),
        }
        .map_err(Error::from)?;
        Ok(p.updates_per_s)
    })
    .map_err(to_py)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("APSP_INF", rgk_core::apsp::INF)?;
    m.add_function(wrap_pyfunction!(solve_float, m)?)?;
    m.add_function(wrap_pyfunction!(predecessors, m)?)?;
    m.add_function(wrap_pyfunction!(apsp_edges, m)?)?;
    m.add_function(wrap_pyfunction!(apsp_file, m)?)?;
    m.add_function(wrap_pyfunction!(float_peak, m)?)?;
    Ok(())
}

//! GEMM on host arrays (copied to and from the GPU) and on device memory the caller owns
//! (PyTorch, CuPy, DLPack: zero-copy, ordered on the caller's stream): one strided batch of
//! `C_i = alpha·op(A_i)·op(B_i) + beta·C_i` in a [`Precision`]. FP32 is the library's SGEMM
//! (`host::gemm_device_async`, one batched launch); the tensor-core precisions are
//! `host::tc::gemm_tc`, one call per problem of the batch (it has no batched form).
use cust::memory::{CopyDestination, DeviceBuffer, DevicePointer, DeviceSlice};
use host::{
    Error, Gemm, Gpu, Op, gemm_device_async,
    tc::{Layout, Operand, TcGemm, gemm_tc, problem::check_buffers},
};
use pyo3::prelude::*;
use rgk_core::{bad_input, matmul::precision::Precision};

use crate::{fence::Fence, to_py};

/// One call's problem: the library's description of the (batched) GEMM and its precision.
struct Problem {
    g: Gemm,
    precision: Precision,
}

impl Problem {
    /// The tensor-core description of one problem of the batch (the same shape and layouts).
    fn tc(&self) -> TcGemm {
        let layout = |op| match op {
            Op::N => Layout::RowMajor,
            Op::T => Layout::ColMajor,
        };
        let g = &self.g;
        TcGemm::new(g.m, g.n, g.k)
            .alpha(g.alpha)
            .beta(g.beta)
            .layouts(layout(g.op_a), layout(g.op_b))
            .leading_dims(g.lda, g.ldb, g.ldc)
    }

    /// Shape, leading dimensions, batch and strides (`Gemm::check`, for every precision), then
    /// what the tensor-core kernels add (16-byte rows).
    fn check(&self) -> host::Result<()> {
        self.g.check().map_err(Error::from)?;
        if self.precision.tensor_cores() {
            self.tc().check(self.precision).map_err(Error::from)?;
        }
        Ok(())
    }
}

/// `x`'s elements `off..off + len` (within the batch's buffer, whose length `Gemm::check`
/// and `min_lens` guarantee).
fn part<'a>(x: Operand<'a>, off: usize, len: usize) -> Operand<'a> {
    match x {
        Operand::F32(s) => Operand::F32(&s[off..off + len]),
        Operand::Bits16(s) => Operand::Bits16(&s[off..off + len]),
    }
}

/// Enqueues (FP32) or runs (the tensor-core precisions, each problem returning when done) the
/// batch on `gpu.stream`, on buffers of the batch's `min_lens`.
fn compute(
    gpu: &Gpu,
    p: &Problem,
    a: Operand,
    b: Operand,
    c: &mut DeviceSlice<f32>,
) -> host::Result<()> {
    let g = &p.g;
    if p.precision == Precision::Fp32 {
        let (Operand::F32(a), Operand::F32(b)) = (a, b) else {
            return Err(Error::from(
                bad_input::<()>("FP32 takes float32 A and B").unwrap_err(),
            ));
        };
        return gemm_device_async(gpu, &gpu.stream, g, a, b, c);
    }
    let t = p.tc();
    let (la, lb, lc) = t.min_lens();
    let at = |i: usize, stride: usize| i * stride;
    // Every problem's operands are checked before the first runs: no partial batch.
    for i in 0..g.batch {
        let ci = &c[at(i, g.stride_c)..at(i, g.stride_c) + lc];
        check_buffers(
            &t,
            p.precision,
            part(a, at(i, g.stride_a), la),
            part(b, at(i, g.stride_b), lb),
            ci,
        )
        .map_err(Error::from)?;
    }
    for i in 0..g.batch {
        let ci = &mut c[at(i, g.stride_c)..at(i, g.stride_c) + lc];
        gemm_tc(
            gpu,
            p.precision,
            &t,
            part(a, at(i, g.stride_a), la),
            part(b, at(i, g.stride_b), lb),
            ci,
        )?;
    }
    Ok(())
}

/// A device operand of `len` elements of `bytes` bytes at `addr`.
///
/// # Safety
/// `addr` is a device address in the current context of at least `len` such elements that
/// stays allocated while the returned operand is used.
unsafe fn device_operand<'a>(addr: usize, len: usize, bytes: usize) -> Operand<'a> {
    // SAFETY: the caller's contract.
    unsafe {
        if bytes == 2 {
            Operand::Bits16(DeviceSlice::from_raw_parts(
                DevicePointer::<u16>::from_raw(addr as u64),
                len,
            ))
        } else {
            Operand::F32(DeviceSlice::from_raw_parts(
                DevicePointer::<f32>::from_raw(addr as u64),
                len,
            ))
        }
    }
}

/// The batch on the caller's device memory, ordered on the caller's `stream`: the library's
/// stream waits for the work queued on `stream` so far, the product is queued on the library's
/// stream (FP32: without waiting), and `stream` then waits for it, so work queued on `stream`
/// afterwards sees C. The host waits only where `blocking` (a producer that names no stream),
/// and for the tensor-core precisions, whose runs return when done.
fn on_device(
    p: &Problem,
    [a, b, c]: [usize; 3],
    stream: usize,
    blocking: bool,
) -> host::Result<()> {
    p.check()?;
    let (la, lb, lc) = p.g.min_lens();
    let bytes = p.precision.input_bytes();
    let gpu = crate::gpu()?;
    // SAFETY: `a`, `b`, `c` are device addresses of at least la, lb, lc elements (of the
    // precision's input type; f32 for C) in the current (primary) context that stay allocated
    // for the call and, on `stream`, until the work queued there has passed (the contract of
    // `gemm`); `check_buffers` (in the library calls) refuses a C that overlaps A or B.
    let (da, db, dc) = unsafe {
        (
            device_operand(a, la, bytes),
            device_operand(b, lb, bytes),
            DeviceSlice::from_raw_parts_mut(DevicePointer::<f32>::from_raw(c as u64), lc),
        )
    };
    let caller = stream as cust_raw::driver_sys::CUstream;
    let own = gpu.stream.as_inner();
    let fence = Fence::new()?;
    fence.order(caller, own)?;
    let run = compute(&gpu, p, da, db, dc);
    // Even after a failure: whatever was queued is ordered before the caller's later work.
    fence.order(own, caller)?;
    run?;
    if blocking {
        gpu.stream.synchronize().map_err(Error::from)?;
    }
    Ok(())
}

/// A host operand copied to the GPU, in its element type.
enum Up {
    F32(DeviceBuffer<f32>),
    Bits16(DeviceBuffer<u16>),
}

impl Up {
    fn operand(&self) -> Operand<'_> {
        match self {
            Up::F32(d) => Operand::F32(d),
            Up::Bits16(d) => Operand::Bits16(d),
        }
    }
}

/// The batch on host memory: A and B copied to the GPU, C too where `beta != 0`, and C back.
fn on_host(p: &Problem, [a, b, c]: [usize; 3]) -> host::Result<()> {
    p.check()?;
    let (la, lb, lc) = p.g.min_lens();
    let gpu = crate::gpu()?;
    let up_err = |what: &str| {
        let what = what.to_string();
        move |e| Error::Gpu(anyhow::Error::new(e).context(format!("copying {what} to the GPU")))
    };
    // SAFETY (of each from_raw_parts below): host addresses of at least la, lb, lc elements of
    // the precision's input type (f32 for C), C writable and not aliased, alive for the call
    // (the contract of `gemm`).
    let up = |addr: usize, len: usize, what: &str| -> host::Result<Up> {
        if p.precision.input_bytes() == 2 {
            // SAFETY: see above.
            let h = unsafe { std::slice::from_raw_parts(addr as *const u16, len) };
            DeviceBuffer::from_slice(h)
                .map(Up::Bits16)
                .map_err(up_err(what))
        } else {
            // SAFETY: see above.
            let h = unsafe { std::slice::from_raw_parts(addr as *const f32, len) };
            DeviceBuffer::from_slice(h)
                .map(Up::F32)
                .map_err(up_err(what))
        }
    };
    let (ua, ub) = (up(a, la, "A")?, up(b, lb, "B")?);
    // SAFETY: see above.
    let hc = unsafe { std::slice::from_raw_parts_mut(c as *mut f32, lc) };
    let mut dc = if p.g.beta != 0.0 {
        DeviceBuffer::from_slice(hc).map_err(up_err("C"))?
    } else {
        DeviceBuffer::<f32>::zeroed(lc).map_err(Error::from)?
    };
    compute(&gpu, p, ua.operand(), ub.operand(), &mut dc)?;
    gpu.stream.synchronize().map_err(Error::from)?;
    dc.copy_to(hc).map_err(Error::from)?;
    Ok(())
}

/// `C_i = alpha·op(A_i)·op(B_i) + beta·C_i` for `i < batch` in `precision` (a name of
/// `Precision`: fp32, tf32, 3xtf32, bf16, fp16). `op(A)` is `m x k`, `op(B)` `k x n`, C `m x n`
/// f32 row-major; `trans_a` means A is stored `k x m` (op T), likewise `trans_b`; stored rows
/// are `lda`, `ldb`, `ldc` elements apart and problem `i`'s matrices `i·stride` elements into
/// the buffers (an input's stride may be 0: one matrix for every problem). A and B hold f32 for
/// fp32/tf32/3xtf32 and 16-bit bfloat16/float16 for bf16/fp16.
///
/// `stream` None: `a`, `b`, `c` are host addresses (NumPy arrays, copied to and from the GPU).
/// `stream` `(handle, blocking)`: device addresses in the primary context of device 0,
/// zero-copy, ordered on the CUDA stream `handle` (0/1 legacy, 2 per-thread); `blocking`
/// waits for the result before returning.
///
/// The caller (rust_gpu_kernels._gemm) passes addresses of live arrays holding every element
/// the batch addresses (`Gemm::min_lens`), C writable, and keeps them alive during the call
/// (and device ones until the stream has passed the work).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (a, b, c, dims, trans, lds, batch, strides, alpha, beta, precision, stream))]
fn gemm(
    py: Python<'_>,
    a: usize,
    b: usize,
    c: usize,
    dims: (usize, usize, usize),
    trans: (bool, bool),
    lds: (usize, usize, usize),
    batch: usize,
    strides: (usize, usize, usize),
    alpha: f32,
    beta: f32,
    precision: &str,
    stream: Option<(usize, bool)>,
) -> PyResult<()> {
    let Some(precision) = Precision::from_name(precision) else {
        let names: Vec<_> = Precision::ALL.iter().map(|p| p.name()).collect();
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "precision must be one of {}, not {precision:?}",
            names.join(", ")
        )));
    };
    let op = |t: bool| if t { Op::T } else { Op::N };
    let (m, n, k) = dims;
    let g = Gemm::new(m, n, k)
        .ops(op(trans.0), op(trans.1))
        .batch(batch)
        .alpha(alpha)
        .beta(beta)
        .leading_dims(lds.0, lds.1, lds.2)
        .strides(strides.0, strides.1, strides.2);
    let p = Problem { g, precision };
    py.detach(move || match stream {
        None => on_host(&p, [a, b, c]),
        Some((s, blocking)) => on_device(&p, [a, b, c], s, blocking),
    })
    .map_err(to_py)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gemm, m)?)?;
    Ok(())
}

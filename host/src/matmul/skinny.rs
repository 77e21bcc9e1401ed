//! The skinny SGEMM runner (`gpu_kernels::matmul::skinny`: small N or M, matrix–vector): the
//! grid, the K split (`skinny::splits`, the one formula), the split-K workspace (one per
//! [`Gpu`], kept in its runner state, grown as needed) and the reduction launch. A
//! [`SkinnyLaunch`] checks its problem against its buffers, so launching it is safe.
use std::{cell::RefCell, ffi::c_void, marker::PhantomData, rc::Rc};

use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, Function, GridSize},
    memory::{DeviceBuffer, DeviceSlice},
};
use gpu_kernels::matmul::skinny::{
    KSplit, SKINNY_COLS, SKINNY_GEMV, SKINNY_ROWS, SKINNY_ROWS_ASYNC, SKINNY_THREADS,
    SPLITK_REDUCE_KERNEL, SPLITK_REDUCE_THREADS, SkinnyConfig, SkinnyKind, SkinnyParams, splits,
};

use super::{launch_cache, problem::Gemm};
use crate::gpu::Gpu;

/// The skinny kernel named `name`.
pub fn skinny_config(name: &str) -> Result<&'static SkinnyConfig> {
    SKINNY_ROWS
        .iter()
        .chain(SKINNY_ROWS_ASYNC)
        .chain(SKINNY_COLS)
        .chain(SKINNY_GEMV)
        .find(|c| c.name == name)
        .with_context(|| format!("no skinny SGEMM kernel named {name:?}"))
}

/// Whether the operand `cfg` streams allows 128-bit loads: rows a multiple of 4 floats apart
/// and the buffer 16-byte aligned (A for the row kernels, B for the column kernels).
fn vector_ok(cfg: &SkinnyConfig, op: &Gemm, [a, b]: [&DeviceSlice<f32>; 2]) -> bool {
    let (ld, buf) = match cfg.kind {
        SkinnyKind::Rows => (op.lda, a),
        SkinnyKind::Cols | SkinnyKind::VecMat => (op.ldb, b),
    };
    ld.is_multiple_of(4) && buf.as_device_ptr().as_raw().is_multiple_of(16)
}

/// The grid (x, y, splits) and K split of `cfg` for `op` on `sms` multiprocessors (a
/// matrix–vector kernel's split count from `RGK_SGEMV_SPLITS` when set, for timing runs).
pub fn geometry(cfg: &SkinnyConfig, op: &Gemm, sms: u32) -> ((u32, u32), KSplit) {
    let (gx, gy) = cfg.grid_xy(op.m as u32, op.n as u32);
    let split = match gemv_splits_override().filter(|_| cfg.kind == SkinnyKind::VecMat) {
        Some(s) => super::gemv::fixed_splits(cfg, op.k as u32, s),
        None => splits(cfg, gx.saturating_mul(gy), op.k as u32, sms),
    };
    ((gx, gy), split)
}

/// The split count `RGK_SGEMV_SPLITS` asks of the matrix–vector kernels (≥ 1), for timing runs.
fn gemv_splits_override() -> Option<u32> {
    std::env::var("RGK_SGEMV_SPLITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&s| s >= 1)
}

/// The split-K workspace of a GPU (partial products of every split), shared by the launches
/// that use it; a launch keeps its own reference, so growing it never frees memory a prepared
/// launch points to.
type WorkspaceCell = RefCell<Option<Rc<DeviceBuffer<f32>>>>;

fn workspace(gpu: &Gpu, floats: usize) -> Result<Rc<DeviceBuffer<f32>>> {
    let cell = gpu.runner_state::<WorkspaceCell>();
    let mut cell = cell.borrow_mut();
    if let Some(ws) = cell.as_ref()
        && ws.len() >= floats
    {
        return Ok(ws.clone());
    }
    let old = cell.as_ref().map_or(0, |w| w.len());
    // SAFETY: every float a reduction reads was written by the skinny launch before it on the
    // same stream (each split stores all of its `m x n` partial products), and no host code
    // reads the buffer.
    let buf = unsafe { DeviceBuffer::uninitialized(floats.max(old).max(1)) }
        .context("allocating the split-K workspace")?;
    let ws = Rc::new(buf);
    *cell = Some(ws.clone());
    Ok(ws)
}

/// A skinny launch ready to go (the kernel, then the reduction when K is split), on buffers
/// borrowed for `'a`.
pub struct SkinnyLaunch<'a> {
    gpu: &'a Gpu,
    func: Function<'a>,
    reduce: Option<Function<'a>>,
    cfg: &'static SkinnyConfig,
    params: SkinnyParams,
    grid: (u32, u32),
    _workspace: Option<Rc<DeviceBuffer<f32>>>,
    _counters: Option<Rc<DeviceBuffer<u32>>>,
    _buffers: PhantomData<&'a DeviceSlice<f32>>,
}

impl<'a> SkinnyLaunch<'a> {
    /// Prepares `cfg` for `op` on the buffers of A, B and C. Fails with [`rgk_core::BadInput`]
    /// when `op` is invalid or does not fit its buffers ([`Gemm::check_buffers`]). Any shape
    /// runs: N wider than a row kernel's width (M taller than a column kernel's) takes several
    /// groups, which is only fast for the shapes `select` routes here.
    pub fn new(
        gpu: &'a Gpu,
        cfg: &'static SkinnyConfig,
        op: &Gemm,
        [a, b, c]: [&'a DeviceSlice<f32>; 3],
    ) -> Result<SkinnyLaunch<'a>> {
        op.check_buffers([a, b, c])?;
        // The pipelined row kernels' stages are dynamic shared memory, allowed once per GPU.
        let (func, _) =
            launch_cache::kernel(gpu, cfg.name, SKINNY_THREADS, cfg.dynamic_shared_bytes())?;
        let (grid, split) = geometry(cfg, op, gpu.multiprocessors()?);
        let mut params = SkinnyParams {
            a: a.as_device_ptr().as_raw() as *const f32,
            b: b.as_device_ptr().as_raw() as *const f32,
            c: c.as_device_ptr().as_raw() as *mut f32,
            work: std::ptr::null_mut(),
            m: op.m as u32,
            n: op.n as u32,
            k: op.k as u32,
            lda: op.lda as u32,
            ldb: op.ldb as u32,
            ldc: op.ldc as u32,
            alpha: op.alpha,
            beta: op.beta,
            splits: split.splits,
            k_chunk: split.k_chunk,
            vec: vector_ok(cfg, op, [a, b]) as u32,
            counters: std::ptr::null_mut(),
        };
        let (mut ws, mut reduce, mut counters) = (None, None, None);
        if split.splits > 1 {
            let w = workspace(gpu, split.splits as usize * op.m * op.n)?;
            params.work = w.as_device_ptr().as_raw() as *mut f32;
            ws = Some(w);
            if cfg.kind == SkinnyKind::VecMat {
                // The kernel sums its splits itself, counting blocks per strip.
                let c = super::gemv::counters(gpu, (grid.0 as usize) * (grid.1 as usize))?;
                params.counters = c.as_device_ptr().as_raw() as *mut u32;
                counters = Some(c);
            } else {
                reduce = Some(gpu.function(SPLITK_REDUCE_KERNEL)?);
            }
        }
        Ok(SkinnyLaunch {
            gpu,
            func,
            reduce,
            cfg,
            params,
            grid,
            _workspace: ws,
            _counters: counters,
            _buffers: PhantomData,
        })
    }

    /// The K split: how many splits, and k per split.
    pub fn split(&self) -> KSplit {
        KSplit {
            splits: self.params.splits,
            k_chunk: self.params.k_chunk,
        }
    }

    /// Launches it on the GPU's stream, without waiting.
    pub fn launch(&self) -> Result<()> {
        // One `#[repr(C)]` struct by value, as the flagship's launch passes it.
        let args = [&self.params as *const SkinnyParams as *mut c_void];
        let grid = GridSize::xyz(self.grid.0, self.grid.1, self.params.splits);
        let stream = &self.gpu.stream;
        // `new` allowed the kernel its dynamic shared memory (0 but for the pipelined kernels).
        let shared = self.cfg.dynamic_shared_bytes();
        // SAFETY: the argument list matches the kernel's signature (one `SkinnyParams`, checked
        // against the PTX by a test below); `new` checked the shapes against the buffers,
        // borrowed for as long as `self` lives, and every access of the kernel is inside the
        // shapes (bounds-checked edges); `vec` was set only for an operand that allows 16-byte
        // loads; the workspace, held by `self`, has `splits * m * n` floats. The one workspace per
        // GPU is used only on the GPU's stream, in launch order; `shared` is the dynamic shared
        // memory the kernel's stages need. A matrix–vector kernel's counters, held by `self`,
        // are `grid x * grid y` words left at zero by every launch (`gemv::counters`).
        unsafe {
            stream.launch(
                &self.func,
                grid,
                BlockSize::x(SKINNY_THREADS),
                shared,
                &args,
            )
        }
        .with_context(|| format!("launching {}", self.cfg.name))?;
        if let Some(reduce) = &self.reduce {
            let total = self.params.m as usize * self.params.n as usize;
            let blocks = total.div_ceil(SPLITK_REDUCE_THREADS as usize).min(65535) as u32;
            // SAFETY: as above; the reduction reads the workspace the kernel just filled (same
            // stream, in order) and writes C inside `m x n` with `ldc` (a grid-stride loop, any
            // grid).
            unsafe {
                stream.launch(
                    reduce,
                    GridSize::x(blocks),
                    BlockSize::x(SPLITK_REDUCE_THREADS),
                    0,
                    &args,
                )
            }
            .context("launching the split-K reduction")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skinny_entries_take_one_params_struct() {
        let want = format!("[{}]", size_of::<SkinnyParams>());
        let names = SKINNY_ROWS
            .iter()
            .chain(SKINNY_ROWS_ASYNC)
            .chain(SKINNY_COLS)
            .chain(SKINNY_GEMV)
            .map(|c| c.name)
            .chain([SPLITK_REDUCE_KERNEL]);
        for name in names {
            let head = format!(".visible .entry {name}(");
            let at = gpu_kernels::PTX
                .find(&head)
                .unwrap_or_else(|| panic!("{name} not in the PTX"));
            let params = &gpu_kernels::PTX[at + head.len()..];
            let params = &params[..params.find(')').unwrap()];
            assert_eq!(params.matches(".param").count(), 1, "{name}: {params}");
            assert!(params.trim().ends_with(&want), "{name}: {params}");
        }
        assert!(skinny_config("sgemm_rows_n8").is_ok());
        assert!(skinny_config("sgemm_rows_async_n16").is_ok());
        assert!(skinny_config("sgemm_128x256x8_s4_8x16").is_err());
    }

    #[test]
    fn geometry_fills_the_gpu_for_matrix_vector_products() {
        let rows = skinny_config("sgemm_rows_n1").unwrap();
        let cols = skinny_config("sgemm_cols_m1").unwrap();
        // y = A·x, 8192 x 8192: 256 blocks of 32 rows.
        let (g, s) = geometry(rows, &Gemm::new(8192, 1, 8192), 132);
        assert_eq!((g, s.splits), ((256, 1), 3));
        // y = xᵀ·B, 8192 x 8192: 8 blocks of 1024 columns, split 64 ways.
        let (g, s) = geometry(cols, &Gemm::new(1, 8192, 8192), 132);
        assert_eq!((g, s.splits, s.k_chunk), ((8, 1), 64, 128));
        // K = 1 never splits.
        assert_eq!(geometry(cols, &Gemm::new(1, 1, 1), 132).1.splits, 1);
    }
}

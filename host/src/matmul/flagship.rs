//! Launching the flagship SGEMM kernels: the function (with its dynamic shared memory allowed),
//! the grid and schedule (data-parallel or stream-K, `gpu_kernels::matmul::stream_k`), and the
//! stream-K workspace, kept per [`Gpu`] and grown as needed.
use std::{cell::RefCell, ffi::c_void, rc::Rc};

use anyhow::{Context as _, Result, bail};
use cust::{
    function::{BlockSize, Function, GridSize},
    memory::{DeviceBuffer, DeviceCopy, DeviceSlice},
    stream::Stream,
};
use cust_raw::driver_sys;
use gpu_kernels::matmul::{
    FLAGSHIP, FlagshipConfig, SgemmParams,
    stream_k::{Schedule, Split, plan},
};

use super::sgemm::Gemm;
use crate::gpu::Gpu;

/// The flagship kernel named `name`.
pub fn flagship_config(name: &str) -> Result<&'static FlagshipConfig> {
    FLAGSHIP
        .iter()
        .find(|c| c.name == name)
        .with_context(|| format!("no flagship SGEMM kernel named {name:?}"))
}

/// The rasterization group (`SgemmParams::group`, tile rows walked down per column sweep) that
/// `RGK_SGEMM_GROUP` asks for, if it names one (≥ 1): it overrides the tuned and the default
/// group, for tuning runs.
pub fn group_override() -> Option<u32> {
    std::env::var("RGK_SGEMM_GROUP")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&g| g >= 1)
}

/// The schedule `RGK_SGEMM_SCHEDULE` asks for (`data-parallel` or `stream-k`), if any: it
/// overrides the tuned and the default schedule, for timing runs.
pub fn schedule_override() -> Option<Schedule> {
    std::env::var("RGK_SGEMM_SCHEDULE")
        .ok()
        .and_then(|v| Schedule::from_name(&v))
}

/// Rasterization group of the flagship launches without a tuned or requested one.
pub const DEFAULT_GROUP: u32 = 8;

/// Schedule of the flagship launches without a tuned or requested one: stream-K, which is
/// data-parallel wherever the tiles fill whole waves (`stream_k::plan`).
pub const DEFAULT_SCHEDULE: Schedule = Schedule::StreamK;

/// The flagship's parameters for `op` on the device memory at `a`, `b` and `c`, launched with
/// rasterization group `group`; the stream-K fields are left empty for [`FlagshipLaunch::new`]
/// to fill in. The caller has checked `op` ([`Gemm::check`]: every value fits in 32 bits).
pub(crate) fn gemm_params(op: &Gemm, [a, b, c]: [&DeviceSlice<f32>; 3], group: u32) -> SgemmParams {
    SgemmParams {
        a: a.as_device_ptr().as_raw() as *const f32,
        b: b.as_device_ptr().as_raw() as *const f32,
        c: c.as_device_ptr().as_raw() as *mut f32,
        partials: std::ptr::null_mut(),
        counters: std::ptr::null_mut(),
        m: op.m as u32,
        n: op.n as u32,
        k: op.k as u32,
        lda: op.lda as u32,
        ldb: op.ldb as u32,
        ldc: op.ldc as u32,
        alpha: op.alpha,
        beta: op.beta,
        group,
        sk_blocks: 0,
        sk_tiles: 0,
    }
}

/// The flagship's parameters for a dense C = A·B (`alpha = 1`, `beta = 0`, A and C as wide as
/// their rows, B `ldb` floats apart) on device buffers: the shape every timing run launches.
pub(crate) fn dense_params(
    [a, b, c]: [&DeviceBuffer<f32>; 3],
    (m, n, k): (usize, usize, usize),
    ldb: usize,
    group: u32,
) -> SgemmParams {
    gemm_params(
        &Gemm::new(m, n, k).leading_dims(k, ldb, n),
        [a, b, c],
        group,
    )
}

/// Whether B can be copied in 16-byte pieces (`FlagshipConfig::vec_b`): rows a multiple of 4
/// floats apart and the pointer 16-byte aligned.
pub fn b_vector_ok(p: &SgemmParams) -> bool {
    p.ldb.is_multiple_of(4) && (p.b as usize).is_multiple_of(16)
}

/// The flagship kernel `cfg` from the module, allowed its dynamic shared memory (above the
/// default 48 KB limit, which needs the function's `MAX_DYNAMIC_SHARED_SIZE_BYTES` raised).
pub fn flagship_function<'m>(gpu: &'m Gpu, cfg: &FlagshipConfig) -> Result<Function<'m>> {
    let func = gpu.function(cfg.name)?;
    // SAFETY: a valid function handle of a loaded module; the attribute takes a byte count.
    let code = unsafe {
        driver_sys::cuFuncSetAttribute(
            func.to_raw(),
            driver_sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            cfg.shared_bytes() as i32,
        )
    };
    if code != driver_sys::cudaError_enum::CUDA_SUCCESS {
        bail!(
            "{} needs {} B of shared memory per block, which this GPU does not allow ({code:?})",
            cfg.name,
            cfg.shared_bytes()
        );
    }
    Ok(func)
}

/// Device memory for stream-K's partial sums and per-tile counters (`SgemmParams::partials`,
/// `counters`). The kernel leaves every counter at zero, so one workspace serves every launch
/// on the GPU's stream in turn; launches on other streams at the same time would need their
/// own.
pub struct Workspace {
    partials: DeviceBuffer<f32>,
    counters: DeviceBuffer<u32>,
}

/// The [`Gpu`]'s workspace, shared by the launches that use it (a launch keeps its own
/// reference, so growing it never frees memory a prepared launch points to).
pub(crate) type WorkspaceCell = RefCell<Option<Rc<Workspace>>>;

/// A workspace of at least `partials` floats and `counters` counters, reusing the GPU's when
/// it is large enough.
fn workspace(gpu: &Gpu, partials: usize, counters: usize) -> Result<Rc<Workspace>> {
    let mut cell = gpu.sgemm_workspace.borrow_mut();
    if let Some(ws) = cell.as_ref()
        && ws.partials.len() >= partials
        && ws.counters.len() >= counters
    {
        return Ok(ws.clone());
    }
    let (old_p, old_c) = cell
        .as_ref()
        .map_or((0, 0), |w| (w.partials.len(), w.counters.len()));
    let ws = Rc::new(Workspace {
        partials: alloc(partials.max(old_p)).context("allocating the stream-K workspace")?,
        counters: DeviceBuffer::zeroed(counters.max(old_c).max(1))
            .context("allocating the stream-K counters")?,
    });
    // The counters' zeroing must be done before a kernel counts on them.
    cust::context::CurrentContext::synchronize().context("zeroing the stream-K counters")?;
    *cell = Some(ws.clone());
    Ok(ws)
}

fn alloc<T: DeviceCopy>(len: usize) -> cust::error::CudaResult<DeviceBuffer<T>> {
    // SAFETY: every element is written by the kernel before it is read (stream_k.rs).
    unsafe { DeviceBuffer::uninitialized(len.max(1)) }
}

/// A flagship launch ready to go: the function, its grid and its complete parameters.
pub struct FlagshipLaunch<'g> {
    func: Function<'g>,
    cfg: &'static FlagshipConfig,
    params: SgemmParams,
    split: Split,
    grid: u32,
    _workspace: Option<Rc<Workspace>>,
}

impl<'g> FlagshipLaunch<'g> {
    /// Prepares `cfg` for `params` (whose stream-K fields are filled in here) under `schedule`.
    /// The caller has checked `params` (shapes, leading dimensions, buffer sizes, and
    /// [`b_vector_ok`] when `cfg.vec_b`).
    pub fn new(
        gpu: &'g Gpu,
        cfg: &'static FlagshipConfig,
        params: &SgemmParams,
        schedule: Schedule,
    ) -> Result<FlagshipLaunch<'g>> {
        let func = flagship_function(gpu, cfg)?;
        let tiles = cfg.tiles(params.m, params.n);
        let ktiles = cfg.ktiles(params.k);
        let split = match schedule {
            Schedule::DataParallel => plan(schedule, tiles, ktiles, 0),
            Schedule::StreamK => {
                let per_sm = func
                    .max_active_blocks_per_multiprocessor(
                        BlockSize::x(cfg.threads()),
                        cfg.shared_bytes() as usize,
                    )
                    .context("reading the flagship kernel's occupancy")?;
                plan(schedule, tiles, ktiles, per_sm * gpu.multiprocessors()?)
            }
        };
        let mut params = SgemmParams {
            sk_blocks: split.sk_blocks,
            sk_tiles: split.sk_tiles,
            ..*params
        };
        let mut ws = None;
        if split.sk_blocks > 0 {
            let slot = (cfg.bm * cfg.bn) as usize;
            let w = workspace(gpu, split.slots() as usize * slot, split.sk_tiles as usize)?;
            params.partials = w.partials.as_device_ptr().as_raw() as *mut f32;
            params.counters = w.counters.as_device_ptr().as_raw() as *mut u32;
            ws = Some(w);
        }
        Ok(FlagshipLaunch {
            func,
            cfg,
            params,
            split,
            grid: split.grid(tiles),
            _workspace: ws,
        })
    }

    /// How the launch shares out the tiles.
    pub fn split(&self) -> Split {
        self.split
    }

    /// Launches it on `stream`.
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        // The kernel's one parameter is the `#[repr(C)]` struct, by value: cuLaunchKernel takes
        // a pointer to it. (Not `launch!`, which wants `DeviceCopy`, a foreign trait for a
        // foreign type here.)
        let args = [&self.params as *const SgemmParams as *mut c_void];
        let (grid, block) = (GridSize::x(self.grid), BlockSize::x(self.cfg.threads()));
        // SAFETY: the argument list matches the kernel's signature (one `SgemmParams`); the
        // caller of `new` guaranteed that the pointers in it cover the shapes it names, and the
        // workspace is held by `self`.
        unsafe { stream.launch(&self.func, grid, block, self.cfg.shared_bytes(), &args) }
            .with_context(|| format!("launching {}", self.cfg.name))
    }
}

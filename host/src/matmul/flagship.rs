//! The flagship SGEMM runner: the function (with its dynamic shared memory allowed), the grid
//! and schedule (data-parallel or stream-K, `gpu_kernels::matmul::stream_k`), and the stream-K
//! workspace, which this module owns: one per [`Gpu`] (kept in its runner state), grown as
//! needed. A [`FlagshipLaunch`] checks its problem against its buffers, so launching it is safe.
use std::{cell::RefCell, ffi::c_void, marker::PhantomData, rc::Rc};

use anyhow::{Context as _, Result, bail};
use cust::{
    function::{BlockSize, Function, GridSize},
    memory::{DeviceBuffer, DeviceCopy, DeviceSlice},
    stream::Stream,
};
use gpu_kernels::matmul::{
    FLAGSHIP, FlagshipConfig, SgemmParams,
    stream_k::{Schedule, Split, plan},
};
use rgk_core::bad_input;

use super::{balance::balanced_plan_per_sm, launch_cache, problem::Gemm};
use crate::gpu::Gpu;

/// The flagship kernel named `name`.
pub fn flagship_config(name: &str) -> Result<&'static FlagshipConfig> {
    FLAGSHIP
        .iter()
        .find(|c| c.name == name)
        .with_context(|| format!("no flagship SGEMM kernel named {name:?}"))
}

/// The flagship's parameters for `op` on the device memory at `a`, `b` and `c`, launched with
/// rasterization group `group`; the stream-K fields are left empty for [`FlagshipLaunch::new`]
/// to fill in. `op` has been checked ([`Gemm::check`]: every value fits in 32 bits).
fn gemm_params(op: &Gemm, [a, b, c]: [&DeviceSlice<f32>; 3], group: u32) -> SgemmParams {
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

/// The flagship kernel `cfg` from the module, allowed its dynamic shared memory (above the
/// default 48 KB limit, which needs the function's `MAX_DYNAMIC_SHARED_SIZE_BYTES` raised).
pub fn flagship_function<'m>(gpu: &'m Gpu, cfg: &'static FlagshipConfig) -> Result<Function<'m>> {
    Ok(launch_cache::kernel(gpu, cfg.name, cfg.threads(), cfg.shared_bytes())?.0)
}

/// The split of a launch with every tile's k-slices shared by `segments` blocks (stream-K over
/// all tiles, `tiles · segments` blocks, at most one per k-slice): split-K whose partial sums
/// the block completing a tile adds up in a fixed order inside the same launch (route.rs's
/// in-kernel split).
pub fn segmented(tiles: u32, ktiles: u32, segments: u32) -> Split {
    let total = u64::from(tiles) * u64::from(ktiles);
    let blocks = (u64::from(tiles) * u64::from(segments.max(1))).min(total.max(1));
    Split {
        sk_blocks: blocks as u32,
        sk_tiles: tiles,
        ktiles,
    }
}

/// Device memory for stream-K's partial sums and per-tile counters (`SgemmParams::partials`,
/// `counters`). The kernel leaves every counter at zero, so one workspace serves every launch
/// on the GPU's stream in turn (the only stream [`FlagshipLaunch::launch`] uses).
struct Workspace {
    partials: DeviceBuffer<f32>,
    counters: DeviceBuffer<u32>,
}

/// A GPU's workspace, shared by the launches that use it (a launch keeps its own reference,
/// so growing it never frees memory a prepared launch points to).
type WorkspaceCell = RefCell<Option<Rc<Workspace>>>;

/// The stream-K workspace as a launch holds it: kept alive with the launch, its device pointers
/// for the kernel's parameters.
pub(super) struct HeldWorkspace(Rc<Workspace>);

impl HeldWorkspace {
    pub(super) fn partials(&self) -> *mut f32 {
        self.0.partials.as_device_ptr().as_raw() as *mut f32
    }
    pub(super) fn counters(&self) -> *mut u32 {
        self.0.counters.as_device_ptr().as_raw() as *mut u32
    }
}

/// The GPU's stream-K workspace for `slots` partial-sum slots of `slot` floats and `tiles`
/// counters (used only on the GPU's own stream).
pub(super) fn held_workspace(
    gpu: &Gpu,
    slots: usize,
    slot: usize,
    tiles: usize,
) -> Result<HeldWorkspace> {
    workspace(gpu, slots * slot, tiles).map(HeldWorkspace)
}

/// A workspace of at least `partials` floats and `counters` counters, reusing the GPU's when
/// it is large enough.
fn workspace(gpu: &Gpu, partials: usize, counters: usize) -> Result<Rc<Workspace>> {
    let cell = gpu.runner_state::<WorkspaceCell>();
    let mut cell = cell.borrow_mut();
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
    // SAFETY: every element is written by the kernel before it is read (stream_k.rs), and no
    // host code reads the buffer.
    unsafe { DeviceBuffer::uninitialized(len.max(1)) }
}

/// How a launch's blocks share the tiles: by a schedule's plan, or every tile in this many
/// segments.
#[derive(Clone, Copy)]
enum Plan {
    Schedule(Schedule),
    Segments(u32),
}

/// A flagship launch ready to go: the function, its grid and its complete parameters, on
/// buffers borrowed for `'a` (so they outlive it).
pub struct FlagshipLaunch<'a> {
    gpu: &'a Gpu,
    func: Function<'a>,
    cfg: &'static FlagshipConfig,
    params: SgemmParams,
    split: Split,
    grid: u32,
    _workspace: Option<Rc<Workspace>>,
    _buffers: PhantomData<&'a DeviceSlice<f32>>,
}

impl<'a> FlagshipLaunch<'a> {
    /// Prepares `cfg` for `op` on the buffers of A, B and C, with rasterization group `group`
    /// under `schedule`. Fails with [`rgk_core::BadInput`] when `op` is invalid or does not fit
    /// its buffers ([`Gemm::check_buffers`]), or when `cfg` copies B in 16-byte pieces and B
    /// does not allow them ([`Gemm::b_vector_ok`]).
    pub fn new(
        gpu: &'a Gpu,
        cfg: &'static FlagshipConfig,
        op: &Gemm,
        [a, b, c]: [&'a DeviceSlice<f32>; 3],
        group: u32,
        schedule: Schedule,
    ) -> Result<FlagshipLaunch<'a>> {
        Self::planned(gpu, cfg, op, [a, b, c], group, Plan::Schedule(schedule))
    }

    /// As [`FlagshipLaunch::new`], with every tile's k-slices shared by `segments` blocks
    /// ([`segmented`]); one problem on the GPU's stream.
    pub fn segmented(
        gpu: &'a Gpu,
        cfg: &'static FlagshipConfig,
        op: &Gemm,
        [a, b, c]: [&'a DeviceSlice<f32>; 3],
        group: u32,
        segments: u32,
    ) -> Result<FlagshipLaunch<'a>> {
        Self::planned(gpu, cfg, op, [a, b, c], group, Plan::Segments(segments))
    }

    fn planned(
        gpu: &'a Gpu,
        cfg: &'static FlagshipConfig,
        op: &Gemm,
        [a, b, c]: [&'a DeviceSlice<f32>; 3],
        group: u32,
        how: Plan,
    ) -> Result<FlagshipLaunch<'a>> {
        op.check_buffers([a, b, c])?;
        if cfg.vec_b && !op.b_vector_ok(b) {
            return bad_input(format!(
                "{} copies B in 16-byte pieces, which needs ldb a multiple of 4 and B 16-byte \
                 aligned (ldb = {})",
                cfg.name, op.ldb
            ));
        }
        if group == 0 {
            // The kernel divides by it.
            bail!("the rasterization group must be at least 1");
        }
        let (func, per_sm) =
            launch_cache::kernel(gpu, cfg.name, cfg.threads(), cfg.shared_bytes())?;
        let params = gemm_params(op, [a, b, c], group);
        let tiles = cfg.tiles(params.m, params.n);
        let ktiles = cfg.ktiles(params.k);
        let split = match how {
            Plan::Schedule(Schedule::DataParallel) => {
                plan(Schedule::DataParallel, tiles, ktiles, 0)
            }
            Plan::Schedule(schedule) => {
                let sms = launch_cache::multiprocessors(gpu)?;
                let wave = wave_blocks_override().unwrap_or(1);
                // The N,N flagship: every resident slot (its plans were calibrated so).
                let slots = sk_slots(per_sm, u32::MAX);
                balanced_plan_per_sm(schedule, tiles, ktiles, sms, slots, wave)
            }
            Plan::Segments(s) => segmented(tiles, ktiles, s),
        };
        let mut params = SgemmParams {
            sk_blocks: split.sk_blocks,
            sk_tiles: split.sk_tiles,
            ..params
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
            gpu,
            func,
            cfg,
            params,
            split,
            grid: split.grid(tiles),
            _workspace: ws,
            _buffers: PhantomData,
        })
    }

    /// How the launch shares out the tiles.
    pub fn split(&self) -> Split {
        self.split
    }

    /// Launches it on the GPU's stream, without waiting.
    pub fn launch(&self) -> Result<()> {
        self.launch_on(&self.gpu.stream)
    }

    /// Launches it on `stream` (of the GPU's context), without waiting. A stream-K launch
    /// (`split().sk_blocks > 0`) must use the GPU's stream, where its workspace is used in
    /// launch order: refused on another one.
    pub fn launch_on(&self, stream: &Stream) -> Result<()> {
        if self.split.sk_blocks > 0 && stream.as_inner() != self.gpu.stream.as_inner() {
            bail!("a stream-K launch must run on the GPU's own stream, which owns its workspace");
        }
        // The kernel's one parameter is the `#[repr(C)]` struct, by value: cuLaunchKernel takes
        // a pointer to it. (Not `launch!`, which wants `DeviceCopy`, a foreign trait for a
        // foreign type here.)
        let args = [&self.params as *const SgemmParams as *mut c_void];
        let (grid, block) = (GridSize::x(self.grid), BlockSize::x(self.cfg.threads()));
        // SAFETY: the argument list matches the kernel's signature (one `SgemmParams`, checked
        // against the PTX by a test below). `new` checked the shapes against the
        // buffers, which are borrowed for as long as `self` lives, and the kernel stays inside
        // the shapes (edge tiles are bounds-checked); the workspace it points to is held by
        // `self` and sized by `plan` for this split; the group is ≥ 1. The one workspace per GPU
        // is used only on the GPU's stream, in launch order (checked above). A buffer dropped
        // while the kernel still runs is not reused early: cuMemFree waits for the device's work.
        unsafe { stream.launch(&self.func, grid, block, self.cfg.shared_bytes(), &args) }
            .with_context(|| format!("launching {}", self.cfg.name))
    }
}

/// The resident blocks per multiprocessor a balanced stream-K plan counts: `cap` (at most the
/// occupancy `per_sm`), or what `RGK_SGEMM_SK_SLOTS` asks for (timing runs; at most `per_sm`).
/// Fewer slots spread stream-K's k-slices over fewer, longer blocks with fewer partial tiles.
pub fn sk_slots(per_sm: u32, cap: u32) -> u32 {
    std::env::var("RGK_SGEMM_SK_SLOTS")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|&s| s >= 1)
        .map_or(per_sm.min(cap), |s| s.min(per_sm))
}

/// The blocks per multiprocessor `RGK_SGEMM_WAVE_BLOCKS` asks the one-wave stream-K grid of
/// `balance::balanced_plan` for (default one), for timing runs.
pub fn wave_blocks_override() -> Option<u32> {
    std::env::var("RGK_SGEMM_WAVE_BLOCKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&w| w >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flagship_entries_take_one_params_struct() {
        // `FlagshipLaunch::launch` passes one pointer to an `SgemmParams`: the PTX entry must take
        // exactly one parameter of its size.
        let want = format!("[{}]", size_of::<gpu_kernels::matmul::SgemmParams>());
        for cfg in FLAGSHIP {
            let head = format!(".visible .entry {}(", cfg.name);
            let at = gpu_kernels::PTX
                .find(&head)
                .unwrap_or_else(|| panic!("{} not in the PTX", cfg.name));
            let params = &gpu_kernels::PTX[at + head.len()..];
            let params = &params[..params.find(')').unwrap()];
            assert_eq!(
                params.matches(".param").count(),
                1,
                "{}: {params}",
                cfg.name
            );
            assert!(params.trim().ends_with(&want), "{}: {params}", cfg.name);
            assert!(cfg.shared_bytes() <= 227 * 1024, "{}", cfg.name);
        }
    }
}

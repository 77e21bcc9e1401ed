//! The runner of the flagship's variants for transposed operands and strided batches
//! (`gpu_kernels::matmul::FLAGSHIP_OPS`, kernels in `flagship_ops.rs`): the function, the grid
//! (tiles x batch) and schedule, and the checks that make launching safe. The stream-K workspace
//! is the flagship runner's (`super::flagship`).
use std::{ffi::c_void, marker::PhantomData};

use anyhow::{Context as _, Result, bail};
use cust::{
    function::{BlockSize, Function, GridSize},
    memory::DeviceSlice,
    stream::Stream,
};
use gpu_kernels::matmul::{
    FLAGSHIP_BATCHED, FLAGSHIP_OPS, FLAGSHIP_T_U, FlagshipOpsConfig, SgemmOpsParams, SgemmParams,
    stream_k::{Schedule, Split, plan},
};
use rgk_core::bad_input;

use super::{
    balance::{TUNED_OPS_SK_SLOTS, balanced_plan_per_sm},
    flagship::{HeldWorkspace, held_workspace, segmented, sk_slots, wave_blocks_override},
    launch_cache,
    problem::{Gemm, Op, check_len},
};
use crate::gpu::Gpu;

/// The variant (or batched tuned flagship, `FLAGSHIP_BATCHED`, or its T,N body with 4-byte
/// copies, `FLAGSHIP_T_U`) named `name`.
pub fn flagship_ops_config(name: &str) -> Result<&'static FlagshipOpsConfig> {
    FLAGSHIP_OPS
        .iter()
        .chain(FLAGSHIP_BATCHED)
        .chain(FLAGSHIP_T_U)
        .find(|c| c.name == name)
        .with_context(|| format!("no transposing or batched SGEMM kernel named {name:?}"))
}

/// A launch of a variant, ready to go, on buffers borrowed for `'a`.
pub struct FlagshipOpsLaunch<'a> {
    gpu: &'a Gpu,
    func: Function<'a>,
    cfg: &'static FlagshipOpsConfig,
    params: SgemmOpsParams,
    split: Split,
    grid: (u32, u32),
    _workspace: Option<HeldWorkspace>,
    _buffers: PhantomData<&'a DeviceSlice<f32>>,
}

impl<'a> FlagshipOpsLaunch<'a> {
    /// Prepares `cfg` for `op` on the buffers of A, B and C with rasterization group `group`
    /// under `schedule` (data-parallel for a batch of more than one: stream-K's workspace holds
    /// one problem). Fails with [`rgk_core::BadInput`] when `op` is invalid or does not fit its
    /// buffers ([`Gemm::check_buffers`]), when its operations are not `cfg`'s, when two problems'
    /// C overlap, or when `cfg` copies in 16-byte pieces and the operands do not allow them
    /// ([`Gemm::straight_vector_ok`]).
    pub fn new(
        gpu: &'a Gpu,
        cfg: &'static FlagshipOpsConfig,
        op: &Gemm,
        [a, b, c]: [&'a DeviceSlice<f32>; 3],
        group: u32,
        schedule: Schedule,
    ) -> Result<FlagshipOpsLaunch<'a>> {
        op.check_buffers([a, b, c])?;
        Self::check_variant(cfg, op, a, b)?;
        let raw = |s: &DeviceSlice<f32>| s.as_device_ptr().as_raw();
        // A batch of one reads no stride; `check` passed, so the strides fit in memory.
        let strides = [op.stride_a, op.stride_b, op.stride_c].map(|s| s as u64);
        Self::prepared(
            gpu,
            cfg,
            op,
            [raw(a), raw(b), raw(c)],
            strides,
            group,
            (schedule, None),
        )
    }

    /// `cfg` for one problem `op` with every tile's k-slices shared by `segments` blocks whose
    /// partial sums the block completing the tile adds up, in a fixed order, in the same launch
    /// (`flagship::segmented`; route.rs's in-kernel split). Fails as [`FlagshipOpsLaunch::new`]
    /// does, and for a batch.
    pub fn segmented(
        gpu: &'a Gpu,
        cfg: &'static FlagshipOpsConfig,
        op: &Gemm,
        [a, b, c]: [&'a DeviceSlice<f32>; 3],
        group: u32,
        segments: u32,
    ) -> Result<FlagshipOpsLaunch<'a>> {
        op.check_buffers([a, b, c])?;
        Self::check_variant(cfg, op, a, b)?;
        if op.batch != 1 {
            return bad_input("an in-kernel split takes one problem, not a batch");
        }
        let raw = |s: &DeviceSlice<f32>| s.as_device_ptr().as_raw();
        Self::prepared(
            gpu,
            cfg,
            op,
            [raw(a), raw(b), raw(c)],
            [0; 3],
            group,
            (Schedule::StreamK, Some(segments)),
        )
    }

    /// `cfg` for `op` (one problem) with K cut into `splits` ranges of `k / splits`: problem `s`
    /// of a batch of `splits` computes `op(A)[:, s·ks..(s+1)·ks] · op(B)[s·ks..(s+1)·ks, :]`
    /// into slice `s` of `work` (`splits` dense `m x n` slices), alpha 1 and beta 0; the last
    /// `k mod splits` k-values are left to the sum (`split_run`). Fails with
    /// [`rgk_core::BadInput`] as [`FlagshipOpsLaunch::new`] does, and when `work` is too small,
    /// `op` is a batch or K has fewer than `splits` values.
    pub fn split_k(
        gpu: &'a Gpu,
        cfg: &'static FlagshipOpsConfig,
        op: &Gemm,
        [a, b, work]: [&'a DeviceSlice<f32>; 3],
        splits: u32,
        group: u32,
    ) -> Result<FlagshipOpsLaunch<'a>> {
        op.check()?;
        let (need_a, need_b, _) = op.min_lens();
        check_len("A", a.len(), need_a, false)?;
        check_len("B", b.len(), need_b, false)?;
        check_len(
            "the split-K workspace",
            work.len(),
            splits as usize * op.m * op.n,
            false,
        )?;
        if op.batch != 1 || splits < 2 || op.k < splits as usize {
            return bad_input(format!(
                "split-K takes one problem with K ({}) of at least {splits} values (splits ≥ 2)",
                op.k
            ));
        }
        Self::check_variant(cfg, op, a, b)?;
        let ks = op.k / splits as usize;
        let part = Gemm {
            k: ks,
            alpha: 1.0,
            beta: 0.0,
            ldc: op.n,
            batch: splits as usize,
            ..*op
        };
        // Problem s starts s·ks k-values further along K: columns of A (stored as is) or rows
        // of A stored transposed, rows of B or columns of B stored transposed. Each problem
        // reads k-values below splits·ks ≤ K: inside the buffers checked above.
        let stride_a = ks * if op.op_a == Op::N { 1 } else { op.lda };
        let stride_b = ks * if op.op_b == Op::N { op.ldb } else { 1 };
        let raw = |s: &DeviceSlice<f32>| s.as_device_ptr().as_raw();
        let span = |s: &DeviceSlice<f32>, len: usize| raw(s)..raw(s) + 4 * len as u64;
        let w = span(work, splits as usize * op.m * op.n);
        for (what, r) in [("A", span(a, need_a)), ("B", span(b, need_b))] {
            if r.start < w.end && w.start < r.end {
                return bad_input(format!("the split-K workspace overlaps {what}"));
            }
        }
        Self::prepared(
            gpu,
            cfg,
            &part,
            [raw(a), raw(b), raw(work)],
            [stride_a as u64, stride_b as u64, (op.m * op.n) as u64],
            group,
            (Schedule::DataParallel, None),
        )
    }

    /// Refuses `cfg` for `op` when its operations are not `op`'s or it copies in 16-byte
    /// pieces that the operands do not allow.
    fn check_variant(
        cfg: &FlagshipOpsConfig,
        op: &Gemm,
        a: &DeviceSlice<f32>,
        b: &DeviceSlice<f32>,
    ) -> Result<()> {
        if cfg.ops != [op.op_a, op.op_b] {
            return bad_input(format!(
                "{} computes op(A) = {}, op(B) = {}, not the problem's {}, {}",
                cfg.name,
                cfg.ops[0].letter(),
                cfg.ops[1].letter(),
                op.op_a.letter(),
                op.op_b.letter()
            ));
        }
        if cfg.vec_a && !op.a_straight_vector_ok(a) {
            return bad_input(format!(
                "{} copies A in 16-byte pieces, which needs A stored transposed with a leading \
                 dimension (and stride) a multiple of 4 and a 16-byte aligned buffer",
                cfg.name
            ));
        }
        if cfg.vec && !op.straight_vector_ok(a, b) {
            return bad_input(format!(
                "{} copies in 16-byte pieces, which needs the leading dimension (and stride) of \
                 A stored transposed and of B stored as is a multiple of 4 and 16-byte aligned \
                 buffers",
                cfg.name
            ));
        }
        Ok(())
    }

    /// The launch of `cfg` for the batch `op` describes at the device addresses `ptrs` with
    /// `strides` between problems; the caller has checked that every problem is inside its
    /// buffers and no two problems' C overlap.
    fn prepared(
        gpu: &'a Gpu,
        cfg: &'static FlagshipOpsConfig,
        op: &Gemm,
        [a, b, c]: [u64; 3],
        [stride_a, stride_b, stride_c]: [u64; 3],
        group: u32,
        (schedule, segments): (Schedule, Option<u32>),
    ) -> Result<FlagshipOpsLaunch<'a>> {
        if group == 0 {
            bail!("the rasterization group must be at least 1");
        }
        let (func, per_sm) =
            launch_cache::kernel(gpu, cfg.name, cfg.threads(), cfg.shared_bytes())?;
        let (m, n, k) = (op.m as u32, op.n as u32, op.k as u32);
        let (tiles, ktiles) = (cfg.tiles(m, n), cfg.ktiles(k));
        let split = match (op.batch > 1, schedule, segments) {
            // Stream-K's workspace holds one problem.
            (true, ..) | (false, Schedule::DataParallel, None) => {
                plan(Schedule::DataParallel, tiles, ktiles, 0)
            }
            (false, _, Some(s)) => segmented(tiles, ktiles, s),
            // The tuned body (`FLAGSHIP_BATCHED`) on one problem takes the N,N flagship's
            // balanced grid (session 10: single problems with a transposed operand run it
            // without a pre-pass, `route::single_t`); the variants keep `stream_k::plan`, the
            // grid the route model was calibrated with.
            (false, Schedule::StreamK, None) if cfg.tuned => {
                let wave = wave_blocks_override().unwrap_or(1);
                let sms = launch_cache::multiprocessors(gpu)?;
                let slots = sk_slots(per_sm, TUNED_OPS_SK_SLOTS);
                balanced_plan_per_sm(Schedule::StreamK, tiles, ktiles, sms, slots, wave)
            }
            (false, Schedule::StreamK, None) => plan(
                Schedule::StreamK,
                tiles,
                ktiles,
                per_sm * launch_cache::multiprocessors(gpu)?,
            ),
        };
        let mut g = SgemmParams {
            a: a as *const f32,
            b: b as *const f32,
            c: c as *mut f32,
            partials: std::ptr::null_mut(),
            counters: std::ptr::null_mut(),
            m,
            n,
            k,
            // `check` bounds every leading dimension by u32::MAX.
            lda: op.lda as u32,
            ldb: op.ldb as u32,
            ldc: op.ldc as u32,
            alpha: op.alpha,
            beta: op.beta,
            group,
            sk_blocks: split.sk_blocks,
            sk_tiles: split.sk_tiles,
        };
        let mut ws = None;
        if split.sk_blocks > 0 {
            let w = held_workspace(
                gpu,
                split.slots() as usize,
                (cfg.bm * cfg.bn) as usize,
                split.sk_tiles as usize,
            )?;
            (g.partials, g.counters) = (w.partials(), w.counters());
            ws = Some(w);
        }
        let params = SgemmOpsParams {
            g,
            stride_a,
            stride_b,
            stride_c,
        };
        Ok(FlagshipOpsLaunch {
            gpu,
            func,
            cfg,
            params,
            split,
            grid: (split.grid(tiles), op.batch as u32),
            _workspace: ws,
            _buffers: PhantomData,
        })
    }

    /// How the launch shares out the tiles (of each problem).
    pub fn split(&self) -> Split {
        self.split
    }

    /// Launches it on the GPU's stream, without waiting.
    pub fn launch(&self) -> Result<()> {
        self.launch_on(&self.gpu.stream)
    }

    /// Launches it on `stream` (of the GPU's context), without waiting; a stream-K launch only
    /// on the GPU's own stream (its workspace's).
    pub fn launch_on(&self, stream: &Stream) -> Result<()> {
        if self.split.sk_blocks > 0 && stream.as_inner() != self.gpu.stream.as_inner() {
            bail!("a stream-K launch must run on the GPU's own stream, which owns its workspace");
        }
        let args = [&self.params as *const SgemmOpsParams as *mut c_void];
        let grid = GridSize::xy(self.grid.0, self.grid.1);
        let block = BlockSize::x(self.cfg.threads());
        // SAFETY: the argument list matches the kernel's signature (one `SgemmOpsParams`,
        // checked against the PTX by a test below). `new` (or `split_k`, for its K-ranges and
        // workspace slices) checked every problem of the batch
        // against the buffers (borrowed as long as `self` lives), that their C do not overlap
        // (strides at least a matrix) nor overlap A or B, the operations and the 16-byte copies'
        // conditions; the grid is the split's blocks x the batch (≤ 65535), stream-K only for a
        // batch of one and only on the GPU's stream (above), with the workspace `self` holds.
        unsafe { stream.launch(&self.func, grid, block, self.cfg.shared_bytes(), &args) }
            .with_context(|| format!("launching {}", self.cfg.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_take_one_ops_params_struct() {
        let want = format!("[{}]", size_of::<SgemmOpsParams>());
        for cfg in FLAGSHIP_OPS
            .iter()
            .chain(FLAGSHIP_BATCHED)
            .chain(FLAGSHIP_T_U)
        {
            let head = format!(".visible .entry {}(", cfg.name);
            let Some(at) = gpu_kernels::PTX.find(&head) else {
                panic!("{} not in the PTX", cfg.name)
            };
            let params = &gpu_kernels::PTX[at + head.len()..];
            let params = &params[..params.find(')').unwrap()];
            assert_eq!(params.matches(".param").count(), 1, "{}", cfg.name);
            assert!(params.trim().ends_with(&want), "{}: {params}", cfg.name);
        }
    }
}

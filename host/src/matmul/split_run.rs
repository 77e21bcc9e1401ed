//! The runner of `route`'s routes: the pre-pass (`sgemm_transpose` into scratch memory), the
//! split-K batch (`FlagshipOpsLaunch::split_k`) and its sum (`sgemm_split_sum`), and the
//! GPU-side facts the model needs (blocks per multiprocessor of each tile). The scratch
//! buffers, like stream-K's workspace, belong to the GPU's own stream: one set per [`Gpu`],
//! grown as needed and used in launch order.
use std::{cell::RefCell, collections::HashMap, ffi::c_void, rc::Rc};

use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, GridSize},
    memory::{DeviceBuffer, DeviceSlice},
};
use gpu_kernels::matmul::{
    Op,
    split_k::{
        SPLIT_SUM_KERNEL, SPLIT_SUM_THREADS, SplitSumParams, TRANSPOSE_KERNEL, TRANSPOSE_ROWS,
        TRANSPOSE_TILE, TransposeParams,
    },
};

use super::{
    flagship::{FlagshipLaunch, flagship_config},
    flagship_ops::FlagshipOpsLaunch,
    launch_cache,
    problem::Gemm,
    route::{self, Aligned, Machine, Prep, Route, SplitSum, TILES, variant},
    select::{DEFAULT_GROUP, group_override},
    select_ops::batch_kernel,
};
use crate::gpu::Gpu;

/// The scratch buffers of one GPU (the pre-passed A and B and the split-K slices), the GPU as
/// the model sees it, and the routes chosen so far (a choice weighs hundreds of candidates: a
/// problem sent again, as applications and benchmarks do, is looked up instead).
#[derive(Default)]
struct Scratch {
    slots: [Option<Rc<DeviceBuffer<f32>>>; 3],
    machine: Option<Machine>,
    chosen: HashMap<RouteKey, Route>,
}

/// What a route depends on: the shape, operations, batch, operand alignment and whether C is
/// read.
type RouteKey = (usize, usize, usize, [Op; 2], usize, Aligned, bool);

type ScratchCell = RefCell<Scratch>;
const SLOT_A: usize = 0;
const SLOT_B: usize = 1;
const SLOT_WORK: usize = 2;

/// A scratch buffer of at least `len` floats (the GPU's, reused when large enough; a launch
/// keeps its own reference, and a buffer replaced while a kernel still reads it is freed only
/// after the device's work, as `cuMemFree` waits).
fn scratch(gpu: &Gpu, slot: usize, len: usize) -> Result<Rc<DeviceBuffer<f32>>> {
    let cell = gpu.runner_state::<ScratchCell>();
    let mut s = cell.borrow_mut();
    if let Some(b) = &s.slots[slot]
        && b.len() >= len
    {
        return Ok(b.clone());
    }
    // SAFETY: every element the kernels read is written first (the pre-pass writes every cell
    // of its matrices before the GEMM reads them; every split writes its whole slice before the
    // sum reads it), and no host code reads the buffer.
    let buf = Rc::new(
        unsafe { DeviceBuffer::uninitialized(len.max(1)) }
            .context("allocating the SGEMM scratch memory")?,
    );
    s.slots[slot] = Some(buf.clone());
    Ok(buf)
}

/// The GPU as the model sees it (read once per GPU): multiprocessors and each tile's blocks
/// per multiprocessor (of its N,N variant).
pub fn machine(gpu: &Gpu) -> Result<Machine> {
    let cell = gpu.runner_state::<ScratchCell>();
    if let Some(m) = cell.borrow().machine {
        return Ok(m);
    }
    let mut per_sm = [1; 4];
    for (t, slot) in per_sm.iter_mut().enumerate().take(TILES.len()) {
        let cfg = variant([Op::N, Op::N], t, true);
        *slot = launch_cache::kernel(gpu, cfg.name, cfg.threads(), cfg.shared_bytes())?.1;
    }
    let m = Machine {
        sms: launch_cache::multiprocessors(gpu)?,
        per_sm,
    };
    cell.borrow_mut().machine = Some(m);
    Ok(m)
}

/// Whether A and B, where they are, allow 16-byte copies along their stored rows.
pub fn aligned(op: &Gemm, a: &DeviceSlice<f32>, b: &DeviceSlice<f32>) -> Aligned {
    let (need_a, need_b, _) = op.min_lens();
    let ((_, wa), (_, wb)) = route::stored_shapes(op);
    let ok = |ld: usize, stride: usize, s: &DeviceSlice<f32>, need: usize, width: usize| {
        ld.is_multiple_of(4)
            && (op.batch == 1 || stride.is_multiple_of(4))
            && s.as_device_ptr().as_raw().is_multiple_of(16)
            && op.vector_tail_ok(s.len(), need, width)
    };
    Aligned {
        a: ok(op.lda, op.stride_a, a, need_a, wa),
        b: ok(op.ldb, op.stride_b, b, need_b, wb),
    }
}

/// The route for `op` on A and B (`route::choose_route`, remembered per problem).
pub fn choose(gpu: &Gpu, op: &Gemm, a: &DeviceSlice<f32>, b: &DeviceSlice<f32>) -> Result<Route> {
    let al = aligned(op, a, b);
    let key = (
        op.m,
        op.n,
        op.k,
        [op.op_a, op.op_b],
        op.batch,
        al,
        op.beta == 0.0,
    );
    let cell = gpu.runner_state::<ScratchCell>();
    if let Some(&r) = cell.borrow().chosen.get(&key) {
        return Ok(r);
    }
    let r = route::choose_route(op, al, &machine(gpu)?);
    cell.borrow_mut().chosen.insert(key, r);
    Ok(r)
}

/// The route `RGK_SGEMM_ROUTE` asks for ([`route::parse_route`]), if any, for timing runs.
pub fn route_override() -> Option<Route> {
    std::env::var("RGK_SGEMM_ROUTE")
        .ok()
        .and_then(|v| route::parse_route(&v))
}

/// An operand after the pre-pass: where it is, its operation, leading dimension and stride.
struct Moved {
    buf: Rc<DeviceBuffer<f32>>,
    op: Op,
    ld: usize,
    stride: usize,
}

/// Copies operand `slot` (A or B, stored `rows x cols` with rows `ld` apart, `batch` of them
/// `stride` apart, or one shared by all when the stride is 0) into scratch as `prep` says, on
/// the GPU's stream.
#[allow(clippy::too_many_arguments)]
fn pre_pass(
    gpu: &Gpu,
    slot: usize,
    prep: Prep,
    src: &DeviceSlice<f32>,
    (rows, cols): (usize, usize),
    (op, ld, stride): (Op, usize, usize),
    batch: usize,
) -> Result<Moved> {
    let transpose = prep == Prep::Transpose;
    let (out_rows, out_cols) = if transpose {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let ld_out = out_cols.next_multiple_of(4);
    let copies = if stride == 0 { 1 } else { batch };
    let stride_out = if stride == 0 { 0 } else { out_rows * ld_out };
    let buf = scratch(gpu, slot, copies * out_rows * ld_out)?;
    let params = TransposeParams {
        src: src.as_device_ptr().as_raw() as *const f32,
        dst: buf.as_device_ptr().as_raw() as *mut f32,
        rows: rows as u32,
        cols: cols as u32,
        ld_src: ld as u32,
        ld_dst: ld_out as u32,
        stride_src: stride as u64,
        stride_dst: stride_out as u64,
        transpose: transpose as u32,
    };
    let func = gpu.function(TRANSPOSE_KERNEL)?;
    let grid = GridSize::xyz(
        cols.div_ceil(TRANSPOSE_TILE as usize) as u32,
        rows.div_ceil(TRANSPOSE_TILE as usize) as u32,
        copies as u32,
    );
    let args = [&params as *const TransposeParams as *mut c_void];
    // SAFETY: one `TransposeParams` argument, as the kernel takes. The caller checked the
    // problem against the source buffer (`Gemm::check_buffers`: `copies` matrices of `rows x
    // cols`, rows `ld` apart, `stride` apart); the scratch buffer holds `copies` matrices of
    // `out_rows` rows of `ld_out ≥ out_cols` floats, disjoint, and is not the source (the
    // caller's buffers are its own allocations); grid and block as the kernel's contract says
    // (rows, cols ≤ 16384 and copies ≤ 65535 fit the grid). The scratch is used on the GPU's
    // stream only, in launch order.
    unsafe {
        gpu.stream.launch(
            &func,
            grid,
            BlockSize::xy(TRANSPOSE_TILE, TRANSPOSE_ROWS),
            0,
            &args,
        )
    }
    .context("launching the SGEMM pre-pass")?;
    let flip = |o: Op| if o == Op::N { Op::T } else { Op::N };
    Ok(Moved {
        buf,
        op: if transpose { flip(op) } else { op },
        ld: ld_out,
        stride: stride_out,
    })
}

/// The library's default launch for the problem a pre-pass leaves (`sgemm::launch_default`).
pub type Direct<'d> = dyn Fn(&Gemm, [&DeviceSlice<f32>; 3]) -> Result<()> + 'd;

/// Runs `op` on A, B and C by `route` on the GPU's stream (not waiting): the pre-pass, then
/// the split-K batch and its sum, or the library's default kernel (`direct`) for the problem
/// the pre-pass left. `op` has been checked against the buffers.
pub fn run(
    gpu: &Gpu,
    route: Route,
    op: &Gemm,
    [a, b, c]: [&DeviceSlice<f32>; 3],
    direct: &Direct,
) -> Result<()> {
    let (sa, sb) = route::stored_shapes(op);
    let moved_a = match route.a {
        Prep::Keep => None,
        p => Some(pre_pass(
            gpu,
            SLOT_A,
            p,
            a,
            sa,
            (op.op_a, op.lda, op.stride_a),
            op.batch,
        )?),
    };
    let moved_b = match route.b {
        Prep::Keep => None,
        p => Some(pre_pass(
            gpu,
            SLOT_B,
            p,
            b,
            sb,
            (op.op_b, op.ldb, op.stride_b),
            op.batch,
        )?),
    };
    let mut op2 = *op;
    if let Some(m) = &moved_a {
        (op2.op_a, op2.lda, op2.stride_a) = (m.op, m.ld, m.stride);
    }
    if let Some(m) = &moved_b {
        (op2.op_b, op2.ldb, op2.stride_b) = (m.op, m.ld, m.stride);
    }
    let a2: &DeviceSlice<f32> = moved_a.as_ref().map_or(a, |m| &m.buf);
    let b2: &DeviceSlice<f32> = moved_b.as_ref().map_or(b, |m| &m.buf);
    let Some(split) = route.split else {
        return direct(&op2, [a2, b2, c]);
    };
    let splits = split.splits;
    let group = group_override().unwrap_or(DEFAULT_GROUP);
    if split.fused() {
        let vec = op2.straight_vector_ok(a2, b2);
        let ops = [op2.op_a, op2.op_b];
        if split.sum == SplitSum::InFlagship && route::fused_on_flagship(ops, vec) {
            let cfg = flagship_config(&format!("sgemm_{}", TILES[split.tile]))?;
            return FlagshipLaunch::segmented(gpu, cfg, &op2, [a2, b2, c], group, splits)?.launch();
        }
        let cfg = variant(ops, split.tile, vec);
        return FlagshipOpsLaunch::segmented(gpu, cfg, &op2, [a2, b2, c], group, splits)?.launch();
    }
    let work = scratch(gpu, SLOT_WORK, splits as usize * op.m * op.n)?;
    let vec = op2.straight_vector_ok(a2, b2);
    let cfg = batch_kernel([op2.op_a, op2.op_b], split.tile, vec);
    FlagshipOpsLaunch::split_k(gpu, cfg, &op2, [a2, b2, &work], splits, group)?.launch()?;
    sum(gpu, &op2, [a2, b2, c], &work, splits)
}

/// Launches the split-K sum: C = alpha·(the slices in `work` + the tail's products) + beta·C.
fn sum(
    gpu: &Gpu,
    op: &Gemm,
    [a, b, c]: [&DeviceSlice<f32>; 3],
    work: &DeviceSlice<f32>,
    splits: u32,
) -> Result<()> {
    let k0 = op.k / splits as usize * splits as usize;
    let tail = op.k - k0;
    // The tail's first k-value: a column of A (or a row of A stored transposed), a row of B
    // (or a column of B stored transposed); not formed when there is no tail.
    let (a_row, a_k) = if op.op_a == Op::N {
        (op.lda, 1)
    } else {
        (1, op.lda)
    };
    let (b_k, b_col) = if op.op_b == Op::N {
        (op.ldb, 1)
    } else {
        (1, op.ldb)
    };
    let at = |s: &DeviceSlice<f32>, off: usize| s.as_device_ptr().as_raw() + 4 * off as u64;
    let (a_off, b_off) = if tail > 0 {
        (k0 * a_k, k0 * b_k)
    } else {
        (0, 0)
    };
    let params = SplitSumParams {
        work: at(work, 0) as *const f32,
        c: at(c, 0) as *mut f32,
        a: at(a, a_off) as *const f32,
        b: at(b, b_off) as *const f32,
        m: op.m as u32,
        n: op.n as u32,
        ldc: op.ldc as u32,
        splits,
        tail: tail as u32,
        a_row: a_row as u32,
        a_k: a_k as u32,
        b_k: b_k as u32,
        b_col: b_col as u32,
        alpha: op.alpha,
        beta: op.beta,
    };
    let func = gpu.function(SPLIT_SUM_KERNEL)?;
    let blocks = (op.m * op.n)
        .div_ceil(SPLIT_SUM_THREADS as usize)
        .min(8 * launch_cache::multiprocessors(gpu)? as usize) as u32;
    let args = [&params as *const SplitSumParams as *mut c_void];
    // SAFETY: one `SplitSumParams` argument, as the kernel takes. `work` holds the `splits`
    // slices the split batch wrote before it on this stream (`split_k` checked its size); C
    // (checked by the caller) is disjoint from `work`, A and B; the tail reads k-values k0..K
    // of op(A) and op(B), inside the checked buffers; any 1-D grid is allowed.
    unsafe {
        gpu.stream
            .launch(&func, blocks, SPLIT_SUM_THREADS, 0, &args)
    }
    .context("launching the split-K sum")
}

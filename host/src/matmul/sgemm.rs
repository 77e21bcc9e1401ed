//! The library's SGEMM: `C = alpha·A·B + beta·C` for row-major `f32` matrices, on host slices or
//! on the caller's device buffers.
//!
//! It runs the flagship kernels (`gpu-kernels/src/matmul/flagship.rs`), and for tiny N or M
//! (matrix–vector products included) the skinny kernels (`matmul/skinny.rs`), which take any
//! M, N, K ≥ 1 and leading dimensions ≥ the widths as they are: edge tiles are handled in the
//! kernel, so nothing is padded or copied. The kernel for a problem, its rasterization group and
//! its schedule come from `select` (the shape's class, the tuning cache that `host tune` writes,
//! else the defaults); the launch from `flagship` or `skinny`. Transposed operands and strided batches run the
//! variants of `flagship_ops`, picked by `select_ops`, except batches of N,N problems of M, N ≤
//! 32, which run `batched_small` (several problems per block). This module reaches neither the
//! tuner nor cuBLAS.
use anyhow::Context as _;
use cust::{
    memory::{CopyDestination, DeviceBuffer, DeviceSlice},
    stream::Stream,
};
use gpu_kernels::matmul::{batched_small::batched_small_config, stream_k::Schedule};

use super::{
    batched_small::{self, BatchedSmallLaunch},
    flagship::{FlagshipLaunch, flagship_config},
    flagship_ops::{FlagshipOpsLaunch, flagship_ops_config},
    problem::{Gemm, check_len, check_shape},
    route::{Route, single_t},
    select::{self, Choice},
    select_ops::{self, choose_ops_kernel},
    skinny::{SkinnyLaunch, skinny_config},
    skinny_split, split_run,
};
use crate::{error::Result, gpu::Gpu};

/// `C = A·B` on host memory: `a` is `m x k`, `b` is `k x n`, both dense row-major; returns the
/// `m x n` product. Dimensions are 1..=16384 each.
///
/// ```no_run
/// let gpu = host::Gpu::new(None)?;
/// let (m, n, k) = (3, 2, 4);
/// let a = vec![1.0f32; m * k];
/// let b = vec![0.5f32; k * n];
/// let c = host::sgemm(&gpu, &a, &b, m, n, k)?;
/// assert_eq!(c, vec![2.0; m * n]);
/// # Ok::<(), host::Error>(())
/// ```
pub fn sgemm(gpu: &Gpu, a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Result<Vec<f32>> {
    check_shape(m, n, k)?;
    check_len("A", a.len(), m * k, true)?;
    check_len("B", b.len(), k * n, true)?;
    let d_a = DeviceBuffer::from_slice(a).context("copying A to the GPU")?;
    let d_b = DeviceBuffer::from_slice(b).context("copying B to the GPU")?;
    let mut d_c = DeviceBuffer::<f32>::zeroed(m * n).context("allocating C on the GPU")?;
    sgemm_device(gpu, &d_a, &d_b, &mut d_c, m, n, k)?;
    let mut c = vec![0f32; m * n];
    d_c.copy_to(&mut c[..]).context("copying C back")?;
    Ok(c)
}

/// `C = A·B` on device buffers: `a` holds `m x k`, `b` `k x n` and `c` `m x n` dense
/// row-major matrices (each buffer at least that long). Runs on `gpu.stream` and returns when
/// the product is in `c`. For scaling and leading dimensions, see [`gemm_device`].
pub fn sgemm_device(
    gpu: &Gpu,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
    m: usize,
    n: usize,
    k: usize,
) -> Result<()> {
    gemm_device(gpu, &Gemm::new(m, n, k), a, b, c)
}

/// `C = alpha·op(A)·op(B) + beta·C` as `op` describes (transposes, a strided batch, leading
/// dimensions, alpha and beta), on the caller's device buffers, with no padding and no copies.
/// Runs on `gpu.stream` and returns when the result is in `c`.
///
/// Fails with [`crate::Error::BadInput`] (one sentence naming the problem) on a dimension out of
/// 1..=16384, a leading dimension smaller than its stored row width, a batch out of 1..=65535, a
/// stride smaller than its matrix, a buffer too small for its matrices (the whole batch), or C
/// overlapping A or B.
///
/// ```no_run
/// use cust::memory::DeviceBuffer;
/// let gpu = host::Gpu::new(None)?;
/// // C (2 x 3, rows 4 apart) = 2·A·B + C, with A 2 x 5 and B 5 x 3 dense.
/// let a = DeviceBuffer::from_slice(&[1.0f32; 10]).unwrap();
/// let b = DeviceBuffer::from_slice(&[1.0f32; 15]).unwrap();
/// let mut c = DeviceBuffer::from_slice(&[1.0f32; 8]).unwrap();
/// let op = host::Gemm::new(2, 3, 5).alpha(2.0).beta(1.0).leading_dims(5, 3, 4);
/// host::gemm_device(&gpu, &op, &a, &b, &mut c)?;
/// // 8 problems C_i = A_iᵀ·B_i, A_i stored 5 x 2, packed one after the other.
/// let op = host::Gemm::new(2, 3, 5).ops(host::Op::T, host::Op::N).batch(8);
/// let a = DeviceBuffer::from_slice(&[1.0f32; 8 * 10]).unwrap();
/// let b = DeviceBuffer::from_slice(&[1.0f32; 8 * 15]).unwrap();
/// let mut c = DeviceBuffer::from_slice(&[0.0f32; 8 * 6]).unwrap();
/// host::gemm_device(&gpu, &op, &a, &b, &mut c)?;
/// # Ok::<(), host::Error>(())
/// ```
pub fn gemm_device(
    gpu: &Gpu,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    gemm_device_on(gpu, None, None, op, a, b, c)
}

/// [`gemm_device`] enqueued on the caller's `stream` (of `gpu`'s context) without waiting: it
/// returns once the kernel is launched, and the work is ordered with the rest of `stream`. The
/// caller must not read `c`, nor write `a`, `b` or `c`, until `stream` has passed it
/// (`stream.synchronize()`, an event). On a stream other than `gpu.stream`, the launch is
/// data-parallel (stream-K's workspace belongs to `gpu.stream`). Argument errors are found before
/// anything is enqueued; a failure of the kernel itself shows at the caller's synchronization.
pub fn gemm_device_async(
    gpu: &Gpu,
    stream: &Stream,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    gemm_device_on(gpu, Some(stream), None, op, a, b, c)
}

/// [`gemm_device`] with the flagship kernel named `kernel` (an N,N one of `FLAGSHIP` for a
/// plain problem, or a variant of `FLAGSHIP_OPS` with the problem's operations) under
/// `schedule` instead of the library's picks (for tests and tuning); a kernel that copies in
/// 16-byte pieces refuses operands that do not allow them.
pub fn gemm_device_with_kernel(
    gpu: &Gpu,
    kernel: &str,
    schedule: Schedule,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    gemm_device_on(gpu, None, Some((kernel, schedule)), op, a, b, c)
}

/// [`gemm_device_with_kernel`] enqueued on `gpu.stream` without waiting, as
/// [`gemm_device_async`] is (timing runs: `host matmul --kernel` with the BLAS flags).
pub fn gemm_device_with_kernel_async(
    gpu: &Gpu,
    kernel: &str,
    schedule: Schedule,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    gemm_device_on(
        gpu,
        Some(&gpu.stream),
        Some((kernel, schedule)),
        op,
        a,
        b,
        c,
    )
}

/// [`gemm_device`] by `route` (`route::Route`: pre-pass, split-K) instead of the library's
/// pick (for tests and timing runs); the route's split must leave each split at least one
/// k-value. M and N of at most 64 take the route as well.
pub fn gemm_device_with_route(
    gpu: &Gpu,
    route: Route,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    gemm_device_with_route_async(gpu, route, op, a, b, c)?;
    gpu.stream
        .synchronize()
        .context("SGEMM failed on the GPU")?;
    Ok(())
}

/// [`gemm_device_with_route`] enqueued on `gpu.stream` without waiting (timing runs: `host
/// matmul --kernel route:…`); the caller synchronizes before reading C.
pub fn gemm_device_with_route_async(
    gpu: &Gpu,
    route: Route,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    op.check_buffers([a, b, c])?;
    let direct =
        |op: &Gemm, bufs: [&DeviceSlice<f32>; 3]| launch_default(gpu, &gpu.stream, true, op, bufs);
    split_run::run(gpu, route, op, [a, b, c], &direct)?;
    Ok(())
}

fn gemm_device_on(
    gpu: &Gpu,
    stream: Option<&Stream>,
    choice: Option<(&str, Schedule)>,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    // Checked before a kernel is picked for it; the launches check again (cheaply), as they
    // must, being the ones that launch. The operands' layout decides which kernels may run.
    op.check_buffers([a, b, c])?;
    let own = stream.is_none_or(|s| s.as_inner() == gpu.stream.as_inner());
    let on = stream.unwrap_or(&gpu.stream);
    // Batches of N,N problems of M, N <= 32: several problems per block (`batched_small`).
    let batched = match choice {
        Some((name, _)) => batched_small_config(name).map(Some),
        None => batched_small::takes(op).then_some(None),
    };
    if let Some(cfg) = batched {
        BatchedSmallLaunch::new(gpu, cfg, op, [a, b, c])?.launch_on(on)?;
    } else {
        gemm_direct_or_routed(gpu, on, own, choice, op, [a, b, c])?;
    }
    if stream.is_none() {
        gpu.stream
            .synchronize()
            .context("SGEMM failed on the GPU")?;
    }
    Ok(())
}

/// [`gemm_device_on`] past the small batches: the named kernel, the route of `pick_route`, or
/// the default kernel.
fn gemm_direct_or_routed(
    gpu: &Gpu,
    on: &Stream,
    own: bool,
    choice: Option<(&str, Schedule)>,
    op: &Gemm,
    [a, b, c]: [&DeviceSlice<f32>; 3],
) -> Result<()> {
    match choice {
        Some(named) => launch_named(gpu, on, own, named, op, [a, b, c])?,
        // The pre-pass's and the split's scratch memory, like stream-K's workspace, belong to
        // `gpu.stream`: on another stream the problem goes straight to its kernel.
        None if own => {
            let direct =
                |op: &Gemm, bufs: [&DeviceSlice<f32>; 3]| launch_default(gpu, on, own, op, bufs);
            match pick_route(gpu, op, a, b)? {
                Route::DIRECT => direct(op, [a, b, c])?,
                route => split_run::run(gpu, route, op, [a, b, c], &direct)?,
            }
        }
        None => launch_default(gpu, on, own, op, [a, b, c])?,
    }
    Ok(())
}

/// The route for `op` (`RGK_SGEMM_ROUTE`, else `route::choose_route` where M and N are both
/// above [`SKINNY_LIMIT`], else `skinny_split::thin_route`), never for a named kernel.
fn pick_route(
    gpu: &Gpu,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
) -> anyhow::Result<Route> {
    match split_run::route_override() {
        Some(r) => Ok(r),
        // Thin problems: split-K where their few tiles underfeed the GPU (`skinny_split`).
        None if op.m <= SKINNY_LIMIT || op.n <= SKINNY_LIMIT => {
            Ok(skinny_split::thin_route(op, &split_run::machine(gpu)?))
        }
        None => split_run::choose(gpu, op, a, b),
    }
}

/// M or N at most this is the skinny kernels' (and the small batches') domain, which the cost
/// model of `route` leaves to `skinny_split`.
const SKINNY_LIMIT: usize = skinny_split::THIN_SIDE;

/// The library's default kernel for `op` on `on` (`own`: the GPU's stream): a variant of
/// `select_ops` for a transposed or batched problem, else the skinny or flagship kernel of
/// `select`.
fn launch_default(
    gpu: &Gpu,
    on: &Stream,
    own: bool,
    op: &Gemm,
    [a, b, c]: [&DeviceSlice<f32>; 3],
) -> anyhow::Result<()> {
    if !op.is_plain() {
        let vec = op.straight_vector_ok(a, b);
        let cfg = choose_ops_kernel(op, vec, &split_run::machine(gpu)?);
        // B's rows unaligned but A's not: the 4-byte T,N body's twin with A in 16-byte pieces.
        let cfg = single_t::a_aligned_twin(cfg, op.a_straight_vector_ok(a));
        let (group, schedule) = select_ops::ops_launch_settings(own);
        return FlagshipOpsLaunch::new(gpu, cfg, op, [a, b, c], group, schedule)?.launch_on(on);
    }
    let vec_b = op.b_vector_ok(b);
    // The skinny kernels' split-K workspace, like stream-K's, belongs to `gpu.stream`: on
    // another stream a tiny-N or tiny-M problem runs the flagship.
    let choice = if own {
        select::pick_any(gpu, op.m, op.n, op.k, vec_b)?
    } else {
        Choice::Flagship(select::pick(gpu, op.m, op.n, op.k, vec_b)?)
    };
    launch_choice(gpu, on, own, choice, None, op, [a, b, c])
}

/// `op` with the kernel named in `(name, schedule)`.
fn launch_named(
    gpu: &Gpu,
    on: &Stream,
    own: bool,
    (name, schedule): (&str, Schedule),
    op: &Gemm,
    [a, b, c]: [&DeviceSlice<f32>; 3],
) -> anyhow::Result<()> {
    let bad = |e: anyhow::Error| anyhow::Error::new(rgk_core::BadInput(e.to_string()));
    if let Ok(cfg) = flagship_ops_config(name) {
        let (group, _) = select_ops::ops_launch_settings(own);
        return FlagshipOpsLaunch::new(gpu, cfg, op, [a, b, c], group, schedule)?.launch_on(on);
    }
    if !op.is_plain() {
        // Only a named N,N kernel gets here with a transposed or batched problem.
        return Err(bad(anyhow::anyhow!(
            "the N,N flagship kernels take no transposes and no batch: name a kernel of \
             `host info`'s flagship_ops family"
        )));
    }
    let picked = match skinny_config(name) {
        Ok(cfg) => Ok(Choice::Skinny(cfg)),
        Err(_) => flagship_config(name).map(Choice::Flagship),
    };
    launch_choice(
        gpu,
        on,
        own,
        picked.map_err(bad)?,
        Some(schedule),
        op,
        [a, b, c],
    )
}

/// Launches a plain problem's skinny or flagship kernel, under `asked` or the selected schedule.
fn launch_choice(
    gpu: &Gpu,
    on: &Stream,
    own: bool,
    choice: Choice,
    asked: Option<Schedule>,
    op: &Gemm,
    [a, b, c]: [&DeviceSlice<f32>; 3],
) -> anyhow::Result<()> {
    match choice {
        Choice::Skinny(cfg) if own => SkinnyLaunch::new(gpu, cfg, op, [a, b, c])?.launch(),
        Choice::Skinny(_) => Err(anyhow::Error::new(rgk_core::BadInput(
            "the skinny kernels run on the GPU's own stream only: name a flagship kernel for \
             another stream"
                .into(),
        ))),
        Choice::Flagship(cfg) => {
            let vec_b = op.b_vector_ok(b);
            let (group, schedule) = select::launch_settings(gpu, cfg, op.m, op.n, op.k, vec_b);
            let schedule = asked.unwrap_or(schedule);
            let schedule = if own {
                schedule
            } else {
                Schedule::DataParallel
            };
            FlagshipLaunch::new(gpu, cfg, op, [a, b, c], group, schedule)?.launch_on(on)
        }
    }
}

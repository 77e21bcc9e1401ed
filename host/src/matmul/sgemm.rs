//! The library's SGEMM: `C = alpha·A·B + beta·C` for row-major `f32` matrices, on host slices or
//! on the caller's device buffers.
//!
//! It runs the flagship kernels (`gpu-kernels/src/matmul/flagship.rs`), which take any
//! M, N, K ≥ 1 and leading dimensions ≥ the widths as they are: edge tiles are handled in the
//! kernel, so nothing is padded or copied. The kernel for a problem comes from the tuning cache
//! that `host tune` writes (one winner per shape class, used only on the GPU, driver and commit
//! it was measured with), else from [`choose_kernel`], the default for every architecture
//! (docs/matmul.md has the measurements behind both). Its schedule, data-parallel or stream-K
//! (docs/stream-k.md), comes from the same cache, else stream-K, which is data-parallel
//! wherever the tiles fill whole waves or less than one.
use std::sync::OnceLock;

use anyhow::Context as _;
use cust::memory::{CopyDestination, DeviceBuffer, DeviceSlice};
use gpu_kernels::matmul::{FlagshipConfig, stream_k::Schedule};
use rgk_core::{
    bad_input,
    matmul::tune::{self as tuning, Loaded, ShapeClass, TuneCache, Winner},
};

use super::{
    flagship::{
        DEFAULT_GROUP, DEFAULT_SCHEDULE, FlagshipLaunch, b_vector_ok, flagship_config, gemm_params,
        group_override, schedule_override,
    },
    gpu::{MAX_DIM, check_shape},
};
use crate::{error::Result, gpu::Gpu};

/// One SGEMM: `C = alpha·A·B + beta·C` with `A` `m x k`, `B` `k x n` and `C` `m x n`, all
/// row-major, whose rows are `lda`, `ldb` and `ldc` floats apart. With `beta == 0`, C is not
/// read (as in BLAS: NaN or garbage in C does not leak into the result).
///
/// ```
/// let op = host::Gemm::new(3, 2, 4).alpha(2.0).beta(0.5).leading_dims(8, 2, 4);
/// assert_eq!(op.min_lens(), (2 * 8 + 4, 3 * 2 + 2, 2 * 4 + 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gemm {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub alpha: f32,
    pub beta: f32,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

impl Gemm {
    /// `C = A·B` for dense matrices: alpha 1, beta 0, leading dimensions equal to the widths.
    pub fn new(m: usize, n: usize, k: usize) -> Gemm {
        Gemm {
            m,
            n,
            k,
            alpha: 1.0,
            beta: 0.0,
            lda: k,
            ldb: n,
            ldc: n,
        }
    }

    pub fn alpha(self, alpha: f32) -> Gemm {
        Gemm { alpha, ..self }
    }

    pub fn beta(self, beta: f32) -> Gemm {
        Gemm { beta, ..self }
    }

    /// Rows of A, B and C `lda`, `ldb` and `ldc` floats apart (each at least its matrix's width).
    pub fn leading_dims(self, lda: usize, ldb: usize, ldc: usize) -> Gemm {
        Gemm {
            lda,
            ldb,
            ldc,
            ..self
        }
    }

    /// The fewest elements the buffers of A, B and C must hold: the last row ends at
    /// `(rows - 1)·ld + width`.
    pub fn min_lens(&self) -> (usize, usize, usize) {
        let span = |rows: usize, cols: usize, ld: usize| (rows - 1) * ld + cols;
        (
            span(self.m, self.k, self.lda),
            span(self.k, self.n, self.ldb),
            span(self.m, self.n, self.ldc),
        )
    }

    /// Checks the dimensions (1..=16384 each) and the leading dimensions ([`rgk_core::BadInput`]
    /// naming the first problem).
    pub fn check(&self) -> anyhow::Result<()> {
        check_shape(self.m, self.n, self.k)?;
        for (what, ld, width, wname) in [
            ("lda", self.lda, self.k, "K"),
            ("ldb", self.ldb, self.n, "N"),
            ("ldc", self.ldc, self.n, "N"),
        ] {
            if ld < width {
                return bad_input(format!(
                    "{what} = {ld} is smaller than the row width {wname} = {width}"
                ));
            }
            if ld > MAX_LD {
                return bad_input(format!(
                    "{what} = {ld} is too large: leading dimensions must be at most {MAX_LD}"
                ));
            }
        }
        Ok(())
    }
}

/// Largest accepted leading dimension: the kernels take them as 32-bit values.
pub const MAX_LD: usize = u32::MAX as usize;

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

/// `C = alpha·A·B + beta·C` as `op` describes, on the caller's device buffers, with no padding
/// and no copies. Runs on `gpu.stream` and returns when the result is in `c`.
///
/// Fails with [`crate::Error::BadInput`] (one sentence naming the problem) on a dimension out of
/// 1..=16384, a leading dimension smaller than its row width, a buffer too small for its
/// matrix, or C overlapping A or B.
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
/// # Ok::<(), host::Error>(())
/// ```
pub fn gemm_device(
    gpu: &Gpu,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    gemm_device_on(gpu, None, op, a, b, c)
}

/// [`gemm_device`] with the flagship kernel named `kernel` under `schedule` instead of the
/// library's picks (for tests and tuning); a kernel that copies B in 16-byte pieces refuses a B
/// that does not allow them.
pub fn gemm_device_with_kernel(
    gpu: &Gpu,
    kernel: &str,
    schedule: Schedule,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    gemm_device_on(gpu, Some((kernel, schedule)), op, a, b, c)
}

fn gemm_device_on(
    gpu: &Gpu,
    choice: Option<(&str, Schedule)>,
    op: &Gemm,
    a: &DeviceSlice<f32>,
    b: &DeviceSlice<f32>,
    c: &mut DeviceSlice<f32>,
) -> Result<()> {
    op.check()?;
    let (need_a, need_b, need_c) = op.min_lens();
    check_len("A", a.len(), need_a, false)?;
    check_len("B", b.len(), need_b, false)?;
    check_len("C", c.len(), need_c, false)?;
    let range = |s: &DeviceSlice<f32>, len: usize| {
        let start = s.as_device_ptr().as_raw();
        start..start + 4 * len as u64
    };
    let c_range = range(c, need_c);
    for (what, r) in [("A", range(a, need_a)), ("B", range(b, need_b))] {
        if r.start < c_range.end && c_range.start < r.end {
            bad_input::<()>(format!(
                "C overlaps {what}: the output must not share memory with an input"
            ))?;
        }
    }
    // The group is set below, once the kernel is known; B's layout decides which kernels may run.
    let mut params = gemm_params(op, [a, b, c], DEFAULT_GROUP);
    let vec_b = b_vector_ok(&params);
    let (cfg, asked) = match choice {
        Some((name, schedule)) => {
            let cfg = flagship_config(name)
                .map_err(|e| anyhow::Error::new(rgk_core::BadInput(e.to_string())))?;
            if cfg.vec_b && !vec_b {
                bad_input::<()>(format!(
                    "{name} copies B in 16-byte pieces, which needs ldb a multiple of 4 and B \
                     16-byte aligned (ldb = {})",
                    op.ldb
                ))?;
            }
            (cfg, Some(schedule))
        }
        None => (pick(gpu, op.m, op.n, op.k, vec_b)?, None),
    };
    let (group, schedule) = launch_settings(gpu, cfg, op.m, op.n, op.k, vec_b);
    params.group = group;
    let schedule = asked.unwrap_or(schedule);
    FlagshipLaunch::new(gpu, cfg, &params, schedule)?.launch(&gpu.stream)?;
    gpu.stream
        .synchronize()
        .context("SGEMM failed on the GPU")?;
    Ok(())
}

/// The kernel for an `m x n x k` problem on the GPU at hand: the tuned winner of its shape
/// class when a matching cache has one, else [`choose_kernel`]'s pick.
fn pick(
    gpu: &Gpu,
    m: usize,
    n: usize,
    k: usize,
    vec_b: bool,
) -> anyhow::Result<&'static FlagshipConfig> {
    if let Some(w) = tuned_winner(gpu, m, n, k, vec_b) {
        return flagship_config(&w.kernel);
    }
    Ok(choose_kernel(m, n, k, vec_b, gpu.multiprocessors()?))
}

/// The rasterization group and schedule to launch `cfg` with: each from `RGK_SGEMM_GROUP` /
/// `RGK_SGEMM_SCHEDULE` if set, else the tuned one when `cfg` is the tuned winner for the
/// problem, else [`DEFAULT_GROUP`] / [`DEFAULT_SCHEDULE`].
pub fn launch_settings(
    gpu: &Gpu,
    cfg: &FlagshipConfig,
    m: usize,
    n: usize,
    k: usize,
    vec_b: bool,
) -> (u32, Schedule) {
    let tuned = tuned_winner(gpu, m, n, k, vec_b).filter(|w| w.kernel == cfg.name);
    (
        group_override()
            .or(tuned.map(|w| w.group))
            .unwrap_or(DEFAULT_GROUP),
        schedule_override()
            .or(tuned.map(|w| w.schedule))
            .unwrap_or(DEFAULT_SCHEDULE),
    )
}

fn tuned_winner(gpu: &Gpu, m: usize, n: usize, k: usize, vec_b: bool) -> Option<&'static Winner> {
    tuned_cache(gpu)?.choice(ShapeClass::of(m, n, k), vec_b)
}

/// The tuning cache (`rgk_core::matmul::tune::default_cache_path`), read once per process;
/// `None` when there is none or it does not match this GPU and build, which is said once on
/// stderr. (The library always runs on device 0, so one answer per process suffices.)
pub fn tuned_cache(gpu: &Gpu) -> Option<&'static TuneCache> {
    static CACHE: OnceLock<Option<TuneCache>> = OnceLock::new();
    CACHE
        .get_or_init(|| {
            let path = tuning::default_cache_path()?;
            let here = match crate::tune::identity(gpu) {
                Ok(id) => id,
                Err(e) => {
                    eprintln!("warning: not using the SGEMM tuning cache: {e:#}");
                    return None;
                }
            };
            let known = |name: &str| flagship_config(name).ok().map(|c| c.vec_b);
            match tuning::load(&path, &here, known) {
                Loaded::Absent => None,
                Loaded::Usable(c) => Some(c),
                Loaded::Ignored(why) => {
                    eprintln!("warning: {why}");
                    None
                }
            }
        })
        .as_ref()
}

/// The flagship kernel [`sgemm`] and [`sgemm_device`] run for dense `m x k` and `k x n`
/// operands in their own allocations: the driver aligns those to 256 bytes, so B allows
/// 16-byte copies exactly when N is a multiple of 4.
pub fn dense_kernel(gpu: &Gpu, m: usize, n: usize, k: usize) -> Result<&'static FlagshipConfig> {
    Ok(pick(gpu, m, n, k, n.is_multiple_of(4))?)
}

/// Tile shapes [`choose_kernel`] picks from, largest first, for B copied in 16-byte pieces and
/// in 4-byte pieces.
const VEC_CHOICES: &[&str] = &[
    // 8x16 outputs per thread: 1-2% faster than 16x8 at 2048²-8192² since stream-K changed the
    // kernels' register allocation (docs/matmul.md).
    "sgemm_128x256x8_s4_8x16",
    "sgemm_128x128x8_s4_16x8",
    "sgemm_64x128x16_s3_8x8",
    "sgemm_64x64x16_s4_8x4",
];
const SCALAR_CHOICES: &[&str] = &[
    "sgemm_128x256x8_s4_16x8_u",
    "sgemm_128x128x8_s4_16x8_u",
    "sgemm_64x128x16_s3_8x8_u",
];

/// Below this K the 128-row tiles lose to the 64x128 one: one block per SM runs too few
/// k-slices to hide its pipeline fill and its 128-output epilogue, while three 64x128 blocks
/// per SM overlap them (H200, % of cuBLAS: 4097x4095x1023 90.4 vs 95.4, unaligned 86.2 vs 90.7;
/// 2048³ 99.9 vs 92.5; docs/matmul.md). The same bound as the tuner's short-K shape class.
const SHORT_K: usize = tuning::SHORT_K;

/// The default flagship kernel for an `m x n x k` problem on a GPU with `sms` multiprocessors
/// (used on every architecture when no tuning cache matches); `vec_b` says whether B allows
/// 16-byte copies ([`FlagshipConfig::vec_b`]).
///
/// The largest tile whose grid has a block for at least 90% of the multiprocessors (large
/// tiles load the fewest bytes per FMA, but a grid smaller than the GPU leaves multiprocessors
/// idle: at 1024² the 128x256 tile makes 32 blocks for 132 SMs, 37% of cuBLAS, against 103% for
/// the 64x128 tile's 128 blocks; at 2048² the 128x256 tile's 128 blocks still win), and no
/// 128-row tile when K is below `SHORT_K` (2048).
pub fn choose_kernel(
    m: usize,
    n: usize,
    k: usize,
    vec_b: bool,
    sms: u32,
) -> &'static FlagshipConfig {
    let names = if vec_b { VEC_CHOICES } else { SCALAR_CHOICES };
    let configs = names
        .iter()
        .map(|name| flagship_config(name).expect("the choice lists name flagship kernels"))
        .filter(|cfg| k >= SHORT_K || cfg.bm < 128);
    let (m, n) = (m.min(MAX_DIM) as u32, n.min(MAX_DIM) as u32);
    let enough = sms.saturating_mul(9).div_ceil(10);
    let mut last = None;
    for cfg in configs {
        if cfg.tiles(m, n) >= enough {
            return cfg;
        }
        last = Some(cfg);
    }
    last.expect("the choice lists are not empty")
}

/// `what` must hold `need` elements: exactly (host slices) or at least (device buffers).
fn check_len(what: &str, len: usize, need: usize, exact: bool) -> anyhow::Result<()> {
    if len < need || (exact && len != need) {
        return bad_input(format!(
            "{what} has {len} elements but needs {}{need} for its matrix",
            if exact { "" } else { "at least " }
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_checked_and_named() {
        assert!(check_len("A", 12, 12, true).is_ok());
        let e = check_len("A", 11, 12, true).unwrap_err();
        assert!(e.is::<rgk_core::BadInput>());
        assert!(e.to_string().contains("A has 11 elements"), "{e}");
        assert!(check_len("C", 13, 12, true).is_err());
        assert!(check_len("C", 13, 12, false).is_ok());
    }

    #[test]
    fn gemm_checks_name_the_problem() {
        let ok = Gemm::new(3, 4, 5);
        assert!(ok.check().is_ok());
        assert_eq!(ok.min_lens(), (15, 20, 12));
        let cases = [
            (Gemm::new(0, 4, 5), "M = 0"),
            (Gemm::new(3, 4, 16385), "K = 16385"),
            (
                ok.leading_dims(4, 4, 4),
                "lda = 4 is smaller than the row width K = 5",
            ),
            (ok.leading_dims(5, 3, 4), "ldb = 3"),
            (ok.leading_dims(5, 4, 2), "ldc = 2"),
            (ok.leading_dims(5, 4, MAX_LD + 1), "too large"),
        ];
        for (op, want) in cases {
            let e = op.check().unwrap_err();
            assert!(e.is::<rgk_core::BadInput>(), "{op:?}");
            assert!(e.to_string().contains(want), "{op:?}: {e}");
        }
        assert_eq!(
            ok.leading_dims(9, 6, 7).min_lens(),
            (2 * 9 + 5, 4 * 6 + 4, 2 * 7 + 4)
        );
    }

    #[test]
    fn every_choice_is_a_flagship_kernel_with_matching_copies() {
        for (names, vec_b) in [(VEC_CHOICES, true), (SCALAR_CHOICES, false)] {
            for name in names {
                assert_eq!(flagship_config(name).unwrap().vec_b, vec_b, "{name}");
            }
        }
        // Large problems get the largest tile; smaller ones a tile that fills 132 SMs.
        let pick = |m, n, k, vec_b| choose_kernel(m, n, k, vec_b, 132).name;
        assert_eq!(pick(8192, 8192, 8192, true), "sgemm_128x256x8_s4_8x16");
        assert_eq!(pick(4096, 4096, 4096, true), "sgemm_128x256x8_s4_8x16");
        assert_eq!(pick(2048, 2048, 2048, true), "sgemm_128x256x8_s4_8x16");
        assert_eq!(pick(1536, 1536, 2048, true), "sgemm_128x128x8_s4_16x8");
        assert_eq!(pick(1024, 1024, 1024, true), "sgemm_64x128x16_s3_8x8");
        assert_eq!(pick(1, 1, 1, true), "sgemm_64x64x16_s4_8x4");
        assert_eq!(pick(4097, 4095, 1023, false), "sgemm_64x128x16_s3_8x8_u");
        assert_eq!(pick(4097, 4095, 4095, false), "sgemm_128x256x8_s4_16x8_u");
        assert_eq!(pick(17, 33, 5, false), "sgemm_64x128x16_s3_8x8_u");
    }
}

//! The Hopper GEMM runner (sm_90a: wgmma, TMA, mbarrier pipelines; the kernels are
//! `gpu_kernels::sm90`): C = alpha·A·B + beta·C on the caller's device buffers, A and B in BF16
//! or FP16 (as `u16` bit patterns), C in f32, row-major with leading dimensions. It runs on
//! compute capability 9.0 only ([`supported`]); the selection of a GEMM path calls it there.
use std::{ffi::c_void, marker::PhantomData, rc::Rc};

use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, Function, GridSize},
    memory::{CopyDestination, DeviceBuffer, DeviceSlice},
};
use gpu_kernels::{
    ModuleGroup,
    sm90::{BK, BM, BN, WgmmaConfig, WgmmaParams, stream_k_words, wgmma_config, wgmma_pair_config},
};
use rgk_core::bad_input;

use crate::gpu::Gpu;

pub mod check;
mod cluster;
pub mod schedule;
mod tensor_map;
pub mod tf32;

pub use gpu_kernels::sm90::{BMajor, Sm90Input};
pub use schedule::{Blocks, Schedule};
use schedule::{MapCache, StreamKWork};

/// One product: `m x k` A (rows `lda` elements apart), B `k x n` (rows `ldb` apart) or, with
/// [`BMajor::K`], its transpose `n x k` (rows `ldb` apart), and `m x n` f32 C (rows `ldc` apart).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sm90Gemm {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
    pub alpha: f32,
    pub beta: f32,
    pub input: Sm90Input,
    pub b_major: BMajor,
}

impl Sm90Gemm {
    /// Dense operands (leading dimension = width), alpha 1, beta 0.
    pub fn dense(m: usize, n: usize, k: usize, input: Sm90Input, b_major: BMajor) -> Sm90Gemm {
        let ldb = match b_major {
            BMajor::N => n,
            BMajor::K => k,
        };
        Sm90Gemm {
            m,
            n,
            k,
            lda: k,
            ldb,
            ldc: n,
            alpha: 1.0,
            beta: 0.0,
            input,
            b_major,
        }
    }

    /// B's stored rows and columns.
    fn b_shape(&self) -> (usize, usize) {
        match self.b_major {
            BMajor::N => (self.k, self.n),
            BMajor::K => (self.n, self.k),
        }
    }

    /// Elements each buffer must hold: `(rows - 1) * ld + cols`.
    pub fn lens(&self) -> (usize, usize, usize) {
        let (br, bc) = self.b_shape();
        (
            span(self.m, self.k, self.lda),
            span(br, bc, self.ldb),
            span(self.m, self.n, self.ldc),
        )
    }

    /// Fails with one sentence ([`rgk_core::BadInput`]) unless the shape is one the kernel
    /// takes: every dimension 1..2^31, each leading dimension at least its matrix's width, and
    /// A's and B's rows a multiple of 16 bytes apart (TMA's stride rule: `lda`, `ldb` multiples
    /// of 8).
    pub fn check(&self) -> Result<()> {
        let fits = |v: usize| (1..=i32::MAX as usize).contains(&v);
        if ![self.m, self.n, self.k, self.lda, self.ldb, self.ldc]
            .into_iter()
            .all(fits)
        {
            return bad_input(format!(
                "the Hopper GEMM needs every dimension and leading dimension in 1..=2^31-1, got {self:?}"
            ));
        }
        let (_, bc) = self.b_shape();
        if self.lda < self.k || self.ldb < bc || self.ldc < self.n {
            return bad_input(format!(
                "a leading dimension is smaller than its matrix's width (lda {} < k {}, ldb {} < {bc} or ldc {} < n {})",
                self.lda, self.k, self.ldb, self.ldc, self.n
            ));
        }
        if !self.lda.is_multiple_of(8) || !self.ldb.is_multiple_of(8) {
            return bad_input(format!(
                "the Hopper GEMM reads A and B with TMA, whose rows must be a multiple of 16 bytes apart: lda ({}) and ldb ({}) must be multiples of 8",
                self.lda, self.ldb
            ));
        }
        Ok(())
    }

    /// [`Sm90Gemm::check`], and buffers of `a`, `b`, `c` elements large enough.
    pub fn check_buffers(&self, a: usize, b: usize, c: usize) -> Result<()> {
        self.check()?;
        check_holds([a, b, c], self.lens())
    }

    /// Floating-point operations of the product (2·m·n·k).
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }
}

/// Elements a matrix of `lines` lines of `width` elements, `ld` apart, spans in its buffer.
fn span(lines: usize, width: usize, ld: usize) -> usize {
    (lines - 1) * ld + width
}

/// One sentence unless the buffers of A, B and C hold `have` elements against the `need` of a
/// product's `lens()`: the one buffer check of both Hopper GEMMs (16-bit and f32).
fn check_holds(have: [usize; 3], need: (usize, usize, usize)) -> Result<()> {
    let need = [need.0, need.1, need.2];
    for ((what, have), need) in ["A", "B", "C"].into_iter().zip(have).zip(need) {
        if have < need {
            return bad_input(format!(
                "{what} holds {have} elements, but the product needs {need}"
            ));
        }
    }
    Ok(())
}

/// Whether `gpu` can run the Hopper GEMM (compute capability 9.0: its sm_90a module loads there
/// alone).
pub fn supported(gpu: &Gpu) -> bool {
    gpu.has_group(ModuleGroup::Hopper)
}

/// For GPU tests of the Hopper kernels: the GPU if it can run them ([`supported`]), or `None`
/// after printing why the test is skipped (no GPU, or a compute capability other than 9.0).
pub fn hopper_for_test(test: &str) -> Option<Gpu> {
    let gpu = crate::gpu::gpu_for_test(test)?;
    if !supported(&gpu) {
        let cc = gpu.info().map(|i| i.compute_capability).unwrap_or_default();
        rgk_core::testdata::skip(
            test,
            &format!("compute capability {}.{} is not 9.0", cc.0, cc.1),
        );
        return None;
    }
    Some(gpu)
}

/// A launch ready to go: the function (allowed its dynamic shared memory), the tensor maps in
/// device memory, the parameters, on buffers borrowed for `'a`.
pub struct Sm90Launch<'a> {
    gpu: &'a Gpu,
    func: Function<'a>,
    cfg: &'static WgmmaConfig,
    params: WgmmaParams,
    grid: u32,
    /// A's tensor map, then B's, then C's where the epilogue stores with TMA (128 bytes each),
    /// read by the kernel (shared with the GPU's cache of maps: a later call on the same
    /// operands reuses them).
    _maps: Rc<DeviceBuffer<u8>>,
    /// The stream-K workspace (shared with the GPU's other launches), when tiles are split.
    _work: Option<Rc<DeviceBuffer<u32>>>,
    _buffers: PhantomData<&'a DeviceSlice<u16>>,
}

/// The stream-K part of a launch of `grid` blocks over `tiles` tiles of `ktiles` slices: the
/// tiles to split and, if any, the workspace (the GPU's, grown to the grid).
pub(crate) fn stream_k_plan(
    gpu: &Gpu,
    sched: &Schedule,
    tiles: u32,
    grid: u32,
    ktiles: u32,
) -> Result<(u32, Option<Rc<DeviceBuffer<u32>>>)> {
    let sk_tiles = sched.sk_tiles(tiles, grid, ktiles);
    if sk_tiles == 0 {
        return Ok((0, None));
    }
    Ok((sk_tiles, Some(StreamKWork::get(gpu, stream_k_words(grid))?)))
}

/// The device address of a workspace (null without one).
pub(crate) fn work_ptr(work: &Option<Rc<DeviceBuffer<u32>>>) -> *mut u32 {
    work.as_ref().map_or(std::ptr::null_mut(), |w| {
        w.as_device_ptr().as_raw() as *mut u32
    })
}

impl<'a> Sm90Launch<'a> {
    /// Prepares `g` on the buffers of A, B (as `u16` bit patterns of `g.input`) and C with the
    /// schedule `sched`. Fails with [`rgk_core::BadInput`] for a shape the kernel does not take
    /// or buffers too small, and with one sentence on a GPU other than compute capability 9.0.
    pub fn new(
        gpu: &'a Gpu,
        g: &Sm90Gemm,
        a: &'a DeviceSlice<u16>,
        b: &'a DeviceSlice<u16>,
        c: &'a DeviceSlice<f32>,
        sched: Schedule,
    ) -> Result<Sm90Launch<'a>> {
        g.check_buffers(a.len(), b.len(), c.len())?;
        let (pa, pb) = (a.as_device_ptr().as_raw(), b.as_device_ptr().as_raw());
        if pa % 16 != 0 || pb % 16 != 0 {
            return bad_input("the Hopper GEMM needs A and B 16-byte aligned (TMA)");
        }
        let cfg = if sched.pair {
            wgmma_pair_config(g.input, g.b_major)
        } else {
            wgmma_config(g.input, g.b_major, sched.depth)
        };
        let func = gpu.function_with_shared(cfg.name, cfg.shared_bytes())?;
        let map_a = tensor_map::encode(tensor_map::a_view(g.m, g.k, g.lda), g.input, pa)?;
        let map_b = tensor_map::encode(
            tensor_map::b_view(g.k, g.n, g.ldb, g.b_major, cfg.cluster),
            g.input,
            pb,
        )?;
        // C through TMA stores where the kernel can take them (the one-block kernels, C only
        // written, its rows 16-byte aligned as TMA needs): a third map.
        let map_c = if sched.pair || sched.direct_store {
            None
        } else {
            tensor_map::c_map(c.as_device_ptr().as_raw(), g.m, g.n, g.ldc, g.beta)?
        };
        let mut bytes = Vec::with_capacity(384);
        for map in [Some(map_a), Some(map_b), map_c].into_iter().flatten() {
            bytes.extend(map.opaque.iter().flat_map(|w| w.to_le_bytes()));
        }
        // cuMemAlloc returns 256-byte aligned memory: every map is 128-byte aligned.
        let maps = MapCache::get(gpu, &bytes)?;
        let base = maps.as_device_ptr().as_raw();
        let (grid, sk_tiles, sk_last, work) = if sched.pair {
            // Pairs: 2·BM x BN tiles, two blocks each, no stream-K.
            let pairs = (g.m as u32).div_ceil(2 * BM) * (g.n as u32).div_ceil(BN);
            (
                sched.pair_grid(cluster::max_active_clusters(gpu, &func, cfg)?, pairs),
                0,
                false,
                None,
            )
        } else {
            let tiles = (g.m as u32).div_ceil(BM) * (g.n as u32).div_ceil(BN);
            let sched = sched.resolve(tiles, sched.grid(gpu, tiles)?);
            let grid = sched.grid(gpu, tiles)?;
            let ktiles = (g.k as u32).div_ceil(BK);
            let (sk_tiles, work) = stream_k_plan(gpu, &sched, tiles, grid, ktiles)?;
            (grid, sk_tiles, sched.sk_last, work)
        };
        let params = WgmmaParams {
            tmap_a: base as *const u8,
            tmap_b: (base + 128) as *const u8,
            c: c.as_device_ptr().as_raw() as *mut f32,
            m: g.m as u32,
            n: g.n as u32,
            k: g.k as u32,
            ldc: g.ldc as u32,
            alpha: g.alpha,
            beta: g.beta,
            group: sched.group,
            work: work_ptr(&work),
            sk_tiles,
            sk_last: u32::from(sk_last),
            tmap_c: if map_c.is_some() {
                (base + 256) as *const u8
            } else {
                std::ptr::null()
            },
        };
        Ok(Sm90Launch {
            gpu,
            func,
            cfg,
            params,
            grid,
            _maps: maps,
            _work: work,
            _buffers: PhantomData,
        })
    }

    /// The launch's grid, in blocks (for a pair kernel, twice its resident clusters at most).
    pub fn grid(&self) -> u32 {
        self.grid
    }

    /// Launches it on the GPU's stream, without waiting.
    pub fn launch(&self) -> Result<()> {
        let args = [&self.params as *const WgmmaParams as *mut c_void];
        if self.cfg.cluster > 1 {
            return self.launch_clusters(&args);
        }
        let (grid, block) = (GridSize::x(self.grid), BlockSize::x(self.cfg.threads()));
        // SAFETY: the argument list is the kernel's one `WgmmaParams` (checked against the PTX
        // by a test below); `new` checked the shape against the buffers, which are borrowed for
        // as long as `self` lives, and made the tensor maps over exactly those matrices (TMA
        // reads nothing outside them; the epilogue stores only inside C); the maps' memory is
        // held by `self`; any grid is valid (block b walks tiles b, b + grid, …), the block
        // and shared memory are the config's; with stream-K the workspace is held by `self`,
        // sized for this grid (its flags zero between launches on this one stream), and the
        // grid is at most one block per SM (`Schedule::grid`), so every block is resident.
        unsafe {
            self.gpu
                .stream
                .launch(&self.func, grid, block, self.cfg.shared_bytes(), &args)
        }
        .with_context(|| format!("launching {}", self.cfg.name))
    }
}

/// C = alpha·A·B + beta·C on the GPU with the schedule `sched`, waiting for the result:
/// [`Sm90Launch`] launched once.
pub fn gemm_sm90(
    gpu: &Gpu,
    g: &Sm90Gemm,
    a: &DeviceSlice<u16>,
    b: &DeviceSlice<u16>,
    c: &DeviceSlice<f32>,
    sched: Schedule,
) -> Result<()> {
    let launch = Sm90Launch::new(gpu, g, a, b, c, sched)?;
    launch.launch()?;
    gpu.stream.synchronize().context("the Hopper GEMM failed")
}

/// `x` rounded to `input` (nearest even), as the bit patterns the kernel reads.
pub fn to_input(x: &[f32], input: Sm90Input) -> Vec<u16> {
    match input {
        Sm90Input::Bf16 => x
            .iter()
            .map(|&v| half::bf16::from_f32(v).to_bits())
            .collect(),
        Sm90Input::Fp16 => x
            .iter()
            .map(|&v| half::f16::from_f32(v).to_bits())
            .collect(),
    }
}

/// The value of the bit pattern `bits` of `input`.
pub fn input_value(bits: u16, input: Sm90Input) -> f32 {
    match input {
        Sm90Input::Bf16 => half::bf16::from_bits(bits).to_f32(),
        Sm90Input::Fp16 => half::f16::from_bits(bits).to_f32(),
    }
}

/// Copies `c` back (a convenience for tests and the benchmark).
pub fn download(c: &DeviceSlice<f32>) -> Result<Vec<f32>> {
    let mut out = vec![0f32; c.len()];
    c.copy_to(&mut out[..])?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_the_kernel_cannot_take_are_refused_in_one_sentence() {
        let ok = Sm90Gemm::dense(300, 200, 77, Sm90Input::Bf16, BMajor::N);
        assert!(ok.check().is_err(), "lda 77 is not a multiple of 8");
        let padded = Sm90Gemm { lda: 80, ..ok };
        padded.check().unwrap();
        let narrow = Sm90Gemm { ldc: 100, ..padded };
        let e = narrow.check().unwrap_err().to_string();
        assert!(e.contains("ldc 100 < n 200") && !e.contains('\n'), "{e}");
        let zero = Sm90Gemm { m: 0, ..padded };
        assert!(zero.check().is_err());
        assert_eq!(
            padded.lens(),
            (299 * 80 + 77, 76 * 200 + 200, 299 * 200 + 200)
        );
        assert!(padded.check_buffers(1, 1, 1).is_err());
    }

    #[test]
    fn wgmma_entries_take_one_params_struct() {
        let want = format!("[{}]", size_of::<WgmmaParams>());
        for cfg in gpu_kernels::sm90::WGMMA {
            let head = format!(".visible .entry {}(", cfg.name);
            let at = gpu_kernels::PTX_SM90A
                .find(&head)
                .unwrap_or_else(|| panic!("{} not in the sm_90a PTX", cfg.name));
            let params = &gpu_kernels::PTX_SM90A[at + head.len()..];
            let params = &params[..params.find(')').unwrap()];
            assert_eq!(
                params.matches(".param").count(),
                1,
                "{}: {params}",
                cfg.name
            );
            assert!(params.trim().ends_with(&want), "{}: {params}", cfg.name);
        }
    }
}

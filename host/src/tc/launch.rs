//! The `mma.sync` runner: a tensor-core kernel (`gpu_kernels::tc`) with its dynamic shared
//! memory allowed, its grid and its parameters, on buffers checked against the problem, so that
//! launching it is safe.
use std::{ffi::c_void, marker::PhantomData};

use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, Function, GridSize},
    memory::DeviceSlice,
};
use gpu_kernels::tc::{TC, TcConfig, TcKind, TcOrder, TcParams};
use rgk_core::matmul::precision::Precision;

use super::problem::{Layout, Operand, TcGemm, check_buffers};
use crate::gpu::Gpu;

/// Rasterization group: 8 tile rows per column step keep a wave's A and B panels in L2.
pub const GROUP: u32 = 8;

/// The kernel kind of a tensor-core precision; `None` for FP32 (the flagship SGEMM).
pub const fn kind_of(p: Precision) -> Option<TcKind> {
    match p {
        Precision::Fp32 => None,
        Precision::Tf32 => Some(TcKind::Tf32),
        Precision::Tf32x3 => Some(TcKind::Tf32x3),
        Precision::Bf16 => Some(TcKind::Bf16),
        Precision::Fp16 => Some(TcKind::Fp16),
    }
}

/// Problems whose C has at least this many tiles of the 128 x 128 library kernel (two per SM of
/// an A100 or an H200: from 2048² on) run the kind's [`LARGE`] kernel instead: on the H200
/// (session 7) the 128 x 256 `_w64l_s4` was 25–29 % faster than session 6's `_w64_s4` at 4096²
/// and 8192² in every layout, BF16 and FP16, and that one 3–5 % faster than `_s4` at 2048² but
/// 27 % slower at 1000³, where 32 tiles of 128 x 256 leave most SMs idle
/// (docs/tensor-cores.md, "The mma.sync ceiling on Hopper"); session 20's `_w64i_s4` (the same
/// tile in CUTLASS's loop order) is 6–8 % faster than `_w64l_s4` at 4096² and 8192².
pub const WIDE_MIN_TILES: u32 = 256;

/// The shape of a `lean` kernel row (`gpu_kernels::tc::TC`): block tile `[bm, bn, bk]`, warps,
/// pipeline stages, fragment prefetch, main-loop order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeanShape {
    pub tile: [u32; 3],
    pub warps: [u32; 2],
    pub stages: u32,
    pub prefetch: bool,
    pub order: TcOrder,
}

impl LeanShape {
    fn is(&self, c: &TcConfig) -> bool {
        c.lean
            && [c.bm, c.bn, c.bk] == self.tile
            && c.warps == self.warps
            && c.stages == self.stages
            && c.prefetch == self.prefetch
            && c.order == self.order
    }
}

/// The kernel large 16-bit problems run, in every layout ([`WIDE_MIN_TILES`]): the one place
/// the library's choice is made (docs/tensor-cores.md has the measurements behind it).
pub const LARGE: LeanShape = LeanShape {
    tile: [128, 256, 32],
    warps: [2, 4],
    stages: 4,
    prefetch: true,
    order: TcOrder::Interleaved,
};

/// The pipelined kernel of `precision` for the layouts of `op` (the library's kernel): the
/// row's `library` kernel, or for large problems ([`WIDE_MIN_TILES`]) its [`LARGE`] sibling
/// where the kind has one.
pub fn config_for(precision: Precision, op: &TcGemm) -> Result<&'static TcConfig> {
    let kind = kind_of(precision).context("FP32 runs on the flagship SGEMM, not here")?;
    let (ar, br) = (
        op.a_layout == Layout::RowMajor,
        op.b_layout == Layout::RowMajor,
    );
    let same = |c: &&TcConfig| c.kind == kind && c.a_rows == ar && c.b_rows == br;
    let lib = TC
        .iter()
        .filter(same)
        .find(|c| c.library)
        .with_context(|| format!("no tensor-core kernel for {precision} {ar} {br}"))?;
    // `check` bounded m and n by 16384.
    if lib.tiles(op.m as u32, op.n as u32) >= WIDE_MIN_TILES
        && let Some(large) = TC.iter().filter(same).find(|c| LARGE.is(c))
    {
        return Ok(large);
    }
    Ok(lib)
}

/// The tensor-core kernel named `name`.
pub fn tc_config(name: &str) -> Result<&'static TcConfig> {
    TC.iter()
        .find(|c| c.name == name)
        .with_context(|| format!("no tensor-core kernel named {name:?}"))
}

/// A launch ready to go, on buffers borrowed for `'a`.
pub struct TcLaunch<'a> {
    gpu: &'a Gpu,
    func: Function<'a>,
    cfg: &'static TcConfig,
    params: TcParams,
    _buffers: PhantomData<&'a DeviceSlice<f32>>,
}

impl<'a> TcLaunch<'a> {
    /// Prepares `cfg` for `op` on the caller's buffers. Fails with [`rgk_core::BadInput`] when
    /// the problem does not fit the buffers or the kernel ([`check_buffers`]), or when `cfg`'s
    /// kind or layouts are not `precision`'s and `op`'s.
    pub fn new(
        gpu: &'a Gpu,
        cfg: &'static TcConfig,
        precision: Precision,
        op: &TcGemm,
        a: Operand<'a>,
        b: Operand<'a>,
        c: &'a DeviceSlice<f32>,
    ) -> Result<TcLaunch<'a>> {
        check_buffers(op, precision, a, b, c)?;
        let fits = kind_of(precision) == Some(cfg.kind)
            && cfg.a_rows == (op.a_layout == Layout::RowMajor)
            && cfg.b_rows == (op.b_layout == Layout::RowMajor);
        if !fits {
            return rgk_core::bad_input(format!(
                "{} does not compute {precision} with A {:?} and B {:?}",
                cfg.name, op.a_layout, op.b_layout
            ));
        }
        let func = gpu.function_with_shared(cfg.name, cfg.shared_bytes())?;
        // `check` bounded every value by 2^32 - 1.
        let params = TcParams {
            a: a.raw().0 as *const u8,
            b: b.raw().0 as *const u8,
            c: c.as_device_ptr().as_raw() as *mut f32,
            m: op.m as u32,
            n: op.n as u32,
            k: op.k as u32,
            lda: op.lda as u32,
            ldb: op.ldb as u32,
            ldc: op.ldc as u32,
            alpha: op.alpha,
            beta: op.beta,
            group: GROUP,
        };
        Ok(TcLaunch {
            gpu,
            func,
            cfg,
            params,
            _buffers: PhantomData,
        })
    }

    /// Launches it on the GPU's stream, without waiting.
    pub fn launch(&self) -> Result<()> {
        let args = [&self.params as *const TcParams as *mut c_void];
        let grid = GridSize::x(self.cfg.tiles(self.params.m, self.params.n));
        let block = BlockSize::x(self.cfg.threads());
        // SAFETY: the argument list matches the kernel's one `TcParams` (checked against the PTX
        // by a test below); `new` checked the problem against the buffers (lengths, element
        // size, alignment, leading dimensions, no overlap with C), which are borrowed for as
        // long as `self` lives; the grid is one block per tile and the shared memory the
        // kernel's, as its contract asks; group ≥ 1.
        unsafe {
            self.gpu
                .stream
                .launch(&self.func, grid, block, self.cfg.shared_bytes(), &args)
        }
        .with_context(|| format!("launching {}", self.cfg.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_take_one_params_struct_and_every_precision_has_kernels() {
        let want = format!("[{}]", size_of::<TcParams>());
        for cfg in TC {
            let head = format!(".visible .entry {}(", cfg.name);
            let at = gpu_kernels::PTX
                .find(&head)
                .unwrap_or_else(|| panic!("{} not in the PTX", cfg.name));
            let params = &gpu_kernels::PTX[at + head.len()..];
            let params = &params[..params.find(')').unwrap()];
            assert_eq!(params.matches(".param").count(), 1, "{}", cfg.name);
            assert!(params.trim().ends_with(&want), "{}: {params}", cfg.name);
        }
        for p in Precision::ALL.into_iter().filter(|p| p.tensor_cores()) {
            for (a, b) in [Layout::RowMajor, Layout::ColMajor]
                .into_iter()
                .flat_map(|a| [(a, Layout::RowMajor), (a, Layout::ColMajor)])
            {
                let cfg = config_for(p, &TcGemm::new(8, 8, 8).layouts(a, b)).unwrap();
                assert_eq!(kind_of(p), Some(cfg.kind));
            }
        }
        assert!(config_for(Precision::Fp32, &TcGemm::new(8, 8, 8)).is_err());
    }

    #[test]
    fn large_16_bit_problems_take_the_wide_lean_kernel() {
        for p in [
            Precision::Bf16,
            Precision::Fp16,
            Precision::Tf32,
            Precision::Tf32x3,
        ] {
            for (a, b) in [Layout::RowMajor, Layout::ColMajor]
                .into_iter()
                .flat_map(|a| [(a, Layout::RowMajor), (a, Layout::ColMajor)])
            {
                let small = config_for(p, &TcGemm::new(1000, 1000, 1000).layouts(a, b)).unwrap();
                let large = config_for(p, &TcGemm::new(2048, 2048, 64).layouts(a, b)).unwrap();
                assert!(small.library, "{}", small.name);
                if p.input_bytes() == 2 {
                    assert!(LARGE.is(large), "{}", large.name);
                    assert_eq!(
                        (large.kind, large.a_rows, large.b_rows),
                        (small.kind, small.a_rows, small.b_rows)
                    );
                } else {
                    assert_eq!(large, small);
                }
            }
        }
    }
}

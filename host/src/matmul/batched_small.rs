//! The runner of the batched small-matrix kernels (`gpu_kernels::matmul::batched_small`:
//! strided N,N batches of M, N ≤ 32, several problems per block): which problems they take
//! ([`takes`]), which kernel a problem's class runs ([`class_kernel`]), and a launch that checks
//! its problem against its buffers, so launching it is safe.
use std::{ffi::c_void, marker::PhantomData};

use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, Function, GridSize},
    memory::DeviceSlice,
    stream::Stream,
};
use gpu_kernels::matmul::batched_small::{
    BATCHED_SMALL, BATCHED_SMALL_DIM, BATCHED_SMALL_THREADS, BatchedSmallConfig, BatchedSmallParams,
};
use rgk_core::bad_input;

use super::problem::{Gemm, Op};
use crate::gpu::Gpu;

/// Whether the library runs `op` with the batched small-matrix kernel: a batch of two or more
/// N,N problems with M and N at most 32. Above 32 the flagship variants' 64 x 64 tile has no
/// padding to lose (H200: 64³ x 4096 at 99 % of cuBLAS, docs/matmul.md); one problem runs the
/// flagship or a skinny kernel.
pub fn takes(op: &Gemm) -> bool {
    let dim = BATCHED_SMALL_DIM as usize;
    op.batch > 1 && op.op_a == Op::N && op.op_b == Op::N && op.m <= dim && op.n <= dim
}

/// The kernel of `op`'s class: the narrowest class kernel whose bound holds M and N (8, 16 or
/// 32), so a problem of 8 x 8 takes 4 threads, not a 32 x 32 slot's 64.
pub fn class_kernel(op: &Gemm) -> &'static BatchedSmallConfig {
    let side = op.m.max(op.n);
    BATCHED_SMALL
        .iter()
        .find(|c| c.name.starts_with("sgemm_batched_a") && side <= c.dim as usize)
        .unwrap_or(&BATCHED_SMALL[BATCHED_SMALL.len() - 1])
}

/// Whether C allows the class kernels' 16-byte accesses (`BatchedSmallParams::vec_c`).
fn vector_c_ok(op: &Gemm, c: &DeviceSlice<f32>) -> bool {
    op.ldc.is_multiple_of(4)
        && op.stride_c.is_multiple_of(4)
        && c.as_device_ptr().as_raw().is_multiple_of(16)
}

/// Whether A and B allow the kernel's 128-bit loads (`BatchedSmallParams::vec`).
fn vector_ok(op: &Gemm, a: &DeviceSlice<f32>, b: &DeviceSlice<f32>) -> bool {
    let aligned = |s: &DeviceSlice<f32>| s.as_device_ptr().as_raw().is_multiple_of(16);
    [op.lda, op.ldb, op.stride_a, op.stride_b]
        .iter()
        .all(|v| v.is_multiple_of(4))
        && aligned(a)
        && aligned(b)
}

/// A launch of a batched small-matrix kernel, ready to go, on buffers borrowed for `'a`.
pub struct BatchedSmallLaunch<'a> {
    cfg: &'static BatchedSmallConfig,
    func: Function<'a>,
    params: BatchedSmallParams,
    _buffers: PhantomData<&'a DeviceSlice<f32>>,
}

impl<'a> BatchedSmallLaunch<'a> {
    /// Prepares kernel `cfg` (its class's, [`class_kernel`], when `None`) for `op` on the
    /// buffers of A, B and C. Fails with [`rgk_core::BadInput`] when `op` is invalid or does
    /// not fit its buffers ([`Gemm::check_buffers`]) or is not a problem the kernel takes
    /// ([`takes`] and the kernel's bound on M and N; batch of one allowed).
    pub fn new(
        gpu: &'a Gpu,
        cfg: Option<&'static BatchedSmallConfig>,
        op: &Gemm,
        [a, b, c]: [&'a DeviceSlice<f32>; 3],
    ) -> Result<BatchedSmallLaunch<'a>> {
        op.check_buffers([a, b, c])?;
        let cfg = cfg.unwrap_or_else(|| class_kernel(op));
        let dim = cfg.dim as usize;
        if !takes(&Gemm { batch: 2, ..*op }) || op.m > dim || op.n > dim {
            return bad_input(format!(
                "{} takes N,N problems of M and N at most {dim}, not {}x{}x{} {}{}",
                cfg.name,
                op.m,
                op.n,
                op.k,
                op.op_a.letter(),
                op.op_b.letter()
            ));
        }
        let func = gpu.function(cfg.name)?;
        let raw = |s: &DeviceSlice<f32>| s.as_device_ptr().as_raw();
        // `check` bounds every dimension by 16384, the batch by 65535 and the leading dimensions
        // by u32::MAX; the strides fit in u64.
        let params = BatchedSmallParams {
            a: raw(a) as *const f32,
            b: raw(b) as *const f32,
            c: raw(c) as *mut f32,
            m: op.m as u32,
            n: op.n as u32,
            k: op.k as u32,
            lda: op.lda as u32,
            ldb: op.ldb as u32,
            ldc: op.ldc as u32,
            alpha: op.alpha,
            beta: op.beta,
            batch: op.batch as u32,
            vec: vector_ok(op, a, b) as u32,
            stride_a: op.stride_a as u64,
            stride_b: op.stride_b as u64,
            stride_c: op.stride_c as u64,
            vec_c: vector_c_ok(op, c) as u32,
        };
        Ok(BatchedSmallLaunch {
            cfg,
            func,
            params,
            _buffers: PhantomData,
        })
    }

    /// Launches it on `stream`, without waiting.
    pub fn launch_on(&self, stream: &Stream) -> Result<()> {
        let args = [&self.params as *const BatchedSmallParams as *mut c_void];
        let grid = GridSize::x(self.cfg.blocks(self.params.batch));
        // SAFETY: the argument list matches the kernel's signature (one `BatchedSmallParams`,
        // checked against the PTX by a test below). `new` checked every problem of the batch
        // against the buffers (borrowed as long as `self` lives), that the problems' C do not
        // overlap (strides at least a matrix) nor overlap A or B, that M and N are at most the
        // kernel's bound, and set `vec` / `vec_c` only for operands that allow 128-bit
        // accesses; the grid has `cfg.blocks(batch)` blocks of 256 threads, as the kernel
        // requires.
        unsafe {
            stream.launch(
                &self.func,
                grid,
                BlockSize::x(BATCHED_SMALL_THREADS),
                0,
                &args,
            )
        }
        .with_context(|| format!("launching {}", self.cfg.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entries_take_one_params_struct() {
        for cfg in BATCHED_SMALL {
            let head = format!(".visible .entry {}(", cfg.name);
            let at = gpu_kernels::PTX
                .find(&head)
                .unwrap_or_else(|| panic!("{} is not in the PTX", cfg.name));
            let params = &gpu_kernels::PTX[at + head.len()..];
            let params = &params[..params.find(')').unwrap()];
            assert_eq!(params.matches(".param").count(), 1, "{params}");
            let want = format!("[{}]", size_of::<BatchedSmallParams>());
            assert!(params.trim().ends_with(&want), "{params}");
        }
    }

    #[test]
    fn the_class_kernel_is_the_narrowest_that_holds_the_problem() {
        let pick = |m, n| class_kernel(&Gemm::new(m, n, 32).batch(100)).name;
        assert_eq!(pick(8, 8), "sgemm_batched_a8");
        assert_eq!(pick(1, 3), "sgemm_batched_a8");
        assert_eq!(pick(9, 8), "sgemm_batched_a16");
        assert_eq!(pick(16, 16), "sgemm_batched_a16");
        assert_eq!(pick(16, 17), "sgemm_batched_a32");
        assert_eq!(pick(24, 24), "sgemm_batched_a32");
        assert_eq!(pick(32, 32), "sgemm_batched_a32");
    }

    #[test]
    fn it_takes_batches_of_n_n_problems_up_to_32() {
        let b = |m, n, k, batch| Gemm::new(m, n, k).batch(batch);
        assert!(takes(&b(32, 32, 32, 8192)));
        assert!(takes(&b(16, 16, 16, 2)));
        assert!(takes(&b(1, 32, 5000, 3)));
        assert!(takes(&b(7, 3, 1, 65535)));
        // One problem, a side above 32, a transpose: the flagship or a skinny kernel.
        assert!(!takes(&b(32, 32, 32, 1)));
        assert!(!takes(&b(33, 32, 32, 100)));
        assert!(!takes(&b(32, 48, 32, 100)));
        assert!(!takes(&b(64, 64, 64, 4096)));
        for (ta, tb) in [(Op::T, Op::N), (Op::N, Op::T), (Op::T, Op::T)] {
            assert!(!takes(&Gemm::new(32, 32, 32).ops(ta, tb).batch(8192)));
        }
    }
}

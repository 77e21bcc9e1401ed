//! The runner of the batched small-matrix kernel (`gpu_kernels::matmul::batched_small`: strided
//! N,N batches of M, N ≤ 32, several problems per block): which problems it takes
//! ([`takes`]), and a launch that checks its problem against its buffers, so launching it is
//! safe.
use std::{ffi::c_void, marker::PhantomData};

use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, Function, GridSize},
    memory::DeviceSlice,
    stream::Stream,
};
use gpu_kernels::matmul::batched_small::{
    BATCHED_SMALL_DIM, BATCHED_SMALL_KERNEL, BATCHED_SMALL_THREADS, BatchedSmallParams,
    batched_small_blocks,
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

/// Whether A and B allow the kernel's 128-bit loads (`BatchedSmallParams::vec`).
fn vector_ok(op: &Gemm, a: &DeviceSlice<f32>, b: &DeviceSlice<f32>) -> bool {
    let aligned = |s: &DeviceSlice<f32>| s.as_device_ptr().as_raw().is_multiple_of(16);
    [op.lda, op.ldb, op.stride_a, op.stride_b]
        .iter()
        .all(|v| v.is_multiple_of(4))
        && aligned(a)
        && aligned(b)
}

/// A launch of the batched small-matrix kernel, ready to go, on buffers borrowed for `'a`.
pub struct BatchedSmallLaunch<'a> {
    func: Function<'a>,
    params: BatchedSmallParams,
    _buffers: PhantomData<&'a DeviceSlice<f32>>,
}

impl<'a> BatchedSmallLaunch<'a> {
    /// Prepares the kernel for `op` on the buffers of A, B and C. Fails with
    /// [`rgk_core::BadInput`] when `op` is invalid or does not fit its buffers
    /// ([`Gemm::check_buffers`]) or is not a problem the kernel takes ([`takes`], batch of one
    /// allowed).
    pub fn new(
        gpu: &'a Gpu,
        op: &Gemm,
        [a, b, c]: [&'a DeviceSlice<f32>; 3],
    ) -> Result<BatchedSmallLaunch<'a>> {
        op.check_buffers([a, b, c])?;
        if !takes(&Gemm { batch: 2, ..*op }) {
            return bad_input(format!(
                "{BATCHED_SMALL_KERNEL} takes N,N problems of M and N at most \
                 {BATCHED_SMALL_DIM}, not {}x{}x{} {}{}",
                op.m,
                op.n,
                op.k,
                op.op_a.letter(),
                op.op_b.letter()
            ));
        }
        let func = gpu.function(BATCHED_SMALL_KERNEL)?;
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
        };
        Ok(BatchedSmallLaunch {
            func,
            params,
            _buffers: PhantomData,
        })
    }

    /// Launches it on `stream`, without waiting.
    pub fn launch_on(&self, stream: &Stream) -> Result<()> {
        let args = [&self.params as *const BatchedSmallParams as *mut c_void];
        let grid = GridSize::x(batched_small_blocks(self.params.batch));
        // SAFETY: the argument list matches the kernel's signature (one `BatchedSmallParams`,
        // checked against the PTX by a test below). `new` checked every problem of the batch
        // against the buffers (borrowed as long as `self` lives), that the problems' C do not
        // overlap (strides at least a matrix) nor overlap A or B, that M and N are at most 32,
        // and set `vec` only for operands that allow 128-bit loads; the grid has
        // `batched_small_blocks(batch)` blocks of 256 threads, as the kernel requires.
        unsafe {
            stream.launch(
                &self.func,
                grid,
                BlockSize::x(BATCHED_SMALL_THREADS),
                0,
                &args,
            )
        }
        .with_context(|| format!("launching {BATCHED_SMALL_KERNEL}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_takes_one_params_struct() {
        let head = format!(".visible .entry {BATCHED_SMALL_KERNEL}(");
        let at = gpu_kernels::PTX
            .find(&head)
            .expect("the batched kernel is in the PTX");
        let params = &gpu_kernels::PTX[at + head.len()..];
        let params = &params[..params.find(')').unwrap()];
        assert_eq!(params.matches(".param").count(), 1, "{params}");
        let want = format!("[{}]", size_of::<BatchedSmallParams>());
        assert!(params.trim().ends_with(&want), "{params}");
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

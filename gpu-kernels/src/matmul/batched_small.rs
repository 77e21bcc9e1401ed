//! The batched small-matrix SGEMM's host-visible half (issue #20): a strided batch of N,N
//! problems with M and N at most [`BATCHED_SMALL_DIM`] (32), any K. The flagship's variants give
//! each such problem a 64x64 tile of 128 threads, three quarters of it padding at 32 x 32; this
//! kernel's block computes [`BATCHED_SMALL_PER_BLOCK`] problems at once, 64 threads each (a 4 x 4
//! corner of C per thread), with each problem's `32 x KC` slice of A and `KC x 32` slice of B in
//! shared memory. Its argument struct and constants; the kernel is in
//! `batched_small_kernel.rs`. The kernels sized by class ([`BATCHED_SMALL`]: M and N at most 8,
//! 16 or 32, `cp.async` loads; `batched_small_async.rs`) take the same argument.

/// The batched kernel's only argument, passed by value (one definition for kernel and host).
///
/// Problem `i < batch` multiplies the `m x k` A at `a + i * stride_a` (rows `lda` apart) by the
/// `k x n` B at `b + i * stride_b` (rows `ldb` apart) into the `m x n` C at `c + i * stride_c`
/// (rows `ldc` apart): `C = alpha·A·B + beta·C`, C not read when `beta == 0`. `1 <= m, n <=`
/// [`BATCHED_SMALL_DIM`], `k >= 1`; no problem's C overlaps another's or any A or B.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct BatchedSmallParams {
    pub a: *const f32,
    pub b: *const f32,
    pub c: *mut f32,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub lda: u32,
    pub ldb: u32,
    pub ldc: u32,
    pub alpha: f32,
    pub beta: f32,
    pub batch: u32,
    /// 1 when A and B allow 128-bit loads: `lda`, `ldb`, `stride_a`, `stride_b` multiples of 4
    /// and both buffers 16-byte aligned; else 0.
    pub vec: u32,
    pub stride_a: u64,
    pub stride_b: u64,
    pub stride_c: u64,
    /// 1 when C allows 16-byte accesses (`ldc`, `stride_c` multiples of 4, C 16-byte aligned);
    /// read by the class kernels only.
    pub vec_c: u32,
}

/// One batched small-matrix kernel: problems of M and N at most `dim`, `per_block` of them per
/// 256-thread block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchedSmallConfig {
    pub name: &'static str,
    pub dim: u32,
    pub per_block: u32,
}

impl BatchedSmallConfig {
    /// Blocks of a launch for `batch` problems (the grid's x).
    pub const fn blocks(&self, batch: u32) -> u32 {
        batch.div_ceil(self.per_block)
    }
}

/// Every batched small-matrix kernel: the class kernels (`batched_small_async.rs`) narrowest
/// first, then the register-staged `sgemm_batched_32`. A class kernel gives a problem `(dim/4)²`
/// threads (a 4 x 4 corner of C each) and takes k in slices of `dim`: 32 KB of slices per block
/// in every class.
pub const BATCHED_SMALL: &[BatchedSmallConfig] = &[
    BatchedSmallConfig {
        name: "sgemm_batched_a8",
        dim: 8,
        per_block: 64,
    },
    BatchedSmallConfig {
        name: "sgemm_batched_a16",
        dim: 16,
        per_block: 16,
    },
    BatchedSmallConfig {
        name: "sgemm_batched_a32",
        dim: 32,
        per_block: 4,
    },
    BatchedSmallConfig {
        name: BATCHED_SMALL_KERNEL,
        dim: BATCHED_SMALL_DIM,
        per_block: BATCHED_SMALL_PER_BLOCK,
    },
];

/// The batched kernel named `name`.
pub fn batched_small_config(name: &str) -> Option<&'static BatchedSmallConfig> {
    BATCHED_SMALL.iter().find(|c| c.name == name)
}

/// The kernel.
pub const BATCHED_SMALL_KERNEL: &str = "sgemm_batched_32";
/// Largest M and N it takes.
pub const BATCHED_SMALL_DIM: u32 = 32;
/// Threads per problem: an 8 x 8 grid, each thread a 4 x 4 corner of the 32 x 32 C.
pub const BATCHED_SMALL_THREADS_PER_PROBLEM: u32 = 64;
/// Problems per block.
pub const BATCHED_SMALL_PER_BLOCK: u32 = 4;
/// Threads per block.
pub const BATCHED_SMALL_THREADS: u32 = BATCHED_SMALL_THREADS_PER_PROBLEM * BATCHED_SMALL_PER_BLOCK;
/// k per shared-memory slice.
pub const BATCHED_SMALL_KC: u32 = 32;

/// Blocks of a launch for `batch` problems (the grid's x).
pub const fn batched_small_blocks(batch: u32) -> u32 {
    batch.div_ceil(BATCHED_SMALL_PER_BLOCK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_covers_its_problems() {
        // 64 threads x 4 x 4 outputs cover a 32 x 32 C; a slice of A or B is 256 float4s, 4 per
        // thread of a problem.
        assert_eq!(
            BATCHED_SMALL_THREADS_PER_PROBLEM * 16,
            BATCHED_SMALL_DIM * BATCHED_SMALL_DIM
        );
        assert_eq!(
            BATCHED_SMALL_DIM * BATCHED_SMALL_KC / 4,
            4 * BATCHED_SMALL_THREADS_PER_PROBLEM
        );
        assert_eq!(batched_small_blocks(8192), 2048);
        assert_eq!(batched_small_blocks(5), 2);
        assert_eq!(batched_small_blocks(1), 1);
    }

    #[test]
    fn class_kernels_give_each_problem_a_4x4_corner_per_thread() {
        for c in BATCHED_SMALL {
            let per_problem = (c.dim / 4) * (c.dim / 4);
            assert_eq!(
                c.per_block * per_problem,
                BATCHED_SMALL_THREADS,
                "{}",
                c.name
            );
            assert_eq!(c.blocks(c.per_block + 1), 2);
            assert_eq!(batched_small_config(c.name), Some(c));
        }
        // Narrowest first among the class kernels.
        assert!(
            BATCHED_SMALL
                .windows(2)
                .take(2)
                .all(|w| w[0].dim < w[1].dim)
        );
    }
}

//! The library SGEMM's helpers for shapes the flagship alone serves badly (issue #20),
//! host-visible half: the split-K sum and the operand pre-pass (transpose or re-pitch). Their
//! argument structs and launch constants; the kernels are in `split_k_kernels.rs`.
//!
//! - Split-K (deep K: a few output tiles, many k-slices): K is cut into `splits` equal ranges of
//!   `ks`, computed as a strided batch of the flagship's variants (problem `s` reads A and B
//!   offset by `s·ks` along K and writes slice `s` of a workspace), then [`SPLIT_SUM_KERNEL`]
//!   adds the slices up in a fixed order (slice 0 first, so the result does not depend on
//!   timing), adds the last `tail` (`K mod splits`) k-values' products itself, and applies alpha
//!   and beta. Every output is summed by one thread, all outputs in parallel (the stream-K
//!   fix-up sums a tile's segments in one block, one after another).
//! - Pre-pass (transposed operands, unaligned pitches): [`TRANSPOSE_KERNEL`] copies a (batch of)
//!   stored matrices into a scratch buffer, transposed or as they are, with rows a multiple of 4
//!   floats apart, so the tuned N,N kernel (and its 16-byte copies of B) runs on them. A 4096²
//!   matrix moves in about 30 µs against 2.7 ms of GEMM.

/// The split-K sum's only argument, passed by value (one definition for kernel and host).
///
/// `work` holds `splits` dense `m x n` slices (slice `s` at `s·m·n`, rows `n` apart), written by
/// an earlier launch on the same stream; `c` is `m x n` with rows `ldc` apart, overlapping
/// neither `work`, `a` nor `b`. The tail's products: op(A)[r][kk] at `a + r·a_row + kk·a_k` and
/// op(B)[kk][c] at `b + kk·b_k + c·b_col` for `kk < tail` (`a` and `b` already point at the
/// first tail k). `C = alpha·(Σ slices + Σ tail products) + beta·C`; C is read only when
/// `beta != 0` (BLAS: NaN in C does not leak).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SplitSumParams {
    pub work: *const f32,
    pub c: *mut f32,
    pub a: *const f32,
    pub b: *const f32,
    pub m: u32,
    pub n: u32,
    pub ldc: u32,
    pub splits: u32,
    pub tail: u32,
    pub a_row: u32,
    pub a_k: u32,
    pub b_k: u32,
    pub b_col: u32,
    pub alpha: f32,
    pub beta: f32,
}

/// The pre-pass copy's only argument, passed by value.
///
/// Matrix `z` (grid z) of the batch is `rows x cols` at `src + z·stride_src`, rows `ld_src`
/// apart; it is written to `dst + z·stride_dst` with rows `ld_dst` apart, transposed
/// (`cols x rows`) when `transpose != 0`, else as it is. The batch's destination matrices
/// overlap neither each other nor any source.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TransposeParams {
    pub src: *const f32,
    pub dst: *mut f32,
    pub rows: u32,
    pub cols: u32,
    pub ld_src: u32,
    pub ld_dst: u32,
    pub stride_src: u64,
    pub stride_dst: u64,
    pub transpose: u32,
}

/// The split-K sum kernel.
pub const SPLIT_SUM_KERNEL: &str = "sgemm_split_sum";
/// Threads per block of the split-K sum (a 1-D grid-stride loop over the outputs).
pub const SPLIT_SUM_THREADS: u32 = 256;
/// The pre-pass kernel.
pub const TRANSPOSE_KERNEL: &str = "sgemm_transpose";
/// Side of the square tile a block of the pre-pass moves (through shared memory).
pub const TRANSPOSE_TILE: u32 = 32;
/// Rows of threads of a pre-pass block (`TRANSPOSE_TILE` x this threads, each moving
/// `TRANSPOSE_TILE / TRANSPOSE_ROWS` cells).
pub const TRANSPOSE_ROWS: u32 = 8;

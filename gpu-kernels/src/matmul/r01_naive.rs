//! Rung 1 of the ladder (the study's kernel 1): one output per thread, every operand read from
//! global memory.
//!
//! Threads `(x, y)` of a `B x B` block compute `C[row0 + x][col0 + y]`: the 32 threads of a warp
//! (consecutive `x`) walk down a column of C. Per k they read 32 different rows of A (32
//! transactions where one would do), one word of B that all of them share, and they store to 32
//! different rows of C. Nothing is reused from one thread to the next but what the L1 and L2
//! caches happen to keep.
use cuda_std::{kernel, thread};

use crate::ptx::{ld_global_nc, st_global};

macro_rules! naive_kernels {
    ($(($name:ident, $b:tt)),* $(,)?) => {$(
        /// # Safety
        /// `a`, `b` and `c` must point to 16-byte aligned, row-major f32 device matrices of
        /// `m x k`, `k x n` and `m x n` cells, padded to this kernel's tile multiples, with `c`
        /// overlapping neither `a` nor `b` (read through the non-coherent path); the launch must
        /// use this kernel's block and the grid `(n / tile_n, m / tile_m)` (see `matmul/mod.rs`).
        /// Every index formed below then lies inside the matrices: no kernel has bounds checks.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(a: *const f32, b: *const f32, c: *mut f32, n: u32, k: u32) {
            const B: u32 = $b;
            let row = thread::block_idx_y() * B + thread::thread_idx_x();
            let col = thread::block_idx_x() * B + thread::thread_idx_y();
            let (a, b) = (a as *const u32, b as *const u32);
            let mut sum = 0.0f32;
            let mut i = 0;
            while i < k {
                // SAFETY: `row` < m (block_idx.y < m / B, thread_idx.x < B), `col` < n likewise and
                // `i` < k, so both words are inside A and B, which nothing writes during the
                // launch.
                let (x, y) = unsafe {
                    (
                        ld_global_nc::<1>(a.add((row * k + i) as usize)),
                        ld_global_nc::<1>(b.add((i * n + col) as usize)),
                    )
                };
                sum += f32::from_bits(x[0]) * f32::from_bits(y[0]);
                i += 1;
            }
            // SAFETY: `(row, col)` is inside the m x n matrix C (as above); each thread stores its
            // own cell.
            unsafe { st_global::<1>((c as *mut u32).add((row * n + col) as usize), [sum.to_bits()]) };
        }
    )*};
}
for_each_naive!(naive_kernels);

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
                let (x, y) = unsafe {
                    (
                        ld_global_nc::<1>(a.add((row * k + i) as usize)),
                        ld_global_nc::<1>(b.add((i * n + col) as usize)),
                    )
                };
                sum += f32::from_bits(x[0]) * f32::from_bits(y[0]);
                i += 1;
            }
            unsafe { st_global::<1>((c as *mut u32).add((row * n + col) as usize), [sum.to_bits()]) };
        }
    )*};
}
for_each_naive!(naive_kernels);

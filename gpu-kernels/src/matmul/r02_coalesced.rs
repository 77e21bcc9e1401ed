//! Rung 2 of the ladder (the study's kernel 2): the naive kernel with its threads renumbered so
//! that a warp covers a row of C.
//!
//! A block is `B * B` threads in one dimension; thread `t` computes `C[row0 + t / B][col0 + t %
//! B]`. The 32 threads of a warp now share one row of A (one word, broadcast) and read 32
//! consecutive words of B (one 128-byte transaction), and their stores to C coalesce the same way.
//! The arithmetic is unchanged; only the order of the threads is.
use cuda_std::{kernel, thread};

use crate::ptx::{ld_global_nc, st_global};

macro_rules! coalesced_kernels {
    ($(($name:ident, $b:tt)),* $(,)?) => {$(
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(a: *const f32, b: *const f32, c: *mut f32, n: u32, k: u32) {
            const B: u32 = $b;
            let t = thread::thread_idx_x();
            let row = thread::block_idx_y() * B + t / B;
            let col = thread::block_idx_x() * B + t % B;
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
for_each_coalesced!(coalesced_kernels);

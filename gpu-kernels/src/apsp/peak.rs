//! The int32 add-min ceiling: `apsp_addmin_peak` runs `PEAK_CHAINS` independent chains per
//! thread of `x = min(x, y + w)`, which ptxas fuses into one `VIADDMNMX` per update on sm_90 (see
//! `scripts/gpu-run.sh sass`). Each half-step updates every chain from another chain's previous
//! value, so nothing is idempotent or foldable, and the chains are independent within a step.
use cuda_std::{kernel, thread};
use seq_macro::seq;

use crate::ptx::add_min;

use super::{PEAK_CHAINS, PEAK_UPDATES_PER_ITERATION};

const _: () = assert!(PEAK_CHAINS == 16 && PEAK_UPDATES_PER_ITERATION == 2 * 16);

/// `iters` iterations of 2 x 16 add-mins per thread. `w` comes from the host so that nothing
/// is known at compile time; the result is stored only if it equals `w` (practically never),
/// which keeps every chain live without a store per thread.
///
/// # Safety
/// `out` must point to a writable i32 of device memory; any grid.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn apsp_addmin_peak(out: *mut i32, w: i32, iters: u32) {
    let t = thread::index_1d() as i32;
    let mut x = [0i32; 16];
    let mut y = [0i32; 16];
    seq!(I in 0..16 {
        x[I] = t.wrapping_mul(-1_640_531_535).wrapping_add(I * 40_503) >> 2;
    });
    let mut n = 0;
    while n < iters {
        seq!(I in 0..16 {
            y[I] = add_min(x[I], x[(I + 1) % 16], w);
        });
        seq!(I in 0..16 {
            x[I] = add_min(y[I], y[(I + 5) % 16], w);
        });
        n += 1;
    }
    let mut s = 0i32;
    seq!(I in 0..16 {
        s ^= x[I];
    });
    if s == w {
        // SAFETY: `out` is a writable i32 (the caller's contract) that nothing reads during the
        // launch. Threads get here only when s == w, so any that store concurrently store the same
        // value: plain racing stores of one word are defined in PTX's memory model (one wins),
        // though Rust's model would call them a data race (an atomic store would change the PTX).
        unsafe { *out = s };
    }
}

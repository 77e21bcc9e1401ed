//! The predecessor matrix of solved float distances on the GPU (the Python package's
//! `floyd_warshall(..., return_predecessors=True)`): the GPU form of
//! `rgk_core::minplus::predecessors`, one breadth-first search per source over the *tight*
//! edges, all sources at once and one level per launch.
//!
//! Level `L` (launch `L`, `L ≥ 1`): cell `(i, j)` not yet reached, with a finite distance,
//! scans the in-edges `u -> j` of `j` (CSC order: ascending `u`) and takes the first `u` that
//! was reached at a level below `L` and whose edge is tight, `|d[i][u] + w − d[i][j]| ≤ tol ·
//! (|d[i][u]| + |w| + |d[i][j]|)` in f64, exactly the CPU's test. It then records `pred[i][j] =
//! u` and `level[i][j] = L`. Because a cell reached in launch `L` is not used before launch
//! `L + 1`, the result does not depend on the order threads run in, and every predecessor chain
//! strictly descends in level to the source: a tree, even with zero-weight cycles, whose paths
//! are shortest paths (each edge tight). The host launches levels until one reaches nothing.
//!
//! Kernel arguments: [`FloatPredArgs`] by value, one definition for kernel and host.

/// Threads per block; block `(x, y)` covers columns `x·THREADS..` of row `y`.
pub const FLOAT_PRED_THREADS: u32 = 256;
/// "Not reached yet" in the level matrix.
pub const FLOAT_PRED_UNREACHED: u32 = u32::MAX;

/// The level kernels' only argument (see the module comment). All matrices are `n x n`
/// row-major with row pitch `n`; `in_ptr` has `n + 1` offsets into `in_src`/`in_w` (the
/// in-edges of each vertex, sources ascending). `changed` is set to a non-zero value when the
/// launch reaches any cell.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct FloatPredArgs<W> {
    pub d: *const W,
    pub in_ptr: *const u32,
    pub in_src: *const u32,
    pub in_w: *const W,
    pub level: *mut u32,
    pub pred: *mut i32,
    pub changed: *mut u32,
    pub n: u32,
    /// This launch's level `L ≥ 1`.
    pub iteration: u32,
    /// The relative tolerance of the tightness test (`rgk_core::minplus::Weight::REL_TOL`).
    pub tol: f64,
}

/// `(kernel, weight type)`: the single source of [`FLOAT_PRED_KERNELS`], the kernels and their
/// registry rows.
macro_rules! for_each_float_pred {
    ($m:ident) => {
        $m! {
            (apsp_float_pred_f32, f32),
            (apsp_float_pred_f64, f64),
        }
    };
}

macro_rules! float_pred_table {
    ($(($name:ident, $ty:ident)),* $(,)?) => {
        /// `(weight type, kernel)` for every float weight type.
        pub const FLOAT_PRED_KERNELS: [(&str, &str); 2] =
            [$((stringify!($ty), stringify!($name))),*];
    };
}
for_each_float_pred!(float_pred_table);

/// The level kernel for weights of `weight` (`"f32"` or `"f64"`).
pub fn float_pred_kernel(weight: &str) -> Option<&'static str> {
    FLOAT_PRED_KERNELS
        .iter()
        .find(|(w, _)| *w == weight)
        .map(|(_, k)| *k)
}

#[cfg(target_arch = "nvptx64")]
mod kernels {
    use cuda_std::{kernel, thread};

    use super::{FLOAT_PRED_THREADS, FLOAT_PRED_UNREACHED, FloatPredArgs};
    use crate::ptx::st_relaxed_gpu;

    /// |x| by clearing the sign bit (no libm on the device).
    #[inline(always)]
    fn abs(x: f64) -> f64 {
        f64::from_bits(x.to_bits() & !(1 << 63))
    }

    macro_rules! float_pred_kernels {
        ($(($name:ident, $ty:ident)),* $(,)?) => {$(
            /// One level of the predecessor search (module comment).
            ///
            /// # Safety
            /// The pointers of `a` are live device buffers of the sizes [`FloatPredArgs`]
            /// states, `in_src` values `< n`, `in_ptr` non-decreasing; `level` and `pred` are
            /// accessed by nothing else during the launch. Grid `(ceil(n / THREADS), n)`.
            #[kernel]
            #[allow(improper_ctypes_definitions)]
            pub unsafe fn $name(a: FloatPredArgs<$ty>) {
                let j = thread::block_idx_x() * FLOAT_PRED_THREADS + thread::thread_idx_x();
                let i = thread::block_idx_y();
                if j >= a.n || i >= a.n {
                    return;
                }
                let row = i as usize * a.n as usize;
                let at = row + j as usize;
                // SAFETY: every access below: i, j, u < n, so row + (j or u) < n * n, inside
                // the n x n buffers; e < in_ptr[n] = the edge count; `level`/`pred` cell (i, j)
                // is written by this thread only, and the cells it reads of row i were written
                // by earlier launches (a cell written in this launch has level L, which the
                // test below does not accept, so a racing read changes nothing).
                unsafe {
                    if *a.level.add(at) != FLOAT_PRED_UNREACHED {
                        return;
                    }
                    let dv = *a.d.add(at) as f64;
                    // +inf (no path) and NaN are never reached.
                    if !(abs(dv) <= f64::MAX) {
                        return;
                    }
                    let (lo, hi) = (*a.in_ptr.add(j as usize), *a.in_ptr.add(j as usize + 1));
                    let mut e = lo;
                    while e < hi {
                        let u = *a.in_src.add(e as usize);
                        let lu = *a.level.add(row + u as usize);
                        if lu < a.iteration {
                            let du = *a.d.add(row + u as usize) as f64;
                            let w = *a.in_w.add(e as usize) as f64;
                            if abs(du + w - dv) <= a.tol * (abs(du) + abs(w) + abs(dv)) {
                                *a.pred.add(at) = u as i32;
                                *a.level.add(at) = a.iteration;
                                st_relaxed_gpu(a.changed, 1);
                                return;
                            }
                        }
                        e += 1;
                    }
                }
            }
        )*};
    }
    for_each_float_pred!(float_pred_kernels);
}

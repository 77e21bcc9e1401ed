//! The initial distance matrix, built on the GPU from the edge list: the host uploads only the
//! edges (12 bytes each, 19 MB at V = 30000 and E = 40V) instead of filling and copying the
//! whole padded matrix (3.6 GB). The path matrix of `--paths` starts from the distances here too.
use cuda_std::{kernel, thread};

use seq_macro::seq;

use crate::ptx::{ld_global_v4, red_min_global, st_global};

use super::{
    INIT_QUADS_PER_THREAD, PATHS_MODE_PREDECESSORS,
    format::{INF, NO_PREDECESSOR, NO_SUCCESSOR},
    offsets::cell,
};

/// Calls `f(row, c)` for each quad of cells `c..c + 4` (`c` a multiple of 4) of `rows` rows of
/// `pitch` cells that this thread owns: x covers `pitch / 4` quads with `INIT_QUADS_PER_THREAD`
/// per thread, y strides over the rows, so every (row, quad) belongs to exactly one thread of
/// any grid. The one launch geometry of the matrix-filling kernels below.
#[inline(always)]
fn for_each_own_quad(pitch: u32, rows: u32, mut f: impl FnMut(u32, u32)) {
    let quads = pitch / 4;
    let mut row = thread::block_idx_y();
    while row < rows {
        let mut q = thread::block_idx_x() * thread::block_dim_x() * INIT_QUADS_PER_THREAD
            + thread::thread_idx_x();
        let mut n = 0;
        while n < INIT_QUADS_PER_THREAD {
            if q < quads {
                f(row, 4 * q);
            }
            q += thread::block_dim_x();
            n += 1;
        }
        row += thread::grid_dim_y();
    }
}

/// Sets every cell of `rows` rows of `pitch` cells to INF, and the diagonal to 0 (padding rows
/// and columns included, so that padding never shortens a path). The rows are rows
/// `row0..row0 + rows` of the whole matrix (one GPU's share of it when several split it), which
/// is where the diagonal falls. Launch: x covers `pitch / 4` quads (`pitch` is a multiple of
/// `PITCH_ALIGN`) with `INIT_QUADS_PER_THREAD` per thread, y strides over the rows.
///
/// # Safety
/// `d` must point to `rows` x `pitch` i32 of device memory, 16-byte aligned, with `pitch` a
/// multiple of 4; nothing else may access them during the launch. The kernel checks its indices
/// against `rows` and `pitch` itself, so any grid is safe.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn apsp_init_matrix(d: *mut i32, pitch: u32, rows: u32, row0: u32) {
    for_each_own_quad(pitch, rows, |row, c| {
        let cell_value = |k: u32| if row0 + row == c + k { 0 } else { INF as u32 };
        // SAFETY: row < rows and c + 4 <= pitch (`for_each_own_quad`): cells c..c + 4 of a row
        // of the caller's `rows` x `pitch` cells, 16-byte aligned (d aligned, pitch and c
        // multiples of 4); each (row, quad) belongs to one thread.
        unsafe {
            st_global::<4>(
                d.add(cell(pitch, row, c)) as *mut u32,
                [cell_value(0), cell_value(1), cell_value(2), cell_value(3)],
            )
        };
    });
}

/// `d[src][dst] = min(d[src][dst], w)` for each of the `n` edges (`src, dst, w` triples as in
/// the file, already validated by the host; `src` counted from the first row of `d`). A reduction, so repeated pairs keep their
/// smallest weight whatever the order; no edge touches the diagonal (no self-loops).
///
/// # Safety
/// `d` must point to `rows` x `pitch` i32 of device memory and `edges` to `n` (src, dst, w) triples
/// with `0 <= src < rows` and `0 <= dst < pitch` (the host checks every edge, `init_on_device`);
/// the grid may be any size.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn apsp_scatter_edges(d: *mut i32, pitch: u32, edges: *const i32, n: u32) {
    let i = thread::index_1d();
    if i < n {
        // SAFETY: i < n (checked above): triple i is inside the caller's `3 * n` i32.
        let e = unsafe { edges.add(3 * i as usize) };
        // SAFETY: the triple's three i32, inside the edge list (see `e`), which nothing writes
        // during the launch.
        let (src, dst, w) = unsafe { (*e, *e.add(1), *e.add(2)) };
        // SAFETY: src < rows and dst < pitch (the caller's contract): a cell of `d`; `red.min` is
        // atomic, so edges sharing a cell need no ordering.
        unsafe { red_min_global(d.add(cell(pitch, src as u32, dst as u32)), w) };
    }
}

/// The path matrix before the first round: for cell (i, j) of `rows` rows from global row
/// `row0` (one GPU's share when several split the matrix), `i` (successors) or "none" (predecessors) on the diagonal,
/// the edge's cell where the initial distance is finite (`j`, resp. `i`), "none" elsewhere. Grid
/// as `apsp_init_matrix`.
///
/// # Safety
/// `d` and `p` must point to `rows` x `pitch` i32 of device memory each, 16-byte aligned, `pitch` a
/// multiple of 4, `d` initialised and not written during the launch, `p` accessed by nothing
/// else; `mode` one of the `PATHS_MODE_*`. The kernel checks its indices itself.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn apsp_init_paths(
    d: *const i32,
    p: *mut i32,
    pitch: u32,
    rows: u32,
    row0: u32,
    mode: u32,
) {
    let pred = mode == PATHS_MODE_PREDECESSORS;
    for_each_own_quad(pitch, rows, |row, c| {
        let i = row0 + row;
        // SAFETY: row < rows and c + 4 <= pitch (`for_each_own_quad`): 16 aligned bytes of row
        // `row` of both matrices; each (row, quad) belongs to one thread.
        unsafe {
            let at = cell(pitch, row, c);
            let dq = ld_global_v4(d.add(at) as *const u32);
            let mut out = [0u32; 4];
            seq!(K in 0..4 {
                let j = c + K;
                out[K] = if i == j {
                    if pred { NO_PREDECESSOR as u32 } else { i }
                } else if (dq[K] as i32) < INF {
                    if pred { i } else { j }
                } else if pred {
                    NO_PREDECESSOR as u32
                } else {
                    NO_SUCCESSOR as u32
                };
            });
            st_global::<4>(p.add(at) as *mut u32, out);
        }
    });
}

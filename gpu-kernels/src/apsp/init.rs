//! The initial distance matrix, built on the GPU from the edge list: the host uploads only the
//! edges (12 bytes each, 19 MB at V = 30000 and E = 40V) instead of filling and copying the
//! whole padded matrix (3.6 GB).
use cuda_std::{kernel, thread};

use crate::ptx::{red_min_global, st_global};

use super::{INIT_QUADS_PER_THREAD, format::INF, offsets::cell};

/// Sets every cell of `rows` rows of `pitch` cells to INF, and the diagonal to 0 (padding rows
/// and columns included, so that padding never shortens a path). The rows are rows
/// `row0..row0 + rows` of the whole matrix (one GPU's share of it when several split it), which
/// is where the diagonal falls. Launch: x covers `pitch / 4` quads (`pitch` is a multiple of
/// `PITCH_ALIGN`) with `INIT_QUADS_PER_THREAD` per thread, y strides over the rows.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn apsp_init_matrix(d: *mut i32, pitch: u32, rows: u32, row0: u32) {
    let quads = pitch / 4;
    let mut row = thread::block_idx_y();
    while row < rows {
        let base = unsafe { d.add(cell(pitch, row, 0)) } as *mut u32;
        let mut q = thread::block_idx_x() * thread::block_dim_x() * INIT_QUADS_PER_THREAD
            + thread::thread_idx_x();
        let mut n = 0;
        while n < INIT_QUADS_PER_THREAD {
            if q < quads {
                let c = 4 * q;
                let cell = |k: u32| if row0 + row == c + k { 0 } else { INF as u32 };
                unsafe {
                    st_global::<4>(base.add(c as usize), [cell(0), cell(1), cell(2), cell(3)])
                };
            }
            q += thread::block_dim_x();
            n += 1;
        }
        row += thread::grid_dim_y();
    }
}

/// `d[src][dst] = min(d[src][dst], w)` for each of the `n` edges (`src, dst, w` triples as in
/// the file, already validated by the host; `src` counted from the first row of `d`). A reduction, so repeated pairs keep their
/// smallest weight whatever the order; no edge touches the diagonal (no self-loops).
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn apsp_scatter_edges(d: *mut i32, pitch: u32, edges: *const i32, n: u32) {
    let i = thread::index_1d();
    if i < n {
        let e = unsafe { edges.add(3 * i as usize) };
        let (src, dst, w) = unsafe { (*e, *e.add(1), *e.add(2)) };
        unsafe { red_min_global(d.add(cell(pitch, src as u32, dst as u32)), w) };
    }
}

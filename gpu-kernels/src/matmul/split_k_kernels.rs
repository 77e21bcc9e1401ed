//! The split-K sum and the operand pre-pass (`split_k.rs` has their contracts and why).
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::split_k::{SplitSumParams, TRANSPOSE_ROWS, TRANSPOSE_TILE, TransposeParams};
use crate::ptx::{ld_global, ld_global_nc, ld_shared, shared_addr, st_global, st_shared};

/// C = alpha·(slice 0 + slice 1 + … + the tail's products) + beta·C, one output per thread of a
/// grid-stride loop over the `m x n` outputs (consecutive threads, consecutive columns: every
/// slice read is coalesced).
///
/// # Safety
/// `p` must satisfy the [`SplitSumParams`] contract; any 1-D launch.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn sgemm_split_sum(p: SplitSumParams) {
    let n = p.n as usize;
    let total = p.m as usize * n;
    let mut i = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let stride = (thread::grid_dim_x() * thread::block_dim_x()) as usize;
    while i < total {
        // SAFETY: i < m·n: slice 0's cell, written by an earlier launch (not this one).
        let mut v = f32::from_bits(unsafe { ld_global_nc::<1>(p.work.add(i) as *const u32) }[0]);
        let mut s = 1;
        while s < p.splits as usize {
            // SAFETY: s < splits, i < m·n: inside `work`.
            let x = unsafe { ld_global_nc::<1>(p.work.add(s * total + i) as *const u32) }[0];
            v += f32::from_bits(x);
            s += 1;
        }
        let (r, c) = (i / n, i % n);
        let mut kk = 0;
        while kk < p.tail as usize {
            // SAFETY: r < m, c < n, kk < tail: cells of op(A) and op(B) past the splits' K (the
            // contract's strides), which no thread writes.
            let (x, y) = unsafe {
                (
                    ld_global_nc::<1>(
                        p.a.add(r * p.a_row as usize + kk * p.a_k as usize) as *const u32
                    )[0],
                    ld_global_nc::<1>(
                        p.b.add(kk * p.b_k as usize + c * p.b_col as usize) as *const u32
                    )[0],
                )
            };
            v += f32::from_bits(x) * f32::from_bits(y);
            kk += 1;
        }
        // SAFETY: r < m, c < n: a cell of C, this thread's alone.
        let q = unsafe { p.c.add(r * p.ldc as usize + c) } as *mut u32;
        let out = if p.beta == 0.0 {
            p.alpha * v
        } else {
            // SAFETY: `q` is a cell of C.
            p.alpha * v + p.beta * f32::from_bits(unsafe { ld_global(q) })
        };
        // SAFETY: as above.
        unsafe { st_global::<1>(q, [out.to_bits()]) };
        i += stride;
    }
}

/// Copies matrix `blockIdx.z` of the batch, one `TILE x TILE` tile per block: transposed
/// through shared memory (rows read and written whole by a warp: both sides coalesced; the
/// tile's rows padded by one word so the column reads hit 32 banks), or straight.
///
/// # Safety
/// `p` must satisfy the [`TransposeParams`] contract; the launch must use `TILE x ROWS` threads
/// and the grid `(cols.div_ceil(TILE), rows.div_ceil(TILE), batch)`.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn sgemm_transpose(p: TransposeParams) {
    const T: u32 = TRANSPOSE_TILE;
    const R: u32 = TRANSPOSE_ROWS;
    const P: u32 = T + 1;
    #[repr(C, align(16))]
    struct Tile([f32; (T * P) as usize]);
    #[address_space(shared)]
    static mut TILE: MaybeUninit<Tile> = MaybeUninit::uninit();
    const _: () = assert!(T == 4 * R);

    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    let (r0, c0) = (thread::block_idx_y() * T, thread::block_idx_x() * T);
    let z = thread::block_idx_z() as usize;
    // SAFETY: z < batch: the contract's problem offsets, inside the buffers.
    let (src, dst) = unsafe {
        (
            p.src.add(z * p.stride_src as usize) as *const u32,
            p.dst.add(z * p.stride_dst as usize) as *mut u32,
        )
    };
    let (ls, ld) = (p.ld_src as usize, p.ld_dst as usize);
    if p.transpose == 0 {
        seq!(J in 0..4 {{
            let (r, c) = (r0 + ty + J * R, c0 + tx);
            if r < p.rows && c < p.cols {
                // SAFETY: r < rows, c < cols: a source cell and its destination cell (rows
                // `ld_dst` ≥ cols apart), which only this thread writes.
                unsafe {
                    let v = ld_global_nc::<1>(src.add(r as usize * ls + c as usize));
                    st_global::<1>(dst.add(r as usize * ld + c as usize), v);
                }
            }
        }});
        return;
    }
    let tile = shared_addr(addr_of!(TILE));
    seq!(J in 0..4 {{
        let (r, c) = (r0 + ty + J * R, c0 + tx);
        if r < p.rows && c < p.cols {
            // SAFETY: r < rows, c < cols: a source cell; the shared word (ty + J·R, tx) is inside
            // the tile and this thread's alone until the barrier.
            unsafe {
                let v = ld_global_nc::<1>(src.add(r as usize * ls + c as usize));
                st_shared::<1>(tile + 4 * ((ty + J * R) * P + tx), v);
            }
        }
    }});
    thread::sync_threads();
    seq!(J in 0..4 {{
        // Destination row c0 + ty + J·R (a source column), column r0 + tx (a source row).
        let (dr, dc) = (c0 + ty + J * R, r0 + tx);
        if dr < p.cols && dc < p.rows {
            // SAFETY: the shared word (tx, ty + J·R) was stored before the barrier (its source
            // cell (dc, dr) is inside the matrix); the destination cell (dr, dc) of the
            // `cols x rows` output is this thread's alone.
            unsafe {
                let v = ld_shared::<1>(tile + 4 * (tx * P + ty + J * R));
                st_global::<1>(dst.add(dr as usize * ld + dc as usize), v);
            }
        }
    }});
}

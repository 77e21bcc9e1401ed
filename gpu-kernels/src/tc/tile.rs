//! The tensor-core kernels' per-thread helpers (`kernel.rs`): shared-memory offsets of the
//! swizzled slices, one warp tile's `mma`, and the store of a warp's accumulators to C.
use seq_macro::seq;

use super::TcParams;
use super::mma::{mma_16x8x16, st_global_v2};
use crate::ptx::{ld_global, st_global};

/// Byte offset of 16-byte piece `c` of stored row `r` in a slice with rows `pitch` bytes apart
/// and `e`-byte elements. f32 rows are padded (`row_pitch`); 16-bit rows are unpadded and, with
/// `swizzle`, XOR-swizzled: 64-byte rows (4 pieces, two rows per 128-byte bank line) by bits
/// 1–2 of the row, rows of 128 bytes or more (8, 16 or 32 pieces) by bits 0–2, so the 8 rows
/// `r0 .. r0 + 7` of one `ldmatrix` matrix (r0 a multiple of 8) fall on 8 distinct 16-byte
/// bank groups.
#[inline(always)]
pub(super) fn piece_offset(r: u32, c: u32, pitch: u32, e: u32, swizzle: bool) -> u32 {
    if e == 4 || !swizzle {
        r * pitch + 16 * c
    } else if pitch == 64 {
        r * 64 + 16 * (c ^ ((r >> 1) & 3))
    } else {
        r * pitch + 16 * (c ^ (r & 7))
    }
}

/// Byte offset of f32 element `col` of stored row `r` in a slice with rows `pitch` bytes apart.
#[inline(always)]
pub(super) fn f32_offset(r: u32, col: u32, pitch: u32) -> u32 {
    r * pitch + 4 * col
}

/// `acc += a·b` over a warp tile of `NT8` 16 x 8 columns (4 or 8) and 4 rows of 16: every A
/// fragment meets every B fragment; `acc[mi * 8 + ni]` is tile (mi, ni).
#[inline(always)]
pub(super) fn mma_tile<const BF16: bool, const NT8: u32>(
    acc: &mut [[f32; 4]; 32],
    af: &[[u32; 4]; 4],
    bf: &[[u32; 2]; 8],
) {
    seq!(MI in 0..4 {
        seq!(NI in 0..8 {
            if NI < NT8 {
                mma_16x8x16::<BF16>(&mut acc[MI * 8 + NI], af[MI], bf[NI]);
            }
        });
    });
}

/// [`mma_tile`] for 64 x 64 warp tiles (8 columns of tiles) in serpentine order, CUTLASS's:
/// odd rows walk the columns backwards, so each row's first `mma` reuses the B fragment of the
/// row before's last (and every `mma` of a row the A fragment).
#[inline(always)]
pub(super) fn mma_tile_serpentine<const BF16: bool>(
    acc: &mut [[f32; 4]; 32],
    af: &[[u32; 4]; 4],
    bf: &[[u32; 2]; 8],
) {
    seq!(MI in 0..4 {
        seq!(J in 0..8 {
            // Column NI of this step: J on even rows, 7 - J on odd ones.
            let ni = if MI % 2 == 0 { J } else { 7 - J };
            mma_16x8x16::<BF16>(&mut acc[MI * 8 + ni], af[MI], bf[ni]);
        });
    });
}

/// Whether a thread's fragment, its cells at or after its first (row, column) and at most
/// `row_last` and `col_last`, may be stored without checks: all inside C, 8-byte pairs (`pair`)
/// and `beta` 0 (C only written; the same bits as [`store2`]). The checked path cost ~20
/// instructions a pair with the tensor cores idle (sm90/epilogue.rs says how much that was).
#[inline(always)]
fn whole(p: &TcParams, pair: bool, row_last: u32, col_last: u32) -> bool {
    pair && p.beta == 0.0 && row_last < p.m && col_last < p.n
}

/// Stores `v` to C at `(row, col)`, `(row, col + 1)` as `alpha·v + beta·C`, skipping cells
/// outside C; one 8-byte store when `pair` (C allows it: `ldc` even, C 8-byte aligned).
///
/// # Safety
/// `p` must be the launch's parameters (C of `m x n`, rows `ldc` apart), and the cells stored
/// by this thread alone.
#[inline(always)]
unsafe fn store2(p: &TcParams, row: u32, col: u32, v: [f32; 2], pair: bool) {
    if row >= p.m || col >= p.n {
        return;
    }
    let at =
        p.c.wrapping_add(row as usize * p.ldc as usize + col as usize);
    let mut out = [p.alpha * v[0], p.alpha * v[1]];
    let both = col + 1 < p.n;
    if p.beta != 0.0 {
        // SAFETY: (row, col) is a cell of C (checked above), and (row, col + 1) when `both`.
        out[0] += p.beta * f32::from_bits(unsafe { ld_global(at as *const u32) });
        if both {
            // SAFETY: as above.
            let old = unsafe { ld_global(at.wrapping_add(1) as *const u32) };
            out[1] += p.beta * f32::from_bits(old);
        }
    }
    if both && pair {
        // SAFETY: both cells are in C and this thread's; `pair`: ldc even and C 8-byte aligned,
        // and col is even (2t), so `at` is 8-byte aligned.
        unsafe { st_global_v2(at, out) };
    } else {
        // SAFETY: the cells are in C (checked) and this thread's.
        unsafe { st_global::<1>(at as *mut u32, [out[0].to_bits()]) };
        if both {
            // SAFETY: as above.
            unsafe { st_global::<1>(at.wrapping_add(1) as *mut u32, [out[1].to_bits()]) };
        }
    }
}

/// Stores a warp's accumulators as `alpha·acc + beta·C`: `NT8` 16 x 8 tiles across (4 or 8) by 4
/// down, tile (mi, ni) in `acc[mi * 8 + ni]`, this thread's pairs at rows `row0 + 16 mi` and
/// `+ 8`, columns `col0 + 8 ni` and `+ 1`. Where [`whole`] holds for the whole fragment, one
/// address and constant steps with no checks; every pair through [`store2`] otherwise.
///
/// # Safety
/// `p` must be the launch's parameters, and the cells this thread's alone.
#[inline(always)]
pub(super) unsafe fn store_tile<const NT8: u32>(
    p: &TcParams,
    acc: &[[f32; 4]; 32],
    row0: u32,
    col0: u32,
) {
    let pair = p.ldc % 2 == 0 && (p.c as usize) % 8 == 0;
    if whole(p, pair, row0 + 56, col0 + 8 * (NT8 - 1) + 1) {
        let base =
            p.c.wrapping_add(row0 as usize * p.ldc as usize + col0 as usize);
        let r8 = 8 * p.ldc as usize;
        seq!(MI in 0..4 {
            seq!(NI in 0..8 {{
                if NI < NT8 {
                    let d = acc[MI * 8 + NI];
                    let at = base.wrapping_add(2 * MI * r8 + 8 * NI);
                    // SAFETY: `whole`: both rows and both columns of each pair are inside C,
                    // `at` is 8-byte aligned (even ldc and column, 8-byte aligned C), and the
                    // cells are this thread's (the caller's contract).
                    unsafe {
                        st_global_v2(at, [p.alpha * d[0], p.alpha * d[1]]);
                        st_global_v2(at.wrapping_add(r8), [p.alpha * d[2], p.alpha * d[3]]);
                    }
                }
            }});
        });
    } else {
        seq!(MI in 0..4 {
            seq!(NI in 0..8 {{
                if NI < NT8 {
                    let (row, col) = (row0 + 16 * MI, col0 + 8 * NI);
                    let d = acc[MI * 8 + NI];
                    // SAFETY: `p` is the launch's and the cells (row, col..col + 2) and 8 rows
                    // below this thread's alone (the caller's contract).
                    unsafe {
                        store2(p, row, col, [d[0], d[1]], pair);
                        store2(p, row + 8, col, [d[2], d[3]], pair);
                    }
                }
            }});
        });
    }
}

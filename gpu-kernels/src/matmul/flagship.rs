//! The flagship SGEMM: C = alpha·A·B + beta·C on unpadded row-major matrices, edge tiles
//! handled here (see `SgemmParams` for the contract).
//!
//! Structure (why):
//! - Warp tiles: a warp owns a `WTM x WTN` piece of the block tile, its lanes a `LY x LX` grid,
//!   each lane `RM x RN` outputs as 4x4 groups spaced `4*LY` rows / `4*LX` columns apart. Every
//!   fragment load is then one `ld.shared.v4` whose warp touches one contiguous span of at most
//!   128 bytes: a single shared-memory wavefront, conflict-free, mostly broadcast.
//! - A is stored transposed (`As[k][m]`, rows `BM + 4` floats: 16-byte aligned, and `≡ 4 mod 32`
//!   words so the transposing writes hit 32 distinct banks). `cp.async` cannot transpose 16-byte
//!   pieces, so A moves in 4-byte `cp.async.ca` copies: a warp reads 4 rows x 8 consecutive k
//!   (four full 32-byte sectors). B rows are copied as they are, in 16-byte pieces when `ldb`
//!   and the pointer allow (`vec_b`), else 4-byte ones.
//! - `STAGES` k-slices are in flight (`cp.async` groups, one per slice, waited with
//!   `wait_group STAGES-2`), in dynamic shared memory (more than the 48 KB of static shared
//!   memory); one barrier per slice.
//! - Fragments are double-buffered in registers: the loads for step `kk + 1` are issued before
//!   the FMAs of step `kk`. All register arrays are indexed by `seq!` constants only.
//! - Edges: A rows past M are clamped to row M-1 (they only feed C rows that are never stored);
//!   B columns past N and every k past K are zero-filled by `cp.async`'s source size, so a
//!   partial k-slice adds exact zeros (never 0·Inf: both factors are zero-filled). Only the last
//!   k-slice pays for the k checks. Stores are vectorized in full tiles with an aligned C,
//!   predicated per element elsewhere.
//! - Rasterization: `group` tile rows are walked down before moving right, so the blocks of one
//!   wave share A and B panels in L2.
use core::arch::asm;

use cuda_std::{kernel, shared::dynamic_shared_mem, thread};
use seq_macro::seq;

use super::SgemmParams;
use crate::ptx::{ld_shared, shared_addr, st_global};

/// Copies 4 bytes global → shared asynchronously; `bytes` (0 or 4) of them are read, the rest
/// zero-filled. 4-byte copies must go through L1 (`.ca`).
#[inline(always)]
unsafe fn cp_async4(dst: u32, src: *const f32, bytes: u32) {
    unsafe {
        asm!("cp.async.ca.shared.global [{d}], [{s}], 4, {n};", d = in(reg32) dst,
             s = in(reg64) src, n = in(reg32) bytes, options(nostack, preserves_flags));
    }
}

/// Copies 16 bytes global → shared asynchronously, bypassing L1; `bytes` (0..=16) of them are
/// read, the rest zero-filled. Both addresses must be 16-byte aligned.
#[inline(always)]
unsafe fn cp_async16(dst: u32, src: *const f32, bytes: u32) {
    unsafe {
        asm!("cp.async.cg.shared.global [{d}], [{s}], 16, {n};", d = in(reg32) dst,
             s = in(reg64) src, n = in(reg32) bytes, options(nostack, preserves_flags));
    }
}

#[inline(always)]
unsafe fn cp_async_commit() {
    unsafe { asm!("cp.async.commit_group;", options(nostack, preserves_flags)) }
}

/// Waits until at most `N` of this thread's committed copy groups are pending.
#[inline(always)]
unsafe fn cp_async_wait<const N: u32>() {
    // The count is an immediate in PTX; a match on the constant folds to one instruction.
    unsafe {
        match N {
            0 => asm!("cp.async.wait_group 0;", options(nostack, preserves_flags)),
            1 => asm!("cp.async.wait_group 1;", options(nostack, preserves_flags)),
            2 => asm!("cp.async.wait_group 2;", options(nostack, preserves_flags)),
            3 => asm!("cp.async.wait_group 3;", options(nostack, preserves_flags)),
            _ => asm!("cp.async.wait_all;", options(nostack, preserves_flags)),
        }
    }
}

/// Coherent 16-byte global load (C is read and written by this launch, so not `.nc`).
#[inline(always)]
unsafe fn ld_global4(p: *const f32) -> [f32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    unsafe {
        asm!("ld.global.v4.b32 {{{a}, {b}, {c}, {d}}}, [{p}];", a = out(reg32) a,
             b = out(reg32) b, c = out(reg32) c, d = out(reg32) d, p = in(reg64) p,
             options(nostack, readonly, preserves_flags));
    }
    [
        f32::from_bits(a),
        f32::from_bits(b),
        f32::from_bits(c),
        f32::from_bits(d),
    ]
}

#[inline(always)]
unsafe fn ld_global1(p: *const f32) -> f32 {
    let v: u32;
    unsafe {
        asm!("ld.global.b32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p,
             options(nostack, readonly, preserves_flags));
    }
    f32::from_bits(v)
}

/// Writes 4 consecutive outputs `v` (accumulated A·B) of row `row`, columns `col..col + 4`:
/// `alpha·v + beta·C`, reading C only when `beta != 0`. `fast`: the 4 are in range and 16-byte
/// aligned.
#[inline(always)]
unsafe fn store4(p: &SgemmParams, row: u32, col: u32, v: [f32; 4], fast: bool) {
    let at = row as usize * p.ldc as usize + col as usize;
    let ptr = unsafe { p.c.add(at) };
    if fast {
        let mut out = [0u32; 4];
        if p.beta == 0.0 {
            seq!(J in 0..4 { out[J] = (p.alpha * v[J]).to_bits(); });
        } else {
            let old = unsafe { ld_global4(ptr) };
            seq!(J in 0..4 { out[J] = (p.alpha * v[J] + p.beta * old[J]).to_bits(); });
        }
        unsafe { st_global::<4>(ptr as *mut u32, out) };
    } else if row < p.m {
        seq!(J in 0..4 {
            if col + J < p.n {
                let q = unsafe { ptr.add(J) };
                let out = if p.beta == 0.0 {
                    p.alpha * v[J]
                } else {
                    p.alpha * v[J] + p.beta * unsafe { ld_global1(q) }
                };
                unsafe { st_global::<1>(q as *mut u32, [out.to_bits()]) };
            }
        });
    }
}

/// The `l`-th FMA of a k-step: which (row, column) of the `rm x rn` thread tile it updates.
///
/// Order 0: column by column, the rows walking down and up in turn: each B value then feeds
/// `rm` consecutive FMAs (the operand reuse cache holds it), and ptxas leaves the fewest FMAs that
/// read two operands from one register bank. Measured on the H200 at 4096 (docs/matmul.md):
/// 99.0% of cuBLAS for the 128x256 tile against 94.8% row by row; other orders (row-serpentine,
/// row pairs, 4x4 blocks, interleaved groups) were in between or worse. Orders 1 and 2 are
/// candidates for `host tune`: 1 zig-zags over pairs of columns (each FMA shares one operand
/// with the one before, A and B in turn), 2 is order 0 with the columns of the two 4-column
/// groups interleaved (0, 4, 1, 5, …). Order 3 is [`ORDER_3`], for 16x8 tiles only.
const fn ffma_order(l: usize, rm: usize, rn: usize, ord: u32) -> (usize, usize) {
    match ord {
        3 => (ORDER_3[l].0 as usize, ORDER_3[l].1 as usize),
        1 => {
            let (p, i) = (l / (2 * rm), l % (2 * rm));
            let (ri, j) = (i / 2, i % 2);
            let row = if p % 2 == 0 { ri } else { rm - 1 - ri };
            (row, 2 * p + if ri % 2 == 0 { j } else { 1 - j })
        }
        2 => {
            let (c, r) = (l / rm, l % rm);
            let col = (c % 2) * (rn / 2) + c / 2;
            (if c % 2 == 0 { r } else { rm - 1 - r }, col)
        }
        _ => {
            let (c, r) = (l / rm, l % rm);
            (if c % 2 == 0 { r } else { rm - 1 - r }, c)
        }
    }
}

/// The (row, column) of each FMA of a k-step of a 16x8 thread tile, in the order with the fewest
/// FFMAs reading two operands from one register bank that scripts/ffma-bank-search.py found
/// (hill-climbing from order 0 on ptxas 13.0's sm_90 SASS of `sgemm_128x256x8_s4_16x8`: 84 →
/// 60 conflicted FFMAs per k-slice; docs/matmul.md). Machine-found, so no pattern to read; not
/// yet timed on a GPU (`host tune` decides).
const ORDER_3: [(u8, u8); 128] = [
    (0, 0),
    (1, 0),
    (3, 0),
    (4, 0),
    (5, 0),
    (9, 0),
    (8, 0),
    (15, 0),
    (6, 0),
    (3, 1),
    (4, 1),
    (5, 1),
    (6, 1),
    (7, 1),
    (8, 1),
    (9, 1),
    (10, 1),
    (1, 2),
    (13, 1),
    (12, 1),
    (14, 1),
    (7, 0),
    (15, 1),
    (2, 2),
    (13, 0),
    (12, 0),
    (11, 0),
    (10, 0),
    (2, 1),
    (1, 1),
    (0, 1),
    (0, 2),
    (11, 1),
    (14, 0),
    (3, 2),
    (4, 2),
    (5, 2),
    (6, 2),
    (7, 2),
    (8, 2),
    (9, 2),
    (10, 2),
    (11, 2),
    (12, 2),
    (13, 2),
    (14, 2),
    (15, 3),
    (15, 2),
    (14, 3),
    (4, 3),
    (2, 4),
    (1, 4),
    (0, 4),
    (8, 3),
    (2, 3),
    (3, 3),
    (13, 3),
    (12, 3),
    (11, 3),
    (10, 3),
    (9, 3),
    (0, 3),
    (7, 3),
    (6, 3),
    (5, 3),
    (1, 3),
    (3, 4),
    (4, 4),
    (5, 4),
    (6, 4),
    (7, 4),
    (8, 4),
    (9, 4),
    (10, 4),
    (11, 4),
    (12, 4),
    (13, 4),
    (14, 4),
    (15, 4),
    (15, 5),
    (14, 5),
    (13, 5),
    (12, 5),
    (11, 5),
    (2, 0),
    (10, 5),
    (9, 5),
    (8, 5),
    (7, 5),
    (6, 5),
    (5, 5),
    (4, 5),
    (3, 5),
    (2, 5),
    (1, 5),
    (0, 5),
    (0, 6),
    (1, 6),
    (2, 6),
    (3, 6),
    (4, 6),
    (5, 6),
    (6, 6),
    (7, 6),
    (8, 6),
    (9, 6),
    (10, 6),
    (11, 6),
    (12, 6),
    (13, 6),
    (14, 6),
    (15, 6),
    (15, 7),
    (14, 7),
    (13, 7),
    (12, 7),
    (11, 7),
    (10, 7),
    (9, 7),
    (8, 7),
    (7, 7),
    (6, 7),
    (5, 7),
    (4, 7),
    (3, 7),
    (2, 7),
    (1, 7),
    (0, 7),
];

/// Whether `ffma_order` visits every (row, column) of an `rm x rn` tile exactly once.
const fn order_is_permutation(rm: usize, rn: usize, ord: u32) -> bool {
    let mut seen = [false; 256];
    let mut l = 0;
    while l < rm * rn {
        let (r, c) = ffma_order(l, rm, rn, ord);
        if r >= rm || c >= rn || seen[r * rn + c] {
            return false;
        }
        seen[r * rn + c] = true;
        l += 1;
    }
    rm * rn <= 256
}

macro_rules! flagship_kernels {
    ($(($name:ident, $bm:tt, $bn:tt, $bk:tt, $wm:tt, $wn:tt, $ly:tt, $lx:tt, $st:tt, $vec:tt,
        $rm:tt, $rn:tt, $ga:tt, $gb:tt, $al:tt, $bl:tt, $ord:tt)),* $(,)?) => {$(
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: SgemmParams) {
            const BM: u32 = $bm;
            const BN: u32 = $bn;
            const BK: u32 = $bk;
            const WN: u32 = $wn;
            const NW: u32 = $wm * $wn;
            const NT: u32 = 32 * NW;
            const LY: u32 = $ly;
            const LX: u32 = $lx;
            const WTM: u32 = BM / $wm;
            const WTN: u32 = BN / WN;
            const STAGES: u32 = $st;
            const VEC: bool = $vec;
            /// Row pitch of the transposed A slice, in floats.
            const AP: u32 = BM + 4;
            const A_BYTES: u32 = 4 * BK * AP;
            const STAGE_BYTES: u32 = A_BYTES + 4 * BK * BN;
            /// B is copied in pieces of `BW` floats; `BPR` pieces per slice row.
            const BW: u32 = if VEC { 4 } else { 1 };
            const BPR: u32 = BN / BW;
            /// Slice rows between one thread's consecutive B copies.
            const B_ROW_STEP: u32 = NT / BPR;
            const _: () = {
                assert!(LY * LX == 32);
                assert!(WTM == LY * $rm && WTN == LX * $rn);
                assert!($rm == 4 * $ga && $rn == 4 * $gb);
                assert!(BK % 8 == 0 && BM % 32 == 0 && BK <= 16);
                // A: BM/4 x BK/8 pieces of 4 rows x 8 k, `al` per warp, the warps of a
                // k-group side by side.
                assert!((BM / 4) * (BK / 8) == NW * $al && (BM / 4) % NW == 0);
                // B: each thread copies one column position of `bl` rows.
                assert!(NT % BPR == 0 && BK * BPR == NT * $bl);
                assert!(STAGES >= 2 && STAGES <= 5);
                assert!(order_is_permutation($rm, $rn, $ord));
            };

            let tid = thread::thread_idx_x();
            let warp = tid / 32;
            let lane = tid % 32;
            let (m, n, k) = (p.m, p.n, p.k);
            let (lda, ldb) = (p.lda as usize, p.ldb as usize);

            // Rasterization: block `pid` → tile (tm, tn), `group` tile rows per column sweep.
            let tiles_m = m.div_ceil(BM);
            let tiles_n = n.div_ceil(BN);
            let per_group = p.group * tiles_n;
            let pid = thread::block_idx_x();
            let first = pid / per_group * p.group;
            let gsize = if tiles_m - first < p.group { tiles_m - first } else { p.group };
            let in_group = pid % per_group;
            let m0 = (first + in_group % gsize) * BM;
            let n0 = in_group / gsize * BN;

            // cuda_std declares its dynamic-shared symbol as a 16-byte `.extern .shared` array,
            // which ptxas counts as 16 static bytes (the "16" in its report); the dynamic
            // allocation follows them, so [symbol, symbol + dynamic bytes) is inside the block's
            // shared memory (compute-sanitizer memcheck: no findings).
            let smem = shared_addr(dynamic_shared_mem::<u32>());

            // A copies: copy I of a warp covers rows `4*warp + lane/8 + A_ROW(I)` and k
            // `lane%8 + A_K(I)` of the slice: `IPK` copies per 8-k group, so that every copy's
            // shared offset, and its global offset from one of `IPK` row pointers, is a constant.
            const IPK: u32 = BM / 4 / NW;
            let a_row0 = m0 + 4 * warp + lane / 8;
            let a_k0 = lane % 8;
            let mut a_src = [core::ptr::null::<f32>(); IPK as usize];
            seq!(I in 0..$al {
                if I < IPK {
                    let r = a_row0 + 4 * NW * I;
                    let row = if r < m { r } else { m - 1 };
                    a_src[(I % IPK) as usize] = unsafe { p.a.add(row as usize * lda + a_k0 as usize) };
                }
            });
            let a_dst = smem + 4 * (a_k0 * AP + 4 * warp + lane / 8);
            // B copies: piece column `tid % BPR`, rows `tid / BPR + I*B_ROW_STEP`.
            let b_col = n0 + tid % BPR * BW;
            let b_row = tid / BPR;
            let b_bytes = if b_col >= n {
                0
            } else if n - b_col >= BW {
                4 * BW
            } else {
                4 * (n - b_col)
            };
            // Out-of-range pieces still need a valid (and for 16-byte copies aligned) address.
            let b_col_addr = if b_bytes == 0 { (n - 1) / BW * BW } else { b_col };
            let b_src = unsafe { p.b.add(b_row as usize * ldb + b_col_addr as usize) };
            let b_step = B_ROW_STEP as usize * ldb;
            let b_dst = smem + A_BYTES + 4 * (b_row * BN + tid % BPR * BW);

            let ktiles = k.div_ceil(BK);
            let kfull = k / BK;
            // Issues the copies of k-slice `t` into the stage at byte offset `stage`.
            let load_tile = |t: u32, stage: u32| {
                let k0 = t * BK;
                if t < kfull {
                    seq!(I in 0..$al {{
                        const ROW: u32 = I % IPK;
                        const KG: u32 = I / IPK;
                        let src = unsafe { a_src[ROW as usize].add((k0 + 8 * KG) as usize) };
                        let dst = a_dst + stage + 4 * (8 * KG * AP + 4 * NW * ROW);
                        unsafe { cp_async4(dst, src, 4) };
                    }});
                    let b_slice = unsafe { b_src.add(k0 as usize * ldb) };
                    seq!(I in 0..$bl {
                        let src = unsafe { b_slice.add(I * b_step) };
                        let dst = b_dst + stage + 4 * I * B_ROW_STEP * BN;
                        if VEC {
                            unsafe { cp_async16(dst, src, b_bytes) };
                        } else {
                            unsafe { cp_async4(dst, src, b_bytes) };
                        }
                    });
                } else {
                    // The last, partial slice: k past K reads nothing (address kept valid).
                    seq!(I in 0..$al {{
                        const ROW: u32 = I % IPK;
                        const KG: u32 = I / IPK;
                        let ok = k0 + 8 * KG + a_k0 < k;
                        let src = if ok {
                            unsafe { a_src[ROW as usize].add((k0 + 8 * KG) as usize) }
                        } else {
                            p.a
                        };
                        let dst = a_dst + stage + 4 * (8 * KG * AP + 4 * NW * ROW);
                        unsafe { cp_async4(dst, src, if ok { 4 } else { 0 }) };
                    }});
                    seq!(I in 0..$bl {
                        let ok = k0 + b_row + I * B_ROW_STEP < k;
                        let src = if ok {
                            unsafe { b_src.add(k0 as usize * ldb + I * b_step) }
                        } else {
                            unsafe { p.b.add(b_col_addr as usize) }
                        };
                        let bytes = if ok { b_bytes } else { 0 };
                        let dst = b_dst + stage + 4 * I * B_ROW_STEP * BN;
                        if VEC {
                            unsafe { cp_async16(dst, src, bytes) };
                        } else {
                            unsafe { cp_async4(dst, src, bytes) };
                        }
                    });
                }
            };

            // Prologue: slices 0..STAGES-1 in flight, one group each (possibly empty).
            seq!(S in 0..$st {
                if S + 1 < STAGES {
                    if S < ktiles {
                        load_tile(S, S * STAGE_BYTES);
                    }
                    unsafe { cp_async_commit() };
                }
            });
            unsafe { cp_async_wait::<{ $st - 2 }>() };
            thread::sync_threads();

            let a_frag = 4 * (warp / WN * WTM + lane / LX * 4);
            let b_frag = A_BYTES + 4 * (warp % WN * WTN + lane % LX * 4);
            let mut acc = [[0.0f32; $rn]; $rm];
            let mut fa = [[0.0f32; $rm]; 2];
            let mut fb = [[0.0f32; $rn]; 2];
            let mut read = 0u32;
            let mut write = (STAGES - 1) * STAGE_BYTES;
            // Fragments of step 0.
            seq!(G in 0..$ga {
                let v = unsafe { ld_shared::<4>(smem + read + a_frag + 4 * G * LY * 4) };
                seq!(J in 0..4 { fa[0][G * 4 + J] = f32::from_bits(v[J]); });
            });
            seq!(H in 0..$gb {
                let v = unsafe { ld_shared::<4>(smem + read + b_frag + 4 * H * LX * 4) };
                seq!(J in 0..4 { fb[0][H * 4 + J] = f32::from_bits(v[J]); });
            });

            let mut kt = 0;
            while kt < ktiles {
                seq!(KK in 0..$bk {
                    if KK == BK - 1 {
                        // Slice kt+1 has landed; every warp is done with slice kt-1's stage,
                        // which the copies issued at KK == 0 of the next round overwrite.
                        unsafe { cp_async_wait::<{ $st - 2 }>() };
                        thread::sync_threads();
                        read = if read + STAGE_BYTES == STAGES * STAGE_BYTES { 0 } else { read + STAGE_BYTES };
                    }
                    {
                        const NEXT: u32 = (KK + 1) % BK;
                        const NB: usize = (KK + 1) % 2;
                        seq!(G in 0..$ga {
                            let v = unsafe {
                                ld_shared::<4>(smem + read + a_frag + 4 * (NEXT * AP + G * LY * 4))
                            };
                            seq!(J in 0..4 { fa[NB][G * 4 + J] = f32::from_bits(v[J]); });
                        });
                        seq!(H in 0..$gb {
                            let v = unsafe {
                                ld_shared::<4>(smem + read + b_frag + 4 * (NEXT * BN + H * LX * 4))
                            };
                            seq!(J in 0..4 { fb[NB][H * 4 + J] = f32::from_bits(v[J]); });
                        });
                    }
                    if KK == 0 {
                        let t = kt + STAGES - 1;
                        if t < ktiles {
                            load_tile(t, write);
                        }
                        unsafe { cp_async_commit() };
                        write = if write + STAGE_BYTES == STAGES * STAGE_BYTES { 0 } else { write + STAGE_BYTES };
                    }
                    {
                        const CB: usize = KK % 2;
                        seq!(R in 0..$rm {
                            seq!(C in 0..$rn {{
                                const RC: (usize, usize) = ffma_order(R * $rn + C, $rm, $rn, $ord);
                                acc[RC.0][RC.1] += fa[CB][RC.0] * fb[CB][RC.1];
                            }});
                        });
                    }
                });
                kt += 1;
            }
            // No copy may still be writing shared memory when the block exits.
            unsafe { cp_async_wait::<0>() };

            let fast = m0 + BM <= m && n0 + BN <= n && p.ldc % 4 == 0 && (p.c as usize) % 16 == 0;
            let row0 = m0 + warp / WN * WTM + lane / LX * 4;
            let col0 = n0 + warp % WN * WTN + lane % LX * 4;
            seq!(G in 0..$ga {
                seq!(I in 0..4 {
                    seq!(H in 0..$gb {
                        let v = [
                            acc[G * 4 + I][H * 4],
                            acc[G * 4 + I][H * 4 + 1],
                            acc[G * 4 + I][H * 4 + 2],
                            acc[G * 4 + I][H * 4 + 3],
                        ];
                        unsafe { store4(&p, row0 + G * LY * 4 + I, col0 + H * LX * 4, v, fast) };
                    });
                });
            });
        }
    )*};
}
for_each_flagship!(flagship_kernels);

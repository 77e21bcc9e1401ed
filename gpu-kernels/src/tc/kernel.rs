//! The tensor-core GEMM kernels (see `mod.rs` for the contract, docs/tensor-cores.md for the
//! design and its measurements).
//!
//! Structure (why; docs/tensor-cores.md has the measurements):
//! - 8 warps per block, each 64 x 32 of C (4 x 4 tiles of 16 x 8, 64 f32 accumulators) or, in
//!   the `_w64` kernels, 64 x 64 (4 x 8 tiles, 128 accumulators: 8 `ldmatrix.x4` per 32 `mma`).
//! - `prefetch`: the fragments of k-step `s + 1` are loaded before the `mma` of step `s`, across
//!   slices too (the next slice's wait and barrier come before the current slice's last k-step),
//!   so no warp waits on `ldmatrix` after a barrier. `lean` (session 7): each thread's copy
//!   sources, destinations and `ldmatrix` offsets computed once before the k-loop, and slices of
//!   tiles wholly inside C copied with no bounds arithmetic (session 6 spent ~190 integer
//!   instructions per 64 HMMA on them); without `prefetch` (session 8) the plain loop, for 64 x 32
//!   warp tiles under 128 registers. `TcOrder::Interleaved` (session 20): CUTLASS's loop order.
//! - Global → shared in 16-byte `cp.async.cg` pieces, one commit group per k-slice, `STAGES` in
//!   flight, one barrier per slice; slices stored with their contiguous dimension as in memory, so
//!   every copy is 16 contiguous bytes; edges copy fewer bytes and the hardware zero-fills the
//!   rest (`src-size`), so partial tiles add exact zeros and no thread branches around an `mma`.
//! - 16-bit kinds: fragments from `ldmatrix.x4` (`.trans` for M- or N-contiguous slices), rows
//!   XOR-swizzled in 16-byte pieces (`piece_offset`): an 8-row matrix spans 8 bank groups. TF32:
//!   32-bit `ld.shared` from padded rows (`row_pitch`; `ldmatrix` cannot transpose 32-bit
//!   elements), 32 banks per load either way, each value rounded (`cvt.rna.tf32.f32`; 3xTF32
//!   split in hi and lo). C is written from the accumulators with 8-byte stores where C allows.
use cuda_std::{kernel, shared::dynamic_shared_mem, thread};
use seq_macro::seq;

use super::mma::{cp_async16, cp_async16_full, ldmatrix_x4, mma_16x8x8_tf32, split_tf32, tf32};
use super::tile::{f32_offset, mma_tile, mma_tile_serpentine, piece_offset, store_tile};
use super::{TcKind, TcOrder, TcParams, row_pitch};
use crate::ptx::{cp_async_commit, cp_async_wait, ld_shared, shared_addr};

macro_rules! tc_kernels {
    ($(($name:ident { kind: $kind:ident, a_rows: $ar:tt, b_rows: $br:tt, stages: $st:tt,
        swizzle: $sw:tt, tile: [$bm:tt, $bn:tt, $bk:tt], warps: [$wm:tt, $wn:tt],
        prefetch: $pf:tt, lean: $ln:tt, library: $lib:tt, order: $ord:ident })),* $(,)?) => {$(
        /// # Safety
        /// `p` must satisfy the [`TcParams`] contract for this kernel's kind and layouts (A, B
        /// and C inside their buffers, leading dimensions multiples of 16 bytes, A and B 16-byte
        /// aligned, C overlapping neither), and the launch must use `TcConfig::threads`
        /// threads, one block per tile of C (`TcConfig::tiles`) and `TcConfig::shared_bytes`
        /// of dynamic shared memory.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: TcParams) {
            const KIND: TcKind = TcKind::$kind;
            const E: u32 = KIND.element_bytes();
            const EPC: u32 = 16 / E;
            const BF16: bool = matches!(KIND, TcKind::Bf16);
            const SPLIT: bool = matches!(KIND, TcKind::Tf32x3);
            const BM: u32 = $bm;
            const BN: u32 = $bn;
            const BK: u32 = $bk;
            const WN: u32 = $wn;
            const NT: u32 = 32 * $wm * $wn;
            /// A warp's tile: 64 rows (4 x 16) by `WTN` columns (`NT8` x 8).
            const WTN: u32 = BN / WN;
            const NT8: u32 = WTN / 8;
            /// 16-deep k-steps per slice (16-bit kinds).
            const KG: u32 = BK / 16;
            const PREFETCH: bool = $pf;
            const LEAN: bool = $ln;
            const INTERLEAVE: bool = matches!(TcOrder::$ord, TcOrder::Interleaved);
            const AR: bool = $ar;
            const BR: bool = $br;
            const SW: bool = $sw;
            const STAGES: u32 = $st;
            /// Bytes between stored rows: A row-major keeps rows along k, B row-major along n.
            const PITCH_A: u32 = if AR { row_pitch(KIND, BK, true) } else { row_pitch(KIND, BM, false) };
            const PITCH_B: u32 = if BR { row_pitch(KIND, BN, false) } else { row_pitch(KIND, BK, true) };
            const A_BYTES: u32 = (if AR { BM } else { BK }) * PITCH_A;
            const B_BYTES: u32 = (if BR { BK } else { BN }) * PITCH_B;
            const STAGE_BYTES: u32 = A_BYTES + B_BYTES;
            /// 16-byte pieces per stored row, and copies per thread per slice.
            const PA: u32 = if AR { BK / EPC } else { BM / EPC };
            const PB: u32 = if BR { BN / EPC } else { BK / EPC };
            const CA: u32 = BM * BK / EPC / NT;
            const CB: u32 = BN * BK / EPC / NT;
            const _: () = {
                assert!(CA >= 1 && CA <= 8 && CB >= 1 && CB <= 8 && NT % PA == 0 && NT % PB == 0);
                assert!(STAGES >= 2 && STAGES <= 4);
                assert!(E == 4 || (PA == 4 || PA % 8 == 0) && (PB == 4 || PB % 8 == 0));
                assert!(BM / $wm == 64 && (WTN == 32 || WTN == 64) && KG >= 1 && KG <= 4);
                assert!(E == 2 || (WTN == 32 && BK == 32 && !PREFETCH));
                // `lean`: a thread's copies are 8k stored rows apart (the swizzle's period).
                assert!(!LEAN || (E == 2 && (NT / PA) % 8 == 0 && (NT / PB) % 8 == 0));
                // `TcOrder::Interleaved`: two fragment sets by k-step parity, the same at every slice.
                assert!(!INTERLEAVE || (LEAN && PREFETCH && KG % 2 == 0 && NT8 == 8));
            };

            let (m, n, k) = (p.m, p.n, p.k);
            let (lda, ldb) = (p.lda as usize, p.ldb as usize);
            let tid = thread::thread_idx_x();
            let (warp, lane) = (tid / 32, tid % 32);
            // Grouped rasterization: `group` tile rows walked down before moving right.
            let (m0, n0) = {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let width = p.group * tiles_n;
                let pid = thread::block_idx_x();
                let first = pid / width * p.group;
                let rows = core::cmp::min(tiles_m - first, p.group);
                ((first + pid % width % rows) * BM, (pid % width / rows) * BN)
            };
            let (wm0, wn0) = (warp / WN * 64, warp % WN * WTN);
            let smem = shared_addr(dynamic_shared_mem::<u32>());

            // Issues the copies of k-slice `kt` into the stage at byte offset `stage`. Stored
            // row `sr` of a slice is global row (or column) `o`, its piece `c` starts at index
            // `i` along the contiguous dimension; (oe, ie) are the extents of the two.
            let load = |kt: u32, stage: u32| {
                let k0 = kt * BK;
                seq!(J in 0..8 {
                    if J < CA {
                        let (sr, c) = (tid / PA + J * (NT / PA), tid % PA);
                        let (o, i, oe, ie) = if AR { (m0 + sr, k0 + c * EPC, m, k) } else { (k0 + sr, m0 + c * EPC, k, m) };
                        let ok = o < oe && i < ie;
                        let bytes = if ok { core::cmp::min(ie - i, EPC) * E } else { 0 };
                        let at = (o as usize * lda + i as usize) * E as usize;
                        let src = if ok { p.a.wrapping_add(at) } else { p.a };
                        // SAFETY: the piece is inside this stage's A slice (sr < its rows, c <
                        // PA); `src` has `bytes` readable bytes of A (o < oe, i < ie, the piece
                        // clamped to the extent; lda and A 16-byte aligned, i a multiple of EPC)
                        // or nothing is read. No thread touches the stage until the wait and
                        // barrier that retire this group; the stage was released by the barrier
                        // before the call.
                        unsafe { cp_async16(smem + stage + piece_offset(sr, c, PITCH_A, E, SW), src, bytes) };
                    }
                });
                seq!(J in 0..8 {
                    if J < CB {
                        let (sr, c) = (tid / PB + J * (NT / PB), tid % PB);
                        let (o, i, oe, ie) = if BR { (k0 + sr, n0 + c * EPC, k, n) } else { (n0 + sr, k0 + c * EPC, n, k) };
                        let ok = o < oe && i < ie;
                        let bytes = if ok { core::cmp::min(ie - i, EPC) * E } else { 0 };
                        let at = (o as usize * ldb + i as usize) * E as usize;
                        let src = if ok { p.b.wrapping_add(at) } else { p.b };
                        // SAFETY: as for A, in this stage's B slice.
                        unsafe { cp_async16(smem + stage + A_BYTES + piece_offset(sr, c, PITCH_B, E, SW), src, bytes) };
                    }
                });
            };

            let ktiles = k.div_ceil(BK);
            if !LEAN {
                seq!(S in 0..3 {
                    if S < STAGES - 1 {
                        if S < ktiles {
                            load(S, S * STAGE_BYTES);
                        }
                        // SAFETY: closes this thread's group; no memory access.
                        unsafe { cp_async_commit() };
                    }
                });
            }

            // Accumulator tile (mi, ni) is acc[mi * 8 + ni]; with 4 columns of tiles (NT8 = 4)
            // the upper half is never touched and the compiler drops it.
            let mut acc = [[0f32; 4]; 32];
            let (li, l8, g, t) = (lane / 8, lane % 8, lane / 4, lane % 4);
            let (mut read, mut write) = (0, (STAGES - 1) * STAGE_BYTES);
            let next_stage = |s: u32| if s + STAGE_BYTES == STAGES * STAGE_BYTES { 0 } else { s + STAGE_BYTES };
            // 16-bit fragments of k-step `kk` of the slice at byte offset `stage`: A's 4 x 16
            // rows, B's NT8 x 8 columns (`ldmatrix.x4` gives two B fragments).
            let frags16 = |stage: u32, kk: u32| {
                let (a_s, b_s) = (smem + stage, smem + stage + A_BYTES);
                let mut af = [[0u32; 4]; 4];
                seq!(MI in 0..4 {
                    let off = if AR {
                        piece_offset(wm0 + 16 * MI + li % 2 * 8 + l8, 2 * kk + li / 2, PITCH_A, 2, SW)
                    } else {
                        piece_offset(16 * kk + li / 2 * 8 + l8, (wm0 + 16 * MI) / 8 + li % 2, PITCH_A, 2, SW)
                    };
                    // SAFETY: all lanes (warp-uniform call); a 16-byte row of the stage's A
                    // slice (row < its rows, piece < PA), landed and ordered before this read
                    // by the wait and barrier the caller passed.
                    af[MI] = unsafe { ldmatrix_x4::<{ !AR }>(a_s + off) };
                });
                let mut bf = [[0u32; 2]; 8];
                seq!(NJ in 0..4 {
                    if NJ < NT8 / 2 {
                        let off = if BR {
                            piece_offset(16 * kk + li % 2 * 8 + l8, (wn0 + 16 * NJ) / 8 + li / 2, PITCH_B, 2, SW)
                        } else {
                            piece_offset(wn0 + 16 * NJ + li / 2 * 8 + l8, 2 * kk + li % 2, PITCH_B, 2, SW)
                        };
                        // SAFETY: as for A, in the B slice.
                        let r = unsafe { ldmatrix_x4::<{ BR }>(b_s + off) };
                        bf[2 * NJ] = [r[0], r[1]];
                        bf[2 * NJ + 1] = [r[2], r[3]];
                    }
                });
                (af, bf)
            };
            let mut kt = 0;
            if LEAN {
                // Each thread's copies: piece `c` of stored rows `s + J * (NT / P)` of a slice
                // (8k rows apart, so the swizzle adds nothing per J), at global element
                // `el + J * (NT / P) * ld`, moved by a whole slice per k-slice. Everything but
                // the slice's offset is computed here, once.
                let (sa, ca, sb, cb) = (tid / PA, tid % PA, tid / PB, tid % PB);
                let a_el = if AR {
                    (m0 + sa) as usize * lda + (ca * EPC) as usize
                } else {
                    sa as usize * lda + (m0 + ca * EPC) as usize
                };
                let b_el = if BR {
                    sb as usize * ldb + (n0 + cb * EPC) as usize
                } else {
                    (n0 + sb) as usize * ldb + (cb * EPC) as usize
                };
                let a_src = p.a.wrapping_add(a_el * E as usize);
                let b_src = p.b.wrapping_add(b_el * E as usize);
                // Byte strides: between a thread's pieces, and per k-slice (32-bit: below).
                let a_j = (NT / PA * E).wrapping_mul(p.lda);
                let b_j = (NT / PB * E).wrapping_mul(p.ldb);
                let a_k = if AR { BK * E } else { (BK * E).wrapping_mul(p.lda) };
                let b_k = if BR { (BK * E).wrapping_mul(p.ldb) } else { BK * E };
                let a_dst = piece_offset(sa, ca, PITCH_A, E, SW);
                let b_dst = A_BYTES + piece_offset(sb, cb, PITCH_B, E, SW);
                // Slices below `kfull` of a tile wholly inside C lie wholly inside A and B (rows
                // m0 + BM <= m, columns n0 + BN <= n, k below (kt + 1) * BK <= k); leading
                // dimensions below 2^24 keep the strides above (at most 64 * 2^24 * 2 bytes) in
                // 32 bits. Every other slice takes the checked `load`.
                let inside = m0 + BM <= m && n0 + BN <= n && p.lda < 1 << 24 && p.ldb < 1 << 24;
                let kfull = if inside { k / BK } else { 0 };
                let copy = |kt: u32, stage: u32| {
                    if kt < kfull {
                        let ga = a_src.wrapping_add(kt as usize * a_k as usize);
                        let gb = b_src.wrapping_add(kt as usize * b_k as usize);
                        seq!(J in 0..8 {
                            if J < CA {
                                // SAFETY: piece J of this thread in this stage's A slice (as in
                                // `load`); its 16 source bytes are inside A (kt < kfull: the
                                // tile and the slice are inside, so the piece is whole). The
                                // stage was released by the barrier before the call.
                                unsafe { cp_async16_full(smem + stage + a_dst + J * (NT / PA) * PITCH_A, ga.wrapping_add(J as usize * a_j as usize)) };
                            }
                        });
                        seq!(J in 0..8 {
                            if J < CB {
                                // SAFETY: as for A, in this stage's B slice.
                                unsafe { cp_async16_full(smem + stage + b_dst + J * (NT / PB) * PITCH_B, gb.wrapping_add(J as usize * b_j as usize)) };
                            }
                        });
                    } else if kt < ktiles {
                        load(kt, stage);
                    }
                    // SAFETY: closes this thread's group; no memory access.
                    unsafe { cp_async_commit() };
                };
                seq!(S in 0..3 {
                    if S < STAGES - 1 {
                        copy(S, S * STAGE_BYTES);
                    }
                });
                // The lane's `ldmatrix` row offsets (as `frags16`'s): along the operand's
                // contiguous dimension one per k-step, along the other one per 16 rows, the
                // rest a constant (16 stored rows apart: the swizzle repeats every 8).
                let (mut fa, mut fb) = ([0u32; 4], [0u32; 4]);
                seq!(X in 0..4 {
                    fa[X] = if AR {
                        piece_offset(wm0 + li % 2 * 8 + l8, 2 * X + li / 2, PITCH_A, 2, SW)
                    } else {
                        piece_offset(li / 2 * 8 + l8, (wm0 + 16 * X) / 8 + li % 2, PITCH_A, 2, SW)
                    };
                    fb[X] = A_BYTES + if BR {
                        piece_offset(li % 2 * 8 + l8, (wn0 + 16 * X) / 8 + li / 2, PITCH_B, 2, SW)
                    } else {
                        piece_offset(wn0 + li / 2 * 8 + l8, 2 * X + li % 2, PITCH_B, 2, SW)
                    };
                });
                let pick = |x: &[u32; 4], i: u32| match i {
                    0 => x[0],
                    1 => x[1],
                    2 => x[2],
                    _ => x[3],
                };
                let frags = |stage: u32, kk: u32| {
                    let base = smem + stage;
                    let mut af = [[0u32; 4]; 4];
                    seq!(MI in 0..4 {
                        let off = if AR { pick(&fa, kk) + MI * 16 * PITCH_A } else { fa[MI] + kk * 16 * PITCH_A };
                        // SAFETY: as in `frags16` (the same rows and pieces).
                        af[MI] = unsafe { ldmatrix_x4::<{ !AR }>(base + off) };
                    });
                    let mut bf = [[0u32; 2]; 8];
                    seq!(NJ in 0..4 {
                        if NJ < NT8 / 2 {
                            let off = if BR { fb[NJ] + kk * 16 * PITCH_B } else { pick(&fb, kk) + NJ * 16 * PITCH_B };
                            // SAFETY: as in `frags16`.
                            let r = unsafe { ldmatrix_x4::<{ BR }>(base + off) };
                            bf[2 * NJ] = [r[0], r[1]];
                            bf[2 * NJ + 1] = [r[2], r[3]];
                        }
                    });
                    (af, bf)
                };
                while !PREFETCH && kt < ktiles {
                    // Session 8: the plain loop (as the last one below) with these copies and
                    // addresses, for 64 x 32 warp tiles under 128 registers (4 warps per
                    // scheduler). Slice kt landed for every thread, and every warp is done with
                    // the stage the copies overwrite (it held slice kt - 1, read last round).
                    // SAFETY: waits only.
                    unsafe { cp_async_wait::<{ $st - 2 }>() };
                    thread::sync_threads();
                    copy(kt + STAGES - 1, write);
                    write = next_stage(write);
                    seq!(KK in 0..4 {
                        if KK < KG {
                            let (af, bf) = frags(read, KK);
                            mma_tile::<{ BF16 }, { NT8 }>(&mut acc, &af, &bf);
                        }
                    });
                    read = next_stage(read);
                    kt += 1;
                }
                if INTERLEAVE {
                    // CUTLASS's sm_80 order (session 20): k-step `s + 1`'s fragments go to set
                    // `(s + 1) % 2` while step `s`'s `mma` run from set `s % 2` (KG even: no
                    // register moves at the loop edge); the copies follow the first step's `mma`.
                    // SAFETY: waits only (slice 0 landed: STAGES - 1 groups committed).
                    unsafe { cp_async_wait::<{ $st - 2 }>() };
                    thread::sync_threads();
                    let mut f0 = frags(0, 0);
                    let mut f1 = f0;
                    while kt < ktiles {
                        seq!(KK in 0..4 {
                            if KK < KG {
                                let at = if KK + 1 < KG {
                                    (read, KK + 1)
                                } else {
                                    // Slice kt + 1 landed (STAGES + kt groups committed, at
                                    // most STAGES - 2 pending) and every warp holds its last
                                    // fragments of slice kt; past the last slice the read is
                                    // of a stage no copy writes, and unused.
                                    // SAFETY: waits only.
                                    unsafe { cp_async_wait::<{ $st - 2 }>() };
                                    thread::sync_threads();
                                    read = next_stage(read);
                                    (read, 0)
                                };
                                if KK % 2 == 0 {
                                    f1 = frags(at.0, at.1);
                                    mma_tile_serpentine::<{ BF16 }>(&mut acc, &f0.0, &f0.1);
                                } else {
                                    f0 = frags(at.0, at.1);
                                    mma_tile_serpentine::<{ BF16 }>(&mut acc, &f1.0, &f1.1);
                                }
                                if KK == 0 {
                                    // The stage written held slice kt - 1, which every warp
                                    // finished reading before the previous round's barrier.
                                    copy(kt + STAGES - 1, write);
                                    write = next_stage(write);
                                }
                            }
                        });
                        kt += 1;
                    }
                }
                if PREFETCH && !INTERLEAVE {
                    // The prefetching loop below, with these copies and addresses.
                    // SAFETY: waits only.
                    unsafe { cp_async_wait::<{ $st - 2 }>() };
                    thread::sync_threads();
                    let mut cur = frags(0, 0);
                    while kt < ktiles {
                        // As in the prefetching loop: the stage written held slice kt - 1, released
                        // by the previous round's barrier.
                        copy(kt + STAGES - 1, write);
                        write = next_stage(write);
                        seq!(KK in 0..4 {
                            if KK < KG {
                                let next = if KK + 1 < KG {
                                    frags(read, KK + 1)
                                } else {
                                    // SAFETY: waits only (slice kt + 1 landed, see below).
                                    unsafe { cp_async_wait::<{ $st - 2 }>() };
                                    thread::sync_threads();
                                    read = next_stage(read);
                                    frags(read, 0)
                                };
                                mma_tile::<{ BF16 }, { NT8 }>(&mut acc, &cur.0, &cur.1);
                                cur = next;
                            }
                        });
                        kt += 1;
                    }
                }
            }
            if E == 2 && PREFETCH && !LEAN {
                // Slice 0 landed for every thread (the prologue committed STAGES - 1 groups),
                // then its first k-step's fragments.
                // SAFETY: waits only.
                unsafe { cp_async_wait::<{ $st - 2 }>() };
                thread::sync_threads();
                let mut cur = frags16(0, 0);
                while kt < ktiles {
                    // The stage written here held slice kt - 1, which every warp finished
                    // reading before the barrier of the previous round (its last k-step's
                    // fragments were already in registers); at kt = 0 it is the unused stage.
                    if kt + STAGES - 1 < ktiles {
                        load(kt + STAGES - 1, write);
                    }
                    // SAFETY: closes this thread's group; no memory access.
                    unsafe { cp_async_commit() };
                    write = next_stage(write);
                    seq!(KK in 0..4 {
                        if KK < KG {
                            let next = if KK + 1 < KG {
                                frags16(read, KK + 1)
                            } else {
                                // Slice kt + 1 landed for every thread (STAGES - 1 + kt + 1
                                // groups committed, at most STAGES - 2 pending), and every
                                // warp is past its reads of slice kt. Past the last slice the
                                // read is of a stage no copy writes any more, and unused.
                                // SAFETY: waits only.
                                unsafe { cp_async_wait::<{ $st - 2 }>() };
                                thread::sync_threads();
                                read = next_stage(read);
                                frags16(read, 0)
                            };
                            mma_tile::<{ BF16 }, { NT8 }>(&mut acc, &cur.0, &cur.1);
                            cur = next;
                        }
                    });
                    kt += 1;
                }
            }
            while kt < ktiles {
                // (Every kernel but the prefetching ones.) Slice kt has landed for every
                // thread, and every warp is done with the stage the copies below overwrite
                // (read in the previous round).
                // SAFETY: waits only.
                unsafe { cp_async_wait::<{ $st - 2 }>() };
                thread::sync_threads();
                if kt + STAGES - 1 < ktiles {
                    load(kt + STAGES - 1, write);
                }
                // SAFETY: closes this thread's group; no memory access.
                unsafe { cp_async_commit() };
                write = next_stage(write);
                let (a_s, b_s) = (smem + read, smem + read + A_BYTES);
                if E == 2 {
                    seq!(KK in 0..4 {
                        if KK < KG {
                            let (af, bf) = frags16(read, KK);
                            mma_tile::<{ BF16 }, { NT8 }>(&mut acc, &af, &bf);
                        }
                    });
                } else {
                    seq!(KK in 0..4 {{
                        let (mut ah, mut al) = ([[0u32; 4]; 4], [[0u32; 4]; 4]);
                        seq!(MI in 0..4 {
                            seq!(R in 0..4 {{
                                let (mr, kc) = (wm0 + 16 * MI + g + 8 * (R % 2), 8 * KK + t + 4 * (R / 2));
                                let off = if AR { f32_offset(mr, kc, PITCH_A) } else { f32_offset(kc, mr, PITCH_A) };
                                // SAFETY: a word of this stage's A slice (row and column inside
                                // it), landed and ordered by the wait and barrier.
                                let [x] = unsafe { ld_shared::<1>(a_s + off) };
                                if SPLIT {
                                    (ah[MI][R], al[MI][R]) = split_tf32(f32::from_bits(x));
                                } else {
                                    ah[MI][R] = tf32(f32::from_bits(x));
                                }
                            }});
                        });
                        let (mut bh, mut bl) = ([[0u32; 2]; 4], [[0u32; 2]; 4]);
                        seq!(NI in 0..4 {
                            seq!(R in 0..2 {{
                                let (kc, nc) = (8 * KK + t + 4 * R, wn0 + 8 * NI + g);
                                let off = if BR { f32_offset(kc, nc, PITCH_B) } else { f32_offset(nc, kc, PITCH_B) };
                                // SAFETY: as for A, in the B slice.
                                let [x] = unsafe { ld_shared::<1>(b_s + off) };
                                if SPLIT {
                                    (bh[NI][R], bl[NI][R]) = split_tf32(f32::from_bits(x));
                                } else {
                                    bh[NI][R] = tf32(f32::from_bits(x));
                                }
                            }});
                        });
                        seq!(MI in 0..4 {
                            seq!(NI in 0..4 {
                                if SPLIT {
                                    // The small products first, then the large one.
                                    mma_16x8x8_tf32(&mut acc[MI * 8 + NI], al[MI], bh[NI]);
                                    mma_16x8x8_tf32(&mut acc[MI * 8 + NI], ah[MI], bl[NI]);
                                }
                                mma_16x8x8_tf32(&mut acc[MI * 8 + NI], ah[MI], bh[NI]);
                            });
                        });
                    }});
                }
                read = next_stage(read);
                kt += 1;
            }
            // No copy may still be writing shared memory when the block ends.
            // SAFETY: waits only.
            unsafe { cp_async_wait::<0>() };

            // SAFETY: `p` is the launch's; the cells are this thread's fragment of this block's
            // tile (rows `row0 + 16 MI (+ 8)`, columns `col0 + 8 NI (+ 1)`), stored by it alone.
            unsafe { store_tile::<{ NT8 }>(&p, &acc, m0 + wm0 + g, n0 + wn0 + 2 * t) };
        }
    )*};
}
for_each_tc!(tc_kernels);

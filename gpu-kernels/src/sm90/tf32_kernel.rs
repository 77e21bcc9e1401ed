//! The f32 Hopper GEMM kernels (TF32, 3xTF32) and their split pass; the structure is in
//! `tf32.rs`, the producer/consumer scheme is the 16-bit kernels' (`wgmma.rs`).
use core::{mem::MaybeUninit, ptr::addr_of};

use cuda_std::{address_space, kernel, shared::dynamic_shared_mem, thread};
use seq_macro::seq;

use super::asm90::{
    acc_regs, acc_regs64, desc_128b, fence_mbarrier_init, fence_tensormap, mbar_arrive,
    mbar_arrive_expect_tx, mbar_init, mbar_wait, setmaxnreg_dec, setmaxnreg_inc, tf32_rna,
    tma_load_2d, wgmma_commit, wgmma_fence, wgmma_m64n128k8_tf32, wgmma_m64n256k8_tf32,
    wgmma_wait0,
};
use super::tf32::{
    SPLIT_TILE, SplitParams, TF32_BK, TF32_BM, TF32_CONSUMER_REGISTERS, TF32_CONSUMERS,
    TF32_PRODUCER_REGISTERS, TF32_SWIZZLE_ALIGN, Tf32Kind, Tf32Params,
};
use crate::ptx::{
    fresh_ctaid_x, fresh_tid_x, ld_global, ld_shared, shared_addr, st_global, st_shared,
};

/// One 128-byte-swizzle atom: 8 rows of 128 bytes (the descriptors' stride byte offset).
const ATOM: u32 = 1024;
/// Bytes of A's tile of one part in a slice (`BM` rows of 128 bytes).
const A_BYTES: u32 = TF32_BM * TF32_BK * 4;
/// Bytes of one tensor map.
const MAP_BYTES: usize = 128;

/// Stores `alpha·v + beta·C[row][col]` at (row, col) if it is inside C.
///
/// # Safety
/// `p.c` must be `p.m x p.n` f32 with rows `p.ldc` apart; no other thread writes (row, col).
#[inline(always)]
unsafe fn store(p: &Tf32Params, row: u32, col: u32, v: f32) {
    if row < p.m && col < p.n {
        // SAFETY: (row, col) is inside C (checked just above; the caller's contract).
        unsafe {
            let at = p.c.add(row as usize * p.ldc as usize + col as usize);
            let mut x = p.alpha * v;
            if p.beta != 0.0 {
                x += p.beta * f32::from_bits(ld_global(at as *const u32));
            }
            st_global::<1>(at as *mut u32, [x.to_bits()]);
        }
    }
}

macro_rules! tf32_kernels {
    ($(($name:ident, $kind:ident, $bn:literal, $stages:literal)),* $(,)?) => {$(
        /// # Safety
        /// `p` must satisfy the [`Tf32Params`] contract (tensor maps of this kernel's parts and
        /// boxes over K-major operands, C of `m x n`), and the launch must use 384 threads,
        /// one block per tile (`ceil(m / 128) * ceil(n / BN)` blocks) and the config's
        /// `shared_bytes` of dynamic shared memory: every shared address below is inside it.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: Tf32Params) {
            const BN: u32 = $bn;
            const STAGES: u32 = $stages;
            const PARTS: u32 = Tf32Kind::$kind.parts();
            const B_BYTES: u32 = BN * TF32_BK * 4;
            /// One part's A and B tiles; a slice holds hi's, then lo's.
            const PART_BYTES: u32 = A_BYTES + B_BYTES;
            const STAGE_BYTES: u32 = PART_BYTES * PARTS;
            let tid = fresh_tid_x();
            let wg = tid / 128;
            // cuda_std's dynamic-shared symbol is 16-byte aligned; the slices need 1024.
            let base = shared_addr(dynamic_shared_mem::<u8>());
            let smem = (base + TF32_SWIZZLE_ALIGN - 1) & !(TF32_SWIZZLE_ALIGN - 1);
            let full = |s: u32| smem + STAGES * STAGE_BYTES + 8 * s;
            let empty = |s: u32| smem + STAGES * STAGE_BYTES + 8 * (STAGES + s);
            if tid == 0 {
                let mut s = 0;
                while s < STAGES {
                    // SAFETY: the barrier slots are inside the dynamic shared memory and
                    // nothing uses them before the bar.sync below.
                    unsafe {
                        mbar_init(full(s), 1);
                        mbar_init(empty(s), TF32_CONSUMERS);
                    }
                    s += 1;
                }
                fence_mbarrier_init();
            }
            thread::sync_threads();

            // The tile: groups of `group` tile rows, walked down before moving right.
            let tiles_m = p.m.div_ceil(TF32_BM);
            let tiles_n = p.n.div_ceil(BN);
            let block = fresh_ctaid_x();
            let per_group = p.group * tiles_n;
            let first = (block / per_group) * p.group;
            let rows = if tiles_m - first < p.group { tiles_m - first } else { p.group };
            let tm = first + (block % per_group) % rows;
            let tn = (block % per_group) / rows;
            let (m0, n0) = (tm * TF32_BM, tn * BN);
            let ktiles = p.k.div_ceil(TF32_BK);

            if wg == 0 {
                setmaxnreg_dec::<TF32_PRODUCER_REGISTERS>();
                if tid == 0 {
                    let mut map = 0;
                    while map < 2 * PARTS as usize {
                        // SAFETY: the tensor maps are 128-byte blocks of global memory (the
                        // contract).
                        unsafe { fence_tensormap(p.tmaps.add(map * MAP_BYTES)) };
                        map += 1;
                    }
                    let mut kt = 0;
                    while kt < ktiles {
                        let s = kt % STAGES;
                        let round = kt / STAGES;
                        // SAFETY: the slice's tiles are inside the dynamic shared memory and
                        // 1024-byte aligned; the consumers released them (the empty barrier of
                        // the previous round) before TMA writes them again, and read them only
                        // after the full barrier's phase completes with these bytes. Map
                        // 2·part is A's, 2·part + 1 B's (the contract).
                        unsafe {
                            if round > 0 {
                                mbar_wait(empty(s), (round - 1) & 1);
                            }
                            mbar_arrive_expect_tx(full(s), STAGE_BYTES);
                            let mut part = 0;
                            while part < PARTS {
                                let at = smem + s * STAGE_BYTES + part * PART_BYTES;
                                let maps = p.tmaps.add(2 * part as usize * MAP_BYTES);
                                tma_load_2d(at, maps, kt * TF32_BK, m0, full(s));
                                tma_load_2d(at + A_BYTES, maps.add(MAP_BYTES), kt * TF32_BK, n0, full(s));
                                part += 1;
                            }
                        }
                        kt += 1;
                    }
                }
            } else {
                setmaxnreg_inc::<TF32_CONSUMER_REGISTERS>();
                let cw = wg - 1;
                let lane = tid % 32;
                let warp = (tid % 128) / 32;
                // This consumer's 64 rows of A's tile, and B's tile, in slice `s`, part `part`.
                let a_at = |s: u32, part: u32| {
                    smem + s * STAGE_BYTES + part * PART_BYTES + cw * (TF32_BM / TF32_CONSUMERS) * 128
                };
                let b_at = |s: u32, part: u32| smem + s * STAGE_BYTES + part * PART_BYTES + A_BYTES;
                let row0 = m0 + cw * (TF32_BM / TF32_CONSUMERS) + warp * 16 + lane / 4;
                let col0 = n0 + (lane % 4) * 2;
                tf32_kernels!(@consume $kind, p, ktiles, STAGES, full, empty, a_at, b_at, tid, row0, col0);
            }
        }
    )*};
    // TF32: one m64n256k8 product a k8 step into 128 accumulators.
    (@consume Tf32, $p:ident, $ktiles:ident, $stages:ident, $full:ident, $empty:ident,
     $a_at:ident, $b_at:ident, $tid:ident, $row0:ident, $col0:ident) => {
        let mut acc = [0u32; 128];
        let mut kt = 0;
        while kt < $ktiles {
            let s = kt % $stages;
            let (a, b) = ($a_at(s, 0), $b_at(s, 0));
            // SAFETY: the full barrier's phase for this round completes when TMA has written
            // the slice; the descriptors address its tiles in shared memory; wgmma_fence
            // precedes the first wgmma on the accumulators and wait_group 0 retires them (and
            // their shared-memory reads) before the slice is released to the producer.
            unsafe {
                mbar_wait($full(s), (kt / $stages) & 1);
                wgmma_fence();
                seq!(KK in 0..4 {
                    // K-major, 128-byte swizzle: a k8 step is 32 bytes along the swizzled row.
                    let da = desc_128b(a + 32 * KK, 16, ATOM);
                    let db = desc_128b(b + 32 * KK, 16, ATOM);
                    wgmma_m64n256k8_tf32!(acc, da, db, 1u32);
                });
                wgmma_commit();
                wgmma_wait0();
                if $tid % 128 == 0 {
                    mbar_arrive($empty(s));
                }
            }
            kt += 1;
        }
        seq!(J in 0..32 {
            seq!(I in 0..2 {
                seq!(E in 0..2 {
                    // SAFETY: C is `m x n` (the contract); each element has one owner thread.
                    unsafe {
                        store(&$p, $row0 + 8 * I, $col0 + 8 * J + E, f32::from_bits(acc[J * 4 + I * 2 + E]));
                    }
                });
            });
        });
    };
    // 3xTF32: per k8 step, hi·hi into `big` and lo·hi + hi·lo into `small` (m64n128k8), both
    // started from zero at each group's first step; after `flush` slices (and the last) the
    // CUDA cores add them to `acc` with round-to-nearest FADDs.
    (@consume Tf32x3, $p:ident, $ktiles:ident, $stages:ident, $full:ident, $empty:ident,
     $a_at:ident, $b_at:ident, $tid:ident, $row0:ident, $col0:ident) => {
        let mut acc = [0f32; 64];
        let mut big = [0u32; 64];
        let mut small = [0u32; 64];
        let flush = if $p.flush == 0 { 1 } else { $p.flush };
        let mut in_group = 0;
        let mut kt = 0;
        while kt < $ktiles {
            let s = kt % $stages;
            let (ahi, bhi, alo, blo) = ($a_at(s, 0), $b_at(s, 0), $a_at(s, 1), $b_at(s, 1));
            // 0 at a group's first step: wgmma ignores the temporaries' old values.
            let keep = if in_group == 0 { 0u32 } else { 1u32 };
            // SAFETY: as in the TF32 kernel: the full barrier orders TMA's writes before the
            // wgmma reads; wgmma_fence follows the FADDs' reads of the temporaries, and
            // wait_group 0 retires every wgmma of the slice before it is released and before
            // the temporaries are read.
            unsafe {
                mbar_wait($full(s), (kt / $stages) & 1);
                wgmma_fence();
                seq!(KK in 0..4 {
                    let first = if KK == 0 { keep } else { 1u32 };
                    let (dah, dbh) = (desc_128b(ahi + 32 * KK, 16, ATOM), desc_128b(bhi + 32 * KK, 16, ATOM));
                    let (dal, dbl) = (desc_128b(alo + 32 * KK, 16, ATOM), desc_128b(blo + 32 * KK, 16, ATOM));
                    wgmma_m64n128k8_tf32!(small, dal, dbh, first);
                    wgmma_m64n128k8_tf32!(big, dah, dbh, first);
                    wgmma_m64n128k8_tf32!(small, dah, dbl, 1u32);
                });
                wgmma_commit();
                wgmma_wait0();
                if $tid % 128 == 0 {
                    mbar_arrive($empty(s));
                }
            }
            kt += 1;
            in_group += 1;
            if in_group == flush || kt == $ktiles {
                seq!(I in 0..64 {
                    acc[I] += f32::from_bits(big[I]) + f32::from_bits(small[I]);
                });
                in_group = 0;
            }
        }
        seq!(J in 0..16 {
            seq!(I in 0..2 {
                seq!(E in 0..2 {
                    // SAFETY: C is `m x n` (the contract); each element has one owner thread.
                    unsafe { store(&$p, $row0 + 8 * I, $col0 + 8 * J + E, acc[J * 4 + I * 2 + E]) };
                });
            });
        });
    };
}

crate::for_each_wgmma_tf32!(tf32_kernels);

/// The split pass: one 32 x 32 tile of the K-major output per block of 256 threads (see
/// [`SplitParams`]). A transposed read goes through shared memory (rows padded by one word, so
/// that both the column writes and the row reads hit 32 banks); a straight one copies.
///
/// # Safety
/// `p.src` must hold the input as [`SplitParams`] describes, `p.hi` (and `p.lo` unless null)
/// `rows x cols` with rows `ld_out` apart, not overlapping `src`; the launch must use 256
/// threads and `ceil(rows / 32) * ceil(cols / 32)` blocks.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn wgmma_tf32_split(p: SplitParams) {
    #[address_space(shared)]
    static mut TILE: MaybeUninit<[u32; (SPLIT_TILE * (SPLIT_TILE + 1)) as usize]> =
        MaybeUninit::uninit();
    let tile = shared_addr(addr_of!(TILE));
    let tid = fresh_tid_x();
    let (tx, ty) = (tid % 32, tid / 32);
    let tiles_c = p.cols.div_ceil(SPLIT_TILE);
    let block = fresh_ctaid_x();
    let (r0, c0) = (
        (block / tiles_c) * SPLIT_TILE,
        (block % tiles_c) * SPLIT_TILE,
    );
    let mut v = [0f32; 4];
    if p.transpose != 0 {
        // Read columns c0.. of the output as rows of the source (coalesced along r), park them.
        seq!(I in 0..4 {
            let (r, c) = (r0 + tx, c0 + ty + 8 * I);
            let x = if r < p.rows && c < p.cols {
                // SAFETY: (r, c) is inside the output, so c·ld_src + r inside the source.
                unsafe { ld_global(p.src.add(c as usize * p.ld_src as usize + r as usize) as *const u32) }
            } else {
                0
            };
            // SAFETY: inside TILE; each word written by one thread before the barrier.
            unsafe { st_shared::<1>(tile + 4 * ((ty + 8 * I) * (SPLIT_TILE + 1) + tx), [x]) };
        });
        thread::sync_threads();
        seq!(I in 0..4 {
            // SAFETY: inside TILE, written before the barrier above.
            v[I] = f32::from_bits(unsafe { ld_shared::<1>(tile + 4 * (tx * (SPLIT_TILE + 1) + ty + 8 * I)) }[0]);
        });
    } else {
        seq!(I in 0..4 {
            let (r, c) = (r0 + ty + 8 * I, c0 + tx);
            if r < p.rows && c < p.cols {
                // SAFETY: (r, c) is inside the output and so inside the source.
                v[I] = f32::from_bits(unsafe { ld_global(p.src.add(r as usize * p.ld_src as usize + c as usize) as *const u32) });
            }
        });
    }
    seq!(I in 0..4 {
        let (r, c) = (r0 + ty + 8 * I, c0 + tx);
        if r < p.rows && c < p.cols {
            let hi = tf32_rna(v[I]);
            let at = r as usize * p.ld_out as usize + c as usize;
            // SAFETY: (r, c) is inside the output buffers (the contract); one thread each.
            unsafe {
                st_global::<1>(p.hi.add(at) as *mut u32, [hi.to_bits()]);
                if !p.lo.is_null() {
                    st_global::<1>(p.lo.add(at) as *mut u32, [tf32_rna(v[I] - hi).to_bits()]);
                }
            }
        }
    });
}

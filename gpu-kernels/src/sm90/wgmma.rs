//! The Hopper GEMM kernels (see the module doc of `sm90` for the structure).
use cuda_std::{kernel, shared::dynamic_shared_mem, thread};
use seq_macro::seq;

use super::asm90::{
    acc_regs, desc_128b, fence_mbarrier_init, fence_tensormap, mbar_arrive, mbar_arrive_expect_tx,
    mbar_init, mbar_wait, setmaxnreg_dec, setmaxnreg_inc, tma_load_2d, wgmma_commit, wgmma_fence,
    wgmma_m64n256k16, wgmma_wait0,
};
use super::{
    BK, BM, BN, CONSUMER_REGISTERS, CONSUMERS, PRODUCER_REGISTERS, STAGES, SWIZZLE_ALIGN,
    WgmmaParams,
};
use crate::ptx::{fresh_ctaid_x, fresh_tid_x, ld_global, shared_addr, st_global};

/// Bytes of A's tile in a slice (`BM` rows of 128 bytes).
const A_BYTES: u32 = BM * BK * 2;
/// Bytes of B's tile in a slice.
const B_BYTES: u32 = BN * BK * 2;
const STAGE_BYTES: u32 = A_BYTES + B_BYTES;
/// One 128-byte-swizzle atom: 8 rows of 128 bytes.
const ATOM: u32 = 1024;
/// Bytes of a 64 (n) x `BK` box of an MN-major B: `BK` rows of 128 bytes.
const B_BOX_BYTES: u32 = BK * 128;
// The barrier set-up below is unrolled for four slices.
const _: () = assert!(STAGES == 4);

/// The epilogue of one consumer warp group: `c[row][col] = alpha·acc + beta·c` for the thread's
/// 128 accumulators, rows `row0 + 8i` (i in 0..2) and columns `col0 + 8j + e` (j in 0..32, e in
/// 0..2) of C, those inside `m x n` only.
///
/// # Safety
/// `p.c` must be `p.m x p.n` f32 with rows `p.ldc` apart, written by no other thread here.
#[inline(always)]
unsafe fn store_tile(p: &WgmmaParams, acc: &[u32; 128], row0: u32, col0: u32) {
    seq!(J in 0..32 {
        seq!(I in 0..2 {
            seq!(E in 0..2 {
                let (row, col) = (row0 + 8 * I, col0 + 8 * J + E);
                if row < p.m && col < p.n {
                    // SAFETY: (row, col) is inside C (checked just above; the caller's contract).
                    unsafe {
                        let at = p.c.add(row as usize * p.ldc as usize + col as usize);
                        let mut v = p.alpha * f32::from_bits(acc[J * 4 + I * 2 + E]);
                        if p.beta != 0.0 {
                            v += p.beta * f32::from_bits(ld_global(at as *const u32));
                        }
                        st_global::<1>(at as *mut u32, [v.to_bits()]);
                    }
                }
            });
        });
    });
}

macro_rules! wgmma_kernels {
    ($(($name:ident, $input:ident, $ptx:literal, $major:ident)),* $(,)?) => {$(
        /// # Safety
        /// `p` must satisfy the [`WgmmaParams`] contract (tensor maps of A and B for this
        /// kernel's input type and B layout, C of `m x n`), and the launch must use 384 threads,
        /// one block per tile (`ceil(m / BM) * ceil(n / BN)` blocks) and the config's
        /// `shared_bytes` of dynamic shared memory: every shared address below is inside it.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: WgmmaParams) {
            let tid = fresh_tid_x();
            let wg = tid / 128;
            // cuda_std's dynamic-shared symbol is 16-byte aligned; the slices need 1024.
            let base = shared_addr(dynamic_shared_mem::<u8>());
            let smem = (base + SWIZZLE_ALIGN - 1) & !(SWIZZLE_ALIGN - 1);
            let full = |s: u32| smem + STAGES * STAGE_BYTES + 8 * s;
            let empty = |s: u32| smem + STAGES * STAGE_BYTES + 8 * (STAGES + s);
            if tid == 0 {
                seq!(S in 0..4 {
                    // SAFETY: the barrier slots are inside the dynamic shared memory and nothing
                    // uses them before the bar.sync below.
                    unsafe {
                        mbar_init(full(S), 1);
                        mbar_init(empty(S), CONSUMERS);
                    }
                });
                fence_mbarrier_init();
            }
            thread::sync_threads();

            // The tile: groups of `group` tile rows, walked down before moving right.
            let tiles_m = p.m.div_ceil(BM);
            let tiles_n = p.n.div_ceil(BN);
            let block = fresh_ctaid_x();
            let per_group = p.group * tiles_n;
            let first = (block / per_group) * p.group;
            let rows = if tiles_m - first < p.group { tiles_m - first } else { p.group };
            let tm = first + (block % per_group) % rows;
            let tn = (block % per_group) / rows;
            let (m0, n0) = (tm * BM, tn * BN);
            let ktiles = p.k.div_ceil(BK);

            if wg == 0 {
                setmaxnreg_dec::<PRODUCER_REGISTERS>();
                if tid == 0 {
                    // SAFETY: the tensor maps are 128 bytes of global memory (the contract).
                    unsafe {
                        fence_tensormap(p.tmap_a);
                        fence_tensormap(p.tmap_b);
                    }
                    let mut kt = 0;
                    while kt < ktiles {
                        let s = kt % STAGES;
                        let round = kt / STAGES;
                        let a = smem + s * STAGE_BYTES;
                        let b = a + A_BYTES;
                        // SAFETY: the slice's tiles are inside the dynamic shared memory and
                        // 1024-byte aligned; the consumers released them (the empty barrier of
                        // the previous round) before TMA writes them again, and read them only
                        // after the full barrier's phase completes with these bytes.
                        unsafe {
                            if round > 0 {
                                mbar_wait(empty(s), (round - 1) & 1);
                            }
                            mbar_arrive_expect_tx(full(s), STAGE_BYTES);
                            tma_load_2d(a, p.tmap_a, kt * BK, m0, full(s));
                            wgmma_kernels!(@load_b $major, b, p, kt, n0, full(s));
                        }
                        kt += 1;
                    }
                }
            } else {
                setmaxnreg_inc::<CONSUMER_REGISTERS>();
                let cw = wg - 1;
                let mut acc = [0u32; 128];
                let mut kt = 0;
                while kt < ktiles {
                    let s = kt % STAGES;
                    let a = smem + s * STAGE_BYTES + cw * (BM / CONSUMERS) * 128;
                    let b = smem + s * STAGE_BYTES + A_BYTES;
                    // SAFETY: the full barrier's phase for this round completes when TMA has
                    // written the slice; the descriptors address the slice's tiles in shared
                    // memory; wgmma_fence precedes the first wgmma on the accumulators and
                    // wait_group 0 retires them (and their shared-memory reads) before the slice
                    // is released to the producer.
                    unsafe {
                        mbar_wait(full(s), (kt / STAGES) & 1);
                        wgmma_fence();
                        seq!(KK in 0..4 {
                            let da = desc_128b(a + 32 * KK, 16, ATOM);
                            let db = wgmma_kernels!(@desc_b $major, b, KK);
                            wgmma_kernels!(@mma $ptx, $major, acc, da, db);
                        });
                        wgmma_commit();
                        wgmma_wait0();
                        if tid % 128 == 0 {
                            mbar_arrive(empty(s));
                        }
                    }
                    kt += 1;
                }
                let lane = tid % 32;
                let warp = (tid % 128) / 32;
                let row0 = m0 + cw * (BM / CONSUMERS) + warp * 16 + lane / 4;
                let col0 = n0 + (lane % 4) * 2;
                // SAFETY: `p.c` is `m x n` (the contract); each element has one owner thread.
                unsafe { store_tile(&p, &acc, row0, col0) };
            }
        }
    )*};
    // B row-major (k x n, n innermost): four 64-column boxes of BK rows, 8 KB apart.
    (@load_b N, $b:expr, $p:expr, $kt:expr, $n0:expr, $bar:expr) => {
        seq!(J in 0..4 {
            tma_load_2d($b + J * B_BOX_BYTES, $p.tmap_b, $n0 + 64 * J, $kt * BK, $bar);
        })
    };
    // B transposed (n x k, k innermost): one box of BN rows of 128 bytes.
    (@load_b K, $b:expr, $p:expr, $kt:expr, $n0:expr, $bar:expr) => {
        tma_load_2d($b, $p.tmap_b, $kt * BK, $n0, $bar)
    };
    // MN-major B: 8-row k groups are one atom apart (stride byte offset), 64-column boxes one
    // box apart (leading byte offset); a k16 step is two atoms.
    (@desc_b N, $b:expr, $kk:expr) => { desc_128b($b + 2 * ATOM * $kk, B_BOX_BYTES, ATOM) };
    // K-major B: as A, a k16 step is 32 bytes along the swizzled row.
    (@desc_b K, $b:expr, $kk:expr) => { desc_128b($b + 32 * $kk, 16, ATOM) };
    // The transpose-B immediate: 1 for MN-major B.
    (@mma $ty:literal, N, $acc:ident, $da:expr, $db:expr) => {
        wgmma_m64n256k16!($ty, "1", $acc, $da, $db)
    };
    (@mma $ty:literal, K, $acc:ident, $da:expr, $db:expr) => {
        wgmma_m64n256k16!($ty, "0", $acc, $da, $db)
    };
}

crate::for_each_wgmma!(wgmma_kernels);

//! The Hopper GEMM kernels (see the module doc of `sm90` for the structure; the pipeline is
//! `pipeline.rs`'s).
use cuda_std::kernel;
use seq_macro::seq;

use super::asm90::{
    acc_regs, cluster_rank, cluster_sync, desc_128b, fence_tensormap, setmaxnreg_dec,
    setmaxnreg_inc, tma_load_2d, tma_load_2d_multicast, wgmma_commit, wgmma_fence,
    wgmma_m64n256k16,
};
use super::epilogue::{Out, bulk_wait_all, store_fragment};
use super::pipeline::{Ring, Walk, consume, produce};
use super::stream_k::StreamK;
use super::{BK, BM, BN, CONSUMER_REGISTERS, CONSUMERS, PRODUCER_REGISTERS, STAGES, WgmmaParams};
use crate::ptx::fresh_tid_x;

/// Bytes of A's tile in a slice (`BM` rows of 128 bytes).
const A_BYTES: u32 = BM * BK * 2;
/// Bytes of B's tile in a slice.
const B_BYTES: u32 = BN * BK * 2;
const STAGE_BYTES: u32 = A_BYTES + B_BYTES;
/// One 128-byte-swizzle atom: 8 rows of 128 bytes.
const ATOM: u32 = 1024;
/// Bytes of a 64 (n) x `BK` box of an MN-major B: `BK` rows of 128 bytes.
const B_BOX_BYTES: u32 = BK * 128;

macro_rules! wgmma_kernels {
    ($(($name:ident, $input:ident, $ptx:literal, $major:ident, $depth:literal, $cluster:tt)),* $(,)?) => {$(
        wgmma_kernels!(@kernel $cluster, $name, $ptx, $major, $depth);
    )*};
    (@kernel 2, $name:ident, $ptx:literal, $major:ident, $depth:literal) => {
        /// The kernel in clusters of two blocks, each pair walking 256 x 256 tiles: block `r`
        /// of a cluster computes rows `128 r..128 r + 128` of the tile with its own A, and loads
        /// half `r` of B's 256 columns into both blocks' shared memory (TMA multicast), so each
        /// block reads half of B from L2.
        ///
        /// # Safety
        /// As the one-block kernels, with clusters of 2 blocks along x, an even grid, no
        /// stream-K (`sk_tiles` is ignored), and for B transposed a map of B with boxes of
        /// `BN / 2` rows.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: WgmmaParams) {
            // SAFETY: the dynamic shared memory holds the ring (the launch contract), the launch
            // clusters 2 blocks; every thread calls this first and `cluster_sync` at the end.
            let ring = unsafe { Ring::<STAGES>::new_pair(STAGE_BYTES, CONSUMERS) };
            let walk = Walk::new(p.m, p.n, p.k, 2 * BM, BN, BK, p.group, 0, 0).paired();
            let tid = fresh_tid_x();
            let wg = tid / 128;
            if wg == 0 {
                setmaxnreg_dec::<PRODUCER_REGISTERS>();
                if tid == 0 {
                    // SAFETY: as the one-block kernels; A's box is this block's BM rows (moved
                    // inside A where they are all past m: nothing of them is stored), B's half
                    // goes to both blocks, whose full barriers each expect STAGE_BYTES: their
                    // own A and both halves of B.
                    unsafe {
                        fence_tensormap(p.tmap_a);
                        fence_tensormap(p.tmap_b);
                        produce(ring, walk, STAGE_BYTES, |a, bar, kt, m0, n0| {
                            let r = cluster_rank();
                            let row = m0 + r * BM;
                            tma_load_2d(a, p.tmap_a, kt * BK, if row < p.m { row } else { 0 }, bar);
                            let b = a + A_BYTES;
                            wgmma_kernels!(@load_half $major, b, p, kt, n0, r, bar);
                        });
                    }
                }
            } else {
                setmaxnreg_inc::<CONSUMER_REGISTERS>();
                let cw = || fresh_tid_x() / 128 - 1;
                let lane = || fresh_tid_x() % 32;
                let warp = || (fresh_tid_x() % 128) / 32;
                let out = Out { c: p.c, m: p.m, n: p.n, ldc: p.ldc, alpha: p.alpha, beta: p.beta };
                let pairs = out.pairs();
                let mut acc = [0u32; 128];
                // SAFETY: as the one-block kernels (whole tiles only: no stream-K); the ring
                // releases each slot in both blocks, which exit only after the cluster barrier.
                unsafe {
                    consume::<STAGES, $depth, _>(
                        ring,
                        walk,
                        tid % 128 == 0,
                        &mut acc,
                        |acc, slot, first| {
                            wgmma_kernels!(@slice $ptx, $major, (*acc), slot, first, cw());
                        },
                        |_, _| {},
                        |acc, u| {
                            let (m0, n0) = walk.origin(u.tile);
                            let row0 = m0 + cluster_rank() * BM + cw() * (BM / CONSUMERS)
                                + warp() * 16 + lane() / 4;
                            let col0 = n0 + (lane() % 4) * 2;
                            store_fragment!(out, pairs, acc, row0, col0, 32);
                        },
                    );
                }
            }
            // Neither block exits while the other may still release a slot in it.
            cluster_sync();
        }
    };
    (@kernel 1, $name:ident, $ptx:literal, $major:ident, $depth:literal) => {
        /// # Safety
        /// `p` must satisfy the [`WgmmaParams`] contract (tensor maps of A and B for this
        /// kernel's input type and B layout, C of `m x n`), and the launch must use 384 threads,
        /// any number of blocks (block `b` computes tiles `b, b + grid, …`) and the config's
        /// `shared_bytes` of dynamic shared memory: every shared address below is inside it.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: WgmmaParams) {
            // SAFETY: the dynamic shared memory holds the ring (the launch contract); every
            // thread calls this first.
            let ring = unsafe { Ring::<STAGES>::new(STAGE_BYTES, CONSUMERS) };
            let walk = Walk::new(p.m, p.n, p.k, BM, BN, BK, p.group, p.sk_tiles, p.sk_last);
            let tid = fresh_tid_x();
            let wg = tid / 128;
            if wg == 0 {
                setmaxnreg_dec::<PRODUCER_REGISTERS>();
                if tid == 0 {
                    // SAFETY: the tensor maps are 128 bytes of global memory (the contract);
                    // each slice's boxes are A's BM x BK and B's BK x BN, exactly STAGE_BYTES,
                    // written to the 1024-byte aligned slot and completing on its barrier.
                    unsafe {
                        fence_tensormap(p.tmap_a);
                        fence_tensormap(p.tmap_b);
                        produce(ring, walk, STAGE_BYTES, |a, bar, kt, m0, n0| {
                            tma_load_2d(a, p.tmap_a, kt * BK, m0, bar);
                            let b = a + A_BYTES;
                            wgmma_kernels!(@load_b $major, b, p, kt, n0, bar);
                        });
                    }
                }
            } else {
                setmaxnreg_inc::<CONSUMER_REGISTERS>();
                // Read from %tid.x where used, so that they do not stay live in registers.
                let cw = || fresh_tid_x() / 128 - 1;
                let lane = || fresh_tid_x() % 32;
                let warp = || (fresh_tid_x() % 128) / 32;
                let out = Out { c: p.c, m: p.m, n: p.n, ldc: p.ldc, alpha: p.alpha, beta: p.beta };
                let pairs = out.pairs();
                let sk = StreamK::new(p.work, walk);
                let lead = tid % 128 == 0;
                // `p.tmap_c` is read only inside the epilogue (fenced there), so that no value
                // of it stays live in registers across the main loop, which has none to spare.
                let mut acc = [0u32; 128];
                // SAFETY: the descriptors address this consumer's rows of A's tile and B's
                // tile in the slot the pipeline hands over (full, not yet released);
                // wgmma_fence precedes the slice's first wgmma; the epilogue runs after every
                // wgmma retired, in every thread of the warp group for the same unit (the
                // stream-K contract; `work` is the launch's), and each element of C has one
                // owner thread; with C's map (beta 0, the contract) each warp group stores
                // through its own two boxes after the ring and named barrier 1 + cw (stream-K
                // uses it only before), and its lead waits for the stores before exiting.
                unsafe {
                    consume::<STAGES, $depth, _>(
                        ring,
                        walk,
                        lead,
                        &mut acc,
                        |acc, slot, first| {
                            wgmma_kernels!(@slice $ptx, $major, (*acc), slot, first, cw());
                        },
                        |_, _| {},
                        |acc, u| sk.finish(acc, u, |acc, m0, n0| {
                            if !p.tmap_c.is_null() {
                                out.store_tma(p.tmap_c, ring.epilogue(), lead, acc, m0, n0);
                            } else {
                                let row0 = m0 + cw() * (BM / CONSUMERS) + warp() * 16 + lane() / 4;
                                let col0 = n0 + (lane() % 4) * 2;
                                store_fragment!(out, pairs, acc, row0, col0, 32);
                            }
                        }),
                    );
                    if lead {
                        // No-op without TMA stores (no bulk groups).
                        bulk_wait_all();
                    }
                }
            }
        }
    };
    // One consumer warp group's wgmmas of a slice: its `BM / CONSUMERS` rows of A's tile in
    // `slot` (warp group `cw` of the consumers) against B's tile, four k16 steps, scale-d 0 on
    // the first of a unit. Shared by the one-block and the pair kernels.
    (@slice $ptx:literal, $major:ident, $acc:expr, $slot:expr, $first:expr, $cw:expr) => {{
        let a = $slot + $cw * (BM / CONSUMERS) * 128;
        let b = $slot + A_BYTES;
        wgmma_fence();
        seq!(KK in 0..4 {
            let scale = if KK == 0 && $first { 0u32 } else { 1u32 };
            let da = desc_128b(a + 32 * KK, 16, ATOM);
            let db = wgmma_kernels!(@desc_b $major, b, KK);
            wgmma_kernels!(@mma $ptx, $major, $acc, da, db, scale);
        });
        wgmma_commit();
    }};
    // A pair's half of B, multicast to both blocks. Row-major: boxes 2r and 2r + 1 of the
    // four 64-column boxes; transposed: rows 128 r.. of the 256 (a map of 128-row boxes).
    (@load_half N, $b:expr, $p:expr, $kt:expr, $n0:expr, $r:expr, $bar:expr) => {
        seq!(J in 0..2 {
            let box_ = 2 * $r + J;
            tma_load_2d_multicast($b + box_ * B_BOX_BYTES, $p.tmap_b, $n0 + 64 * box_, $kt * BK, $bar, 3);
        })
    };
    (@load_half K, $b:expr, $p:expr, $kt:expr, $n0:expr, $r:expr, $bar:expr) => {
        tma_load_2d_multicast($b + $r * (BN / 2) * 128, $p.tmap_b, $kt * BK, $n0 + $r * (BN / 2), $bar, 3)
    };
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
    (@mma $ty:literal, N, $acc:expr, $da:expr, $db:expr, $s:expr) => {
        wgmma_m64n256k16!($ty, "1", $acc, $da, $db, $s)
    };
    (@mma $ty:literal, K, $acc:expr, $da:expr, $db:expr, $s:expr) => {
        wgmma_m64n256k16!($ty, "0", $acc, $da, $db, $s)
    };
}

crate::for_each_wgmma!(wgmma_kernels);

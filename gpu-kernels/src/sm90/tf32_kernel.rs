//! The f32 Hopper GEMM kernels (TF32, 3xTF32) and their split pass; the structure is in
//! `tf32.rs`, the producer/consumer scheme is the 16-bit kernels' (`wgmma.rs`).
use core::{mem::MaybeUninit, ptr::addr_of};

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::asm90::{
    acc_regs, acc_regs64, desc_128b, fence_tensormap, setmaxnreg_dec, setmaxnreg_inc, tf32_rna,
    tma_load_2d, wgmma_commit, wgmma_fence, wgmma_m64n128k8_tf32, wgmma_m64n256k8_tf32,
};
use super::epilogue::{Out, bulk_wait_all, store_fragment};
use super::pipeline::{Ring, Walk, consume, produce};
use super::stream_k::StreamK;
use super::tf32::{
    SPLIT_THREADS, SPLIT_TILE, SplitParams, TF32_BK, TF32_BM, TF32_CONSUMER_REGISTERS,
    TF32_CONSUMERS, TF32_PRODUCER_REGISTERS, Tf32Kind, Tf32Params,
};
use super::tf32_load::{LOAD_BN, load_full_arrivals, produce_loaded};
use crate::ptx::{
    fresh_ctaid_x, fresh_tid_x, ld_global, ld_global_nc, ld_shared, shared_addr, st_global,
    st_shared,
};

/// One 128-byte-swizzle atom: 8 rows of 128 bytes (the descriptors' stride byte offset).
const ATOM: u32 = 1024;
/// Bytes of A's tile of one part in a slice (`BM` rows of 128 bytes).
const A_BYTES: u32 = TF32_BM * TF32_BK * 4;
/// Bytes of one tensor map.
const MAP_BYTES: usize = 128;

/// 3xTF32's consumer state: the f32 sums (as bits) and the tensor cores' two temporaries.
struct Three {
    acc: [u32; 64],
    big: [u32; 64],
    small: [u32; 64],
    in_group: u32,
}

macro_rules! tf32_kernels {
    ($(($name:ident, $kind:ident, $major:ident, $bm:literal, $bn:literal, $stages:literal, $depth:tt)),* $(,)?) => {$(
        tf32_kernels!(@kernel $major, $name, $kind, $bn, $stages, $depth);
    )*};
    // B row-major read in place: `tf32_rows.rs`.
    (@kernel N, $($rest:tt)*) => {};
    (@kernel K, $($rest:tt)*) => {
        tf32_kernels!(@body 0, $($rest)*);
    };
    // B row-major loaded by the producer's threads (`tf32_load.rs`) in one group (`L`) or two
    // (`H`), consumers as `K`.
    (@kernel L, $($rest:tt)*) => {
        tf32_kernels!(@body 1, $($rest)*);
    };
    (@kernel H, $($rest:tt)*) => {
        tf32_kernels!(@body 2, $($rest)*);
    };
    (@body $groups:literal, $name:ident, $kind:ident, $bn:literal, $stages:literal, $depth:tt) => {
        /// # Safety
        /// `p` must satisfy the [`Tf32Params`] contract (tensor maps of this kernel's parts and
        /// boxes over K-major operands, C of `m x n`; for the `L` kernel A's map and B row-major
        /// through `b`, `ldb`), and the launch must use 384 threads,
        /// any number of blocks (block `b` computes tiles `b, b + grid, …`) and the config's
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
            /// B loaded by the producer's threads in `GROUPS` groups (`L`, `H`; 0: TMA): one
            /// TF32 part, its 256 columns.
            const GROUPS: u32 = $groups;
            const LOADS: bool = GROUPS > 0;
            const LOAD_G: u32 = if GROUPS == 0 { 1 } else { GROUPS };
            const _: () = assert!(!LOADS || (PARTS == 1 && BN == LOAD_BN && GROUPS <= 2));
            let full_arrivals = if LOADS { load_full_arrivals(LOAD_G) } else { 1 };
            // SAFETY: the dynamic shared memory holds the ring (the launch contract); every
            // thread calls this first.
            let ring = unsafe { Ring::<STAGES>::with_arrivals(STAGE_BYTES, full_arrivals, TF32_CONSUMERS) };
            let ktiles = p.k.div_ceil(TF32_BK);
            // 3xTF32 takes no stream-K (its flush groups count from a tile's first slice).
            let sk_tiles = if PARTS == 1 { p.sk_tiles } else { 0 };
            let walk = Walk::new(p.m, p.n, p.k, TF32_BM, BN, TF32_BK, p.group, sk_tiles, p.sk_last);
            let tid = fresh_tid_x();
            let wg = tid / 128;
            if wg == 0 && LOADS {
                // No setmaxnreg: the producer keeps the entry cap for two slices of B in
                // registers, and the consumers fit in it (see `tf32_load.rs`).
                // SAFETY: every thread of warp group 0; the ring has load_full_arrivals(LOAD_G);
                // map 0 is A's with a BK x BM box of A_BYTES, B is `p.b` (the contract).
                unsafe {
                    fence_tensormap(p.tmaps);
                    produce_loaded::<STAGES, LOAD_G>(ring, walk, &p, A_BYTES);
                }
            } else if wg == 0 {
                setmaxnreg_dec::<TF32_PRODUCER_REGISTERS>();
                if tid == 0 {
                    // SAFETY: the tensor maps are 128-byte blocks of global memory (the
                    // contract), map 2·part A's and 2·part + 1 B's; a slice's boxes fill exactly
                    // STAGE_BYTES of the 1024-byte aligned slot and complete on its barrier.
                    unsafe {
                        let mut map = 0;
                        while map < 2 * PARTS as usize {
                            fence_tensormap(p.tmaps.add(map * MAP_BYTES));
                            map += 1;
                        }
                        produce(ring, walk, STAGE_BYTES, |slot, bar, kt, m0, n0| {
                            let mut part = 0;
                            while part < PARTS {
                                let at = slot + part * PART_BYTES;
                                let maps = p.tmaps.add(2 * part as usize * MAP_BYTES);
                                tma_load_2d(at, maps, kt * TF32_BK, m0, bar);
                                tma_load_2d(at + A_BYTES, maps.add(MAP_BYTES), kt * TF32_BK, n0, bar);
                                part += 1;
                            }
                        });
                    }
                }
            } else {
                if !LOADS {
                    setmaxnreg_inc::<TF32_CONSUMER_REGISTERS>();
                }
                // Read from %tid.x where used, so that they do not stay live in registers.
                let cw = || fresh_tid_x() / 128 - 1;
                let lane = || fresh_tid_x() % 32;
                let warp = || (fresh_tid_x() % 128) / 32;
                let out = Out { c: p.c, m: p.m, n: p.n, ldc: p.ldc, alpha: p.alpha, beta: p.beta };
                // This consumer's 64 rows of A's tile, and B's tile, of part `part` in a slot.
                let a_at = |slot: u32, part: u32| slot + part * PART_BYTES + cw() * (TF32_BM / TF32_CONSUMERS) * 128;
                let b_at = |slot: u32, part: u32| slot + part * PART_BYTES + A_BYTES;
                let row = |m0: u32| m0 + cw() * (TF32_BM / TF32_CONSUMERS) + warp() * 16 + lane() / 4;
                let col = |n0: u32| n0 + (lane() % 4) * 2;
                tf32_kernels!(@consume $kind, $depth, p, ring, walk, ktiles, tid, out, a_at, b_at, row, col);
            }
        }
    };
    // TF32: one m64n256k8 product a k8 step into 128 accumulators.
    (@consume Tf32, $depth:tt, $p:ident, $ring:ident, $walk:ident, $ktiles:ident, $tid:ident,
     $out:ident, $a_at:ident, $b_at:ident, $row:ident, $col:ident) => {
        let pairs = $out.pairs();
        let sk = StreamK::new($p.work, $walk);
        let lead = $tid % 128 == 0;
        let mut acc = [0u32; 128];
        // SAFETY: the descriptors address the slot the pipeline hands over (full, not yet
        // released); wgmma_fence precedes the slice's first wgmma; the epilogue runs after
        // every wgmma retired, in every thread of the warp group for the same unit (the stream-K
        // contract; `work` is the launch's), and each element of C has one owner thread; with
        // C's map (beta 0, the contract) each warp group stores through its own two boxes after
        // the ring and named barrier 1 + cw (stream-K uses it only before), and its lead waits
        // for the stores before exiting.
        unsafe {
            consume::<STAGES, $depth, _>(
                $ring,
                $walk,
                lead,
                &mut acc,
                |acc, slot, first| {
                    let (a, b) = ($a_at(slot, 0), $b_at(slot, 0));
                    wgmma_fence();
                    seq!(KK in 0..4 {
                        let scale = if KK == 0 && first { 0u32 } else { 1u32 };
                        // K-major, 128-byte swizzle: a k8 step is 32 bytes along the row.
                        let da = desc_128b(a + 32 * KK, 16, ATOM);
                        let db = desc_128b(b + 32 * KK, 16, ATOM);
                        wgmma_m64n256k8_tf32!((*acc), da, db, scale);
                    });
                    wgmma_commit();
                },
                |_, _| {},
                |acc, u| sk.finish(acc, u, |acc, m0, n0| {
                    if !LOADS && !$p.tmap_c.is_null() {
                        $out.store_tma($p.tmap_c, $ring.epilogue(), lead, acc, m0, n0);
                    } else {
                        let (row0, col0) = ($row(m0), $col(n0));
                        store_fragment!($out, pairs, acc, row0, col0, 32);
                    }
                }),
            );
            if lead {
                // No-op without TMA stores (no bulk groups).
                bulk_wait_all();
            }
        }
    };
    // 3xTF32: per k8 step, hi·hi into `big` and lo·hi + hi·lo into `small` (m64n128k8), both
    // started from zero at each group's first step; after `flush` slices (and a tile's last)
    // the CUDA cores add them to `acc` with round-to-nearest FADDs. Depth 0 only: the flush
    // reads the temporaries, so every wgmma must have retired.
    (@consume Tf32x3, 0, $p:ident, $ring:ident, $walk:ident, $ktiles:ident, $tid:ident,
     $out:ident, $a_at:ident, $b_at:ident, $row:ident, $col:ident) => {
        let pairs = $out.pairs();
        let flush = if $p.flush == 0 { 1 } else { $p.flush };
        let mut st = Three { acc: [0; 64], big: [0; 64], small: [0; 64], in_group: 0 };
        // SAFETY: as in the TF32 kernel; with depth 0 every wgmma of the slice retired before
        // `after` reads the temporaries, and wgmma_fence follows those reads.
        unsafe {
            consume::<STAGES, 0, _>(
                $ring,
                $walk,
                $tid % 128 == 0,
                &mut st,
                |st, slot, _| {
                    let (ahi, bhi, alo, blo) = ($a_at(slot, 0), $b_at(slot, 0), $a_at(slot, 1), $b_at(slot, 1));
                    // 0 at a group's first step: wgmma ignores the temporaries' old values.
                    let keep = if st.in_group == 0 { 0u32 } else { 1u32 };
                    wgmma_fence();
                    seq!(KK in 0..4 {
                        let start = if KK == 0 { keep } else { 1u32 };
                        let (dah, dbh) = (desc_128b(ahi + 32 * KK, 16, ATOM), desc_128b(bhi + 32 * KK, 16, ATOM));
                        let (dal, dbl) = (desc_128b(alo + 32 * KK, 16, ATOM), desc_128b(blo + 32 * KK, 16, ATOM));
                        wgmma_m64n128k8_tf32!(st.small, dal, dbh, start);
                        wgmma_m64n128k8_tf32!(st.big, dah, dbh, start);
                        wgmma_m64n128k8_tf32!(st.small, dah, dbl, 1u32);
                    });
                    wgmma_commit();
                },
                |st, kt| {
                    st.in_group += 1;
                    if st.in_group == flush || kt + 1 == $ktiles {
                        seq!(I in 0..64 {
                            st.acc[I] = (f32::from_bits(st.acc[I])
                                + (f32::from_bits(st.big[I]) + f32::from_bits(st.small[I])))
                            .to_bits();
                        });
                        st.in_group = 0;
                    }
                },
                |st, u| {
                    let (m0, n0) = $walk.origin(u.tile);
                    let (row0, col0) = ($row(m0), $col(n0));
                    store_fragment!($out, pairs, st.acc, row0, col0, 16);
                    // The next tile starts from zero (`after` flushed at the last slice, so
                    // `in_group` is 0 already).
                    seq!(I in 0..64 {
                        st.acc[I] = 0;
                    });
                },
            );
        }
    };
}

crate::for_each_wgmma_tf32!(tf32_kernels);

/// The split pass: one 64 x 64 tile of the K-major output per block of 256 threads (see
/// [`SplitParams`]). Where the tile lies wholly inside the output and the source's rows are
/// 16-byte multiples, each thread moves four 16-byte vectors each way (`ld.global.nc.v4`,
/// `st.global.v4`): a transposed read parks the tile in shared memory (rows padded by one word:
/// 2-way bank conflicts at most, both ways) and reads it back by columns, a straight one copies.
/// Edge tiles go element by element. The 32 x 32 pass with 4-byte accesses (before session 17)
/// moved 4 bytes a thread each way and cost ~8 % of a 4096³ TF32 product with B row-major.
///
/// # Safety
/// `p.src` must hold the input as [`SplitParams`] describes (16-byte aligned), `p.hi` (and
/// `p.lo` unless null) `rows x cols` with rows `ld_out` apart, `ld_out` a multiple of 4 and
/// both 16-byte aligned, not overlapping `src`; the launch must use [`SPLIT_THREADS`] threads
/// and `ceil(rows / SPLIT_TILE) * ceil(cols / SPLIT_TILE)` blocks.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn wgmma_tf32_split(p: SplitParams) {
    /// Words between the parked tile's rows.
    const PITCH: u32 = SPLIT_TILE + 1;
    /// 16-byte vectors in a tile row.
    const VECS: u32 = SPLIT_TILE / 4;
    #[address_space(shared)]
    static mut TILE: MaybeUninit<[u32; (SPLIT_TILE * PITCH) as usize]> = MaybeUninit::uninit();
    let tile = shared_addr(addr_of!(TILE));
    let tid = fresh_tid_x();
    let tiles_c = p.cols.div_ceil(SPLIT_TILE);
    let block = fresh_ctaid_x();
    let (r0, c0) = (
        (block / tiles_c) * SPLIT_TILE,
        (block % tiles_c) * SPLIT_TILE,
    );
    let (ld_src, ld_out) = (p.ld_src as usize, p.ld_out as usize);
    // The same for every thread of the block, so the barriers below are reached by all.
    let whole = r0 + SPLIT_TILE <= p.rows && c0 + SPLIT_TILE <= p.cols && p.ld_src % 4 == 0;
    if whole {
        // Vector `f = tid + SPLIT_THREADS·I` is row `f / VECS`, columns `4 (f % VECS)..` (of
        // the output; of the source for a straight read, the source's rows for a transposed one).
        let mut v = [[0u32; 4]; 4];
        if p.transpose != 0 {
            seq!(I in 0..4 {
                let f = tid + SPLIT_THREADS * I;
                let (c, r4) = (f / VECS, 4 * (f % VECS));
                // SAFETY: source row c0 + c holds output column c0 + c, its elements r0 + r4..+4
                // are inside (a whole tile), 16-byte aligned (ld_src % 4 == 0, r4 and r0
                // multiples of 4, src aligned: the contract); nothing writes src.
                let x = unsafe { ld_global_nc::<4>(p.src.add((c0 + c) as usize * ld_src + (r0 + r4) as usize) as *const u32) };
                seq!(J in 0..4 {
                    // SAFETY: inside TILE; each word written by one thread before the barrier.
                    unsafe { st_shared::<1>(tile + 4 * (c * PITCH + r4 + J), [x[J]]) };
                });
            });
            thread::sync_threads();
            seq!(I in 0..4 {
                let f = tid + SPLIT_THREADS * I;
                let (r, c4) = (f / VECS, 4 * (f % VECS));
                seq!(J in 0..4 {
                    // SAFETY: inside TILE, written before the barrier above.
                    v[I][J] = unsafe { ld_shared::<1>(tile + 4 * ((c4 + J) * PITCH + r)) }[0];
                });
            });
        } else {
            seq!(I in 0..4 {
                let f = tid + SPLIT_THREADS * I;
                let (r, c4) = (f / VECS, 4 * (f % VECS));
                // SAFETY: (r0 + r, c0 + c4..+4) inside the output and so the source, 16-byte
                // aligned as above; nothing writes src.
                v[I] = unsafe { ld_global_nc::<4>(p.src.add((r0 + r) as usize * ld_src + (c0 + c4) as usize) as *const u32) };
            });
        }
        seq!(I in 0..4 {
            let f = tid + SPLIT_THREADS * I;
            let (r, c4) = (f / VECS, 4 * (f % VECS));
            let at = (r0 + r) as usize * ld_out + (c0 + c4) as usize;
            let (mut hi, mut lo) = ([0u32; 4], [0u32; 4]);
            seq!(J in 0..4 {
                let x = f32::from_bits(v[I][J]);
                let h = tf32_rna(x);
                hi[J] = h.to_bits();
                lo[J] = tf32_rna(x - h).to_bits();
            });
            // SAFETY: (r0 + r, c0 + c4..+4) inside the output buffers, 16-byte aligned (ld_out
            // a multiple of 4, c0 + c4 too, the buffers aligned: the contract); one thread each.
            unsafe {
                st_global::<4>(p.hi.add(at) as *mut u32, hi);
                if !p.lo.is_null() {
                    st_global::<4>(p.lo.add(at) as *mut u32, lo);
                }
            }
        });
        return;
    }
    // An edge tile, element by element: 64 x 4 threads, each 16 elements of a column of the
    // tile (reads coalesced along the source's rows either way).
    let (tx, ty) = (tid % SPLIT_TILE, tid / SPLIT_TILE);
    const STEP: u32 = SPLIT_THREADS / SPLIT_TILE;
    let mut v = [0f32; 16];
    if p.transpose != 0 {
        seq!(I in 0..16 {
            let (r, c) = (r0 + tx, c0 + ty + STEP * I);
            let x = if r < p.rows && c < p.cols {
                // SAFETY: (r, c) is inside the output, so c·ld_src + r inside the source.
                unsafe { ld_global(p.src.add(c as usize * ld_src + r as usize) as *const u32) }
            } else {
                0
            };
            // SAFETY: inside TILE; each word written by one thread before the barrier.
            unsafe { st_shared::<1>(tile + 4 * ((ty + STEP * I) * PITCH + tx), [x]) };
        });
        thread::sync_threads();
        seq!(I in 0..16 {
            // SAFETY: inside TILE, written before the barrier above.
            v[I] = f32::from_bits(unsafe { ld_shared::<1>(tile + 4 * (tx * PITCH + ty + STEP * I)) }[0]);
        });
    } else {
        seq!(I in 0..16 {
            let (r, c) = (r0 + ty + STEP * I, c0 + tx);
            if r < p.rows && c < p.cols {
                // SAFETY: (r, c) is inside the output and so inside the source.
                v[I] = f32::from_bits(unsafe { ld_global(p.src.add(r as usize * ld_src + c as usize) as *const u32) });
            }
        });
    }
    seq!(I in 0..16 {
        let (r, c) = (r0 + ty + STEP * I, c0 + tx);
        if r < p.rows && c < p.cols {
            let hi = tf32_rna(v[I]);
            let at = r as usize * ld_out + c as usize;
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

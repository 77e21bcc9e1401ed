//! The producer of the TF32 kernel that reads a row-major B without a split pass and without
//! changing the consumers (`L` row of the f32 list, `tf32.rs`; session 9). `wgmma` with TF32
//! operands reads shared memory K-major only; B row-major is N-major. Here the producer warp
//! group, whose 127 other threads idle in the TMA kernels, moves B itself: each thread loads its
//! part of the slice's `BK x 256` tile of B with 16-byte global loads, rounds it with
//! `cvt.rna.tf32.f32` (as the split pass does, so the products equal the split path's bit for
//! bit) and stores it K-major into the slice, in the 128-byte swizzle TMA would have written
//! (row `nn` of 128 bytes = 32 k of column `nn`, 16-byte chunk `c` at `c ^ (nn % 8)`). A still
//! comes through TMA (thread 0). The consumers, their descriptors and the epilogue are the `K`
//! kernel's. The slice's "full" barrier waits for TMA's bytes (thread 0's `expect_tx` arrival)
//! and for each producer thread's arrival after its stores and a `fence.proxy.async` (wgmma reads
//! through the async proxy).
//!
//! Latency: the loads of the next slice are issued before this slice's stores (two slices of 64
//! words a thread in registers). But the `fence.proxy.async` before each arrival compiles to
//! `MEMBAR.ALL.CTA`, which waits for the thread's outstanding loads, the next slice's included:
//! the first version (no prefetch) paid one full global latency a slice and ran at 37-40 % of
//! cuBLAS (docs/sm90.md, "Session 9"). So warp 0 also has the copy engine prefetch the B rows of
//! the slice `p.prefetch` ahead into L2 (`cp.async.bulk.prefetch`, async proxy: no fence waits
//! for it), so that the loads the fence waits for hit L2. The kernel runs without `setmaxnreg`:
//! all three warp groups keep the entry cap (168), which the `K` consumers already fit in.
//!
//! Thread map (producer warp `w`, lane `l`, `c = l % 8`, `q = l / 8`): round `r` (0..4) covers
//! columns `64·w + 16·r + 4·q .. +4` and k rows `4·c .. 4·c + 4` of the slice. Loads: row
//! `4·c + i`, 16 bytes; a warp's load covers 8 rows x 64 contiguous bytes (whole 32-byte
//! sectors). After the 4 x 4 transpose in registers, store `j` writes column `nn = 64·w + 16·r +
//! 4·q + j`, chunk `c`: the 8 lanes of a quarter-warp (same `q`, `c` = 0..8) hit 8 distinct
//! chunks of their rows, all 32 banks.
use seq_macro::seq;

use super::asm90::{
    fence_proxy_async_shared, mbar_arrive, mbar_arrive_expect_tx, mbar_wait, prefetch_l2, tf32_rna,
    tma_load_2d,
};
use super::pipeline::{Cursor, Ring, Unit, Walk};
use super::tf32::{TF32_BK, Tf32Params};
use crate::ptx::{fresh_tid_x, ld_global_nc, st_shared};

/// Arrivals a phase of a slice's "full" barrier with the producer in `groups` groups: the
/// group's threads after their stores, and its first thread's `expect_tx` for A's TMA box.
pub(super) const fn load_full_arrivals(groups: u32) -> u32 {
    128 / groups + 1
}
/// Columns of the B tile this producer fills (4 warps x 4 rounds x 16).
pub(super) const LOAD_BN: u32 = 256;

/// One thread's words of one slice of B (4·G rounds x 4 k rows x 4 columns), as loaded; with
/// G = 1 only the first 64 are used.
type Slab = [u32; 128];

/// This producer thread's (group, warp in the group, `c`, `q`) with the warp group in `G`
/// groups (1 or 2) of `128 / G` threads.
#[inline(always)]
fn ids<const G: u32>() -> (u32, u32, u32, u32) {
    let tid = fresh_tid_x();
    let lane = tid % 32;
    (tid / (128 / G), (tid % (128 / G)) / 32, lane % 8, lane / 8)
}

/// Four words of B at (`row`, `col..col + 4`), zeros outside `k x n` (as TMA's fill): one 16-byte
/// load where all four are inside, else one load per word inside.
///
/// # Safety
/// `p.b` as [`Tf32Params`] says (rows `ldb` apart, `ldb` a multiple of 4, 16-byte aligned) and
/// `col` a multiple of 4.
#[inline(always)]
unsafe fn edge(p: &Tf32Params, row: u32, col: u32) -> [u32; 4] {
    let mut x = [0u32; 4];
    if row < p.k {
        // SAFETY: row < k, so the row is inside B; each word read is at a column below n.
        unsafe {
            let at = p.b.add(row as usize * p.ldb as usize + col as usize) as *const u32;
            if col + 4 <= p.n {
                x = ld_global_nc::<4>(at);
            } else {
                seq!(J in 0..4 {
                    if col + J < p.n {
                        x[J] = ld_global_nc::<1>(at.add(J))[0];
                    }
                });
            }
        }
    }
    x
}

/// Loads this thread's words of slice `kt` of the B tile at column `n0`.
///
/// # Safety
/// As [`edge`]; B is not written during the launch (non-coherent loads).
#[inline(always)]
unsafe fn fetch<const G: u32>(p: &Tf32Params, kt: u32, n0: u32) -> Slab {
    let (_, w, c, q) = ids::<G>();
    let k0 = kt * TF32_BK;
    let inside = k0 + TF32_BK <= p.k && n0 + LOAD_BN <= p.n;
    let mut v = [0u32; 128];
    seq!(R in 0..8 {
        if R < 4 * G { seq!(I in 0..4 {
            let (row, col) = (k0 + 4 * c + I, n0 + 64 * G * w + 16 * R + 4 * q);
            let x = if inside {
                // SAFETY: the whole slice is inside B (checked above), col a multiple of 4 and
                // ldb too: 16 aligned bytes inside the row.
                unsafe {
                    ld_global_nc::<4>(p.b.add(row as usize * p.ldb as usize + col as usize) as *const u32)
                }
            } else {
                // SAFETY: the caller's contract; `edge` checks the bounds.
                unsafe { edge(p, row, col) }
            };
            seq!(J in 0..4 {
                v[R * 16 + I * 4 + J] = x[J];
            });
        }); }
    });
    v
}

/// Rounds `v` to TF32 and stores it K-major, swizzled, into the B tile at shared address `at`.
///
/// # Safety
/// `at` must be the 1024-byte aligned B tile (`LOAD_BN` rows of 128 bytes) of a slot this
/// producer owns (its "empty" phase completed).
#[inline(always)]
unsafe fn store<const G: u32>(v: &Slab, at: u32) {
    let (_, w, c, q) = ids::<G>();
    let rna = |x: u32| tf32_rna(f32::from_bits(x)).to_bits();
    seq!(R in 0..8 {
        if R < 4 * G { seq!(J in 0..4 {
            let nn = 64 * G * w + 16 * R + 4 * q + J;
            let chunk = [rna(v[R * 16 + J]), rna(v[R * 16 + 4 + J]), rna(v[R * 16 + 8 + J]),
                         rna(v[R * 16 + 12 + J])];
            // SAFETY: nn < LOAD_BN and the chunk is inside its 128-byte row (the contract).
            unsafe { st_shared::<4>(at + nn * 128 + ((c ^ (nn % 8)) * 16), chunk) };
        }); }
    });
}

/// Moves (`u`, `kt`) to the walk's next slice; false at the end of the walk.
#[inline(always)]
fn advance(walk: &Walk, cur: &mut Cursor, u: &mut Unit, kt: &mut u32) -> bool {
    *kt += 1;
    if *kt < u.ke {
        return true;
    }
    match walk.next(cur) {
        Some(x) => {
            *u = x;
            *kt = x.kb;
            true
        }
        None => false,
    }
}

/// Warp 0's lane `r` prefetches row `r` of slice `kt`'s B tile at column `n0` into L2 (the
/// whole 16-byte pieces inside B).
///
/// # Safety
/// As [`edge`].
#[inline(always)]
unsafe fn prefetch_slice(p: &Tf32Params, kt: u32, n0: u32) {
    let tid = fresh_tid_x();
    let row = kt * TF32_BK + tid % 32;
    if tid < 32 && row < p.k && n0 < p.n {
        let cols = if p.n - n0 < LOAD_BN {
            p.n - n0
        } else {
            LOAD_BN
        };
        let bytes = (cols / 4) * 16;
        if bytes > 0 {
            // SAFETY: row < k and columns n0 .. n0 + 4·(cols / 4) ≤ n: inside B's row.
            unsafe {
                prefetch_l2(
                    p.b.add(row as usize * p.ldb as usize + n0 as usize) as *const u8,
                    bytes,
                )
            };
        }
    }
}

/// The producer warp group (all 128 threads) in `G` groups (1 or 2): for each slice `it` of the
/// block's walk, in the order of `pipeline::produce`, group `it % G` waits for the slot, has its
/// first thread announce `a_bytes` and issue A's TMA box (map 0 of `p.tmaps`, at the slot's
/// start), then stores B's tile at `slot + a_bytes` and arrives. With one group the registers
/// are loaded one slice ahead; with two each group loads its slice just before (the other
/// group's slice overlaps it: the fence waits for a thread's own loads only).
///
/// # Safety
/// `ring` made with [`load_full_arrivals`]`(G)` full arrivals and the consumers' count; `walk` the
/// consumers'; `p` the launch's (tensor map 0 over A with a `BK x BM` box of `a_bytes`, B as
/// [`Tf32Params`] says); called by every thread of warp group 0 and by no other.
#[inline(always)]
pub(super) unsafe fn produce_loaded<const STAGES: u32, const G: u32>(
    ring: Ring<STAGES>,
    walk: Walk,
    p: &Tf32Params,
    a_bytes: u32,
) {
    let (h, _, _, _) = ids::<G>();
    let lead = fresh_tid_x() % (128 / G) == 0;
    let mut cur = walk.cursor();
    let Some(mut u) = walk.next(&mut cur) else {
        return;
    };
    let mut kt = u.kb;
    // The prefetch cursor: `p.prefetch` slices ahead of (u, kt) once primed.
    let (mut pcur, mut pu, mut pkt) = (cur, u, u.kb);
    let mut pf_alive = p.prefetch > 0;
    let mut primed = 0;
    while pf_alive && primed < p.prefetch {
        // SAFETY: as the contract's B.
        unsafe { prefetch_slice(p, pkt, walk.origin(pu.tile).1) };
        pf_alive = advance(&walk, &mut pcur, &mut pu, &mut pkt);
        primed += 1;
    }
    let (mut m0, mut n0) = walk.origin(u.tile);
    let mut v = if G == 1 {
        // SAFETY: B as the contract says, read-only during the launch.
        unsafe { fetch::<G>(p, kt, n0) }
    } else {
        [0u32; 128]
    };
    let mut it = 0u32;
    loop {
        // The next slice of the walk (one group: loaded before this one is stored).
        let (mut nu, mut nkt) = (u, kt);
        let more = advance(&walk, &mut cur, &mut nu, &mut nkt);
        let (nm0, nn0) = walk.origin(nu.tile);
        let next = if G == 1 && more {
            // SAFETY: as the first fetch.
            unsafe { fetch::<G>(p, nkt, nn0) }
        } else {
            [0u32; 128]
        };
        if pf_alive {
            // SAFETY: as the contract's B.
            unsafe { prefetch_slice(p, pkt, walk.origin(pu.tile).1) };
            pf_alive = advance(&walk, &mut pcur, &mut pu, &mut pkt);
        }
        if it % G == h {
            if G > 1 {
                // SAFETY: as the first fetch.
                v = unsafe { fetch::<G>(p, kt, n0) };
            }
            let (s, round) = (it % STAGES, it / STAGES);
            let slot = ring.slot(s);
            // SAFETY: initialised barriers; the consumers released the slot (the empty
            // barrier's phase of the previous round) before anything writes it again; the lead
            // thread's arrival announces A's bytes before its TMA copy, which completes on the
            // same barrier; the stores fill B's tile of the slot, and the fence orders them
            // before this thread's arrival for the consumers' wgmma (async proxy).
            unsafe {
                if round > 0 {
                    mbar_wait(ring.empty(s), (round - 1) & 1);
                }
                if lead {
                    mbar_arrive_expect_tx(ring.full(s), a_bytes);
                    tma_load_2d(slot, p.tmaps, kt * TF32_BK, m0, ring.full(s));
                }
                store::<G>(&v, slot + a_bytes);
                fence_proxy_async_shared();
                mbar_arrive(ring.full(s));
            }
        }
        if !more {
            break;
        }
        u = nu;
        kt = nkt;
        m0 = nm0;
        n0 = nn0;
        if G == 1 {
            v = next;
        }
        it += 1;
    }
}

//! Blocked Floyd–Warshall phases. Kernel arguments: `(d, pitch, round)` with `d` the padded
//! distance matrix (row pitch `pitch` i32) and `round` the pivot block index.
//!
//! In phase 1 (and phase 2 of the `column` layout), thread `(tx, ty)` of a `T x T` block owns the
//! `R x R` cells `(ty + ri*T, tx + rj*T)` of the `B x B` block (R = B / T), keeping them in
//! registers; phase 3 (and phase 2 of the `tile` layout) maps cells by its layout in
//! `for_each_fw!` (see `fw_phase23!`).
//!
//! Phase 1, and phase 2 of the `column` layout, update in place with one barrier per k (phase 2
//! of the `tile` layout is a (min, +) product instead, see `fw_phase23!`). That is race-free
//! because with non-negative weights and a zero diagonal, row k and column k of the pivot block
//! do not change in step k; cells are stored only when they improve, so nothing in row or
//! column k is ever written while it is being read.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::offsets::{block_at, block_origin, in_block};
use crate::ptx::{
    add_min, cp_async_16, cp_async_wait_all, ld_global, ld_global_v4, ld_shared, shared_addr,
    st_global, st_shared,
};

/// One i32 from shared memory (also used by the multi-GPU kernels in `multi.rs`).
///
/// # Safety
/// As [`ld_shared`]: `addr` is an aligned word of this block's shared memory, ordered after its
/// last store by a barrier.
#[inline(always)]
pub(super) unsafe fn lds(addr: u32) -> i32 {
    // SAFETY: the caller's contract is `ld_shared`'s with N = 1.
    unsafe { ld_shared::<1>(addr)[0] as i32 }
}

/// One i32 to shared memory.
///
/// # Safety
/// As [`st_shared`]: `addr` is an aligned word of this block's shared memory that no other thread
/// accesses before the next barrier.
#[inline(always)]
pub(super) unsafe fn sts(addr: u32, v: i32) {
    // SAFETY: the caller's contract is `st_shared`'s with N = 1.
    unsafe { st_shared::<1>(addr, [v as u32]) }
}

/// The register-tiled block update shared by phases 2 and 3 (`tile` layout):
/// `own = min(own, A ⊗ B)` in the (min, +) sense over the B values of k, for the blocks
/// `own`, `a` and `b` given as pointers to their top-left cells (`block_at`; evaluated at the
/// start, `own` once more for the stores), all with row pitch `pitch`; the cells of each block
/// are 32-bit offsets from its pointer (`in_block`).
///
/// Register tile: thread `(tx, ty)` of a `T x T` block owns `C x C` cells (C = `$n`), in groups
/// of 4 rows `g*GS + 4*ty + 0..4` and 4 columns `h*GS + 4*tx + 0..4` (GS = B / (C/4)), so that
/// each value loaded from shared memory feeds C add-mins. Every shared load is 128 bits: per 4 k
/// a thread loads its C rows of A for 4 k each (C loads) and, for each k, its C columns of B
/// (C/4 loads per k). Each add-min is one inline-PTX `add` + `min` pair (`add_min`), one
/// `VIADDMNMX` in SASS.
///
/// A and B are copied to shared memory with `cp.async` (16 bytes, L2 only), so the copies take
/// no registers and are all in flight at once with the own cells' loads. Bank conflicts: a
/// quarter-warp (8 lanes: one `ty`, 8 `tx`) reads one 16-byte A address (broadcast) and 128
/// contiguous bytes of B; A's rows are padded to `SC` = B + 4 words so that the rows of the
/// different `ty` of a warp fall in different banks as well.
/// `($po, $pa, $pb)` in place of `$pitch` gives own, A and B a pitch each (`ooc.rs`).
macro_rules! fw_tile_update {
    ($b:tt, $t3:tt, $n:tt, $q:tt, $pitch:ident, own: $own:expr, a: $a:expr, b: $bb:expr) => {
        fw_tile_update!($b, $t3, $n, $q, ($pitch, $pitch, $pitch), own: $own, a: $a, b: $bb)
    };
    ($b:tt, $t3:tt, $n:tt, $q:tt, ($po:ident, $pa:ident, $pb:ident), own: $own:expr, a: $a:expr,
        b: $bb:expr) => {{
        const B: u32 = $b;
        const T: u32 = $t3;
        const CELLS: u32 = $n;
        // Distance between a thread's groups of 4 rows (columns).
        const GS: u32 = B / (CELLS / 4);
        // Row pitch (words) of the A tile in shared memory.
        const SC: u32 = B + 4;
        // 16-byte quads per tile row.
        const KQ: u32 = B / 4;
        const _: () = assert!(T * CELLS == B && CELLS % 4 == 0 && B % 4 == 0);
        const _: () = assert!($q * T * T == B * KQ, "quads per thread in for_each_fw!");
        // The T*T threads copy T*T / KQ whole rows per step.
        const _: () = assert!((T * T) % KQ == 0);
        const ROWS_PER_STEP: u32 = T * T / KQ;
        #[repr(C, align(16))]
        struct ATile([i32; (B * SC) as usize]);
        #[repr(C, align(16))]
        struct BTile([i32; (B * B) as usize]);
        #[address_space(shared)]
        static mut A_TILE: MaybeUninit<ATile> = MaybeUninit::uninit();
        #[address_space(shared)]
        static mut B_TILE: MaybeUninit<BTile> = MaybeUninit::uninit();
        let (po, pa_pitch, pb_pitch): (u32, u32, u32) = ($po, $pa, $pb);
        let sa = shared_addr(addr_of!(A_TILE));
        let sb = shared_addr(addr_of!(B_TILE));
        let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
        let t = ty * T + tx;

        // Own cells first (DRAM, the longest latency), straight into registers.
        // (Indices are all literals after `seq!`: one 128-bit load per 4 cells, at Q % 4 == 0.)
        let mut cell = [[0i32; $n]; $n];
        let mut v = [0u32; 4];
        let own: *mut u32 = $own;
        seq!(R in 0..$n { seq!(Q in 0..$n {
            if Q % 4 == 0 {
                let i = (R / 4) * GS + 4 * ty + R % 4;
                let j = (Q / 4) * GS + 4 * tx;
                // SAFETY: `own` is the top-left cell of a B x B block of the matrix (the caller's
                // `$own`); i < B (R / 4 < C / 4 groups of GS = 4T rows, 4 * ty + 3 < GS) and j + 3
                // < B likewise, so the 4 cells are inside the block, 16-byte aligned (pitch and j
                // multiples of 4). Only this thread stores them, after its own load.
                v = unsafe { ld_global_v4(own.add(in_block(po, i, j) as usize)) };
            }
            cell[R][Q] = v[Q % 4] as i32;
        }); });

        // A and B as they are: thread t moves quad t % KQ of rows t / KQ + N * ROWS_PER_STEP.
        let (r0, c4) = (t / KQ, 4 * (t % KQ));
        let (pa, pb): (*const u32, *const u32) = ($a, $bb);
        // SAFETY: rows r0 + N * ROWS_PER_STEP < B (q * ROWS_PER_STEP = B) and columns c4 + 4 <= B
        // (c4 = 4 * (t % KQ)): the A block's origin `pa` plus a cell of the block.
        let ga = unsafe { pa.add(in_block(pa_pitch, r0, c4) as usize) };
        // SAFETY: as `ga`, in the B block.
        let gb = unsafe { pb.add(in_block(pb_pitch, r0, c4) as usize) };
        let (sa0, sb0) = (sa + 4 * (r0 * SC + c4), sb + 4 * (r0 * B + c4));
        seq!(N in 0..$q {
            // SAFETY: global: 16 aligned bytes of row r0 + N * ROWS_PER_STEP < B of the A and B
            // blocks. Each is either not written in this launch (phase 3 skips the pivot row and
            // column, phase 2 the pivot block) or this block's own block, which it writes only
            // after the barrier below. Shared: those rows of A_TILE (pitch SC) and B_TILE
            // (pitch B), each 16 bytes copied by one thread and read only after the wait and
            // barrier below.
            unsafe {
                let step_a = in_block(pa_pitch, N * ROWS_PER_STEP, 0) as usize;
                let step_b = in_block(pb_pitch, N * ROWS_PER_STEP, 0) as usize;
                cp_async_16(sa0 + 4 * N * ROWS_PER_STEP * SC, ga.add(step_a));
                cp_async_16(sb0 + 4 * N * ROWS_PER_STEP * B, gb.add(step_b));
            }
        });
        cp_async_wait_all();
        thread::sync_threads();

        let a_base = sa + 4 * (4 * ty * SC);
        let b_base = sb + 4 * (4 * tx);
        let mut k = 0;
        while k < B {
            // A values of this thread's rows for 4 k: a[R][U] = A[row R][k + U].
            let mut a = [[0u32; 4]; $n];
            seq!(R in 0..$n {
                // SAFETY: row (R / 4) * GS + 4 * ty + R % 4 < B of A_TILE, columns k..k + 4 < B + 4
                // = SC, 16-byte aligned (SC and k multiples of 4); the copies landed before the
                // barrier above and nothing writes A_TILE afterwards.
                a[R] = unsafe { ld_shared::<4>(a_base + 4 * (((R / 4) * GS + R % 4) * SC + k)) };
            });
            seq!(U in 0..4 {
                let mut b = [0i32; $n];
                let mut vb = [0u32; 4];
                seq!(Q in 0..$n {
                    if Q % 4 == 0 {
                        // SAFETY: row k + U < B of B_TILE, columns (Q / 4) * GS + 4 * tx..+4 <= B,
                        // aligned; landed before the barrier above, never written after.
                        vb = unsafe { ld_shared::<4>(b_base + 4 * ((k + U) * B + (Q / 4) * GS)) };
                    }
                    b[Q] = vb[Q % 4] as i32;
                });
                seq!(R in 0..$n { seq!(Q in 0..$n {
                    cell[R][Q] = add_min(cell[R][Q], a[R][U] as i32, b[Q]);
                }); });
            });
            k += 4;
        }

        // The own offset again rather than kept live across the k loop (registers).
        let own: *mut u32 = $own;
        seq!(R in 0..$n { seq!(Q in 0..$n {
            v[Q % 4] = cell[R][Q] as u32;
            if Q % 4 == 3 {
                let i = (R / 4) * GS + 4 * ty + R % 4;
                let j = (Q / 4) * GS + 4 * tx;
                // SAFETY: the same 4 cells of the own block this thread loaded at the start
                // (same i, j): inside the block, aligned, stored by this thread only, after every
                // thread of the block copied its operands (barrier above).
                unsafe { st_global::<4>(own.add(in_block(po, i, j) as usize), v) };
            }
        }); });
    }};
}

/// The in-place k loop of phase 1 and of phase 2 (`column` layout): for each k of the block,
/// `cell[I][J] = min(cell[I][J], A[i][k] + B[k][j])` for the thread's `R x R` cells `(i, j) =
/// (ty + I*T, tx + J*T)`, where A and B are `B x B` blocks in shared memory at `$sa` and `$sb`
/// (both the pivot block in phase 1; the pivot and the block itself in phase 2). An improved
/// cell is also stored to the block at `$own` in shared memory, which the other threads read
/// from in the next steps; one barrier per k. Uses the caller's constants `B` and `T`.
///
/// Both operands are read once per k: with non-negative weights and a zero diagonal, column k
/// and row k do not change in step k (see the module comment).
macro_rules! fw_relax_in_place {
    ($cell:ident, $r:tt, ($tx:ident, $ty:ident), a: $sa:expr, b: $sb:expr, own: $so:expr) => {{
        let (tx, ty, sa, sb, so) = ($tx, $ty, $sa, $sb, $so);
        for kk in 0..B {
            let (mut a, mut b) = ([0i32; $r], [0i32; $r]);
            seq!(I in 0..$r {
                // SAFETY: row ty + I * T < B, column kk < B of the B x B tile at `sa`; stored
                // before the previous barrier, and column kk is not written in step kk (module
                // comment).
                a[I] = unsafe { lds(sa + 4 * ((ty + I * T) * B + kk)) };
                // SAFETY: row kk < B, column tx + I * T < B of the tile at `sb`; row kk is not
                // written in step kk.
                b[I] = unsafe { lds(sb + 4 * (kk * B + tx + I * T)) };
            });
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                let via = a[I] + b[J];
                if via < $cell[I][J] {
                    $cell[I][J] = via;
                    // SAFETY: cell (i, j) < (B, B) of the tile at `so`, stored only by its owner
                    // thread; it is neither in row kk nor in column kk of step kk's operands when
                    // it improves (module comment), and the barrier below orders it before step
                    // kk + 1 reads it.
                    unsafe { sts(so + 4 * (i * B + j), via) };
                }
            }); });
            thread::sync_threads();
        }
    }};
}

/// Phase 1 on the `B x B` block at `$base` (row pitch `$pitch`): closes it in place, one block of
/// `T x T` threads with `R x R` cells each.
macro_rules! fw_pivot_block {
    ($b:tt, $t:tt, $r:tt, $base:expr, $pitch:ident) => {{
        const B: u32 = $b;
        const T: u32 = $t;
        #[address_space(shared)]
        static mut PIVOT: [MaybeUninit<i32>; (B * B) as usize] = [MaybeUninit::uninit(); (B * B) as usize];
        let sp = shared_addr(addr_of!(PIVOT));
        let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
        let pitch: u32 = $pitch;
        let base: *mut u32 = $base;
        let mut cell = [[0i32; $r]; $r];
        seq!(I in 0..$r { seq!(J in 0..$r {
            let (i, j) = (ty + I * T, tx + J * T);
            // SAFETY: `base` is the top-left cell of a B x B block of the matrix (the caller's
            // `$base`), and i, j < B (ty, tx < T, I, J < R, T * R = B): inside it.
            cell[I][J] = unsafe { ld_global(base.add(in_block(pitch, i, j) as usize)) } as i32;
            // SAFETY: cell (i, j) of the B x B PIVOT tile, this thread's own; read by others only
            // after the barrier below.
            unsafe { sts(sp + 4 * (i * B + j), cell[I][J]) };
        }); });
        thread::sync_threads();
        fw_relax_in_place!(cell, $r, (tx, ty), a: sp, b: sp, own: sp);
        seq!(I in 0..$r { seq!(J in 0..$r {
            let (i, j) = (ty + I * T, tx + J * T);
            // SAFETY: the cell this thread loaded above (inside the block), stored only by it; the
            // other threads of this one-block launch read it only from shared memory.
            unsafe { st_global::<1>(base.add(in_block(pitch, i, j) as usize), [cell[I][J] as u32]) };
        }); });
    }};
}

/// Phase 2 and 3 kernels, one arm per phase-3 layout (`Phase3Layout` in `mod.rs`).
macro_rules! fw_phase23 {
    (column, $phase2:ident, $phase3:ident, $b:tt, $t:tt, $r:tt, $t3:tt, $n:tt) => {
        /// Phase 2: the blocks of the pivot row (`block_idx.y == 0`) and pivot column
        /// (`block_idx.y == 1`); `block_idx.x` walks the row or column, skipping the pivot.
        ///
        /// # Safety
        /// `d` must point to the padded distance matrix on the device: `rounds * B` rows of `pitch`
        /// i32, `pitch` at least `rounds * B` and a multiple of `PITCH_ALIGN`, fewer than 2^32
        /// cells in all (32-bit offsets); `round` < `rounds`; the launch must use this block
        /// factor's `FwConfig` geometry (phase 1: one block; phase 2: grid `(rounds, 2)`; phase 3:
        /// grid `(rounds, rounds)`), and the phases of a round must run in order, each launch alone
        /// on the matrix.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $phase2(d: *mut i32, pitch: u32, round: u32) {
            const B: u32 = $b;
            const T: u32 = $t;
            #[address_space(shared)]
            static mut PIVOT: [MaybeUninit<i32>; (B * B) as usize] = [MaybeUninit::uninit(); (B * B) as usize];
            #[address_space(shared)]
            static mut OWN: [MaybeUninit<i32>; (B * B) as usize] = [MaybeUninit::uninit(); (B * B) as usize];
            let x = thread::block_idx_x();
            if x == round {
                return;
            }
            let in_row = thread::block_idx_y() == 0;
            let (bi, bj) = if in_row { (round, x) } else { (x, round) };
            let sp = shared_addr(addr_of!(PIVOT));
            let so = shared_addr(addr_of!(OWN));
            let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
            let pivot = block_at::<B>(d, pitch, round, round);
            let own = block_at::<B>(d, pitch, bi, bj);
            let mut cell = [[0i32; $r]; $r];
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                let off = in_block(pitch, i, j) as usize;
                // SAFETY: cell (i, j), i, j < B, of this block's own B x B block; only this thread
                // stores it, at the end.
                cell[I][J] = unsafe { ld_global(own.add(off)) } as i32;
                // SAFETY: OWN and PIVOT cells (i, j) < (B, B), this thread's own, read by others
                // after the barrier below; the pivot block is not written in this launch (its block
                // x is skipped).
                unsafe {
                    sts(so + 4 * (i * B + j), cell[I][J]);
                    sts(sp + 4 * (i * B + j), ld_global(pivot.add(off)) as i32);
                }
            }); });
            thread::sync_threads();
            // Row block: d[i][j] via pivot[i][k] + own[k][j]; column block: own[i][k] + pivot[k][j].
            let (sa, sb) = if in_row { (sp, so) } else { (so, sp) };
            fw_relax_in_place!(cell, $r, (tx, ty), a: sa, b: sb, own: so);
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                // SAFETY: the own cell loaded above, stored by this thread only; no other block
                // reads this block in phase 2.
                unsafe { st_global::<1>(own.add(in_block(pitch, i, j) as usize), [cell[I][J] as u32]) };
            }); });
        }

        /// Phase 3: every block outside the pivot row and column, from the (final) pivot-column
        /// block of its row and pivot-row block of its column. No barrier inside the k loop.
        ///
        /// Cell mapping (why it differs from phases 1–2): thread `(tx, ty)` owns `$n`
        /// consecutive rows of one column, so a warp covers `$n` rows x 32 columns. Per k it
        /// then reads one 128-byte row segment of the pivot-row block (one shared wavefront) and
        /// its own rows of the pivot-column block as 128-bit loads covering 4 k at once
        /// (broadcast): 2 wavefronts per 128 updates instead of 2.5 with 2 rows x 64 columns.
        ///
        /// # Safety
        /// `d` must point to the padded distance matrix on the device: `rounds * B` rows of `pitch`
        /// i32, `pitch` at least `rounds * B` and a multiple of `PITCH_ALIGN`, fewer than 2^32
        /// cells in all (32-bit offsets); `round` < `rounds`; the launch must use this block
        /// factor's `FwConfig` geometry (phase 1: one block; phase 2: grid `(rounds, 2)`; phase 3:
        /// grid `(rounds, rounds)`), and the phases of a round must run in order, each launch alone
        /// on the matrix.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $phase3(d: *mut i32, pitch: u32, round: u32) {
            const B: u32 = $b;
            const T: u32 = $t3;
            const RR: u32 = $n;
            // Rows covered by one column of threads; the rest of ty picks the column group.
            const ROW_GROUPS: u32 = B / RR;
            #[repr(C, align(16))]
            struct Tile([i32; (B * B) as usize]);
            #[address_space(shared)]
            static mut COL: MaybeUninit<Tile> = MaybeUninit::uninit();
            #[address_space(shared)]
            static mut ROW: MaybeUninit<Tile> = MaybeUninit::uninit();
            let (bj, bi) = (thread::block_idx_x(), thread::block_idx_y());
            if bi == round || bj == round {
                return;
            }
            let sc = shared_addr(addr_of!(COL));
            let sr = shared_addr(addr_of!(ROW));
            let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
            let row0 = (ty % ROW_GROUPS) * RR;
            let col = (ty / ROW_GROUPS) * T + tx;
            let d = d as *mut u32;
            // Offset of this thread's first cell in block (bi, bj): the block's 64-bit origin
            // and the 32-bit offset inside it. Recomputed after the k loop rather than kept
            // live across it (registers decide whether 2 blocks fit per SM).
            let first = move |bi: u32, bj: u32| {
                block_origin(B, pitch, bi, bj) + in_block(pitch, row0, col) as usize
            };
            let mut cell = [0i32; $n];
            seq!(I in 0..$n {
                let i = row0 + I;
                let step = in_block(pitch, I, 0) as usize;
                // SAFETY: row bi * B + row0 + I (row0 + RR <= B) and column bj * B + col (col < B)
                // of the matrix for the own block and the pivot-column and pivot-row blocks (bi,
                // bj, round < rounds; 64-bit block origins): inside it. The pivot row and column
                // are not written in phase 3 (their blocks return above). Shared: COL and ROW cell
                // (i, col), this thread's own, read after the barrier below.
                unsafe {
                    cell[I] = ld_global(d.add(first(bi, bj) + step)) as i32;
                    sts(sc + 4 * (i * B + col), ld_global(d.add(first(bi, round) + step)) as i32);
                    sts(sr + 4 * (i * B + col), ld_global(d.add(first(round, bj) + step)) as i32);
                }
            });
            thread::sync_threads();
            let mut k0 = 0;
            while k0 < B {
                // 4 k per iteration: unrolling further makes ptxas hoist loads (more registers).
                seq!(H in 0..1 {
                    let kq = k0 + 4 * H;
                    // b for 4 k first, then one row's a at a time: 12 values live, not 20, which
                    // keeps the kernel at <= 32 registers (2 blocks of 1024 threads per SM).
                    let mut b = [0i32; 4];
                    // SAFETY: ROW cell (kq + J, col) with kq + J < B, col < B; stored before the
                    // barrier above, never written after.
                    seq!(J in 0..4 { b[J] = unsafe { lds(sr + 4 * ((kq + J) * B + col)) }; });
                    seq!(I in 0..$n {
                        // SAFETY: COL row row0 + I < B, columns kq..kq + 4 <= B, 16-byte aligned
                        // (Tile is, B and kq multiples of 4); stored before the barrier above.
                        let a = unsafe { ld_shared::<4>(sc + 4 * ((row0 + I) * B + kq)) };
                        seq!(J in 0..4 {
                            cell[I] = core::cmp::min(cell[I], a[J] as i32 + b[J]);
                        });
                    });
                });
                k0 += 4;
            }
            let (bj, bi) = (thread::block_idx_x(), thread::block_idx_y());
            seq!(I in 0..$n {
                // SAFETY: this thread's own cells, loaded at the start (same offsets), stored only
                // by it.
                unsafe { st_global::<1>(d.add(first(bi, bj) + in_block(pitch, I, 0) as usize), [cell[I] as u32]) };
            });
        }
    };
    (tile, $phase2:ident, $phase3:ident, $b:tt, $t:tt, $r:tt, $t3:tt, $n:tt, $q:tt) => {
        /// Phase 2 (register tile): the blocks of the pivot row (`block_idx.y == 0`) and pivot
        /// column (`block_idx.y == 1`); `block_idx.x` walks the row or column, skipping the pivot.
        ///
        /// With the pivot block P closed by phase 1 (zero diagonal, `P[i][k'] <= P[i][k] +
        /// P[k][k']`), the in-place k loop of the other layout equals one (min, +) product with
        /// the block's *old* values: row block `own = min(own, P ⊗ own)`, column block
        /// `own = min(own, own ⊗ P)` (every chain through several pivot vertices is dominated
        /// by its direct P entry). So phase 2 is phase 3's update with other operands, with no
        /// barrier per k and `T3 x T3` threads per block (`fw_tile_update!`).
        ///
        /// # Safety
        /// `d` must point to the padded distance matrix on the device: `rounds * B` rows of `pitch`
        /// i32, `pitch` at least `rounds * B` and a multiple of `PITCH_ALIGN`, fewer than 2^32
        /// cells in all (32-bit offsets); `round` < `rounds`; the launch must use this block
        /// factor's `FwConfig` geometry (phase 1: one block; phase 2: grid `(rounds, 2)`; phase 3:
        /// grid `(rounds, rounds)`), and the phases of a round must run in order, each launch alone
        /// on the matrix.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $phase2(d: *mut i32, pitch: u32, round: u32) {
            if thread::block_idx_x() == round {
                return;
            }
            // (block row, block column) of this block, of A and of B.
            let own = move || {
                let x = thread::block_idx_x();
                let (bi, bj) = if thread::block_idx_y() == 0 { (round, x) } else { (x, round) };
                block_at::<$b>(d, pitch, bi, bj)
            };
            let pivot = block_at::<$b>(d, pitch, round, round);
            let in_row = thread::block_idx_y() == 0;
            let a = if in_row { pivot } else { own() };
            let b = if in_row { own() } else { pivot };
            fw_tile_update!($b, $t3, $n, $q, pitch, own: own(), a: a, b: b);
        }

        /// Phase 3: every block outside the pivot row and column, from the (final) pivot-column
        /// block of its row (A) and pivot-row block of its column (B) (`fw_tile_update!`).
        ///
        /// # Safety
        /// `d` must point to the padded distance matrix on the device: `rounds * B` rows of `pitch`
        /// i32, `pitch` at least `rounds * B` and a multiple of `PITCH_ALIGN`, fewer than 2^32
        /// cells in all (32-bit offsets); `round` < `rounds`; the launch must use this block
        /// factor's `FwConfig` geometry (phase 1: one block; phase 2: grid `(rounds, 2)`; phase 3:
        /// grid `(rounds, rounds)`), and the phases of a round must run in order, each launch alone
        /// on the matrix.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $phase3(d: *mut i32, pitch: u32, round: u32) {
            let (bj, bi) = (thread::block_idx_x(), thread::block_idx_y());
            if bi == round || bj == round {
                return;
            }
            let own = || block_at::<$b>(d, pitch, thread::block_idx_y(), thread::block_idx_x());
            fw_tile_update!($b, $t3, $n, $q, pitch, own: own(),
                a: block_at::<$b>(d, pitch, bi, round), b: block_at::<$b>(d, pitch, round, bj));
        }
    };
}

macro_rules! fw_kernels {
    ($(($phase1:ident, $phase2:ident, $phase3:ident, $b:tt, $t:tt, $r:tt, $l:ident($t3:tt, $n:tt $(, $q:tt)?),
        $cap:ident)),* $(,)?) => {$(
        /// Phase 1: closes the pivot block `(round, round)`. One block.
        ///
        /// # Safety
        /// `d` must point to the padded distance matrix on the device: `rounds * B` rows of `pitch`
        /// i32, `pitch` at least `rounds * B` and a multiple of `PITCH_ALIGN`, fewer than 2^32
        /// cells in all (32-bit offsets); `round` < `rounds`; the launch must use this block
        /// factor's `FwConfig` geometry (phase 1: one block; phase 2: grid `(rounds, 2)`; phase 3:
        /// grid `(rounds, rounds)`), and the phases of a round must run in order, each launch alone
        /// on the matrix.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $phase1(d: *mut i32, pitch: u32, round: u32) {
            fw_pivot_block!($b, $t, $r, block_at::<$b>(d, pitch, round, round), pitch);
        }

        fw_phase23!($l, $phase2, $phase3, $b, $t, $r, $t3, $n $(, $q)?);
    )*};
}

for_each_fw!(fw_kernels);

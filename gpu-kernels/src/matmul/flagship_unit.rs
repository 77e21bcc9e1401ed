//! What the flagship kernels of `flagship.rs` (N,N, plain and batched) and `flagship_t.rs`
//! (batched, transposed operations) share outside the k-loop (`flagship_pipeline.rs`): the
//! geometry constants of a row, the operands of a block's problem, the accumulators'
//! 4-vectors, and the end of a unit (C stored, or the stream-K fix-up of a split tile).
//! `flagship_ops.rs` shares `flagship_shape_consts!` and `acc4!` only (its copies differ and
//! its fix-up sums in groups).
//!
//! Macros rather than functions: they are expanded inside each generated kernel with that
//! kernel's constants, to the very tokens each file held before (their PTX is unchanged, and
//! the N,N kernels' speed rests on ptxas's allocation of exactly that PTX: docs/matmul.md,
//! "What limits it at 4096").

/// The 4 accumulators of row `r`, columns `4h..4h + 4` of a thread tile.
macro_rules! acc4 {
    ($acc:ident, $r:expr, $h:expr) => {
        [
            $acc[$r][$h * 4],
            $acc[$r][$h * 4 + 1],
            $acc[$r][$h * 4 + 2],
            $acc[$r][$h * 4 + 3],
        ]
    };
}

/// Operand `$f` (`a`, `b` or `c`) of this block's problem: `p.$f` for a plain kernel; for a
/// batched one, offset by `blockIdx.y · q.$s`, with `blockIdx.y` read afresh at each use so that
/// no offset pointer stays live through the main loop (which would change ptxas's allocation
/// of it, see the unit loop in `flagship.rs`).
macro_rules! fbase {
    (plain, $p:ident, $q:ident, $f:ident, $s:ident) => {
        $p.$f
    };
    (batched, $p:ident, $q:ident, $f:ident, $s:ident) => {
        $p.$f
            .wrapping_add(fresh_ctaid_y() as usize * $q.$s as usize)
    };
}

/// The parameters the epilogue stores C with: `&p`, or for a batched kernel `p` with `c`
/// offset to this block's problem.
macro_rules! fepi {
    (plain, $p:ident, $q:ident) => {
        &$p
    };
    (batched, $p:ident, $q:ident) => {
        &SgemmParams {
            c: fbase!(batched, $p, $q, c, stride_c),
            ..$p
        }
    };
}

/// The shape constants of every flagship kernel (`flagship.rs`, `flagship_t.rs`,
/// `flagship_ops.rs`): the block tile `BM x BN x BK`, `NW` warps (`NT` threads) as a grid of
/// `WN` columns owning `WTM x WTN` each, lanes as `LY x LX`, `STAGES` k-slices in flight.
macro_rules! flagship_shape_consts {
    (tile: $bm:tt x $bn:tt x $bk:tt, warps: $wm:tt x $wn:tt, lanes: $ly:tt x $lx:tt,
     stages: $st:tt) => {
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
    };
}

/// The geometry constants of a flagship row (`for_each_flagship!`'s fields) that the N,N and the
/// transposed kernels share, with their compile-time checks: the tile, warp and lane shapes, the
/// A slice (transposed, pitch `BM + 4`), the stage size with the B slice's row pitch `$bp`
/// (`BN`, or `BN + 4` where B is copied transposing), and the straight B copies. Items, so
/// they are in scope in the calling kernel's body.
macro_rules! flagship_tile_consts {
    (tile: $bm:tt x $bn:tt x $bk:tt, warps: $wm:tt x $wn:tt, lanes: $ly:tt x $lx:tt,
     stages: $st:tt, vec_b: $vec:tt, thread_tile: $rm:tt x $rn:tt, groups: $ga:tt x $gb:tt,
     a_copies: $al:tt, b_copies: $bl:tt, ffma_order: $ord:ident, pitch_b: $bp:ident) => {
        flagship_shape_consts! { tile: $bm x $bn x $bk, warps: $wm x $wn, lanes: $ly x $lx, stages: $st }
        const VEC: bool = $vec;
        /// Row pitch of the transposed A slice, in floats.
        const AP: u32 = BM + 4;
        const A_BYTES: u32 = 4 * BK * AP;
        const STAGE_BYTES: u32 = A_BYTES + 4 * BK * $bp;
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
            assert!(order_is_permutation($rm, $rn, FfmaOrder::$ord));
        };
    };
}

/// The end of a unit, after `flagship_k_loop!`: the thread and block index read afresh and the
/// unit recomputed from the stashed position; then `$acc` stored to C (`alpha·acc + beta·C`)
/// when the unit is a whole tile, else stored to the stream-K workspace, and the tile summed and
/// stored by the block that completes it; `$it` advanced past the unit. `$mode` (`plain` or
/// `batched`), `$p` and `$bq` as for `fbase!`; `$m`, `$n` the problem's size, `$ktiles` its
/// k-slices. Uses the calling kernel's tile constants, `NT` and `STASH`.
macro_rules! flagship_unit_end {
    ($mode:ident, $p:ident, $bq:ident, $smem:ident, $split:ident, $acc:ident, $it:ident;
     size: $m:ident x $n:ident, ktiles: $ktiles:ident, thread_tile: $rm:tt x $rn:tt,
     groups: $ga:tt x $gb:tt) => {
        let (tid, pid) = (fresh_tid_x(), fresh_ctaid_x());
        let (warp, lane) = (tid / 32, tid % 32);
        // SAFETY: this thread's own stash word, stored by it at the unit's start
        // (see there).
        let [at] = unsafe { ld_shared::<1>($smem + STASH + 4 * tid) };
        let (tile, kb, ke) = $split.unit(at, $split.range(pid).1);
        let (m0, n0) = tile_origin::<BM, BN>(&$p, tile);

        let fast = m0 + BM <= $m && n0 + BN <= $n && $p.ldc % 4 == 0 && (fbase!($mode, $p, $bq, c, stride_c) as usize) % 16 == 0;
        let row0 = m0 + warp / WN * WTM + lane / LX * 4;
        let col0 = n0 + warp % WN * WTN + lane % LX * 4;
        if kb == 0 && ke == $ktiles {
            seq!(G in 0..$ga {
                seq!(I in 0..4 {
                    seq!(H in 0..$gb {
                        let v = acc4!($acc, G * 4 + I, H);
                        // SAFETY: `store4`'s contract: `p` is the launch's, the cell is in
                        // this block's tile (row0 + G * LY * 4 + I < m0 + BM, column < n0 +
                        // BN), stored by this thread only; `fast` only when the tile is
                        // inside C and C aligned.
                        unsafe { store4(fepi!($mode, $p, $bq), row0 + G * LY * 4 + I, col0 + H * LX * 4, v, fast) };
                    });
                });
            });
        } else {
            // A tile split over several blocks: every segment stores its sums, and
            // the block that completes the set adds them up from memory, segment 0
            // first (stream_k.rs). The accumulators are only ever stored, in one
            // straight run: summed from registers by the last block instead, they cost
            // ptxas's allocation of the main loop (552 conflicted FFMAs per k-slice
            // instead of 179).
            let slot = $split.slot(pid, tile);
            seq!(G in 0..$ga {
                seq!(I in 0..4 {
                    seq!(H in 0..$gb {{
                        const Q: u32 = (G * 4 + I) * $gb + H;
                        let v = acc4!($acc, G * 4 + I, H);
                        seq!(J in 0..4 {
                            let idx = partial_index::<NT, { BM * BN }>(slot, 4 * Q + J, tid);
                            // SAFETY: `idx` < 2 * sk_blocks * BM * BN (slot < 2 *
                            // sk_blocks, accumulator < BM * BN / NT, tid < NT), inside
                            // `partials` (a split tile means sk_blocks > 0); each (slot,
                            // accumulator, thread) is stored by one thread.
                            unsafe { st_global_cg($p.partials.add(idx) as *mut u32, v[J].to_bits()) };
                        });
                    }});
                });
            });
            let (seg0, nseg) = $split.segments(tile);
            // SAFETY: `p` is the launch's and `tile` a split tile, below sk_tiles.
            if unsafe { stream_k_count(&$p, tile, nseg) } {
                let mut q = 0;
                while q < $rm * $rn / 4 {
                    // 4-vector q = (G*4 + I)*GB + H, as stored above.
                    let (g, i, h) = (q / 4 / $gb, q / $gb % 4, q % $gb);
                    // SAFETY: as `stream_k_sum` requires: `q` < RM * RN / 4, the segments'
                    // stores made visible by `stream_k_count`.
                    let v = unsafe {
                        stream_k_sum::<NT, { BM * BN }>(&$p, &$split, tile, seg0, nseg, q)
                    };
                    // SAFETY: as the data-parallel store above.
                    unsafe { store4(fepi!($mode, $p, $bq), row0 + g * LY * 4 + i, col0 + h * LX * 4, v, fast) };
                    q += 1;
                }
                if tid == 0 {
                    // Ready for the next launch.
                    // SAFETY: `tile` < sk_tiles: its counter; every segment has counted, so
                    // no block touches it again in this launch.
                    unsafe { st_relaxed_gpu($p.counters.add(tile as usize), 0) };
                }
            }
        }
        $it = at + ke - kb;
    };
}

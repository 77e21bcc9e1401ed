//! Floyd–Warshall on float weights (`f32`, `f64`; the Python package's `floyd_warshall`, with
//! scipy's conventions: `+inf` for no edge, negative weights allowed). Same three phases per
//! round as the int32 solver (`fw.rs`), on a padded matrix of `W` with row pitch `pitch` cells,
//! kernel arguments `(d, pitch, round)`; the bodies are in `fw_float.rs`.
//!
//! `+inf` needs no special case: `inf + w = inf` and `min(x, inf) = x`, so padding is `+inf`.
//! Phase 1 updates the pivot block in place, which is race-free while the diagonal stays 0:
//! then row k and column k do not change in step k. That holds with negative weights as long
//! as there is no negative cycle; with one, some diagonal entry ends negative (every stored
//! value is the length of a walk and values only decrease), which is how the host detects it.

/// One float Floyd–Warshall instantiation (one weight type, one phase-2/3 tile shape).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FwFloatConfig {
    /// `"f32"` or `"f64"`.
    pub weight: &'static str,
    /// The tile shape's name, unique per weight (`host apsp-float --variants` picks by it).
    pub variant: &'static str,
    /// Bytes per cell.
    pub cell_bytes: u32,
    /// Block factor B: the padded matrix is a multiple of B.
    pub block: u32,
    /// Phase 1: `pivot_threads x pivot_threads` threads, `(B / pivot_threads)^2` cells each.
    pub pivot_threads: u32,
    /// Phases 2–3: `tile_threads_x x tile_threads_y` threads (block x, y), each with
    /// `tile_rows x tile_cols` cells (`tile_threads_y * tile_rows = B = tile_threads_x * tile_cols`).
    pub tile_threads_x: u32,
    pub tile_threads_y: u32,
    pub tile_rows: u32,
    pub tile_cols: u32,
    /// Depth (values of k) of the operand slices staged in shared memory at a time.
    pub k_chunk: u32,
    /// 1: the slices one after the other; 2: double-buffered (the next slice's copies are in
    /// flight while the current one is used); 3: a ring of 3 stages, the copies two slices
    /// ahead and one barrier per slice (A rows unpadded and swizzled, as with two own blocks).
    pub stages: u32,
    /// Values of k per shared load of the A operand (4: one 16-byte f32 load per row, 2: half
    /// as many A registers live at once, for a lower register count).
    pub a_load_k: u32,
    pub phase1: &'static str,
    pub phase2: &'static str,
    pub phase3: &'static str,
    /// The add-min throughput kernel of this weight type (the ceiling phase 3 is measured against).
    pub peak: &'static str,
    /// The register cap (`.maxnreg`) phases 2–3 are compiled under, if any: fewer registers,
    /// more blocks per SM (the shared memory of a block must allow as many).
    pub max_registers: Option<u32>,
    /// When phase 3 reads its own cells: before the product (`false`), or at the end, folded
    /// into it, with the block asked of L2 at the start (`true`: the DRAM read overlaps the
    /// product; `fwf_tile_update!`).
    pub own_late: bool,
    /// Blocks per SM ahead in launch order whose own block phase 3 asks L2 for at its start
    /// (0: none): about one wave later, when that many blocks of it fit an SM.
    pub prefetch_ahead: u32,
    /// The A operand copied through L1 (`cp.async.ca`), where the blocks of an SM share it.
    pub a_via_l1: bool,
    /// The operand copies as straight-line code from one 32-bit offset per thread and operand
    /// (`true`), or as a loop over the block's 16-byte quads with the offset of each
    /// recomputed (`false`, the first version: a few hundred more instructions per block).
    pub lean_copy: bool,
    /// Phase 3's operand and own-block addresses from opaque 64-bit base pointers plus 32-bit
    /// offsets (`true`, list words `lean32`/`loop32`): the own cells by row (the columns an
    /// immediate offset), so that the prologue and epilogue spend 2–3 instructions per address
    /// instead of 5 and keep no offsets live across the k loop.
    pub offsets32: bool,
    /// Phase 3's A rows padded by 16 bytes instead of 4 cells (list words `lean32p`,
    /// `lean32x`; the same for f32): for f64 a pad of 4 cells puts rows 4 apart, the two rows a
    /// warp's A load reads, in the same banks; 2 cells do not.
    pub a_pad16: bool,
    /// Phase 3's columns in pairs (`lean32x`): a thread's columns `(Q / 2) · 2TX + 2tx + Q % 2`
    /// instead of groups of 4, so that a warp's 16-byte B loads read 256 contiguous bytes (2
    /// shared-memory wavefronts) instead of 16 quads 32 bytes apart (4). 32-bit offsets only.
    pub b_pairs: bool,
    /// Own blocks per phase-3 block (1 or 2): with 2, a block of `tile_threads_x x 2 ·
    /// tile_threads_y` threads updates two blocks of one block row, side by side, from one
    /// copy of their shared A operand (stored without padding, swizzled instead, so that A and
    /// both B slices fit 48 KB); phase 2 stays one own block per block.
    pub phase3_tiles: u32,
    /// Steps of the k loop per iteration (1 or 2): 2 lets ptxas overlap one step's shared
    /// loads with the previous step's updates.
    pub k_unroll: u32,
    /// Phase 3 as a persistent kernel (`true`, `fw_float_persist.rs`): a grid of the blocks
    /// that fit the GPU at once ([`FwFloatConfig::phase3_items`] work items walked by each),
    /// the operand slices streamed through 2 stages across items, lean copies; phase 2 then
    /// runs the same tile shape with one stage. `false`: one block per work item.
    pub persistent: bool,
    /// Phases 2–3 with the A operand stored k-major in shared memory (list word `tgrid`,
    /// `fw_float_at.rs`): f32, 8 x 8 threads of 8 x 8 cells per own block, k slices of 64
    /// or 32; two 16-byte loads of A and two of B per k, 16 operand registers instead of 40,
    /// so that two own blocks per block fit 128 registers (4 blocks, 16 warps per SM; 32-deep
    /// slices under 96, for 5 blocks, spill).
    pub a_transposed: bool,
    /// For values in +0 ..= +inf only (list word `tgridnn`, an `a_transposed` f32 shape): phase
    /// 3 takes two k of a cell per 3-input integer min of the bit patterns (`add_min2_nonneg`,
    /// `float_cell.rs`), 1.5 instructions per add-min instead of 2, against its own ceiling
    /// ([`FLOAT_NONNEG_PEAK`]); phase 2 stays the general product. Exact on such matrices and
    /// wrong on others, so the host runs it only after checking that no cell is negative, -0
    /// or NaN. The first such row of a type is its default for those matrices.
    pub nonneg: bool,
}

impl FwFloatConfig {
    /// Shared memory of one phase-2/3 block: per stage, the A slice (B rows of `k_chunk + 4`
    /// cells) and the B slice (`k_chunk` rows of B cells).
    pub const fn tile_shared_bytes(&self) -> u32 {
        // A ring of 3 stages and A^T store A unpadded (swizzled); otherwise phase 2 pads 4
        // cells, phase 3 with `a_pad16` 16 bytes (at most 4 cells).
        let row = if self.stages == 3 || self.a_transposed {
            self.k_chunk
        } else {
            self.k_chunk + 4
        };
        self.phase2_stages() * (self.block * row + self.k_chunk * self.block) * self.cell_bytes
    }

    /// Stages of phase 2 (a persistent phase 3's stages stream across its items; phase 2
    /// stages its slices one after the other).
    pub const fn phase2_stages(&self) -> u32 {
        if self.persistent { 1 } else { self.stages }
    }

    /// Work items of a `rounds`-round solve's phase 3 in a persistent kernel: the rows off the
    /// pivot times the groups of `phase3_tiles` blocks off the pivot in each (0 for one round).
    pub const fn phase3_items(&self, rounds: u32) -> u32 {
        let off = rounds.saturating_sub(1);
        off * off.div_ceil(self.phase3_tiles)
    }

    /// Add-mins per thread per loop iteration of [`FwFloatConfig::peak`]: the `nonneg` ceiling
    /// does two per update.
    pub const fn peak_updates_per_iteration(&self) -> u32 {
        if self.nonneg {
            2 * FLOAT_PEAK_UPDATES_PER_ITERATION
        } else {
            FLOAT_PEAK_UPDATES_PER_ITERATION
        }
    }

    /// Threads of one phase-2/3 block.
    pub const fn tile_threads(&self) -> u32 {
        self.tile_threads_x * self.tile_threads_y
    }

    /// Shared memory of one phase-3 block: one A slice (unpadded when it serves two own
    /// blocks) and a B slice per own block, per stage.
    pub const fn phase3_shared_bytes(&self) -> u32 {
        if self.persistent {
            // Two stages; A rows unpadded where they are a multiple of 128 bytes (swizzled).
            let row = if (self.k_chunk * self.cell_bytes).is_multiple_of(128) {
                self.k_chunk
            } else {
                self.k_chunk + 4
            };
            return 2
                * (self.block * row + self.k_chunk * self.block * self.phase3_tiles)
                * self.cell_bytes;
        }
        if self.phase3_tiles == 1 {
            return self.tile_shared_bytes();
        }
        self.stages * self.k_chunk * self.block * (1 + self.phase3_tiles) * self.cell_bytes
    }

    /// Threads (x, y) of one phase-3 block: the own blocks' thread tiles stacked along y.
    pub const fn phase3_threads(&self) -> (u32, u32) {
        (self.tile_threads_x, self.tile_threads_y * self.phase3_tiles)
    }

    /// Phase-3 grid (x, y) of a `rounds`-round solve (not persistent; a persistent phase 3 runs
    /// `(co-resident blocks, 1)`, capped at [`FwFloatConfig::phase3_items`]): x walks the block row's own blocks
    /// (`phase3_tiles` per block; with 2, the `rounds - 1` blocks off the pivot column in pairs,
    /// at least one block), y the block rows (the pivot row's blocks return at once).
    pub const fn phase3_grid(&self, rounds: u32) -> (u32, u32) {
        if self.phase3_tiles == 1 {
            return (rounds, rounds);
        }
        let pairs = rounds.saturating_sub(1).div_ceil(self.phase3_tiles);
        (if pairs == 0 { 1 } else { pairs }, rounds)
    }
}

/// Invokes `$m!` with, for each weight type, `(type, bytes, phase1, peak, B, pivot_threads,
/// pivot_cells)`: the single source of [`FLOAT_TYPES`] and of the kernels that do not depend on
/// the tile shape (phase 1 and the add-min ceiling, `fw_float.rs`).
macro_rules! for_each_float_type {
    ($m:ident) => {
        $m! {
            (f32, 4, fwf32_phase1_b64, apsp_addmin_peak_f32, 64, 16, 4),
            (f64, 8, fwf64_phase1_b64, apsp_addmin_peak_f64, 64, 16, 4),
        }
    };
}

/// Invokes `$m!` with, for each weight type and phase-2/3 tile shape, `(variant, phase2,
/// phase3, type, threads_x, threads_y, rows, cols, k_chunk, stages, a_load_k, cap, [own,
/// ahead, a_copy, copy, tiles, unroll, sched])` (`cap`: `none` or the `.maxnreg` of phases 2–3;
/// `own`: `early` or `late`, `ahead`: blocks per SM, `a_copy`: `cg` or `ca`, `copy`: `loop` or
/// `lean`, or `loop32`/`lean32` (with [`FwFloatConfig::offsets32`]), `lean32p` (`lean32` with
/// [`FwFloatConfig::a_pad16`]) or `lean32x` (and [`FwFloatConfig::b_pairs`]), `tiles`: own blocks per phase-3 block, `unroll`: k steps per loop iteration, `sched`:
/// `grid` (a block per work item), `persist` (`persistent`), `tgrid` (a block per work item,
/// A transposed: `a_transposed`) or `tgridnn` (`tgrid` for values in +0 ..= +inf only:
/// `nonneg`), as the fields of
/// [`FwFloatConfig`]): the
/// single source of
/// [`FW_FLOAT`], the phase-2/3 kernels in `fw_float.rs` and their registry rows. The first row
/// of each type is its default (the one `floyd_warshall` runs; on a matrix without negative
/// values, -0 or NaN, the type's first `tgridnn` row); the others are alternatives
/// `host apsp-float` times against it. A block's operands stay under the 48 KB of static
/// shared memory.
macro_rules! for_each_fw_float {
    ($m:ident) => {
        $m! {
            (t8x8_k64_pair_at_u2_r128, fwf32tb_phase2_b64, fwf32tb_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, 128, [early, 0, cg, lean32, 2, 2, tgrid]),
            (t8x8_k64_pair_at_r168_nn, fwf32zf_phase2_b64, fwf32zf_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, 168, [early, 0, cg, lean32, 2, 1, tgridnn]),
            (t8x8_k64_pair_at_u2_r168_nn, fwf32zc_phase2_b64, fwf32zc_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, 168, [early, 0, cg, lean32, 2, 2, tgridnn]),
            (t8x8_k32_pair_at_u2_r128_nn, fwf32zd_phase2_b64, fwf32zd_phase3_b64, f32, 8, 8, 8, 8, 32, 1, 4, 128, [early, 0, cg, lean32, 2, 2, tgridnn]),
            (t8x8_k32_pair_at_r128_nn, fwf32ze_phase2_b64, fwf32ze_phase3_b64, f32, 8, 8, 8, 8, 32, 1, 4, 128, [early, 0, cg, lean32, 2, 1, tgridnn]),
            (t8x8_k64_pair_u2_o32, fwf32w_phase2_b64, fwf32w_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, 168, [early, 0, cg, lean32, 2, 2, grid]),
            (t8x8_k64_pair_u2, fwf32r_phase2_b64, fwf32r_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, 168, [early, 0, cg, lean, 2, 2, grid]),
            (t8x8_k64_lean_o32, fwf32x_phase2_b64, fwf32x_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, none, [early, 0, cg, lean32, 1, 1, grid]),
            (t8x8_k64_pair_a2_o32_r128, fwf32y_phase2_b64, fwf32y_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 2, 128, [early, 0, cg, lean32, 2, 1, grid]),
            (t8x8_k32_a2_o32_r128, fwf32q_phase2_b64, fwf32q_phase3_b64, f32, 8, 8, 8, 8, 32, 1, 2, 128, [early, 0, cg, lean32, 1, 1, grid]),
            (t8x8_k64, fwf32_phase2_b64, fwf32_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, none, [early, 0, cg, loop, 1, 1, grid]),
            (t8x8_k64_lean, fwf32n_phase2_b64, fwf32n_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, none, [early, 0, cg, lean, 1, 1, grid]),
            (t8x8_k64_lean_u2, fwf32o_phase2_b64, fwf32o_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, none, [early, 0, cg, lean, 1, 2, grid]),
            (t8x8_k64_pair, fwf32p_phase2_b64, fwf32p_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, none, [early, 0, cg, lean, 2, 1, grid]),
            (t8x8_k64_late, fwf32i_phase2_b64, fwf32i_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, none, [late, 0, cg, loop, 1, 1, grid]),
            (t8x8_k64_late_ca, fwf32j_phase2_b64, fwf32j_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, none, [late, 0, ca, loop, 1, 1, grid]),
            (t8x8_k32x2_late, fwf32m_phase2_b64, fwf32m_phase3_b64, f32, 8, 8, 8, 8, 32, 2, 4, none, [late, 0, cg, loop, 1, 1, grid]),
            (t8x8_k32x2, fwf32a_phase2_b64, fwf32a_phase3_b64, f32, 8, 8, 8, 8, 32, 2, 4, none, [early, 0, cg, loop, 1, 1, grid]),
            (t8x8_k32_r128, fwf32f_phase2_b64, fwf32f_phase3_b64, f32, 8, 8, 8, 8, 32, 1, 4, 128, [early, 0, cg, loop, 1, 1, grid]),
            (t8x8_k64_a2, fwf32g_phase2_b64, fwf32g_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 2, none, [early, 0, cg, loop, 1, 1, grid]),
            (t8x8_k32_a2_r128, fwf32h_phase2_b64, fwf32h_phase3_b64, f32, 8, 8, 8, 8, 32, 1, 2, 128, [early, 0, cg, loop, 1, 1, grid]),
            (t8x8_k32_pair_u2_ps, fwf32s_phase2_b64, fwf32s_phase3_b64, f32, 8, 8, 8, 8, 32, 2, 4, 168, [early, 0, cg, lean, 2, 2, persist]),
            (t8x8_k16_pair_u2_ps, fwf32t_phase2_b64, fwf32t_phase3_b64, f32, 8, 8, 8, 8, 16, 2, 4, 168, [early, 0, cg, lean, 2, 2, persist]),
            (t8x8_k32_pair_ps, fwf32u_phase2_b64, fwf32u_phase3_b64, f32, 8, 8, 8, 8, 32, 2, 4, none, [early, 0, cg, lean, 2, 1, persist]),
            (t8x8_k32_u2_ps, fwf32v_phase2_b64, fwf32v_phase3_b64, f32, 8, 8, 8, 8, 32, 2, 4, none, [early, 0, cg, lean, 1, 2, persist]),
            (t8x8_k64_pair_at_r128, fwf32ta_phase2_b64, fwf32ta_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, 128, [early, 0, cg, lean32, 2, 1, tgrid]),
            (t8x8_k64_pair_at_r168, fwf32tc_phase2_b64, fwf32tc_phase3_b64, f32, 8, 8, 8, 8, 64, 1, 4, 168, [early, 0, cg, lean32, 2, 1, tgrid]),
            (r8c4_k32_a2_r128_lean32x, fwf64w_phase2_b64, fwf64w_phase3_b64, f64, 16, 8, 8, 4, 32, 1, 2, 128, [early, 0, cg, lean32x, 1, 1, grid]),
            (r8c4_k32_a2_r128_lean32, fwf64q_phase2_b64, fwf64q_phase3_b64, f64, 16, 8, 8, 4, 32, 1, 2, 128, [early, 0, cg, lean32, 1, 1, grid]),
            (r8c4_k32_a2_r128, fwf64f_phase2_b64, fwf64f_phase3_b64, f64, 16, 8, 8, 4, 32, 1, 2, 128, [early, 0, cg, loop, 1, 1, grid]),
            (r8c4_k16x3_a2_r128, fwf64r_phase2_b64, fwf64r_phase3_b64, f64, 16, 8, 8, 4, 16, 3, 2, 128, [early, 0, cg, loop, 1, 1, grid]),
            (r8c4_k16x3_a2_r128_o32, fwf64s_phase2_b64, fwf64s_phase3_b64, f64, 16, 8, 8, 4, 16, 3, 2, 128, [early, 0, cg, loop32, 1, 1, grid]),
            (r8c4_k16x3_a2_r128_lean32, fwf64u_phase2_b64, fwf64u_phase3_b64, f64, 16, 8, 8, 4, 16, 3, 2, 128, [early, 0, cg, lean32, 1, 1, grid]),
            (r8c4_k16_a2_ps, fwf64t_phase2_b64, fwf64t_phase3_b64, f64, 16, 8, 8, 4, 16, 2, 2, none, [early, 0, cg, lean, 1, 1, persist]),
            (r8c4_k32_a2_r128_pair, fwf64n_phase2_b64, fwf64n_phase3_b64, f64, 16, 8, 8, 4, 32, 1, 2, 128, [early, 0, cg, lean, 2, 1, grid]),
            (r8c4_k32_a2_r128_pf4, fwf64j_phase2_b64, fwf64j_phase3_b64, f64, 16, 8, 8, 4, 32, 1, 2, 128, [early, 4, cg, loop, 1, 1, grid]),
            (r8c4_k32_a2_r128_pf4_ca, fwf64k_phase2_b64, fwf64k_phase3_b64, f64, 16, 8, 8, 4, 32, 1, 2, 128, [early, 4, ca, loop, 1, 1, grid]),
            (r8c4_k32_a2_r128_pf8, fwf64l_phase2_b64, fwf64l_phase3_b64, f64, 16, 8, 8, 4, 32, 1, 2, 128, [early, 8, cg, loop, 1, 1, grid]),
            (r8c4_k32, fwf64d_phase2_b64, fwf64d_phase3_b64, f64, 16, 8, 8, 4, 32, 1, 4, none, [early, 0, cg, loop, 1, 1, grid]),
            (r8c4_k16x2, fwf64b_phase2_b64, fwf64b_phase3_b64, f64, 16, 8, 8, 4, 16, 2, 4, none, [early, 0, cg, loop, 1, 1, grid]),
            (t4x4_k32, fwf64_phase2_b64, fwf64_phase3_b64, f64, 16, 16, 4, 4, 32, 1, 4, none, [early, 0, cg, loop, 1, 1, grid]),
            (r4c8_k16x2, fwf64c_phase2_b64, fwf64c_phase3_b64, f64, 8, 16, 4, 8, 16, 2, 4, none, [early, 0, cg, loop, 1, 1, grid]),
            (r8c4_k32_a2, fwf64e_phase2_b64, fwf64e_phase3_b64, f64, 16, 8, 8, 4, 32, 1, 2, none, [early, 0, cg, loop, 1, 1, grid]),
            (t8x8_k16_a2, fwf64g_phase2_b64, fwf64g_phase3_b64, f64, 8, 8, 8, 8, 16, 1, 2, none, [early, 0, cg, loop, 1, 1, grid]),
        }
    };
}

/// What the kernels of one weight type share, whatever the tile shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatType {
    pub weight: &'static str,
    pub cell_bytes: u32,
    pub phase1: &'static str,
    pub peak: &'static str,
    pub block: u32,
    pub pivot_threads: u32,
}

macro_rules! float_type_table {
    ($(($ty:ident, $bytes:tt, $p1:ident, $peak:ident, $b:tt, $t1:tt, $r:tt)),* $(,)?) => {
        /// Every float weight type: f32, then f64.
        pub const FLOAT_TYPES: [FloatType; [$(stringify!($ty)),*].len()] = [$(FloatType {
            weight: stringify!($ty),
            cell_bytes: $bytes,
            phase1: stringify!($p1),
            peak: stringify!($peak),
            block: $b,
            pivot_threads: $t1,
        }),*];
    };
}
for_each_float_type!(float_type_table);

/// The row of [`FLOAT_TYPES`] for `weight` (a type the lists name).
pub(super) const fn float_type(weight: &str) -> FloatType {
    let mut i = 0;
    while i < FLOAT_TYPES.len() {
        if eq(FLOAT_TYPES[i].weight, weight) {
            return FLOAT_TYPES[i];
        }
        i += 1;
    }
    panic!("a float variant of a type without kernels")
}

macro_rules! fw_float_table {
    ($(($v:ident, $p2:ident, $p3:ident, $ty:ident, $tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt,
        $st:tt, $ak:tt, $cap:tt, [$own:ident, $pf:tt, $acp:ident, $cpy:ident, $tl:tt, $un:tt,
        $sch:ident])),* $(,)?) => {
        /// Every float weight type's phase-2/3 tile shapes with their kernels and launch
        /// geometry: f32's, then f64's, each type's default first.
        pub const FW_FLOAT: [FwFloatConfig; [$(stringify!($v)),*].len()] = [$({
            let t = float_type(stringify!($ty));
            FwFloatConfig {
                weight: t.weight,
                variant: stringify!($v),
                cell_bytes: t.cell_bytes,
                block: t.block,
                pivot_threads: t.pivot_threads,
                tile_threads_x: $tx,
                tile_threads_y: $tyn,
                tile_rows: $cr,
                tile_cols: $cc,
                k_chunk: $kc,
                stages: $st,
                a_load_k: $ak,
                phase1: t.phase1,
                phase2: stringify!($p2),
                phase3: stringify!($p3),
                peak: if fw_float_nonneg!($sch) { FLOAT_NONNEG_PEAK } else { t.peak },
                max_registers: fw_float_cap!($cap),
                own_late: fw_float_word!($own),
                prefetch_ahead: $pf,
                a_via_l1: fw_float_word!($acp),
                lean_copy: fw_float_word!($cpy),
                offsets32: fw_float_offsets32!($cpy),
                a_pad16: fw_float_pad16!($cpy),
                b_pairs: fw_float_pairs!($cpy),
                phase3_tiles: $tl,
                k_unroll: $un,
                persistent: fw_float_word!($sch),
                a_transposed: fw_float_transposed!($sch),
                nonneg: fw_float_nonneg!($sch),
            }
        }),*];
    };
}
for_each_fw_float!(fw_float_table);

/// The add-min ceiling of the f32 [`FwFloatConfig::nonneg`] kernels (`fw_float.rs`).
pub const FLOAT_NONNEG_PEAK: &str = "apsp_addmin_peak_f32nn";

/// Threads per block of the float peak kernels (as the int32 one).
pub const FLOAT_PEAK_THREADS: u32 = super::PEAK_THREADS;
/// Add-mins per thread per loop iteration of the float peak kernels (as the int32 one).
pub const FLOAT_PEAK_UPDATES_PER_ITERATION: u32 = super::PEAK_UPDATES_PER_ITERATION;

/// `a == b` in a const context (list checks, `float_type`).
pub(super) const fn eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The default configuration for weights of `weight` (`"f32"` or `"f64"`), for any signs.
pub fn fw_float_config(weight: &str) -> Option<FwFloatConfig> {
    fw_float_variants(weight).next()
}

/// The default configuration for matrices of `weight` whose every value is in +0 ..= +inf:
/// the first [`FwFloatConfig::nonneg`] row of the type, or the type's default where it has
/// none (f64).
pub fn fw_float_config_nonneg(weight: &str) -> Option<FwFloatConfig> {
    fw_float_variants(weight)
        .find(|c| c.nonneg)
        .or_else(|| fw_float_config(weight))
}

/// Every configuration for weights of `weight`, the default first.
pub fn fw_float_variants(weight: &str) -> impl Iterator<Item = FwFloatConfig> + '_ {
    FW_FLOAT.iter().copied().filter(move |c| c.weight == weight)
}

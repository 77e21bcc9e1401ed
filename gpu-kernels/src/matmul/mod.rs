//! SGEMM kernels, C = A·B for row-major f32 matrices whose sizes the host has padded to the
//! kernel's tile multiples (so kernels have no bounds branches).
//!
//! Every kernel takes `(a: *const f32, b: *const f32, c: *mut f32, n: u32, k: u32)`: `n` is the
//! padded column count of B and C, `k` the padded column count of A; the grid is
//! `(n / tile_n, m / tile_m)` blocks.
//!
//! The kernel lists (`for_each_*!`) are the single source of truth: the same list produces the
//! host-visible tables, the kernels, and their rows in [`crate::registry`]. The files are named
//! after the rungs of the SGEMM study the project follows (`r01_naive.rs` … `r11_double_buffer.rs`,
//! `ladder.rs`); rungs 3 and 6 (`r03_tiled.rs`, `r06_vectorized.rs`) have their lists here, the
//! flagship (`flagship.rs`) in `flagship_config.rs`, the skinny kernels for tiny M or N
//! (`skinny_rows.rs`, `skinny_rows_async.rs`, `skinny_cols.rs`, `skinny_reduce.rs`, `gemv.rs`) in `skinny.rs`, the batched kernel for
//! many small problems (`batched_small_kernel.rs`) in `batched_small.rs`.

/// Shared-memory tiled kernel, one output per thread, `tile x tile` threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TiledConfig {
    pub name: &'static str,
    pub tile: u32,
}

impl TiledConfig {
    pub const fn block_dim(&self) -> (u32, u32) {
        (self.tile, self.tile)
    }
    pub const fn tile_mnk(&self) -> (u32, u32, u32) {
        (self.tile, self.tile, self.tile)
    }
}

/// Vectorized tiled kernel: a block of `block[0] x block[1]` threads (x along columns), each
/// computing a register tile of `item[1]` rows x `item[0]` columns, with 128-bit global and shared
/// accesses. The block's output tile is `(block[1]*item[1]) x (block[0]*item[0])`; `tile_k` is the
/// depth of the A and B tiles staged in shared memory per step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VecConfig {
    pub name: &'static str,
    pub block: [u32; 2],
    pub item: [u32; 2],
    pub tile_k: u32,
}

impl VecConfig {
    pub const fn block_dim(&self) -> (u32, u32) {
        (self.block[0], self.block[1])
    }
    pub const fn threads(&self) -> u32 {
        self.block[0] * self.block[1]
    }
    pub const fn tile_m(&self) -> u32 {
        self.block[1] * self.item[1]
    }
    pub const fn tile_n(&self) -> u32 {
        self.block[0] * self.item[0]
    }
    pub const fn tile_mnk(&self) -> (u32, u32, u32) {
        (self.tile_m(), self.tile_n(), self.tile_k)
    }
    /// Static shared memory: the A tile stored transposed with 4 words of row padding, and the B tile.
    pub const fn shared_bytes(&self) -> u32 {
        4 * (self.tile_k * (self.tile_m() + 4) + self.tile_k * self.tile_n())
    }
}

/// Invokes `$m!` with `(name, tile, tile / 4)` for every tiled kernel (the quotient as a literal
/// for `seq!`).
macro_rules! for_each_tiled {
    ($m:ident) => {
        $m! {
            (matmul_tiled_t8, 8, 2),
            (matmul_tiled_t16, 16, 4),
            (matmul_tiled_t32, 32, 8),
        }
    };
}

/// Invokes `$m!` with, for every vectorized kernel, `(name, bx, by, vec, rpi, tk, w, g, aw, ra)`:
/// block `bx x by` threads, item `vec` columns x `rpi` rows, k-depth `tk`; and literals the
/// kernel needs for unrolling: B fragments as `g` vectors of `w` floats (vec = g*w), A fragments
/// as `ra` vectors of `aw` floats (rpi = ra*aw). These are the seed lab's configurations
/// (block work size x item work size), each with k-depth 32 and 64.
macro_rules! for_each_vectorized {
    ($m:ident) => {
        $m! {
            (matmul_vec_b16x16_i4x4_k32, 16, 16, 4, 4, 32, 4, 1, 4, 1),
            (matmul_vec_b16x16_i4x4_k64, 16, 16, 4, 4, 64, 4, 1, 4, 1),
            (matmul_vec_b32x4_i2x16_k32, 32, 4, 2, 16, 32, 2, 1, 4, 4),
            (matmul_vec_b32x4_i2x16_k64, 32, 4, 2, 16, 64, 2, 1, 4, 4),
            (matmul_vec_b32x16_i2x4_k32, 32, 16, 2, 4, 32, 2, 1, 4, 1),
            (matmul_vec_b32x16_i2x4_k64, 32, 16, 2, 4, 64, 2, 1, 4, 1),
            (matmul_vec_b16x4_i4x16_k32, 16, 4, 4, 16, 32, 4, 1, 4, 4),
            (matmul_vec_b16x4_i4x16_k64, 16, 4, 4, 16, 64, 4, 1, 4, 4),
            (matmul_vec_b16x64_i4x1_k32, 16, 64, 4, 1, 32, 4, 1, 1, 1),
            (matmul_vec_b16x64_i4x1_k64, 16, 64, 4, 1, 64, 4, 1, 1, 1),
            (matmul_vec_b8x2_i4x16_k32, 8, 2, 4, 16, 32, 4, 1, 4, 4),
            (matmul_vec_b8x2_i4x16_k64, 8, 2, 4, 16, 64, 4, 1, 4, 4),
        }
    };
}

macro_rules! tiled_table {
    ($(($name:ident, $tile:tt, $quads:tt)),* $(,)?) => {
        /// Every tiled kernel, smallest tile first.
        pub const TILED: &[TiledConfig] = &[$(TiledConfig { name: stringify!($name), tile: $tile }),*];
    };
}
for_each_tiled!(tiled_table);

macro_rules! vectorized_table {
    ($(($name:ident, $bx:tt, $by:tt, $vec:tt, $rpi:tt, $tk:tt, $w:tt, $g:tt, $aw:tt, $ra:tt)),* $(,)?) => {
        /// Every vectorized kernel.
        pub const VECTORIZED: &[VecConfig] = &[$(VecConfig {
            name: stringify!($name), block: [$bx, $by], item: [$vec, $rpi], tile_k: $tk,
        }),*];
    };
}
for_each_vectorized!(vectorized_table);

// Before the modules that expand them (macros are scoped by text).
#[macro_use]
mod ladder;
#[macro_use]
mod flagship_config;
#[macro_use]
pub mod skinny;
pub mod batched_small;
#[macro_use]
mod flagship_ops_config;
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod tile_macros;
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod flagship_pipeline;
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod flagship_unit;

pub use flagship_config::{FLAGSHIP, FfmaOrder, FlagshipConfig, SgemmParams};
pub use flagship_ops_config::{
    FLAGSHIP_BATCHED, FLAGSHIP_OPS, FLAGSHIP_T_U, FlagshipOpsConfig, Op, SgemmOpsParams,
};
pub use ladder::{
    AUTOTUNED, BANK, BLOCKTILE_1D, BLOCKTILE_2D, COALESCED, DOUBLE_BUFFER, NAIVE, RUNG_TABLES,
    Rung, RungConfig, WARPTILE,
};

#[cfg(target_arch = "nvptx64")]
mod r01_naive;
#[cfg(target_arch = "nvptx64")]
mod r02_coalesced;
#[cfg(target_arch = "nvptx64")]
mod r03_tiled;
#[cfg(target_arch = "nvptx64")]
mod r04_blocktile_1d;
#[cfg(target_arch = "nvptx64")]
mod r05_blocktile_2d;
#[cfg(target_arch = "nvptx64")]
mod r06_vectorized;
#[cfg(target_arch = "nvptx64")]
mod r07_bank;
#[cfg(target_arch = "nvptx64")]
mod r09_autotuned;
#[cfg(target_arch = "nvptx64")]
mod r10_warptile;
#[cfg(target_arch = "nvptx64")]
mod r11_double_buffer;

#[cfg(target_arch = "nvptx64")]
mod ffma_order;
#[cfg(target_arch = "nvptx64")]
mod flagship;
#[cfg(target_arch = "nvptx64")]
mod flagship_epilogue;
#[cfg(target_arch = "nvptx64")]
mod flagship_ops;
pub mod split_k;
pub mod stream_k;

#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod batched_small_tile;
#[cfg(target_arch = "nvptx64")]
mod batched_small_async;
#[cfg(target_arch = "nvptx64")]
mod batched_small_kernel;
#[cfg(target_arch = "nvptx64")]
mod skinny_cols;
#[cfg(target_arch = "nvptx64")]
mod skinny_reduce;
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod skinny_rows;
#[cfg(target_arch = "nvptx64")]
mod skinny_rows_async;
#[cfg(target_arch = "nvptx64")]
mod split_k_kernels;
// Last, so that the kernels before it come out as they were (flagship_t.rs).
#[cfg(target_arch = "nvptx64")]
mod flagship_t;
// After flagship_t, for the same reason (the matrix–vector kernels, session 10).
#[cfg(target_arch = "nvptx64")]
mod gemv;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectorized_configs_are_consistent() {
        for c in VECTORIZED {
            assert!(c.threads() <= 1024, "{}", c.name);
            assert!(
                c.shared_bytes() <= 48 * 1024,
                "{} needs {} B of static shared memory",
                c.name,
                c.shared_bytes()
            );
            // 128-bit tile loads: rows of the A and B tiles are whole float4s.
            assert_eq!(c.tile_k % 4, 0, "{}", c.name);
            assert_eq!(c.tile_n() % 4, 0, "{}", c.name);
            assert!(c.name.contains(&format!("_k{}", c.tile_k)), "{}", c.name);
        }
    }
}

//! The ladder of the SGEMM study the project follows (siboehm's SGEMM_CUDA): one kernel file per
//! rung (`r01_naive.rs` … `r11_double_buffer.rs`), each a port of the study's kernel with the
//! study's block and tile parameters. Rungs 3 (shared-memory caching) and 6 (vectorized) are the
//! `tiled` and `vectorized` lists in `mod.rs`.
use crate::family::Family;

/// A rung of the study's ladder, numbered as the study numbers its kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rung {
    Naive = 1,
    Coalesced,
    SharedCaching,
    Blocktile1d,
    Blocktile2d,
    Vectorized,
    BankLinearized,
    BankOffset,
    Autotuned,
    Warptiling,
    DoubleBuffering,
}

impl Rung {
    /// Every rung, in the study's order.
    pub const ALL: [Rung; 11] = [
        Rung::Naive,
        Rung::Coalesced,
        Rung::SharedCaching,
        Rung::Blocktile1d,
        Rung::Blocktile2d,
        Rung::Vectorized,
        Rung::BankLinearized,
        Rung::BankOffset,
        Rung::Autotuned,
        Rung::Warptiling,
        Rung::DoubleBuffering,
    ];

    /// The study's kernel number (1 to 11).
    pub const fn number(self) -> u32 {
        self as u32
    }

    /// The study's name for the step.
    pub const fn title(self) -> &'static str {
        match self {
            Rung::Naive => "naive",
            Rung::Coalesced => "GMEM coalescing",
            Rung::SharedCaching => "SMEM caching",
            Rung::Blocktile1d => "1D blocktiling",
            Rung::Blocktile2d => "2D blocktiling",
            Rung::Vectorized => "vectorized mem access",
            Rung::BankLinearized => "bank conflicts (linearize)",
            Rung::BankOffset => "bank conflicts (offset)",
            Rung::Autotuned => "autotuning",
            Rung::Warptiling => "warptiling",
            Rung::DoubleBuffering => "double buffering",
        }
    }

    /// The family of the rung's kernels (both bank-conflict rungs share one list).
    pub const fn family(self) -> Family {
        match self {
            Rung::Naive => Family::Naive,
            Rung::Coalesced => Family::Coalesced,
            Rung::SharedCaching => Family::Tiled,
            Rung::Blocktile1d => Family::Blocktile1d,
            Rung::Blocktile2d => Family::Blocktile2d,
            Rung::Vectorized => Family::Vectorized,
            Rung::BankLinearized | Rung::BankOffset => Family::Bank,
            Rung::Autotuned => Family::Autotuned,
            Rung::Warptiling => Family::Warptile,
            Rung::DoubleBuffering => Family::DoubleBuffer,
        }
    }

    /// The kernel that stands for the rung in the ladder table. For the two families with
    /// several kernels: the study's 32x32 tile, and the fastest vectorized kernel at 4096
    /// (docs/matmul.md).
    pub const fn kernel(self) -> &'static str {
        match self {
            Rung::Naive => "matmul_naive_b32",
            Rung::Coalesced => "matmul_coalesced_b32",
            Rung::SharedCaching => "matmul_tiled_t32",
            Rung::Blocktile1d => "matmul_blocktile1d_64x64x8_t8",
            Rung::Blocktile2d => "matmul_blocktile2d_128x128x8_t8x8",
            Rung::Vectorized => "matmul_vec_b16x4_i4x16_k32",
            Rung::BankLinearized => "matmul_bank_linear_128x128x8_t8x8",
            Rung::BankOffset => "matmul_bank_offset_128x128x8_t8x8",
            Rung::Autotuned => "matmul_autotuned_128x128x16_t8x8",
            Rung::Warptiling => "matmul_warptile_128x128x16_w64x64_t8x4",
            Rung::DoubleBuffering => "matmul_dbuf_128x256x16_w128x32_t8x8",
        }
    }
}

/// Launch geometry of one ladder kernel (rungs other than 3 and 6): `block` threads
/// (x, y), each block computing a `tile[0] x tile[1]` tile of C, `tile[2]` deep in k per step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RungConfig {
    pub name: &'static str,
    pub rung: Rung,
    pub block: [u32; 2],
    pub tile: [u32; 3],
}

impl RungConfig {
    pub const fn block_dim(&self) -> (u32, u32) {
        (self.block[0], self.block[1])
    }
    pub const fn threads(&self) -> u32 {
        self.block[0] * self.block[1]
    }
    pub const fn tile_mnk(&self) -> (u32, u32, u32) {
        (self.tile[0], self.tile[1], self.tile[2])
    }
}

/// Rung 1, `r01_naive.rs`: `(name, B)`, `B x B` threads, one output each, walking k in global memory.
macro_rules! for_each_naive {
    ($m:ident) => {
        $m! { (matmul_naive_b32, 32) }
    };
}

/// Rung 2, `r02_coalesced.rs`: `(name, B)`, `B * B` threads in one dimension, one output each.
macro_rules! for_each_coalesced {
    ($m:ident) => {
        $m! { (matmul_coalesced_b32, 32) }
    };
}

/// Rung 4, `r04_blocktile_1d.rs`: `(name, BM, BN, BK, TM)`, `BM * BN / TM` threads, each a column
/// of `TM` outputs.
macro_rules! for_each_blocktile_1d {
    ($m:ident) => {
        $m! { (matmul_blocktile1d_64x64x8_t8, 64, 64, 8, 8) }
    };
}

/// Rung 5, `r05_blocktile_2d.rs`: `(name, BM, BN, BK, TM, TN)`, `BM * BN / (TM * TN)` threads,
/// each a `TM x TN` register tile.
macro_rules! for_each_blocktile_2d {
    ($m:ident) => {
        $m! { (matmul_blocktile2d_128x128x8_t8x8, 128, 128, 8, 8, 8) }
    };
}

/// Rungs 7 and 8, `r07_bank.rs`: `(name, layout, BM, BN, BK, TM, TN, TM/4, TN/4)`, the vectorized kernel
/// of the study (128-bit loads, A transposed in shared memory) with the B tile `linear`ized or
/// `offset` by 5 words per row.
macro_rules! for_each_bank {
    ($m:ident) => {
        $m! {
            (matmul_bank_linear_128x128x8_t8x8, linear, 128, 128, 8, 8, 8, 2, 2),
            (matmul_bank_offset_128x128x8_t8x8, offset, 128, 128, 8, 8, 8, 2, 2),
        }
    };
}

/// Rung 9, `r09_autotuned.rs`: `(name, threads, BM, BN, BK, TM, TN, WMITER, WNITER, TM/4, TN/4)`
/// with the study's autotuned parameters (A6000); a thread's outputs are `WMITER x WNITER`
/// tiles of `TM x TN`, `16 TM` rows and `16 TN` columns apart.
macro_rules! for_each_autotuned {
    ($m:ident) => {
        $m! { (matmul_autotuned_128x128x16_t8x8, 256, 128, 128, 16, 8, 8, 1, 1, 2, 2) }
    };
}

/// Rung 10, `r10_warptile.rs`: `(name, threads, BM, BN, BK, WM, WN, WNITER, TM, TN, WMITER, TM/4,
/// TN/4)`: each warp computes a `WM x WN` tile as `WMITER x WNITER` sub-tiles, each thread
/// `TM x TN` outputs of every sub-tile.
macro_rules! for_each_warptile {
    ($m:ident) => {
        $m! { (matmul_warptile_128x128x16_w64x64_t8x4, 128, 128, 128, 16, 64, 64, 4, 8, 4, 1, 2, 1) }
    };
}

/// Rung 11, `r11_double_buffer.rs`: the warptiling parameters (same order), two shared-memory
/// buffers, half the threads loading one while the other half computes on the other.
macro_rules! for_each_double_buffer {
    ($m:ident) => {
        $m! { (matmul_dbuf_128x256x16_w128x32_t8x8, 256, 128, 256, 16, 128, 32, 1, 8, 8, 2, 2, 2) }
    };
}

macro_rules! naive_table {
    ($(($name:ident, $b:tt)),* $(,)?) => {
        /// Rung 1.
        pub const NAIVE: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: Rung::Naive, block: [$b, $b], tile: [$b, $b, 1],
        }),*];
    };
}
for_each_naive!(naive_table);

macro_rules! coalesced_table {
    ($(($name:ident, $b:tt)),* $(,)?) => {
        /// Rung 2.
        pub const COALESCED: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: Rung::Coalesced, block: [$b * $b, 1], tile: [$b, $b, 1],
        }),*];
    };
}
for_each_coalesced!(coalesced_table);

macro_rules! blocktile_1d_table {
    ($(($name:ident, $bm:tt, $bn:tt, $bk:tt, $tm:tt)),* $(,)?) => {
        /// Rung 4.
        pub const BLOCKTILE_1D: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: Rung::Blocktile1d,
            block: [$bm * $bn / $tm, 1], tile: [$bm, $bn, $bk],
        }),*];
    };
}
for_each_blocktile_1d!(blocktile_1d_table);

macro_rules! blocktile_2d_table {
    ($(($name:ident, $bm:tt, $bn:tt, $bk:tt, $tm:tt, $tn:tt)),* $(,)?) => {
        /// Rung 5.
        pub const BLOCKTILE_2D: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: Rung::Blocktile2d,
            block: [$bm * $bn / ($tm * $tn), 1], tile: [$bm, $bn, $bk],
        }),*];
    };
}
for_each_blocktile_2d!(blocktile_2d_table);

macro_rules! bank_rung {
    (linear) => {
        Rung::BankLinearized
    };
    (offset) => {
        Rung::BankOffset
    };
}

macro_rules! bank_table {
    ($(($name:ident, $layout:ident, $bm:tt, $bn:tt, $bk:tt, $tm:tt, $tn:tt, $tm4:tt, $tn4:tt)),* $(,)?) => {
        /// Rungs 7 and 8.
        pub const BANK: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: bank_rung!($layout),
            block: [$bm * $bn / ($tm * $tn), 1], tile: [$bm, $bn, $bk],
        }),*];
    };
}
for_each_bank!(bank_table);

macro_rules! autotuned_table {
    ($(($name:ident, $nt:tt, $bm:tt, $bn:tt, $bk:tt, $tm:tt, $tn:tt, $wmi:tt, $wni:tt,
        $tm4:tt, $tn4:tt)),* $(,)?) => {
        /// Rung 9.
        pub const AUTOTUNED: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: Rung::Autotuned, block: [$nt, 1], tile: [$bm, $bn, $bk],
        }),*];
    };
}
for_each_autotuned!(autotuned_table);

macro_rules! warptile_table {
    ($doc:literal, $table:ident, $rung:expr, $(($name:ident, $nt:tt, $bm:tt, $bn:tt, $bk:tt, $wm:tt, $wn:tt,
        $wni:tt, $tm:tt, $tn:tt, $wmi:tt, $tm4:tt, $tn4:tt)),* $(,)?) => {
        #[doc = $doc]
        pub const $table: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: $rung, block: [$nt, 1], tile: [$bm, $bn, $bk],
        }),*];
    };
}
macro_rules! warptile_table_10 {
    ($($t:tt)*) => {
        warptile_table!("Rung 10.", WARPTILE, Rung::Warptiling, $($t)*);
    };
}
macro_rules! warptile_table_11 {
    ($($t:tt)*) => {
        warptile_table!("Rung 11.", DOUBLE_BUFFER, Rung::DoubleBuffering, $($t)*);
    };
}
for_each_warptile!(warptile_table_10);
for_each_double_buffer!(warptile_table_11);

/// Every ladder kernel of the rungs with their own files (all but 3 and 6), in rung order.
pub const RUNG_TABLES: [&[RungConfig]; 8] = [
    NAIVE,
    COALESCED,
    BLOCKTILE_1D,
    BLOCKTILE_2D,
    BANK,
    AUTOTUNED,
    WARPTILE,
    DOUBLE_BUFFER,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::{TILED, VECTORIZED};

    #[test]
    fn rungs_are_numbered_as_the_study() {
        for (i, r) in Rung::ALL.iter().enumerate() {
            assert_eq!(r.number(), i as u32 + 1, "{r:?}");
        }
    }

    #[test]
    fn every_rung_names_a_kernel_of_its_own_kind() {
        for r in Rung::ALL {
            let name = r.kernel();
            let found = match r {
                Rung::SharedCaching => TILED.iter().any(|c| c.name == name),
                Rung::Vectorized => VECTORIZED.iter().any(|c| c.name == name),
                _ => RUNG_TABLES
                    .iter()
                    .flat_map(|t| t.iter())
                    .any(|c| c.name == name && c.rung == r),
            };
            assert!(found, "{r:?}: no kernel {name}");
        }
    }

    #[test]
    fn rung_configs_are_consistent() {
        for c in RUNG_TABLES.iter().flat_map(|t| t.iter()) {
            assert!(c.threads() <= 1024, "{}", c.name);
            // The name carries the block tile (BMxBNxBK) where it has one.
            let [bm, bn, bk] = c.tile;
            if bk > 1 {
                assert!(c.name.contains(&format!("_{bm}x{bn}x{bk}")), "{}", c.name);
                // 128-bit and scalar tile loads alike assume whole float4 rows.
                assert_eq!(bk % 4, 0, "{}", c.name);
            }
        }
    }
}

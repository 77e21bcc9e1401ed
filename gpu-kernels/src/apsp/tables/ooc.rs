//! The out-of-core kernel's table (`host apsp --device-memory-limit`; kernel in `../ooc.rs`).
use super::super::FW_MULTI;

/// The kernel of the out-of-core mode (`host apsp --device-memory-limit`, `ooc.rs`): the
/// register-tiled update of `FwMultiConfig::rest` with the own block and both operands in
/// separate buffers, each with its own pitch, and a loop over k blocks. Phase 1 is the
/// multi-GPU `pivot` kernel of the same block factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FwOocConfig {
    pub block: u32,
    pub tile_threads: u32,
    /// `(own, po, a, pa, b, pb, kblocks, skip_row, skip_col)`, grid `(block columns, block
    /// rows)` of `own`.
    pub update: &'static str,
}

/// `(update, block, tile_threads, tile_cells, quads)` with the meanings of `for_each_fw!`; the
/// single source of `FW_OOC` and the kernels in `ooc.rs`.
macro_rules! for_each_fw_ooc {
    ($m:ident) => {
        $m! {
            (fwo_update_b64, 64, 8, 8, 16),
        }
    };
}

macro_rules! fw_ooc_table {
    ($(($u:ident, $b:tt, $t3:tt, $n:tt, $q:tt)),* $(,)?) => {
        /// Block factors with out-of-core kernels (B = 64: the register-tiled layout).
        pub const FW_OOC: [FwOocConfig; 1] = [$(FwOocConfig {
            block: $b,
            tile_threads: $t3,
            update: stringify!($u),
        }),*];
    };
}
for_each_fw_ooc!(fw_ooc_table);

// Each out-of-core entry has the multi-GPU kernels (its phase 1) and their tile geometry.
const _: () = {
    let mut i = 0;
    while i < FW_OOC.len() {
        let o = FW_OOC[i];
        let mut j = 0;
        let mut found = false;
        while j < FW_MULTI.len() {
            if FW_MULTI[j].block == o.block {
                found = true;
                assert!(FW_MULTI[j].tile_threads == o.tile_threads);
            }
            j += 1;
        }
        assert!(found);
        i += 1;
    }
};

pub fn fw_ooc_config(block: u32) -> Option<FwOocConfig> {
    FW_OOC.iter().copied().find(|c| c.block == block)
}

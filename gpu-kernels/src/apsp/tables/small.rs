//! The persistent one-graph kernels' table (kernels in `../small.rs`).

/// One graph of small V in one launch (`small.rs`, `small_flow.rs`): a persistent kernel whose blocks stay
/// resident for every round and meet at grid-wide barriers (the grid must be co-resident: the
/// host launches it cooperatively, sized from the occupancy). Per round one stage runs phase 2
/// (the pivot row and column as (min, +) products with the closed pivot block) and one phase 3;
/// the block that updates the next pivot block in phase 3 also closes it there, so phase 1 never
/// stands alone between barriers. `threads x threads` threads per block, `cells x cells` cells
/// each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FwSmallConfig {
    pub block: u32,
    pub kind: SmallKind,
    pub threads: u32,
    /// Cells per thread along each side: 4, or 8 (the register tile of the launches' phase 3).
    pub cells: u32,
    /// Kernel arguments: `(d, pitch, rounds, barrier)`, `barrier` one zeroed u32.
    pub kernel: &'static str,
}

/// How a persistent kernel orders its stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmallKind {
    /// Grid-wide barriers after each stage (`small.rs`).
    Barrier,
    /// Each work item starts when the blocks it reads and writes are ready: one counter per
    /// block of the matrix, no barrier (`small_flow.rs`). Its last argument is `rounds²`
    /// zeroed u32, not one.
    Flow,
    /// The items, order and counters of `Flow`, each block taking the next item from a ticket
    /// counter when it is free (`small_pull.rs`). Its last argument is `rounds² + 1` zeroed
    /// u32 (the counters, then the ticket).
    Pull,
}

/// The one-thread kernel that holds a stream for a time (`small_pull.rs`): argument `ns: u64`.
pub const SMALL_HOLD_KERNEL: &str = "apsp_hold";

/// `(kernel, block, threads, cells, copy steps, kind)`: the single source of `FW_SMALL` and the
/// kernels in `small.rs`, `small_flow.rs` and `small_pull.rs` (copy steps: `B² / 4` quads of an
/// operand over `threads²` threads).
macro_rules! for_each_fw_small {
    ($m:ident) => {
        $m! {
            (fw_small_b32, 32, 8, 4, 4, barrier),
            (fw_small_b64, 64, 16, 4, 4, barrier),
            (fw_flow_b32, 32, 8, 4, 4, flow),
            (fw_flow_b64, 64, 16, 4, 4, flow),
            (fw_pull_b32, 32, 8, 4, 4, pull),
            (fw_pull_b64, 64, 16, 4, 4, pull),
            (fw_pull_b64c8, 64, 8, 8, 16, pull),
        }
    };
}

macro_rules! fw_small_table {
    ($(($k:ident, $b:tt, $t:tt, $c:tt, $q:tt, $kind:ident)),* $(,)?) => {
        /// The persistent one-graph kernels, by block factor, kind and cells per thread.
        pub const FW_SMALL: [FwSmallConfig; 7] = [$(FwSmallConfig {
            block: $b,
            kind: small_kind!($kind),
            threads: $t,
            cells: $c,
            kernel: stringify!($k),
        }),*];
    };
}
macro_rules! small_kind {
    (barrier) => {
        SmallKind::Barrier
    };
    (flow) => {
        SmallKind::Flow
    };
    (pull) => {
        SmallKind::Pull
    };
}
for_each_fw_small!(fw_small_table);

const _: () = {
    let mut i = 0;
    while i < FW_SMALL.len() {
        let c = FW_SMALL[i];
        // C x C cells per thread in groups of 4 x 4 (C = 4 or 8); the T^2 threads copy a B x B
        // operand in whole rows per step.
        assert!(c.threads * c.cells == c.block && c.block.is_multiple_of(16));
        assert!(c.cells == 4 || c.cells == 8);
        assert!((c.threads * c.threads).is_multiple_of(c.block / 4));
        i += 1;
    }
};

pub fn fw_small_config(block: u32, kind: SmallKind, cells: u32) -> Option<FwSmallConfig> {
    FW_SMALL
        .iter()
        .copied()
        .find(|c| c.block == block && c.kind == kind && c.cells == cells)
}

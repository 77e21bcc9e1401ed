//! The persistent one-graph kernels' table (kernels in `../small.rs`).

/// One graph of small V in one launch (`small.rs`, `small_flow.rs`): a persistent kernel whose blocks stay
/// resident for every round and meet at grid-wide barriers (the grid must be co-resident: the
/// host launches it cooperatively, sized from the occupancy). Per round one stage runs phase 2
/// (the pivot row and column as (min, +) products with the closed pivot block) and one phase 3;
/// the block that updates the next pivot block in phase 3 also closes it there, so phase 1 never
/// stands alone between barriers. `threads x threads` threads per block, 4 x 4 cells each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FwSmallConfig {
    pub block: u32,
    pub kind: SmallKind,
    pub threads: u32,
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
}

/// `(kernel, block, threads, kind)`: the single source of `FW_SMALL` and the kernels in `small.rs`.
macro_rules! for_each_fw_small {
    ($m:ident) => {
        $m! {
            (fw_small_b32, 32, 8, barrier),
            (fw_small_b64, 64, 16, barrier),
            (fw_flow_b32, 32, 8, flow),
            (fw_flow_b64, 64, 16, flow),
        }
    };
}

macro_rules! fw_small_table {
    ($(($k:ident, $b:tt, $t:tt, $kind:ident)),* $(,)?) => {
        /// The persistent one-graph kernels, by block factor and kind.
        pub const FW_SMALL: [FwSmallConfig; 4] = [$(FwSmallConfig {
            block: $b,
            kind: small_kind!($kind),
            threads: $t,
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
}
for_each_fw_small!(fw_small_table);

const _: () = {
    let mut i = 0;
    while i < FW_SMALL.len() {
        let c = FW_SMALL[i];
        // 4 x 4 cells per thread; the T^2 threads copy a B x B operand in 4 steps of B / 4 rows.
        assert!(c.threads * 4 == c.block && c.block.is_multiple_of(16));
        i += 1;
    }
};

pub fn fw_small_config(block: u32, kind: SmallKind) -> Option<FwSmallConfig> {
    FW_SMALL
        .iter()
        .copied()
        .find(|c| c.block == block && c.kind == kind)
}

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
    /// Floyd–Warshall steps per block barrier in the closure of the next pivot block (1, 2 or
    /// 4; `small_close.rs`), or 0: the closure by quadrants (`small_quad.rs`, B = 64 only).
    pub close_steps: u32,
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
    /// `Pull` with each round's chain (the pivot column's block next to the next pivot block,
    /// and the next pivot block) split into `strips` row strips on as many blocks, the last of
    /// them to finish closing the next pivot block (`small_strip.rs`; B = 64, 4 x 4 cells, by
    /// quadrants); with `chain` > 0, the first `chain` blocks take the strips alone, from a
    /// ticket of their own, and the other blocks on their SMs leave. Its last argument is
    /// [`SmallKind::counter_words`] zeroed u32 (the counters, the ticket, one arrival count per
    /// round, the chain blocks' ticket, their SM ids).
    Strip { strips: u32, chain: u32 },
}

impl SmallKind {
    /// Words of the kernel's last argument (zeroed u32) for a matrix of `rounds` block rows.
    pub const fn counter_words(self, rounds: u32) -> usize {
        let n = rounds as usize;
        match self {
            SmallKind::Barrier => 1,
            SmallKind::Flow => n * n,
            SmallKind::Pull => n * n + 1,
            SmallKind::Strip { chain, .. } => n * n + 1 + n + 1 + chain as usize,
        }
    }

    /// Work items of one round at most (the first rounds' of a strip kernel: its strips and
    /// the round's `rounds² − 3` other items).
    pub const fn round_items(self, rounds: u32) -> u32 {
        let r1 = rounds - 1;
        match self {
            SmallKind::Barrier => {
                if 2 * r1 > r1 * r1 {
                    2 * r1
                } else {
                    r1 * r1
                }
            }
            SmallKind::Flow | SmallKind::Pull => rounds * rounds - 1,
            SmallKind::Strip { strips, .. } => rounds * rounds + strips,
        }
    }
}

/// The one-thread kernel that holds a stream for a time (`small_pull.rs`): argument `ns: u64`.
pub const SMALL_HOLD_KERNEL: &str = "apsp_hold";

/// `(kernel, block, threads, cells, copy steps, closure steps, kind)`: the single source of
/// `FW_SMALL` and the kernels in `small.rs`, `small_flow.rs`, `small_pull.rs` and
/// `small_strip.rs` (kind `stripS`: S strips; copy steps:
/// `B² / 4` quads of an operand over `threads²` threads; closure steps: Floyd–Warshall steps per
/// barrier in the pivot block's closure, `small_close.rs`, 0 for the closure by quadrants,
/// `small_quad.rs`).
macro_rules! for_each_fw_small {
    ($m:ident) => {
        $m! {
            (fw_small_b32, 32, 8, 4, 4, 4, barrier),
            (fw_small_b64, 64, 16, 4, 4, 4, barrier),
            (fw_flow_b32, 32, 8, 4, 4, 4, flow),
            (fw_flow_b64, 64, 16, 4, 4, 4, flow),
            (fw_pull_b32, 32, 8, 4, 4, 4, pull),
            (fw_pull_b64, 64, 16, 4, 4, 0, pull),
            (fw_pull_b64c8, 64, 8, 8, 16, 0, pull),
            (fw_strip_b64s2, 64, 16, 4, 4, 0, strip2),
            (fw_strip_b64s4, 64, 16, 4, 4, 0, strip4),
            (fw_strip_b64s4c, 64, 16, 4, 4, 0, strip4c),
        }
    };
}

/// A constant array `$name` of `$ty` from table rows `(kernel, block, threads, cells, copy
/// steps, closure steps, kind)`, the kind token named by `small_kind!`: the one builder of
/// `FW_SMALL` and `SMALL_PROBES`, whose row lists and kinds differ.
macro_rules! small_table {
    ($(#[$meta:meta])* $name:ident: $ty:ident,
        $(($k:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt, $kind:ident)),* $(,)?) => {
        $(#[$meta])*
        pub const $name: [$ty; [$(stringify!($k)),*].len()] = [$($ty {
            kernel: stringify!($k),
            block: $b,
            threads: $t,
            cells: $c,
            close_steps: $s,
            kind: small_kind!($kind),
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
    (strip2) => {
        SmallKind::Strip {
            strips: 2,
            chain: 0,
        }
    };
    (strip4) => {
        SmallKind::Strip {
            strips: 4,
            chain: 0,
        }
    };
    (strip4c) => {
        SmallKind::Strip {
            strips: 4,
            chain: 4,
        }
    };
    (item) => {
        SmallProbeKind::Item
    };
    (trace) => {
        SmallProbeKind::Trace
    };
    (strace4) => {
        SmallProbeKind::StripTrace {
            strips: 4,
            chain: 0,
        }
    };
    (strace4c) => {
        SmallProbeKind::StripTrace {
            strips: 4,
            chain: 4,
        }
    };
}
macro_rules! fw_small_table {
    ($($row:tt)*) => {
        small_table!(
            /// The persistent one-graph kernels, by block factor, kind and cells per thread.
            FW_SMALL: FwSmallConfig, $($row)*
        );
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
        assert!(match c.close_steps {
            0 => c.block == 64,
            s => matches!(s, 1 | 2 | 4) && c.block.is_multiple_of(s),
        });
        assert!((c.threads * c.threads).is_multiple_of(c.block / 4));
        if let SmallKind::Strip { strips, .. } = c.kind {
            // `small_strip_item!`: 16 x 16 threads, each 4 columns of 4 / strips rows of a strip;
            // one strip (the whole block) would need a third 64 x 68 tile, past the 48 KiB of
            // static shared memory a block may have.
            assert!(c.block == 64 && c.threads == 16 && c.cells == 4 && c.close_steps == 0);
            assert!(matches!(strips, 2 | 4));
        }
        i += 1;
    }
};

/// Work items of a strip kernel (`SmallKind::Strip`) on `n` block rows with `strips` strips a
/// round: item 0 (the first pivot block's closure); per round r < n − 1 its strips and the flow
/// order's `n² − 1` items but the two the strips do; the last round's `n² − 1` flow items.
pub const fn strip_items(n: u32, strips: u32) -> u32 {
    match n {
        0 | 1 => 1,
        _ => 1 + (n - 1) * (n * n - 3 + strips) + (n * n - 1),
    }
}

pub fn fw_small_config(block: u32, kind: SmallKind, cells: u32) -> Option<FwSmallConfig> {
    FW_SMALL
        .iter()
        .copied()
        .find(|c| c.block == block && c.kind == kind && c.cells == cells)
}

/// What a probe kernel of the small-graph solver measures (`small_probe.rs`; `host apsp-small
/// --probe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmallProbeKind {
    /// One work item, the first pivot block's product with itself and its closure, on one
    /// block alone: arguments `(d, pitch, stamps)`, `stamps` [`PROBE_ITEM_STAMPS`] u64 (clock
    /// and global timer at the item's start, operands loaded, product done, closure done and
    /// stores done).
    Item,
    /// The pull kernel with a time stamp at each point of each item: arguments `(d, pitch,
    /// rounds, done, trace)`, `trace` [`TRACE_WORDS`] u64 per item.
    Trace,
    /// The strip kernel of `strips` strips (`SmallKind::Strip`) traced the same way: its `done`
    /// is that kind's counters; each strip is stamped as an item that closes block
    /// (r + 1, r + 1) (the one that arrived last did), at points 2 its operands loaded, 3 its
    /// products done, 4 its arrival counted (the last: its closure done).
    StripTrace { strips: u32, chain: u32 },
}

/// A probe kernel: its block factor, threads per side, cells per thread per side, closure
/// steps per barrier (0: by quadrants) and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmallProbeConfig {
    pub kernel: &'static str,
    pub block: u32,
    pub threads: u32,
    pub cells: u32,
    pub close_steps: u32,
    pub kind: SmallProbeKind,
}

/// u64 words a traced item writes: `[0]` SM id << 48 | own block row << 32 | own block column
/// << 16 | block index (16 bits), `[1]` round << 2 | phase 3
/// << 1 | closes, `[2 + p]` the SM clock and `[8 + p]` the global timer (ns) at point p of
/// `fw_pull_body!` (0 ticket read, 1 dependencies met, 2 loaded, 3 product, 4 closure, 5
/// published).
pub const TRACE_WORDS: u32 = 16;
/// u64 stamps of an item probe: 5 clocks, then 5 global-timer readings.
pub const PROBE_ITEM_STAMPS: u32 = 10;

/// `(kernel, block, threads, cells, copy steps, closure steps, kind)` of the probes: the item
/// at each closure style for both register tiles, the traced pull kernel at one and four
/// steps per barrier and by quadrants, and the traced strip kernels of 4 strips (without and
/// with chain blocks).
macro_rules! for_each_small_probe {
    ($m:ident) => {
        $m! {
            (apsp_probe_item_c4s1, 64, 16, 4, 4, 1, item),
            (apsp_probe_item_c4s2, 64, 16, 4, 4, 2, item),
            (apsp_probe_item_c4s4, 64, 16, 4, 4, 4, item),
            (apsp_probe_item_c8s1, 64, 8, 8, 16, 1, item),
            (apsp_probe_item_c8s2, 64, 8, 8, 16, 2, item),
            (apsp_probe_item_c8s4, 64, 8, 8, 16, 4, item),
            (apsp_probe_item_c4q, 64, 16, 4, 4, 0, item),
            (apsp_probe_item_c8q, 64, 8, 8, 16, 0, item),
            (fw_pull_b64_trace_s1, 64, 16, 4, 4, 1, trace),
            (fw_pull_b64_trace_s4, 64, 16, 4, 4, 4, trace),
            (fw_pull_b64_trace_q, 64, 16, 4, 4, 0, trace),
            (fw_strip_b64s4_trace, 64, 16, 4, 4, 0, strace4),
            (fw_strip_b64s4c_trace, 64, 16, 4, 4, 0, strace4c),
        }
    };
}

macro_rules! small_probe_table {
    ($($row:tt)*) => {
        small_table!(
            /// The probe kernels (`small_probe.rs`).
            SMALL_PROBES: SmallProbeConfig, $($row)*
        );
    };
}
for_each_small_probe!(small_probe_table);

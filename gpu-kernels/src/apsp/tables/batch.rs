//! The batch kernels' tables (kernels in `../batch.rs` and `../batch_blocked.rs`).
use super::super::{PITCH_ALIGN, runs_tile_geometry};

/// Many graphs of V ≤ [`BATCH_MAX_VERTICES`] in one launch (`batch.rs`): one block per graph,
/// its `n x n` matrix (padded, INF off the diagonal) in registers, `rows x cols` cells per
/// thread (in groups of 4 rows and 4 columns), `n / cols x n / rows` threads; the pivot row and
/// column of each step pass through shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchConfig {
    /// Padded vertices: graphs with V ≤ `n` (and above the previous class) run here.
    pub n: u32,
    /// Cells per thread: rows and columns.
    pub rows: u32,
    pub cols: u32,
    /// Whether this is its class's kernel; the others are variants `host apsp-batch --kernel`
    /// runs for measurement.
    pub default: bool,
    /// The `.maxnreg` it is compiled under, if any (more blocks per SM).
    pub max_registers: Option<u32>,
    /// Kernel arguments: `(d, vertices, graphs)`: `graphs` matrices of `n x n` i32 one after
    /// another, solved in place; `vertices[g]` ≤ `n` the real V of graph g.
    pub kernel: &'static str,
}

impl BatchConfig {
    /// Threads per block, (x, y): x walks the columns.
    pub const fn threads(&self) -> (u32, u32) {
        (self.n / self.cols, self.n / self.rows)
    }
}

/// `(kernel, n, rows, cols, default|variant, register cap)`: the single source of
/// `BATCH_KERNELS` and `batch.rs`. At V = 128: 8 x 8 cells take 124 registers (2 blocks of 256
/// threads per SM), 4 x 4 cells 56 (1 block of 1024), 8 x 4 cells 84 (1 block of 512; under a
/// cap of 64, for 2 blocks, ptxas spills 56 bytes).
macro_rules! for_each_batch {
    ($m:ident) => {
        $m! {
            (apsp_batch_n32, 32, 4, 4, default, None),
            (apsp_batch_n64, 64, 4, 4, default, None),
            (apsp_batch_n64_c8, 64, 8, 8, variant, None),
            (apsp_batch_n128_c4, 128, 4, 4, variant, None),
            (apsp_batch_n128_r8c4, 128, 8, 4, variant, None),
            (apsp_batch_n128, 128, 8, 8, default, None),
        }
    };
}

macro_rules! batch_default {
    (default) => {
        true
    };
    (variant) => {
        false
    };
}

macro_rules! batch_table {
    ($(($k:ident, $n:tt, $r:tt, $c:tt, $d:ident, $cap:expr)),* $(,)?) => {
        /// Every batch kernel, by padded size, smallest first.
        pub const BATCH_KERNELS: [BatchConfig; 6] = [$(BatchConfig {
            n: $n,
            rows: $r,
            cols: $c,
            default: batch_default!($d),
            max_registers: $cap,
            kernel: stringify!($k),
        }),*];
    };
}
for_each_batch!(batch_table);

/// The largest V a register batch kernel holds (a graph per block).
pub const BATCH_MAX_VERTICES: u32 = BATCH_KERNELS[BATCH_KERNELS.len() - 1].n;

const _: () = {
    let mut i = 0;
    while i < BATCH_KERNELS.len() {
        let c = BATCH_KERNELS[i];
        let (tx, ty) = c.threads();
        assert!(c.rows.is_multiple_of(4) && c.cols.is_multiple_of(4));
        assert!(tx * c.cols == c.n && ty * c.rows == c.n && tx * ty <= 1024);
        assert!(c.n.is_multiple_of(PITCH_ALIGN as u32));
        assert!(i == 0 || BATCH_KERNELS[i - 1].n <= c.n);
        // Exactly one default per class.
        let mut defaults = 0;
        let mut j = 0;
        while j < BATCH_KERNELS.len() {
            if BATCH_KERNELS[j].n == c.n && BATCH_KERNELS[j].default {
                defaults += 1;
            }
            j += 1;
        }
        assert!(defaults == 1);
        i += 1;
    }
};

/// The default batch kernel for a graph on `vertices` vertices: the smallest class that holds
/// it.
pub fn batch_config(vertices: u32) -> Option<BatchConfig> {
    BATCH_KERNELS
        .iter()
        .copied()
        .find(|c| c.default && vertices <= c.n)
}

/// The batch kernel named `name`.
pub fn batch_kernel(name: &str) -> Option<BatchConfig> {
    BATCH_KERNELS.iter().copied().find(|c| c.kernel == name)
}

/// The blocked algorithm for a batch of graphs of `BATCH_MAX_VERTICES` < V ≤ `max_vertices`
/// (`batch_blocked.rs`): the three phase kernels of the one-graph solver's register-tiled block
/// factor (same updates and geometry, asserted below), with the graph in the last grid
/// dimension and every matrix `n x n` (n the graph's V rounded up to `block`) one after
/// another. Phase 1: grid `(graphs)`, `pivot_threads` square; phase 2: grid
/// `(n / block, 2, graphs)`; phase 3: grid `(n / block, n / block, graphs)`, both
/// `tile_threads` square. Arguments of each: `(d, n, round)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchBlockedConfig {
    pub block: u32,
    pub max_vertices: u32,
    pub pivot_threads: u32,
    pub tile_threads: u32,
    pub phase1: &'static str,
    pub phase2: &'static str,
    pub phase3: &'static str,
}

/// `(phase1, phase2, phase3, block, threads, cells, tile_threads, tile_cells, quads,
/// max_vertices)` with the meanings of `for_each_fw!`: the single source of `BATCH_BLOCKED`
/// and the kernels in `batch_blocked.rs`.
macro_rules! for_each_batch_blocked {
    ($m:ident) => {
        $m! {
            (apsp_batch_b64_phase1, apsp_batch_b64_phase2, apsp_batch_b64_phase3, 64, 16, 4, 8, 8, 16, 512),
        }
    };
}

macro_rules! batch_blocked_table {
    ($(($p1:ident, $p2:ident, $p3:ident, $b:tt, $t:tt, $r:tt, $t3:tt, $n:tt, $q:tt, $max:tt)),* $(,)?) => {
        /// The batched blocked kernels (one block factor).
        pub const BATCH_BLOCKED: BatchBlockedConfig = $(BatchBlockedConfig {
            block: $b,
            max_vertices: $max,
            pivot_threads: $t,
            tile_threads: $t3,
            phase1: stringify!($p1),
            phase2: stringify!($p2),
            phase3: stringify!($p3),
        })*;
    };
}
for_each_batch_blocked!(batch_blocked_table);

// The same geometry as the one-graph solver's register-tiled kernels of that block factor.
const _: () = {
    let m = BATCH_BLOCKED;
    assert!(runs_tile_geometry(m.block, m.pivot_threads, m.tile_threads));
    assert!(m.max_vertices > BATCH_MAX_VERTICES && m.max_vertices.is_multiple_of(m.block));
    assert!(BATCH_MAX_VERTICES.is_multiple_of(m.block));
};

/// How a batch solves a graph on `vertices` vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchClass {
    /// One block per graph, in registers.
    Register(BatchConfig),
    /// The batched blocked algorithm on `n x n` matrices (V rounded up to the block factor).
    Blocked { n: u32 },
}

/// The class of a graph on `vertices` vertices in a batch: `None` above
/// `BATCH_BLOCKED.max_vertices` (the one-graph solver, one at a time).
pub fn batch_class(vertices: u32) -> Option<BatchClass> {
    if let Some(c) = batch_config(vertices) {
        return Some(BatchClass::Register(c));
    }
    (vertices <= BATCH_BLOCKED.max_vertices).then(|| BatchClass::Blocked {
        n: vertices.div_ceil(BATCH_BLOCKED.block) * BATCH_BLOCKED.block,
    })
}

//! The batch kernels' table (kernels in `../batch.rs`).
use super::super::PITCH_ALIGN;

/// Many graphs of V ≤ [`BATCH_MAX_VERTICES`] in one launch (`batch.rs`): one block per graph,
/// its `n x n` matrix (padded, INF off the diagonal) in registers, `n / 4 x n / 4` threads of
/// 4 x 4 cells each; the pivot row and column of each step pass through shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchConfig {
    /// Padded vertices: graphs with V ≤ `n` (and above the previous class) run here.
    pub n: u32,
    pub threads: u32,
    /// Kernel arguments: `(d, vertices, graphs)`: `graphs` matrices of `n x n` i32 one after
    /// another, solved in place; `vertices[g]` ≤ `n` the real V of graph g.
    pub kernel: &'static str,
}

/// `(kernel, n, threads per side)`: the single source of `BATCH_CONFIGS` and `batch.rs`.
macro_rules! for_each_batch {
    ($m:ident) => {
        $m! {
            (apsp_batch_n32, 32, 8),
            (apsp_batch_n64, 64, 16),
            (apsp_batch_n128, 128, 32),
        }
    };
}

macro_rules! batch_table {
    ($(($k:ident, $n:tt, $t:tt)),* $(,)?) => {
        /// The batch kernels, by padded size, smallest first.
        pub const BATCH_CONFIGS: [BatchConfig; 3] = [$(BatchConfig {
            n: $n,
            threads: $t,
            kernel: stringify!($k),
        }),*];
    };
}
for_each_batch!(batch_table);

/// The largest V a batch kernel holds (a graph per block); larger graphs of a batch run
/// through the one-graph solver.
pub const BATCH_MAX_VERTICES: u32 = BATCH_CONFIGS[BATCH_CONFIGS.len() - 1].n;

const _: () = {
    let mut i = 0;
    while i < BATCH_CONFIGS.len() {
        let c = BATCH_CONFIGS[i];
        assert!(c.threads * 4 == c.n && c.threads * c.threads <= 1024);
        assert!(c.n.is_multiple_of(PITCH_ALIGN as u32));
        assert!(i == 0 || BATCH_CONFIGS[i - 1].n < c.n);
        i += 1;
    }
};

/// The batch kernel for a graph on `vertices` vertices: the smallest class that holds it.
pub fn batch_config(vertices: u32) -> Option<BatchConfig> {
    BATCH_CONFIGS.iter().copied().find(|c| vertices <= c.n)
}

//! The kinds of kernel ([`Family`]): a leaf module, so that the kernel tables (which name their
//! family) and the registry built from those tables (`crate::registry`) both import it without
//! a circle between them.
use core::fmt;

/// What a kernel is: a rung of the SGEMM study's ladder, the flagship SGEMM, or a part of the
/// APSP solver. The SGEMM families are the ones `host matmul --kernel FAMILY` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// Rung 1 (`r01_naive.rs`).
    Naive,
    /// Rung 2 (`r02_coalesced.rs`).
    Coalesced,
    /// Rung 3, shared-memory tiles (`r03_tiled.rs`).
    Tiled,
    /// Rung 4 (`r04_blocktile_1d.rs`).
    Blocktile1d,
    /// Rung 5 (`r05_blocktile_2d.rs`).
    Blocktile2d,
    /// Rung 6 (`r06_vectorized.rs`).
    Vectorized,
    /// Rungs 7 and 8, bank conflicts (`r07_bank.rs`).
    Bank,
    /// Rung 9 (`r09_autotuned.rs`).
    Autotuned,
    /// Rung 10, warp tiling (`r10_warptile.rs`).
    Warptile,
    /// Rung 11, double buffering (`r11_double_buffer.rs`).
    DoubleBuffer,
    /// The flagship SGEMM (`flagship.rs`).
    Flagship,
    /// The flagship for transposed operands and strided batches (`flagship_ops.rs`).
    FlagshipOps,
    /// Small N, matrix–vector for N = 1: A streamed by rows (`skinny_rows.rs`).
    SkinnyRows,
    /// Small M, matrix–vector for M = 1: B streamed by columns (`skinny_cols.rs`, `gemv.rs`).
    SkinnyCols,
    /// The skinny kernels' split-K reduction (`skinny_reduce.rs`).
    SplitKReduce,
    /// The library SGEMM's operand pre-pass, a transposing or re-pitching copy
    /// (`matmul/split_k_kernels.rs`).
    Transpose,
    /// Strided batches of problems of M, N ≤ 32, several per block (`batched_small_kernel.rs`).
    BatchedSmall,
    /// Floyd–Warshall phase 1, the pivot block (`apsp/fw.rs`).
    FwPhase1,
    /// Floyd–Warshall phase 2, the pivot row and column.
    FwPhase2,
    /// Floyd–Warshall phase 3, every other block.
    FwPhase3,
    /// Floyd–Warshall split over several GPUs (`apsp/multi.rs`).
    FwMulti,
    /// Floyd–Warshall carrying a successor or predecessor matrix (`apsp/paths.rs`).
    FwPaths,
    /// Floyd–Warshall on f32 and f64 weights, all three phases (`apsp/fw_float.rs`).
    FwFloat,
    /// Floyd–Warshall out of core, operands in separate buffers (`apsp/ooc.rs`).
    FwOoc,
    /// The initial distance matrix, built on the GPU (`apsp/init.rs`).
    ApspInit,
    /// The add-min throughput ceiling (`apsp/peak.rs`).
    ApspPeak,
    /// Graph statistics from the solved matrix (`apsp/stats.rs`).
    ApspStats,
    /// The tensor-core GEMM, `mma.sync` (`tc/kernel.rs`).
    TensorCore,
    /// Floyd–Warshall on one small graph in one persistent launch (`apsp/small.rs`).
    FwSmall,
    /// Many small graphs in one launch, one block each (`apsp/batch.rs`).
    ApspBatch,
    /// The Hopper tensor-core GEMM (`sm90/wgmma.rs`): wgmma, TMA, mbarrier pipelines (sm_90a).
    Wgmma,
    /// Predecessors of solved float distances, one search level per launch (`apsp/float_pred.rs`).
    FloatPred,
    /// Johnson's reweighting of signed f32 matrices for the `nonneg` kernels
    /// (`apsp/float_reweight.rs`).
    FloatReweight,
}

impl Family {
    /// Every family, in the order of [`crate::registry::KERNELS`].
    pub const ALL: [Family; 33] = [
        Family::Naive,
        Family::Coalesced,
        Family::Tiled,
        Family::Blocktile1d,
        Family::Blocktile2d,
        Family::Vectorized,
        Family::Bank,
        Family::Autotuned,
        Family::Warptile,
        Family::DoubleBuffer,
        Family::Flagship,
        Family::FlagshipOps,
        Family::SkinnyRows,
        Family::SkinnyCols,
        Family::SplitKReduce,
        Family::Transpose,
        Family::BatchedSmall,
        Family::FwPhase1,
        Family::FwPhase2,
        Family::FwPhase3,
        Family::FwMulti,
        Family::FwPaths,
        Family::FwFloat,
        Family::FwOoc,
        Family::ApspInit,
        Family::ApspPeak,
        Family::ApspStats,
        Family::TensorCore,
        Family::FwSmall,
        Family::ApspBatch,
        Family::Wgmma,
        Family::FloatPred,
        Family::FloatReweight,
    ];

    /// The family's one name: on the command line (`--kernel tiled`), in bench records and
    /// JSON, and in the report.
    pub const fn name(self) -> &'static str {
        match self {
            Family::Naive => "naive",
            Family::Coalesced => "coalesced",
            Family::Tiled => "tiled",
            Family::Blocktile1d => "blocktile1d",
            Family::Blocktile2d => "blocktile2d",
            Family::Vectorized => "vectorized",
            Family::Bank => "bank",
            Family::Autotuned => "autotuned",
            Family::Warptile => "warptile",
            Family::DoubleBuffer => "dbuf",
            Family::Flagship => "flagship",
            Family::FlagshipOps => "flagship_ops",
            Family::SkinnyRows => "skinny_rows",
            Family::SkinnyCols => "skinny_cols",
            Family::SplitKReduce => "splitk_reduce",
            Family::Transpose => "transpose",
            Family::BatchedSmall => "batched_small",
            Family::FwPhase1 => "fw_phase1",
            Family::FwPhase2 => "fw_phase2",
            Family::FwPhase3 => "fw_phase3",
            Family::FwMulti => "fw_multi",
            Family::FwPaths => "fw_paths",
            Family::FwFloat => "fw_float",
            Family::FwOoc => "fw_ooc",
            Family::ApspInit => "apsp_init",
            Family::ApspPeak => "apsp_peak",
            Family::ApspStats => "apsp_stats",
            Family::TensorCore => "tc",
            Family::FwSmall => "fw_small",
            Family::ApspBatch => "apsp_batch",
            Family::Wgmma => "wgmma",
            Family::FloatPred => "apsp_float_pred",
            Family::FloatReweight => "apsp_float_reweight",
        }
    }

    /// The family named `name` ([`Family::name`]).
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// An SGEMM kernel with the common argument list `(a, b, c, n, k)` on padded matrices, or
    /// the flagship (`SgemmParams`, `SgemmOpsParams`): what `host matmul` runs.
    pub const fn is_sgemm(self) -> bool {
        (self as u32) <= (Family::FlagshipOps as u32)
    }

    /// A skinny SGEMM kernel (`SkinnyParams`, `matmul/skinny.rs`) that `host matmul` runs:
    /// the row and column kernels, not their reduction.
    pub const fn is_skinny(self) -> bool {
        matches!(self, Family::SkinnyRows | Family::SkinnyCols)
    }

    /// A kernel of the library's SGEMM (the flagship module group): the flagship and its
    /// transposing and batched variants, the skinny kernels and their reduction, the batched
    /// small-matrix kernel.
    pub const fn is_library_sgemm(self) -> bool {
        matches!(
            self,
            Family::Flagship
                | Family::FlagshipOps
                | Family::SkinnyRows
                | Family::SkinnyCols
                | Family::SplitKReduce
                | Family::Transpose
                | Family::BatchedSmall
        )
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

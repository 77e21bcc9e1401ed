//! `host matmul`'s arguments and the shape they name, shared by the FP32, BLAS-interface and
//! tensor-core paths (`matmul`, `matmul_blas`, `matmul_tc`), which import this leaf and not
//! each other.
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use host::matmul::problem::check_shape;
use rgk_core::matmul::precision::Precision;

use super::PtxArg;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Verify {
    /// Full check up to 4096 in every dimension, a sample of rows above.
    Auto,
    /// Every element of C against the f64 reference.
    Full,
    /// 64 random rows of C against the f64 reference.
    Sample,
    /// No check (timings only).
    None,
}

#[derive(Args)]
pub struct MatmulArgs {
    /// Square size: M = N = K (overridden per dimension by --m/--n/--k).
    pub size: Option<usize>,
    /// Rows of A and C.
    #[arg(long)]
    pub m: Option<usize>,
    /// Columns of B and C.
    #[arg(long)]
    pub n: Option<usize>,
    /// Columns of A, rows of B.
    #[arg(long)]
    pub k: Option<usize>,
    /// `sgemm` (the flagship kernel the library picks for the shape), kernel names separated by
    /// commas, a family (`tiled`, `vectorized`, `flagship`, `naive`, `coalesced`, `blocktile1d`,
    /// `blocktile2d`, `bank`, `autotuned`, `warptile`, `dbuf`), `all`, or `ladder`: one kernel per
    /// rung of the SGEMM study (siboehm/SGEMM_CUDA) and the flagship, printed as the study's table.
    #[arg(long, default_value = "sgemm")]
    pub kernel: String,
    /// Timed launches per kernel (after one warm-up); the median is reported.
    #[arg(long, default_value_t = 10, value_parser = super::at_least_one::<usize>)]
    pub reps: usize,
    /// Seed of the random inputs A and B.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// How much of C to check against the f64 reference.
    #[arg(long, value_enum, default_value_t = Verify::Auto)]
    pub verify: Verify,
    /// Skip cuBLAS.
    #[arg(long)]
    pub no_cublas: bool,
    /// op(A) = Aᵀ: A is stored K x M (BLAS transa = T); runs the library's choice (or a
    /// flagship_ops kernel) against cuBLAS's matching call.
    #[arg(long)]
    pub trans_a: bool,
    /// op(B) = Bᵀ: B is stored N x K (BLAS transb = T).
    #[arg(long)]
    pub trans_b: bool,
    /// Problems in a strided batch (1 to 65535), each with its own A, B and C, against
    /// cublasSgemmStridedBatched.
    #[arg(long, default_value_t = 1, value_parser = super::at_least_one::<usize>)]
    pub batch: usize,
    /// Floats from one problem's A to the next (default: one stored A, packed; 0 shares one A).
    #[arg(long)]
    pub stride_a: Option<usize>,
    /// Floats from one problem's B to the next (default: one stored B, packed; 0 shares one B).
    #[arg(long)]
    pub stride_b: Option<usize>,
    /// Floats from one problem's C to the next (default: one C, packed).
    #[arg(long)]
    pub stride_c: Option<usize>,
    /// Print one JSON object (docs/json.md) instead of the table.
    #[arg(long)]
    pub json: bool,
    /// What A and B are multiplied in: fp32 (the SGEMM kernels), or on the tensor cores tf32,
    /// 3xtf32, bf16 or fp16, against cuBLAS of the same precision (docs/tensor-cores.md); there
    /// `--kernel` is `sgemm` (the library's pick), `ladder` or tensor-core kernel names.
    #[arg(long, default_value = "fp32", value_parser = parse_precision)]
    pub precision: Precision,
    #[command(flatten)]
    pub ptx: PtxArg,
}

pub(super) fn parse_precision(s: &str) -> Result<Precision, String> {
    Precision::from_name(s).ok_or_else(|| {
        let names: Vec<_> = Precision::ALL.iter().map(|p| p.name()).collect();
        format!("must be one of {}", names.join(", "))
    })
}

pub fn resolve_shape(args: &MatmulArgs) -> Result<(usize, usize, usize)> {
    let pick = |d: Option<usize>, name: &str| match d.or(args.size) {
        Some(v) => Ok(v),
        None => bail!(
            "give a square size (`matmul 1024`) or all of --m, --n and --k (missing --{name})"
        ),
    };
    let shape = (pick(args.m, "m")?, pick(args.n, "n")?, pick(args.k, "k")?);
    check_shape(shape.0, shape.1, shape.2)?;
    Ok(shape)
}

//! Floyd–Warshall on float weights (f32, f64) on the GPU, for a dense matrix in host memory
//! (the Python package's `floyd_warshall`); their ceilings: [`super::float_peak`]. The
//! kernels and their conventions: `gpu_kernels::apsp::float`; the CPU reference and the
//! predecessors rebuilt from distances: [`rgk_core::minplus`].
use std::time::Instant;

use anyhow::{Context as _, Result};
use cust::{
    event::{Event, EventFlags},
    function::{BlockSize, GridSize},
    launch,
    memory::{CopyDestination, DeviceBuffer, DeviceCopy, DevicePointer},
};
use gpu_kernels::apsp::{
    float::{FwFloatConfig, fw_float_config, fw_float_config_nonneg},
    offsets::block_row_fits,
};
use rayon::prelude::*;
use rgk_core::minplus::{Weight, negative_diagonal};
use serde::Serialize;

use super::{
    float_reweight::{REWEIGHT_MIN_V, ReweightReport, max_iterations, potentials, reweight},
    phases::prefer_shared_memory,
};
use crate::gpu::{Gpu, check_free_memory};

/// A weight type with float Floyd–Warshall kernels.
pub trait GpuWeight: Weight + DeviceCopy {
    /// The kernels' name for it (`FwFloatConfig::weight`).
    const NAME: &'static str;
    /// The peak kernel's `w`: −1, so that every chain keeps changing.
    const MINUS_ONE: Self;
    /// The default kernels, for any signs.
    fn config() -> FwFloatConfig {
        fw_float_config(Self::NAME).expect("every GpuWeight has kernels")
    }
    /// Whether every value of `d` is in +0 ..= +inf (no negative value, -0 or NaN): the
    /// domain of the [`FwFloatConfig::nonneg`] kernels.
    fn all_nonneg(d: &[Self]) -> bool;
    /// Whether the type has reweighting kernels (`gpu_kernels::apsp::float_reweight`).
    const REWEIGHTS: bool = false;
    /// Whether the values of a signed `d` allow reweighting: no NaN, no -inf (the type's
    /// kernels aside: [`GpuWeight::reweight_plan`]).
    fn reweightable(_d: &[Self]) -> bool {
        false
    }
    /// The type's [`Plan::Reweighted`] (its `nonneg` default after potentials, its default
    /// without them), where it has reweighting and `nonneg` kernels.
    fn reweight_plan() -> Option<Plan> {
        let nonneg = fw_float_config_nonneg(Self::NAME).filter(|c| c.nonneg && Self::REWEIGHTS)?;
        Some(Plan::Reweighted {
            nonneg,
            general: Self::config(),
        })
    }
    /// What `solve_dense` runs on `d` (`n` vertices): the type's `nonneg` default where it has
    /// one and `d` is in its domain (one parallel pass over `d`); a signed `d` reweighted for
    /// it from [`REWEIGHT_MIN_V`] on where [`GpuWeight::reweightable`]; else
    /// [`GpuWeight::config`].
    fn plan_for(d: &[Self], n: usize) -> Plan {
        match fw_float_config_nonneg(Self::NAME) {
            Some(c) if c.nonneg && Self::all_nonneg(d) => Plan::Kernels(c),
            _ => Self::reweight_plan()
                .filter(|_| n >= REWEIGHT_MIN_V && Self::reweightable(d))
                .unwrap_or(Plan::Kernels(Self::config())),
        }
    }
}

/// What a float solve runs on the matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Plan {
    /// These kernels on the matrix as given.
    Kernels(FwFloatConfig),
    /// Bellman–Ford potentials first (at most [`max_iterations`] launches); with them the
    /// `nonneg` kernels on the reweighted matrix, the distances reweighted back after; without
    /// them (a negative cycle, or paths of more edges from the virtual source) the `general`
    /// kernels on the matrix as given.
    Reweighted {
        nonneg: FwFloatConfig,
        general: FwFloatConfig,
    },
}

impl Plan {
    /// The kernels that run on the matrix as given (which fix its padding).
    pub fn given(&self) -> FwFloatConfig {
        match *self {
            Plan::Kernels(c) => c,
            Plan::Reweighted { general, .. } => general,
        }
    }

    /// The kernels meant to close the matrix (those of a reweighted one: `nonneg`).
    pub fn intended(&self) -> FwFloatConfig {
        match *self {
            Plan::Kernels(c) => c,
            Plan::Reweighted { nonneg, .. } => nonneg,
        }
    }
}

impl GpuWeight for f32 {
    const NAME: &'static str = "f32";
    const MINUS_ONE: f32 = -1.0;
    const REWEIGHTS: bool = true;
    fn reweightable(d: &[f32]) -> bool {
        d.par_iter().all(|x| !x.is_nan() && *x != f32::NEG_INFINITY)
    }
    /// +0 is the pattern 0 and +inf 0x7f80_0000; every pattern between is a positive finite
    /// value, every other one negative, -0 or NaN.
    fn all_nonneg(d: &[f32]) -> bool {
        d.par_iter().all(|x| x.to_bits() <= f32::INFINITY.to_bits())
    }
}

impl GpuWeight for f64 {
    const NAME: &'static str = "f64";
    const MINUS_ONE: f64 = -1.0;
    /// As f32's (no f64 kernel needs it today).
    fn all_nonneg(d: &[f64]) -> bool {
        d.par_iter().all(|x| x.to_bits() <= f64::INFINITY.to_bits())
    }
}

/// Seconds spent in each stage of one float solve.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct FloatTimes {
    /// Padding the matrix on the host, allocating it on the GPU and uploading it.
    pub host_to_device_s: f64,
    /// The rounds of phases 1–3 (CUDA events).
    pub compute_s: f64,
    /// Downloading and unpadding.
    pub device_to_host_s: f64,
}

/// What a float solve reports besides the distances written in place.
#[derive(Clone, Debug, Serialize)]
pub struct FloatSolve {
    /// The vertices on a negative cycle (a negative diagonal entry), in order; empty if none.
    pub negative_cycle: Vec<usize>,
    /// The padded size the kernels ran on (a multiple of the block factor).
    pub padded: usize,
    /// The phase-2/3 tile shape that ran (`FwFloatConfig::variant`).
    pub variant: &'static str,
    /// Whether it was a [`FwFloatConfig::nonneg`] shape (the matrix had no negative value, or
    /// was reweighted to have none).
    pub nonneg: bool,
    /// Where potentials were searched for ([`Plan::Reweighted`]): how many launches, and
    /// whether the `nonneg` kernels then ran on the reweighted matrix.
    pub reweight: Option<ReweightReport>,
    pub times: FloatTimes,
}

/// Closes the `n x n` row-major matrix `d` in place on the GPU: `+inf` is "no edge", any
/// finite weight (negative ones too) an edge, and the caller sets the diagonal (scipy sets it
/// to 0). With a negative cycle the distances are meaningless and [`FloatSolve::negative_cycle`]
/// names the vertices whose diagonal went negative. A matrix without negative values runs the
/// faster `nonneg` kernels where the type has them, with the same bits as the general kernels;
/// a large signed f32 matrix runs them after Johnson's reweighting, its distances then equal
/// to the general kernels' within f32 rounding ([`GpuWeight::plan_for`]).
pub fn solve_dense<W: GpuWeight>(gpu: &Gpu, d: &mut [W], n: usize) -> crate::Result<FloatSolve> {
    check_cells(d, n)?;
    Ok(solve(gpu, d, n, W::plan_for(d, n), None)?)
}

/// [`solve_dense`] with a signed matrix reweighted for the `nonneg` kernels at any V
/// (`solve_dense` does it from [`REWEIGHT_MIN_V`] on); bad input where the type has no such
/// kernels (f64) or a value is NaN or -inf.
pub fn solve_dense_reweighted<W: GpuWeight>(
    gpu: &Gpu,
    d: &mut [W],
    n: usize,
) -> crate::Result<FloatSolve> {
    check_cells(d, n)?;
    match W::reweight_plan() {
        Some(plan) if W::reweightable(d) => Ok(solve(gpu, d, n, plan, None)?),
        Some(_) => Err(crate::Error::BadInput(
            "a matrix with NaN or -inf cannot be reweighted".into(),
        )),
        None => Err(crate::Error::BadInput(format!(
            "reweighting is for f32 matrices: the {} kernels have no nonneg shape",
            W::NAME
        ))),
    }
}

/// The bad-input error unless `d` holds the `n x n` cells of a matrix.
fn check_cells<W>(d: &[W], n: usize) -> crate::Result<()> {
    if d.len() != n * n {
        return Err(crate::Error::BadInput(format!(
            "a {n} x {n} matrix has {} cells, not {}",
            n * n,
            d.len()
        )));
    }
    Ok(())
}

/// The bad-input error if `cfg` is a `nonneg` shape and `d` is outside its domain: those kernels
/// would return wrong distances, not fail.
fn check_domain<W: GpuWeight>(d: &[W], cfg: &FwFloatConfig) -> crate::Result<()> {
    if cfg.nonneg && !W::all_nonneg(d) {
        return Err(crate::Error::BadInput(format!(
            "the {} kernels take values in +0 ..= +inf only, and this matrix has a negative value, -0 or NaN",
            cfg.variant
        )));
    }
    Ok(())
}

/// [`solve_dense`] with the phase-2/3 tile shape `cfg` (one of `fw_float_variants(W::NAME)`).
pub fn solve_dense_with<W: GpuWeight>(
    gpu: &Gpu,
    d: &mut [W],
    n: usize,
    cfg: FwFloatConfig,
) -> crate::Result<FloatSolve> {
    assert_eq!(
        cfg.weight,
        W::NAME,
        "a configuration of another weight type"
    );
    check_cells(d, n)?;
    check_domain(d, &cfg)?;
    Ok(solve(gpu, d, n, Plan::Kernels(cfg), None)?)
}

/// [`solve_dense_with`] with a persistent phase 3 (`cfg.persistent`) of at most `max_blocks`
/// blocks, so that each block walks several work items even on a small matrix (the tests).
pub fn solve_dense_with_blocks<W: GpuWeight>(
    gpu: &Gpu,
    d: &mut [W],
    n: usize,
    cfg: FwFloatConfig,
    max_blocks: u32,
) -> crate::Result<FloatSolve> {
    assert!(
        cfg.weight == W::NAME && cfg.persistent && max_blocks > 0,
        "a persistent configuration of this weight type and a grid of at least one block"
    );
    check_cells(d, n)?;
    check_domain(d, &cfg)?;
    Ok(solve(gpu, d, n, Plan::Kernels(cfg), Some(max_blocks))?)
}

/// The padded size and row pitch (cells) of an `n`-vertex matrix for `cfg`'s kernels, or the
/// bad-input error when the kernels cannot take it.
pub(crate) fn padded_size(cfg: &FwFloatConfig, n: usize) -> Result<(usize, usize)> {
    let b = cfg.block as usize;
    // A multiple of B is a multiple of 16 bytes per row for both types (asserted in the table).
    let (padded, pitch) = (n.div_ceil(b) * b, n.div_ceil(b) * b);
    if !block_row_fits(cfg.block, pitch as u64) || padded / b > u16::MAX as usize {
        return rgk_core::bad_input(format!(
            "V = {n} is too large for the {} Floyd–Warshall kernels",
            cfg.weight
        ));
    }
    Ok((padded, pitch))
}

/// Launches rounds `0..rounds_run` of the `rounds`-round solve of the padded matrix at `ptr`
/// (row pitch `pitch` cells) on the GPU's stream, without waiting. A persistent phase 3 runs
/// as many blocks as fit the GPU at once (at most `max_blocks`, if given, and at most its work
/// items).
pub(crate) fn launch_rounds<W: GpuWeight>(
    gpu: &Gpu,
    cfg: &FwFloatConfig,
    ptr: DevicePointer<W>,
    pitch: usize,
    rounds: u32,
    rounds_run: u32,
    max_blocks: Option<u32>,
) -> Result<()> {
    let get = |name: &str| gpu.function(name);
    let (p1, p2, p3) = (get(cfg.phase1)?, get(cfg.phase2)?, get(cfg.phase3)?);
    prefer_shared_memory(&p2)?;
    prefer_shared_memory(&p3)?;
    let (t1, t2) = (
        BlockSize::xy(cfg.pivot_threads, cfg.pivot_threads),
        BlockSize::xy(cfg.tile_threads_x, cfg.tile_threads_y),
    );
    let (t3x, t3y) = cfg.phase3_threads();
    let t3 = BlockSize::xy(t3x, t3y);
    let g3 = if cfg.persistent {
        // The kernel derives the round count from the pitch.
        anyhow::ensure!(
            pitch == rounds as usize * cfg.block as usize,
            "a persistent phase 3 needs the pitch of {rounds} blocks, not {pitch} cells"
        );
        let per_sm = p3.max_active_blocks_per_multiprocessor(t3, 0)?.max(1);
        let fit = per_sm * gpu.multiprocessors()?;
        GridSize::x(
            fit.min(max_blocks.unwrap_or(u32::MAX))
                .min(cfg.phase3_items(rounds))
                .max(1),
        )
    } else {
        let (g3x, g3y) = cfg.phase3_grid(rounds);
        GridSize::xy(g3x, g3y)
    };
    let (pitch32, stream) = (pitch as u32, &gpu.stream);
    for round in 0..rounds_run.min(rounds) {
        // SAFETY: the kernels take (d, pitch, round) on the padded matrix at `ptr` (rounds * B
        // rows of `pitch` cells, pitch a multiple of B, block rows checked by `padded_size` to
        // fit 32-bit offsets; the caller's buffer), with `FW_FLOAT`'s geometry: phase 1 one
        // block, phase 2 (rounds, 2), phase 3 `phase3_grid` of `phase3_threads` (persistent:
        // any x-only grid, pitch = rounds * B checked above), in order on one stream; the
        // caller keeps the buffer alive until the stream is synchronized.
        unsafe {
            launch!(p1<<<GridSize::x(1), t1, 0, stream>>>(ptr, pitch32, round))?;
            launch!(p2<<<GridSize::xy(rounds, 2), t2, 0, stream>>>(ptr, pitch32, round))?;
            launch!(p3<<<g3, t3, 0, stream>>>(ptr, pitch32, round))?;
        }
    }
    Ok(())
}

fn solve<W: GpuWeight>(
    gpu: &Gpu,
    d: &mut [W],
    n: usize,
    plan: Plan,
    max_blocks: Option<u32>,
) -> Result<FloatSolve> {
    let given = plan.given();
    if n == 0 {
        return Ok(FloatSolve {
            negative_cycle: vec![],
            padded: 0,
            variant: given.variant,
            nonneg: given.nonneg,
            reweight: None,
            times: FloatTimes::default(),
        });
    }
    let (padded, pitch) = padded_size(&given, n)?;
    check_free_memory(
        padded * pitch * size_of::<W>(),
        format_args!("V = {n} ({padded} x {pitch} {} distances)", W::NAME),
    )?;
    let t0 = Instant::now();
    // Padding rows and columns are +inf (no edges): they never shorten a path.
    let mut host = vec![W::INF; padded * pitch];
    host.par_chunks_mut(pitch)
        .zip(d.par_chunks(n))
        .for_each(|(dst, src)| dst[..n].copy_from_slice(src));
    let dev = DeviceBuffer::from_slice(&host).context("copying the matrix to the GPU")?;
    let host_to_device_s = t0.elapsed().as_secs_f64();

    let rounds = (padded / given.block as usize) as u32;
    let (start, stop) = (
        Event::new(EventFlags::DEFAULT)?,
        Event::new(EventFlags::DEFAULT)?,
    );
    start.record(&gpu.stream)?;
    let (cfg, reweight) = run_plan(gpu, &plan, dev.as_device_ptr(), pitch, rounds, max_blocks)?;
    stop.record(&gpu.stream)?;
    stop.synchronize()
        .context("the float Floyd–Warshall kernels failed")?;
    let compute_s = stop.elapsed_time_f32(&start)? as f64 * 1e-3;

    let t0 = Instant::now();
    dev.copy_to(&mut host[..])
        .context("copying the distances back")?;
    d.par_chunks_mut(n)
        .zip(host.par_chunks(pitch))
        .for_each(|(dst, src)| dst.copy_from_slice(&src[..n]));
    Ok(FloatSolve {
        negative_cycle: negative_diagonal(d, n),
        padded,
        variant: cfg.variant,
        nonneg: cfg.nonneg,
        reweight,
        times: FloatTimes {
            host_to_device_s,
            compute_s,
            device_to_host_s: t0.elapsed().as_secs_f64(),
        },
    })
}

/// Runs `plan` on the padded square matrix at `ptr` (`rounds` blocks a side, row pitch `pitch`
/// = its size) on the GPU's stream: the rounds are queued without waiting, the potentials'
/// launches waited for one by one. Returns the kernels that closed it and, for
/// [`Plan::Reweighted`], the potentials' report.
pub(crate) fn run_plan<W: GpuWeight>(
    gpu: &Gpu,
    plan: &Plan,
    ptr: DevicePointer<W>,
    pitch: usize,
    rounds: u32,
    max_blocks: Option<u32>,
) -> Result<(FwFloatConfig, Option<ReweightReport>)> {
    let run = |cfg: FwFloatConfig| launch_rounds(gpu, &cfg, ptr, pitch, rounds, rounds, max_blocks);
    match *plan {
        Plan::Kernels(cfg) => {
            run(cfg)?;
            Ok((cfg, None))
        }
        Plan::Reweighted { nonneg, general } => {
            anyhow::ensure!(
                W::REWEIGHTS && nonneg.block == general.block,
                "{} matrices are not reweighted",
                W::NAME
            );
            let raw = ptr.as_raw();
            let (h, report) = potentials(gpu, raw, pitch, max_iterations(pitch))?;
            match h {
                Some(h) => {
                    reweight(gpu, raw, pitch, &h, false)?;
                    run(nonneg)?;
                    reweight(gpu, raw, pitch, &h, true)?;
                    // `h` is freed on return: the kernels that read it must be done.
                    gpu.stream
                        .synchronize()
                        .context("the reweighted float Floyd–Warshall kernels failed")?;
                    Ok((nonneg, Some(report)))
                }
                None => {
                    run(general)?;
                    Ok((general, Some(report)))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{GpuWeight, Plan, REWEIGHT_MIN_V};

    /// Non-negative matrices run the `nonneg` kernels at any V, signed f32 ones are reweighted
    /// from `REWEIGHT_MIN_V` on unless a value is NaN or -inf, f64 never.
    #[test]
    fn the_plan_follows_the_signs_and_the_size() {
        let (pos, neg) = ([0.0f32, 1.0, f32::INFINITY], [0.0f32, -1.0, 2.0]);
        let (big, small) = (REWEIGHT_MIN_V, REWEIGHT_MIN_V - 1);
        let nonneg = |p: Plan| matches!(p, Plan::Kernels(c) if c.nonneg);
        let general = |p: Plan| matches!(p, Plan::Kernels(c) if !c.nonneg);
        assert!(nonneg(f32::plan_for(&pos, 3)) && nonneg(f32::plan_for(&pos, big)));
        assert!(general(f32::plan_for(&neg, small)));
        assert!(
            matches!(f32::plan_for(&neg, big), Plan::Reweighted { nonneg, general }
            if nonneg.nonneg && !general.nonneg)
        );
        for bad in [f32::NAN, f32::NEG_INFINITY] {
            assert!(general(f32::plan_for(&[0.0, bad], big)), "{bad}");
        }
        assert!(general(f64::plan_for(&[0.0, -1.0], big)));
    }

    /// The `nonneg` kernels' domain is +0 ..= +inf, where the bit patterns as signed integers
    /// are ordered as the values; every other pattern (negative, -0, NaN) is outside it.
    #[test]
    fn the_nonneg_domain_is_plus_zero_to_plus_inf() {
        let inside = [0.0f32, f32::from_bits(1), 1.0, f32::MAX, f32::INFINITY];
        assert!(f32::all_nonneg(&inside));
        let mut sorted = inside.map(|x| x.to_bits() as i32);
        sorted.sort();
        assert_eq!(
            sorted,
            inside.map(|x| x.to_bits() as i32),
            "ordered as the values"
        );
        for bad in [-0.0f32, -1.0, -f32::INFINITY, f32::NAN, -f32::NAN] {
            assert!(!f32::all_nonneg(&[1.0, bad, 2.0]), "{bad:?}");
        }
        assert!(f64::all_nonneg(&[0.0, 5.0, f64::INFINITY]));
        assert!(!f64::all_nonneg(&[0.0, -0.0]));
        assert!(f32::all_nonneg(&[]));
    }
}

//! `host apsp-float`: the float Floyd–Warshall kernels' tile shapes timed at one V against their
//! own add-min ceiling, in one process (the measuring command of `docs/python.md`).
use anyhow::{Result, bail};
use clap::Args;
use gpu_kernels::apsp::float::{FwFloatConfig, fw_float_config_nonneg, fw_float_variants};
use host::{
    apsp::{
        float::{GpuWeight, Plan},
        float_bench::{Signs, bench},
    },
    gpu::Gpu,
};

use super::PtxArg;

#[derive(Args)]
pub struct ApspFloatArgs {
    /// Vertices of the random graph (40 edges per vertex, weights in [1, 100)).
    pub v: usize,
    /// Weight types, comma-separated: f32, f64.
    #[arg(long, default_value = "f32,f64", value_delimiter = ',')]
    pub weight: Vec<String>,
    /// Tile shapes to time: `default`, `nonneg` (the default for matrices without negative
    /// values), `reweighted` (f32: Johnson's potentials, then the `nonneg` default; timed whole),
    /// `all`, or names (`FW_FLOAT`'s `variant`), comma-separated.
    #[arg(long, default_value = "default", value_delimiter = ',')]
    pub variants: Vec<String>,
    /// Time only the first N rounds (every round costs the same); all by default.
    #[arg(long)]
    pub rounds: Option<u32>,
    /// Timed repetitions per variant (after one untimed pass); the median is reported.
    #[arg(long, default_value_t = 3, value_parser = super::at_least_one::<usize>)]
    pub reps: usize,
    /// Also time the ceiling kernel under the solves' load: one launch as long as the slowest
    /// solve after each timed repetition (the board at its power limit, as during the solves).
    #[arg(long)]
    pub sustained_ceiling: bool,
    /// Shift the weights by potentials p(u) − p(v), p uniform in [0, 50): a signed graph
    /// without negative cycles (for the general kernels and `reweighted`; `nonneg` refuses it).
    #[arg(long)]
    pub signed: bool,
    /// Print one JSON object (docs/json.md) instead of the text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ptx: PtxArg,
}

/// The variants of `weight` that `names` picks, the default first when picked; on a signed
/// graph none of the `nonneg` shapes, which would refuse it.
fn pick(weight: &str, names: &[String], signed: bool) -> Result<Vec<Plan>> {
    let all: Vec<FwFloatConfig> = fw_float_variants(weight).collect();
    if all.is_empty() {
        bail!("no float kernels for weight type {weight:?} (f32 or f64)");
    }
    if names.iter().any(|n| n == "all") {
        let keep = |c: &&FwFloatConfig| !(signed && c.nonneg);
        return Ok(all.iter().filter(keep).map(|&c| Plan::Kernels(c)).collect());
    }
    let nonneg = fw_float_config_nonneg(weight).filter(|c| c.nonneg);
    let mut out = Vec::new();
    for n in names {
        let c = if n == "default" {
            Plan::Kernels(all[0])
        } else if n == "reweighted" {
            let plan = match weight {
                "f32" => f32::reweight_plan(),
                _ => f64::reweight_plan(),
            };
            match plan {
                Some(plan) => plan,
                None => bail!("only f32 matrices are reweighted, not {weight}"),
            }
        } else {
            let c = match n.as_str() {
                "nonneg" => nonneg.unwrap_or(all[0]),
                _ => match all.iter().find(|c| c.variant == n) {
                    Some(c) => *c,
                    None => bail!("{weight} has no tile shape {n:?}"),
                },
            };
            if signed && c.nonneg {
                bail!(
                    "the {} kernels take no negative weight (--signed)",
                    c.variant
                );
            }
            Plan::Kernels(c)
        };
        if !out.contains(&c) {
            out.push(c);
        }
    }
    Ok(out)
}

pub fn run(args: &ApspFloatArgs) -> Result<()> {
    if args.v == 0 {
        bail!("V must be at least 1");
    }
    let picked: Vec<(String, Vec<Plan>)> = args
        .weight
        .iter()
        .map(|w| Ok((w.clone(), pick(w, &args.variants, args.signed)?)))
        .collect::<Result<_>>()?;
    let gpu = Gpu::new(args.ptx.ptx.as_deref())?;
    let info = gpu.info()?;
    let mut results = Vec::new();
    let sustained = args.sustained_ceiling;
    let signs = if args.signed {
        Signs::Shifted
    } else {
        Signs::Positive
    };
    for (w, cfgs) in &picked {
        let r = match w.as_str() {
            "f32" => bench::<f32>(&gpu, args.v, cfgs, signs, args.rounds, args.reps, sustained)?,
            _ => bench::<f64>(&gpu, args.v, cfgs, signs, args.rounds, args.reps, sustained)?,
        };
        if !args.json {
            for k in &r.ceilings {
                let c = &k.ceiling;
                println!(
                    "{} ceiling {}: {:.4e} add-mins/s ({:.1} per SM per clock at {} MHz)",
                    r.weight, k.peak, c.updates_per_s, c.per_sm_per_clock, c.clock_mhz
                );
                if let Some(s) = &k.sustained_ceiling {
                    println!(
                        "{} sustained ceiling {}: {:.4e} add-mins/s (launches of {} iterations, median {:.4} s of {:?})",
                        r.weight, k.peak, s.updates_per_s, s.iterations, s.median_s, s.runs_s
                    );
                }
            }
            for t in &r.variants {
                println!(
                    "  {:<12} V = {} ({} of {} rounds): median {:.4} s of {:?}, {:.4e}/s = {:.1}% of {}",
                    t.variant,
                    t.v,
                    t.rounds_timed,
                    t.padded / 64,
                    t.median_s,
                    t.runs_s,
                    t.updates_per_s,
                    t.percent_of_ceiling,
                    t.peak
                );
                if let Some(p) = t.percent_of_sustained_ceiling {
                    println!("  {:<12} {p:.1}% of the sustained ceiling", "");
                }
                if let Some(rw) = &t.reweight {
                    println!(
                        "  {:<12} reweighted: {} Bellman–Ford launches in {:.4} s, converged {}",
                        "", rw.iterations, rw.potentials_s, rw.converged
                    );
                    for k in r.ceilings.iter().filter(|k| k.peak != t.peak) {
                        let p = 100.0 * t.updates_per_s / k.ceiling.updates_per_s;
                        println!("  {:<12} {p:.1}% of {}", "", k.peak);
                    }
                }
                if let Some(d) = t.max_abs_diff_to_first {
                    println!(
                        "  {:<12} distances within {d:.3e} of the first variant's",
                        ""
                    );
                }
            }
        }
        results.push(r);
    }
    if args.json {
        return super::json::print("apsp-float", info.device(1), results);
    }
    Ok(())
}

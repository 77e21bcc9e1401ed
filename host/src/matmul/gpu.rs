//! Running the Rust SGEMM kernels: padding, launch geometry (from `gpu_kernels::matmul`), timing.
//! The flagship kernels need no padding: they are launched through [`super::flagship::FlagshipLaunch`].
use anyhow::{Context as _, Result, bail};
use cust::{
    function::{BlockSize, GridSize},
    launch,
    memory::{CopyDestination, DeviceBuffer, DevicePointer},
};
use gpu_kernels::matmul::{
    FLAGSHIP, FlagshipConfig, RUNG_TABLES, TILED, VECTORIZED, stream_k::Schedule,
};
use serde::Serialize;

use super::flagship::{FlagshipLaunch, dense_params, flagship_config};
use crate::gpu::{Gpu, Timing, time_on_stream};
use rgk_core::matmul::pad::{pad, round_up, unpad};

/// Largest accepted dimension (the CLI promises 1 ≤ each ≤ 16384).
pub const MAX_DIM: usize = 16384;

/// One launchable SGEMM kernel.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Kernel {
    pub name: &'static str,
    pub family: &'static str,
    pub block: (u32, u32),
    /// Output rows, output columns and k-depth of one block's tile.
    pub tile: (u32, u32, u32),
}

pub fn kernels() -> Vec<Kernel> {
    let tiled = TILED.iter().map(|c| Kernel {
        name: c.name,
        family: "tiled",
        block: c.block_dim(),
        tile: c.tile_mnk(),
    });
    let vectorized = VECTORIZED.iter().map(|c| Kernel {
        name: c.name,
        family: "vectorized",
        block: c.block_dim(),
        tile: c.tile_mnk(),
    });
    // The ladder's own rungs (docs/matmul.md), family named by their `Rung`.
    let rungs = RUNG_TABLES.iter().flat_map(|t| t.iter()).map(|c| Kernel {
        name: c.name,
        family: c.rung.family(),
        block: c.block_dim(),
        tile: c.tile_mnk(),
    });
    let flagship = FLAGSHIP.iter().map(|c| Kernel {
        name: c.name,
        family: FLAGSHIP_FAMILY,
        block: (c.threads(), 1),
        tile: (c.bm, c.bn, c.bk),
    });
    tiled
        .chain(vectorized)
        .chain(rungs)
        .chain(flagship)
        .collect()
}

/// The family name of the flagship kernels in [`kernels`].
pub const FLAGSHIP_FAMILY: &str = "flagship";

pub fn kernel(name: &str) -> Result<Kernel> {
    kernels()
        .into_iter()
        .find(|k| k.name == name)
        .with_context(|| {
            let names: Vec<_> = kernels().iter().map(|k| k.name).collect();
            format!(
                "no SGEMM kernel named {name:?}; known: {}",
                names.join(", ")
            )
        })
}

/// Checks a problem shape: every dimension in 1..=MAX_DIM ([`rgk_core::BadInput`] if not).
pub fn check_shape(m: usize, n: usize, k: usize) -> Result<()> {
    for (what, v) in [("M", m), ("N", n), ("K", k)] {
        if v == 0 || v > MAX_DIM {
            return rgk_core::bad_input(format!(
                "{what} = {v} is out of range: each dimension must be between 1 and {MAX_DIM}"
            ));
        }
    }
    Ok(())
}

/// Fails with one sentence when the padded problem does not fit in the GPU's free memory.
pub fn check_fits(bytes: usize) -> Result<()> {
    let (free, _total) = cust::memory::mem_get_info()?;
    if bytes > free {
        bail!(
            "the problem needs {:.2} GiB of GPU memory but only {:.2} GiB is free",
            bytes as f64 / (1u64 << 30) as f64,
            free as f64 / (1u64 << 30) as f64
        );
    }
    Ok(())
}

/// A row-major product to compute: `a` is m x k, `b` is k x n.
#[derive(Clone, Copy)]
pub struct Problem<'a> {
    pub a: &'a [f32],
    pub b: &'a [f32],
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

pub struct GpuResult {
    /// The m x n product, unpadded.
    pub c: Vec<f32>,
    pub timing: Timing,
    pub padded: (usize, usize, usize),
    /// The flagship kernels' schedule, with how many blocks ran stream-K.
    pub schedule: Option<(Schedule, u32)>,
}

/// Multiplies `a` (m x k) by `b` (k x n) with `kernel`: one warm-up launch, `reps` timed ones.
/// C is poisoned with NaN first, so an element no launch writes fails the check.
pub fn run(gpu: &Gpu, kernel: &Kernel, p: &Problem, reps: usize) -> Result<GpuResult> {
    if kernel.family == FLAGSHIP_FAMILY {
        return run_flagship(gpu, flagship_config(kernel.name)?, p, reps);
    }
    let Problem { a, b, m, n, k } = *p;
    check_shape(m, n, k)?;
    let (tm, tn, tk) = (
        kernel.tile.0 as usize,
        kernel.tile.1 as usize,
        kernel.tile.2 as usize,
    );
    let (mp, np, kp) = (round_up(m, tm), round_up(n, tn), round_up(k, tk));
    check_fits(4 * (mp * kp + kp * np + mp * np))?;
    let a_pad = pad(a, m, k, mp, kp);
    let b_pad = pad(b, k, n, kp, np);
    let d_a = DeviceBuffer::from_slice(&a_pad)?;
    let d_b = DeviceBuffer::from_slice(&b_pad)?;
    let d_c = DeviceBuffer::from_slice(&vec![f32::NAN; mp * np])?;
    let stream = &gpu.stream;
    let timing = time_on_stream(stream, 1, reps, || {
        launch_padded(
            gpu,
            kernel,
            [
                d_a.as_device_ptr(),
                d_b.as_device_ptr(),
                d_c.as_device_ptr(),
            ],
            (mp, np, kp),
        )
    })?;
    let mut c_pad = vec![0f32; mp * np];
    d_c.copy_to(&mut c_pad[..])?;
    Ok(GpuResult {
        c: unpad(&c_pad, mp, np, m, n),
        timing,
        padded: (mp, np, kp),
        schedule: None,
    })
}

/// Launches `kernel` on `gpu.stream` for a problem already padded to its tile multiples:
/// `a` is mp x kp, `b` kp x np, `c` mp x np, all dense row-major.
pub(crate) fn launch_padded(
    gpu: &Gpu,
    kernel: &Kernel,
    [a, b, c]: [DevicePointer<f32>; 3],
    (mp, np, kp): (usize, usize, usize),
) -> Result<()> {
    let (tm, tn) = (kernel.tile.0 as usize, kernel.tile.1 as usize);
    debug_assert!(mp % tm == 0 && np % tn == 0 && kp % kernel.tile.2 as usize == 0);
    let func = gpu.function(kernel.name)?;
    let grid = GridSize::xy((np / tn) as u32, (mp / tm) as u32);
    let block = BlockSize::xy(kernel.block.0, kernel.block.1);
    let stream = &gpu.stream;
    unsafe { launch!(func<<<grid, block, 0, stream>>>(a, b, c, np as u32, kp as u32)) }
        .with_context(|| format!("launching {}", kernel.name))
}

/// Times the flagship kernel `cfg` on a dense problem (`alpha = 1`, `beta = 0`, leading
/// dimensions equal to the widths, except B's for a `vec_b` kernel when N is not a multiple of
/// 4), with no padding: one warm-up launch, `reps` timed ones.
fn run_flagship(
    gpu: &Gpu,
    cfg: &'static FlagshipConfig,
    p: &Problem,
    reps: usize,
) -> Result<GpuResult> {
    let Problem { a, b, m, n, k } = *p;
    check_shape(m, n, k)?;
    // A kernel that copies B in 16-byte pieces needs rows a multiple of 4 floats apart: give B
    // such a leading dimension (a layout, the problem stays m x n x k).
    let ldb = if cfg.vec_b { round_up(n, 4) } else { n };
    check_fits(4 * (m * k + k * ldb + m * n))?;
    let d_a = DeviceBuffer::from_slice(a)?;
    let d_b = if ldb == n {
        DeviceBuffer::from_slice(b)?
    } else {
        DeviceBuffer::from_slice(&pad(b, k, n, k, ldb))?
    };
    let d_c = DeviceBuffer::from_slice(&vec![f32::NAN; m * n])?;
    let vec_b = n.is_multiple_of(4);
    let (group, schedule) = super::sgemm::launch_settings(gpu, cfg, m, n, k, vec_b);
    let params = dense_params([&d_a, &d_b, &d_c], (m, n, k), ldb, group);
    let launch = FlagshipLaunch::new(gpu, cfg, &params, schedule)?;
    let timing = time_on_stream(&gpu.stream, 1, reps, || launch.launch(&gpu.stream))?;
    let mut c = vec![0f32; m * n];
    d_c.copy_to(&mut c[..])?;
    Ok(GpuResult {
        c,
        timing,
        padded: (m, n, k),
        schedule: Some((schedule, launch.split().sk_blocks)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_has_a_unique_name_and_sane_tiles() {
        let all = kernels();
        for (i, k) in all.iter().enumerate() {
            assert!(
                all[i + 1..].iter().all(|o| o.name != k.name),
                "duplicate {}",
                k.name
            );
            assert!(k.block.0 * k.block.1 <= 1024, "{}", k.name);
            assert!(k.tile.0 > 0 && k.tile.1 > 0 && k.tile.2 > 0);
        }
        assert!(kernel("matmul_tiled_t32").is_ok());
        assert!(
            kernel("nope")
                .unwrap_err()
                .to_string()
                .contains("matmul_tiled_t16")
        );
    }

    #[test]
    fn every_rung_of_the_ladder_has_its_kernel() {
        for rung in gpu_kernels::matmul::Rung::ALL {
            let k = kernel(rung.kernel()).unwrap();
            assert_eq!(k.family, rung.family(), "{rung:?}");
        }
    }

    #[test]
    fn flagship_entries_take_one_params_struct() {
        // `FlagshipLaunch::launch` passes one pointer to an `SgemmParams`: the PTX entry must take
        // exactly one parameter of its size.
        let want = format!("[{}]", size_of::<gpu_kernels::matmul::SgemmParams>());
        for cfg in FLAGSHIP {
            let head = format!(".visible .entry {}(", cfg.name);
            let at = gpu_kernels::PTX
                .find(&head)
                .unwrap_or_else(|| panic!("{} not in the PTX", cfg.name));
            let params = &gpu_kernels::PTX[at + head.len()..];
            let params = &params[..params.find(')').unwrap()];
            assert_eq!(
                params.matches(".param").count(),
                1,
                "{}: {params}",
                cfg.name
            );
            assert!(params.trim().ends_with(&want), "{}: {params}", cfg.name);
            assert!(cfg.shared_bytes() <= 227 * 1024, "{}", cfg.name);
        }
    }

    #[test]
    fn shapes_are_checked() {
        assert!(check_shape(1, 1, 1).is_ok());
        assert!(check_shape(16384, 1, 16384).is_ok());
        let e = check_shape(0, 5, 5).unwrap_err().to_string();
        assert!(e.contains("M = 0"), "{e}");
        assert!(
            check_shape(5, 16385, 5)
                .unwrap_err()
                .to_string()
                .contains("N = 16385")
        );
    }
}

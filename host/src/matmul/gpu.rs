//! Running and timing every Rust SGEMM kernel (`host matmul`, `host bench`): padding, launch
//! geometry (from `gpu_kernels::matmul`), timing. The flagship kernels need no padding: they are
//! launched through [`super::flagship::FlagshipLaunch`], with the library's group and schedule.
use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, GridSize},
    launch,
    memory::{CopyDestination, DeviceBuffer, DeviceSlice},
};
use gpu_kernels::{
    matmul::{FlagshipConfig, FlagshipOpsConfig, stream_k::Schedule},
    registry::{self, Family},
};

use super::{
    flagship::{FlagshipLaunch, flagship_config},
    flagship_ops::{FlagshipOpsLaunch, flagship_ops_config},
    problem::{Gemm, Op, check_len, check_shape},
    select, select_ops,
    skinny::{SkinnyLaunch, skinny_config},
};
use crate::gpu::{Gpu, Timing, check_free_memory, time_on_stream};
use rgk_core::matmul::pad::{pad, round_up, unpad};

/// One launchable SGEMM kernel.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    pub name: &'static str,
    pub family: Family,
    pub block: (u32, u32),
    /// Output rows, output columns and k-depth of one block's tile.
    pub tile: (u32, u32, u32),
}

/// Every SGEMM kernel of the registry (the ladder in the study's order, the flagship, then the
/// skinny kernels).
pub fn kernels() -> Vec<Kernel> {
    registry::KERNELS
        .iter()
        .filter(|k| k.family.is_sgemm() || k.family.is_skinny())
        .filter_map(|k| {
            Some(Kernel {
                name: k.name,
                family: k.family,
                block: k.block,
                tile: k.tile?,
            })
        })
        .collect()
}

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
    if kernel.family == Family::Flagship {
        return run_flagship(gpu, flagship_config(kernel.name)?, p, reps);
    }
    if kernel.family == Family::FlagshipOps {
        return run_flagship_ops(gpu, flagship_ops_config(kernel.name)?, p, reps);
    }
    if kernel.family.is_skinny() {
        return run_skinny(gpu, kernel.name, p, reps);
    }
    let Problem { a, b, m, n, k } = *p;
    check_shape(m, n, k)?;
    let (tm, tn, tk) = (
        kernel.tile.0 as usize,
        kernel.tile.1 as usize,
        kernel.tile.2 as usize,
    );
    let (mp, np, kp) = (round_up(m, tm), round_up(n, tn), round_up(k, tk));
    check_free_memory(4 * (mp * kp + kp * np + mp * np), "the padded problem")?;
    let a_pad = pad(a, m, k, mp, kp);
    let b_pad = pad(b, k, n, kp, np);
    let d_a = DeviceBuffer::from_slice(&a_pad)?;
    let d_b = DeviceBuffer::from_slice(&b_pad)?;
    let d_c = DeviceBuffer::from_slice(&vec![f32::NAN; mp * np])?;
    let stream = &gpu.stream;
    let timing = time_on_stream(stream, 1, reps, || {
        launch_padded(gpu, kernel, [&d_a, &d_b, &d_c], (mp, np, kp))
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
/// `a` is mp x kp, `b` kp x np, `c` mp x np, all dense row-major (checked: the kernels do no
/// bounds checks of their own).
fn launch_padded(
    gpu: &Gpu,
    kernel: &Kernel,
    [a, b, c]: [&DeviceSlice<f32>; 3],
    (mp, np, kp): (usize, usize, usize),
) -> Result<()> {
    let (tm, tn, tk) = (
        kernel.tile.0 as usize,
        kernel.tile.1 as usize,
        kernel.tile.2 as usize,
    );
    anyhow::ensure!(
        mp % tm == 0 && np % tn == 0 && kp % tk == 0,
        "{mp}x{np}x{kp} is not padded to {}'s tile",
        kernel.name
    );
    check_len("A", a.len(), mp * kp, false)?;
    check_len("B", b.len(), kp * np, false)?;
    check_len("C", c.len(), mp * np, false)?;
    anyhow::ensure!(np <= u32::MAX as usize && kp <= u32::MAX as usize);
    let [a, b, c] = [a, b, c].map(|s| s.as_device_ptr());
    let func = gpu.function(kernel.name)?;
    let grid = GridSize::xy((np / tn) as u32, (mp / tm) as u32);
    let block = BlockSize::xy(kernel.block.0, kernel.block.1);
    let stream = &gpu.stream;
    // SAFETY: the ladder kernels take (a, b, c, n, k) as here and touch exactly the padded
    // mp x kp, kp x np and mp x np matrices, which the buffers (checked above) hold; the grid
    // has one block per tile; the buffers are the caller's, which waits for the stream before
    // it frees them (cuMemFree would wait for the device anyway).
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
    check_free_memory(4 * (m * k + k * ldb + m * n), "the problem")?;
    let d_a = DeviceBuffer::from_slice(a)?;
    let d_b = if ldb == n {
        DeviceBuffer::from_slice(b)?
    } else {
        DeviceBuffer::from_slice(&pad(b, k, n, k, ldb))?
    };
    let d_c = DeviceBuffer::from_slice(&vec![f32::NAN; m * n])?;
    let vec_b = n.is_multiple_of(4);
    let (group, schedule) = select::launch_settings(gpu, cfg, m, n, k, vec_b);
    let op = Gemm::new(m, n, k).leading_dims(k, ldb, n);
    let launch = FlagshipLaunch::new(gpu, cfg, &op, [&d_a, &d_b, &d_c], group, schedule)?;
    let timing = time_on_stream(&gpu.stream, 1, reps, || launch.launch())?;
    let mut c = vec![0f32; m * n];
    d_c.copy_to(&mut c[..])?;
    Ok(GpuResult {
        c,
        timing,
        padded: (m, n, k),
        schedule: Some((schedule, launch.split().sk_blocks)),
    })
}

/// Times the skinny kernel `name` on a dense problem (`alpha = 1`, `beta = 0`), with no padding:
/// one warm-up launch, `reps` timed ones (each the kernel and, when K is split, its reduction).
fn run_skinny(gpu: &Gpu, name: &str, p: &Problem, reps: usize) -> Result<GpuResult> {
    let Problem { a, b, m, n, k } = *p;
    check_shape(m, n, k)?;
    check_free_memory(4 * (m * k + k * n + m * n), "the problem")?;
    let d_a = DeviceBuffer::from_slice(a)?;
    let d_b = DeviceBuffer::from_slice(b)?;
    let d_c = DeviceBuffer::from_slice(&vec![f32::NAN; m * n])?;
    let launch = SkinnyLaunch::new(
        gpu,
        skinny_config(name)?,
        &Gemm::new(m, n, k),
        [&d_a, &d_b, &d_c],
    )?;
    let timing = time_on_stream(&gpu.stream, 1, reps, || launch.launch())?;
    let mut c = vec![0f32; m * n];
    d_c.copy_to(&mut c[..])?;
    Ok(GpuResult {
        c,
        timing,
        padded: (m, n, k),
        schedule: None,
    })
}

/// `rows x cols` row-major `m` stored transposed (`cols x rows`) in rows of `ld >= rows`.
fn transposed(m: &[f32], rows: usize, cols: usize, ld: usize) -> Vec<f32> {
    // Whole rows of `ld`: the 16-byte variants' last piece stays inside the buffer.
    let mut t = vec![0f32; cols * ld];
    for r in 0..rows {
        for c in 0..cols {
            t[c * ld + r] = m[r * cols + c];
        }
    }
    t
}

/// Times the variant `cfg` (transposed operands, batch of one) on the product `p` describes:
/// A and B stored as `cfg`'s operations read them (rows a multiple of 4 floats apart for the
/// straight copies of a 16-byte variant), one warm-up launch, `reps` timed ones.
fn run_flagship_ops(
    gpu: &Gpu,
    cfg: &'static FlagshipOpsConfig,
    p: &Problem,
    reps: usize,
) -> Result<GpuResult> {
    let Problem { a, b, m, n, k } = *p;
    check_shape(m, n, k)?;
    let [op_a, op_b] = cfg.ops;
    let wide = |w: usize| if cfg.vec { round_up(w, 4) } else { w };
    let lda = if op_a == Op::T { wide(m) } else { k };
    let ldb = if op_b == Op::T { k } else { wide(n) };
    let op = Gemm::new(m, n, k).ops(op_a, op_b).leading_dims(lda, ldb, n);
    check_free_memory(4 * (k * (lda + ldb) + m * n), "the problem")?;
    let sa = match op_a {
        Op::N => a.to_vec(),
        Op::T => transposed(a, m, k, lda),
    };
    let sb = match op_b {
        Op::N => pad(b, k, n, k, ldb),
        Op::T => transposed(b, k, n, ldb),
    };
    let d_a = DeviceBuffer::from_slice(&sa)?;
    let d_b = DeviceBuffer::from_slice(&sb)?;
    let d_c = DeviceBuffer::from_slice(&vec![f32::NAN; m * n])?;
    let (group, schedule) = select_ops::ops_launch_settings(true);
    let launch = FlagshipOpsLaunch::new(gpu, cfg, &op, [&d_a, &d_b, &d_c], group, schedule)?;
    let timing = time_on_stream(&gpu.stream, 1, reps, || launch.launch())?;
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
        // Every SGEMM kernel of the registry has a tile, so none is left out.
        let sgemm = registry::KERNELS
            .iter()
            .filter(|k| k.family.is_sgemm() || k.family.is_skinny());
        assert_eq!(all.len(), sgemm.count());
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
}

//! The predecessor matrix of solved float distances on the GPU: what the Python package's
//! `floyd_warshall(..., return_predecessors=True)` returns. The search and why its result is a
//! tree of shortest paths: `gpu_kernels::apsp::float_pred`; the CPU form it equals in meaning
//! (not cell for cell: where several shortest paths exist the two may name different ones):
//! [`rgk_core::minplus::predecessors`].
use std::ffi::c_void;

use anyhow::{Context as _, Result};
use cust::{
    event::{Event, EventFlags},
    function::{BlockSize, GridSize},
    memory::{CopyDestination, DeviceBuffer},
};
use gpu_kernels::apsp::float_pred::{
    FLOAT_PRED_THREADS, FLOAT_PRED_UNREACHED, FloatPredArgs, float_pred_kernel,
};
use rayon::prelude::*;
use rgk_core::minplus::{Csr, NO_PREDECESSOR, Weight, predecessor_row};
use serde::Serialize;

use super::float::GpuWeight;
use crate::gpu::{Gpu, check_free_memory};

/// What one predecessor search reports.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct PredReport {
    /// Levels searched (launches): the most edges on any path of the trees, plus one.
    pub levels: u32,
    /// The levels' GPU time (CUDA events), seconds.
    pub compute_s: f64,
    /// Rows the first tolerance left incomplete, finished on the CPU ([`predecessor_row`]).
    pub cpu_rows: usize,
}

/// The largest V the kernels' grid covers (one row of blocks per source: grid y ≤ 65535).
pub const MAX_VERTICES: usize = 65535;

/// The predecessor matrix `pred` (`n x n`) of the solved distances `dist` (`n x n`, no negative
/// cycle) of the graph `g`, as [`rgk_core::minplus::predecessors`] defines it, on the GPU.
pub fn predecessors<W: GpuWeight>(
    gpu: &Gpu,
    dist: &[W],
    n: usize,
    g: Csr<'_, W>,
    pred: &mut [i32],
) -> crate::Result<PredReport> {
    let nnz = g.indices.len();
    if dist.len() != n * n || pred.len() != n * n {
        return Err(crate::Error::BadInput(format!(
            "the distance and predecessor matrices of V = {n} need {} cells each, not {} and {}",
            n * n,
            dist.len(),
            pred.len()
        )));
    }
    if g.indptr.len() != n + 1
        || g.weights.len() != nnz
        || g.indptr.first() != Some(&0)
        || g.indptr.last() != Some(&(nnz as i64))
        || g.indptr.windows(2).any(|w| w[0] > w[1])
        || g.indices.iter().any(|&v| v < 0 || v as usize >= n)
    {
        return Err(crate::Error::BadInput(format!(
            "the edges are not a compressed sparse row graph on {n} vertices"
        )));
    }
    if n > MAX_VERTICES || nnz >= u32::MAX as usize {
        return Err(crate::Error::BadInput(format!(
            "the GPU predecessor search takes V ≤ {MAX_VERTICES} and fewer than 2^32 edges, \
             not V = {n} with {nnz} edges"
        )));
    }
    Ok(search(gpu, dist, n, g, pred)?)
}

/// The in-edges of every vertex (CSC), sources ascending: offsets, sources, weights.
fn in_edges<W: Weight>(n: usize, g: Csr<'_, W>) -> (Vec<u32>, Vec<u32>, Vec<W>) {
    let mut ptr = vec![0u32; n + 1];
    for &v in g.indices {
        ptr[v as usize + 1] += 1;
    }
    for v in 0..n {
        ptr[v + 1] += ptr[v];
    }
    let (mut src, mut w) = (vec![0u32; g.indices.len()], vec![W::ZERO; g.indices.len()]);
    let mut next = ptr.clone();
    // Rows in order, so each vertex's in-edges come out with ascending sources.
    for u in 0..n {
        for e in g.indptr[u] as usize..g.indptr[u + 1] as usize {
            let v = g.indices[e] as usize;
            let at = next[v] as usize;
            (src[at], w[at]) = (u as u32, g.weights[e]);
            next[v] += 1;
        }
    }
    (ptr, src, w)
}

fn search<W: GpuWeight>(
    gpu: &Gpu,
    dist: &[W],
    n: usize,
    g: Csr<'_, W>,
    pred: &mut [i32],
) -> Result<PredReport> {
    if n == 0 {
        return Ok(PredReport::default());
    }
    let cells = n * n;
    let nnz = g.indices.len();
    check_free_memory(
        cells * (size_of::<W>() + 8) + nnz * (4 + size_of::<W>()) + 4 * (n + 2),
        format_args!("the predecessors of V = {n} ({} distances)", W::NAME),
    )?;
    let (ptr, src, w) = in_edges(n, g);
    // The sources are reached at level 0; nothing else yet.
    let mut level = vec![FLOAT_PRED_UNREACHED; cells];
    level
        .par_chunks_mut(n)
        .enumerate()
        .for_each(|(i, r)| r[i] = 0);
    pred.fill(NO_PREDECESSOR);
    let up = |what: &str| format!("copying the {what} to the GPU");
    let d_dev = DeviceBuffer::from_slice(dist).with_context(|| up("distances"))?;
    let ptr_dev = DeviceBuffer::from_slice(&ptr).with_context(|| up("edge offsets"))?;
    // An empty slice cannot be uploaded: one unused element instead.
    let src_dev = DeviceBuffer::from_slice(if nnz == 0 { &[0] } else { &src[..] })
        .with_context(|| up("edges"))?;
    let zero = [W::ZERO];
    let w_dev = DeviceBuffer::from_slice(if nnz == 0 { &zero[..] } else { &w[..] })
        .with_context(|| up("weights"))?;
    let level_dev = DeviceBuffer::from_slice(&level).with_context(|| up("levels"))?;
    let pred_dev = DeviceBuffer::from_slice(pred).with_context(|| up("predecessors"))?;
    let mut changed = DeviceBuffer::from_slice(&[0u32])?;

    let name = float_pred_kernel(W::NAME).expect("every GpuWeight has a predecessor kernel");
    let f = gpu.function(name)?;
    let stream = &gpu.stream;
    let grid = GridSize::xy((n as u32).div_ceil(FLOAT_PRED_THREADS), n as u32);
    let mut args = FloatPredArgs {
        d: d_dev.as_device_ptr().as_raw() as *const W,
        in_ptr: ptr_dev.as_device_ptr().as_raw() as *const u32,
        in_src: src_dev.as_device_ptr().as_raw() as *const u32,
        in_w: w_dev.as_device_ptr().as_raw() as *const W,
        level: level_dev.as_device_ptr().as_raw() as *mut u32,
        pred: pred_dev.as_device_ptr().as_raw() as *mut i32,
        changed: changed.as_device_ptr().as_raw() as *mut u32,
        n: n as u32,
        iteration: 0,
        tol: W::REL_TOL,
    };
    let (start, stop) = (
        Event::new(EventFlags::DEFAULT)?,
        Event::new(EventFlags::DEFAULT)?,
    );
    let mut compute_s = 0.0;
    // A level reaches at least one cell or ends the search, so n levels reach every vertex.
    for iteration in 1..=n as u32 {
        args.iteration = iteration;
        changed.copy_from(&[0u32])?;
        start.record(stream)?;
        // The kernel's one parameter is the `#[repr(C)]` struct by value (as the flagship's).
        let params = [&args as *const FloatPredArgs<W> as *mut c_void];
        // SAFETY: the argument matches the kernel's signature (one FloatPredArgs of W, checked
        // against the PTX by a test below); its pointers are the live buffers above, sized as
        // the struct states (n x n distances, levels and predecessors, n + 1 offsets, nnz ≥ 1
        // edge slots, sources < n from the checked CSR), and nothing else touches them until
        // the stream is synchronized below; grid (ceil(n / THREADS), n) as the kernel wants.
        unsafe { stream.launch(&f, grid, BlockSize::x(FLOAT_PRED_THREADS), 0, &params) }
            .with_context(|| format!("launching {name}"))?;
        stop.record(stream)?;
        stop.synchronize()
            .with_context(|| format!("{name} failed"))?;
        compute_s += stop.elapsed_time_f32(&start)? as f64 * 1e-3;
        let mut flag = [0u32];
        changed.copy_to(&mut flag)?;
        if flag[0] == 0 {
            break;
        }
    }
    pred_dev
        .copy_to(pred)
        .context("copying the predecessors back")?;
    level_dev
        .copy_to(&mut level[..])
        .context("copying the levels back")?;
    // A row with a finite distance left unreached (rounding beyond the first tolerance) is
    // searched again on the CPU with the larger ones, as the CPU form does.
    let incomplete: Vec<usize> = (0..n)
        .into_par_iter()
        .filter(|&i| {
            let (d, l) = (&dist[i * n..(i + 1) * n], &level[i * n..(i + 1) * n]);
            d.iter()
                .zip(l)
                .any(|(&dv, &lv)| lv == FLOAT_PRED_UNREACHED && dv != W::INF)
        })
        .collect();
    let rows: Vec<(usize, Vec<i32>)> = incomplete
        .par_iter()
        .map(|&i| {
            let mut row = vec![NO_PREDECESSOR; n];
            predecessor_row(i, &dist[i * n..(i + 1) * n], g, &mut row, &mut Vec::new());
            (i, row)
        })
        .collect();
    for (i, row) in rows {
        pred[i * n..(i + 1) * n].copy_from_slice(&row);
    }
    Ok(PredReport {
        levels: args.iteration,
        compute_s,
        cpu_rows: incomplete.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_edges_list_sources_in_ascending_order() {
        // 0 -> 2 (1.0), 1 -> 2 (2.0), 2 -> 0 (3.0), 1 -> 0 (4.0)
        let indptr = [0i64, 1, 3, 4];
        let indices = [2, 0, 2, 0];
        let weights = [1.0f32, 4.0, 2.0, 3.0];
        let g = Csr {
            indptr: &indptr,
            indices: &indices,
            weights: &weights,
        };
        let (ptr, src, w) = in_edges(3, g);
        assert_eq!(ptr, [0, 2, 2, 4]);
        assert_eq!(src, [1, 2, 0, 1]);
        assert_eq!(w, [4.0, 3.0, 1.0, 2.0]);
    }

    #[test]
    fn the_kernels_take_one_args_struct() {
        // `search` passes one pointer to a `FloatPredArgs`: each entry must take exactly one
        // parameter of its size.
        for (weight, name) in gpu_kernels::apsp::float_pred::FLOAT_PRED_KERNELS {
            let size = match weight {
                "f32" => size_of::<FloatPredArgs<f32>>(),
                _ => size_of::<FloatPredArgs<f64>>(),
            };
            let params = crate::gpu::ptx_entry_params(gpu_kernels::PTX, name)
                .unwrap_or_else(|| panic!("{name} not in the PTX"));
            assert_eq!(params.matches(".param").count(), 1, "{name}: {params}");
            assert!(
                params.trim().ends_with(&format!("[{size}]")),
                "{name}: {params}"
            );
        }
    }
}

//! One process per GPU, on any number of hosts (`host apsp G -o D --distributed`, or any
//! `host apsp` run with `WORLD_SIZE` set): the multi-GPU Floyd–Warshall of `multi` (block rows
//! per rank, the pivot row of every round broadcast with NCCL, the same kernels), with the
//! ranks started by a launcher (`rgk_core::ranks`: torchrun's variables, `mpirun`'s, `srun`'s;
//! `scripts/apsp-launch.sh` on one host).
//!
//! - Rendezvous (`bootstrap`): rank 0 makes NCCL's unique id and hands it to the others over
//!   TCP at `MASTER_ADDR:MASTER_PORT`; every rank then joins the communicator
//!   (`ncclCommInitRank`) on its GPU (`LOCAL_RANK`).
//! - Every rank reads the input and builds its own block rows on its GPU.
//! - The output: rank 0 creates it beside the destination under a temporary name, sized;
//!   after a barrier every rank writes its own rows at their offsets; after a second barrier
//!   rank 0 renames it into place. The file system must be shared across hosts.
//! - A rank that dies: its TCP connection closes; rank 0's watchdog aborts NCCL, removes the
//!   temporary file and exits with one sentence, which closes its connections, so the others
//!   do the same. No output is left.
//!
//! - The rounds are the one-process loop (`multi::Rounds`, look-ahead included) on this
//!   rank's GPU, its broadcasts through this rank's communicator.
mod bootstrap;

pub use bootstrap::{Control, join, serve};

use std::{
    fs::OpenOptions,
    os::unix::fs::FileExt,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use anyhow::{Context as _, Result};
use cust::memory::DeviceBuffer;
use rgk_core::{
    apsp::{
        format::{Edge, Graph, encode, output_len, row_bytes},
        limits::ensure_gpu_addressable,
        split::{PIVOT_BUFFERS, block_rows, bytes_per_gpu},
    },
    ranks::Ranks,
};
use serde::Serialize;

use super::{
    gpu::{geometry, init_on_device},
    multi::{Collective, Kernels, Lane, Rounds, config, warm_up},
    nccl::{AbortHandle, RankComm, UNIQUE_ID_BYTES, UniqueId, unique_id},
};
use crate::gpu::{Gpu, check_free_memory};

/// How long ranks wait for each other at the rendezvous.
pub const RENDEZVOUS_TIMEOUT: Duration = Duration::from_secs(120);

/// What one rank did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RankReport {
    pub rank: usize,
    pub world_size: usize,
    pub local_rank: usize,
    pub block_rows: usize,
    pub first_block_row: usize,
    /// Rendezvous and `ncclCommInitRank`.
    pub setup_s: f64,
    /// Building this rank's rows on its GPU.
    pub fill_s: f64,
    /// Every round, this rank's view (host clock, first launch to the last kernel's end).
    pub compute_s: f64,
    /// Copying its rows out and writing them at their offsets.
    pub write_s: f64,
}

/// The temporary name of the output while the ranks write it: beside it, so that the rename
/// stays on one file system.
pub fn partial_path(output: &Path) -> PathBuf {
    let mut name = output.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    output.with_file_name(name)
}

/// Solves `graph` as rank `ranks.rank` of `ranks.world_size` and writes this rank's rows of
/// the distances into `output` (rank 0 puts the file in place once every rank has written).
pub fn run_rank(
    ranks: &Ranks,
    gpu: &Gpu,
    graph: &Graph,
    output: &Path,
    block: u32,
) -> Result<RankReport> {
    let t = Instant::now();
    let (world, rank) = (ranks.world_size, ranks.rank);
    let (addr, port) = (ranks.master_addr.as_str(), ranks.master_port);
    let partial = partial_path(output);
    let (id, mut control) = if rank == 0 {
        let id = unique_id()?;
        let control = serve(addr, port, world, &id.internal, RENDEZVOUS_TIMEOUT)?;
        (id, control)
    } else {
        let (bytes, control) = join(addr, port, rank, world, RENDEZVOUS_TIMEOUT)?;
        let internal: [u8; UNIQUE_ID_BYTES] = bytes
            .try_into()
            .map_err(|b: Vec<u8>| anyhow::anyhow!("rank 0 sent a {}-byte NCCL id", b.len()))?;
        (UniqueId { internal }, control)
    };
    gpu.make_current()?;
    // Hooked before joining the communicator: a rank that dies meanwhile would leave the
    // others waiting in ncclCommInitRank.
    let abort: Arc<Mutex<Option<AbortHandle>>> = Arc::default();
    let hook_partial = partial.clone();
    let hook_abort = abort.clone();
    control.on_lost(move |lost| {
        if let Some(a) = *hook_abort.lock().unwrap_or_else(|p| p.into_inner()) {
            a.abort();
        }
        if rank == 0 {
            let _ = std::fs::remove_file(&hook_partial);
        }
        let who = if lost == 0 {
            "rank 0".to_string()
        } else {
            format!("rank {lost}")
        };
        eprintln!(
            "error: {who} stopped before the distributed solve finished; no output was written"
        );
        std::process::exit(1);
    });
    let comm = RankComm::init(&id, world, rank)?;
    *abort.lock().unwrap_or_else(|p| p.into_inner()) = Some(comm.abort_handle());
    let mut rep = RankReport {
        rank,
        world_size: world,
        local_rank: ranks.local_rank,
        setup_s: t.elapsed().as_secs_f64(),
        ..Default::default()
    };

    let cfg = config(block)?;
    let b = block as usize;
    let (padded, pitch) = geometry(graph.vertices, block);
    ensure_gpu_addressable(graph.vertices, block)?;
    let nb = padded / b;
    let parts = block_rows(nb, world);
    let mine = parts[rank].clone();
    (rep.block_rows, rep.first_block_row) = (mine.len(), mine.start);
    let rows = mine.start * b..mine.end * b;
    let edges: Vec<Edge> = graph
        .edges
        .iter()
        .filter(|e| rows.contains(&(e.src as usize)))
        .map(|e| Edge {
            src: e.src - rows.start as i32,
            ..*e
        })
        .collect();
    check_free_memory(
        bytes_per_gpu(mine.len(), b, pitch) + edges.len() * size_of::<Edge>(),
        format_args!(
            "rank {rank}'s {} block rows of V = {}",
            mine.len(),
            graph.vertices
        ),
    )?;
    let t = Instant::now();
    // SAFETY: written by the init kernel before anything reads it.
    let d = unsafe { DeviceBuffer::<i32>::uninitialized((rows.len() * pitch).max(1)) }
        .context("allocating on the GPU")?;
    let upload = if rows.is_empty() {
        None
    } else {
        // SAFETY: `d` holds this rank's rows of `pitch` i32 (≥ padded, a multiple of 4), kept
        // until the synchronize below.
        unsafe {
            init_on_device(
                gpu,
                &edges,
                d.as_device_ptr(),
                rows.len(),
                rows.start,
                pitch,
            )
        }?
    };
    gpu.stream
        .synchronize()
        .context("building this rank's rows")?;
    drop(upload);
    rep.fill_s = t.elapsed().as_secs_f64();

    // The rounds: the one-process loop (look-ahead included) on this rank's one GPU, its
    // broadcasts through this rank's communicator.
    let mut lanes = [Lane::new(
        gpu,
        Kernels::new(gpu, cfg, None)?,
        (!rows.is_empty()).then(|| d.as_device_ptr()),
        None,
        mine.clone(),
        PIVOT_BUFFERS,
        nb,
        b * pitch,
    )?];
    let collective = Collective::Rank {
        comm: &comm,
        first: rank,
        world,
    };
    warm_up(collective, &lanes, b * pitch)?;
    control.barrier()?;
    let t = Instant::now();
    Rounds {
        lanes: &mut lanes,
        collective,
        parts: parts.clone(),
        nb,
        b,
        pitch,
    }
    .all()?;
    gpu.stream
        .synchronize()
        .context("the distributed Floyd–Warshall failed")?;
    lanes[0]
        .comm
        .synchronize()
        .context("a pivot-row broadcast failed")?;
    comm.async_error()?;
    rep.compute_s = t.elapsed().as_secs_f64();
    drop(lanes);

    // The output: rank 0 sizes it, every rank writes its rows, rank 0 puts it in place.
    let t = Instant::now();
    // Rank 0 removes the unfinished file on any error from here on (the watchdog does when a
    // rank dies).
    let _unfinished = (rank == 0).then(|| Unfinished(partial.clone()));
    if rank == 0 {
        let f = std::fs::File::create(&partial)
            .with_context(|| format!("creating {}", partial.display()))?;
        f.set_len(output_len(graph.vertices))
            .with_context(|| format!("sizing {}", partial.display()))?;
    }
    control.barrier()?;
    write_rows(
        &partial,
        &d,
        rows.start..rows.end.min(graph.vertices),
        pitch,
        graph.vertices,
    )?;
    control.barrier()?;
    if rank == 0 {
        std::fs::rename(&partial, output)
            .with_context(|| format!("renaming {} into place", partial.display()))?;
    }
    rep.write_s = t.elapsed().as_secs_f64();
    control.barrier()?;
    control.done();
    Ok(rep)
}

/// Removes the output's temporary file when dropped (after the rename it is gone already).
struct Unfinished(PathBuf);

impl Drop for Unfinished {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Writes the rows `rows` (global indices, those of V only) of this rank's matrix `d`, whose
/// first row is `rows.start`, at their offsets in `path`: a few MiB per copy and write.
fn write_rows(
    path: &Path,
    d: &DeviceBuffer<i32>,
    rows: std::ops::Range<usize>,
    pitch: usize,
    v: usize,
) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    let chunk = ((16 << 20) / row_bytes(v) as usize).max(1);
    let mut buf = vec![0i32; chunk * v];
    let mut i = rows.start;
    while i < rows.end {
        let n = chunk.min(rows.end - i);
        let src = d.as_device_ptr().as_raw() + (4 * (i - rows.start) * pitch) as u64;
        // SAFETY: rows i..i + n of `d` (this rank's rows, `pitch` i32 apart, V ≤ pitch), and
        // `buf` holds n * v i32.
        unsafe { super::gpu::copy_rows_to_host(src, pitch, v, &mut buf[..n * v]) }?;
        file.write_all_at(encode(&buf[..n * v]), i as u64 * row_bytes(v))
            .with_context(|| format!("writing rows {i}..{} of {}", i + n, path.display()))?;
        i += n;
    }
    Ok(())
}

//! A batch file to file (`host apsp-batch`): one thread reads and validates the inputs ahead
//! (many files at once on the rayon pool),
//! the calling thread solves them a chunk at a time, another writes each chunk's outputs (in
//! parallel, each file whole through a temporary and a rename) while the next chunk computes.
//! A bad input is named with its file and byte offset (the format reader's sentence) and left
//! out; the others are still solved and written.
use std::{
    path::PathBuf,
    sync::mpsc::{Receiver, SyncSender, sync_channel},
    time::Instant,
};

use anyhow::Result;
use rayon::prelude::*;
use rgk_core::apsp::{
    Distances,
    format::{Graph, read_graph, write_distances},
};
use serde::Serialize;

use super::batch::{BATCH_CHUNK, BatchTimes};

/// What a batch run did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BatchReport {
    /// Inputs named, solved and written, and left out.
    pub inputs: usize,
    pub written: usize,
    /// One sentence per input that could not be read or written, naming its file.
    pub failures: Vec<String>,
    pub times: BatchTimes,
    /// Seconds the reader spent reading and validating (overlapped with the rest).
    pub read_s: f64,
    /// Seconds the writer spent writing (overlapped with the rest).
    pub write_s: f64,
    /// The whole batch, first read to last output in place.
    pub total_s: f64,
    /// Σ V³ / compute time.
    pub updates_per_s: f64,
}

/// A graph read (or why not), with its position in the batch.
type Read = (usize, Result<Graph>);

/// Solves every file of `inputs` into the file of the same position in `outputs` with `solve`
/// (the GPU's [`super::batch::solve_batch`], or the CPU in tests), `chunk` graphs per call.
/// Errors of single files end up in the report's `failures`; an error of `solve` itself (the
/// GPU) ends the batch.
pub fn solve_files(
    inputs: &[PathBuf],
    outputs: &[PathBuf],
    chunk: usize,
    mut solve: impl FnMut(&[Graph]) -> Result<(Vec<Distances>, BatchTimes)>,
) -> Result<BatchReport> {
    assert_eq!(inputs.len(), outputs.len(), "one output per input");
    let start = Instant::now();
    let chunk = chunk.clamp(1, BATCH_CHUNK);
    let mut report = BatchReport {
        inputs: inputs.len(),
        ..Default::default()
    };
    let (to_solver, from_reader) = sync_channel::<Read>(2 * chunk);
    let (to_writer, from_solver) = sync_channel::<Vec<(usize, Distances)>>(1);
    let outcome = std::thread::scope(|s| -> Result<()> {
        // Reading and writing each get their own threads, so that neither waits for the other's
        // tasks (a write blocked on the disk holding a worker the reader needs) or for the
        // solver's host-side work on the global pool.
        let cores = std::thread::available_parallelism().map_or(4, |n| n.get());
        let reader = s.spawn(move || in_pool((cores / 4).max(2), || read_all(inputs, to_solver)));
        let writer =
            s.spawn(move || in_pool((cores / 2).max(2), || write_all(outputs, from_solver)));
        let solved = solve_chunks(&from_reader, to_writer, chunk, &mut solve, &mut report);
        // Unblocks the reader if the solver stopped early.
        drop(from_reader);
        let read_s = reader
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        let (write_s, written, failed) = writer
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        report.read_s = read_s;
        report.write_s = write_s;
        report.written = written;
        report.failures.extend(failed);
        solved
    });
    outcome?;
    report.total_s = start.elapsed().as_secs_f64();
    report.updates_per_s = report.times.updates / report.times.compute_s.max(1e-12);
    Ok(report)
}

/// Runs `f` on a rayon pool of its own with `threads` threads (on the global pool if one
/// cannot be made).
fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// Inputs the reader reads at once, in parallel (then hands over in order).
const READ_AHEAD: usize = 256;

/// The reader thread: every input in order, read and validated `READ_AHEAD` files at a time
/// on the rayon pool (one thread alone is slower than the GPU and the disk). Returns its busy
/// seconds.
fn read_all(inputs: &[PathBuf], to_solver: SyncSender<Read>) -> f64 {
    let mut busy = 0.0;
    for (n, group) in inputs.chunks(READ_AHEAD).enumerate() {
        let t = Instant::now();
        let graphs: Vec<Result<Graph>> = group.par_iter().map(|p| read_graph(p)).collect();
        busy += t.elapsed().as_secs_f64();
        for (i, graph) in graphs.into_iter().enumerate() {
            if to_solver.send((n * READ_AHEAD + i, graph)).is_err() {
                return busy;
            }
        }
    }
    busy
}

/// The writer thread: each chunk's outputs in parallel. Returns its busy seconds, the files
/// written and one sentence per file that could not be.
fn write_all(
    outputs: &[PathBuf],
    from_solver: Receiver<Vec<(usize, Distances)>>,
) -> (f64, usize, Vec<String>) {
    let (mut busy, mut written, mut failed) = (0.0, 0, Vec::new());
    for solved in from_solver {
        let t = Instant::now();
        let results: Vec<Result<()>> = solved
            .par_iter()
            .map(|(i, d)| {
                let v = d.vertices();
                write_distances(&outputs[*i], d.as_slice(), v, v)
            })
            .collect();
        busy += t.elapsed().as_secs_f64();
        for r in results {
            match r {
                Ok(()) => written += 1,
                Err(e) => failed.push(format!("{e:#}")),
            }
        }
    }
    (busy, written, failed)
}

/// The calling thread: gathers `chunk` good graphs at a time, solves them, hands them to the
/// writer. Bad inputs go to the report.
fn solve_chunks(
    from_reader: &Receiver<Read>,
    to_writer: SyncSender<Vec<(usize, Distances)>>,
    chunk: usize,
    solve: &mut impl FnMut(&[Graph]) -> Result<(Vec<Distances>, BatchTimes)>,
    report: &mut BatchReport,
) -> Result<()> {
    let mut pending: Vec<(usize, Graph)> = Vec::with_capacity(chunk);
    let mut run = |pending: &mut Vec<(usize, Graph)>, report: &mut BatchReport| -> Result<()> {
        if pending.is_empty() {
            return Ok(());
        }
        let (index, graphs): (Vec<usize>, Vec<Graph>) = std::mem::take(pending).into_iter().unzip();
        let (solved, times) = solve(&graphs)?;
        let t = &mut report.times;
        t.compute_s += times.compute_s;
        t.updates += times.updates;
        t.launches += times.launches;
        t.blocked_launches += times.blocked_launches;
        t.single += times.single;
        // The writer ends only when this sender is dropped: a send fails only if it panicked.
        let _ = to_writer.send(index.into_iter().zip(solved).collect());
        Ok(())
    };
    for (i, graph) in from_reader {
        match graph {
            Ok(g) => pending.push((i, g)),
            Err(e) => report.failures.push(format!("{e:#}")),
        }
        if pending.len() >= chunk {
            run(&mut pending, report)?;
        }
    }
    run(&mut pending, report)
}

#[cfg(test)]
mod tests;

//! Streaming the rows into the [`OutputFile`]: the calling thread copies chunk after chunk out
//! of the solver into staging buffers, writer threads write them at their offsets.
use std::{
    ops::DerefMut,
    os::unix::fs::FileExt,
    sync::{
        Mutex,
        atomic::{AtomicBool, Ordering},
        mpsc,
    },
    time::Instant,
};

use anyhow::{Context, Result, anyhow, bail};
use rgk_core::apsp::format::{DISTANCE_BYTES, encode, output_len, row_bytes};

use super::{DIRECT_ALIGN, IoOptions, OutputFile, StreamReport};
use crate::apsp::rows::DeviceRows;

impl OutputFile {
    /// Streams all rows of `rows` into the file. `staging` holds the buffers the chunks pass
    /// through (at least two; each at least [`IoOptions::staging_len`] i32), pinned host memory
    /// for a GPU. Copies run on the calling thread (which owns the GPU context), writes on
    /// `io.writers` threads.
    pub fn write_rows<B>(
        &self,
        rows: &dyn DeviceRows,
        staging: Vec<B>,
        io: &IoOptions,
    ) -> Result<StreamReport>
    where
        B: DerefMut<Target = [i32]> + Send,
    {
        let v = rows.vertices();
        let row_bytes = row_bytes(v);
        if output_len(v) != self.len {
            bail!(
                "internal error: {v} x {v} distances do not fill {} bytes",
                self.len
            );
        }
        let need = io.staging_len(v);
        let chunk = io.chunk_bytes() as u64;
        if staging.len() < 2 || staging.iter().any(|b| b.len() < need) {
            bail!("internal error: staging needs at least two buffers of {need} i32");
        }
        let direct = self.direct.is_some();
        let mut rep = StreamReport {
            mode: if direct { "direct" } else { "buffered" }.into(),
            writers: io.writers.max(1),
            chunk_bytes: chunk as usize,
            buffers: staging.len(),
            staging_bytes: staging.iter().map(|b| DISTANCE_BYTES * b.len()).sum(),
            ..Default::default()
        };
        let start = Instant::now();
        let chunks = self.len.div_ceil(chunk);
        let (free_tx, free_rx) = mpsc::channel::<B>();
        let (full_tx, full_rx) = mpsc::sync_channel::<Job<B>>(staging.len());
        let full_rx = Mutex::new(full_rx);
        for b in staging {
            free_tx.send(b).expect("receiver alive");
        }
        let failed = AtomicBool::new(false);
        let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
        let intervals: Mutex<Vec<(f64, f64)>> = Mutex::new(Vec::new());
        let file = self.writer();

        let copied = std::thread::scope(|s| -> Result<f64> {
            for _ in 0..rep.writers {
                let free_tx = free_tx.clone();
                let (full_rx, failed, first_error, intervals) =
                    (&full_rx, &failed, &first_error, &intervals);
                s.spawn(move || {
                    loop {
                        let job = match full_rx.lock().unwrap_or_else(|e| e.into_inner()).recv() {
                            Ok(job) => job,
                            Err(_) => return,
                        };
                        let t0 = start.elapsed().as_secs_f64();
                        let bytes = encode(&job.buf[..]);
                        let len = if direct {
                            job.len.next_multiple_of(DIRECT_ALIGN)
                        } else {
                            job.len
                        };
                        let r = file.write_all_at(&bytes[job.at..job.at + len], job.offset);
                        let t1 = start.elapsed().as_secs_f64();
                        intervals
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((t0, t1));
                        if let Err(e) = r {
                            failed.store(true, Ordering::Relaxed);
                            first_error
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .get_or_insert(anyhow!(e).context(format!(
                                    "writing {} bytes at offset {}",
                                    job.len, job.offset
                                )));
                            return;
                        }
                        if free_tx.send(job.buf).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(free_tx);
            let mut copy_s = 0.0;
            for c in 0..chunks {
                if failed.load(Ordering::Relaxed) {
                    break;
                }
                // Err: every writer has stopped, each after recording an error.
                let Ok(mut buf) = free_rx.recv() else { break };
                let a = c * chunk;
                let b = (a + chunk).min(self.len);
                let (r0, r1) = (a / row_bytes, b.div_ceil(row_bytes));
                let lead = (a - r0 * row_bytes) as usize;
                // Start the rows so that byte `a` of the file lands on an aligned address (what
                // O_DIRECT needs); `lead` and the address are multiples of DISTANCE_BYTES.
                let addr = buf.as_ptr() as usize + lead;
                let pad = (addr.next_multiple_of(DIRECT_ALIGN) - addr) / DISTANCE_BYTES;
                let n = (r1 - r0) as usize * v;
                let t = Instant::now();
                rows.copy_rows(r0 as usize, &mut buf[pad..pad + n])
                    .with_context(|| format!("copying rows {r0}..{r1} of the result"))?;
                copy_s += t.elapsed().as_secs_f64();
                let job = Job {
                    buf,
                    at: DISTANCE_BYTES * pad + lead,
                    len: (b - a) as usize,
                    offset: a,
                };
                if full_tx.send(job).is_err() {
                    break;
                }
            }
            drop(full_tx);
            Ok(copy_s)
        });
        // The scope joined the writers; their error, if any, is the one to report.
        if let Some(e) = first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e.context(format!("cannot write {}", self.temp_path().display())));
        }
        rep.copy_s = copied?;
        if direct && !self.len.is_multiple_of(DIRECT_ALIGN as u64) {
            // The last direct write was rounded up to the alignment: cut the file to size.
            self.file().set_len(self.len)?;
        }
        rep.write_s = union_length(intervals.into_inner().unwrap_or_else(|e| e.into_inner()));
        rep.wall_s = start.elapsed().as_secs_f64();
        Ok(rep)
    }
}

/// One chunk in flight: `len` bytes of the file at `offset`, starting at byte `at` of `buf`.
struct Job<B> {
    buf: B,
    at: usize,
    len: usize,
    offset: u64,
}

/// Total length of a set of time intervals (overlaps counted once).
fn union_length(mut v: Vec<(f64, f64)>) -> f64 {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut total, mut end) = (0.0, f64::NEG_INFINITY);
    for (a, b) in v {
        if b > end {
            total += b - a.max(end);
            end = b;
        }
    }
    total
}

/// A row-major matrix in host memory (rows `pitch` apart) as [`DeviceRows`]: the CPU path
/// writes through the same streaming writer.
pub struct HostRows<'a> {
    pub dist: &'a [i32],
    pub vertices: usize,
    pub pitch: usize,
}

impl DeviceRows for HostRows<'_> {
    fn vertices(&self) -> usize {
        self.vertices
    }

    fn copy_rows(&self, first: usize, dst: &mut [i32]) -> Result<()> {
        let v = self.vertices;
        for (k, out) in dst.chunks_exact_mut(v.max(1)).enumerate() {
            let row = (first + k) * self.pitch;
            out.copy_from_slice(&self.dist[row..row + v]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use rgk_core::apsp::format::write_distances;

    use super::super::IoMode;
    use super::*;

    #[test]
    fn union_counts_overlaps_once() {
        assert_eq!(union_length(vec![(0.0, 1.0), (0.5, 2.0), (3.0, 4.0)]), 3.0);
        assert_eq!(union_length(vec![(1.0, 2.0), (0.0, 3.0)]), 3.0);
        assert_eq!(union_length(vec![]), 0.0);
    }

    /// Every chunk boundary case of the writer: sizes around rows, chunks and the alignment,
    /// buffered and direct (the test directory may refuse O_DIRECT; then both are buffered).
    /// The reference is rgk-core's one-pass writer of the format, whose own tests compare it
    /// with the course's expected outputs.
    #[test]
    fn streamed_file_equals_the_matrix() {
        let dir = tempfile::tempdir().unwrap();
        for (v, pitch) in [(1, 1), (3, 5), (64, 64), (1000, 1024), (2100, 2112)] {
            let dist: Vec<i32> = (0..v * pitch).map(|i| i as i32 * 7 - 3).collect();
            let reference = dir.path().join(format!("d{v}.reference"));
            write_distances(&reference, &dist, v, pitch).unwrap();
            let want = std::fs::read(&reference).unwrap();
            for mode in [IoMode::Buffered, IoMode::Direct] {
                let path = dir.path().join(format!("d{v}_{mode:?}.out"));
                let out = OutputFile::create(&path, output_len(v), mode).unwrap();
                let io = IoOptions {
                    mode,
                    writers: 2,
                    chunk_mib: 1,
                    prefault: true,
                };
                // The result must overwrite the whole placeholder.
                let placeholder = out.prefault(2, &|| true).unwrap();
                // 0 where O_DIRECT is in use (the file system may refuse it: tmpfs).
                let expect_placeholder = match out.direct {
                    None => output_len(v),
                    Some(_) => 0,
                };
                assert_eq!(placeholder, expect_placeholder, "V={v} {mode:?}");
                let staging = (0..3).map(|_| vec![0i32; io.staging_len(v)]).collect();
                let rows = HostRows {
                    dist: &dist,
                    vertices: v,
                    pitch,
                };
                out.write_rows(&rows, staging, &io).unwrap();
                out.persist().unwrap();
                assert!(std::fs::read(&path).unwrap() == want, "V={v} {mode:?}");
            }
        }
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "temporary files left: {left:?}");
    }
}

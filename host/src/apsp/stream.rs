//! The result file, streamed from a [`DeviceRows`] through a few bounded staging buffers: one
//! thread copies chunk k+1 out of the solver while writer threads write chunks k, k-1, ... at
//! their offsets (positioned writes into a preallocated temporary file), so neither the whole
//! V x V matrix nor a single writer thread bounds the time or the memory.
//!
//! The file is a temporary beside the output until it is complete and renamed; on any error,
//! and on Ctrl-C (see [`remove_partial_outputs_on_interrupt`]), it is removed.
use std::{
    fs::{File, OpenOptions},
    ops::DerefMut,
    os::unix::fs::{FileExt, OpenOptionsExt},
    os::unix::io::AsRawFd,
    path::{Path, PathBuf},
    sync::{
        Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc,
    },
    time::Instant,
};

use anyhow::{Context, Result, anyhow, bail};
use rgk_core::apsp::format::{persist, temp_beside};
use serde::Serialize;
use tempfile::NamedTempFile;

use super::rows::DeviceRows;

/// Bytes per chunk unless told otherwise: one copy out of the solver and one positioned write.
pub const DEFAULT_CHUNK_MIB: usize = 16;
/// Offset, length and memory alignment that O_DIRECT writes keep (the page size; every block
/// size in use divides it).
pub const DIRECT_ALIGN: usize = 4096;
/// Writer threads unless told otherwise.
pub const DEFAULT_WRITERS: usize = 8;

const _: () = assert!((1usize << 20).is_multiple_of(DIRECT_ALIGN));

/// How the output is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum IoMode {
    /// Positioned writes through the page cache.
    #[default]
    Buffered,
    /// O_DIRECT positioned writes (the page cache where the file system refuses O_DIRECT).
    Direct,
}

/// How to write the output.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct IoOptions {
    pub mode: IoMode,
    pub writers: usize,
    /// MiB per chunk (a multiple of [`DIRECT_ALIGN`] bytes, whatever the count).
    pub chunk_mib: usize,
    /// Buffered mode: write a placeholder into the file while the GPU computes
    /// ([`OutputFile::prefault`]).
    pub prefault: bool,
}

impl IoOptions {
    fn chunk_bytes(&self) -> usize {
        self.chunk_mib.max(1) << 20
    }

    /// i32 per staging buffer for V vertices: a chunk (or the whole file, if smaller), plus the
    /// partial rows at both ends and the alignment padding at both ends.
    pub fn staging_len(&self, vertices: usize) -> usize {
        let file = (4 * vertices * vertices).next_multiple_of(DIRECT_ALIGN);
        (self.chunk_bytes().min(file) + 2 * 4 * vertices + 2 * DIRECT_ALIGN) / 4
    }

    /// Staging buffers: enough that the copier stays ahead of the writers.
    pub fn staging_count(&self) -> usize {
        self.writers.max(1) + 2
    }
}

impl Default for IoOptions {
    fn default() -> Self {
        IoOptions {
            mode: IoMode::default(),
            writers: DEFAULT_WRITERS,
            chunk_mib: DEFAULT_CHUNK_MIB,
            prefault: true,
        }
    }
}

/// What the streaming stage did and how long each part took.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StreamReport {
    /// `buffered` or `direct`: what was used (direct may fall back).
    pub mode: String,
    pub writers: usize,
    pub chunk_bytes: usize,
    /// Staging buffers, and their host memory in all.
    pub buffers: usize,
    pub staging_bytes: usize,
    /// Time spent in `copy_rows` (device to host).
    pub copy_s: f64,
    /// Time during which at least one writer thread was in a write call.
    pub write_s: f64,
    /// The whole stage, first copy to the file complete and renamed.
    pub wall_s: f64,
    /// Bytes of placeholder written while the GPU computed ([`OutputFile::prefault`]).
    pub prefaulted_bytes: u64,
}

/// Temporary outputs that a Ctrl-C must remove. The lock is also held across each rename, so a
/// Ctrl-C either removes the temporary file or finds it already renamed, never half.
static PARTIAL: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn partial() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PARTIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Installs a SIGINT (Ctrl-C) handler that removes every temporary output still being written
/// and exits with status 130. Without it, Ctrl-C would kill the process before the temporary
/// file's destructor runs and leave the file behind.
pub fn remove_partial_outputs_on_interrupt() -> Result<()> {
    ctrlc::set_handler(|| {
        let paths = partial();
        for p in paths.iter() {
            let _ = std::fs::remove_file(p);
        }
        eprintln!("interrupted: no output written");
        // _exit, not exit: the main thread may be inside the CUDA driver, whose exit-time
        // teardown must not race with it.
        // SAFETY: terminates the process; nothing runs after it.
        unsafe { libc::_exit(130) };
    })
    .context("cannot install the Ctrl-C handler")
}

/// The output being written: a temporary file beside the target, preallocated to its final
/// size, renamed onto the target by [`OutputFile::persist`] and removed if dropped before.
pub struct OutputFile {
    temp: Option<NamedTempFile>,
    /// A second handle opened with O_DIRECT, when direct I/O is in use.
    direct: Option<File>,
    target: PathBuf,
    len: u64,
}

/// Reserves `len` bytes for `file` so that a full disk fails now, and no write has to extend
/// the file; falls back to `set_len` where the file system has no fallocate.
fn preallocate(file: &File, len: u64) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    // SAFETY: plain syscall on an open descriptor.
    let rc = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len as libc::off_t) };
    if rc == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) => Ok(file.set_len(len)?),
        _ => Err(err.into()),
    }
}

impl OutputFile {
    /// Creates the temporary file for `target` (`len` bytes), registered for removal on Ctrl-C.
    pub fn create(target: &Path, len: u64, mode: IoMode) -> Result<OutputFile> {
        // Under the lock, so that a Ctrl-C cannot fall between creating and registering.
        let temp = {
            let mut reg = partial();
            let temp = temp_beside(target)?;
            reg.push(temp.path().to_path_buf());
            temp
        };
        let mut out = OutputFile {
            temp: Some(temp),
            direct: None,
            target: target.to_path_buf(),
            len,
        };
        let path = out.temp_path().to_path_buf();
        if mode == IoMode::Direct {
            // Refused by some file systems (tmpfs): the page cache is then the only way.
            out.direct = OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_DIRECT)
                .open(&path)
                .ok();
        }
        let reserve = if out.direct.is_some() {
            len.next_multiple_of(DIRECT_ALIGN as u64)
        } else {
            len
        };
        preallocate(out.file(), reserve).with_context(|| {
            format!(
                "cannot reserve {reserve} bytes for {} (is the disk full?)",
                path.display()
            )
        })?;
        Ok(out)
    }

    fn temp_path(&self) -> &Path {
        self.temp
            .as_ref()
            .expect("temp file until persisted")
            .path()
    }

    fn file(&self) -> &File {
        self.temp
            .as_ref()
            .expect("temp file until persisted")
            .as_file()
    }

    /// The handle writes go through.
    fn writer(&self) -> &File {
        self.direct.as_ref().unwrap_or_else(|| self.file())
    }

    /// Writes zeros through the page cache over the file, from `threads` threads, chunk after
    /// chunk, for as long as `busy()` says the GPU is still computing. The cache pages the result
    /// is then written into already exist (allocated, mapped to the reserved blocks), so that
    /// write is a copy into memory rather than page allocation, which is what the buffered write
    /// costs on one file (docs/apsp.md). Stops at the first chunk boundary after the GPU is done:
    /// it never delays the result. `busy` is called on this thread only (it may need the GPU's
    /// context). Returns the bytes written; 0 with O_DIRECT, where the cache is not used.
    pub fn prefault(&self, threads: usize, busy: &dyn Fn() -> bool) -> Result<u64> {
        if self.direct.is_some() {
            return Ok(0);
        }
        let chunk = (DEFAULT_CHUNK_MIB as u64) << 20;
        let chunks = self.len.div_ceil(chunk);
        let next = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let zeros = vec![0u8; chunk as usize];
        let file = self.file();
        std::thread::scope(|s| -> Result<()> {
            let workers: Vec<_> = (0..threads.max(1))
                .map(|_| {
                    s.spawn(|| -> std::io::Result<()> {
                        while !stop.load(Ordering::Relaxed) {
                            let k = next.fetch_add(1, Ordering::Relaxed);
                            if k >= chunks {
                                break;
                            }
                            let len = chunk.min(self.len - k * chunk) as usize;
                            file.write_all_at(&zeros[..len], k * chunk)?;
                        }
                        Ok(())
                    })
                })
                .collect();
            while !workers.iter().all(|w| w.is_finished()) {
                if !busy() {
                    stop.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            for w in workers {
                w.join().expect("prefault thread panicked")?;
            }
            Ok(())
        })
        .context("writing the output's placeholder while the GPU computes")?;
        Ok((next.load(Ordering::Relaxed).min(chunks) * chunk).min(self.len))
    }

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
        let row_bytes = 4 * v as u64;
        if row_bytes * v as u64 != self.len {
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
            staging_bytes: staging.iter().map(|b| 4 * b.len()).sum(),
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
                        let bytes: &[u8] = bytemuck::cast_slice(&job.buf[..]);
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
                // O_DIRECT needs); `lead` and the address are multiples of 4.
                let addr = buf.as_ptr() as usize + lead;
                let pad = (addr.next_multiple_of(DIRECT_ALIGN) - addr) / 4;
                let n = (r1 - r0) as usize * v;
                let t = Instant::now();
                rows.copy_rows(r0 as usize, &mut buf[pad..pad + n])
                    .with_context(|| format!("copying rows {r0}..{r1} of the result"))?;
                copy_s += t.elapsed().as_secs_f64();
                let job = Job {
                    buf,
                    at: 4 * pad + lead,
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

    /// Renames the complete file onto the target.
    pub fn persist(mut self) -> Result<()> {
        let temp = self.temp.take().expect("temp file until persisted");
        self.direct = None;
        let mut reg = partial();
        let path = temp.path().to_path_buf();
        let r = persist(temp, &self.target);
        reg.retain(|p| *p != path);
        r
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let mut reg = partial();
            let path = temp.path().to_path_buf();
            drop(temp); // removes the file
            reg.retain(|p| *p != path);
        }
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
    use super::*;

    #[test]
    fn union_counts_overlaps_once() {
        assert_eq!(union_length(vec![(0.0, 1.0), (0.5, 2.0), (3.0, 4.0)]), 3.0);
        assert_eq!(union_length(vec![(1.0, 2.0), (0.0, 3.0)]), 3.0);
        assert_eq!(union_length(vec![]), 0.0);
    }

    /// Every chunk boundary case of the writer: sizes around rows, chunks and the alignment,
    /// buffered and direct (the test directory may refuse O_DIRECT; then both are buffered).
    #[test]
    fn streamed_file_equals_the_matrix() {
        let dir = tempfile::tempdir().unwrap();
        for (v, pitch) in [(1, 1), (3, 5), (64, 64), (1000, 1024), (2100, 2112)] {
            let dist: Vec<i32> = (0..v * pitch).map(|i| i as i32 * 7 - 3).collect();
            let want: Vec<u8> = (0..v)
                .flat_map(|i| {
                    dist[i * pitch..i * pitch + v]
                        .iter()
                        .flat_map(|x| x.to_le_bytes())
                })
                .collect();
            for mode in [IoMode::Buffered, IoMode::Direct] {
                let path = dir.path().join(format!("d{v}_{mode:?}.out"));
                let out = OutputFile::create(&path, (4 * v * v) as u64, mode).unwrap();
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
                    None => (4 * v * v) as u64,
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

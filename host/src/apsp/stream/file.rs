//! The output file while it is written: a temporary file beside the target, preallocated,
//! optionally given a placeholder while the GPU computes, renamed onto the target when complete,
//! removed on error, on drop and on Ctrl-C.
use std::{
    fs::{File, OpenOptions},
    os::unix::fs::{FileExt, OpenOptionsExt},
    os::unix::io::AsRawFd,
    path::{Path, PathBuf},
    sync::{
        Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
};

use anyhow::{Context, Result};
use rgk_core::apsp::format::{persist, temp_beside};
use tempfile::NamedTempFile;

use super::{DEFAULT_CHUNK_MIB, DIRECT_ALIGN, IoMode};

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
    pub(super) direct: Option<File>,
    target: PathBuf,
    pub(super) len: u64,
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

    pub(super) fn temp_path(&self) -> &Path {
        self.temp
            .as_ref()
            .expect("temp file until persisted")
            .path()
    }

    pub(super) fn file(&self) -> &File {
        self.temp
            .as_ref()
            .expect("temp file until persisted")
            .as_file()
    }

    /// The handle writes go through.
    pub(super) fn writer(&self) -> &File {
        self.direct.as_ref().unwrap_or_else(|| self.file())
    }

    /// Writes zeros through the page cache over the file, from `threads` threads, chunk after
    /// chunk, for as long as `busy()` says the GPU is still computing. The cache pages the result
    /// is then written into already exist (allocated, mapped to the reserved blocks), so that
    /// write is a copy into memory rather than page allocation, which is what the buffered write
    /// costs on one file (docs/apsp.md). Stops at the first chunk boundary after the GPU is done:
    /// it never delays the result. `busy` is called on this thread only. Returns the bytes
    /// written; 0 with O_DIRECT, where the cache is not used.
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

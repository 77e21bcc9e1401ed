//! The result file, streamed from a [`DeviceRows`](crate::apsp::rows::DeviceRows) through a few bounded staging buffers: one
//! thread copies chunk k+1 out of the solver while writer threads write chunks k, k-1, ... at
//! their offsets (positioned writes into a preallocated temporary file), so neither the whole
//! V x V matrix nor a single writer thread bounds the time or the memory.
//!
//! The file is a temporary beside the output until it is complete and renamed; on any error,
//! and on Ctrl-C (see [`remove_partial_outputs_on_interrupt`]), it is removed.
//!
//! - this module: the options and the report;
//! - `file`: the output file itself (temporary, preallocated, placeholder, rename, Ctrl-C);
//! - `write`: the copier and the writer threads.
use rgk_core::apsp::format::{DISTANCE_BYTES, output_len, row_bytes};
use serde::Serialize;

mod file;
mod write;

pub use file::{OutputFile, remove_partial_outputs_on_interrupt};
pub use write::HostRows;

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
        let file = (output_len(vertices) as usize).next_multiple_of(DIRECT_ALIGN);
        let row = row_bytes(vertices) as usize;
        (self.chunk_bytes().min(file) + 2 * row + 2 * DIRECT_ALIGN) / DISTANCE_BYTES
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

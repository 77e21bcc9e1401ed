//! The input of a file-to-file solve: the graph read and validated from its file, with the time
//! the read took (the first stage of the file-to-file time). `host apsp` reads it before it
//! opens the GPU, so that a bad file is named on any machine, with or without a driver.
use std::{
    path::{Path, PathBuf},
    time::Instant,
};

use anyhow::Result;
use rgk_core::apsp::format::{Graph, read_graph};

/// A graph file, read and validated.
pub struct GraphFile {
    pub path: PathBuf,
    pub graph: Graph,
    /// Seconds the read and the validation took.
    pub read_s: f64,
}

impl GraphFile {
    /// Reads and validates `path`; errors are one sentence naming the file
    /// ([`BadInput`](rgk_core::BadInput) for a malformed one).
    pub fn read(path: &Path) -> Result<GraphFile> {
        let start = Instant::now();
        let graph = read_graph(path)?;
        Ok(GraphFile {
            path: path.to_path_buf(),
            graph,
            read_s: start.elapsed().as_secs_f64(),
        })
    }
}

//! Files written whole: through a temporary file beside the target and a rename, so that a
//! failed write leaves no partial output.
use std::fs::Permissions;
use std::io::{BufWriter, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

/// Buffer size of the writer [`write_atomically`] hands out: large enough that syscalls do not
/// matter.
const WRITE_BUFFER: usize = 4 << 20;

/// A temporary file beside `path` (so the final rename stays on one file system), removed on
/// drop unless persisted. Created with mode 0666 minus the umask, like `File::create`, since the
/// persisted file is the output (tempfile's default 0600 would hide it from other users).
pub fn temp_beside(path: &Path) -> Result<NamedTempFile> {
    let name = path
        .file_name()
        .with_context(|| format!("{} has no file name", path.display()))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(&format!(".{}.", name.to_string_lossy()))
        .suffix(".tmp")
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))
}

/// Renames the finished temporary file onto `path`; on failure the temporary file is removed.
pub fn persist(temp: NamedTempFile, path: &Path) -> Result<()> {
    temp.persist(path)
        .map(drop)
        .map_err(|e| anyhow::Error::from(e.error))
        .with_context(|| format!("cannot rename the temporary file to {}", path.display()))
}

/// Writes `path` through a temporary file in the same directory and a rename, so a failed
/// write leaves no partial output. `fill` gets a large buffered writer. (Used for every file
/// the CLI writes whole, not only graphs.)
pub fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let temp = temp_beside(path)?;
    let mut writer = BufWriter::with_capacity(WRITE_BUFFER, temp.as_file());
    fill(&mut writer)
        .and_then(|()| Ok(writer.flush()?))
        .with_context(|| format!("cannot write {}", temp.path().display()))?;
    drop(writer);
    persist(temp, path)
}

#[cfg(test)]
mod tests {
    use std::fs::File;

    use super::*;
    use crate::apsp::format::{Edge, Graph, INF, write_distances, write_graph};

    #[test]
    fn outputs_get_the_permissions_of_a_created_file() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        File::create(&plain).unwrap();
        let want = std::fs::metadata(&plain).unwrap().permissions().mode();
        let g = Graph::from_edges(
            2,
            vec![Edge {
                src: 0,
                dst: 1,
                w: 3,
            }],
        )
        .unwrap();
        write_graph(&dir.path().join("g.in"), &g).unwrap();
        write_distances(&dir.path().join("d.out"), &[0, 3, INF, 0], 2, 2).unwrap();
        for name in ["g.in", "d.out"] {
            let mode = std::fs::metadata(dir.path().join(name))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode, want, "{name}: {mode:o}, File::create gives {want:o}");
        }
    }
}

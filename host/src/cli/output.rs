//! The one convention for files a command writes: `-o/--output FILE`, never one of the
//! command's inputs, and a note on stderr saying what was written and whether it replaced a
//! file that was there.
use std::{
    os::unix::fs::MetadataExt,
    path::{Path, PathBuf},
};

use anyhow::Result;

use super::progress::note;

/// A file a command is about to write, checked before any work starts.
#[derive(Debug)]
pub struct OutputFile {
    path: PathBuf,
    existed: bool,
}

impl OutputFile {
    /// Refuses `path` when it is one of `inputs` (the same file, under any name), and notes
    /// whether it exists, for [`OutputFile::wrote`]. The error is
    /// [`BadInput`](rgk_core::BadInput): one sentence, exit status 1.
    pub fn new(path: &Path, inputs: &[&Path]) -> Result<OutputFile> {
        let out_meta = std::fs::metadata(path).ok();
        if let Some(out) = &out_meta {
            for input in inputs {
                let same = std::fs::metadata(input)
                    .is_ok_and(|i| i.dev() == out.dev() && i.ino() == out.ino());
                if same {
                    return rgk_core::bad_input(format!(
                        "the output {} is the input {}: give another -o/--output",
                        path.display(),
                        input.display()
                    ));
                }
            }
        }
        Ok(OutputFile {
            path: path.to_path_buf(),
            existed: out_meta.is_some(),
        })
    }

    /// `given` (`-o/--output`), else `default` (checked the same way).
    pub fn or_default(given: Option<&Path>, default: PathBuf, inputs: &[&Path]) -> Result<Self> {
        OutputFile::new(given.unwrap_or(&default), inputs)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// "wrote PATH (detail)", plus "replacing the file that was there" when one was, on stderr.
    pub fn wrote(&self, detail: &str) {
        let detail = if detail.is_empty() {
            String::new()
        } else {
            format!(" ({detail})")
        };
        let replaced = if self.existed {
            ", replacing the file that was there"
        } else {
            ""
        };
        note(&format!("wrote {}{detail}{replaced}", self.path.display()));
    }
}

impl OutputFile {
    /// For files a command appends to (`bench -o`): "appended WHAT to PATH", or "wrote WHAT
    /// to PATH (a new file)", on stderr.
    pub fn appended(&self, what: &str) {
        if self.existed {
            note(&format!("appended {what} to {}", self.path.display()));
        } else {
            note(&format!(
                "wrote {what} to {} (a new file)",
                self.path.display()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_under_another_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("g.in");
        std::fs::write(&input, b"x").unwrap();
        let other_name = dir.path().join(".").join("g.in");
        let err = OutputFile::new(&other_name, &[&input]).unwrap_err();
        assert!(err.downcast_ref::<rgk_core::BadInput>().is_some());
        assert!(err.to_string().contains("is the input"), "{err}");
        let fresh = OutputFile::new(&dir.path().join("g.out"), &[&input]).unwrap();
        assert!(!fresh.existed);
        let other = dir.path().join("old.out");
        std::fs::write(&other, b"y").unwrap();
        assert!(OutputFile::new(&other, &[&input]).unwrap().existed);
    }
}

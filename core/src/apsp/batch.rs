//! The files of a batch (`host apsp-batch DIR|FILE… -o DIR`): which inputs the arguments name,
//! where each one's distances go, and the graphs of a batch cut into chunks by size class.
use std::{
    collections::HashMap,
    ffi::OsString,
    path::{Path, PathBuf},
};

use anyhow::Result;

/// Extension of the output files: input `NAME.EXT` (or `NAME`) gives `NAME.out`.
pub const OUTPUT_EXTENSION: &str = "out";

/// The input files named by `args`, in order: a file stands for itself, a directory for the
/// regular files directly in it, sorted by name (hidden files, names starting with `.`, left
/// out). A missing path, or nothing to read at all, is [`BadInput`](crate::BadInput).
pub fn expand_inputs(args: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut inputs = Vec::new();
    for arg in args {
        let meta = match std::fs::metadata(arg) {
            Ok(m) => m,
            Err(e) => return crate::bad_input(format!("cannot read {}: {e}", arg.display())),
        };
        if !meta.is_dir() {
            inputs.push(arg.clone());
            continue;
        }
        let listing = match std::fs::read_dir(arg) {
            Ok(l) => l,
            Err(e) => return crate::bad_input(format!("cannot list {}: {e}", arg.display())),
        };
        let mut files = Vec::new();
        for entry in listing {
            let entry = entry
                .map_err(|e| crate::BadInput(format!("cannot list {}: {e}", arg.display())))?;
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            // Symbolic links count as what they point to.
            let is_file = std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file());
            if is_file && !hidden {
                files.push(entry.path());
            }
        }
        files.sort();
        inputs.extend(files);
    }
    if inputs.is_empty() {
        return crate::bad_input("no input graphs: the directories given hold no files");
    }
    Ok(inputs)
}

/// The output file of `input` in `dir`: its name with the extension replaced by
/// [`OUTPUT_EXTENSION`].
pub fn output_path(input: &Path, dir: &Path) -> PathBuf {
    let mut name: OsString = input
        .file_stem()
        .map(OsString::from)
        .unwrap_or_else(|| OsString::from("graph"));
    name.push(".");
    name.push(OUTPUT_EXTENSION);
    dir.join(name)
}

/// [`output_path`] of every input, refusing two inputs that would share an output and an
/// output that is one of the inputs ([`BadInput`](crate::BadInput), naming both files).
pub fn output_paths(inputs: &[PathBuf], dir: &Path) -> Result<Vec<PathBuf>> {
    let outputs: Vec<PathBuf> = inputs.iter().map(|i| output_path(i, dir)).collect();
    let mut seen: HashMap<&Path, &Path> = HashMap::new();
    for (input, output) in inputs.iter().zip(&outputs) {
        if let Some(other) = seen.insert(output, input) {
            return crate::bad_input(format!(
                "{} and {} would both be written to {}; rename one of them",
                other.display(),
                input.display(),
                output.display()
            ));
        }
    }
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    for output in &outputs {
        if let Some(out) = canonical(output)
            && let Some(input) = inputs.iter().find(|i| canonical(i).as_ref() == Some(&out))
        {
            return crate::bad_input(format!(
                "the output {} of the batch is the input file {}",
                output.display(),
                input.display()
            ));
        }
    }
    Ok(outputs)
}

/// Cuts `sizes` (the vertex counts of a batch's graphs, in order) into runs for one launch
/// each: indices of graphs of the same size class (`class(v)`), at most `chunk` per run,
/// in the order each run fills up; graphs whose class is `None` come one per run.
pub fn chunks_by_class<C: Copy + Eq>(
    sizes: &[usize],
    chunk: usize,
    class: impl Fn(usize) -> Option<C>,
) -> Vec<Vec<usize>> {
    let mut open: Vec<(C, Vec<usize>)> = Vec::new();
    let mut runs = Vec::new();
    for (i, &v) in sizes.iter().enumerate() {
        let Some(c) = class(v) else {
            runs.push(vec![i]);
            continue;
        };
        let slot = match open.iter().position(|(k, _)| *k == c) {
            Some(s) => s,
            None => {
                open.push((c, Vec::new()));
                open.len() - 1
            }
        };
        open[slot].1.push(i);
        if open[slot].1.len() >= chunk.max(1) {
            runs.push(open.swap_remove(slot).1);
        }
    }
    runs.extend(open.into_iter().map(|(_, run)| run));
    runs
}

#[cfg(test)]
mod tests;

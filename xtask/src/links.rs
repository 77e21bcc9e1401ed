//! `cargo xtask check-links`: every Markdown link to a local file (README.md, docs/, the other
//! committed `*.md`) must resolve. Links to the web and in-page anchors are not checked; a link
//! inside a code span or fenced block is not a link.
use std::{
    fs,
    path::{Path, PathBuf},
};

use anyhow::{Result, bail};

/// Directories never scanned: build output, the fuzz corpus, vendored or fetched trees.
const SKIP_DIRS: &[&str] = &[
    "target",
    ".git",
    ".device",
    ".cuda",
    ".llvm",
    "corpus",
    "artifacts",
];

/// The targets of the inline links and images (`[text](target)`, `![alt](target)`) of one
/// Markdown text, outside code, as written.
pub fn link_targets(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans: text between backticks is not Markdown.
        let mut text = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                text.push_str(part);
            }
        }
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            // The target ends at the matching `)`; titles (`"..."`) after a space are dropped.
            let mut depth = 0;
            let mut end = None;
            for (i, c) in after.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 0 => {
                        end = Some(i);
                        break;
                    }
                    ')' => depth -= 1,
                    _ => {}
                }
            }
            let Some(end) = end else { break };
            let raw = after[..end].trim();
            let target = match raw.strip_prefix('<') {
                Some(r) => r.split('>').next().unwrap_or(""),
                None => raw.split_whitespace().next().unwrap_or(""),
            };
            if !target.is_empty() {
                out.push(target.to_string());
            }
            rest = &after[end..];
        }
    }
    out
}

/// Whether a link target points into this repository (not a URL, not only an anchor).
fn is_local(target: &str) -> bool {
    !(target.starts_with('#') || target.contains("://") || target.starts_with("mailto:"))
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type()?.is_dir() {
            if !SKIP_DIRS.contains(&name.as_str()) {
                markdown_files(&path, out)?;
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
    Ok(())
}

/// The broken local links under `root`, as "file: target" lines.
pub fn broken_links(root: &Path) -> Result<Vec<String>> {
    let mut files = Vec::new();
    markdown_files(root, &mut files)?;
    files.sort();
    let mut broken = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file)?;
        let dir = file.parent().unwrap_or(root);
        for target in link_targets(&text).into_iter().filter(|t| is_local(t)) {
            let path = target.split('#').next().unwrap_or("");
            let path = path.replace("%20", " ");
            if path.is_empty() {
                continue;
            }
            if !dir.join(&path).exists() {
                let shown = file.strip_prefix(root).unwrap_or(file);
                broken.push(format!("{}: {target}", shown.display()));
            }
        }
    }
    Ok(broken)
}

pub fn check_links(root: &Path) -> Result<()> {
    let broken = broken_links(root)?;
    if !broken.is_empty() {
        bail!(
            "{} Markdown link(s) to missing files:\n  {}",
            broken.len(),
            broken.join("\n  ")
        );
    }
    println!("every local Markdown link resolves");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_links_and_images_outside_code() {
        let md = "See [a](docs/a.md#x) and ![img](img/c.png \"title\").\n\
                  `[not](code.md)` and [web](https://example.com) [anchor](#top)\n\
                  ```\n[fenced](no.md)\n```\n[paren](data/f(1).txt) [b](<b c.md>)\n";
        assert_eq!(
            link_targets(md),
            [
                "docs/a.md#x",
                "img/c.png",
                "https://example.com",
                "#top",
                "data/f(1).txt",
                "b c.md"
            ]
        );
        assert!(!is_local("https://example.com") && !is_local("#top"));
        assert!(is_local("../logs/x.log"));
    }

    #[test]
    fn a_missing_target_is_reported_with_its_file() {
        let dir = std::env::temp_dir().join(format!("xtask_links_{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("docs")).unwrap();
        fs::write(
            dir.join("docs/ok.md"),
            "[up](../README.md) [gone](data/none.json)",
        )
        .unwrap();
        fs::write(dir.join("README.md"), "[docs](docs/ok.md)").unwrap();
        let broken = broken_links(&dir).unwrap();
        assert_eq!(broken, ["docs/ok.md: data/none.json"]);
        let _ = fs::remove_dir_all(&dir);
    }
}

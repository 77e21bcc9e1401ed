//! Markdown appended to a report from another file (`host report --include`) keeps working
//! links: each relative link target is rewritten from the included file's directory to the
//! report's, so the fragment's links resolve both where it lives and where it is included.
use std::path::{Component, Path, PathBuf};

/// `path` made absolute (against the current directory) and without `.` or `..`, lexically.
fn normalized(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `target` relative to the directory `base`, both as given on the command line (lexically:
/// symbolic links are not followed).
pub fn relative_to(target: &Path, base: &Path) -> PathBuf {
    let (t, b) = (normalized(target), normalized(base));
    let t: Vec<_> = t.components().collect();
    let b: Vec<_> = b.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

fn is_relative_file_link(target: &str) -> bool {
    !(target.is_empty()
        || target.starts_with('#')
        || target.starts_with('/')
        || target.contains("://")
        || target.starts_with("mailto:"))
}

/// `text` (Markdown from a file in directory `from`) with every relative inline link and image
/// target rewritten to be relative to directory `to`. Fenced code blocks are left alone.
pub fn rebase_links(text: &str, from: &Path, to: &Path) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        }
        if fenced {
            out.push_str(line);
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            out.push_str(&rest[..at + 2]);
            rest = &rest[at + 2..];
            let end = rest
                .find(|c: char| c == ')' || c.is_whitespace())
                .unwrap_or(rest.len());
            let target = &rest[..end];
            if is_relative_file_link(target) {
                let (path, anchor) = match target.split_once('#') {
                    Some((p, a)) => (p, format!("#{a}")),
                    None => (target, String::new()),
                };
                let mut rebased = relative_to(&from.join(path), to).display().to_string();
                if path.ends_with('/') && !rebased.ends_with('/') {
                    rebased.push('/');
                }
                out.push_str(&rebased);
                out.push_str(&anchor);
            } else {
                out.push_str(target);
            }
            rest = &rest[end..];
        }
        out.push_str(rest);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_follow_the_fragment_into_the_report() {
        let md = "([log](../logs/a.log)), [CSVs](ncu/), [apsp](../apsp.md#x), \
                  [web](https://e.org/a), [top](#top)\n```\n[code](../no.md)\n```\n";
        let got = rebase_links(md, Path::new("docs/data"), Path::new("docs"));
        assert_eq!(
            got,
            "([log](logs/a.log)), [CSVs](data/ncu/), [apsp](apsp.md#x), \
             [web](https://e.org/a), [top](#top)\n```\n[code](../no.md)\n```\n"
        );
        // Same directory: unchanged.
        let same = rebase_links("[a](b/c.md)", Path::new("docs"), Path::new("./docs"));
        assert_eq!(same, "[a](b/c.md)");
    }
}

//! Every `unsafe` in gpu-kernels explains itself, as `clippy::undocumented_unsafe_blocks` and
//! `clippy::missing_safety_doc` demand of the other crates. Clippy cannot check the kernels: their
//! modules compile only for nvptx64 (`#[cfg(target_arch = "nvptx64")]`), which `cargo clippy`
//! never builds. So this test reads the sources: an `unsafe` block (or `unsafe impl`) needs a
//! `// SAFETY:` comment in the comment lines right above the line that opens it (attributes may
//! sit in between), and an `unsafe fn` a `# Safety` section in its doc comment.

use std::path::{Path, PathBuf};

/// One line of source split into its code (comments, strings and char literals blanked) and
/// the text of the comments on it.
#[derive(Default)]
struct Line {
    code: String,
    comment: String,
}

/// Splits `src` into lines of code and comment, following line and (nested) block comments,
/// strings, raw strings and char literals across lines, so that `unsafe` in a comment or a
/// string is not code and `SAFETY:` in code is not a comment.
fn split(src: &str) -> Vec<Line> {
    let chars: Vec<char> = src.chars().collect();
    let mut lines = vec![Line::default()];
    let mut i = 0;
    // Nesting depth of block comments; > 0 while inside one.
    let mut block = 0usize;
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            lines.push(Line::default());
            i += 1;
            continue;
        }
        let line = lines.last_mut().unwrap();
        if block > 0 {
            if at(i, "*/") {
                block -= 1;
                i += 2;
            } else if at(i, "/*") {
                block += 1;
                i += 2;
            } else {
                line.comment.push(c);
                i += 1;
            }
        } else if at(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                line.comment.push(chars[i]);
                i += 1;
            }
        } else if at(i, "/*") {
            block = 1;
            i += 2;
        } else if c == '"' || (c == 'r' && (at(i + 1, "\"") || at(i + 1, "#"))) {
            // A string: plain (escapes) or raw (`r"…"`, `r#"…"#`); its newlines still count.
            let raw = c == 'r';
            let mut hashes = 0;
            i += 1;
            if raw {
                while at(i, "#") {
                    hashes += 1;
                    i += 1;
                }
                if !at(i, "\"") {
                    // `r#ident`, not a string.
                    line.code.push('r');
                    continue;
                }
                i += 1;
            }
            let close: String = std::iter::once('"')
                .chain((0..hashes).map(|_| '#'))
                .collect();
            line.code.push_str("\"\"");
            while i < chars.len() && !at(i, &close) {
                if chars[i] == '\n' {
                    lines.push(Line::default());
                } else if !raw && chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += close.chars().count();
        } else if c == '\'' && (at(i + 2, "'") || at(i + 1, "\\")) {
            // A char literal ('x', '\n', '\u{..}'); a lifetime has no closing quote.
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            line.code.push_str("' '");
        } else {
            line.code.push(c);
            i += 1;
        }
    }
    lines
}

/// Byte positions of `word` as a whole word (not part of an identifier) in `code`.
fn word_at(code: &str, word: &str) -> Vec<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(word)
        .map(|(p, _)| p)
        .filter(|&p| {
            let before = code[..p].chars().next_back();
            let after = code[p + word.len()..].chars().next();
            !before.is_some_and(ident) && !after.is_some_and(ident)
        })
        .collect()
}

/// The comments directly above line `n`: the lines before it that hold only comments or
/// attributes, up to the first line of other code or a blank line.
fn comments_above(lines: &[Line], n: usize) -> String {
    let mut text = Vec::new();
    for line in lines[..n].iter().rev() {
        let code = line.code.trim();
        let attribute = code.starts_with("#[") || code.starts_with("#![");
        if !code.is_empty() && !attribute {
            break;
        }
        if code.is_empty() && line.comment.trim().is_empty() {
            break;
        }
        text.push(line.comment.as_str());
    }
    text.reverse();
    text.join("\n")
}

/// `file:line: what is missing` for every undocumented `unsafe` in `src`.
fn undocumented(file: &str, src: &str) -> Vec<String> {
    let lines = split(src);
    let mut found = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        for p in word_at(&line.code, "unsafe") {
            let rest = line.code[p + "unsafe".len()..].trim_start();
            // `#[unsafe(no_mangle)]` and the like are attributes, not unsafe code.
            if rest.starts_with('(') {
                continue;
            }
            let above = comments_above(&lines, n);
            // What the `unsafe` introduces; on the next line when it ends this one.
            let next = lines.get(n + 1).map_or("", |l| l.code.trim_start());
            let rest = if rest.is_empty() { next } else { rest };
            let is_fn = rest.starts_with("fn") || rest.starts_with("extern");
            let missing = if is_fn {
                (!above.contains("# Safety")).then_some("an `unsafe fn` without a `# Safety` doc")
            } else {
                (!above.contains("SAFETY:"))
                    .then_some("an `unsafe` block without a `// SAFETY:` comment above it")
            };
            if let Some(what) = missing {
                found.push(format!("{file}:{}: {what}", n + 1));
            }
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_unsafe_in_gpu_kernels_says_why_it_is_sound() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    assert!(
        files.len() > 10,
        "gpu-kernels/src has only {} files?",
        files.len()
    );
    let mut found = Vec::new();
    let mut unsafes = 0;
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let name = path
            .strip_prefix(root.parent().unwrap())
            .unwrap()
            .display()
            .to_string();
        unsafes += split(&src)
            .iter()
            .map(|l| word_at(&l.code, "unsafe").len())
            .sum::<usize>();
        found.extend(undocumented(&name, &src));
    }
    // The kernels are full of raw pointers and inline PTX: finding none means the scan is broken.
    assert!(
        unsafes > 100,
        "only {unsafes} `unsafe` found in gpu-kernels/src"
    );
    assert!(
        found.is_empty(),
        "{} undocumented:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_scan_tells_comments_strings_and_code_apart() {
    let check = |src: &str| undocumented("t.rs", src);
    // Documented block and fn, a comment spanning lines, attributes in between.
    let ok = "/// Reads.\n///\n/// # Safety\n/// `p` is valid.\n#[inline]\npub unsafe fn f(p: *const u8) -> u8 {\n    // SAFETY: the caller's\n    // promise.\n    #[allow(unused)]\n    unsafe { *p }\n}\n";
    assert!(check(ok).is_empty(), "{:?}", check(ok));
    // `unsafe` in comments, strings, raw strings and block comments is not code.
    let quiet = "// unsafe {\n/* unsafe {\n   still unsafe { */\nconst S: &str = \"unsafe {\";\nconst R: &str = r#\"unsafe \"{\"#;\nconst C: char = '\"'; const U: &str = \"unsafe\";\nfn not_unsafe_fn() {}\n";
    assert!(check(quiet).is_empty(), "{:?}", check(quiet));
    // Missing comments, named by line; a blank line or code cuts the comment off; a comment
    // on the line below or inside the block does not count; `SAFETY:` in a string is no comment.
    let bad = "fn a() {\n    unsafe { x() };\n    // SAFETY: ok.\n\n    unsafe { x() };\n    // SAFETY: ok.\n    let y = 1;\n    unsafe { x() };\n    unsafe {\n        // SAFETY: too late.\n        x()\n    };\n    let s = \"// SAFETY:\"; unsafe { x() };\n}\n/// No section.\npub unsafe fn g() {}\n/* a block comment\n   SAFETY: not a Safety section */\nunsafe fn h() {}\n";
    assert_eq!(
        check(bad),
        [2, 5, 8, 9, 13, 16, 19].map(|n| format!(
            "t.rs:{n}: {}",
            if n >= 16 {
                "an `unsafe fn` without a `# Safety` doc"
            } else {
                "an `unsafe` block without a `// SAFETY:` comment above it"
            }
        ))
    );
    // A block comment above counts too, even spanning lines.
    let block = "fn a() {\n    /* SAFETY: the\n       reason. */\n    unsafe { x() };\n}\n";
    assert!(check(block).is_empty(), "{:?}", check(block));
}

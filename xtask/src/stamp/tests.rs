//! The stamp on a copy of the kernel tree in a temporary directory: no LLVM 7, no CUDA, no build.
use std::{fs, path::PathBuf};

use super::*;
use crate::env::repo_root;

/// A copy of what the stamp reads (the inputs, the manifests, the PTX) in a fresh directory.
struct Tree(PathBuf);

impl Tree {
    fn copy(name: &str) -> Tree {
        let dir = std::env::temp_dir().join(format!("xtask_stamp_{name}_{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let src = repo_root();
        let mut files = Vec::new();
        let ptx = ptx_files(&src).unwrap();
        for rel in INPUT_PATHS
            .iter()
            .chain(&["Cargo.toml", "Cargo.lock", "gpu-kernels/src/lib.rs"])
            .chain(&[ptx[0].as_str(), ptx[1].as_str()])
        {
            files_below(&src, rel, &mut files).unwrap();
        }
        for rel in files {
            let to = dir.join(&rel);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(src.join(&rel), to).unwrap();
        }
        Tree(dir)
    }

    fn edit(&self, rel: &str, f: impl FnOnce(String) -> String) {
        let path = self.0.join(rel);
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, f(text)).unwrap();
    }

    /// The check's error, which must be one sentence on one line.
    fn failure(&self) -> String {
        let msg = check(&self.0)
            .expect_err("the check should fail")
            .to_string();
        assert!(!msg.contains('\n'), "not one line: {msg}");
        assert_eq!(
            msg.matches(". ").count(),
            0,
            "more than one sentence: {msg}"
        );
        msg
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn editing_a_kernel_source_makes_the_ptx_stale() {
    let tree = Tree::copy("kernel");
    write(&tree.0).unwrap();
    check(&tree.0).unwrap();
    // Any kernel source: the first .rs file below gpu-kernels/src.
    let mut files = Vec::new();
    files_below(&tree.0, "gpu-kernels/src", &mut files).unwrap();
    files.sort();
    let kernel = files.iter().find(|f| f.ends_with(".rs")).unwrap().clone();
    tree.edit(&kernel, |t| t + "\n// edited without rebuilding the PTX\n");
    let msg = tree.failure();
    let ptx = paths(&tree.0).unwrap().0;
    assert!(
        msg.starts_with(&format!("{ptx} is stale: {kernel} changed since")),
        "{msg}"
    );
    assert!(msg.contains("cargo xtask build-ptx"), "{msg}");
    // build-ptx's rewrite of the stamp is all a regenerated tree needs.
    write(&tree.0).unwrap();
    check(&tree.0).unwrap();
}

#[test]
fn a_new_kernel_file_and_a_new_rust_cuda_rev_are_inputs_too() {
    let tree = Tree::copy("new");
    write(&tree.0).unwrap();
    fs::write(tree.0.join("gpu-kernels/src/zz_new.rs"), "// new\n").unwrap();
    assert!(tree.failure().contains("gpu-kernels/src/zz_new.rs changed"));
    fs::remove_file(tree.0.join("gpu-kernels/src/zz_new.rs")).unwrap();
    check(&tree.0).unwrap();

    let rev = &crate::env::RUST_CUDA_REV[..12];
    tree.edit("Cargo.toml", |t| t.replace(rev, "000000000000"));
    assert!(
        tree.failure()
            .contains("rust-cuda revision (Cargo.toml) changed")
    );
}

#[test]
fn a_hand_edited_ptx_or_a_missing_stamp_is_named() {
    let tree = Tree::copy("ptx");
    assert!(tree.failure().contains("has no freshness stamp"));
    write(&tree.0).unwrap();
    tree.edit(&paths(&tree.0).unwrap().0, |t| {
        t.replacen("//", "// hand-edited", 1)
    });
    assert!(tree.failure().contains("edited by hand"));
    // The Hopper module is checked the same way.
    write(&tree.0).unwrap();
    let sm90a = committed_sm90a_rel(&tree.0).unwrap();
    tree.edit(&sm90a, |t| t.replacen("//", "// hand-edited", 1));
    let msg = tree.failure();
    assert!(
        msg.starts_with(&sm90a) && msg.contains("edited by hand"),
        "{msg}"
    );
}

#[test]
fn every_input_is_listed_and_the_ptx_last() {
    let list = entries(&repo_root()).unwrap();
    let labels: Vec<&str> = list.iter().map(|e| e.label.as_str()).collect();
    for want in [
        "gpu-kernels/Cargo.toml",
        "gpu-kernels/src/lib.rs",
        "ptx-builder/build.rs",
        "ptx-builder/Cargo.toml",
        "rust-toolchain.toml",
    ] {
        assert!(labels.contains(&want), "{want} missing from {labels:?}");
    }
    assert_eq!(
        labels[labels.len() - 2..],
        [
            "gpu-kernels/ptx/gpu_kernels.ptx",
            "gpu-kernels/ptx/gpu_kernels.sm90a.ptx"
        ]
    );
    let lock = locked_closure(&repo_root(), &["gpu-kernels", "ptx-builder"]).unwrap();
    assert!(lock.iter().any(|l| l.starts_with("cuda_std ")), "{lock:?}");
    assert!(
        lock.iter().any(|l| l.starts_with("rustc_codegen_nvvm ")),
        "{lock:?}"
    );
    assert!(
        !lock.iter().any(|l| l.starts_with("cust ")),
        "the host's cust is no input"
    );
    // Stamps render and parse back unchanged.
    assert_eq!(parse(&render(&list)), list);
}

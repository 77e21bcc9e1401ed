//! `host apsp` file to file on the CPU path (no GPU needed): the output is byte-identical to
//! an independent reference (one Dijkstra per source, not the Floyd–Warshall the CLI runs), and
//! a run whose writes fail exits != 0 with one sentence and leaves neither the output nor a
//! temporary file behind.
mod common;

use common::{assert_failed_cleanly, host, reference_output, temp_dir};

#[test]
fn cpu_output_is_the_reference_in_both_io_modes() {
    let dir = temp_dir("modes");
    let made = host(
        &dir,
        &["apsp-gen", "257", "4000", "--seed", "3", "-o", "g.in"],
        None,
    );
    assert!(made.status.success());
    let expect = reference_output(&dir.join("g.in"));
    for io in ["buffered", "direct"] {
        let out = host(
            &dir,
            &["apsp", "g.in", "d.out", "--cpu", "--io", io, "--json"],
            None,
        );
        assert!(
            out.status.success(),
            "{io}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            std::fs::read(dir.join("d.out")).unwrap() == expect,
            "{io}: differs"
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let rep = &json["results"];
        assert!(rep["peak_rss_bytes"].as_u64().unwrap() > 0, "{rep}");
        assert!(rep["stream"]["wall_s"].as_f64().is_some(), "{rep}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cpu_run_whose_writes_fail_leaves_nothing() {
    let dir = temp_dir("full");
    let made = host(
        &dir,
        &["apsp-gen", "300", "3000", "--seed", "5", "-o", "g.in"],
        None,
    );
    assert!(made.status.success());
    // The output is 360000 bytes; the "disk" holds 100000.
    for io in ["buffered", "direct"] {
        let out = host(
            &dir,
            &["apsp", "g.in", "d.out", "--cpu", "--io", io],
            Some(100_000),
        );
        assert_failed_cleanly(&out, &dir, &format!("full disk, {io}"));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("File too large"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // An output path whose parent is a file.
    std::fs::write(dir.join("afile"), b"x").unwrap();
    let out = host(&dir, &["apsp", "g.in", "afile/d.out", "--cpu"], None);
    assert_failed_cleanly(&out, &dir, "parent is a file");
    let _ = std::fs::remove_dir_all(dir);
}

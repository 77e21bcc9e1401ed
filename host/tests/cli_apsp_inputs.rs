//! Inputs too large for a solver or for the machine, through the built binary: each one exits 1
//! with one sentence naming the numbers (what is needed, what there is) and leaves no file.
//! Host memory is checked before the allocation; an allocator that refuses anyway (simulated
//! here with RLIMIT_AS, so that the tests behave the same on any machine) is a sentence too.
//! Malformed files are named before the driver is needed: cli_apsp_files.rs; a good file on a
//! machine without a driver: cli_no_driver.rs.
mod common;

use common::{Run, Scratch, graph_bytes};
use rgk_core::{apsp::limits::MAX_VERTICES, memory::human_bytes};

/// Exit 1, one sentence on stderr (returned), nothing on stdout, and the directory holds
/// exactly `files` afterwards (no output, no temporary file).
fn refused(s: &Scratch, run: Run, files: &[&str]) -> String {
    let line = run.expect(1).one_line_error().to_string();
    assert_eq!(s.files(), files, "{line}");
    line
}

/// The sentence of a V x V matrix that does not fit: the bytes needed and either the bytes
/// available (checked first) or the allocation that failed.
fn assert_matrix_does_not_fit(line: &str, v: u64) {
    let needs = human_bytes(4 * v as u128 * v as u128);
    let matrix = format!("the {v} x {v} distance matrix");
    let checked = line.contains(&format!("{matrix} needs {needs} of host memory but only "))
        && line.ends_with(" is available");
    let refused = line.ends_with(&format!(
        "cannot allocate {needs} of host memory for {matrix}"
    ));
    assert!(checked || refused, "{line}");
}

#[test]
fn apsp_gen_refuses_a_v_no_solver_holds() {
    let s = Scratch::new();
    for v in [2_000_000_000, MAX_VERTICES + 1] {
        let line = refused(
            &s,
            s.host(&["apsp-gen", &v.to_string(), "1", "-o", "big.in"]),
            &[],
        );
        assert!(
            line.contains(&format!("V = {v} is more than any solver"))
                && line.contains(&format!("the largest is V = {MAX_VERTICES},")),
            "{line}"
        );
    }
}

/// The largest V apsp-gen writes, solved with `--cpu`: the matrix is named with its size and
/// the memory there is, instead of "capacity overflow".
#[test]
fn cpu_matrix_beyond_memory_at_the_largest_v_is_one_sentence() {
    let s = Scratch::new();
    let v = MAX_VERTICES.to_string();
    s.host(&["apsp-gen", &v, "1", "-o", "big.in"]).expect(0);
    let line = refused(&s, s.host(&["apsp", "big.in", "--cpu"]), &["big.in"]);
    assert_matrix_does_not_fit(&line, MAX_VERTICES as u64);
}

/// Files apsp-gen would not write, but the format allows: V = 2e9 (the issue's "capacity
/// overflow") and V = 10^6 (a 3.6 TiB matrix: more than any machine running the tests has).
#[test]
fn cpu_matrix_beyond_memory_is_one_sentence() {
    for v in [2_000_000_000, 1_000_000] {
        let s = Scratch::new();
        s.write("big.in", &graph_bytes(v, 1, &[(0, 1, 7)]));
        let line = refused(&s, s.host(&["apsp", "big.in", "--cpu"]), &["big.in"]);
        assert_matrix_does_not_fit(&line, v as u64);
        assert!(
            line.contains(" is available"),
            "checked before allocating: {line}"
        );
    }
}

/// A matrix that the available memory may hold but the allocator refuses (RLIMIT_AS of 4 GiB,
/// a 7.5 GiB matrix): a sentence, not "memory allocation failed" and an abort.
#[test]
fn cpu_matrix_the_allocator_refuses_is_one_sentence() {
    let s = Scratch::new();
    let v = 45_000;
    s.write("g.in", &graph_bytes(v, 1, &[(0, 1, 7)]));
    let run = s.host_with_address_space(&["apsp", "g.in", "--cpu"], 4 << 30);
    let line = refused(&s, run, &["g.in"]);
    assert_matrix_does_not_fit(&line, v as u64);
}

/// A graph file whose edge list does not fit: 10^9 edges (a sparse 12 GB file that takes no
/// disk), read under RLIMIT_AS of 16 GiB, which lets the file be mapped but not copied.
#[test]
fn edge_list_beyond_memory_is_one_sentence() {
    let s = Scratch::new();
    let e: u64 = 1_000_000_000;
    let path = s.write("big.in", &graph_bytes(65_536, e as i32, &[]));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(8 + 12 * e)
        .unwrap();
    let run = s.host_with_address_space(&["apsp", "big.in", "--cpu"], 16 << 30);
    let line = refused(&s, run, &["big.in"]);
    let needs = human_bytes(12 * e as u128);
    assert!(
        line.starts_with("error: cannot read graph big.in: ")
            && (line.contains(&format!(
                "the list of {e} edges needs {needs} of host memory"
            )) || line.ends_with(&format!(
                "cannot allocate {needs} of host memory for the list of {e} edges"
            ))),
        "{line}"
    );
}

/// apsp-gen's edge list and pair set, past what the allocator gives (RLIMIT_AS of 4 GiB for
/// about 56 GiB): one sentence and no file.
#[test]
fn apsp_gen_beyond_memory_is_one_sentence() {
    let s = Scratch::new();
    let run =
        s.host_with_address_space(&["apsp-gen", "100000", "2000000000", "-o", "g.in"], 4 << 30);
    let line = refused(&s, run, &[]);
    assert!(
        line.contains("generating 2000000000 edges on 100000 vertices needs ")
            || line.contains("cannot allocate the list of 2000000000 edges"),
        "{line}"
    );
}

/// A graph from a stream without a length (a character device here) is read no further than
/// its header announces: `/dev/zero` is a graph with V = 0, not an endless read.
#[test]
fn a_stream_is_read_no_further_than_its_header_says() {
    let s = Scratch::new();
    let run = s.host(&["apsp", "/dev/zero", "--cpu", "-o", "d.out"]);
    let line = refused(&s, run, &[]);
    assert!(
        line.contains("cannot read graph /dev/zero: vertex count V = 0 at byte offset 0"),
        "{line}"
    );
}

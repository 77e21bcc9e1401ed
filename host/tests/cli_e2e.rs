//! End-to-end tests of the `host` binary that need no GPU: `--help` of every subcommand, exit
//! codes, the JSON envelope of every `--json` that runs on the CPU, and which stream carries
//! what. (APSP files: cli_apsp_files.rs; no driver: cli_no_driver.rs.)
mod common;

use common::{Run, Scratch};

/// Every subcommand, as `host --help` lists them (bench's suites are checked on their own).
const SUBCOMMANDS: &[&str] = &[
    "info",
    "matmul",
    "matmul-cpu",
    "apsp",
    "apsp-gen",
    "path",
    "apsp-peak",
    "apsp-float",
    "apsp-batch",
    "apsp-small",
    "occupancy",
    "bench",
    "report",
    "tune",
    "sm90",
];

fn host(args: &[&str]) -> Run {
    Scratch::new().host(args)
}

#[test]
fn help_lists_exactly_the_known_subcommands() {
    let run = host(&["--help"]).expect(0);
    let listed: Vec<&str> = run
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&name| name != "help")
        .collect();
    assert_eq!(
        listed, SUBCOMMANDS,
        "add new subcommands to SUBCOMMANDS and the help cases"
    );
}

/// `host ARGS --help`: exit 0, the usage on stdout, nothing on stderr, every option explained.
fn help_case(args: &[&str]) {
    let mut argv = args.to_vec();
    argv.push("--help");
    let run = host(&argv).expect(0);
    assert!(
        run.stdout.starts_with(char::is_alphabetic),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Usage: host"), "{}", run.stdout);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert!(
        run.stdout.contains("--quiet"),
        "the global --quiet is offered: {}",
        run.stdout
    );
}

macro_rules! help_cases {
    ($($name:ident: [$($arg:literal),*];)*) => {
        $(#[test] fn $name() { help_case(&[$($arg),*]); })*
        #[test]
        fn help_cases_cover_every_subcommand() {
            let covered: Vec<&str> = [$(&[$($arg),*][..]),*]
                .iter()
                .filter_map(|a| a.first().copied())
                .collect();
            for sub in SUBCOMMANDS {
                assert!(covered.contains(sub), "no --help case for {sub}");
            }
        }
    };
}

help_cases! {
    help_top: [];
    help_info: ["info"];
    help_matmul: ["matmul"];
    help_matmul_cpu: ["matmul-cpu"];
    help_apsp: ["apsp"];
    help_apsp_gen: ["apsp-gen"];
    help_path: ["path"];
    help_apsp_peak: ["apsp-peak"];
    help_apsp_float: ["apsp-float"];
    help_apsp_batch: ["apsp-batch"];
    help_apsp_small: ["apsp-small"];
    help_occupancy: ["occupancy"];
    help_bench: ["bench"];
    help_tune: ["tune"];
    help_sm90: ["sm90"];
    help_bench_matmul: ["bench", "matmul"];
    help_bench_apsp: ["bench", "apsp"];
    help_bench_threads: ["bench", "threads"];
    help_bench_sgemm_shapes: ["bench", "sgemm-shapes"];
    help_report: ["report"];
}

#[test]
fn bench_takes_a_seed() {
    let run = host(&["bench", "matmul", "--help"]).expect(0);
    assert!(run.stdout.contains("--seed <SEED>"), "{}", run.stdout);
}

/// Usage errors are clap's: exit status 2, the problem on stderr, nothing on stdout.
fn usage_case(args: &[&str], says: &str) {
    let run = host(args).expect(2);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert!(
        run.stderr.contains(says),
        "expected {says:?} in:\n{}",
        run.stderr
    );
}

macro_rules! usage_cases {
    ($($name:ident: [$($arg:literal),*] says $says:literal;)*) => {
        $(#[test] fn $name() { usage_case(&[$($arg),*], $says); })*
    };
}

usage_cases! {
    usage_unknown_subcommand: ["frobnicate"] says "unrecognized subcommand";
    usage_missing_input: ["apsp"] says "<INPUT>";
    usage_reps_zero_matmul: ["matmul", "64", "--reps", "0"] says "must be at least 1";
    usage_reps_zero_matmul_cpu: ["matmul-cpu", "--reps", "0"] says "must be at least 1";
    usage_reps_zero_apsp_peak: ["apsp-peak", "--reps", "0"] says "must be at least 1";
    usage_reps_zero_bench: ["bench", "threads", "--reps", "0"] says "must be at least 1";
    usage_unknown_variant: ["matmul-cpu", "--variant", "blocked8"] says "'blocked8'";
    usage_output_twice: ["apsp", "g.in", "a.out", "-o", "b.out"] says "cannot be used with";
    usage_not_a_number: ["apsp-gen", "ten", "20", "-o", "g.in"] says "'ten'";
}

#[test]
fn runtime_errors_exit_1_with_one_sentence() {
    let s = Scratch::new();
    // A CPU-ladder size out of range, and a graph that cannot be generated.
    let run = s.host(&["matmul-cpu", "--sizes", "0"]).expect(1);
    assert!(
        run.one_line_error().contains("out of range"),
        "{}",
        run.stderr
    );
    let run = s.host(&["apsp-gen", "3", "7", "-o", "g.in"]).expect(1);
    run.one_line_error();
    assert!(s.files().is_empty(), "no output expected: {:?}", s.files());
    let run = s.host(&["report", "missing.jsonl"]).expect(1);
    run.one_line_error();
}

#[test]
fn blas_arguments_are_checked_before_any_gpu_work() {
    let s = Scratch::new();
    for (args, says) in [
        (
            &[
                "matmul",
                "--m",
                "4",
                "--n",
                "5",
                "--k",
                "6",
                "--batch",
                "2",
                "--stride-c",
                "19",
            ][..],
            "stride_c = 19 is smaller than one matrix (20 elements)",
        ),
        (
            &[
                "matmul",
                "8",
                "--trans-a",
                "--batch",
                "3",
                "--stride-a",
                "10",
            ],
            "stride_a = 10 is smaller than one matrix",
        ),
        (
            &["matmul", "8", "--batch", "70000"],
            "batch = 70000 is out of range",
        ),
        (
            &["matmul", "8", "--trans-b", "--kernel", "matmul_tiled_t16"],
            "flagship_ops or batched_small family",
        ),
        (
            &["matmul", "8", "--trans-a", "--kernel", "sgemm,route:a=X"],
            "\"route:a=X\" names no route",
        ),
    ] {
        let run = s.host(args).expect(1);
        assert!(
            run.one_line_error().contains(says),
            "{args:?}: {}",
            run.stderr
        );
    }
    std::fs::write(s.path("bad.txt"), "64 64 64 NQ 1\n").unwrap();
    let suite = s.path("bad.txt");
    let run = s
        .host(&["bench", "sgemm-shapes", "--suite", suite.to_str().unwrap()])
        .expect(1);
    assert!(
        run.one_line_error().contains("line 1: OPS"),
        "{}",
        run.stderr
    );
}

/// The envelope of docs/json.md: schema, command, device (one shape), commit, date, results.
fn check_envelope(v: &serde_json::Value, command: &str, kind: &str) {
    let keys: Vec<&String> = v.as_object().expect("one object").keys().collect();
    assert_eq!(
        keys,
        ["command", "commit", "date", "device", "results", "schema"],
        "{v:#}"
    );
    assert_eq!(v["schema"], 1);
    assert_eq!(v["command"], command);
    let d = &v["device"];
    assert_eq!(d["kind"], kind, "{d:#}");
    assert!(d["name"].as_str().is_some_and(|n| !n.is_empty()), "{d:#}");
    assert!(d["count"].as_u64() >= Some(1), "{d:#}");
    assert!(d["processors"].as_u64() >= Some(1), "{d:#}");
    for key in ["memory_bytes", "compute_capability", "clock_mhz", "driver"] {
        assert!(d.get(key).is_some(), "device lacks {key}: {d:#}");
    }
    let commit = v["commit"].as_str().expect("commit is a string");
    assert!(
        commit == "unknown"
            || commit
                .trim_end_matches("-dirty")
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-'),
        "{commit}"
    );
    assert!(!commit.is_empty());
    // Built from a git checkout (as in CI): the revision of the checkout, captured at build time
    // (cargo rebuilds the binary when HEAD moves).
    let described = std::process::Command::new("git")
        .args(["describe", "--always"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let (Some(described), None) = (described, std::env::var_os("GPU_KERNELS_COMMIT")) {
        assert_eq!(
            commit.trim_end_matches("-dirty"),
            described,
            "build-time commit"
        );
    }
    let date = v["date"].as_str().expect("date is a string");
    let b = date.as_bytes();
    assert!(
        date.len() == 20
            && b[4] == b'-'
            && b[7] == b'-'
            && b[10] == b'T'
            && b[13] == b':'
            && date.ends_with('Z'),
        "not RFC 3339 UTC: {date}"
    );
}

#[test]
fn matmul_cpu_json_is_one_envelope() {
    let run = host(&[
        "matmul-cpu",
        "--sizes",
        "24",
        "--reps",
        "1",
        "--variant",
        "naive_ijk,simd_avx2",
        "--json",
    ])
    .expect(0);
    let v = run.json();
    check_envelope(&v, "matmul-cpu", "cpu");
    let rows = v["results"].as_array().expect("results are rows");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["variant"], "naive_ijk");
    assert_eq!(rows[1]["variant"], "simd_avx2");
    assert!(
        rows.iter()
            .all(|r| r["size"] == 24 && r["gflops"].as_f64() > Some(0.0))
    );
}

#[test]
fn matmul_cpu_once_json_is_one_envelope() {
    let run = host(&[
        "matmul-cpu",
        "--once",
        "--sizes",
        "16",
        "--variant",
        "simd_avx2",
        "--json",
    ])
    .expect(0);
    let v = run.json();
    check_envelope(&v, "matmul-cpu", "cpu");
    assert_eq!(v["results"][0]["variant"], "simd_avx2");
}

#[test]
fn apsp_cpu_json_is_one_envelope() {
    let s = Scratch::new();
    s.host(&["apsp-gen", "40", "200", "-o", "g.in"]).expect(0);
    let v = s
        .host(&["apsp", "g.in", "--cpu", "--json"])
        .expect(0)
        .json();
    check_envelope(&v, "apsp", "cpu");
    let r = &v["results"];
    assert_eq!(
        (r["vertices"].as_u64(), r["edges"].as_u64()),
        (Some(40), Some(200))
    );
    assert_eq!(r["output"], "g.out");
    assert!(r["split"]["compute_s"].as_f64().is_some(), "{r:#}");
}

#[test]
fn report_json_is_one_envelope_and_refuses_to_overwrite_its_input() {
    let s = Scratch::new();
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/data/bench_apsp.jsonl");
    let records = std::fs::read_to_string(data).unwrap();
    let n = records.lines().filter(|l| !l.trim().is_empty()).count();
    s.write("r.jsonl", records.as_bytes());
    let v = s
        .host(&[
            "report", "r.jsonl", "--charts", "img", "-o", "r.md", "--json",
        ])
        .expect(0)
        .json();
    check_envelope(&v, "report", "cpu");
    assert_eq!(v["results"]["records"].as_u64(), Some(n as u64));
    assert_eq!(v["results"]["output"], "r.md");
    assert!(
        std::fs::read_to_string(s.path("r.md"))
            .unwrap()
            .contains('|')
    );
    let before = std::fs::read(s.path("r.jsonl")).unwrap();
    let run = s
        .host(&["report", "r.jsonl", "--charts", "img", "-o", "r.jsonl"])
        .expect(1);
    assert!(
        run.one_line_error().contains("is the input"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read(s.path("r.jsonl")).unwrap(),
        before,
        "the input was changed"
    );
}

/// Results on stdout, notes ("wrote …") on stderr; `--quiet` silences the notes.
#[test]
fn stdout_carries_only_results() {
    let s = Scratch::new();
    let run = s.host(&["apsp-gen", "30", "100", "-o", "g.in"]).expect(0);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.starts_with("wrote g.in"), "{}", run.stderr);
    let run = s.host(&["apsp-gen", "30", "100", "-o", "g.in"]).expect(0);
    assert!(
        run.stderr.contains("replacing the file that was there"),
        "{}",
        run.stderr
    );
    let run = s.host(&["apsp", "g.in", "--cpu"]).expect(0);
    assert!(!run.stdout.contains("wrote"), "{}", run.stdout);
    assert!(run.stdout.contains("APSP V=30 E=100"), "{}", run.stdout);
    assert!(run.stderr.contains("wrote g.out"), "{}", run.stderr);
    let run = s
        .host(&["--quiet", "apsp", "g.in", "--cpu", "--json"])
        .expect(0);
    assert!(run.stderr.is_empty(), "--quiet: {}", run.stderr);
    run.json();
    let run = s
        .host(&["apsp-gen", "30", "100", "-o", "g.in", "-q"])
        .expect(0);
    assert!(
        run.stderr.is_empty() && run.stdout.is_empty(),
        "{}",
        run.stderr
    );
}

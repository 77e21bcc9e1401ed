use super::*;

fn here() -> GpuIdentity {
    GpuIdentity {
        name: "NVIDIA H200".into(),
        compute_capability: [9, 0],
        driver: "13.0".into(),
        commit: "abc1234".into(),
    }
}

/// Known kernels of a pretend build: `k16` copies B in 16-byte pieces, `k4` in 4-byte ones.
fn known(name: &str) -> Option<bool> {
    match name {
        "k16" => Some(true),
        "k4" => Some(false),
        _ => None,
    }
}

fn winner(class: ShapeClass, vec_b: bool, kernel: &str) -> Winner {
    Winner {
        class,
        vec_b,
        kernel: kernel.into(),
        group: 8,
        schedule: Schedule::StreamK,
        shape: [4096, 4096, 4096],
        gflops: 50_600.5,
        cublas_gflops: Some(50_500.25),
        percent_of_cublas: Some(100.2),
    }
}

fn cache() -> TuneCache {
    TuneCache {
        schema: SCHEMA.into(),
        gpu: here(),
        date: "2026-11-22T08:00:00Z".into(),
        seconds: 61.5,
        winners: vec![
            winner(ShapeClass::Large, true, "k16"),
            winner(ShapeClass::Large, false, "k4"),
            winner(ShapeClass::ShortK, true, "k4"),
        ],
    }
}

#[test]
fn round_trip_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sgemm-tune.json");
    std::fs::write(&path, cache().to_json()).unwrap();
    let Loaded::Usable(back) = load(&path, &here(), known) else {
        panic!("a fresh cache is usable");
    };
    assert_eq!(back, cache());
    assert_eq!(back.choice(ShapeClass::Large, false).unwrap().kernel, "k4");
    assert_eq!(back.choice(ShapeClass::ShortK, true).unwrap().kernel, "k4");
    assert!(back.choice(ShapeClass::Small, true).is_none());
    // The file names classes as the CLI does.
    assert!(cache().to_json().contains("\"short-k\""));
}

#[test]
fn a_missing_file_is_absent_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        load(&dir.path().join("none.json"), &here(), known),
        Loaded::Absent
    ));
}

fn ignored_because(text: &str, id: &GpuIdentity) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    std::fs::write(&path, text).unwrap();
    match load(&path, id, known) {
        Loaded::Ignored(why) => {
            assert!(why.contains("c.json"), "names the file: {why}");
            assert_eq!(why.lines().count(), 1, "one sentence: {why}");
            why
        }
        other => panic!("not ignored: {other:?}"),
    }
}

#[test]
fn corrupt_json_is_ignored() {
    let good = cache().to_json();
    for bad in [
        "",
        "{",
        &good[..good.len() / 2],
        "[1, 2]",
        &good.replace("\"group\": 8", "\"group\": \"eight\""),
        &good.replace("short-k", "tiny"),
        &good.replace("stream-k", "split-k"),
    ] {
        let why = ignored_because(bad, &here());
        assert!(why.contains("not a valid tuning cache"), "{why}");
    }
    let why = ignored_because(&good.replace(SCHEMA, "rgk-sgemm-tune/0"), &here());
    assert!(why.contains("schema"), "{why}");
    let why = ignored_because(&good.replace("\"group\": 8", "\"group\": 0"), &here());
    assert!(why.contains("group 0"), "{why}");
}

#[test]
fn foreign_gpu_or_driver_is_ignored() {
    let text = cache().to_json();
    let other = GpuIdentity {
        name: "NVIDIA A100-SXM4-80GB".into(),
        compute_capability: [8, 0],
        ..here()
    };
    let why = ignored_because(&text, &other);
    assert!(why.contains("another GPU") && why.contains("A100"), "{why}");
    let same_name_other_cc = GpuIdentity {
        compute_capability: [9, 1],
        ..here()
    };
    assert!(ignored_because(&text, &same_name_other_cc).contains("another GPU"));
    let driver = GpuIdentity {
        driver: "12.8".into(),
        ..here()
    };
    assert!(ignored_because(&text, &driver).contains("driver 12.8"));
}

#[test]
fn other_commit_is_ignored() {
    let newer = GpuIdentity {
        commit: "def5678".into(),
        ..here()
    };
    let why = ignored_because(&cache().to_json(), &newer);
    assert!(
        why.contains("commit abc1234") && why.contains("def5678"),
        "{why}"
    );
}

#[test]
fn unknown_or_mismatched_kernel_is_ignored() {
    let mut c = cache();
    c.winners[0].kernel = "sgemm_999x999".into();
    let why = ignored_because(&c.to_json(), &here());
    assert!(why.contains("sgemm_999x999"), "{why}");
    // A 16-byte-copy kernel for problems whose B does not allow it would read out of bounds.
    let mut c = cache();
    c.winners[1].kernel = "k16".into();
    let why = ignored_because(&c.to_json(), &here());
    assert!(why.contains("4-byte B copies"), "{why}");
    let mut c = cache();
    c.winners.push(winner(ShapeClass::Large, true, "k4"));
    assert!(ignored_because(&c.to_json(), &here()).contains("two winners"));
}

#[test]
fn classes_cover_the_issue_shapes() {
    let of = |m, n, k| ShapeClass::of(m, n, k);
    assert_eq!(of(1024, 1024, 1024), ShapeClass::Small);
    assert_eq!(of(1, 1, 1), ShapeClass::Small);
    assert_eq!(of(4099, 1, 4097), ShapeClass::Small);
    assert_eq!(of(2048, 2048, 2048), ShapeClass::Medium);
    assert_eq!(of(4096, 4096, 4096), ShapeClass::Large);
    assert_eq!(of(8192, 8192, 8192), ShapeClass::Huge);
    assert_eq!(of(4097, 4095, 1023), ShapeClass::ShortK);
    assert_eq!(of(2048, 2048, 2047), ShapeClass::ShortK);
    for c in ShapeClass::ALL {
        for vec_b in [true, false] {
            let (m, n, k) = c.representative(vec_b);
            assert_eq!(ShapeClass::of(m, n, k), c, "{c} {vec_b}");
            // 16-byte B copies need N a multiple of 4; the other shape is odd in every way.
            assert_eq!(n % 4 == 0, vec_b, "{c}");
            assert_eq!(m % 2 == 1 && k % 2 == 1, !vec_b, "{c}");
        }
    }
    assert_eq!(ShapeClass::ShortK.representative(false), (4097, 4095, 1023));
}

#[test]
fn cache_path_follows_the_environment() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    };
    assert_eq!(
        cache_path(env(&[(CACHE_ENV, "/tmp/x.json"), ("HOME", "/h")])),
        Some(PathBuf::from("/tmp/x.json"))
    );
    assert_eq!(cache_path(env(&[(CACHE_ENV, "off"), ("HOME", "/h")])), None);
    assert_eq!(
        cache_path(env(&[("XDG_CACHE_HOME", "/c"), ("HOME", "/h")])),
        Some(PathBuf::from("/c/rust-gpu-kernels/sgemm-tune.json"))
    );
    assert_eq!(
        cache_path(env(&[("XDG_CACHE_HOME", ""), ("HOME", "/h")])),
        Some(PathBuf::from("/h/.cache/rust-gpu-kernels/sgemm-tune.json"))
    );
    assert_eq!(cache_path(env(&[])), None);
}

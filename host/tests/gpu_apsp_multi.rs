//! Floyd–Warshall split over several GPUs (`host apsp --gpus N`) against the CPU and the
//! one-GPU path. Without enough GPUs the tests print "SKIPPED …" and pass.
use host::{
    apsp::{
        gpu as agpu,
        multi::{self, GpuCount, gpus_for_test},
        pipeline::{solve_file, solve_file_multi},
        rows::DeviceRows,
        stream::IoOptions,
    },
    gpu::device_count,
};
use rgk_core::apsp::{cpu, format::read_graph, random::generate};

/// Every GPU count from 2 to the GPUs present (at least 2), so that a 4-GPU machine also tests
/// 3 and 4.
fn counts() -> Vec<u32> {
    let present = device_count().unwrap_or(0).max(2);
    (2..=present).collect()
}

fn assert_multi_matches_cpu(gpus: &multi::MultiGpu, v: usize, e: usize, seed: u64) {
    let n = gpus.len();
    let graph = generate(v, e, seed).unwrap();
    let (expect, _) = cpu::solve(&graph).unwrap();
    let sol = multi::solve(gpus, &graph, 64).unwrap_or_else(|e| panic!("{n} GPUs, V={v}: {e:#}"));
    assert_eq!(sol.vertices(), v);
    let mut got = vec![-1; v * v];
    sol.copy_rows(0, &mut got).unwrap();
    if let Some(i) = (0..v).find(|&i| got[i * v..(i + 1) * v] != expect[i * v..(i + 1) * v]) {
        panic!("{n} GPUs, V={v} E={e}: row {i} differs from the CPU");
    }
    // Rows in pieces that straddle the GPUs' boundaries come out the same.
    let piece = (v / 3).max(1);
    for first in (0..v).step_by(piece) {
        let rows = piece.min(v - first);
        let mut part = vec![-1; rows * v];
        sol.copy_rows(first, &mut part).unwrap();
        assert_eq!(
            part,
            expect[first * v..(first + rows) * v],
            "rows from {first}"
        );
    }
}

#[test]
fn one_gpu_through_the_split_path_equals_the_one_gpu_path() {
    let test = "one_gpu_through_the_split_path_equals_the_one_gpu_path";
    let Some(gpus) = gpus_for_test(test, 1) else {
        return;
    };
    let graph = generate(1000, 40_000, 31).unwrap();
    gpus.gpus[0].make_current().unwrap();
    let one = agpu::solve(&gpus.gpus[0], &graph, 64).unwrap();
    let split = multi::solve(&gpus, &graph, 64).unwrap();
    let v = graph.vertices;
    let mut got = vec![-1; v * v];
    split.copy_rows(0, &mut got).unwrap();
    for i in 0..v {
        assert_eq!(
            got[i * v..(i + 1) * v],
            one.dist[i * one.pitch..i * one.pitch + v],
            "row {i}"
        );
    }
}

/// V = 1 and 64 leave the second GPU without rows (V < B * N); 63, 65, 200 and 1000 are not
/// multiples of B * N; up to V = 5000.
#[test]
fn several_gpus_match_cpu() {
    for n in counts() {
        let Some(gpus) = gpus_for_test("several_gpus_match_cpu", n) else {
            return;
        };
        for (v, e, seed) in [
            (1, 0, 1),
            (2, 2, 2),
            (63, 400, 3),
            (64, 1000, 4),
            (65, 2000, 5),
            (200, 8000, 6),
            (1000, 40_000, 7),
            (2500, 20_000, 8),
            (5000, 200_000, 9),
        ] {
            assert_multi_matches_cpu(&gpus, v, e, seed);
        }
    }
}

/// The course cases, file to file: byte-identical to the expected output and to one GPU's.
#[test]
fn several_gpus_course_cases_byte_identical() {
    let test = "several_gpus_course_cases_byte_identical";
    let Some(dir) = rgk_core::testdata::apsp_cases_for_test(test) else {
        return;
    };
    for n in counts() {
        let Some(gpus) = gpus_for_test(test, n) else {
            return;
        };
        let tmp = std::env::temp_dir().join(format!("apsp_multi_{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let mut cases = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "in") {
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let (multi_out, one_out) =
                (tmp.join(format!("{name}.n")), tmp.join(format!("{name}.1")));
            solve_file_multi(&gpus, &path, &multi_out, 64, false, IoOptions::default()).unwrap();
            // The one-GPU path works in the current context: GPU 0's.
            gpus.gpus[0].make_current().unwrap();
            solve_file(Some(&gpus.gpus[0]), &path, &one_out, 64, false).unwrap();
            let got = std::fs::read(&multi_out).unwrap();
            assert!(
                got == std::fs::read(path.with_extension("out")).unwrap(),
                "{name}: {n} GPUs differ from the expected file"
            );
            assert!(
                got == std::fs::read(&one_out).unwrap(),
                "{name}: {n} GPUs differ from one GPU"
            );
            read_graph(&path).unwrap();
            cases += 1;
        }
        let _ = std::fs::remove_dir_all(&tmp);
        assert!(cases > 0, "no cases in {}", dir.display());
    }
}

#[test]
fn more_gpus_than_present_is_one_sentence() {
    let test = "more_gpus_than_present_is_one_sentence";
    if host::gpu::gpu_for_test(test).is_none() {
        return;
    }
    let present = device_count().unwrap();
    let err = multi::MultiGpu::open(GpuCount::Count(present + 1), None)
        .err()
        .expect("more GPUs than present must fail");
    let msg = err.to_string();
    assert!(matches!(err, host::Error::BadInput(_)), "{msg}");
    assert!(
        msg.contains(&format!("--gpus {}", present + 1)) && !msg.contains('\n'),
        "{msg}"
    );
}

//! `host apsp --distributed` with 2 ranks on a 2-GPU host (loopback only): the output equals the
//! one-GPU output byte for byte, and a rank killed mid-solve makes the other exit with one
//! sentence and no output. With fewer than 2 GPUs the tests print "SKIPPED …" and pass.
mod common;

use std::{
    process::{Child, Command, Stdio},
    time::Duration,
};

use common::{Scratch, host_bin};
use host::apsp::multi::gpus_for_test;
use rgk_core::apsp::{format::write_graph, random::generate};

/// Starts rank `rank` of 2 in `s`'s directory, rank 0 listening on `port`.
fn rank(s: &Scratch, args: &[&str], rank: usize, port: u16) -> Child {
    Command::new(host_bin())
        .args(args)
        .args(["--distributed", "--no-peak"])
        .current_dir(s.dir.path())
        .envs([
            ("WORLD_SIZE", "2".to_string()),
            ("RANK", rank.to_string()),
            ("LOCAL_RANK", rank.to_string()),
            ("MASTER_ADDR", "127.0.0.1".to_string()),
            ("MASTER_PORT", port.to_string()),
            ("NCCL_NVLS_ENABLE", "0".to_string()),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start a rank")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn two_ranks_write_the_one_gpu_file() {
    let Some(gpus) = gpus_for_test("two_ranks_write_the_one_gpu_file", 2) else {
        return;
    };
    drop(gpus);
    let s = Scratch::new();
    for (v, seed) in [(2001, 1), (777, 2)] {
        let g = s.path(&format!("g{v}.in"));
        write_graph(&g, &generate(v, 30 * v, seed).unwrap()).unwrap();
        let g = g.to_str().unwrap();
        s.host(&["apsp", g, "-o", "one.out", "--no-peak"]).expect(0);
        let port = free_port();
        let ranks = [0, 1].map(|r| rank(&s, &["apsp", g, "-o", "two.out"], r, port));
        for (r, child) in ranks.into_iter().enumerate() {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "rank {r}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert!(
            std::fs::read(s.path("one.out")).unwrap() == std::fs::read(s.path("two.out")).unwrap(),
            "V = {v}"
        );
    }
}

#[test]
fn a_killed_rank_stops_the_other_with_one_sentence_and_no_output() {
    let Some(gpus) = gpus_for_test(
        "a_killed_rank_stops_the_other_with_one_sentence_and_no_output",
        2,
    ) else {
        return;
    };
    drop(gpus);
    let s = Scratch::new();
    // Large enough that the solve is still running when rank 1 is killed.
    let g = s.path("g.in");
    write_graph(&g, &generate(50000, 500_000, 4).unwrap()).unwrap();
    let g = g.to_str().unwrap();
    let port = free_port();
    let r0 = rank(&s, &["apsp", g, "-o", "d.out"], 0, port);
    let mut r1 = rank(&s, &["apsp", g, "-o", "d.out"], 1, port);
    std::thread::sleep(Duration::from_secs(4));
    r1.kill().unwrap();
    let _ = r1.wait();
    let out = r0.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert!(
        lines
            == [
                "error: rank 1 stopped before the distributed solve finished; no output was written"
            ],
        "{stderr}"
    );
    assert_eq!(s.files(), ["g.in"]);
}

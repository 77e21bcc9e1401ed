//! GPU tests for the Hopper (sm_90a) GEMM through the library (`host::sm90`): every kernel
//! (BF16 and FP16, B row-major and transposed, wait depth 0 and 1) against an f64 reference on
//! the same rounded inputs, at aligned and odd shapes, k not a multiple of the tile depth, padded
//! leading dimensions and alpha/beta, with a block per tile and with few blocks each walking
//! several tiles (the persistent schedule's path). Without a GPU, or on a GPU other than compute capability 9.0,
//! they print "SKIPPED …" and pass.
use cust::memory::DeviceBuffer;
use host::{
    Gpu,
    gpu::gpu_for_test,
    sm90::{
        BMajor, Blocks, Schedule, Sm90Gemm, Sm90Input, check::worst, download, gemm_sm90,
        supported, to_input,
    },
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn hopper(test: &str) -> Option<Gpu> {
    let gpu = gpu_for_test(test)?;
    if !supported(&gpu) {
        let cc = gpu.info().map(|i| i.compute_capability).unwrap_or_default();
        rgk_core::testdata::skip(
            test,
            &format!("compute capability {}.{} is not 9.0", cc.0, cc.1),
        );
        return None;
    }
    Some(gpu)
}

/// The schedules every shape runs with: both wait depths, a block per tile, and 2 or 3 blocks
/// walking the tiles (group 1 and 3: partial groups at the bottom edge).
const SCHEDULES: [Schedule; 4] = [
    Schedule::CLASSIC,
    Schedule {
        depth: 1,
        blocks: Blocks::PerTile,
        group: 8,
    },
    Schedule {
        depth: 1,
        blocks: Blocks::AtMost(3),
        group: 3,
    },
    Schedule {
        depth: 0,
        blocks: Blocks::AtMost(2),
        group: 1,
    },
];

/// Runs `g` on random operands (NaN in the gaps of padded rows) with every schedule and checks
/// every row.
fn run_and_check(gpu: &Gpu, g: &Sm90Gemm, seed: u64) {
    for sched in SCHEDULES {
        run_and_check_with(gpu, g, seed, sched);
    }
}

fn run_and_check_with(gpu: &Gpu, g: &Sm90Gemm, seed: u64, sched: Schedule) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (la, lb, lc) = g.lens();
    let bw = match g.b_major {
        BMajor::N => g.n,
        BMajor::K => g.k,
    };
    let mut fill = |len: usize, width: usize, ld: usize| -> Vec<f32> {
        (0..len)
            .map(|i| {
                if i % ld < width {
                    rng.gen_range(-1.0f32..1.0)
                } else {
                    f32::NAN
                }
            })
            .collect()
    };
    let a = to_input(&fill(la, g.k, g.lda), g.input);
    let b = to_input(&fill(lb, bw, g.ldb), g.input);
    let c0 = fill(lc, g.n, g.ldc);
    let da = DeviceBuffer::from_slice(&a).unwrap();
    let db = DeviceBuffer::from_slice(&b).unwrap();
    let dc = DeviceBuffer::from_slice(&c0).unwrap();
    gemm_sm90(gpu, g, &da, &db, &dc, sched).unwrap();
    let c = download(&dc).unwrap();
    let rows: Vec<usize> = (0..g.m).collect();
    let w = worst(g, &a, &b, &c0, &c, &rows);
    assert!(w.ratio <= 1.0, "{g:?} {sched:?}: {w:?}");
    for (i, v) in c.iter().enumerate() {
        if i % g.ldc >= g.n {
            assert!(v.is_nan(), "{g:?} {sched:?}: C's gap at {i} was written");
        }
    }
}

fn every_kernel(m: usize, n: usize, k: usize, pad: usize, alpha: f32, beta: f32) {
    let Some(gpu) = hopper("sm90_every_kernel") else {
        return;
    };
    for input in [Sm90Input::Bf16, Sm90Input::Fp16] {
        for major in [BMajor::N, BMajor::K] {
            let d = Sm90Gemm::dense(m, n, k, input, major);
            let up = |v: usize| (v + pad).div_ceil(8) * 8;
            let g = Sm90Gemm {
                lda: up(d.lda),
                ldb: up(d.ldb),
                ldc: d.ldc + pad,
                alpha,
                beta,
                ..d
            };
            run_and_check(&gpu, &g, (m + 3 * n + 7 * k) as u64);
        }
    }
}

#[test]
fn aligned_square() {
    every_kernel(256, 512, 256, 0, 1.0, 0.0);
}

#[test]
fn odd_shapes_and_a_partial_k_slice() {
    every_kernel(300, 200, 77, 3, 1.0, 0.0);
    every_kernel(129, 257, 65, 0, 1.0, 0.0);
}

#[test]
fn alpha_beta_and_padded_leading_dimensions() {
    every_kernel(777, 1000, 520, 8, 1.5, -0.5);
    every_kernel(64, 64, 8, 16, -1.0, 2.0);
}

#[test]
fn a_shape_tma_cannot_read_is_refused_in_one_sentence() {
    let Some(gpu) = hopper("sm90_refused") else {
        return;
    };
    let g = Sm90Gemm::dense(64, 64, 77, Sm90Input::Bf16, BMajor::N);
    let da = DeviceBuffer::from_slice(&vec![0u16; 64 * 77]).unwrap();
    let db = DeviceBuffer::from_slice(&vec![0u16; 77 * 64]).unwrap();
    let dc = DeviceBuffer::from_slice(&vec![0f32; 64 * 64]).unwrap();
    let e = gemm_sm90(&gpu, &g, &da, &db, &dc, Schedule::CLASSIC).unwrap_err();
    assert!(e.downcast_ref::<rgk_core::BadInput>().is_some(), "{e:#}");
    assert!(!e.to_string().contains('\n'));
}

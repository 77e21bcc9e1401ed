//! GPU tests for the Hopper (sm_90a) GEMM through the library (`host::sm90`): every kernel
//! (BF16 and FP16, B row-major and transposed, wait depth 0 and 1) against an f64 reference on
//! the same rounded inputs, at aligned and odd shapes, k not a multiple of the tile depth, padded
//! leading dimensions and alpha/beta, with a block per tile and with few blocks each walking
//! several tiles (the persistent schedule's path), and with stream-K (tiles split along k between
//! blocks, combined in a fixed order: results repeat bit for bit), for the 16-bit kernels and
//! TF32. Without a GPU, or on a GPU other than compute capability 9.0, they print "SKIPPED …" and
//! pass.
use cust::memory::DeviceBuffer;
use host::{
    Gpu,
    sm90::{
        BMajor, Blocks, Schedule, Sm90Gemm, Sm90Input,
        check::worst,
        download, gemm_sm90, hopper_for_test,
        tf32::{Tf32Gemm, Tf32Kind, Tf32Launch, Tf32Options},
        to_input,
    },
    tc::select::{HOPPER_SCHEDULE, tf32_options},
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::reference::random_padded;
use rgk_core::matmul::{
    precision::{Precision, round_input},
    reference::{check_with, reference},
};

/// The schedules every shape runs with: both wait depths, a block per tile, and 2 or 3 blocks
/// walking the tiles (group 1 and 3: partial groups at the bottom edge); then stream-K with 3,
/// 5 and 7 blocks: the last partial wave split (a tile shared by up to 3 blocks, or a block
/// with no slices), a wave more with the split slices after the whole tiles, every tile (runs
/// of several whole tiles between a partial start and an owner's end); then the pair kernels
/// (clusters of 2 blocks, B multicast) with a pair per tile and with 2 pairs walking the tiles.
/// The third stores C from registers (`direct_store`), the others through TMA where they can.
const SCHEDULES: [Schedule; 9] = [
    Schedule::CLASSIC,
    Schedule {
        depth: 1,
        blocks: Blocks::PerTile,
        group: 8,
        stream_k: None,
        sk_last: false,
        sk_auto: false,
        pair: false,
        direct_store: false,
    },
    Schedule {
        depth: 1,
        blocks: Blocks::AtMost(3),
        group: 3,
        stream_k: None,
        sk_last: false,
        sk_auto: false,
        pair: false,
        direct_store: true,
    },
    Schedule {
        depth: 0,
        blocks: Blocks::AtMost(2),
        group: 1,
        stream_k: None,
        sk_last: false,
        sk_auto: false,
        pair: false,
        direct_store: false,
    },
    Schedule {
        depth: 0,
        blocks: Blocks::AtMost(3),
        group: 8,
        stream_k: Some(0),
        sk_last: false,
        sk_auto: false,
        pair: false,
        direct_store: false,
    },
    Schedule {
        depth: 1,
        blocks: Blocks::AtMost(5),
        group: 2,
        stream_k: Some(1),
        sk_last: true,
        sk_auto: false,
        pair: false,
        direct_store: false,
    },
    Schedule {
        depth: 0,
        blocks: Blocks::AtMost(7),
        group: 1,
        stream_k: Some(4096),
        sk_last: false,
        sk_auto: false,
        pair: false,
        direct_store: false,
    },
    Schedule {
        depth: 0,
        blocks: Blocks::PerTile,
        group: 8,
        stream_k: None,
        sk_last: false,
        sk_auto: false,
        pair: true,
        direct_store: false,
    },
    Schedule {
        depth: 0,
        blocks: Blocks::AtMost(4),
        group: 1,
        stream_k: None,
        sk_last: false,
        sk_auto: false,
        pair: true,
        direct_store: false,
    },
];

/// Runs `g` on random operands (NaN in the gaps of padded rows) with every schedule and checks
/// every row.
fn run_and_check(gpu: &Gpu, g: &Sm90Gemm, seed: u64) {
    for sched in SCHEDULES {
        run_and_check_with(gpu, g, seed, sched);
    }
}

/// Stream-K on a full GPU's grid (a block per SM: 132 on an H200) where the tiles do not fill
/// whole waves: checked against the reference, and a second launch gives the same bits (the
/// partial sums are added in a fixed order; the flags each launch leaves zero let it run again).
#[test]
fn stream_k_on_a_full_grid_is_right_and_repeats_bit_for_bit() {
    let Some(gpu) = hopper_for_test("sm90_stream_k_full_grid") else {
        return;
    };
    for (w, last, major) in [
        (0, false, BMajor::N),
        (1, false, BMajor::K),
        (0, true, BMajor::N),
    ] {
        let sched = Schedule {
            depth: 0,
            blocks: Blocks::PerSm,
            group: 8,
            stream_k: Some(w),
            sk_last: last,
            sk_auto: false,
            pair: false,
            direct_store: false,
        };
        // 1792 x 2560: 140 tiles, 8 past 132 blocks; k 200 is 4 slices, the last one partial,
        // so with `sk` the 8 tiles' 32 slices go one each to 32 blocks (a tile summed from 4)
        // and 100 blocks have none; with `sk1` every tile is split.
        let g = Sm90Gemm::dense(1792, 2560, 200, Sm90Input::Bf16, major);
        let first = run_and_check_with(&gpu, &g, 5, sched);
        // The same operands twice, C overwritten (beta 0).
        let c0 = (0..g.lens().2).map(|_| f32::NAN).collect::<Vec<_>>();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut fill =
            |len: usize| -> Vec<f32> { (0..len).map(|_| rng.gen_range(-1.0f32..1.0)).collect() };
        let (la, lb, _) = g.lens();
        let (a, b) = (to_input(&fill(la), g.input), to_input(&fill(lb), g.input));
        let (da, db) = (
            DeviceBuffer::from_slice(&a).unwrap(),
            DeviceBuffer::from_slice(&b).unwrap(),
        );
        let dc = DeviceBuffer::from_slice(&c0).unwrap();
        let mut runs = Vec::new();
        for _ in 0..2 {
            gemm_sm90(&gpu, &g, &da, &db, &dc, sched).unwrap();
            runs.push(download(&dc).unwrap());
        }
        assert!(first.iter().all(|v| v.is_finite()));
        assert!(
            runs[0]
                .iter()
                .zip(&runs[1])
                .all(|(x, y)| x.to_bits() == y.to_bits()),
            "{sched:?}: two launches differ"
        );
    }
}

/// The library's schedule (`tc::select::HOPPER_SCHEDULE`) where the tiles make enough waves
/// that it splits the tail (`skl`, `Schedule::resolve`): 50 x 33 = 1650 tiles of 128 x 256 on
/// a grid of one block per SM (132 on an H200: 12.5 waves, the last 66 tiles split), odd m
/// and a partial last tile column (n a multiple of 8: B's rows are its leading dimension), k
/// of 2 slices and a partial one, alpha/beta, both B layouts; every 8th row and the
/// last tile row checked against f64.
const MANY_WAVES: (usize, usize, usize) = (50 * 128 - 3, 33 * 256 - 8, 136);

/// The rows [`MANY_WAVES`]' tests check.
fn many_waves_rows(m: usize) -> Vec<usize> {
    (0..m).filter(|r| r % 8 == 0 || *r >= m - 128).collect()
}

#[test]
fn the_library_schedule_splits_the_tail_of_many_waves() {
    let Some(gpu) = hopper_for_test("sm90_library_many_waves") else {
        return;
    };
    let (m, n, k) = MANY_WAVES;
    let sms = gpu.multiprocessors().unwrap();
    let tiles = 50 * 33;
    let resolved = HOPPER_SCHEDULE.resolve(tiles, tiles.min(sms));
    let split = resolved.sk_tiles(tiles, tiles.min(sms), 3);
    assert!(
        sms != 132 || split == 66,
        "{sms} SMs: {resolved:?} does not split the tail ({split} tiles)"
    );
    let rows = many_waves_rows(m);
    for input in [Sm90Input::Bf16, Sm90Input::Fp16] {
        for major in [BMajor::N, BMajor::K] {
            let g = Sm90Gemm {
                alpha: 1.5,
                beta: -0.5,
                ..Sm90Gemm::dense(m, n, k, input, major)
            };
            run_and_check_rows(&gpu, &g, 11, HOPPER_SCHEDULE, &rows);
        }
    }
}

/// [`MANY_WAVES`] in TF32 with the library's options (`tc::select::tf32_options`).
#[test]
fn the_library_tf32_schedule_splits_the_tail_of_many_waves() {
    let Some(gpu) = hopper_for_test("sm90_library_tf32_many_waves") else {
        return;
    };
    let (m, n, k) = MANY_WAVES;
    let rows = many_waves_rows(m);
    for b_k_major in [false, true] {
        let g = Tf32Gemm {
            m,
            n,
            k,
            lda: k,
            ldb: if b_k_major { k } else { n },
            ldc: n,
            alpha: 1.5,
            beta: -0.5,
            kind: Tf32Kind::Tf32,
            a_k_major: true,
            b_k_major,
        };
        tf32_check_rows(&gpu, &g, tf32_options(), 12, Some(&rows));
    }
}

/// TF32 (f32 operands rounded to TF32 first, so the check does not depend on how the kernel
/// rounds) with stream-K, both layouts of B (split pass and in place), odd shapes, k not a
/// multiple of 32, alpha/beta: against the f64 reference with TF32's bound.
#[test]
fn tf32_stream_k_matches_the_reference() {
    let Some(gpu) = hopper_for_test("sm90_tf32_stream_k") else {
        return;
    };
    for (i, &(m, n, k, alpha, beta)) in [
        (777usize, 1000usize, 520usize, 1.5f32, -0.5f32),
        (300, 600, 76, 1.0, 0.0),
        (1792, 2560, 200, 1.0, 0.0),
    ]
    .iter()
    .enumerate()
    {
        for b_k_major in [false, true] {
            for (blocks, w, last) in [
                (Blocks::AtMost(3), Some(0), false),
                (Blocks::AtMost(5), Some(4096), false),
                (Blocks::PerSm, Some(1), false),
                (Blocks::PerSm, Some(0), true),
            ] {
                let g = Tf32Gemm {
                    m,
                    n,
                    k,
                    lda: k,
                    ldb: if b_k_major { k } else { n },
                    ldc: n,
                    alpha,
                    beta,
                    kind: Tf32Kind::Tf32,
                    a_k_major: true,
                    b_k_major,
                };
                let opts = Tf32Options {
                    schedule: Schedule {
                        depth: 0,
                        blocks,
                        group: 8,
                        stream_k: w,
                        sk_last: last,
                        sk_auto: false,
                        pair: false,
                        direct_store: false,
                    },
                    ..Tf32Options::default()
                };
                tf32_check(&gpu, &g, opts, i as u64);
            }
        }
    }
}

fn tf32_check(gpu: &Gpu, g: &Tf32Gemm, opts: Tf32Options, seed: u64) {
    tf32_check_rows(gpu, g, opts, seed, None);
}

/// [`tf32_check`] on `rows` of C (`None`: all).
fn tf32_check_rows(gpu: &Gpu, g: &Tf32Gemm, opts: Tf32Options, seed: u64, rows: Option<&[usize]>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut fill = |len: usize| -> Vec<f32> {
        (0..len)
            .map(|_| round_input(Precision::Tf32, rng.gen_range(-1.0f32..1.0)))
            .collect()
    };
    let (a, b, c0) = (fill(g.m * g.k), fill(g.k * g.n), fill(g.m * g.n));
    let (da, db, dc) = (
        DeviceBuffer::from_slice(&a).unwrap(),
        DeviceBuffer::from_slice(&b).unwrap(),
        DeviceBuffer::from_slice(&c0).unwrap(),
    );
    let launch = Tf32Launch::new(gpu, g, &da, &db, &dc, opts).unwrap();
    launch.launch().unwrap();
    gpu.stream.synchronize().unwrap();
    let c = download(&dc).unwrap();
    // B as k x n row-major for the reference (stored n x k when K-major).
    let b_rows: Vec<f32> = if g.b_k_major {
        (0..g.k * g.n)
            .map(|i| b[(i % g.n) * g.k + i / g.n])
            .collect()
    } else {
        b.clone()
    };
    let mut r = reference(&a, &b_rows, g.m, g.n, g.k, rows);
    let (alpha, beta) = (f64::from(g.alpha), f64::from(g.beta));
    for i in 0..r.c.len() {
        let old = c0[r.rows[i / g.n] * g.n + i % g.n];
        let from_c = beta * f64::from(old);
        r.c[i] = alpha * r.c[i] + from_c;
        r.bound[i] = alpha.abs() * r.bound[i] + from_c.abs();
    }
    let check = check_with(&c, &r, Precision::Tf32.tolerance(g.k));
    assert!(check.passed(), "{g:?} {opts:?}: {check:?}");
}

/// C of `g` on random operands (NaN in the gaps of padded rows) under `sched`, checked against
/// the f64 reference on every row; returns C.
fn run_and_check_with(gpu: &Gpu, g: &Sm90Gemm, seed: u64, sched: Schedule) -> Vec<f32> {
    run_and_check_rows(gpu, g, seed, sched, &(0..g.m).collect::<Vec<_>>())
}

/// [`run_and_check_with`] checking `rows` only.
fn run_and_check_rows(
    gpu: &Gpu,
    g: &Sm90Gemm,
    seed: u64,
    sched: Schedule,
    rows: &[usize],
) -> Vec<f32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (la, lb, lc) = g.lens();
    let bw = match g.b_major {
        BMajor::N => g.n,
        BMajor::K => g.k,
    };
    let a = to_input(&random_padded(la, g.k, g.lda, &mut rng), g.input);
    let b = to_input(&random_padded(lb, bw, g.ldb, &mut rng), g.input);
    let c0 = random_padded(lc, g.n, g.ldc, &mut rng);
    let da = DeviceBuffer::from_slice(&a).unwrap();
    let db = DeviceBuffer::from_slice(&b).unwrap();
    let dc = DeviceBuffer::from_slice(&c0).unwrap();
    gemm_sm90(gpu, g, &da, &db, &dc, sched).unwrap();
    let c = download(&dc).unwrap();
    let w = worst(g, &a, &b, &c0, &c, rows);
    assert!(w.ratio <= 1.0, "{g:?} {sched:?}: {w:?}");
    for (i, v) in c.iter().enumerate() {
        if i % g.ldc >= g.n {
            assert!(v.is_nan(), "{g:?} {sched:?}: C's gap at {i} was written");
        }
    }
    c
}

fn every_kernel(m: usize, n: usize, k: usize, pad: usize, alpha: f32, beta: f32) {
    let Some(gpu) = hopper_for_test("sm90_every_kernel") else {
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
    let Some(gpu) = hopper_for_test("sm90_refused") else {
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

//! GPU tests of one problem with a transposed operand on the tuned flagship body (session 10,
//! helper "tsingle": `route::single_t`, docs/matmul.md "Session 10: single problems with a
//! transposed operand"): the `sgemm_{tn,nt,tt}_<tile>_fl` kernels by name on one problem under
//! the N,N flagship's balanced stream-K grid (every kind of grid `balance::balanced_plan` makes:
//! stream-K over every tile of an uneven second round, one wave over few tiles, the hybrid of
//! full waves and a shared tail, data-parallel), and the library's own pick for each operation
//! pair on the suite's and the outside lists' mid-size problems, odd sizes, K not a multiple of
//! the slice, K = 1, alpha/beta other than (1, 0), and split-K's batch on the same kernels,
//! against the f64 reference with the gaps of C checked untouched; the stream-K grid repeats
//! bit for bit. The T,N body with 4-byte copies (`FLAGSHIP_T_U`, helper "tsingle2") on
//! unaligned leading dimensions likewise. Without a GPU they print "SKIPPED …".
mod common;

use common::gemm::{assert_batch_result, fresh_operands};
use cust::memory::{CopyDestination, DeviceBuffer};
use gpu_kernels::matmul::{FLAGSHIP_BATCHED, FLAGSHIP_T_U, Op, stream_k::Schedule};
use host::{
    Gemm, gemm_device,
    gpu::gpu_for_test,
    matmul::{
        balance::{TUNED_OPS_SK_SLOTS, balanced_plan},
        flagship_ops::FlagshipOpsLaunch,
        launch_cache,
        route::{Prep, Route, SplitK, SplitSum},
        sgemm::{gemm_device_with_kernel, gemm_device_with_route},
    },
};
use rgk_core::matmul::reference;

/// Runs `op` through `run` on fresh buffers (random cells, NaN gaps, three NaN cells past A's
/// and B's ends), checks it against the f64 reference (eight sampled rows on the larger
/// problems) and every gap of C untouched, and returns C.
fn check(
    op: &Gemm,
    seed: u64,
    what: &str,
    run: impl FnOnce(&DeviceBuffer<f32>, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>),
) -> Vec<f32> {
    let ([a, b, c0], [d_a, d_b, mut d_c]) = fresh_operands(op, seed);
    run(&d_a, &d_b, &mut d_c);
    let mut c = vec![0f32; c0.len()];
    d_c.copy_to(&mut c[..]).unwrap();
    let rows = (op.m * op.n * op.k > 1 << 26).then(|| reference::sample_rows(op.m, 8, seed));
    assert_batch_result(what, op, [&a, &b, &c0], &c, &[0], rows.as_deref());
    c
}

const PAIRS: [[Op; 2]; 3] = [[Op::T, Op::N], [Op::N, Op::T], [Op::T, Op::T]];

/// One problem per kind of grid on the 64x64 tile (132 SMs, five blocks each on the H200):
/// 1000x780x1025, 208 tiles (stream-K over every tile, the uneven second round); 332x556x777,
/// 54 tiles (one wave of 132 blocks); 2000x2000x300, 1024 tiles (full waves and a shared
/// tail); 64x64x1 (one tile, K = 1); 68x132x37 (odd); K a multiple of the slice in none.
const GRIDS: [(usize, usize, usize); 5] = [
    (1000, 780, 1025),
    (332, 556, 777),
    (2000, 2000, 300),
    (64, 64, 1),
    (68, 132, 37),
];

#[test]
fn the_tuned_transposed_kernels_run_one_problem_on_the_balanced_grid() {
    let Some(gpu) =
        gpu_for_test("the_tuned_transposed_kernels_run_one_problem_on_the_balanced_grid")
    else {
        return;
    };
    let sms = launch_cache::multiprocessors(&gpu).unwrap();
    for cfg in FLAGSHIP_BATCHED.iter().filter(|c| c.ops != [Op::N, Op::N]) {
        // The 64x64 kernels at every grid; the others at one uneven and one odd problem.
        let shapes: &[(usize, usize, usize)] = if cfg.bm * cfg.bn == 64 * 64 {
            &GRIDS
        } else {
            &[(1000, 780, 1025), (68, 132, 37)]
        };
        for (i, &(m, n, k)) in shapes.iter().enumerate() {
            let op = Gemm::new(m, n, k)
                .ops(cfg.ops[0], cfg.ops[1])
                .alpha(1.25)
                .beta(if i % 2 == 0 { 0.0 } else { -0.5 });
            let what = format!("{} {m}x{n}x{k}", cfg.name);
            // The launch's grid is the N,N flagship's balanced plan for its tiles.
            let (_, [d_a, d_b, d_c]) = fresh_operands(&op, 1);
            let launch =
                FlagshipOpsLaunch::new(&gpu, cfg, &op, [&*d_a, &*d_b, &*d_c], 8, Schedule::StreamK)
                    .unwrap();
            let (_, per_sm) =
                launch_cache::kernel(&gpu, cfg.name, cfg.threads(), cfg.shared_bytes()).unwrap();
            let (tiles, ktiles) = (cfg.tiles(m as u32, n as u32), cfg.ktiles(k as u32));
            assert_eq!(
                launch.split(),
                balanced_plan(
                    Schedule::StreamK,
                    tiles,
                    ktiles,
                    sms,
                    per_sm.min(TUNED_OPS_SK_SLOTS)
                ),
                "{what}"
            );
            drop(launch);
            let c = check(&op, 300 + i as u64, &what, |a, b, c| {
                gemm_device_with_kernel(&gpu, cfg.name, Schedule::StreamK, &op, a, b, c)
                    .unwrap_or_else(|e| panic!("{what}: {e}"))
            });
            // The partial sums are added in a fixed order: the same bits again.
            if i == 0 {
                let again = check(&op, 300, &what, |a, b, c| {
                    gemm_device_with_kernel(&gpu, cfg.name, Schedule::StreamK, &op, a, b, c)
                        .unwrap()
                });
                assert!(
                    c.iter()
                        .zip(&again)
                        .all(|(x, y)| x.to_bits() == y.to_bits()),
                    "{what}: not reproducible"
                );
            }
        }
    }
}

/// The tuned T,N body with 4-byte straight copies (`FLAGSHIP_T_U`, `route::single_t::unaligned`)
/// by name under stream-K on the balanced grid: ldb (and lda) not multiples of 4 (1000x777x1025,
/// the suite's; 999x1111x1023; 333x555x129; 68x131x37; 64x63x1 with K = 1), leading dimensions
/// wider than the matrices and odd, an aligned problem (1000x780x1025), K a multiple of the
/// slice in none; alpha/beta other than (1, 0); the stream-K grid bit-reproducible.
#[test]
fn the_unaligned_t_n_body_on_the_balanced_grid() {
    let Some(gpu) = gpu_for_test("the_unaligned_t_n_body_on_the_balanced_grid") else {
        return;
    };
    let sms = launch_cache::multiprocessors(&gpu).unwrap();
    for cfg in FLAGSHIP_T_U {
        for (i, &(m, n, k, wide)) in [
            (1000, 777, 1025, false),
            (999, 1111, 1023, false),
            (333, 555, 129, false),
            (333, 555, 129, true),
            (68, 131, 37, true),
            (64, 63, 1, false),
            (1000, 780, 1025, false),
        ]
        .iter()
        .enumerate()
        {
            let op = Gemm::new(m, n, k)
                .ops(Op::T, Op::N)
                .alpha(-0.75)
                .beta(if i % 2 == 0 { 0.0 } else { 1.5 });
            // A stored k x m, B k x n: odd leading dimensions past the widths. The `_ub_fl`
            // kernels (`vec_a`) copy A in 16-byte pieces: its rows a multiple of 4 apart.
            let lda = |w: usize| if cfg.vec_a { w.next_multiple_of(4) } else { w };
            let op = if wide {
                op.leading_dims(lda(m + 3), n + 2, n + 1)
            } else {
                op.leading_dims(lda(m), n, n)
            };
            let what = format!("{} {m}x{n}x{k} wide {wide}", cfg.name);
            let (_, [d_a, d_b, d_c]) = fresh_operands(&op, 2);
            let launch =
                FlagshipOpsLaunch::new(&gpu, cfg, &op, [&*d_a, &*d_b, &*d_c], 8, Schedule::StreamK)
                    .unwrap();
            let (_, per_sm) =
                launch_cache::kernel(&gpu, cfg.name, cfg.threads(), cfg.shared_bytes()).unwrap();
            let (tiles, ktiles) = (cfg.tiles(m as u32, n as u32), cfg.ktiles(k as u32));
            assert_eq!(
                launch.split(),
                balanced_plan(
                    Schedule::StreamK,
                    tiles,
                    ktiles,
                    sms,
                    per_sm.min(TUNED_OPS_SK_SLOTS)
                ),
                "{what}"
            );
            drop(launch);
            let run = |a: &DeviceBuffer<f32>, b: &DeviceBuffer<f32>, c: &mut DeviceBuffer<f32>| {
                gemm_device_with_kernel(&gpu, cfg.name, Schedule::StreamK, &op, a, b, c)
                    .unwrap_or_else(|e| panic!("{what}: {e}"))
            };
            let c = check(&op, 700 + i as u64, &what, run);
            if i == 0 {
                let again = check(&op, 700, &what, run);
                assert!(
                    c.iter()
                        .zip(&again)
                        .all(|(x, y)| x.to_bits() == y.to_bits()),
                    "{what}: not reproducible"
                );
            }
        }
    }
    // A `_ub_fl` kernel refuses an A whose rows are not 16-byte aligned, in one sentence.
    for cfg in FLAGSHIP_T_U.iter().filter(|c| c.vec_a) {
        let op = Gemm::new(999, 777, 1025).ops(Op::T, Op::N);
        let (_, [d_a, d_b, d_c]) = fresh_operands(&op, 3);
        let err =
            FlagshipOpsLaunch::new(&gpu, cfg, &op, [&*d_a, &*d_b, &*d_c], 8, Schedule::StreamK)
                .err()
                .unwrap_or_else(|| panic!("{}: launched with lda 999", cfg.name));
        assert!(
            err.to_string().contains("copies A in 16-byte pieces"),
            "{err}"
        );
    }
}

/// The library's own pick (the route model with `single_t`: the tuned body directly, or after
/// re-pitching an unaligned straight operand, or the pre-pass where it prices cheaper) for each
/// pair on the problems the rule was made for and odd ones around them.
#[test]
fn one_transposed_problem_through_the_library() {
    let Some(gpu) = gpu_for_test("one_transposed_problem_through_the_library") else {
        return;
    };
    let shapes = [
        (1000, 777, 1025),
        (999, 1111, 1023),
        (900, 800, 1100),
        (1200, 700, 900),
        // Session 12: T,N on 64x64 where the N,N rule takes 64x128 (`route::tuned_grid`).
        (1100, 900, 1000),
        (1500, 1000, 800),
        (512, 512, 512),
        (333, 555, 777),
        (130, 4100, 300),
        (517, 260, 1),
    ];
    for (p, ops) in PAIRS.into_iter().enumerate() {
        for (i, &(m, n, k)) in shapes.iter().enumerate() {
            let op = Gemm::new(m, n, k)
                .ops(ops[0], ops[1])
                .alpha(0.75)
                .beta(if (i + p) % 2 == 0 { 0.0 } else { -0.5 });
            check(&op, 400 + i as u64, "library", |a, b, c| {
                gemm_device(&gpu, &op, a, b, c).unwrap_or_else(|e| panic!("{op:?}: {e}"))
            });
        }
    }
}

/// Leading dimensions wider than the matrices (the gaps NaN, untouched) on the tuned body.
#[test]
fn wide_leading_dimensions() {
    let Some(gpu) = gpu_for_test("wide_leading_dimensions") else {
        return;
    };
    for (i, ops) in PAIRS.into_iter().enumerate() {
        let (m, n, k) = (301, 203, 405);
        let op = Gemm::new(m, n, k).ops(ops[0], ops[1]).alpha(-1.5).beta(2.0);
        let (wa, wb) = (
            if ops[0] == Op::N { k } else { m },
            if ops[1] == Op::N { n } else { k },
        );
        let op = op.leading_dims(
            wa.next_multiple_of(4) + 8,
            wb.next_multiple_of(4) + 4,
            n + 3,
        );
        check(&op, 500 + i as u64, "library", |a, b, c| {
            gemm_device(&gpu, &op, a, b, c).unwrap_or_else(|e| panic!("{op:?}: {e}"))
        });
    }
}

/// Split-K's batch of K-ranges with a transposed operand runs the tuned body where one problem
/// takes it (`select_ops::batch_kernel`): each pair, directly and after a pre-pass, K with and
/// without a tail the sum adds, odd M and N where the copies allow them.
#[test]
fn split_k_on_the_tuned_transposed_body() {
    let Some(gpu) = gpu_for_test("split_k_on_the_tuned_transposed_body") else {
        return;
    };
    let split = |tile, splits| {
        Some(SplitK {
            tile,
            splits,
            sum: SplitSum::Launch,
        })
    };
    for (i, ops) in PAIRS.into_iter().enumerate() {
        for (j, &(m, n, k, b, tile, splits)) in [
            (900, 800, 1100, Prep::Keep, 3, 2),
            (900, 800, 1001, Prep::Keep, 2, 3),
            (300, 260, 2000, Prep::Transpose, 3, 6),
            (332, 257, 777, Prep::Keep, 3, 2),
        ]
        .iter()
        .enumerate()
        {
            let op = Gemm::new(m, n, k)
                .ops(ops[0], ops[1])
                .alpha(0.5)
                .beta(if j % 2 == 0 { 0.0 } else { 1.5 });
            let route = Route {
                a: Prep::Keep,
                b,
                split: split(tile, splits),
            };
            check(&op, 600 + (3 * i + j) as u64, "split", |a, b, c| {
                gemm_device_with_route(&gpu, route, &op, a, b, c)
                    .unwrap_or_else(|e| panic!("{op:?} {route:?}: {e}"))
            });
        }
    }
}

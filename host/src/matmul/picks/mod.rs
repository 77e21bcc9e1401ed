//! (Test only, apart from `route` because it also asks `skinny_split`, which builds on the
//! route model.) Every listed problem's route on the H200 (`listed::pick`), and for a direct route with a
//! transposed operand or a batch, its kernel: printed by `listed::print_picks` at session 13's
//! model. A change of the cost model or of the kernel choice that moves any of them must be
//! measured on the GPU first (issue #20: picks follow measurements). Session 12 moved three:
//! 1100x900x1000 TN (was `tile=3,splits=3`), 1500x1000x800 TN (was direct on
//! `sgemm_tn_64x128x16_s3_8x8_fl`) and 1536x1536x1536 TN (was `tile=2,splits=4`), each
//! faster in 3 of 3 processes (docs/data/session13-2026-11-28/route-s12). Session 13's
//! `FLAGSHIP_SK_LATENCY` moved twelve, each forced against its old pick in three processes
//! (docs/data/session13-2026-11-28/moved1, moved2): faster in eleven, 350x500x800 N,N split
//! three ways 0.0298 ms against 0.0278 direct (its two-way split, 0.0254, the model ranks
//! behind: docs/matmul.md, Session 13), and the unaligned T,N body's 64x64 tile
//! (`single_t::unaligned_tile`) two: 999x1111x1023 and 1000x1111x1023 T,N (64x128 → 64x64, by
//! name in three processes each); the batch tile by the grid estimate (`route::batch_tile`)
//! two: 384³ x 100 N,T and T,T (128x128 → 64x128, by name in three processes each).
use crate::matmul::route::Route;
use listed::{direct_kernel, listed, pick, route_name};

mod listed;

/// `(label, route [kernel])` for every problem of `listed::listed()`, in its order.
const PICKS: &[(&str, &str)] = &[
    ("64x64x64 NN x1", "direct"),
    ("128x128x128 NN x1", "direct"),
    ("256x256x256 NN x1", "direct"),
    ("512x512x512 NN x1", "tile=3,splits=2"),
    ("1024x1024x1024 NN x1", "direct"),
    ("2048x2048x2048 NN x1", "direct"),
    ("4096x4096x4096 NN x1", "direct"),
    ("8192x8192x8192 NN x1", "direct"),
    ("1000x1000x1000 NN x1", "direct"),
    ("3000x3000x3000 NN x1", "direct"),
    ("777x1000x129 NN x1", "direct"),
    ("1025x1023x1023 NN x1", "direct"),
    ("4097x4095x1023 NN x1", "b=R"),
    ("333x555x777 NN x1", "direct"),
    ("256x256x16384 NN x1", "tile=2,splits=32"),
    ("128x128x16384 NN x1", "tile=3,splits=64"),
    ("512x512x16384 NN x1", "tile=0,splits=16"),
    ("1024x1024x16384 NN x1", "tile=0,flagship=4"),
    ("8192x8192x256 NN x1", "direct"),
    ("12288x128x12288 NN x1", "direct"),
    ("128x12288x12288 NN x1", "direct"),
    ("16384x64x4096 NN x1", "direct"),
    ("64x16384x4096 NN x1", "tile=2,splits=2"),
    ("5000x7x5000 NN x1", "direct"),
    ("7x5000x5000 NN x1", "direct"),
    ("8192x16x8192 NN x1", "direct"),
    ("16x8192x8192 NN x1", "direct"),
    ("1x8192x8192 NN x1", "direct"),
    ("8192x1x8192 NN x1", "direct"),
    ("1x4096x4096 NN x1", "direct"),
    ("4096x1x4096 NN x1", "direct"),
    ("64x64x64 NN x4096", "direct sgemm_nn_64x64x16_s4_8x4_fl"),
    (
        "256x256x256 NN x512",
        "direct sgemm_nn_128x256x8_s4_8x16_fl",
    ),
    (
        "128x128x128 NN x1024",
        "direct sgemm_nn_128x128x8_s4_16x8_fl",
    ),
    (
        "512x512x512 NN x128",
        "direct sgemm_nn_128x256x8_s4_8x16_fl",
    ),
    ("32x32x32 NN x8192", "direct sgemm_nn_64x64x16_s4_8x4_fl"),
    (
        "4096x4096x4096 TN x1",
        "direct sgemm_tn_128x256x8_s4_8x16_fl",
    ),
    ("4096x4096x4096 NT x1", "b=T"),
    ("4096x4096x4096 TT x1", "b=T"),
    (
        "1000x777x1025 TN x1",
        "direct sgemm_tn_64x64x16_s4_8x4_ub_fl",
    ),
    ("1000x777x1025 NT x1", "b=T"),
    ("1000x777x1025 TT x1", "direct sgemm_tt_64x64x16_s4_8x4_fl"),
    (
        "256x256x256 TN x512",
        "direct sgemm_tn_128x256x8_s4_8x16_fl",
    ),
    (
        "256x256x256 NT x512",
        "direct sgemm_nt_128x128x8_s4_16x8_fl",
    ),
    (
        "256x256x256 TT x512",
        "direct sgemm_tt_128x128x8_s4_16x8_fl",
    ),
    ("8192x24x8192 NN x1", "direct"),
    ("8192x32x8192 NN x1", "direct"),
    ("8192x48x8192 NN x1", "direct"),
    ("16384x100x4096 NN x1", "tile=1,splits=2"),
    ("4096x64x4096 NN x1", "tile=3,splits=6"),
    ("32x8192x8192 NN x1", "direct"),
    ("48x8192x8192 NN x1", "direct"),
    ("100x16384x4096 NN x1", "tile=0,flagship=2"),
    ("16384x12x3000 NN x1", "direct"),
    ("3000x5x16384 NN x1", "direct"),
    ("1x2048x2048 NN x1", "direct"),
    ("2048x1x2048 NN x1", "direct"),
    ("1x16384x16384 NN x1", "direct"),
    ("16384x1x16384 NN x1", "direct"),
    ("1x6000x3000 NN x1", "direct"),
    ("16x16x16 NN x16384", "direct sgemm_nn_64x64x16_s4_8x4_fl"),
    ("24x24x24 NN x8192", "direct sgemm_nn_64x64x16_s4_8x4_fl"),
    ("32x32x128 NN x4096", "direct sgemm_nn_64x64x16_s4_8x4_fl"),
    ("48x48x48 NN x4096", "direct sgemm_nn_64x64x16_s4_8x4_fl"),
    ("8x8x8 NN x65535", "direct sgemm_nn_64x64x16_s4_8x4_fl"),
    ("32x32x32 NN x100", "direct sgemm_nn_64x64x16_s4_8x4_fl"),
    (
        "999x1111x1023 TN x1",
        "direct sgemm_tn_64x64x16_s4_8x4_u_fl",
    ),
    ("999x1111x1023 NT x1", "a=T,b=T"),
    ("999x1111x1023 TT x1", "a=R,b=T"),
    ("1200x700x900 NN x1", "direct"),
    ("1200x700x900 NT x1", "b=T"),
    ("350x500x800 NN x1", "tile=3,splits=3"),
    ("450x450x450 NN x1", "direct"),
    ("64x12288x4096 NN x1", "direct"),
    ("12288x64x4096 NN x1", "direct"),
    ("3001x2999x1001 NN x1", "direct"),
    ("5000x4001x999 NN x1", "b=R"),
    ("448x448x12000 NN x1", "direct"),
    ("640x640x8192 NN x1", "tile=2,splits=12"),
    ("1x3000x5000 NN x1", "direct"),
    ("1100x900x1000 TN x1", "direct sgemm_tn_64x64x16_s4_8x4_fl"),
    ("1100x900x1000 NT x1", "b=T,tile=3,splits=3"),
    ("1100x900x1000 TT x1", "b=T,tile=3,splits=3"),
    (
        "1001x779x1027 TN x1",
        "direct sgemm_tn_64x64x16_s4_8x4_u_fl",
    ),
    ("1001x779x1027 TT x1", "a=R"),
    ("768x1280x1536 TT x1", "b=T,tile=2,splits=2"),
    ("2000x1500x700 TN x1", "direct sgemm_tn_64x128x16_s3_8x8_fl"),
    ("1536x1536x1536 NT x1", "a=T,b=T,tile=2,splits=4"),
    ("3001x2999x1001 TT x1", "a=T,b=T"),
    ("640x480x2000 TN x1", "tile=2,splits=6"),
    ("512x512x512 TT x1", "tile=3,splits=2"),
    ("256x4096x1024 TT x1", "tile=2,splits=2"),
    ("6000x1x3000 NN x1", "direct"),
    ("3000x1x5000 NN x1", "direct"),
    ("1x12288x4096 NN x1", "direct"),
    ("1x5000x777 NN x1", "direct"),
    ("1x1000x16384 NN x1", "direct"),
    ("1x4097x4095 NN x1", "direct"),
    ("300x600x700 NN x1", "tile=3,splits=2"),
    ("333x777x555 NN x1", "direct"),
    ("448x448x1500 NN x1", "tile=3,splits=4"),
    ("448x448x2000 NN x1", "tile=3,splits=4"),
    ("333x555x1900 NN x1", "direct"),
    ("1000x780x1025 TN x1", "direct sgemm_tn_64x64x16_s4_8x4_fl"),
    ("1200x700x900 TN x1", "direct sgemm_tn_64x64x16_s4_8x4_fl"),
    ("1500x1000x800 TN x1", "direct sgemm_tn_64x64x16_s4_8x4_fl"),
    (
        "1000x1111x1023 TN x1",
        "direct sgemm_tn_64x64x16_s4_8x4_ub_fl",
    ),
    ("1024x1024x1024 TN x1", "tile=2,splits=2"),
    ("768x1280x1536 TN x1", "tile=2,splits=2"),
    ("384x384x12000 NN x1", "tile=1,splits=24"),
    ("768x640x8192 NN x1", "tile=2,flagship=4"),
    ("2048x512x8192 NN x1", "tile=1,flagship=4"),
    ("200x300x9001 TN x1", "tile=3,splits=12"),
    ("256x256x16384 TT x1", "tile=0,splits=64"),
    ("700x700x2000 NN x1", "tile=2,splits=4"),
    ("1000x777x1025 NN x1", "direct"),
    ("2000x3000x1500 NT x1", "b=T"),
    ("3000x2000x1500 TT x1", "b=T"),
    (
        "1536x1536x1536 TN x1",
        "direct sgemm_tn_64x128x16_s3_8x8_fl",
    ),
    ("384x384x384 NT x100", "direct sgemm_nt_64x128x16_s3_8x8_fl"),
    (
        "256x256x256 NN x300",
        "direct sgemm_nn_128x256x8_s4_8x16_fl",
    ),
    ("600x900x1300 NN x1", "tile=2,splits=3"),
    ("333x777x555 TN x1", "direct sgemm_tn_64x64x16_s4_8x4_u_fl"),
    ("1200x1000x6000 NN x1", "tile=0,flagship=3"),
    ("400x1000x3000 NT x1", "tile=0,splits=8"),
    ("4096x16x4096 NN x1", "direct"),
    ("10000x16x10000 NN x1", "direct"),
    ("16384x16x4096 NN x1", "direct"),
    ("3000x13x16384 NN x1", "direct"),
    ("16000x11x3000 NN x1", "direct"),
    ("8192x9x8192 NN x1", "direct"),
    ("16384x32x4096 NN x1", "direct"),
    ("10000x20x10000 NN x1", "direct"),
    ("16384x28x2000 NN x1", "direct"),
    ("5000x32x5000 NN x1", "direct"),
    ("3000x17x3000 NN x1", "tile=3,splits=6"),
    ("1x6144x6144 NN x1", "direct"),
    ("8192x8x8192 NN x1", "direct"),
    ("5000x4x16000 NN x1", "direct"),
    ("900x800x1100 NN x1", "tile=3,splits=2"),
    ("900x800x1100 TN x1", "tile=3,splits=2"),
    ("900x800x1100 NT x1", "b=T,tile=3,splits=2"),
    ("900x800x1100 TT x1", "b=T,tile=3,splits=2"),
    ("384x384x12288 NN x1", "tile=1,splits=24"),
    ("320x320x12000 NN x1", "tile=3,splits=24"),
    ("768x768x10000 NN x1", "direct"),
    ("192x192x192 NN x384", "direct sgemm_nn_64x64x16_s4_8x4_fl"),
    ("192x192x192 NT x384", "direct sgemm_nt_64x64x16_s4_8x4_fl"),
    ("192x192x192 TT x384", "direct sgemm_tt_64x64x16_s4_8x4_fl"),
    ("320x320x320 NN x256", "direct sgemm_nn_64x64x16_s4_8x4_fl"),
    ("320x320x320 NT x256", "direct sgemm_nt_64x64x16_s4_8x4_fl"),
    ("320x320x320 TT x256", "direct sgemm_tt_64x64x16_s4_8x4_fl"),
    (
        "512x512x256 NN x192",
        "direct sgemm_nn_128x256x8_s4_8x16_fl",
    ),
    (
        "384x384x128 NN x256",
        "direct sgemm_nn_128x128x8_s4_16x8_fl",
    ),
    ("200x200x200 NN x600", "direct sgemm_nn_64x128x16_s3_8x8_fl"),
    ("192x192x192 TN x384", "direct sgemm_tn_64x64x16_s4_8x4_fl"),
    ("320x320x320 TN x256", "direct sgemm_tn_64x64x16_s4_8x4_fl"),
    ("384x384x384 TT x100", "direct sgemm_tt_64x128x16_s3_8x8_fl"),
    ("200x200x200 NT x600", "direct sgemm_nt_64x128x16_s3_8x8_fl"),
    (
        "512x512x256 TT x192",
        "direct sgemm_tt_128x128x8_s4_16x8_fl",
    ),
    (
        "128x128x128 NT x1024",
        "direct sgemm_nt_128x128x8_s4_16x8_fl",
    ),
    ("64x64x64 TT x4096", "direct sgemm_tt_64x64x16_s4_8x4_fl"),
];

#[test]
fn every_listed_problem_keeps_its_pick() {
    let all = listed();
    assert_eq!(
        all.len(),
        PICKS.len(),
        "a list changed: print_picks and update PICKS"
    );
    let mut moved = Vec::new();
    for (l, &(label, want)) in all.iter().zip(PICKS) {
        assert_eq!(l.label, label);
        let r = pick(&l.gemm);
        let kernel = if r == Route::DIRECT {
            direct_kernel(&l.gemm).unwrap_or("")
        } else {
            ""
        };
        let got = format!("{} {kernel}", route_name(&r));
        if got.trim() != want {
            moved.push(format!("{label}: {want} -> {}", got.trim()));
        }
    }
    assert!(moved.is_empty(), "picks moved:\n{}", moved.join("\n"));
}

//! Small problems (issue #20, session 10): where even the smallest tile, 64x64, gives fewer
//! blocks than 90 % of the multiprocessors (333 x 555 x 777: 54 tiles on 132 SMs), one-wave
//! stream-K (`balance::balanced_plan`) runs one block per multiprocessor, and the 4-warp 64x64
//! kernel (8x4 outputs per thread) leaves each SM four warps to hide its loads, shared-memory
//! reads and barriers behind. Its 8-warp twin (`sgemm_64x64x16_s4_4x4[_u]`, 4x4 outputs per
//! thread) runs the same tile and grid with twice the warps, half the serial work per thread.
//! H200, session 10 call 1 (`host matmul`, the same launch plan, one process): 333 x 555 x 777
//! 105.8 → 113.2 % of cuBLAS, 333 x 777 x 555 96.9 → 102.3, 300 x 600 x 700 92.7 → 101.3,
//! 350 x 500 x 800 88.0 → 95.6 (docs/matmul.md, "Session 10: matrix–vector and small odd
//! problems").
//!
//! Only below `SHORT_K`: with a deep K the main loop dominates, and there the 8x4 tile's two
//! FMAs per shared-memory word win (call 2: 448 x 448 x 12000, 49 tiles, direct, ran 0.168 ms on
//! the twin against 0.141 on the 4-warp kernel in session 9's merged run).
//!
//! Only the launch takes the twin: `select::choose_kernel`, which the route model and the thin
//! rules price, keeps the 4-warp kernel it was calibrated with.
use gpu_kernels::matmul::FlagshipConfig;
use rgk_core::matmul::tune::SHORT_K;

use super::flagship::flagship_config;

/// The 4-warp 64x64 kernels and their 8-warp twins.
const TWINS: [(&str, &str); 2] = [
    ("sgemm_64x64x16_s4_8x4", "sgemm_64x64x16_s4_4x4"),
    ("sgemm_64x64x16_s4_8x4_u", "sgemm_64x64x16_s4_4x4_u"),
];

/// `cfg`, or its 8-warp twin when `cfg` is a 4-warp 64x64 kernel whose grid over an `m x n` C
/// has fewer tiles than 90 % of `sms` (the fallback of `select::choose_kernel`) and K is below
/// `SHORT_K`.
pub fn small_twin(
    cfg: &'static FlagshipConfig,
    (m, n, k): (u32, u32, usize),
    sms: u32,
) -> &'static FlagshipConfig {
    let enough = sms.saturating_mul(9).div_ceil(10);
    if cfg.tiles(m, n) >= enough || k >= SHORT_K {
        return cfg;
    }
    TWINS
        .iter()
        .find(|(four, _)| *four == cfg.name)
        .and_then(|(_, eight)| flagship_config(eight).ok())
        .unwrap_or(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twin(name: &str, m: u32, n: u32) -> &'static str {
        small_twin(flagship_config(name).unwrap(), (m, n, 777), 132).name
    }

    #[test]
    fn small_grids_take_the_eight_warp_tile() {
        for (four, eight) in TWINS {
            let (a, b) = (
                flagship_config(four).unwrap(),
                flagship_config(eight).unwrap(),
            );
            // The same tile and copies, twice the warps.
            assert_eq!((a.bm, a.bn, a.bk, a.vec_b), (b.bm, b.bn, b.bk, b.vec_b));
            assert_eq!(2 * a.threads(), b.threads());
        }
        assert_eq!(
            twin("sgemm_64x64x16_s4_8x4_u", 333, 555),
            "sgemm_64x64x16_s4_4x4_u"
        );
        assert_eq!(
            twin("sgemm_64x64x16_s4_8x4", 300, 600),
            "sgemm_64x64x16_s4_4x4"
        );
        // 118 tiles: below 90 % of 132; 119 tiles: enough.
        assert_eq!(
            twin("sgemm_64x64x16_s4_8x4", 64 * 118, 64),
            "sgemm_64x64x16_s4_4x4"
        );
        assert_eq!(
            twin("sgemm_64x64x16_s4_8x4", 64 * 119, 64),
            "sgemm_64x64x16_s4_8x4"
        );
        // Deep K keeps the 4-warp kernel.
        let deep = small_twin(
            flagship_config("sgemm_64x64x16_s4_8x4").unwrap(),
            (448, 448, 12000),
            132,
        );
        assert_eq!(deep.name, "sgemm_64x64x16_s4_8x4");
        let short = small_twin(
            flagship_config("sgemm_64x64x16_s4_8x4").unwrap(),
            (448, 448, SHORT_K - 1),
            132,
        );
        assert_eq!(short.name, "sgemm_64x64x16_s4_4x4");
        // Other tiles stay.
        assert_eq!(
            twin("sgemm_64x128x16_s3_8x8", 100, 100),
            "sgemm_64x128x16_s3_8x8"
        );
    }
}

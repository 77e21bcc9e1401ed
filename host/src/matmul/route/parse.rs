//! `RGK_SGEMM_ROUTE`: a route named in text, for timing runs that force one route.
use super::{Prep, Route, SplitK, SplitSum, TILES};

/// A route named as `RGK_SGEMM_ROUTE` takes it, for timing runs: `direct`, or comma-separated
/// `a=K|T|R`, `b=K|T|R`, `tile=I` (0..4, `TILES` order) and `splits=S` (≥ 2 with a tile) or
/// `fused=S` / `flagship=S` (the in-kernel split on the variant / the N,N flagship, ≥ 2 with
/// a tile).
pub fn parse_route(text: &str) -> Option<Route> {
    if text == "direct" {
        return Some(Route::DIRECT);
    }
    let mut r = Route::DIRECT;
    let (mut tile, mut splits, mut sum) = (None, None, SplitSum::Launch);
    for part in text.split(',') {
        let (key, value) = part.split_once('=')?;
        let prep = || match value {
            "K" => Some(Prep::Keep),
            "T" => Some(Prep::Transpose),
            "R" => Some(Prep::Repitch),
            _ => None,
        };
        match key {
            "a" => r.a = prep()?,
            "b" => r.b = prep()?,
            "tile" => tile = Some(value.parse::<usize>().ok().filter(|&t| t < TILES.len())?),
            "splits" | "fused" | "flagship" if splits.is_none() => {
                splits = Some(value.parse::<u32>().ok().filter(|&s| s >= 2)?);
                sum = match key {
                    "splits" => SplitSum::Launch,
                    "fused" => SplitSum::InVariant,
                    _ => SplitSum::InFlagship,
                };
            }
            _ => return None,
        }
    }
    r.split = match (tile, splits) {
        (Some(tile), Some(splits)) => Some(SplitK { tile, splits, sum }),
        (None, None) => None,
        _ => return None,
    };
    Some(r)
}

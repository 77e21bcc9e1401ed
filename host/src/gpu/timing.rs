//! Timing launches with CUDA events: median, min and max of repeated runs.
use anyhow::{Context as _, Result};
use cust::{
    event::{Event, EventFlags},
    stream::Stream,
};
use serde::Serialize;

/// Median, min and max of per-launch event timings, in milliseconds.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Timing {
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub reps: usize,
}

impl Timing {
    pub fn from_samples(mut ms: Vec<f64>) -> Timing {
        assert!(!ms.is_empty(), "no timing samples");
        ms.sort_by(|a, b| a.total_cmp(b));
        let n = ms.len();
        let median = if n % 2 == 1 {
            ms[n / 2]
        } else {
            0.5 * (ms[n / 2 - 1] + ms[n / 2])
        };
        Timing {
            median_ms: median,
            min_ms: ms[0],
            max_ms: ms[n - 1],
            reps: n,
        }
    }
}

/// The median of a non-empty sample, as [`Timing`] takes it (units pass through).
pub fn median(v: &[f64]) -> f64 {
    Timing::from_samples(v.to_vec()).median_ms
}

/// One launch of `launch` between two events on `stream`, waited for: its milliseconds.
fn time_one(stream: &Stream, launch: &mut dyn FnMut() -> Result<()>) -> Result<f64> {
    let start = Event::new(EventFlags::DEFAULT)?;
    let stop = Event::new(EventFlags::DEFAULT)?;
    start.record(stream)?;
    launch()?;
    stop.record(stream)?;
    stop.synchronize().context("timed launch failed")?;
    Ok(stop.elapsed_time_f32(&start)? as f64)
}

/// Times `a` and `b` alternately, one launch of each per repetition (`a` first in even
/// repetitions, `b` first in odd ones), after `warmup` launches of each. Why: a transient (a
/// clock dip, the board at its power limit for a moment) then falls on both sides' samples
/// alike, where timing one side's `reps` launches before the other's puts it all on one side
/// and moves their ratio.
pub fn time_interleaved(
    stream: &Stream,
    warmup: usize,
    reps: usize,
    mut a: impl FnMut() -> Result<()>,
    mut b: impl FnMut() -> Result<()>,
) -> Result<(Timing, Timing)> {
    for _ in 0..warmup {
        a()?;
        b()?;
    }
    stream.synchronize().context("warm-up launch failed")?;
    let (mut sa, mut sb) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for r in 0..reps.max(1) {
        if r % 2 == 0 {
            sa.push(time_one(stream, &mut a)?);
            sb.push(time_one(stream, &mut b)?);
        } else {
            sb.push(time_one(stream, &mut b)?);
            sa.push(time_one(stream, &mut a)?);
        }
    }
    Ok((Timing::from_samples(sa), Timing::from_samples(sb)))
}

/// Runs `launch` `warmup` times, then `reps` times each between two events on `stream`.
pub fn time_on_stream(
    stream: &Stream,
    warmup: usize,
    reps: usize,
    mut launch: impl FnMut() -> Result<()>,
) -> Result<Timing> {
    for _ in 0..warmup {
        launch()?;
    }
    stream.synchronize().context("warm-up launch failed")?;
    let mut samples = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        samples.push(time_one(stream, &mut launch)?);
    }
    Ok(Timing::from_samples(samples))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_even_and_odd_counts() {
        assert_eq!(Timing::from_samples(vec![3.0, 1.0, 2.0]).median_ms, 2.0);
        let t = Timing::from_samples(vec![4.0, 1.0, 2.0, 3.0]);
        assert_eq!(
            (t.median_ms, t.min_ms, t.max_ms, t.reps),
            (2.5, 1.0, 4.0, 4)
        );
    }
}

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
        let start = Event::new(EventFlags::DEFAULT)?;
        let stop = Event::new(EventFlags::DEFAULT)?;
        start.record(stream)?;
        launch()?;
        stop.record(stream)?;
        stop.synchronize().context("timed launch failed")?;
        samples.push(stop.elapsed_time_f32(&start)? as f64);
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

//! When a run reads its figures: every reporting interval, and at every step window's edges too, so a
//! step shorter than the interval still has its time-series points and counters (a 5 s step at the
//! default 10 s interval would otherwise lie between two readings and have none). A step decided during
//! the run adds its edges when it is ([`Ticks::add`]).

use std::time::Duration;

use super::schedule::Scheduled;

/// The run's reading times, as offsets from its start: the interval's grid with each window's start and
/// end added. A grid tick within a tenth of an interval of an edge gives way to the edge, so that no
/// reading comes moments after another (a rate over a few milliseconds is noise).
#[derive(Debug, Clone)]
pub struct Ticks {
    interval: Duration,
    /// How close a grid tick may lie to an edge before it gives way.
    close: Duration,
    /// The next grid tick.
    grid: Duration,
    /// The edges still ahead, latest first.
    edges: Vec<Duration>,
}

impl Ticks {
    /// The readings of a run of `schedule`, every `interval` and at each window's edges.
    pub fn new(interval: Duration, schedule: &[Scheduled]) -> Ticks {
        let interval = interval.max(Duration::from_millis(1));
        let mut edges: Vec<Duration> = schedule.iter().flat_map(|s| [s.window.0, s.window.1]).collect();
        edges.sort_unstable_by(|a, b| b.cmp(a));
        edges.dedup();
        Ticks { interval, close: interval / 10, grid: interval, edges }
    }

    /// Reads at `window`'s edges too: the window of a step decided during the run.
    pub fn add(&mut self, window: (Duration, Duration)) {
        self.edges.extend([window.0, window.1]);
        self.edges.sort_unstable_by(|a, b| b.cmp(a));
        self.edges.dedup();
    }

    /// The next reading's offset from the run's start.
    pub fn due(&self) -> Duration {
        match self.edges.last().copied() {
            Some(edge) if edge <= self.grid + self.close => edge,
            _ => self.grid,
        }
    }

    /// Takes the next reading ([`due`](Self::due)): the one after it is due next.
    pub fn pass(&mut self) {
        match self.edges.last().copied() {
            Some(edge) if edge <= self.grid + self.close => {
                self.edges.pop();
                while self.grid <= edge + self.close {
                    self.grid += self.interval;
                }
            }
            _ => self.grid += self.interval,
        }
    }

    /// The next reading's offset from the run's start, taken.
    pub fn next_at(&mut self) -> Duration {
        let at = self.due();
        self.pass();
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::schedule::StepSpec;

    fn step(start_s: f64, end_s: f64) -> Scheduled {
        let s = Duration::from_secs_f64;
        Scheduled {
            spec: StepSpec { users: 1, run: 1 },
            start: Duration::ZERO,
            ramp: Duration::ZERO,
            window: (s(start_s), s(end_s)),
            rate: None,
        }
    }

    fn first(ticks: &mut Ticks, n: usize) -> Vec<f64> {
        (0..n).map(|_| ticks.next_at().as_secs_f64()).collect()
    }

    #[test]
    fn a_step_shorter_than_the_interval_is_read_at_its_edges() {
        // Issue 35: a 5 s step after a 1 s warmup at the default 10 s interval.
        let mut ticks = Ticks::new(Duration::from_secs(10), &[step(1.0, 6.0)]);
        assert_eq!(first(&mut ticks, 4), [1.0, 6.0, 10.0, 20.0]);
    }

    #[test]
    fn a_grid_tick_close_to_an_edge_gives_way_to_it() {
        let mut ticks = Ticks::new(Duration::from_secs(10), &[step(10.5, 29.5), step(29.5, 41.0)]);
        assert_eq!(first(&mut ticks, 5), [10.5, 20.0, 29.5, 41.0, 50.0], "10, 30 and 40 give way");
        let mut regular = Ticks::new(Duration::from_secs(2), &[step(4.0, 8.0)]);
        assert_eq!(first(&mut regular, 5), [2.0, 4.0, 6.0, 8.0, 10.0], "edges on the grid are read once");
    }
}

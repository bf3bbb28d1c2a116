//! Driving load: virtual users on tokio tasks, a collector that turns their samples into figures, live
//! lines every interval, and the measured window's statistics at the end. Workload-neutral: a workload
//! plugs in through [`Workload`].

pub mod collector;
pub mod cpu;
pub mod pool;
pub mod result;
pub mod sample;
pub mod user;
pub mod workload;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use oltpgen_report::model::{ClientCpu, IntervalRow};
use oltpgen_report::step::Transactions;
use tokio::time::Instant;

use collector::Collector;
pub use collector::IntervalFigures;
use pool::Pool;
use sample::Recorder;
use user::{Connections, Crew};
pub use workload::{Done, Next, TxnError, Workload};

/// How users start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ramp {
    /// This many users per second.
    Rate(f64),
    /// All users started evenly over this time.
    Over(Duration),
}

/// The timing and shape of one run.
#[derive(Clone, Copy, Debug)]
pub struct RunPlan {
    /// Virtual users.
    pub users: u32,
    /// Shared connections; `None` gives each user its own.
    pub connections: Option<u32>,
    /// How users start.
    pub ramp: Ramp,
    /// Unmeasured time after the last user started.
    pub warmup: Duration,
    /// The measured window.
    pub duration: Duration,
    /// The live line's period.
    pub report_interval: Duration,
}

impl RunPlan {
    /// When user `index` starts, after the run began.
    pub fn start_of(&self, index: u32) -> Duration {
        match self.ramp {
            Ramp::Rate(r) if r > 0.0 => Duration::from_secs_f64(f64::from(index) / r),
            Ramp::Rate(_) => Duration::ZERO,
            Ramp::Over(d) => d.mul_f64(f64::from(index) / f64::from(self.users.max(1))),
        }
    }

    /// The time it takes to start every user.
    pub fn ramp_up(&self) -> Duration {
        match self.ramp {
            Ramp::Over(d) => d,
            Ramp::Rate(_) => self.start_of(self.users.saturating_sub(1)),
        }
    }

    /// The measured window, from the run's start.
    pub fn window(&self) -> (Duration, Duration) {
        let begin = self.ramp_up() + self.warmup;
        (begin, begin + self.duration)
    }

    /// Connections the run opens at most.
    pub fn connections_needed(&self) -> u32 {
        self.connections.map_or(self.users, |c| c.min(self.users))
    }
}

/// What a run measured.
pub struct Measured {
    /// Per transaction type, over the measured window.
    pub transactions: Transactions,
    /// The window actually measured, seconds from the run's start (shorter when interrupted).
    pub window_s: (f64, f64),
    /// Every interval's figures per transaction type.
    pub timeseries: Vec<IntervalRow>,
    /// Failures of the whole run by kind.
    pub errors_by_kind: BTreeMap<String, u64>,
    /// The client's CPU over the whole run per completed transaction, its memory, its wake-up lateness.
    pub client: ClientCpu,
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
}

/// Runs `plan` against `workload`, calling `live` at every reporting interval.
pub async fn drive<W: Workload>(
    workload: Arc<W>,
    plan: &RunPlan,
    mut live: impl FnMut(&IntervalFigures),
) -> Measured {
    let start = Instant::now();
    let cpu_before = cpu::process_cpu_s();
    let (begin, end) = plan.window();
    let ms = |d: Duration| d.as_millis().min(u128::from(u32::MAX)) as u32;
    let mut collector = Collector::new(W::KINDS, W::PER_MINUTE_KIND, ms(begin)..ms(end));
    let (to_collector, mut samples) = tokio::sync::mpsc::unbounded_channel();
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let running = Arc::new(AtomicU64::new(0));
    let connections = match plan.connections {
        Some(n) if n < plan.users => Connections::Shared(Arc::new(Pool::new(n))),
        _ => Connections::Own,
    };
    let crew = Crew { workload, connections, start, stop, running: running.clone() };
    let interval_ms = ms(plan.report_interval).max(1);
    let mut users = tokio::task::JoinSet::new();
    for i in 0..plan.users {
        let recorder = Recorder::new(to_collector.clone(), interval_ms);
        users.spawn(user::run(crew.clone(), i, plan.start_of(i), recorder));
    }
    drop(to_collector);
    drop(crew);

    let mut timeseries = Vec::new();
    let mut ticks = tokio::time::interval_at(start + plan.report_interval, plan.report_interval);
    let finish = tokio::time::sleep_until(start + end);
    tokio::pin!(finish);
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    let interrupted = loop {
        tokio::select! {
            Some(batch) = samples.recv() => collector.absorb(&batch),
            _ = ticks.tick() => {
                let figures = collector.tick(start.elapsed().as_secs_f64(), running.load(Ordering::Relaxed));
                live(&figures);
                timeseries.extend(figures.rows);
            }
            _ = &mut finish => break false,
            _ = &mut ctrl_c => break true,
        }
    };
    let stopped_at = start.elapsed();
    let _ = stop_tx.send(true);
    // Users finish the transaction in flight (it completes after the window and is not measured).
    let drain = async {
        loop {
            tokio::select! {
                Some(batch) = samples.recv() => collector.absorb(&batch),
                joined = users.join_next() => if joined.is_none() { break },
            }
        }
        while let Ok(batch) = samples.try_recv() {
            collector.absorb(&batch);
        }
    };
    if tokio::time::timeout(Duration::from_secs(30), drain).await.is_err() {
        users.abort_all();
    }
    let cpu_after = cpu::process_cpu_s();
    let window_end = stopped_at.min(end).max(begin);
    let mut client =
        ClientCpu::new(cpu_after.0 - cpu_before.0, cpu_after.1 - cpu_before.1, collector.completed());
    client.peak_rss_bytes = cpu::peak_rss_bytes();
    let late = collector.lateness();
    if !late.is_empty() {
        client.wake_late_p99_ms = Some(late.percentile_us(99.0) as f64 / 1e3);
        client.wake_late_max_ms = Some(late.max_us() as f64 / 1e3);
    }
    Measured {
        transactions: collector.window_transactions(),
        window_s: (begin.as_secs_f64(), window_end.as_secs_f64()),
        timeseries,
        errors_by_kind: collector.errors_by_kind().clone(),
        client,
        interrupted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(users: u32, ramp: Ramp) -> RunPlan {
        RunPlan {
            users,
            connections: None,
            ramp,
            warmup: Duration::from_secs(5),
            duration: Duration::from_secs(60),
            report_interval: Duration::from_secs(10),
        }
    }

    #[test]
    fn users_start_at_the_ramp_rate_and_the_window_follows_warmup() {
        let p = plan(101, Ramp::Rate(50.0));
        assert_eq!(p.start_of(0), Duration::ZERO);
        assert_eq!(p.start_of(100), Duration::from_secs(2));
        assert_eq!(p.window(), (Duration::from_secs(7), Duration::from_secs(67)));
        let p = plan(10, Ramp::Over(Duration::from_secs(20)));
        assert_eq!(p.start_of(5), Duration::from_secs(10));
        assert_eq!(p.ramp_up(), Duration::from_secs(20));
        assert_eq!(plan(10, Ramp::Rate(0.0)).ramp_up(), Duration::ZERO);
    }

    #[test]
    fn a_pool_never_opens_more_than_the_users_need() {
        let mut p = plan(10, Ramp::Rate(1.0));
        assert_eq!(p.connections_needed(), 10);
        p.connections = Some(4);
        assert_eq!(p.connections_needed(), 4);
        p.connections = Some(40);
        assert_eq!(p.connections_needed(), 10);
    }
}

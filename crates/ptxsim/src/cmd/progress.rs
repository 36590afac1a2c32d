//! A progress spinner for long runs: shown on a terminal once a run has taken about a second
//! (`PTXSIM_PROGRESS_DELAY_MS` milliseconds when set), never on a non-terminal stderr (pipes,
//! CI logs, test harnesses).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a run goes before the spinner appears, unless `PTXSIM_PROGRESS_DELAY_MS` says.
const DELAY: Duration = Duration::from_millis(1000);

/// The delay before the spinner appears: `PTXSIM_PROGRESS_DELAY_MS` if it is a number of
/// milliseconds, else [`DELAY`].
fn delay() -> Duration {
    std::env::var("PTXSIM_PROGRESS_DELAY_MS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .map_or(DELAY, Duration::from_millis)
}

/// A running progress display; [`Progress::finish`] removes it.
pub struct Progress {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts watching `counter` (warp-instructions executed, updated by the interpreter) when
    /// stderr is a terminal; otherwise does nothing.
    pub fn start(label: &str, counter: Arc<AtomicU64>) -> Progress {
        let stop = Arc::new(AtomicBool::new(false));
        if !std::io::stderr().is_terminal() {
            return Progress { stop, thread: None };
        }
        let label = label.to_string();
        let flag = stop.clone();
        let delay = delay();
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            while started.elapsed() < delay {
                if flag.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            // Hidden until its first values are in, so no empty frame is drawn.
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden())
                .with_elapsed(started.elapsed());
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} {prefix}: {human_pos} warp-instructions, {msg} [{elapsed}]",
                )
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.set_prefix(label);
            let update = |bar: &ProgressBar| {
                let done = counter.load(Ordering::Relaxed);
                let secs = started.elapsed().as_secs_f64().max(1e-3);
                bar.set_position(done);
                bar.set_message(format!("{:.1} M/s", done as f64 / secs / 1e6));
            };
            update(&bar);
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(100));
            while !flag.load(Ordering::Relaxed) {
                update(&bar);
                std::thread::sleep(Duration::from_millis(50));
            }
            bar.finish_and_clear();
        });
        Progress {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the display and clears its line.
    pub fn finish(mut self) {
        self.stop_thread();
    }

    fn stop_thread(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

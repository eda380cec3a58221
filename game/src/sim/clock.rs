//! Time for the game loop: a fixed-step simulation clock with render
//! interpolation and capped catch-up, and a frame pacer.
//!
//! The simulation always advances in steps of [`DT`](crate::sim::player::DT); the
//! renderer draws between the last two simulation states, at the fraction
//! `alpha` of a step that the accumulator holds. After a long stall (a
//! debugger break, a window drag) the clock runs at most
//! [`MAX_CATCH_UP_STEPS`] steps and drops the rest of the backlog, so a slow
//! frame never snowballs into a slower one ("spiral of death").
//!
//! The pacer exists because presenting with Fifo is not throttled everywhere
//! (under Xvfb it runs at hundreds of frames per second): the loop sleeps to
//! its own deadline instead of trusting vsync.

use std::time::{Duration, Instant};

/// The most simulation steps one rendered frame may run. Eight steps at 64 Hz
/// is 125 ms of game time: enough to ride out an ordinary hitch, small enough
/// that a stall does not freeze the picture while the simulation catches up.
pub const MAX_CATCH_UP_STEPS: u32 = 8;

/// The longest frame time the clock accepts, in seconds; longer frames (the
/// process was suspended) count as this long. It equals the catch-up cap so
/// a stall costs at most one capped frame.
pub const MAX_FRAME_SECONDS: f32 = MAX_CATCH_UP_STEPS as f32 * crate::sim::player::DT;

/// What one rendered frame must do: run `steps` simulation steps, then draw at
/// `alpha` (0..1) of the way from the previous state to the current one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameSteps {
    /// Simulation steps to run this frame.
    pub steps: u32,
    /// Interpolation factor between the previous and the current state.
    pub alpha: f32,
    /// Seconds of backlog dropped because of the catch-up cap (0 normally).
    pub dropped: f32,
}

/// A fixed-step accumulator.
#[derive(Clone, Debug)]
pub struct FixedClock {
    dt: f32,
    accumulator: f32,
    max_steps: u32,
}

impl FixedClock {
    /// A clock stepping every `dt` seconds, running at most `max_steps` steps
    /// per frame. A non-positive or non-finite `dt` is replaced by the
    /// game's [`DT`](crate::sim::player::DT), and `max_steps` is at least 1.
    pub fn new(dt: f32, max_steps: u32) -> Self {
        let dt = if dt.is_finite() && dt > 0.0 {
            dt
        } else {
            crate::sim::player::DT
        };
        Self {
            dt,
            accumulator: 0.0,
            max_steps: max_steps.max(1),
        }
    }

    /// The game's clock: 64 Hz, [`MAX_CATCH_UP_STEPS`].
    pub fn game() -> Self {
        Self::new(crate::sim::player::DT, MAX_CATCH_UP_STEPS)
    }

    /// The step length, seconds.
    pub fn dt(&self) -> f32 {
        self.dt
    }

    /// Adds a frame's elapsed time and says how many steps to run. Negative,
    /// NaN or infinite frame times count as zero or as the cap; nothing here
    /// can make the accumulator non-finite.
    pub fn advance(&mut self, frame_seconds: f32) -> FrameSteps {
        let frame = if frame_seconds.is_nan() {
            0.0
        } else {
            frame_seconds.clamp(0.0, self.max_steps as f32 * self.dt)
        };
        self.accumulator += frame;
        let mut steps = (self.accumulator / self.dt).floor() as u32;
        let mut dropped = 0.0;
        if steps > self.max_steps {
            dropped = (steps - self.max_steps) as f32 * self.dt;
            steps = self.max_steps;
        }
        self.accumulator -= (steps as f32) * self.dt + dropped;
        // Rounding may leave a hair below zero or at a full step.
        self.accumulator = self.accumulator.clamp(0.0, self.dt * 0.999_999);
        FrameSteps {
            steps,
            alpha: self.accumulator / self.dt,
            dropped,
        }
    }
}

/// Sleeps the loop to a target frame rate, measured against deadlines rather
/// than by sleeping a fixed time, so the error of one sleep does not add up.
#[derive(Clone, Debug)]
pub struct FramePacer {
    period: Duration,
    next: Option<Instant>,
}

impl FramePacer {
    /// A pacer for `fps` frames per second; `fps == 0` disables pacing.
    pub fn new(fps: u32) -> Self {
        Self {
            period: if fps == 0 {
                Duration::ZERO
            } else {
                Duration::from_secs_f64(1.0 / fps as f64)
            },
            next: None,
        }
    }

    /// The deadline of the next frame given the time `now`, and how long to
    /// wait for it. A loop that fell more than a frame behind restarts its
    /// deadlines from `now` instead of rushing to catch up.
    pub fn next_deadline(&mut self, now: Instant) -> (Instant, Duration) {
        if self.period.is_zero() {
            return (now, Duration::ZERO);
        }
        let deadline = match self.next {
            Some(next) if next + self.period >= now => next,
            _ => now,
        };
        self.next = Some(deadline + self.period);
        (deadline, deadline.saturating_duration_since(now))
    }

    /// Waits until the next frame's deadline.
    pub fn wait(&mut self) {
        let (_, wait) = self.next_deadline(Instant::now());
        if !wait.is_zero() {
            std::thread::sleep(wait);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::player::DT;

    #[test]
    fn steady_60hz_frames_average_64_steps_per_second() {
        let mut clock = FixedClock::game();
        let steps: u32 = (0..600).map(|_| clock.advance(1.0 / 60.0).steps).sum();
        // Ten seconds of frames give 640 steps, less the fraction still held.
        assert!((639..=640).contains(&steps), "{steps}");
    }

    #[test]
    fn alpha_is_the_fraction_of_a_step_left() {
        let mut clock = FixedClock::game();
        let f = clock.advance(DT * 2.5);
        assert_eq!(f.steps, 2);
        assert!((f.alpha - 0.5).abs() < 1e-4, "{}", f.alpha);
        let f = clock.advance(DT * 0.5);
        assert_eq!(f.steps, 1);
        assert!(f.alpha < 1e-4);
    }

    #[test]
    fn a_stall_runs_at_most_the_catch_up_cap() {
        let mut clock = FixedClock::game();
        let f = clock.advance(5.0);
        assert_eq!(f.steps, MAX_CATCH_UP_STEPS);
        let f = clock.advance(1.0 / 60.0);
        assert!(f.steps <= 2, "backlog was dropped: {f:?}");
    }

    #[test]
    fn bad_frame_times_never_poison_the_clock() {
        let mut clock = FixedClock::game();
        for t in [f32::NAN, -1.0, f32::INFINITY, f32::NEG_INFINITY] {
            let f = clock.advance(t);
            assert!(
                f.alpha.is_finite() && (0.0..1.0).contains(&f.alpha),
                "{t}: {f:?}"
            );
        }
        assert_eq!(clock.advance(DT).steps, 1);
    }

    #[test]
    fn pacer_deadlines_advance_by_one_period() {
        let mut pacer = FramePacer::new(100);
        let t0 = Instant::now();
        let (d0, w0) = pacer.next_deadline(t0);
        assert_eq!(d0, t0);
        assert!(w0.is_zero());
        let (d1, w1) = pacer.next_deadline(t0 + Duration::from_millis(3));
        assert_eq!(d1, t0 + Duration::from_millis(10));
        assert_eq!(w1, Duration::from_millis(7));
    }

    #[test]
    fn pacer_that_fell_behind_restarts_from_now() {
        let mut pacer = FramePacer::new(100);
        let t0 = Instant::now();
        pacer.next_deadline(t0);
        let late = t0 + Duration::from_millis(50);
        let (d, w) = pacer.next_deadline(late);
        assert_eq!(d, late);
        assert!(w.is_zero());
    }

    #[test]
    fn zero_fps_disables_pacing() {
        let mut pacer = FramePacer::new(0);
        let now = Instant::now();
        assert_eq!(pacer.next_deadline(now), (now, Duration::ZERO));
    }
}

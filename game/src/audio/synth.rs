//! The game's sounds, made by our own code at startup: short mono buffers
//! built from noise bursts, resonators and decaying partials, no files.
//!
//! Each footstep surface has its own recipe (soft earth, gritty stone on a
//! slope, a hollow wooden knock on a plank, a bright metal clank on a rung, a
//! low metal plate for a moving platform); the jump is a scuff, the landing
//! a thump, a grip a small metallic tick, the checkpoint a two-note chime and
//! the level's end a rising arpeggio. Noise comes from a seeded generator, so
//! the bank is the same on every run and every machine.

use std::f32::consts::TAU;

use crate::audio::SoundId;

/// Samples per second of every buffer: CD rate, which every output device
/// takes (rodio converts to the device's own rate).
pub const SAMPLE_RATE: u32 = 44_100;

/// The loudest sample of any buffer: headroom under full scale so that a
/// few overlapping sounds at full volume rarely reach the mixer's clamp.
pub const PEAK: f32 = 0.5;

/// One synthesized sound: mono samples at [`SAMPLE_RATE`].
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// The samples, in [-[`PEAK`], [`PEAK`]].
    pub samples: Vec<f32>,
}

impl Buffer {
    /// Length in seconds.
    pub fn duration(&self) -> f32 {
        self.samples.len() as f32 / SAMPLE_RATE as f32
    }

    /// Root-mean-square level over the whole buffer.
    pub fn rms(&self) -> f32 {
        if self.samples.is_empty() {
            return 0.0;
        }
        let sum: f64 = self.samples.iter().map(|s| f64::from(*s).powi(2)).sum();
        (sum / self.samples.len() as f64).sqrt() as f32
    }
}

/// Every sound of the game, indexed by [`SoundId::index`].
#[derive(Clone, Debug, PartialEq)]
pub struct SoundBank {
    buffers: Vec<Buffer>,
}

impl SoundBank {
    /// Synthesizes every sound (a few milliseconds of work).
    pub fn synthesize() -> Self {
        let buffers = SoundId::ALL.iter().map(|id| synthesize(*id)).collect();
        Self { buffers }
    }

    /// The buffer of one sound.
    pub fn get(&self, id: SoundId) -> &Buffer {
        &self.buffers[id.index()]
    }
}

/// The buffer of one sound, normalized to [`PEAK`].
pub fn synthesize(id: SoundId) -> Buffer {
    use crate::character::events::Surface;
    let mut rng = Noise::new(0x9E37_79B9 ^ id.index() as u32);
    let samples = match id {
        SoundId::Footstep(Surface::Ground) => earth_step(&mut rng),
        SoundId::Footstep(Surface::Slope) => stone_step(&mut rng),
        SoundId::Footstep(Surface::Plank) => wood_knock(&mut rng),
        SoundId::Footstep(Surface::Rung) => metal_clank(
            &mut rng,
            &[
                (620.0, 0.16),
                (1_710.0, 0.11),
                (2_950.0, 0.08),
                (4_100.0, 0.05),
            ],
            0.35,
        ),
        SoundId::Footstep(Surface::Platform) => metal_clank(
            &mut rng,
            &[(180.0, 0.22), (430.0, 0.16), (890.0, 0.10), (1_530.0, 0.07)],
            0.45,
        ),
        SoundId::Jump => jump_scuff(&mut rng),
        SoundId::Land => landing_thump(&mut rng),
        SoundId::Grip => grip_tick(&mut rng),
        SoundId::Checkpoint => chime(&[(659.26, 0.0), (987.77, 0.09)], 0.9),
        SoundId::LevelComplete => chime(
            &[
                (523.25, 0.0),
                (659.26, 0.12),
                (783.99, 0.24),
                (1_046.5, 0.36),
            ],
            1.3,
        ),
    };
    Buffer {
        samples: normalize(samples),
    }
}

/// Soft earth or grass: low-passed noise with a quick attack and a short
/// tail, over a faint low thud.
fn earth_step(rng: &mut Noise) -> Vec<f32> {
    let n = samples_for(0.12);
    let mut lp = Biquad::low_pass(900.0, 0.7);
    (0..n)
        .map(|i| {
            let t = time(i);
            let env = attack_decay(t, 0.003, 0.028);
            let thud = (TAU * 85.0 * t).sin() * attack_decay(t, 0.002, 0.035) * 0.6;
            lp.run(rng.next() * env) + thud
        })
        .collect()
}

/// Stone and grit on a slope: a brighter, longer scuff (the foot slides a
/// little as it settles on the incline), band-passed around 2.5 kHz, with a
/// few grains.
fn stone_step(rng: &mut Noise) -> Vec<f32> {
    let n = samples_for(0.16);
    let mut bp = Biquad::band_pass(2_500.0, 0.9);
    let mut low = Biquad::low_pass(600.0, 0.7);
    // Takes the harsh top off the grit.
    let mut top = Biquad::low_pass(6_000.0, 0.7);
    (0..n)
        .map(|i| {
            let t = time(i);
            let scuff = attack_decay(t, 0.012, 0.05);
            let grain = if rng.next().abs() > 0.985 { 3.0 } else { 0.0 };
            let x = rng.next();
            top.run(bp.run(x * scuff + grain * rng.next() * scuff))
                + low.run(x * attack_decay(t, 0.002, 0.02))
        })
        .collect()
}

/// A hollow wooden knock: a board's few low modes, damped within tens of
/// milliseconds (metal rings ten times longer), after a dull click.
fn wood_knock(rng: &mut Noise) -> Vec<f32> {
    let n = samples_for(0.15);
    let modes = [
        (240.0, 0.045, 1.0),
        (590.0, 0.03, 0.6),
        (1_150.0, 0.016, 0.35),
    ];
    let mut click = Biquad::low_pass(3_000.0, 0.7);
    (0..n)
        .map(|i| {
            let t = time(i);
            let body: f32 = modes
                .iter()
                .map(|(f, decay, gain)| (TAU * f * t).sin() * attack_decay(t, 0.001, *decay) * gain)
                .sum();
            body + click.run(rng.next()) * attack_decay(t, 0.0005, 0.004) * 0.6
        })
        .collect()
}

/// Struck metal: inharmonic partials `(Hz, decay seconds)` after a click.
fn metal_clank(rng: &mut Noise, partials: &[(f32, f32)], length: f32) -> Vec<f32> {
    let n = samples_for(length);
    let mut click = Biquad::high_pass(2_000.0, 0.7);
    (0..n)
        .map(|i| {
            let t = time(i);
            let ring: f32 = partials
                .iter()
                .enumerate()
                .map(|(k, (f, decay))| {
                    (TAU * f * t + k as f32).sin() * attack_decay(t, 0.001, *decay)
                        / (1.0 + k as f32 * 0.6)
                })
                .sum();
            ring + click.run(rng.next()) * attack_decay(t, 0.0005, 0.006) * 0.8
        })
        .collect()
}

/// Pushing off: a short scuff whose band sweeps up from 0.7 to 2 kHz.
fn jump_scuff(rng: &mut Noise) -> Vec<f32> {
    let n = samples_for(0.14);
    let mut bp = Biquad::band_pass(700.0, 1.2);
    (0..n)
        .map(|i| {
            let t = time(i);
            bp.retune_band_pass(700.0 + 9_000.0 * t, 1.2);
            bp.run(rng.next()) * attack_decay(t, 0.01, 0.035)
        })
        .collect()
}

/// A body landing: a sine falling from 110 to 45 Hz under a burst of
/// low-passed noise.
fn landing_thump(rng: &mut Noise) -> Vec<f32> {
    let n = samples_for(0.3);
    let mut lp = Biquad::low_pass(500.0, 0.7);
    let mut phase = 0.0f32;
    (0..n)
        .map(|i| {
            let t = time(i);
            let f = 45.0 + 65.0 * (-t / 0.05).exp();
            phase += TAU * f / SAMPLE_RATE as f32;
            let body = phase.sin() * attack_decay(t, 0.002, 0.09);
            body + lp.run(rng.next()) * attack_decay(t, 0.002, 0.04) * 1.5
        })
        .collect()
}

/// A hand closing on a rung: a small bright tick with a leathery rub.
fn grip_tick(rng: &mut Noise) -> Vec<f32> {
    let n = samples_for(0.1);
    let mut rub = Biquad::band_pass(1_800.0, 1.5);
    (0..n)
        .map(|i| {
            let t = time(i);
            let tick = ((TAU * 1_250.0 * t).sin() + 0.5 * (TAU * 2_630.0 * t).sin())
                * attack_decay(t, 0.0005, 0.018);
            tick * 0.5 + rub.run(rng.next()) * attack_decay(t, 0.004, 0.02)
        })
        .collect()
}

/// Bell notes `(Hz, start seconds)`, each with a few partials, decaying over
/// `length` seconds.
fn chime(notes: &[(f32, f32)], length: f32) -> Vec<f32> {
    let n = samples_for(length + notes.last().map_or(0.0, |(_, s)| *s));
    (0..n)
        .map(|i| {
            let t = time(i);
            notes
                .iter()
                .filter(|(_, start)| t >= *start)
                .map(|(f, start)| {
                    let u = t - start;
                    let env = attack_decay(u, 0.004, length * 0.3);
                    ((TAU * f * u).sin()
                        + 0.4 * (TAU * 2.0 * f * u).sin() * (-u / 0.15).exp()
                        + 0.15 * (TAU * 3.01 * f * u).sin() * (-u / 0.08).exp())
                        * env
                })
                .sum()
        })
        .collect()
}

fn samples_for(seconds: f32) -> usize {
    (seconds * SAMPLE_RATE as f32).round() as usize
}

fn time(i: usize) -> f32 {
    i as f32 / SAMPLE_RATE as f32
}

/// A linear attack over `attack` seconds, then an exponential decay with
/// time constant `decay` seconds.
fn attack_decay(t: f32, attack: f32, decay: f32) -> f32 {
    if t < attack {
        t / attack
    } else {
        (-(t - attack) / decay).exp()
    }
}

/// Scales the samples so that the loudest is [`PEAK`], and fades the last
/// two milliseconds out so that no buffer ends on a click.
fn normalize(mut samples: Vec<f32>) -> Vec<f32> {
    let peak = samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
    if peak > 0.0 && peak.is_finite() {
        for s in &mut samples {
            *s *= PEAK / peak;
        }
    }
    let fade = samples_for(0.002).min(samples.len());
    let len = samples.len();
    for (k, s) in samples[len - fade..].iter_mut().enumerate() {
        *s *= 1.0 - (k + 1) as f32 / fade as f32;
    }
    samples
}

/// White noise in [-1, 1] from a 32-bit xorshift generator: seeded, so every
/// run makes the same sounds.
struct Noise(u32);

impl Noise {
    fn new(seed: u32) -> Self {
        Self(seed.max(1))
    }

    fn next(&mut self) -> f32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        (x as f32 / u32::MAX as f32) * 2.0 - 1.0
    }
}

/// A second-order filter (the audio cookbook's biquads), direct form I.
#[derive(Clone, Copy, Debug)]
struct Biquad {
    b: [f32; 3],
    a: [f32; 2],
    x: [f32; 2],
    y: [f32; 2],
}

impl Biquad {
    fn from_coefficients(b: [f32; 3], a0: f32, a: [f32; 2]) -> Self {
        Self {
            b: b.map(|v| v / a0),
            a: a.map(|v| v / a0),
            x: [0.0; 2],
            y: [0.0; 2],
        }
    }

    fn omega(freq: f32, q: f32) -> (f32, f32, f32) {
        let w = TAU * freq.min(0.45 * SAMPLE_RATE as f32) / SAMPLE_RATE as f32;
        (w.cos(), w.sin(), w.sin() / (2.0 * q))
    }

    fn low_pass(freq: f32, q: f32) -> Self {
        let (c, _, alpha) = Self::omega(freq, q);
        Self::from_coefficients(
            [(1.0 - c) / 2.0, 1.0 - c, (1.0 - c) / 2.0],
            1.0 + alpha,
            [-2.0 * c, 1.0 - alpha],
        )
    }

    fn high_pass(freq: f32, q: f32) -> Self {
        let (c, _, alpha) = Self::omega(freq, q);
        Self::from_coefficients(
            [(1.0 + c) / 2.0, -(1.0 + c), (1.0 + c) / 2.0],
            1.0 + alpha,
            [-2.0 * c, 1.0 - alpha],
        )
    }

    /// Band-pass with a peak gain of one.
    fn band_pass(freq: f32, q: f32) -> Self {
        let (c, _, alpha) = Self::omega(freq, q);
        Self::from_coefficients([alpha, 0.0, -alpha], 1.0 + alpha, [-2.0 * c, 1.0 - alpha])
    }

    /// Moves a band-pass to a new centre, keeping its state.
    fn retune_band_pass(&mut self, freq: f32, q: f32) {
        let f = Self::band_pass(freq, q);
        self.b = f.b;
        self.a = f.a;
    }

    fn run(&mut self, x: f32) -> f32 {
        let y = self.b[0] * x + self.b[1] * self.x[0] + self.b[2] * self.x[1]
            - self.a[0] * self.y[0]
            - self.a[1] * self.y[1];
        self.x = [x, self.x[0]];
        self.y = [y, self.y[0]];
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::character::events::Surface;

    #[test]
    fn every_buffer_is_finite_audible_short_and_within_its_peak() {
        let bank = SoundBank::synthesize();
        for id in SoundId::ALL {
            let b = bank.get(id);
            assert!(b.samples.iter().all(|s| s.is_finite()), "{id:?}");
            let peak = b.samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
            assert!((peak - PEAK).abs() < 1e-3, "{id:?} peak {peak}");
            assert!(b.rms() > 0.02, "{id:?} is nearly silent: rms {}", b.rms());
            assert!(
                (0.05..=2.0).contains(&b.duration()),
                "{id:?} lasts {} s",
                b.duration()
            );
            assert_eq!(
                b.samples.last().copied(),
                Some(0.0),
                "{id:?} ends on a click"
            );
        }
    }

    #[test]
    fn each_surface_sounds_different() {
        // Sounds differ in their spectrum: compare the share of energy in
        // three bands (a crude spectrum from the signal and its first and
        // second differences, which weigh high frequencies more).
        let profile = |b: &Buffer| {
            let e0: f32 = b.samples.iter().map(|s| s * s).sum();
            let d1: Vec<f32> = b.samples.windows(2).map(|w| w[1] - w[0]).collect();
            let e1: f32 = d1.iter().map(|s| s * s).sum();
            let e2: f32 = d1.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
            [b.duration(), e1 / e0, e2 / e1.max(1e-12), b.rms()]
        };
        let bank = SoundBank::synthesize();
        let profiles: Vec<_> = Surface::ALL
            .iter()
            .map(|s| (s, profile(bank.get(SoundId::Footstep(*s)))))
            .collect();
        for (i, (a, pa)) in profiles.iter().enumerate() {
            for (b, pb) in &profiles[i + 1..] {
                let differs = pa
                    .iter()
                    .zip(pb)
                    .any(|(x, y)| (x - y).abs() > 0.15 * x.abs().max(y.abs()));
                assert!(differs, "{a:?} and {b:?} sound alike: {pa:?} vs {pb:?}");
            }
        }
    }

    #[test]
    fn the_bank_is_the_same_on_every_run() {
        assert_eq!(SoundBank::synthesize(), SoundBank::synthesize());
    }
}

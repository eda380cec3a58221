//! Dust: puffs kicked up where a character lands or plants a foot hard.
//!
//! [`DustPool`] is a fixed pool of particles, allocated once: emitting,
//! advancing and drawing never allocate, and when the pool is full a new
//! puff reuses the oldest particles. Particles are drawn as soft,
//! camera-facing quads through [`Frame::soft_quad`], growing and fading as
//! they age. [`DustPool::emit_events`] raises them from a frame's contact
//! events ([`crate::character::events`]: landings with their impact speed,
//! foot plants with their surface and speed), the same events the
//! footstep and landing sounds play from. Rendering reads the simulation;
//! nothing here writes it.

use glam::Vec3;
use renderer::Frame;

use crate::character::events::{CharacterEvent, FrameEvents, Surface};

/// Most dust particles alive at once. A hard landing emits
/// [`MAX_PUFF_PARTICLES`] living under a second and a running knight plants
/// about three feet a second, so one character uses a few dozen; 256 leaves
/// room for several characters landing together, at 13 KiB.
pub const DUST_CAPACITY: usize = 256;
/// Particles in the strongest puff (a landing at [`HARD_LANDING_SPEED`]).
pub const MAX_PUFF_PARTICLES: usize = 14;
/// Fall speed at which a landing raises no dust, m/s: stepping down a
/// stair or a short hop lands slower than this.
pub const SOFT_LANDING_SPEED: f32 = 2.5;
/// Fall speed of the largest landing puff, m/s (a fall of about 4 m).
pub const HARD_LANDING_SPEED: f32 = 9.0;
/// Horizontal speed above which a foot's plant raises dust, m/s: running,
/// not walking.
pub const HARD_PLANT_SPEED: f32 = 3.5;
/// Strength of a hard foot plant's puff (a landing's is up to 1).
const PLANT_STRENGTH: f32 = 0.2;
/// Colour of dust (linear RGB) and its opacity at its densest.
const DUST_COLOR: [f32; 3] = [0.70, 0.62, 0.50];
const DUST_OPACITY: f32 = 0.5;

#[derive(Clone, Copy, Debug, Default)]
struct Particle {
    pos: Vec3,
    vel: Vec3,
    age: f32,
    life: f32,
    size: f32,
}

impl Particle {
    fn alive(&self) -> bool {
        self.age < self.life
    }
}

/// A fixed pool of dust particles (see the module documentation).
#[derive(Clone, Debug)]
pub struct DustPool {
    particles: Box<[Particle; DUST_CAPACITY]>,
    /// The slot the next particle goes to (round robin: the oldest).
    next: usize,
    /// State of the pool's own random sequence (xorshift), so puffs vary
    /// but a run is reproducible.
    rng: u32,
}

impl Default for DustPool {
    fn default() -> Self {
        Self::new()
    }
}

impl DustPool {
    /// An empty pool.
    pub fn new() -> Self {
        Self {
            particles: Box::new([Particle::default(); DUST_CAPACITY]),
            next: 0,
            rng: 0x2545_F491,
        }
    }

    fn random(&mut self) -> f32 {
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        (x >> 8) as f32 / (1u32 << 24) as f32
    }

    /// A puff at `at` (a point on the floor, world space) of `strength`
    /// 0..1 (clamped; NaN emits nothing): more, bigger and faster particles
    /// the stronger it is, thrown out sideways and a little up.
    pub fn emit(&mut self, at: Vec3, strength: f32) {
        // A NaN or non-positive strength, or a non-finite point, emits nothing.
        if strength.is_nan() || strength <= 0.0 || !at.is_finite() {
            return;
        }
        let s = strength.min(1.0);
        let count = 3 + ((MAX_PUFF_PARTICLES - 3) as f32 * s) as usize;
        for i in 0..count {
            // Alternate left and right, spread in depth, mostly level.
            let side = if i % 2 == 0 { 1.0 } else { -1.0 };
            let speed = (0.5 + 1.6 * s) * (0.5 + self.random());
            let dir = Vec3::new(side, 0.15 + 0.35 * self.random(), self.random() - 0.5).normalize();
            let life = 0.4 + 0.25 * s + 0.3 * self.random();
            let size = 0.05 + 0.07 * s * (0.6 + 0.8 * self.random());
            let jitter = Vec3::new(self.random() - 0.5, 0.0, self.random() - 0.5) * 0.1;
            self.particles[self.next] = Particle {
                pos: at + jitter + Vec3::Y * 0.03,
                vel: dir * speed,
                age: 0.0,
                life,
                size,
            };
            self.next = (self.next + 1) % DUST_CAPACITY;
        }
    }

    /// Ages and moves every live particle by `dt` seconds: the air slows
    /// them quickly and they drift up a little as they spread.
    pub fn update(&mut self, dt: f32) {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        let drag = (-4.0 * dt).exp();
        for p in self.particles.iter_mut().filter(|p| p.alive()) {
            p.age += dt;
            p.pos += p.vel * dt;
            p.vel = p.vel * drag + Vec3::Y * 0.25 * dt;
        }
    }

    /// Queues every live particle as a soft quad facing the camera (the
    /// side view looks along −z), growing and fading with its age.
    pub fn draw(&self, frame: &mut Frame) {
        for p in self.particles.iter().filter(|p| p.alive()) {
            let t = p.age / p.life;
            let radius = p.size * (1.0 + 2.5 * t);
            let fade_in = (p.age / 0.05).min(1.0);
            let alpha = DUST_OPACITY * (1.0 - t) * (1.0 - t) * fade_in;
            let [r, g, b] = DUST_COLOR;
            frame.soft_quad(p.pos, Vec3::X * radius, Vec3::Y * radius, [r, g, b, alpha]);
        }
    }

    /// Raises the dust of one frame's contact `events`: a landing puff
    /// sized by the impact speed between [`SOFT_LANDING_SPEED`] (none) and
    /// [`HARD_LANDING_SPEED`] (the largest), and a small puff where a foot
    /// is planted on a floor (not a rung) while the body moves faster than
    /// [`HARD_PLANT_SPEED`].
    pub fn emit_events(&mut self, events: &FrameEvents) {
        for event in events.iter() {
            match *event {
                CharacterEvent::Land {
                    position,
                    impact_speed,
                    ..
                } if impact_speed > SOFT_LANDING_SPEED => {
                    let s = (impact_speed - SOFT_LANDING_SPEED)
                        / (HARD_LANDING_SPEED - SOFT_LANDING_SPEED);
                    self.emit(position, 0.25 + 0.75 * s.min(1.0));
                }
                CharacterEvent::FootPlant {
                    position,
                    surface,
                    speed,
                    ..
                } if surface != Surface::Rung && speed > HARD_PLANT_SPEED => {
                    self.emit(position, PLANT_STRENGTH);
                }
                _ => {}
            }
        }
    }

    /// How many particles are alive.
    pub fn live_count(&self) -> usize {
        self.particles.iter().filter(|p| p.alive()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_puff_lives_grows_fades_and_dies() {
        let mut pool = DustPool::new();
        pool.emit(Vec3::ZERO, 1.0);
        assert_eq!(pool.live_count(), MAX_PUFF_PARTICLES);
        let mut frame = Frame::new();
        pool.draw(&mut frame);
        assert_eq!(frame.soft_quad_count(), MAX_PUFF_PARTICLES);
        // Two seconds later every particle (life under 1 s) is gone.
        for _ in 0..128 {
            pool.update(1.0 / 64.0);
        }
        assert_eq!(pool.live_count(), 0);
        frame.clear();
        pool.draw(&mut frame);
        assert_eq!(frame.soft_quad_count(), 0);
    }

    #[test]
    fn a_stronger_puff_has_more_particles_and_nan_has_none() {
        let count = |s: f32| {
            let mut pool = DustPool::new();
            pool.emit(Vec3::ZERO, s);
            pool.live_count()
        };
        assert!(count(1.0) > count(0.2));
        assert!(count(0.2) >= 3);
        assert_eq!(count(f32::NAN), 0);
        assert_eq!(count(0.0), 0);
    }

    #[test]
    fn the_pool_never_holds_more_than_its_capacity() {
        let mut pool = DustPool::new();
        for i in 0..100 {
            pool.emit(Vec3::new(i as f32, 0.0, 0.0), 1.0);
        }
        assert_eq!(pool.live_count(), DUST_CAPACITY);
        // The newest puff is among the live ones (the oldest were reused).
        assert!(pool.particles.iter().any(|p| p.pos.x > 98.5));
    }

    #[test]
    fn particles_spread_out_and_stay_near_the_floor() {
        let mut pool = DustPool::new();
        pool.emit(Vec3::ZERO, 1.0);
        for _ in 0..20 {
            pool.update(1.0 / 64.0);
        }
        let xs: Vec<f32> = pool
            .particles
            .iter()
            .filter(|p| p.alive())
            .map(|p| p.pos.x)
            .collect();
        assert!(
            xs.iter().any(|&x| x > 0.1) && xs.iter().any(|&x| x < -0.1),
            "{xs:?}"
        );
        assert!(
            pool.particles
                .iter()
                .filter(|p| p.alive())
                .all(|p| p.pos.y > 0.0 && p.pos.y < 0.6)
        );
    }

    fn land(impact_speed: f32) -> CharacterEvent {
        CharacterEvent::Land {
            position: Vec3::new(3.0, 1.0, 0.0),
            surface: Surface::Ground,
            impact_speed,
        }
    }

    fn plant(surface: Surface, speed: f32) -> CharacterEvent {
        CharacterEvent::FootPlant {
            foot: crate::character::events::Side::Left,
            position: Vec3::new(1.0, 0.0, 0.0),
            surface,
            speed,
        }
    }

    fn dust_of(events: &[CharacterEvent]) -> usize {
        let mut frame = FrameEvents::default();
        for &e in events {
            assert!(frame.push(e));
        }
        let mut pool = DustPool::new();
        pool.emit_events(&frame);
        pool.live_count()
    }

    #[test]
    fn a_hard_landing_raises_more_dust_than_a_soft_one_and_a_hop_none() {
        assert_eq!(dust_of(&[land(1.5)]), 0);
        assert!(dust_of(&[land(4.0)]) > 0);
        assert!(dust_of(&[land(10.0)]) > dust_of(&[land(4.0)]));
    }

    #[test]
    fn running_plants_on_floors_raise_dust_and_walking_or_rungs_none() {
        assert!(dust_of(&[plant(Surface::Ground, 5.0)]) > 0);
        assert!(dust_of(&[plant(Surface::Plank, 5.0)]) > 0);
        assert_eq!(dust_of(&[plant(Surface::Ground, 1.4)]), 0);
        assert_eq!(dust_of(&[plant(Surface::Rung, 5.0)]), 0);
    }
}

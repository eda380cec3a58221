//! Playback: the sound bank through the default audio device, or silence.
//!
//! [`Audio::open`] opens the device with rodio and hands it one endless
//! source, our [`Voices`] mixer: a fixed set of voices, each playing one
//! bank buffer at a volume, fed through a bounded queue. Playing a cue is a
//! `try_send` of a small value, so the game's frame never allocates or waits
//! for sound. Without a device (CI, a headless box, Xvfb) the game plays on
//! silent, after one line on stderr saying why.

use std::num::NonZero;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

use crate::audio::synth::{SAMPLE_RATE, SoundBank};
use crate::audio::{Cue, SoundId, cue_for};
use crate::character::events::FrameEvents;

/// Sounds that play at once at most. Sixteen covers a run's footsteps with
/// their tails, a landing, grips and a chime; a seventeenth takes the voice
/// of the sound nearest its end.
pub const MAX_VOICES: usize = 16;

/// Cues waiting for the audio thread at most: a frame raises at most
/// [`crate::character::events::MAX_EVENTS`], and the audio thread takes them
/// every [`POLL_SAMPLES`] samples (under 2 ms), so this is many frames of
/// slack; a cue that finds the queue full is not played.
pub const CUE_QUEUE: usize = 64;

/// Samples between two looks at the cue queue: 1.5 ms at 44.1 kHz, far
/// below one 64 Hz step, and the lock-free check is not paid per sample.
pub const POLL_SAMPLES: u32 = 64;

/// The master volume `ironstep play` starts with: loud enough to hear the
/// footsteps, with headroom for the settings menu to raise it.
pub const DEFAULT_VOLUME: f32 = 0.8;

/// Parses a master volume argument: a number from 0 to 1.
pub fn parse_volume(s: &str) -> Result<f32, String> {
    s.trim()
        .parse::<f32>()
        .ok()
        .filter(|v| (0.0..=1.0).contains(v))
        .ok_or_else(|| format!("'{s}' is not a volume: give a number from 0 (silent) to 1"))
}

/// The game's audio: a device and its mixer, or nothing (silent).
pub struct Audio {
    master: Arc<AtomicU32>,
    out: Option<Device>,
}

/// An open device, kept alive while the game plays.
struct Device {
    _sink: rodio::MixerDeviceSink,
    cues: SyncSender<Cue>,
}

impl Audio {
    /// Opens the default output device and synthesizes the bank; when there
    /// is no device, or `master_volume` is 0, the game is silent (with one
    /// line on stderr saying why when the device failed).
    pub fn open(master_volume: f32) -> Self {
        let master = Arc::new(AtomicU32::new(clamp_volume(master_volume).to_bits()));
        if master_volume <= 0.0 {
            return Self { master, out: None };
        }
        match open_device() {
            Ok(mut sink) => {
                sink.log_on_drop(false);
                let (cues, rx) = sync_channel(CUE_QUEUE);
                let voices = Voices::new(Arc::new(SoundBank::synthesize()), rx, master.clone());
                sink.mixer().add(voices);
                Self {
                    master,
                    out: Some(Device { _sink: sink, cues }),
                }
            }
            Err(why) => {
                // The device error and its cause (cpal's), in one line.
                let cause = std::error::Error::source(&why)
                    .map(|c| format!(": {c}"))
                    .unwrap_or_default();
                eprintln!("ironstep: no audio device ({why}{cause}); playing without sound");
                Self { master, out: None }
            }
        }
    }

    /// Audio that plays nothing (headless runs, tests).
    pub fn silent() -> Self {
        Self {
            master: Arc::new(AtomicU32::new(0.0f32.to_bits())),
            out: None,
        }
    }

    /// Whether sounds reach a device.
    pub fn is_playing_to_device(&self) -> bool {
        self.out.is_some()
    }

    /// The master volume, 0 to 1.
    pub fn master_volume(&self) -> f32 {
        f32::from_bits(self.master.load(Ordering::Relaxed))
    }

    /// Sets the master volume (clamped to 0..1; applies to sounds already
    /// playing too).
    pub fn set_master_volume(&self, volume: f32) {
        self.master
            .store(clamp_volume(volume).to_bits(), Ordering::Relaxed);
    }

    /// Plays one cue (nothing when silent, or when the queue is full).
    pub fn play(&self, cue: Cue) {
        if let Some(d) = &self.out {
            // A full queue drops the cue: a frame never waits for sound.
            let _ = d.cues.try_send(cue);
        }
    }

    /// Plays the sound of every event of a frame.
    pub fn play_events(&self, events: &FrameEvents) {
        for e in events.iter() {
            self.play(cue_for(e));
        }
    }
}

fn clamp_volume(v: f32) -> f32 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Opens the default output device. On Linux, ALSA's own complaints while
/// looking for one (a box without a sound card prints eight lines) are
/// caught in a buffer instead of going to stderr: the caller says once, in
/// one line, that the game is silent. Errors of the open stream (an
/// underrun on a busy machine, a device unplugged) are reported once, not
/// on every occurrence as rodio's default does.
fn open_device() -> Result<rodio::MixerDeviceSink, rodio::DeviceSinkError> {
    #[cfg(target_os = "linux")]
    let _quiet = alsa::Output::local_error_handler();
    let mut reported = false;
    rodio::DeviceSinkBuilder::from_default_device()?
        .with_error_callback(move |err| {
            if !reported {
                reported = true;
                eprintln!("ironstep: audio stream error: {err} (later ones are not shown)");
            }
        })
        .open_sink_or_fallback()
}

/// One sound playing: which buffer, how far in, how loud.
#[derive(Clone, Copy, Debug)]
struct Voice {
    sound: usize,
    pos: usize,
    gain: f32,
}

/// The game's mixer, an endless mono source at [`SAMPLE_RATE`]: up to
/// [`MAX_VOICES`] bank buffers summed, times the master volume, clamped to
/// full scale. Silence between sounds (it never ends, so the device keeps
/// it).
pub struct Voices {
    bank: Arc<SoundBank>,
    cues: Receiver<Cue>,
    master: Arc<AtomicU32>,
    voices: [Option<Voice>; MAX_VOICES],
    until_poll: u32,
}

impl Voices {
    /// A mixer over `bank`, taking cues from `cues`, scaled by `master` (an
    /// `f32`'s bits).
    pub fn new(bank: Arc<SoundBank>, cues: Receiver<Cue>, master: Arc<AtomicU32>) -> Self {
        Self {
            bank,
            cues,
            master,
            voices: [None; MAX_VOICES],
            until_poll: 0,
        }
    }

    /// Starts the cues waiting in the queue.
    fn take_cues(&mut self) {
        // Empty or disconnected (the game quit): nothing more to start.
        while let Ok(cue) = self.cues.try_recv() {
            self.start(cue);
        }
    }

    /// Starts one cue in a free voice, or in the one nearest its end.
    fn start(&mut self, cue: Cue) {
        let voice = Voice {
            sound: cue.sound.index(),
            pos: 0,
            gain: clamp_volume(cue.volume),
        };
        let bank = &self.bank;
        let left = |v: &Option<Voice>| {
            v.map_or(0, |v| {
                bank.get(SoundId::ALL[v.sound])
                    .samples
                    .len()
                    .saturating_sub(v.pos)
            })
        };
        if let Some(slot) = self.voices.iter_mut().min_by_key(|v| left(v)) {
            *slot = Some(voice);
        }
    }
}

impl Iterator for Voices {
    type Item = rodio::Sample;

    fn next(&mut self) -> Option<rodio::Sample> {
        if self.until_poll == 0 {
            self.take_cues();
            self.until_poll = POLL_SAMPLES;
        }
        self.until_poll -= 1;
        let mut sum = 0.0f32;
        for slot in &mut self.voices {
            if let Some(v) = slot {
                let samples = &self.bank.get(SoundId::ALL[v.sound]).samples;
                match samples.get(v.pos) {
                    Some(s) => {
                        sum += s * v.gain;
                        v.pos += 1;
                    }
                    None => *slot = None,
                }
            }
        }
        let master = f32::from_bits(self.master.load(Ordering::Relaxed));
        Some((sum * master).clamp(-1.0, 1.0))
    }
}

impl rodio::Source for Voices {
    fn current_span_len(&self) -> Option<usize> {
        None
    }

    fn channels(&self) -> rodio::ChannelCount {
        NonZero::<u16>::MIN
    }

    fn sample_rate(&self) -> rodio::SampleRate {
        NonZero::new(SAMPLE_RATE).unwrap_or(NonZero::<u32>::MIN)
    }

    fn total_duration(&self) -> Option<Duration> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::character::events::Surface;

    fn mixer(master: f32) -> (SyncSender<Cue>, Voices) {
        let (tx, rx) = sync_channel(CUE_QUEUE);
        let voices = Voices::new(
            Arc::new(SoundBank::synthesize()),
            rx,
            Arc::new(AtomicU32::new(master.to_bits())),
        );
        (tx, voices)
    }

    fn energy(v: &mut Voices, n: usize) -> f32 {
        v.by_ref().take(n).map(|s| s * s).sum()
    }

    #[test]
    fn the_mixer_is_silent_until_a_cue_and_scales_with_volume_and_master() {
        let (tx, mut v) = mixer(1.0);
        assert_eq!(energy(&mut v, 4096), 0.0);
        let cue = |volume| Cue {
            sound: SoundId::Footstep(Surface::Ground),
            volume,
        };
        tx.send(cue(1.0)).unwrap();
        let loud = energy(&mut v, 8192);
        assert!(loud > 1.0, "{loud}");
        tx.send(cue(0.5)).unwrap();
        let half = energy(&mut v, 8192);
        // Energy goes with the square of the volume (the cue starts at the
        // next poll, within 64 samples, either way).
        assert!((half / loud - 0.25).abs() < 0.02, "{half} vs {loud}");
        let (tx, mut quiet) = mixer(0.0);
        tx.send(cue(1.0)).unwrap();
        assert_eq!(energy(&mut quiet, 8192), 0.0, "master volume 0 mutes");
    }

    #[test]
    fn a_full_mixer_gives_the_voice_nearest_its_end_to_a_new_sound() {
        let (tx, mut v) = mixer(1.0);
        for _ in 0..MAX_VOICES {
            tx.send(Cue {
                sound: SoundId::LevelComplete,
                volume: 0.01,
            })
            .unwrap();
        }
        v.next();
        tx.send(Cue {
            sound: SoundId::Land,
            volume: 1.0,
        })
        .unwrap();
        let _ = energy(&mut v, POLL_SAMPLES as usize);
        let playing: Vec<usize> = v.voices.iter().flatten().map(|x| x.sound).collect();
        assert_eq!(playing.len(), MAX_VOICES);
        assert!(playing.contains(&SoundId::Land.index()));
    }

    #[test]
    fn volumes_outside_zero_to_one_are_refused_with_the_reason() {
        assert_eq!(parse_volume("0.5"), Ok(0.5));
        assert_eq!(parse_volume("0"), Ok(0.0));
        for bad in ["1.5", "-0.1", "loud", "NaN", ""] {
            let e = parse_volume(bad).unwrap_err();
            assert!(e.contains("from 0 (silent) to 1"), "{bad}: {e}");
        }
    }

    #[test]
    fn silent_audio_plays_nothing_and_keeps_its_volume_in_range() {
        let a = Audio::silent();
        assert!(!a.is_playing_to_device());
        a.set_master_volume(3.0);
        assert_eq!(a.master_volume(), 1.0);
        a.set_master_volume(f32::NAN);
        assert_eq!(a.master_volume(), 0.0);
        a.play(Cue {
            sound: SoundId::Jump,
            volume: 1.0,
        });
    }
}

//! The simulation side of one rendered frame of the window, without the
//! window: the fixed-step clock, the flow's steps, the pose pipeline and
//! the pose the renderer draws. [`crate::window::app`] runs it every frame;
//! tests drive it with made-up frame times (a 60 Hz or 144 Hz display, a
//! paused designer) and no window or GPU.
//!
//! The rules:
//!
//! - The pose pipeline runs once after each fixed step in which the
//!   simulation moved (the flow stepped it, or respawned the player), and
//!   at no other time while playing: never per rendered frame. On the pause
//!   menu, the other menus, a respawn's fade and in designer mode's pause,
//!   its smoothing, foot locks and joint speed limit hold still, whatever
//!   the display's rate.
//! - Three events pose the character outside a step, each afresh (the
//!   pipeline's memory reset, as a respawn does, rather than advanced): a
//!   level load ([`FrameSim::new`], [`FrameSim::restart`]), and a level edit
//!   or reload while the simulation is not stepping ([`FrameSim::edited`]):
//!   the knight's feet and hands are shown settled on the edited level at
//!   once, with no smoothing run per frame to get them there. An edit while
//!   the simulation runs is left to its next step.
//! - Every frame draws the player's pose between the last two steps at the
//!   clock's fraction `alpha` ([`DrawnPose`]); a step that did not move the
//!   simulation, and each of the events above, draws the latest pose as it
//!   is until the next step.

use crate::character::drawn::DrawnPose;
use crate::flow::{Command, FlowEvent, Game};
use crate::profile::{FrameProfiler, Stage};
use crate::sim::clock::{FixedClock, FrameSteps};
use crate::sim::player::{DT, Input};
use crate::sim::{Body, Sim};
use crate::window::overlay::PoseTimer;

/// The window's clock, its count of pose pipeline runs and the drawn pose.
pub struct FrameSim {
    clock: FixedClock,
    drawn: DrawnPose,
    /// Pose pipeline runs since this was made.
    pose_updates: u64,
}

impl FrameSim {
    /// A fresh clock for the level in `sim`, whose player is posed once
    /// (afresh) to be drawn before the first step.
    pub fn new(sim: &mut Sim) -> Self {
        let drawn = {
            let body = sim
                .world
                .get::<&Body>(sim.player)
                .expect("the player has a body");
            DrawnPose::new(&body.character)
        };
        let mut s = Self {
            clock: FixedClock::game(),
            drawn,
            pose_updates: 0,
        };
        s.restart(sim);
        s
    }

    /// A level was loaded into `sim` (or the level restarted): the clock
    /// starts afresh and the player is posed once, afresh, and drawn as
    /// posed (a teleport).
    pub fn restart(&mut self, sim: &mut Sim) {
        self.clock = FixedClock::game();
        self.repose(sim);
    }

    /// The level was edited or reloaded (designer mode, hot reload) this
    /// frame. While the simulation steps (`stepping`), its next step poses
    /// the player on the new level as usual; otherwise the player is posed
    /// once, afresh, so the edit shows at once without advancing anything.
    pub fn edited(&mut self, sim: &mut Sim, stepping: bool) {
        if !stepping {
            self.repose(sim);
        }
    }

    /// Poses the player afresh: the pipeline forgets its smoothing (as on a
    /// respawn), runs once, and its pose is drawn as it is.
    fn repose(&mut self, sim: &mut Sim) {
        if let Ok(body) = sim.world.query_one_mut::<&mut Body>(sim.player) {
            body.pipeline.reset();
        }
        sim.pose(DT);
        self.pose_updates += 1;
        self.record(sim);
        self.drawn.snap();
        self.draw(sim, 1.0);
    }

    fn record(&mut self, sim: &Sim) {
        if let Ok(body) = sim.world.get::<&Body>(sim.player) {
            self.drawn.record(&body.pipeline);
        }
    }

    fn draw(&mut self, sim: &Sim, alpha: f32) {
        if let Ok(body) = sim.world.get::<&Body>(sim.player) {
            self.drawn.update(&body.character, alpha);
        }
    }

    /// One rendered frame `elapsed` seconds after the last: the clock's
    /// fixed steps (none while `paused`, designer mode's pause), each the
    /// flow's step with `input`'s input, the pose pipeline when the
    /// simulation moved, then `stepped` (sounds, dust); then the drawn pose
    /// at the frame's `alpha`. Returns the clock's answer (`alpha` is 1
    /// while paused) and the flow's commands.
    #[allow(clippy::too_many_arguments)]
    pub fn frame(
        &mut self,
        game: &mut Game,
        sim: &mut Sim,
        elapsed: f32,
        paused: bool,
        prof: &mut FrameProfiler,
        mut input: impl FnMut(&Game) -> Input,
        mut stepped: impl FnMut(&Sim, &Game, &[FlowEvent]),
    ) -> (FrameSteps, Vec<Command>) {
        let mut commands = Vec::new();
        let mut steps = self.clock.advance(elapsed);
        if paused {
            steps.steps = 0;
            steps.alpha = 1.0;
            self.drawn.snap();
        }
        for _ in 0..steps.steps {
            let input = prof.time(Stage::Input, || input(game));
            let first_event = game.events.len();
            commands.extend(self.step(game, sim, &input, prof));
            stepped(sim, game, &game.events[first_event..]);
        }
        self.draw(sim, steps.alpha);
        (steps, commands)
    }

    /// One fixed step: the flow's step with `input`, then the pose pipeline
    /// when the simulation moved (or the player respawned). What
    /// [`FrameSim::frame`] does for each of its steps, and what a headless
    /// replay of a window's recording does for each of its frames
    /// ([`crate::tools::headless`]), so both pose alike.
    pub fn step(
        &mut self,
        game: &mut Game,
        sim: &mut Sim,
        input: &Input,
        prof: &mut FrameProfiler,
    ) -> Vec<Command> {
        let first_event = game.events.len();
        let before = sim.steps;
        let commands = prof.time(Stage::Sim, || game.step(sim, input));
        let respawned = game.events[first_event..]
            .iter()
            .any(|e| matches!(e, FlowEvent::Respawned { .. }));
        if sim.steps != before || respawned {
            sim.pose_observed(DT, &mut PoseTimer::new(prof));
            self.pose_updates += 1;
            self.record(sim);
            if respawned {
                self.drawn.snap();
            }
        } else {
            // Nothing moved: the latest pose is held.
            self.drawn.snap();
        }
        commands
    }

    /// The player's pose as this frame draws it.
    pub fn drawn(&self) -> &DrawnPose {
        &self.drawn
    }

    /// How many times the pose pipeline has run since this was made.
    pub fn pose_updates(&self) -> u64 {
        self.pose_updates
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use glam::{Mat4, Vec3};

    use crate::character::Character;
    use crate::flow::{MenuKey, Progress, Screen, Sequence, Settings};
    use crate::sim::script::Script;
    use crate::sim::world::Level;

    /// Walk right, turn round and walk left, run right, stop.
    const WALK_TURN_RUN: &str = "\
0.0 press right
1.5 release right
1.5 press left
3.0 release left
3.0 press right
3.0 press run
4.5 release run
4.5 release right
";

    struct Run {
        game: Game,
        sim: Sim,
        fs: FrameSim,
        prof: FrameProfiler,
        character: Arc<Character>,
    }

    fn start() -> Run {
        let character = Arc::new(Character::knight().expect("the knight loads"));
        let sequence = Sequence::shipped().expect("the shipped sequence loads");
        let game = Game::playing(
            sequence,
            Progress::default(),
            Settings::default(),
            "builtin",
        );
        let mut sim = Sim::new(Level::builtin(), character.clone());
        let fs = FrameSim::new(&mut sim);
        Run {
            game,
            sim,
            fs,
            prof: FrameProfiler::new(),
            character,
        }
    }

    impl Run {
        /// One rendered frame `dt` seconds long, the input from `script`.
        fn frame(&mut self, dt: f32, paused: bool, script: &mut crate::sim::script::ScriptPlayer) {
            self.game.begin_frame();
            self.fs.frame(
                &mut self.game,
                &mut self.sim,
                dt,
                paused,
                &mut self.prof,
                |game| {
                    if game.screen == Screen::Playing && game.run.is_playing() {
                        script.next_input()
                    } else {
                        Input::default()
                    }
                },
                |_, _, _| {},
            );
        }

        /// Every joint's drawn position in the world.
        fn drawn_joints(&self) -> Vec<Vec3> {
            joints(self.fs.drawn())
        }

        /// The player's pose pipeline, printed (all of its state).
        fn pipeline_state(&self) -> String {
            let body = self.sim.world.get::<&Body>(self.sim.player).unwrap();
            format!("{:?}", body.pipeline)
        }
    }

    /// Every joint's drawn position in the model's own space: the limbs,
    /// without the body's movement.
    fn limbs(d: &DrawnPose) -> Vec<Vec3> {
        d.models().iter().map(|m| m.w_axis.truncate()).collect()
    }

    fn joints(d: &DrawnPose) -> Vec<Vec3> {
        let w: Mat4 = d.world();
        d.models()
            .iter()
            .map(|m| w.transform_point3(m.w_axis.truncate()))
            .collect()
    }

    fn gap(a: &[Vec3], b: &[Vec3]) -> f32 {
        a.iter()
            .zip(b)
            .map(|(a, b)| (*a - *b).length())
            .fold(0.0, f32::max)
    }

    /// The drawn pose every 1/12 s (where 60 Hz and 144 Hz frames meet) of
    /// `seconds` of the script played on a display of `hz`.
    fn drawn_every_twelfth(hz: u32, seconds: u32) -> Vec<Vec<Vec3>> {
        let script = Script::parse(WALK_TURN_RUN, "walk_turn_run").unwrap();
        let mut player = script.player();
        let mut run = start();
        let per = hz / 12;
        let mut out = Vec::new();
        for frame in 1..=hz * seconds {
            run.frame(1.0 / hz as f32, false, &mut player);
            if frame % per == 0 {
                out.push(run.drawn_joints());
            }
        }
        out
    }

    /// The same moments of the same run, drawn on a 60 Hz and on a 144 Hz
    /// display, show the same pose: the pose pipeline runs per simulation
    /// step, and the frame blends the last two steps at the clock's
    /// fraction, whatever the display's rate.
    #[test]
    fn two_display_rates_draw_the_same_pose_at_the_same_moment() {
        let at60 = drawn_every_twelfth(60, 5);
        let at144 = drawn_every_twelfth(144, 5);
        assert_eq!(at60.len(), 60);
        assert_eq!(at60.len(), at144.len());
        let mut worst = (0.0f32, 0);
        for (k, (a, b)) in at60.iter().zip(&at144).enumerate() {
            let g = gap(a, b);
            if g > worst.0 {
                worst = (g, k);
            }
        }
        assert!(
            worst.0 < 1e-4,
            "the drawn poses differ by {:.6} m at {:.3} s",
            worst.0,
            (worst.1 + 1) as f32 / 12.0
        );
        // And the knight did move (the comparison means something).
        assert!(gap(&at60[0], &at60[at60.len() - 1]) > 1.0);
    }

    /// On a 144 Hz display the limbs move every displayed frame while the
    /// knight walks, turns and runs, not only on frames where a step ran
    /// (the joints in the model's own space: the limbs, not the body's
    /// glide); a frame between two steps differs from both.
    #[test]
    fn limbs_move_every_displayed_frame_at_144_hz() {
        let script = Script::parse(WALK_TURN_RUN, "walk_turn_run").unwrap();
        let mut player = script.player();
        let mut run = start();
        let mut last = limbs(run.fs.drawn());
        let mut between = 0;
        // The script's first 4.5 s: always walking, turning or running.
        for frame in 1..=144 * 9 / 2 {
            run.frame(1.0 / 144.0, false, &mut player);
            let now = limbs(run.fs.drawn());
            let moved = gap(&now, &last);
            if !run.fs.drawn().blends() {
                // Before the second step: nothing to blend yet.
                assert!(run.sim.steps < 2, "frame {frame}: not blending");
                last = now;
                continue;
            }
            assert!(
                moved > 1e-4,
                "frame {frame}: the drawn pose moved {moved} m"
            );
            let mut ends = run.fs.drawn().clone();
            ends.update(&run.character, 0.0);
            let from = limbs(&ends);
            ends.update(&run.character, 1.0);
            let to = limbs(&ends);
            let alpha = run.fs.clock.advance(0.0).alpha;
            let span = gap(&from, &to);
            if (0.25..=0.75).contains(&alpha) && span > 1e-3 {
                between += 1;
                assert!(
                    gap(&now, &from) > 0.2 * span && gap(&now, &to) > 0.2 * span,
                    "frame {frame} at alpha {alpha}: {} / {} of {span}",
                    gap(&now, &from),
                    gap(&now, &to)
                );
            }
            last = now;
        }
        assert!(between > 100, "{between} frames half way between steps");
    }

    /// While the simulation is paused (designer mode's pause, or the pause
    /// menu), many rendered frames run the pose pipeline not once: its whole
    /// state stays as it was, and so does the drawn pose. Playing, it runs
    /// exactly once per simulation step; a level edit while paused poses
    /// once per edit.
    #[test]
    fn nothing_in_the_pose_pipeline_moves_while_paused() {
        let script = Script::parse(WALK_TURN_RUN, "walk_turn_run").unwrap();
        let mut player = script.player();
        let mut run = start();
        assert_eq!(run.fs.pose_updates(), 1, "the level load poses once");
        // Walk for a second: one pose per step, whatever the frame rate.
        let (updates, steps) = (run.fs.pose_updates(), run.sim.steps);
        for _ in 0..144 {
            run.frame(1.0 / 144.0, false, &mut player);
        }
        let stepped = run.sim.steps - steps;
        assert!((63..=64).contains(&stepped), "{stepped} steps");
        assert_eq!(run.fs.pose_updates() - updates, stepped);

        // Designer mode's pause, mid-walk: 2,000 frames at 144 Hz.
        let state = run.pipeline_state();
        let drawn = run.drawn_joints();
        let updates = run.fs.pose_updates();
        for _ in 0..2000 {
            run.frame(1.0 / 144.0, true, &mut player);
        }
        assert_eq!(run.fs.pose_updates(), updates, "pose updates while paused");
        assert!(
            run.pipeline_state() == state,
            "the pose pipeline's state changed while paused"
        );
        assert!(gap(&run.drawn_joints(), &drawn) < 1e-6);

        // Edits while paused pose once each; an edit while stepping is
        // left to the next step.
        run.fs.edited(&mut run.sim, false);
        run.fs.edited(&mut run.sim, false);
        assert_eq!(run.fs.pose_updates(), updates + 2);
        run.fs.edited(&mut run.sim, true);
        assert_eq!(run.fs.pose_updates(), updates + 2);

        // The pause menu: the clock steps, the simulation does not.
        assert!(run.game.key(MenuKey::Back).is_empty());
        assert_eq!(run.game.screen, Screen::Paused);
        let state = run.pipeline_state();
        let drawn = run.drawn_joints();
        let updates = run.fs.pose_updates();
        let steps = run.sim.steps;
        for _ in 0..2000 {
            run.frame(1.0 / 144.0, false, &mut player);
        }
        assert_eq!(run.sim.steps, steps);
        assert_eq!(
            run.fs.pose_updates(),
            updates,
            "pose updates on the pause menu"
        );
        assert!(
            run.pipeline_state() == state,
            "the pose pipeline's state changed on the pause menu"
        );
        assert!(
            gap(&run.drawn_joints(), &drawn) < 1e-6,
            "the drawn pose moved on the pause menu"
        );

        // Back to play: one pose per step again, and no jump back in time
        // on the first frame (it starts from the held pose).
        run.game.key(MenuKey::Back);
        run.frame(1.0 / 144.0, false, &mut player);
        assert!(gap(&run.drawn_joints(), &drawn) < 0.05);
    }
}

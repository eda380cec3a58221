//! Ledges through the real simulation and pose pipeline, for the knight (his
//! authored hang and climb_up clips) and for CesiumMan (his hang and climb
//! procedural, from his generated climb clip): a jump short of a 3 m wall's
//! top catches it rising, the body hangs and climbs over; walking off the
//! far side and turning back at once catches that ledge falling, down lets go; a
//! jump from beside it catches it again and jump pushes off away from the
//! wall. On every frame the gripping hands stay on the corner (5 mm), the
//! root never snaps (1 cm), no joint turns faster than 20 rad/s and nothing
//! is NaN. The knight scaled taller and shorter hangs by arms of his own
//! length.

use std::path::Path;
use std::sync::Arc;

use game::audio::{SoundId, cue_for};
use game::character::Character;
use game::character::events::{CharacterEvent, EventTracker};
use game::character::model::load_character;
use game::sim::player::{DT, Input, Locomotion, Player};
use game::sim::world::{GroundSegment, Level};
use game::sim::{Body, Sim};
use game::tools::metrics::Recorder;
use glam::Vec2;

/// Ground at 0 m, a block 3 m tall over x = 5..10, ground again after it.
fn ledge_level() -> Level {
    wall_level(3.0)
}

/// A floor, a wall of `height` metres from x = 5 m to 10 m, a floor beyond.
fn wall_level(height: f32) -> Level {
    Level::from_profile(
        "ledges",
        vec![
            GroundSegment::ground(-5.0, 5.0, 0.0, 0.0),
            GroundSegment::ground(5.0, 10.0, height, height),
            GroundSegment::ground(10.0, 16.0, 0.0, 0.0),
        ],
        vec![],
        Vec2::new(0.0, 0.0),
        Vec2::new(15.0, 0.0),
        -10.0,
    )
}

struct Run {
    sim: Sim,
    rec: Recorder,
    steps: usize,
    events: EventTracker,
    /// The sounds of the ledge grabs heard (one per catch).
    grabs: Vec<SoundId>,
}

impl Run {
    fn step(&mut self, input: Input) -> Player {
        self.sim.step(&input);
        self.sim.pose(DT);
        for e in self.events.observe_sim(&self.sim).iter() {
            if matches!(e, CharacterEvent::LedgeGrab { .. }) {
                self.grabs.push(cue_for(e).sound);
            }
        }
        let p = self.sim.player_state();
        let body = self.sim.world.get::<&Body>(self.sim.player).unwrap();
        self.rec
            .record(&self.sim.level, &p, &body.character, &body.pipeline, DT);
        self.steps += 1;
        p
    }

    /// Steps with `input` until `done` holds (at most `max` seconds).
    fn until(&mut self, what: &str, input: Input, max: f32, done: impl Fn(&Player) -> bool) {
        for _ in 0..(max / DT) as usize {
            if done(&self.step(input)) {
                return;
            }
        }
        panic!("{what}: not within {max} s: {:?}", self.sim.player_state());
    }

    fn hold(&mut self, input: Input, seconds: f32) {
        for _ in 0..(seconds / DT) as usize {
            self.step(input);
        }
    }
}

fn ledge_run(character: &Arc<Character>) -> Recorder {
    let mut r = Run {
        sim: Sim::new(ledge_level(), character.clone()),
        rec: Recorder::default(),
        steps: 0,
        events: EventTracker::new(),
        grabs: Vec::new(),
    };
    let right = Input {
        move_x: 1.0,
        ..Input::default()
    };
    let left = Input {
        move_x: -1.0,
        ..Input::default()
    };
    let none = Input::default();
    let jump = |i: Input| Input {
        jump_pressed: true,
        jump_held: true,
        ..i
    };
    let hanging = |p: &Player| p.state == Locomotion::Ledge && p.ledge.unwrap().motion.is_none();
    // Rising: walk to the wall, jump holding toward it.
    r.until("the wall", right, 6.0, |p| p.pos.x > 4.74);
    r.hold(right, 0.5);
    r.step(jump(right));
    let held = |i: Input| Input {
        jump_held: true,
        ..i
    };
    r.until("a catch rising", held(right), 1.0, |p| {
        p.state == Locomotion::Ledge
    });
    r.until("hanging", none, 1.0, hanging);
    r.hold(none, 1.0);
    // Up: over the top.
    let up = Input {
        move_y: 1.0,
        ..Input::default()
    };
    r.until("on the top", up, 3.0, |p| p.state == Locomotion::Ground);
    assert!((r.sim.player_state().pos.y - 3.0).abs() < 1e-3);
    r.hold(none, 0.5);
    // Falling: walk off the far side, turn back toward the face at once
    // (falling past the corner with the legs over the block's side, the
    // body is moved out continuously, see `Level::corner_clearance`: it
    // was snapped out of the side by 13.6 cm in one step).
    r.until("off the edge", right, 6.0, |p| p.state == Locomotion::Air);
    r.until("a catch falling", left, 1.0, |p| {
        p.state == Locomotion::Ledge
    });
    r.until("hanging", none, 1.0, hanging);
    r.hold(none, 1.0);
    // Down lets go.
    let down = Input {
        move_y: -1.0,
        ..Input::default()
    };
    r.step(down);
    r.until("on the ground", none, 2.0, |p| {
        p.state == Locomotion::Ground
    });
    r.hold(none, 0.5);
    // From beside the wall: jump, catch, jump off away from it.
    r.until("the wall", left, 3.0, |p| p.pos.x < 10.26);
    r.hold(left, 0.3);
    r.step(jump(left));
    r.until("a catch rising", held(left), 1.0, |p| {
        p.state == Locomotion::Ledge
    });
    r.until("hanging", none, 1.0, hanging);
    r.hold(none, 0.5);
    r.step(jump(right));
    r.until("landed", right, 3.0, |p| p.state == Locomotion::Ground);
    assert!(r.sim.player_state().pos.x > 11.0);
    r.hold(none, 1.0);
    // A sound on each catch.
    assert_eq!(r.grabs, vec![SoundId::Grip; 3]);
    r.rec
}

/// `limited_share`: the most frames the joint speed limit may act on (issue
/// 32: 0.5 % for the knight, 2 % for another rig).
fn check(name: &str, character: &Arc<Character>, limited_share: f64) {
    let rec = ledge_run(character);
    let s = &rec.summary;
    let share = crate::common::recorder_limited_share(&rec);
    println!(
        "{name}: ledge frames {}, grip frames {}, ledge hands {:.2} mm, root snap {:.2} mm, joints {:.1} rad/s (limited on {:.2} % of frames), NaN {}",
        s.ledge_frames,
        s.ledge_grip_frames,
        s.ledge_hand_max_error_m * 1e3,
        s.max_root_snap_m * 1e3,
        s.max_joint_angular_speed_rad_s,
        share * 100.0,
        s.nan_count
    );
    assert!(s.ledge_frames > 200 && s.ledge_grip_frames > 200, "{name}");
    assert_eq!(s.nan_count, 0, "{name}");
    assert!(
        s.ledge_hand_max_error_m <= 0.005,
        "{name}: ledge hands {} m",
        s.ledge_hand_max_error_m
    );
    assert!(
        s.max_root_snap_m <= 0.01,
        "{name}: root snap {} m",
        s.max_root_snap_m
    );
    assert!(
        s.max_joint_angular_speed_rad_s <= 20.0,
        "{name}: joints {} rad/s",
        s.max_joint_angular_speed_rad_s
    );
    assert!(
        share <= limited_share,
        "{name}: the speed limit acts on {:.2} % of frames",
        share * 100.0
    );
}

#[test]
fn the_knight_catches_hangs_climbs_drops_and_jumps_off_ledges_hands_on_the_corner() {
    // Measured (his authored hang and climb_up clips): hands 0.01 mm, root
    // snap 3.0 mm, joints 18.0 rad/s (a shin setting off walking from the
    // stand the climb ends in), the limit acting on no frame.
    check(
        "knight",
        &Arc::new(Character::knight().unwrap()),
        crate::common::KNIGHT_LIMITED_SHARE,
    );
}

#[test]
fn cesium_man_catches_hangs_climbs_drops_and_jumps_off_ledges_hands_on_the_corner() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let man = load_character(
        &root.join("../shared/assets/third_party/gltf/CesiumMan/CesiumMan.glb"),
        &root.join("assets/rigs/cesium_man.rig.ron"),
    )
    .unwrap();
    // Measured: hands 0.77 mm, root snap 7.5 mm, joints 19.1 rad/s, the
    // limit acting on 1.90 % of frames (17 of its 22 frames are his own
    // walk's starts and stops, which this short run is full of).
    check(
        "CesiumMan",
        &Arc::new(man),
        crate::common::RIG_LIMITED_SHARE,
    );
}

/// The knight's model with its rig scaled by `scale` (a taller or shorter
/// character with his proportions), loaded as any model is.
fn scaled_knight(scale: f32) -> Arc<Character> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let rig = std::fs::read_to_string(root.join("assets/knight.rig.ron")).unwrap();
    let end = rig.rfind(')').unwrap();
    let text = format!("{}    scale: {scale},\n)\n", &rig[..end]);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("knight-x{scale}.rig.ron"));
    std::fs::write(&path, text).unwrap();
    Arc::new(load_character(&root.join("assets/knight.glb"), &path).unwrap())
}

/// Catches the 3 m wall rising and hangs from it; returns, for each arm, its
/// reach to the wrist as a share of its length, the root's height above
/// the controller's feet, and the run's figures.
fn hang_of(character: &Arc<Character>) -> ([f32; 2], f32, Recorder) {
    hang_from(character, ledge_level())
}

/// [`hang_of`] on `level` (a wall rising at x = 5 m).
fn hang_from(character: &Arc<Character>, level: Level) -> ([f32; 2], f32, Recorder) {
    let mut r = Run {
        sim: Sim::new(level, character.clone()),
        rec: Recorder::default(),
        steps: 0,
        events: EventTracker::new(),
        grabs: Vec::new(),
    };
    let right = Input {
        move_x: 1.0,
        ..Input::default()
    };
    r.until("the wall", right, 6.0, |p| p.pos.x > 4.74);
    r.hold(right, 0.5);
    r.step(Input {
        jump_pressed: true,
        jump_held: true,
        ..right
    });
    let held = Input {
        jump_held: true,
        ..right
    };
    r.until("a catch", held, 1.0, |p| p.state == Locomotion::Ledge);
    r.hold(Input::default(), 1.5);
    let p = r.sim.player_state();
    assert_eq!(p.state, Locomotion::Ledge);
    let body = r.sim.world.get::<&Body>(r.sim.player).unwrap();
    let (c, pipe) = (&body.character, &body.pipeline);
    let at = |j: usize| {
        pipe.world
            .transform_point3(pipe.models[j].w_axis.truncate())
    };
    let reach = [0, 1].map(|k| {
        let a = &c.arms[k];
        let len = at(a.start).distance(at(a.mid)) + at(a.mid).distance(at(a.end));
        at(a.start).distance(at(a.end)) / len
    });
    let lift = pipe.world.w_axis.y - p.pos.y;
    drop(body);
    (reach, lift, r.rec)
}

#[test]
fn a_taller_or_shorter_character_hangs_with_its_arms_at_their_length() {
    // The hang is the character's own (ledge_ik): the knight scaled to
    // 0.8, 1 and 1.25 times his size hangs with his arms reaching the
    // corner at the same share of their length (HANG_REACH, 88 %), the
    // short one raised above the controller's hang, the tall one lowered;
    // the hands on the corner (5 mm). Before the hang came from the build
    // both ways, the tall knight hung at the controller's height with his
    // elbows bent double (his arms at 38 % of their length).
    let mut lifts = Vec::new();
    let mut reaches = Vec::new();
    for scale in [0.8, 1.0, 1.25] {
        let (reach, lift, rec) = hang_of(&scaled_knight(scale));
        println!(
            "x{scale}: arms at {reach:?} of their length, root {lift:+.3} m from the controller's feet"
        );
        // Today 0.90 to 0.91 for all three (the hang clip holds the
        // shoulders a little lower than the rest pose the lift is
        // worked out from).
        for r in reach {
            assert!(
                (r - game::character::ledge_ik::HANG_REACH).abs() < 0.04,
                "x{scale}: an arm reaches {r} of its length"
            );
            reaches.push(r);
        }
        let s = &rec.summary;
        assert!(
            s.ledge_hand_max_error_m <= 0.005,
            "x{scale}: {}",
            s.ledge_hand_max_error_m
        );
        assert!(
            s.max_root_snap_m <= 0.01,
            "x{scale}: root snap {}",
            s.max_root_snap_m
        );
        assert_eq!(s.nan_count, 0);
        lifts.push(lift);
    }
    let spread = reaches.iter().fold(0.0f32, |m, &r| m.max(r))
        - reaches.iter().fold(1.0f32, |m, &r| m.min(r));
    assert!(spread < 0.02, "{reaches:?}");
    // Raised 0.44 m, 0.03 m and lowered 0.48 m today.
    assert!(
        lifts[0] > lifts[1] + 0.2 && lifts[2] < lifts[1] - 0.2,
        "{lifts:?}"
    );
}

#[test]
fn a_tall_character_is_lowered_no_nearer_the_floor_than_its_clearance() {
    // At a wall whose hang leaves little room under the feet, the knight
    // scaled 1.25 (lowered 0.48 m at the 3 m wall) is lowered only as far
    // as keeps his feet (the model's origin) FLOOR_CLEARANCE above the
    // floor under him: at 2.4 m the clearance limits it (0.31 m), at 2.6 m
    // it does not (0.48 m).
    let tall = scaled_knight(1.25);
    for height in [2.4f32, 2.6] {
        let (_, lift, rec) = hang_from(&tall, wall_level(height));
        println!("wall {height} m: root {lift:+.3} m from the controller's feet");
        assert_eq!(rec.summary.nan_count, 0);
        assert!(
            rec.summary.max_root_snap_m <= 0.01,
            "{}",
            rec.summary.max_root_snap_m
        );
        // The controller hangs the feet HANG_DROP under the corner; the
        // lowering takes at most what leaves the clearance.
        let room = height - game::sim::ledge::HANG_DROP;
        let clearance = game::character::ledge_ik::FLOOR_CLEARANCE;
        assert!(
            room + lift >= clearance - 1e-3,
            "wall {height} m: lowered {lift} m, the feet {} m over the floor",
            room + lift
        );
        assert!(lift < 0.0, "wall {height} m: not lowered at all ({lift})");
    }
}

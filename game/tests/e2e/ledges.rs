//! Ledges through the real simulation and pose pipeline, for the knight (his
//! authored hang and climb_up clips), for CesiumMan (his hang and climb
//! procedural, from his generated climb clip) and for every shared humanoid
//! with its rig inferred: a jump short of a 3 m wall's top catches it
//! rising, the body hangs and climbs over; walking off the far side and
//! turning back at once catches that ledge falling, down lets go; a jump
//! from beside it catches it again and jump pushes off away from the wall.
//! On every frame the gripping hands stay on the corner (5 mm), the root
//! never snaps (1 cm), no joint turns faster than 20 rad/s and nothing is
//! NaN; a shared humanoid's hands hold the corner through each grab. The
//! knight scaled taller and shorter hangs by arms of his own length.

use std::path::Path;
use std::sync::Arc;

use game::audio::{SoundId, cue_for};
use game::character::Character;
use game::character::events::{CharacterEvent, EventTracker};
use game::character::model::{load_character, load_character_inferred};
use game::sim::player::{DT, Input, Locomotion, Player};
use game::sim::world::{GroundSegment, Level};
use game::sim::{Body, Sim};
use game::tools::metrics::{FrameRecord, Recorder};
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
    /// A run of `character` on `level`, nothing recorded yet.
    fn new(level: Level, character: &Arc<Character>) -> Self {
        Self {
            sim: Sim::new(level, character.clone()),
            rec: Recorder::default(),
            steps: 0,
            events: EventTracker::new(),
            grabs: Vec::new(),
        }
    }

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

/// Catches a 3 m wall rising and climbs over it after hanging `hang`
/// seconds (0: at once, as the autopilot does), catches its far side
/// falling and drops, catches it again and jumps off: three grabs.
fn ledge_run(character: &Arc<Character>, hang: f32) -> Recorder {
    let mut r = Run::new(ledge_level(), character);
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
    r.hold(none, hang);
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
    let rec = ledge_run(character, 1.0);
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
    // Measured: hands 0.00 mm, root snap 7.8 mm, joints 19.0 rad/s, the
    // limit acting on 1.63 % of frames, none of them on a ledge (his own
    // walk's starts and stops, which this short run is full of).
    check(
        "CesiumMan",
        &Arc::new(man),
        crate::common::RIG_LIMITED_SHARE,
    );
}

/// The shared humanoids with no rig file of their own (their rigs
/// inferred, their hang and climb over the top procedural).
const SHARED_HUMANOIDS: [&str; 4] = [
    "CesiumMan/CesiumMan.glb",
    "RiggedFigure/RiggedFigure.glb",
    "KenneyCharacterMedium/characterMedium.glb",
    "Mannequiny/mannequiny.glb",
];

/// The fewest frames of each grab on which a hand holds the corner fully,
/// climbing over at once (as the autopilot does): the knight's hands hold
/// 48, the shared humanoids' 25 to 29 today; before a foreign model's hang
/// came from its own hang pose they held one (the last of the catch).
const MIN_GRIP_FRAMES: usize = 20;

/// One grab's figures: a run of consecutive ledge frames.
#[derive(Debug)]
struct Grab {
    /// The grab's first frame.
    from: u64,
    /// Its frames, catch to letting go or standing on the top.
    frames: usize,
    /// The frames a hand held the corner fully (its error measured).
    gripped: usize,
    /// The frames the joint speed limit acted on.
    limited: usize,
    /// The fastest joint, rad/s.
    fastest: f32,
}

/// Each grab of a run (each run of consecutive ledge frames).
fn grabs(frames: &[FrameRecord]) -> Vec<Grab> {
    let mut out: Vec<Grab> = Vec::new();
    let mut on = false;
    for f in frames {
        if f.state != "ledge" {
            on = false;
            continue;
        }
        if !on {
            out.push(Grab {
                from: f.frame,
                frames: 0,
                gripped: 0,
                limited: 0,
                fastest: 0.0,
            });
            on = true;
        }
        let g = out.last_mut().unwrap();
        g.frames += 1;
        g.gripped += usize::from(f.ledge_hand_error_m.is_some());
        g.limited += usize::from(f.limited_joints > 0);
        g.fastest = g.fastest.max(f.max_angular_speed);
    }
    out
}

#[test]
fn every_shared_humanoid_holds_a_ledge_through_each_grab_hands_on_the_corner() {
    // Each shared humanoid, its rig inferred, catches the wall three times
    // and climbs over it at once the first time. In each grab its hands
    // hold the corner fully for at least MIN_GRIP_FRAMES frames, within
    // 5 mm on every such frame; on no ledge frame does the joint speed
    // limit act (but on one of Kenney's: his right shoulder turning from
    // the hold back to his gait as the body rises over the top, since his
    // legs' stances were played faster than their swings; the autopilot's
    // climb on `long` met the limit on such a frame before too) or a joint
    // turn faster than 20 rad/s; the root never snaps by more than 1 cm.
    // Measured today: 25–29 frames in the first grab, hands within 0.03
    // mm, joints at most 19 rad/s.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut failures = Vec::new();
    for m in SHARED_HUMANOIDS {
        let path = root.join("../shared/assets/third_party/gltf").join(m);
        let c = Arc::new(load_character_inferred(&path).unwrap());
        let rec = ledge_run(&c, 0.0);
        let s = &rec.summary;
        let grabs = grabs(&rec.frames);
        println!(
            "{m}: hands {:.2} mm, root snap {:.2} mm, grabs {grabs:?}",
            s.ledge_hand_max_error_m * 1e3,
            s.max_root_snap_m * 1e3
        );
        assert_eq!(grabs.len(), 3, "{m}");
        assert_eq!(s.nan_count, 0, "{m}");
        let allowed = usize::from(m.starts_with("Kenney"));
        for g in &grabs {
            if g.gripped < MIN_GRIP_FRAMES || g.limited > allowed || g.fastest > 20.0 {
                failures.push(format!(
                    "{m}: the grab from frame {}: {} frames, held fully on {}, limited on {}, joints {:.1} rad/s",
                    g.from, g.frames, g.gripped, g.limited, g.fastest
                ));
            }
        }
        if s.ledge_hand_max_error_m > 0.005 || s.max_root_snap_m > 0.01 {
            failures.push(format!(
                "{m}: hands {} m, root snap {} m",
                s.ledge_hand_max_error_m, s.max_root_snap_m
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
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
    let mut r = Run::new(level, character);
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

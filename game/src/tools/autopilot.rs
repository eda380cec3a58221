//! The autopilot: plays a level from its spawn to its exit with the real
//! controller, for tests and for designers.
//!
//! ```text
//! ironstep run --autopilot --level tutorial --metrics out.json
//! ironstep run --autopilot --level my_level.tmx --frames 8000 --screenshot-every 64 --out shots/
//! ```
//!
//! It is a planner over the level's reachability graph
//! ([`crate::level::reach::Graph`], built once when the run starts), not a
//! script per level: [`Graph::plan`] finds the quickest sequence of moves
//! from where the knight stands to the exit (by estimated time), and a
//! follower turns the current move into one [`Input`] per fixed step for
//! [`crate::sim::Sim::step`] — walking or running to the move's start and
//! stopping there, then the move's own input program ([`Edge::input`], the
//! one the graph was built by): running jumps press jump as the feet cross
//! the take-off point and hold it for the full height, ladders are climbed
//! by pressing up or down within reach of the centre line, planks are
//! dropped through with down + jump, and moving platforms are waited for
//! (the follower predicts from [`MovingPlatform::position_at`] that the
//! platform will stay at its path's end long enough), boarded, ridden
//! standing near the side it will be left by, and left at the other end.
//!
//! When the knight ends a move anywhere but where the move leads (a jump
//! landing short, a fall), the follower plans again from where it stands.
//! A move that takes [`STUCK_AFTER`] seconds longer than expected, or that
//! loses the knight out of the level, is struck from the graph for the rest
//! of the run. The run fails, with a reason naming the place (x, y, the move
//! it was on) and the cause, when no path is left, after [`MAX_FALLS`] falls
//! out of the level, or after [`MAX_REPLANS`] plans. Everything is a
//! function of the level and the steps taken: no clock, no randomness.
//!
//! Per step the follower does a node lookup (a binary search) and, while
//! waiting for a platform, at most a couple of seconds of
//! [`MovingPlatform::position_at`] predictions.

use glam::Vec2;

use crate::level::reach::{Edge, Graph, GraphError, Move, MoveRun, NodeKind, path_end};
use crate::sim::player::{DT, Input, Locomotion, MoveParams, Player};
use crate::sim::world::{Level, MovingPlatform};

/// How close to the exit, standing, counts as reaching it, metres.
pub const EXIT_RADIUS: f32 = 0.5;
/// Frames an autopilot run takes at most unless `--frames` says otherwise:
/// five minutes of game time at 64 Hz, far more than any level needs.
pub const DEFAULT_FRAMES: u64 = 64 * 300;
/// Seconds a move may take beyond its expected time before it counts as
/// stuck.
pub const STUCK_AFTER: f32 = 10.0;
/// Falls out of the level after which the run gives up.
pub const MAX_FALLS: u32 = 3;
/// Plans after which the run gives up (a knight going round in circles).
pub const MAX_REPLANS: u32 = 60;
/// How close to a move's start the follower stops, metres: the graph's
/// moves land alike from starts [`crate::level::reach::TAKEOFF_TOLERANCE`]
/// either way.
pub const ARRIVE_TOLERANCE: f32 = 0.04;
/// Slowest speed that counts as standing still at a move's start, m/s.
pub const ARRIVE_SPEED: f32 = 0.2;
/// Beyond this distance to its target the follower runs, metres.
pub const RUN_BEYOND: f32 = 1.5;
/// Distance over which the follower slows to a stop at its target, metres.
pub const BRAKE_DISTANCE: f32 = 0.25;

/// Where the follower is within the current move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// A plan is needed (at the start, after landing off-plan, after a fall).
    Plan,
    /// Walking to the move's start.
    Approach,
    /// At the start, waiting for a moving platform.
    Wait,
    /// Doing the move.
    Move,
}

/// How an autopilot run ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Whether the knight stood within [`EXIT_RADIUS`] of the exit.
    pub exit_reached: bool,
    /// Frames taken to get there.
    pub frames_to_exit: Option<u64>,
    /// Why it could not finish, naming the place.
    pub failure: Option<String>,
    /// Plans made (the first included).
    pub plans: u32,
    /// Falls out of the level.
    pub falls: u32,
}

/// The planner and follower.
pub struct Autopilot {
    graph: Graph,
    params: MoveParams,
    exit: Vec2,
    exit_node: Option<usize>,
    plan: Vec<usize>,
    cursor: usize,
    phase: Phase,
    run: MoveRun,
    banned: Vec<bool>,
    /// Steps spent on the current edge (approach, wait and move).
    edge_steps: u32,
    /// Steps the current edge may take before it counts as stuck.
    edge_limit: u32,
    /// Steps spent standing on no known node.
    lost_steps: u32,
    last_pos: Vec2,
    trouble: Option<String>,
    /// How the run went so far.
    pub outcome: Outcome,
}

impl Autopilot {
    /// Builds the graph of `level` and an autopilot for it.
    pub fn new(level: &Level, params: MoveParams) -> Result<Self, GraphError> {
        let graph = Graph::build(level, &params)?;
        let exit_node = graph.node_below(level, level.exit, EXIT_RADIUS);
        let banned = vec![false; graph.edges.len()];
        Ok(Self {
            graph,
            params,
            exit: level.exit,
            exit_node,
            plan: Vec::new(),
            cursor: 0,
            phase: Phase::Plan,
            run: MoveRun::default(),
            banned,
            edge_steps: 0,
            edge_limit: u32::MAX,
            lost_steps: 0,
            last_pos: level.spawn,
            trouble: None,
            outcome: Outcome::default(),
        })
    }

    /// The reachability graph it plans over.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Strikes every move `avoid` picks from the graph (a designer's "do it
    /// without falling", a test's "take the ladder").
    pub fn avoid(&mut self, avoid: impl Fn(&Edge) -> bool) {
        for (b, e) in self.banned.iter_mut().zip(&self.graph.edges) {
            *b |= avoid(e);
        }
    }

    /// Whether `p` stands within [`EXIT_RADIUS`] of the exit.
    pub fn at_exit(&self, p: &Player) -> bool {
        p.state == Locomotion::Ground && p.pos.distance(self.exit) <= EXIT_RADIUS
    }

    /// Whether the run has given up.
    pub fn failed(&self) -> bool {
        self.outcome.failure.is_some()
    }

    fn fail(&mut self, why: String) -> Input {
        if self.outcome.failure.is_none() {
            self.outcome.failure = Some(why);
        }
        Input::default()
    }

    fn current(&self) -> Option<Edge> {
        self.plan.get(self.cursor).map(|&e| self.graph.edges[e])
    }

    /// Strikes the current edge from the graph and asks for a new plan.
    fn strike(&mut self, why: String) {
        if let Some(&e) = self.plan.get(self.cursor) {
            self.banned[e] = true;
        }
        self.trouble = Some(why);
        self.phase = Phase::Plan;
    }

    /// The input for the next step, for the player `p` on `level` after
    /// `steps` fixed steps of the simulation (moving platforms are where
    /// [`MovingPlatform::position_at`] puts them one step later).
    pub fn input(&mut self, level: &Level, p: &Player, steps: u64) -> Input {
        if self.failed() {
            return Input::default();
        }
        let before = self.last_pos;
        self.last_pos = p.pos;
        if (p.pos - before).length() > 2.0 && p.pos == level.spawn {
            self.outcome.falls += 1;
            let on = self
                .current()
                .map_or_else(|| "no move".to_string(), |e| e.to_string());
            let why = format!(
                "fell out of the level near ({:.2}, {:.2}) m on the move: {on}",
                before.x, before.y
            );
            if self.outcome.falls >= MAX_FALLS {
                return self.fail(format!("{why} ({} falls)", self.outcome.falls));
            }
            self.strike(why);
        }
        self.edge_steps += 1;
        if self.phase == Phase::Move
            && let Some(e) = self.current()
        {
            let done = self.run.done(&self.graph, &e, p);
            let node = self.graph.node_of(p);
            if done {
                if node == Some(e.to) {
                    self.cursor += 1;
                    self.start_edge(level, p);
                } else {
                    self.trouble = Some(format!(
                        "the move {e} ended at ({:.2}, {:.2}) m instead",
                        p.pos.x, p.pos.y
                    ));
                    self.phase = Phase::Plan;
                }
            } else if self.edge_steps > self.edge_limit {
                let why = self.stuck_reason(p, &e);
                self.strike(why);
            } else {
                let px = platform_of(&e)
                    .and_then(|i| level.platforms.get(i))
                    .map(|q| q.pos.x);
                return e.input(&mut self.run, p, px);
            }
        }
        match p.state {
            Locomotion::Ground => {}
            // Off-plan on a ladder: climb down to its foot and plan there.
            Locomotion::Ladder(_) => {
                return Input {
                    move_y: -1.0,
                    ..Input::default()
                };
            }
            Locomotion::Air => return Input::default(),
            // Off-plan on a ledge: climb over it, or let go where that
            // cannot be.
            Locomotion::Ledge => {
                let climbing = p.ledge.is_some_and(|h| h.climbing());
                return Input {
                    move_y: if climbing || p.state_time < 1.0 {
                        1.0
                    } else {
                        -1.0
                    },
                    ..Input::default()
                };
            }
        }
        let Some(node) = self.graph.node_of(p) else {
            self.lost_steps += 1;
            if self.lost_steps as f32 * DT > STUCK_AFTER {
                return self.fail(format!(
                    "stuck {STUCK_AFTER:.0} s at ({:.2}, {:.2}) m, on a floor the reachability graph does not know",
                    p.pos.x, p.pos.y
                ));
            }
            return Input::default();
        };
        self.lost_steps = 0;
        let off_plan = match self.current() {
            Some(e) => e.from != node,
            None => Some(node) != self.exit_node,
        };
        if (self.phase == Phase::Plan || off_plan)
            && let Some(i) = self.replan(node, p)
        {
            return i;
        }
        let Some(e) = self.current() else {
            // On the exit's node: walk to the exit.
            if self.edge_steps as f32 * DT
                > STUCK_AFTER + (self.exit.x - p.pos.x).abs() / self.params.walk_speed
            {
                return self.fail(format!(
                    "stuck {STUCK_AFTER:.0} s at ({:.2}, {:.2}) m walking to the exit at ({:.2}, {:.2}) m",
                    p.pos.x, p.pos.y, self.exit.x, self.exit.y
                ));
            }
            return approach(p, self.exit.x);
        };
        let target = self.target_x(level, &e);
        if self.edge_steps > self.edge_limit {
            let why = self.stuck_reason(p, &e);
            self.strike(why);
            return Input::default();
        }
        if self.phase == Phase::Approach {
            if (target - p.pos.x).abs() > ARRIVE_TOLERANCE || p.vel.x.abs() > ARRIVE_SPEED {
                return approach(p, target);
            }
            self.phase = if platform_of(&e).is_some() {
                Phase::Wait
            } else {
                Phase::Move
            };
            self.run = MoveRun::default();
        }
        if self.phase == Phase::Wait {
            let i = platform_of(&e).unwrap_or(0);
            let Some(q) = level.platforms.get(i) else {
                return self.fail(format!("the move {e} names a platform the level lacks"));
            };
            let end = match e.mv {
                Move::Board { end, .. } | Move::Leave { end, .. } => end,
                _ => 0,
            };
            let hold = e.hold;
            let t0 = (steps + 1) as f32 * DT;
            if !stays(q, path_end(q, end), t0, hold) {
                return approach(p, target);
            }
            self.phase = Phase::Move;
            self.run = MoveRun::default();
        }
        let px = level
            .platforms
            .get(platform_of(&e).unwrap_or(usize::MAX))
            .map(|q| q.pos.x);
        e.input(&mut self.run, p, px)
    }

    /// Plans from `node`; returns the input to give when there is no plan.
    fn replan(&mut self, node: usize, p: &Player) -> Option<Input> {
        self.outcome.plans += 1;
        if self.outcome.plans > MAX_REPLANS {
            let why = format!(
                "gave up after {MAX_REPLANS} plans at ({:.2}, {:.2}) m",
                p.pos.x, p.pos.y
            );
            return Some(self.fail(self.with_trouble(why)));
        }
        let Some(goal) = self.exit_node else {
            let why = format!(
                "the exit at ({:.2}, {:.2}) m has no floor within {EXIT_RADIUS} m under it",
                self.exit.x, self.exit.y
            );
            return Some(self.fail(why));
        };
        match self
            .graph
            .plan(node, p.pos.x, goal, self.exit.x, &self.banned, &self.params)
        {
            Some(plan) => {
                self.plan = plan;
                self.cursor = 0;
                self.edge_steps = 0;
                self.start_edge_limit(p);
                self.phase = Phase::Approach;
                None
            }
            None => {
                let why = format!(
                    "no path from {} (standing at ({:.2}, {:.2}) m) to the exit at ({:.2}, {:.2}) m on {}",
                    self.graph.nodes[node],
                    p.pos.x,
                    p.pos.y,
                    self.exit.x,
                    self.exit.y,
                    self.graph.nodes[goal]
                );
                Some(self.fail(self.with_trouble(why)))
            }
        }
    }

    fn with_trouble(&self, why: String) -> String {
        match &self.trouble {
            Some(t) => format!("{why}; before that: {t}"),
            None => why,
        }
    }

    fn stuck_reason(&self, p: &Player, e: &Edge) -> String {
        format!(
            "stuck {:.1} s at ({:.2}, {:.2}) m on the move: {e}",
            self.edge_steps as f32 * DT,
            p.pos.x,
            p.pos.y
        )
    }

    /// Starts the edge at the cursor (or the walk to the exit).
    fn start_edge(&mut self, _level: &Level, p: &Player) {
        self.phase = Phase::Approach;
        self.edge_steps = 0;
        self.run = MoveRun::default();
        self.start_edge_limit(p);
    }

    fn start_edge_limit(&mut self, p: &Player) {
        let secs = match self.current() {
            Some(e) => {
                let d = (self.graph.approach_x(&e) - p.pos.x).abs();
                d / self.params.walk_speed + e.duration + STUCK_AFTER
            }
            None => f32::INFINITY,
        };
        self.edge_limit = (secs / DT).min(u32::MAX as f32) as u32;
    }

    /// Where the follower walks to before edge `e`: on a moving platform,
    /// relative to where the platform is now.
    fn target_x(&self, level: &Level, e: &Edge) -> f32 {
        let x = self.graph.approach_x(e);
        match (self.graph.nodes[e.from].kind, e.mv) {
            (NodeKind::Platform(i), Move::Leave { end, .. }) => match level.platforms.get(i) {
                Some(q) => x - path_end(q, end).x + q.pos.x,
                None => x,
            },
            _ => x,
        }
    }
}

/// The moving platform a move boards or leaves.
fn platform_of(e: &Edge) -> Option<usize> {
    match e.mv {
        Move::Board { platform, .. } | Move::Leave { platform, .. } => Some(platform),
        _ => None,
    }
}

/// Whether platform `q` is at `at` from time `t0` for `hold` seconds.
fn stays(q: &MovingPlatform, at: Vec2, t0: f32, hold: f32) -> bool {
    let n = (hold.max(0.0) / DT).ceil() as u32;
    (0..=n).all(|k| q.position_at(t0 + k as f32 * DT).distance(at) < 0.02)
}

/// Walks (far away: runs) to `target` and stops there.
fn approach(p: &Player, target: f32) -> Input {
    let dx = target - p.pos.x;
    if dx.abs() > RUN_BEYOND {
        Input {
            move_x: dx.signum(),
            run: true,
            ..Input::default()
        }
    } else {
        Input {
            move_x: (dx / BRAKE_DISTANCE).clamp(-1.0, 1.0),
            ..Input::default()
        }
    }
}

/// Runs the autopilot on `level` with the bare controller (no animation,
/// no IK), without the moves `avoid` picks: the outcome and where the
/// player ended. For tests and quick checks; `ironstep run --autopilot`
/// drives the whole simulation.
pub fn play(
    level: &Level,
    frames: u64,
    avoid: impl Fn(&Edge) -> bool,
) -> Result<(Outcome, Player), GraphError> {
    let params = MoveParams::default();
    let mut level = level.clone();
    let mut pilot = Autopilot::new(&level, params)?;
    pilot.avoid(avoid);
    let mut p = Player::new(level.spawn);
    for step in 0..frames {
        let input = pilot.input(&level, &p, step);
        level.advance_platforms((step + 1) as f32 * DT);
        p.step(&level, &params, &input);
        if pilot.at_exit(&p) {
            pilot.outcome.exit_reached = true;
            pilot.outcome.frames_to_exit = Some(step + 1);
            break;
        }
        if pilot.failed() {
            break;
        }
    }
    Ok((pilot.outcome, p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::testmaps::{ladder, map, platform, point};

    fn level(rows: &[&str], objects: &str) -> Level {
        crate::level::from_tmx_str(&map(&[rows], objects), "t.tmx")
            .unwrap()
            .level
    }

    #[test]
    fn the_builtin_level_is_played_to_the_exit() {
        let (o, p) = play(&Level::builtin(), DEFAULT_FRAMES, |_| false).unwrap();
        assert!(o.exit_reached, "{o:?} at {:?}", p.pos);
    }

    #[test]
    fn every_shipped_level_is_played_to_the_exit() {
        for name in crate::level::shipped::shipped_names() {
            let l = crate::level::shipped::LevelSource::resolve(name)
                .unwrap()
                .load()
                .unwrap();
            let (o, p) = play(&l, DEFAULT_FRAMES, |_| false).unwrap();
            assert!(o.exit_reached, "{name}: {o:?} at {:?}", p.pos);
        }
    }

    #[test]
    fn a_knight_moved_off_its_plan_plans_again_and_finishes() {
        // Half-way up the built-in level's first ladder, the knight is put
        // back on the ground at the start: the follower notices it stands
        // on another node than its move started from and plans again.
        let mut level = Level::builtin();
        let params = MoveParams::default();
        let mut pilot = Autopilot::new(&level, params).unwrap();
        let mut p = Player::new(level.spawn);
        let mut moved = false;
        let mut reached = false;
        for step in 0..DEFAULT_FRAMES {
            let input = pilot.input(&level, &p, step);
            level.advance_platforms((step + 1) as f32 * DT);
            p.step(&level, &params, &input);
            if !moved && matches!(p.state, Locomotion::Ladder(_)) && p.climb_distance > 1.0 {
                p = Player::new(Vec2::new(3.0, 0.5));
                moved = true;
            }
            if pilot.at_exit(&p) {
                reached = true;
                break;
            }
        }
        assert!(moved && reached, "{:?} at {:?}", pilot.outcome, p.pos);
        assert!(pilot.outcome.plans >= 2, "{:?}", pilot.outcome);
        assert_eq!(pilot.outcome.falls, 0);
    }

    #[test]
    fn ladders_are_climbed_down_when_falls_are_struck() {
        // The built-in level's second ladder leads 3 m down a wall: with
        // every fall and jump off the high floor struck, the way on is down
        // the ladder.
        let level = Level::builtin();
        let high =
            |e: &Edge| e.start.y > 2.0 && matches!(e.mv, Move::Fall { .. } | Move::Jump { .. });
        let (o, p) = play(&level, DEFAULT_FRAMES, high).unwrap();
        assert!(o.exit_reached, "{o:?} at {:?}", p.pos);
        let pilot = {
            let mut a = Autopilot::new(&level, MoveParams::default()).unwrap();
            a.avoid(high);
            a
        };
        let g = pilot.graph();
        let from = g.node_below(&level, level.spawn, 1.0).unwrap();
        let to = g.node_below(&level, level.exit, 1.0).unwrap();
        let plan = g
            .plan(
                from,
                level.spawn.x,
                to,
                level.exit.x,
                &pilot.banned,
                &MoveParams::default(),
            )
            .unwrap();
        let moves: Vec<Move> = plan.iter().map(|&e| g.edges[e].mv).collect();
        assert!(moves.contains(&Move::ClimbUp { ladder: 0 }), "{moves:?}");
        assert!(moves.contains(&Move::ClimbDown { ladder: 1 }), "{moves:?}");
    }

    #[test]
    fn a_ladder_and_a_platform_are_used() {
        let rows: &[&str] = &[
            "......................",
            "......................",
            "#####............#####",
            "#####............#####",
        ];
        let objs = point(1, "Spawn", 1.0, 2)
            + &point(2, "Exit", 20.0, 2)
            + &platform(5, rows.len(), &[(3.25, 1.0), (7.75, 1.0)], 1.5, 2.0, 1.0);
        let (o, _) = play(&level(rows, &objs), DEFAULT_FRAMES, |_| false).unwrap();
        assert!(o.exit_reached, "{o:?}");
        let wall: &[&str] = &[
            "............",
            "......######",
            "......######",
            "......######",
            "......######",
            "......######",
            "......######",
            "############",
        ];
        let objs = point(1, "Spawn", 1.0, 7)
            + &point(2, "Exit", 10.0, 1)
            + &ladder(3, 170.0, 32.0, 16.0, 192.0, 0.30);
        let (o, _) = play(&level(wall, &objs), DEFAULT_FRAMES, |_| false).unwrap();
        assert!(o.exit_reached, "{o:?}");
    }

    /// Three floors: the ground, a one-way plank 2.5 m up reached by a
    /// ladder through it, and a bridge 5 m up reached by a lift from the
    /// plank's end (the top floor is a bridge over a tunnel).
    const TOWER: &[&str] = &[
        "........................",
        "........................",
        "........................",
        "..............#########.",
        "........................",
        "........................",
        "........................",
        "........................",
        "..---------.............",
        "........................",
        "........................",
        "........................",
        "........................",
        "########################",
    ];

    fn tower(spawn: (f32, u32), exit: (f32, u32)) -> Level {
        let objs = point(1, "Spawn", spawn.0, spawn.1)
            + &point(2, "Exit", exit.0, exit.1)
            + &ladder(3, 136.0, 256.0, 16.0, 160.0, 0.30)
            + &platform(4, TOWER.len(), &[(6.25, 3.0), (6.25, 5.5)], 1.5, 1.0, 1.5);
        let loaded = crate::level::from_tmx_str(&map(&[TOWER], &objs), "tower.tmx").unwrap();
        let errors: Vec<String> = crate::level::check::check_level(&loaded)
            .iter()
            .filter(|d| d.severity == crate::level::Severity::Error)
            .map(ToString::to_string)
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        loaded.level
    }

    #[test]
    fn a_tower_is_climbed_by_ladder_and_lift_and_left_by_drops_and_falls() {
        // Up: ground → ladder through the plank → lift → bridge.
        let up = tower((1.0, 13), (20.0, 3));
        let (o, p) = play(&up, DEFAULT_FRAMES, |_| false).unwrap();
        assert!(o.exit_reached, "{o:?} at {:?}", p.pos);
        let pilot = Autopilot::new(&up, MoveParams::default()).unwrap();
        let g = pilot.graph();
        let plan = g
            .plan(
                g.node_below(&up, up.spawn, 1.0).unwrap(),
                up.spawn.x,
                g.node_below(&up, up.exit, 1.0).unwrap(),
                up.exit.x,
                &[],
                &MoveParams::default(),
            )
            .unwrap();
        let moves: Vec<Move> = plan.iter().map(|&e| g.edges[e].mv).collect();
        assert!(
            matches!(
                moves.as_slice(),
                [
                    Move::ClimbUp { .. },
                    Move::Board { end: 0, .. },
                    Move::Leave { end: 1, .. }
                ]
            ),
            "{moves:?}"
        );
        // Down: from the bridge to the ground under the plank.
        let down = tower((20.0, 3), (4.0, 13));
        let (o, p) = play(&down, DEFAULT_FRAMES, |_| false).unwrap();
        assert!(o.exit_reached, "{o:?} at {:?}", p.pos);
        // Down without falls off the bridge: the lift, then through the plank.
        let no_falls = |e: &Edge| matches!(e.mv, Move::Fall { .. } | Move::Jump { .. });
        let (o, p) = play(&down, DEFAULT_FRAMES, no_falls).unwrap();
        assert!(o.exit_reached, "{o:?} at {:?}", p.pos);
    }

    #[test]
    fn an_unreachable_exit_is_reported_with_the_place() {
        let wall: &[&str] = &[
            "............",
            "......######",
            "......######",
            "......######",
            "......######",
            "############",
        ];
        let objs = point(1, "Spawn", 1.0, 5) + &point(2, "Exit", 10.0, 1);
        let (o, _) = play(&level(wall, &objs), DEFAULT_FRAMES, |_| false).unwrap();
        assert!(!o.exit_reached);
        let why = o.failure.unwrap();
        assert!(
            why.starts_with("no path from the floor from x") && why.contains("(0.75, 0.50)"),
            "{why}"
        );
    }
}

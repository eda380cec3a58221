//! The level's reachability graph: where the knight can stand and which
//! moves of the real controller take it from one place to another.
//!
//! **Nodes** are walkable stretches: maximal runs of floor the controller
//! walks along without jumping (split where a wall or a step taller than
//! [`MAX_STEP_UP`] stands, at slopes steeper than 45°, at gaps and at the
//! level's ends), plus one node per moving platform (its top). A stretch is
//! found by sampling every static floor every [`SAMPLE_SPACING`] metres on
//! one grid over x and asking, from each sample, what the controller's
//! ground step asks: is there a wall between this sample and the next
//! ([`Level::wall_between`] over the body's height), and which floor
//! supports the feet there (a solid floor a step up or a snap down, a
//! one-way floor at or below the feet). Samples linked both ways belong to
//! one stretch; a sample the body does not fit on (a solid in it) is left
//! out.
//!
//! **Edges** are moves, each tried with the real [`Player::step`] on a copy
//! of the level (no moving platforms, or one platform frozen at a path end):
//! walking across a one-way link between stretches, walking or running off
//! an edge and falling, running, standing and vertical jumps (with the
//! derived jump physics, ceilings and walls all in the controller), climbing
//! a ladder up or down, dropping through a one-way plank (down + jump), and
//! boarding or leaving a moving platform at either end of its path, where it
//! waits. A move becomes an edge when it ends standing on another node;
//! jumps and falls must land on the same node when their start is moved by
//! [`TAKEOFF_TOLERANCE`] either way, so a follower that presses the button a
//! step early or late still lands. Every edge keeps the move's kind, where
//! it starts (the follower stands there first) and where it lands, so a
//! planner can follow it with [`Edge::input`], the same input program the
//! builder tried.
//!
//! The graph is built once per level; following it costs a lookup per
//! step. Limits: moving platforms are boarded and left only at the ends of
//! their paths (where they wait long enough for the move), from or to the
//! floor beside the platform, by walking or by a standing jump; a platform
//! passing a ledge in the middle of its path, and running jumps onto or off
//! a platform, are not moves of the graph. Jumps are tried from every
//! [`TAKEOFF_EVERY`]-th sample and from the ends of each stretch, always
//! at full jump height; a jump that only a short hop makes (under a low
//! ceiling the full jump bumps into) is found only when the bump does not
//! spoil it. A moving platform can be in the way of a static move at run
//! time; the follower then plans again from where the knight lands.

use glam::Vec2;

use crate::sim::player::{
    BODY_HALF_WIDTH, BODY_HEIGHT, DT, Input, LADDER_REACH, LEVEL_END_MARGIN, Locomotion,
    MAX_SNAP_DOWN, MAX_STEP_UP, MoveParams, Player,
};
use crate::sim::world::{FloorFilter, FloorHit, FloorKind, Level, MovingPlatform};

/// Spacing of the floor samples, metres: finer than any floor, gap or
/// ladder reach a level has (tiles are 0.5 m), coarse enough that a long
/// level has a few thousand samples.
pub const SAMPLE_SPACING: f32 = 0.05;
/// Jumps are tried from every this-many-th sample (every 0.25 m) and from
/// the ends of each stretch.
pub const TAKEOFF_EVERY: i32 = 5;
/// One-way drops are tried from every this-many-th sample (every 0.5 m).
pub const DROP_EVERY: i32 = 10;
/// Run-up of a running jump, metres: the ground acceleration reaches the
/// run speed within 0.42 m (3.4² / (2 · 14)), so the take-off is at full
/// speed.
pub const RUN_UP: f32 = 0.8;
/// How far a jump's or a fall's start may move either way and the move still
/// land on the same node, metres: a step at run speed (3.4 / 64 = 0.053 m)
/// with a margin.
pub const TAKEOFF_TOLERANCE: f32 = 0.07;
/// Run-in before walking off an edge, metres: enough for the walk speed.
pub const FALL_RUN_IN: f32 = 0.3;
/// Longest move tried, seconds: a fall from the top of any sane level.
pub const MAX_MOVE_TIME: f32 = 8.0;
/// How far from a ladder's centre line a climb starts, metres: inside
/// [`LADDER_REACH`] with a margin for where the follower stops.
pub const CLIMB_REACH: f32 = LADDER_REACH - 0.1;
/// Gap between a moving platform's side and the spot a rider boards from,
/// metres: more than the body's half width, so the platform never pushes
/// the waiting rider.
pub const BOARD_STAND_OFF: f32 = BODY_HALF_WIDTH + 0.1;
/// Time kept in hand when a platform must stay put during a move, seconds.
pub const PLATFORM_MARGIN: f32 = 0.25;
/// How far in from a platform's side a rider waits to leave, metres.
pub const LEAVE_INSET: f32 = 0.35;
/// The most floor samples a graph is built from: 10 km of single floor, or
/// 500 m with 20 floors in every column. Each sample costs a few tried
/// moves; beyond this a check would take tens of seconds, so the level is
/// refused (`check-level` says so) rather than checked.
pub const MAX_SAMPLES: usize = 200_000;

/// The most controller steps a graph is built with, all tried moves
/// together: the check's work is bounded, not only its size. The shipped
/// levels take 33,000 (walls) to 250,000 (long, 205 tiles wide) steps; a
/// map as wide as the largest allowed (4,096 tiles) as busy as `long` would
/// take about 5 million. A made level with floors scattered over every row
/// takes far more per sample (one the fuzzer made from `long` took ten
/// times its check time), and one at [`MAX_SAMPLES`] could try moves for
/// many minutes. At about a microsecond a step this is a check of seconds;
/// beyond it `check-level` (and designer mode and the autopilot, which
/// build the same graph) refuses the level with one clear line instead of
/// seeming to hang.
pub const MAX_SIMULATED_STEPS: u64 = 8_000_000;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A walkable stretch of static floor.
    Stretch,
    /// The top of moving platform `i`.
    Platform(usize),
}

/// A place the knight can stand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    /// What it is.
    pub kind: NodeKind,
    /// Left end, metres (a platform: the left end of its path).
    pub x0: f32,
    /// Right end, metres.
    pub x1: f32,
    /// Height at the left end, metres.
    pub y0: f32,
    /// Height at the right end, metres.
    pub y1: f32,
}

impl Node {
    /// Distance from `p` to the node's floor line, metres.
    pub fn distance_to(&self, p: Vec2) -> f32 {
        let x = p.x.clamp(self.x0, self.x1);
        let t = if self.x1 > self.x0 {
            (x - self.x0) / (self.x1 - self.x0)
        } else {
            0.0
        };
        p.distance(Vec2::new(x, self.y0 + (self.y1 - self.y0) * t))
    }
}

impl std::fmt::Display for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            NodeKind::Stretch => write!(
                f,
                "the floor from x {:.2} to {:.2} m at height {:.2}..{:.2} m",
                self.x0, self.x1, self.y0, self.y1
            ),
            NodeKind::Platform(i) => write!(
                f,
                "moving platform {i} (path x {:.2} to {:.2} m)",
                self.x0, self.x1
            ),
        }
    }
}

/// Seconds planning adds to a move that catches a ledge: a grab is the way
/// where no other is (the tutorial's wall), not a shortcut taken wherever
/// one saves a second, so a level's route keeps to its floors, jumps and
/// ladders where those reach.
pub const GRAB_PLAN_COST: f32 = 30.0;

/// How close, metres, the ends of a move tried facing either way must be
/// for the move to count (see `Builder::try_move`).
pub const FACING_AGREE: f32 = 0.1;

/// Seconds a move that caught a ledge with no room to climb onto hangs
/// before letting go (the catch takes 0.4 s; up is held meanwhile).
pub const LEDGE_GIVE_UP: f32 = 1.0;

/// How a jump is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JumpStyle {
    /// [`RUN_UP`] metres of running, then jump at full speed.
    Running,
    /// From standing, steering with walk speed in the air.
    Standing,
    /// From standing, straight up (no steering).
    Vertical,
}

/// A move of the controller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Move {
    /// Walk in `dir` onto a stretch that cannot be walked back from.
    Walk {
        /// −1 left, +1 right.
        dir: f32,
    },
    /// Walk (or run) in `dir` off an edge and fall.
    Fall {
        /// −1 left, +1 right.
        dir: f32,
        /// Running rather than walking.
        run: bool,
    },
    /// Jump in `dir` (0 for [`JumpStyle::Vertical`]).
    Jump {
        /// −1 left, +1 right, 0 straight up.
        dir: f32,
        /// How.
        style: JumpStyle,
    },
    /// Down + jump on a one-way plank.
    Drop,
    /// Climb ladder `ladder` from its foot to its top.
    ClimbUp {
        /// Index into [`Level::ladders`].
        ladder: usize,
    },
    /// Climb ladder `ladder` down from its top.
    ClimbDown {
        /// Index into [`Level::ladders`].
        ladder: usize,
    },
    /// Walk (or jump) onto moving platform `platform` while it waits at
    /// path end `end`.
    Board {
        /// Index into [`Level::platforms`].
        platform: usize,
        /// 0: the path's first point, 1: its last.
        end: usize,
        /// −1 left, +1 right.
        dir: f32,
        /// A standing jump (a platform higher than a step) instead of a walk.
        jump: bool,
    },
    /// Walk (or jump) off moving platform `platform` while it waits at path
    /// end `end`.
    Leave {
        /// Index into [`Level::platforms`].
        platform: usize,
        /// 0: the path's first point, 1: its last.
        end: usize,
        /// −1 left, +1 right.
        dir: f32,
        /// A standing jump (a floor higher than a step) instead of a walk.
        jump: bool,
    },
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = |d: f32| {
            if d > 0.0 {
                "right"
            } else if d < 0.0 {
                "left"
            } else {
                "up"
            }
        };
        match *self {
            Move::Walk { dir } => write!(f, "walk {}", side(dir)),
            Move::Fall { dir, run } => write!(
                f,
                "{} off the edge {}",
                if run { "run" } else { "walk" },
                side(dir)
            ),
            Move::Jump { dir, style } => write!(
                f,
                "{} jump {}",
                match style {
                    JumpStyle::Running => "running",
                    JumpStyle::Standing => "standing",
                    JumpStyle::Vertical => "vertical",
                },
                side(dir)
            ),
            Move::Drop => write!(f, "drop through the plank"),
            Move::ClimbUp { ladder } => write!(f, "climb ladder {ladder} up"),
            Move::ClimbDown { ladder } => write!(f, "climb ladder {ladder} down"),
            Move::Board {
                platform,
                end,
                dir,
                jump,
            } => write!(
                f,
                "board moving platform {platform} at its path's {} end, {} {}",
                if end == 0 { "first" } else { "last" },
                if jump { "jumping" } else { "walking" },
                side(dir)
            ),
            Move::Leave {
                platform,
                end,
                dir,
                jump,
            } => write!(
                f,
                "leave moving platform {platform} at its path's {} end, {} {}",
                if end == 0 { "first" } else { "last" },
                if jump { "jumping" } else { "walking" },
                side(dir)
            ),
        }
    }
}

/// A move from one node to another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    /// The node the move starts on.
    pub from: usize,
    /// The node it ends on.
    pub to: usize,
    /// The move.
    pub mv: Move,
    /// Where the follower stands still before the move starts (feet). For
    /// a move off a moving platform, where that is while the platform waits
    /// at the path's end.
    pub start: Vec2,
    /// Where a running jump presses jump (x); the start's x otherwise.
    pub trigger_x: f32,
    /// Where the move ended when it was tried (feet).
    pub land: Vec2,
    /// Seconds the move took when it was tried, from the start (for
    /// moving platforms, plus half a round trip: the average wait).
    pub duration: f32,
    /// Seconds a moving platform must stay at its path's end from the
    /// move's start (until the rider stands on it, or is off it); 0 for
    /// other moves.
    pub hold: f32,
    /// Whether the move caught a ledge and climbed over it (or let go)
    /// when it was tried: planning counts [`GRAB_PLAN_COST`] more for it.
    pub grab: bool,
}

impl std::fmt::Display for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} from ({:.2}, {:.2}) m to ({:.2}, {:.2}) m",
            self.mv, self.start.x, self.start.y, self.land.x, self.land.y
        )
    }
}

/// The state of a move being followed (or tried).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveRun {
    /// Steps since the move started.
    pub steps: u32,
    /// Whether jump was pressed (running jumps press it at the trigger).
    pub pressed: bool,
    /// Whether the player has left the ground (or a platform) since the start.
    pub left_ground: bool,
}

impl MoveRun {
    /// Whether move `edge` is over for the player `p` (after the step that
    /// gave `p`): standing on another node, or standing again after leaving
    /// the ground (a jump that landed back where it started included).
    pub fn done(&mut self, g: &Graph, edge: &Edge, p: &Player) -> bool {
        if p.state != Locomotion::Ground {
            self.left_ground = true;
            return false;
        }
        self.steps > 0 && (self.left_ground || g.node_of(p).is_some_and(|n| n != edge.from))
    }
}

impl Edge {
    /// What planning counts for the move, seconds: its duration, plus
    /// [`GRAB_PLAN_COST`] for a move that catches a ledge.
    pub fn cost(&self) -> f32 {
        self.duration + if self.grab { GRAB_PLAN_COST } else { 0.0 }
    }

    /// The input of the next step of this move for a player in state `p`;
    /// `platform_x` is the x of the move's moving platform now (boarding
    /// walks to its centre). Advances `run`.
    pub fn input(&self, run: &mut MoveRun, p: &Player, platform_x: Option<f32>) -> Input {
        let k = run.steps;
        run.steps += 1;
        let mut input = Input::default();
        // A move that catches a ledge (a jump or fall whose hands pass one,
        // see `sim::player::ledge`) goes on as a climb over it: up, or, on
        // a ledge with no room to climb onto, down after a moment to let go.
        if p.state == Locomotion::Ledge {
            let climbing = p.ledge.is_some_and(|h| h.climbing());
            input.move_y = if climbing || p.state_time < LEDGE_GIVE_UP {
                1.0
            } else {
                -1.0
            };
            return input;
        }
        match self.mv {
            Move::Walk { dir } => input.move_x = dir,
            Move::Fall { dir, run: r } => {
                input.move_x = dir;
                input.run = r;
            }
            Move::Jump { dir, style } => {
                input.move_x = dir;
                input.jump_held = true;
                match style {
                    JumpStyle::Running => {
                        input.run = true;
                        let lead = 0.5 * p.vel.x.abs() * DT;
                        if !run.pressed && dir * (p.pos.x - self.trigger_x) >= -lead {
                            input.jump_pressed = true;
                            run.pressed = true;
                        }
                    }
                    JumpStyle::Standing | JumpStyle::Vertical => {
                        input.jump_pressed = k == 0;
                        run.pressed = true;
                    }
                }
            }
            Move::Drop => {
                input.move_y = -1.0;
                input.jump_pressed = k == 0;
            }
            Move::ClimbUp { .. } => input.move_y = 1.0,
            Move::ClimbDown { .. } => input.move_y = -1.0,
            Move::Board {
                platform,
                dir,
                jump,
                ..
            } => {
                let on = p.state == Locomotion::Ground
                    && p.floor == FloorKind::Platform(platform as u16);
                // Run (or jump) on, then walk to the centre.
                input.move_x = match (on, platform_x) {
                    (true, Some(px)) => ((px - p.pos.x) / 0.25).clamp(-1.0, 1.0),
                    (false, Some(px)) if jump && k > 0 => ((px - p.pos.x) / 0.5).clamp(-1.0, 1.0),
                    _ => dir,
                };
                input.run = !on;
                input.jump_pressed = jump && k == 0;
                input.jump_held = jump && !on;
            }
            Move::Leave { dir, jump, .. } => {
                input.move_x = dir;
                input.run = jump;
                input.jump_pressed = jump && k == 0;
                input.jump_held = jump;
            }
        }
        input
    }
}

/// One floor sample: static floor `seg` at grid column `k`.
#[derive(Clone, Copy, Debug)]
struct Sample {
    k: i32,
    seg: u32,
    node: u32,
    y: f32,
}

/// The reachability graph of a level.
#[derive(Clone, Debug)]
pub struct Graph {
    /// Every node: stretches first, then one per moving platform.
    pub nodes: Vec<Node>,
    /// Every edge.
    pub edges: Vec<Edge>,
    /// Edge indices by the node they start from.
    pub out: Vec<Vec<usize>>,
    /// Left end of the sample grid, metres.
    origin: f32,
    /// Samples sorted by (floor, column).
    samples: Vec<Sample>,
    /// Per node, its samples' indices sorted by x.
    node_samples: Vec<Vec<u32>>,
    /// Controller steps the build simulated (see [`MAX_SIMULATED_STEPS`]).
    pub simulated_steps: u64,
}

/// Why a graph was not built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GraphError {
    /// The level has more floor than [`MAX_SAMPLES`] samples.
    #[error(
        "the level has {samples} floor samples of {SAMPLE_SPACING} m, more than the {MAX_SAMPLES} a reachability graph is built from"
    )]
    TooLarge {
        /// How many samples it would need.
        samples: usize,
    },
    /// Trying the level's moves took more than [`MAX_SIMULATED_STEPS`].
    #[error(
        "trying the level's moves took more than {budget} controller steps (floors in {nodes} stretches); split the level or join its floors"
    )]
    TooMuchWork {
        /// How many stretches of floor the graph has.
        nodes: usize,
        /// The budget it ran out of.
        budget: u64,
    },
}

/// A player standing still at `x` on `hit`.
fn standing(x: f32, hit: &FloorHit) -> Player {
    let mut p = Player::new(Vec2::new(x, hit.y));
    p.state = Locomotion::Ground;
    p.since_grounded = 0.0;
    p.state_time = 1.0;
    p.floor = hit.kind();
    p.floor_index = hit.index;
    p
}

/// The floor the controller's ground step stands the feet on at `(x, y)`
/// (as `Player::support` without a plank being dropped through).
fn support(level: &Level, x: f32, y: f32) -> Option<FloorHit> {
    let solid = level.floor_below_filtered(
        x,
        y + MAX_STEP_UP,
        MAX_STEP_UP + MAX_SNAP_DOWN,
        FloorFilter::Solid,
    );
    let any = level.floor_below(x, y, MAX_SNAP_DOWN);
    match (solid, any) {
        (Some(a), Some(b)) => Some(if b.y > a.y { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// A path far from any level, for the platforms a frozen copy leaves out.
const FAR: Vec2 = Vec2::new(-1.0e6, -1.0e6);

/// The level without its moving platforms.
fn static_copy(level: &Level) -> Level {
    let mut l = level.clone();
    l.platforms.clear();
    l
}

/// The level with platform `i` frozen at `at` and every other one far away
/// (indices kept, so floors report `Platform(i)`).
fn frozen_copy(level: &Level, i: usize, at: Vec2) -> Level {
    let mut l = level.clone();
    for (j, p) in l.platforms.iter_mut().enumerate() {
        let to = if j == i { at } else { FAR };
        *p = MovingPlatform::new(vec![to, to], p.half_width, p.thickness, p.speed, p.wait);
    }
    l
}

/// The end point `end` (0 first, 1 last) of a platform's path.
pub fn path_end(p: &MovingPlatform, end: usize) -> Vec2 {
    if end == 0 {
        p.path.first().copied().unwrap_or(Vec2::ZERO)
    } else {
        p.path.last().copied().unwrap_or(Vec2::ZERO)
    }
}

/// Union-find root with path halving.
fn root(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        parent[i as usize] = parent[parent[i as usize] as usize];
        i = parent[i as usize];
    }
    i
}

impl Graph {
    /// Builds the graph of `level` for a controller with `params`.
    pub fn build(level: &Level, params: &MoveParams) -> Result<Self, GraphError> {
        Self::build_within(level, params, MAX_SIMULATED_STEPS)
    }

    /// [`Graph::build`] with at most `budget` simulated controller steps.
    pub fn build_within(
        level: &Level,
        params: &MoveParams,
        budget: u64,
    ) -> Result<Self, GraphError> {
        let flat = static_copy(level);
        let mut g = Self::stretches(&flat)?;
        let mut b = Builder {
            g: &mut g,
            level,
            params,
            steps: std::cell::Cell::new(0),
            budget,
        };
        b.walk_and_fall_edges(&flat);
        b.jump_edges(&flat);
        b.drop_edges(&flat);
        b.ladder_edges(&flat);
        b.platform_edges();
        let steps = b.steps.get();
        if steps > budget {
            return Err(GraphError::TooMuchWork {
                nodes: g.nodes.len(),
                budget,
            });
        }
        g.simulated_steps = steps;
        // Moves that catch a ledge go last: the others keep the order (and
        // so the planner's choice among equally quick ones) they have in a
        // level without ledges.
        let (mut edges, grabs): (Vec<Edge>, Vec<Edge>) = g.edges.drain(..).partition(|e| !e.grab);
        edges.extend(grabs);
        g.edges = edges;
        g.out = vec![Vec::new(); g.nodes.len()];
        for (i, e) in g.edges.iter().enumerate() {
            g.out[e.from].push(i);
        }
        Ok(g)
    }

    /// Samples every static floor and joins them into stretches.
    fn stretches(level: &Level) -> Result<Self, GraphError> {
        let (a, b) = level.extent();
        let origin = (a / SAMPLE_SPACING).floor() * SAMPLE_SPACING;
        let (lo, hi) = (a + LEVEL_END_MARGIN, b - LEVEL_END_MARGIN);
        let count: usize = level
            .segments
            .iter()
            .map(|s| (((s.x1 - s.x0) / SAMPLE_SPACING).max(0.0) as usize).saturating_add(2))
            .fold(0usize, usize::saturating_add);
        if count > MAX_SAMPLES {
            return Err(GraphError::TooLarge { samples: count });
        }
        let mut samples = Vec::new();
        for (si, s) in level.segments.iter().enumerate() {
            if s.x1 <= s.x0
                || s.x1.is_nan()
                || s.x0.is_nan()
                || !s.y0.is_finite()
                || !s.y1.is_finite()
            {
                continue;
            }
            let k0 = ((s.x0 - origin) / SAMPLE_SPACING).ceil() as i32;
            let mut k = k0;
            loop {
                let x = origin + k as f32 * SAMPLE_SPACING;
                if x >= s.x1 {
                    break;
                }
                k += 1;
                if !s.covers(x) || x < lo || x > hi {
                    continue;
                }
                let y = s.height_at(x);
                // The body must fit: no solid in it above a step.
                if level.solid_overlaps(
                    x - BODY_HALF_WIDTH,
                    x + BODY_HALF_WIDTH,
                    y + MAX_STEP_UP,
                    y + BODY_HEIGHT,
                ) {
                    continue;
                }
                samples.push(Sample {
                    k: k - 1,
                    seg: si as u32,
                    node: u32::MAX,
                    y,
                });
            }
        }
        samples.sort_by_key(|s| (s.seg, s.k));
        let mut g = Self {
            nodes: Vec::new(),
            edges: Vec::new(),
            out: Vec::new(),
            origin,
            samples,
            node_samples: Vec::new(),
            simulated_steps: 0,
        };
        // Walk links, both ways.
        let n = g.samples.len();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        let mut links: Vec<(u32, u32, f32)> = Vec::new();
        for i in 0..n {
            for dir in [-1.0f32, 1.0] {
                if let Step::To(j) = g.walk_step(level, i, dir) {
                    links.push((i as u32, j as u32, dir));
                }
            }
        }
        links.sort_unstable_by_key(|&(i, j, _)| (i, j));
        for &(i, j, _) in &links {
            if links
                .binary_search_by_key(&(j, i), |&(a, b, _)| (a, b))
                .is_ok()
            {
                let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                if ri != rj {
                    parent[ri.max(rj) as usize] = ri.min(rj);
                }
            }
        }
        // Nodes, numbered by their leftmost sample.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            let (sa, sb) = (&g.samples[a], &g.samples[b]);
            sa.k.cmp(&sb.k).then(sa.y.total_cmp(&sb.y))
        });
        let mut node_of_root = vec![u32::MAX; n];
        for &i in &order {
            let r = root(&mut parent, i as u32) as usize;
            if node_of_root[r] == u32::MAX {
                node_of_root[r] = g.nodes.len() as u32;
                g.nodes.push(Node {
                    kind: NodeKind::Stretch,
                    x0: f32::INFINITY,
                    x1: f32::NEG_INFINITY,
                    y0: 0.0,
                    y1: 0.0,
                });
                g.node_samples.push(Vec::new());
            }
            let node = node_of_root[r];
            g.samples[i].node = node;
            g.node_samples[node as usize].push(i as u32);
            let x = g.x_of(i);
            let y = g.samples[i].y;
            let nd = &mut g.nodes[node as usize];
            if x < nd.x0 {
                nd.x0 = x;
                nd.y0 = y;
            }
            if x > nd.x1 {
                nd.x1 = x;
                nd.y1 = y;
            }
        }
        // Directed links between stretches: walks one way only.
        for &(i, j, dir) in &links {
            let (a, b) = (g.samples[i as usize].node, g.samples[j as usize].node);
            if a != b {
                let (pi, pj) = (g.pos_of(i as usize), g.pos_of(j as usize));
                let e = Edge {
                    from: a as usize,
                    to: b as usize,
                    mv: Move::Walk { dir },
                    start: pi,
                    trigger_x: pi.x,
                    land: pj,
                    // A sample's spacing at walk speed: nothing next to a jump.
                    duration: SAMPLE_SPACING,
                    hold: 0.0,
                    grab: false,
                };
                if !g
                    .edges
                    .iter()
                    .any(|x| x.from == e.from && x.to == e.to && x.mv == e.mv)
                {
                    g.edges.push(e);
                }
            }
        }
        Ok(g)
    }

    /// Where the controller's ground step takes the feet from sample `i`
    /// one sample spacing in `dir`.
    fn walk_step(&self, level: &Level, i: usize, dir: f32) -> Step {
        let s = self.samples[i];
        let x = self.x_of(i);
        let nx = self.origin + (s.k + dir as i32) as f32 * SAMPLE_SPACING;
        let (a, b) = level.extent();
        if nx < a + LEVEL_END_MARGIN || nx > b - LEVEL_END_MARGIN {
            return Step::Blocked;
        }
        if level
            .wall_between(x, nx, BODY_HALF_WIDTH, s.y + MAX_STEP_UP, s.y + BODY_HEIGHT)
            .is_some()
        {
            return Step::Blocked;
        }
        let Some(h) = support(level, nx, s.y) else {
            return Step::Edge;
        };
        if h.y > s.y
            && level.solid_overlaps(
                nx - BODY_HALF_WIDTH,
                nx + BODY_HALF_WIDTH,
                h.y + MAX_STEP_UP,
                h.y + BODY_HEIGHT,
            )
        {
            return Step::Blocked;
        }
        match self.find(h.index, s.k + dir as i32) {
            Some(j) => Step::To(j),
            None => Step::Blocked,
        }
    }

    /// The sample of static floor `seg` at grid column `k`.
    fn find(&self, seg: usize, k: i32) -> Option<usize> {
        self.samples
            .binary_search_by_key(&(seg as u32, k), |s| (s.seg, s.k))
            .ok()
    }

    fn x_of(&self, i: usize) -> f32 {
        self.origin + self.samples[i].k as f32 * SAMPLE_SPACING
    }

    fn pos_of(&self, i: usize) -> Vec2 {
        Vec2::new(self.x_of(i), self.samples[i].y)
    }

    /// The node of the static floor `seg` nearest to `x` (within `reach`
    /// metres along it).
    fn node_near(&self, seg: usize, x: f32, reach: f32) -> Option<usize> {
        let lo = self.samples.partition_point(|s| s.seg < seg as u32);
        let hi = self.samples.partition_point(|s| s.seg <= seg as u32);
        let k = (x - self.origin) / SAMPLE_SPACING;
        let slice = &self.samples[lo..hi];
        let at = slice.partition_point(|s| (s.k as f32) < k);
        [at.checked_sub(1), Some(at)]
            .into_iter()
            .flatten()
            .filter_map(|i| slice.get(i))
            .filter(|s| (s.k as f32 - k).abs() * SAMPLE_SPACING <= reach)
            .min_by(|a, b| (a.k as f32 - k).abs().total_cmp(&(b.k as f32 - k).abs()))
            .map(|s| s.node as usize)
    }

    /// The node a player standing on the ground is on (`None` in the air,
    /// on a ladder, or on a floor the graph has no sample of nearby).
    pub fn node_of(&self, p: &Player) -> Option<usize> {
        if p.state != Locomotion::Ground {
            return None;
        }
        self.node_of_floor(p.floor, p.floor_index, p.pos.x)
    }

    /// The node of floor `kind` (static floor or platform `index`) at `x`.
    pub fn node_of_floor(&self, kind: FloorKind, index: usize, x: f32) -> Option<usize> {
        match kind {
            FloorKind::Platform(i) => self.platform_node(i as usize),
            _ => self.node_near(index, x, 0.5),
        }
    }

    /// The node of moving platform `i`.
    pub fn platform_node(&self, i: usize) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| n.kind == NodeKind::Platform(i))
    }

    /// The node under a point (the nearest floor below it within `depth`).
    pub fn node_below(&self, level: &Level, p: Vec2, depth: f32) -> Option<usize> {
        let hit = level.floor_below_filtered(p.x, p.y + 0.05, depth, FloorFilter::Static)?;
        self.node_of_floor(hit.kind(), hit.index, p.x)
    }

    /// The samples of a node as (x, y), left to right.
    pub fn node_points(&self, node: usize) -> impl Iterator<Item = Vec2> + '_ {
        self.node_samples
            .get(node)
            .into_iter()
            .flatten()
            .map(|&i| self.pos_of(i as usize))
    }

    /// Which nodes can be reached from `start`, avoiding `banned` edges.
    pub fn reachable_from(&self, start: usize, banned: &[bool]) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(n) = stack.pop() {
            for &e in &self.out[n] {
                if banned.get(e).copied().unwrap_or(false) {
                    continue;
                }
                let t = self.edges[e].to;
                if !seen[t] {
                    seen[t] = true;
                    stack.push(t);
                }
            }
        }
        seen
    }

    /// Where the follower of edge `e` walks to first.
    pub fn approach_x(&self, e: &Edge) -> f32 {
        match e.mv {
            Move::Jump {
                dir,
                style: JumpStyle::Running,
            } => e.trigger_x - dir * RUN_UP,
            _ => e.start.x,
        }
    }

    /// The quickest sequence of edges from standing at `x` on node `from`
    /// to standing at `goal_x` on node `goal`, skipping `banned` edges; by
    /// estimated time (walking at run speed within a node, each move's tried
    /// duration). `None` when there is no way.
    pub fn plan(
        &self,
        from: usize,
        x: f32,
        goal: usize,
        goal_x: f32,
        banned: &[bool],
        params: &MoveParams,
    ) -> Option<Vec<usize>> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let speed = params.run_speed.max(0.1);
        let walk = |a: f32, b: f32, node: usize| match self.nodes[node].kind {
            NodeKind::Stretch => (a - b).abs() / speed,
            NodeKind::Platform(_) => 0.0,
        };
        let ok = |e: usize| !banned.get(e).copied().unwrap_or(false);
        let mut best_goal = (from == goal).then(|| walk(x, goal_x, goal));
        let mut best_last: Option<usize> = None;
        let mut dist = vec![f32::INFINITY; self.edges.len()];
        let mut prev = vec![usize::MAX; self.edges.len()];
        // Times are finite and non-negative: order them by their bits.
        let key = |t: f32| Reverse(t.to_bits());
        let mut heap = BinaryHeap::new();
        for &e in &self.out[from] {
            if ok(e) {
                let ed = &self.edges[e];
                let t = walk(x, self.approach_x(ed), from) + ed.cost();
                if t < dist[e] {
                    dist[e] = t;
                    heap.push((key(t), e));
                }
            }
        }
        while let Some((Reverse(bits), e)) = heap.pop() {
            let t = f32::from_bits(bits);
            if t > dist[e] || best_goal.is_some_and(|b| t >= b) {
                continue;
            }
            let ed = &self.edges[e];
            if ed.to == goal {
                let total = t + walk(ed.land.x, goal_x, goal);
                if best_goal.is_none_or(|b| total < b) {
                    best_goal = Some(total);
                    best_last = Some(e);
                }
            }
            for &n in &self.out[ed.to] {
                if !ok(n) {
                    continue;
                }
                let nd = &self.edges[n];
                let tn = t + walk(ed.land.x, self.approach_x(nd), ed.to) + nd.cost();
                if tn < dist[n] {
                    dist[n] = tn;
                    prev[n] = e;
                    heap.push((key(tn), n));
                }
            }
        }
        best_goal?;
        let mut path = Vec::new();
        let mut e = best_last;
        while let Some(i) = e {
            path.push(i);
            e = (prev[i] != usize::MAX).then_some(prev[i]);
        }
        path.reverse();
        Some(path)
    }
}

/// What one walking sample step meets.
enum Step {
    To(usize),
    Edge,
    Blocked,
}

/// Builds the edges of a graph whose stretches are made.
struct Builder<'a> {
    g: &'a mut Graph,
    level: &'a Level,
    params: &'a MoveParams,
    /// Controller steps simulated so far (see [`MAX_SIMULATED_STEPS`]).
    steps: std::cell::Cell<u64>,
    /// The most it may simulate.
    budget: u64,
}

/// What trying a move gave.
struct Tried {
    end: Player,
    steps: u32,
    /// Whether a ledge was caught on the way.
    grabbed: bool,
}

impl Builder<'_> {
    /// Tries `edge` from the player `p` on `level` with the real
    /// controller: the state when it ends standing (after leaving the
    /// ground, or on another node), or `None` when it does not (a fall out
    /// of the level, or too long).
    ///
    /// The controller catches only a ledge the body faces (see
    /// `sim::player::ledge`), and a follower arrives at a move's start
    /// facing either way: a move that caught a ledge is tried facing the
    /// other way too and kept only if it ends alike (within
    /// [`FACING_AGREE`]). (A move that caught none facing right may catch
    /// one facing left as it is followed: the follower then ends off the
    /// plan and plans again from there.)
    fn try_move(&self, level: &Level, edge: &Edge, p: Player, from: usize) -> Option<Tried> {
        let t = self.try_move_facing(level, edge, p, from)?;
        if t.grabbed {
            let turned = Player {
                facing: -p.facing,
                ..p
            };
            let u = self.try_move_facing(level, edge, turned, from)?;
            if (u.end.pos - t.end.pos).length() > FACING_AGREE || u.end.state != t.end.state {
                return None;
            }
        }
        Some(t)
    }

    /// [`Builder::try_move`] facing as `p` does.
    fn try_move_facing(
        &self,
        level: &Level,
        edge: &Edge,
        mut p: Player,
        from: usize,
    ) -> Option<Tried> {
        let mut grabbed = false;
        let mut run = MoveRun::default();
        let edge = Edge { from, ..*edge };
        let platform_x = match edge.mv {
            Move::Board { platform, .. } => level.platforms.get(platform).map(|q| q.pos.x),
            _ => None,
        };
        let max = (MAX_MOVE_TIME / DT) as u32;
        for _ in 0..max {
            if !self.take_step() {
                return None;
            }
            let before = p.pos;
            let input = edge.input(&mut run, &p, platform_x);
            p.step(level, self.params, &input);
            if (p.pos - before).length() > 2.0 || !p.pos.is_finite() {
                // Lost below the level and respawned.
                return None;
            }
            grabbed |= p.state == Locomotion::Ledge;
            if run.done(self.g, &edge, &p) {
                return Some(Tried {
                    end: p,
                    steps: run.steps,
                    grabbed,
                });
            }
        }
        None
    }

    /// Counts one simulated controller step; false once the build has used
    /// up [`MAX_SIMULATED_STEPS`] (every move tried after that fails fast,
    /// and the build is refused).
    fn take_step(&self) -> bool {
        let n = self.steps.get() + 1;
        self.steps.set(n);
        n <= self.budget
    }

    /// The node a tried move ended on, if another than `from`.
    fn landed_on(&self, t: &Tried, from: usize) -> Option<usize> {
        self.g.node_of(&t.end).filter(|&n| n != from)
    }

    /// A sample's standing player.
    fn stand_at(&self, level: &Level, i: usize) -> Option<Player> {
        let pos = self.g.pos_of(i);
        let hit = level
            .floor_below_filtered(pos.x, pos.y + 1e-3, 0.01, FloorFilter::Static)
            .filter(|h| h.index == self.g.samples[i].seg as usize)?;
        Some(standing(pos.x, &hit))
    }

    /// A standing player at `x` on node `node` (its sample nearest to `x`,
    /// within `reach`).
    fn stand_on_node(&self, level: &Level, node: usize, x: f32, reach: f32) -> Option<Player> {
        let i = self.nearest_sample(node, x, reach)?;
        self.stand_at(level, i)
    }

    fn nearest_sample(&self, node: usize, x: f32, reach: f32) -> Option<usize> {
        let list = &self.g.node_samples[node];
        let at = list.partition_point(|&i| self.g.x_of(i as usize) < x);
        [at.checked_sub(1), Some(at)]
            .into_iter()
            .flatten()
            .filter_map(|i| list.get(i))
            .map(|&i| i as usize)
            .filter(|&i| (self.g.x_of(i) - x).abs() <= reach)
            .min_by(|&a, &b| {
                (self.g.x_of(a) - x)
                    .abs()
                    .total_cmp(&(self.g.x_of(b) - x).abs())
            })
    }

    /// Tries a move from `p` and, when it lands on another node — from every
    /// start in `starts` alike when given — adds it as an edge.
    fn add_tried(
        &mut self,
        level: &Level,
        from: usize,
        mut edge: Edge,
        p: Player,
        robust: &[Player],
    ) {
        let Some(t) = self.try_move(level, &edge, p, from) else {
            return;
        };
        let Some(to) = self.landed_on(&t, from) else {
            return;
        };
        for q in robust {
            let same = self
                .try_move(level, &edge, *q, from)
                // Moved, the move must go as it went: with a catch if it
                // caught a ledge, without one if not.
                .filter(|u| u.grabbed == t.grabbed)
                .and_then(|t| self.landed_on(&t, from))
                == Some(to);
            if !same {
                return;
            }
        }
        edge.from = from;
        edge.to = to;
        edge.land = t.end.pos;
        edge.duration = t.steps as f32 * DT;
        edge.grab = t.grabbed;
        self.g.edges.push(edge);
    }

    fn edge(mv: Move, start: Vec2) -> Edge {
        Edge {
            from: 0,
            to: 0,
            mv,
            start,
            trigger_x: start.x,
            land: start,
            duration: 0.0,
            hold: 0.0,
            grab: false,
        }
    }

    /// Falls off the ends of stretches.
    fn walk_and_fall_edges(&mut self, flat: &Level) {
        for i in 0..self.g.samples.len() {
            for dir in [-1.0f32, 1.0] {
                if !matches!(self.g.walk_step(flat, i, dir), Step::Edge) {
                    continue;
                }
                let node = self.g.samples[i].node as usize;
                let edge_x = self.g.x_of(i);
                for run in [false, true] {
                    let x = edge_x - dir * FALL_RUN_IN;
                    let Some(p) = self.stand_on_node(flat, node, x, SAMPLE_SPACING) else {
                        continue;
                    };
                    let robust: Vec<Player> = [-1.0f32, 1.0]
                        .iter()
                        .filter_map(|s| {
                            self.stand_on_node(
                                flat,
                                node,
                                x + s * 0.5 * TAKEOFF_TOLERANCE,
                                SAMPLE_SPACING,
                            )
                        })
                        .collect();
                    let e = Self::edge(Move::Fall { dir, run }, p.pos);
                    self.add_tried(flat, node, e, p, &robust);
                }
            }
        }
    }

    /// Running, standing and vertical jumps.
    fn jump_edges(&mut self, flat: &Level) {
        for node in 0..self.g.nodes.len() {
            let list = self.g.node_samples[node].clone();
            let Some((&first, &last)) = list.first().zip(list.last()) else {
                continue;
            };
            for &si in &list {
                let i = si as usize;
                let k = self.g.samples[i].k;
                if k.rem_euclid(TAKEOFF_EVERY) != 0 && si != first && si != last {
                    continue;
                }
                let x = self.g.x_of(i);
                for dir in [-1.0f32, 1.0] {
                    // Running: stand at the run-up's start, run, jump at x.
                    if let Some(p) =
                        self.stand_on_node(flat, node, x - dir * RUN_UP, SAMPLE_SPACING)
                    {
                        let mut e = Self::edge(
                            Move::Jump {
                                dir,
                                style: JumpStyle::Running,
                            },
                            p.pos,
                        );
                        e.trigger_x = x;
                        self.add_running(flat, node, e, p);
                    }
                    let Some(p) = self.stand_at(flat, i) else {
                        continue;
                    };
                    let e = Self::edge(
                        Move::Jump {
                            dir,
                            style: JumpStyle::Standing,
                        },
                        p.pos,
                    );
                    let robust = self.shifted(flat, node, x);
                    self.add_tried(flat, node, e, p, &robust);
                }
                if let Some(p) = self.stand_at(flat, i) {
                    let e = Self::edge(
                        Move::Jump {
                            dir: 0.0,
                            style: JumpStyle::Vertical,
                        },
                        p.pos,
                    );
                    let robust = self.shifted(flat, node, x);
                    self.add_tried(flat, node, e, p, &robust);
                }
            }
        }
    }

    /// A running jump, robust to pressing jump a step early or late.
    fn add_running(&mut self, flat: &Level, node: usize, e: Edge, p: Player) {
        let Some(t) = self.try_move(flat, &e, p, node) else {
            return;
        };
        let Some(to) = self.landed_on(&t, node) else {
            return;
        };
        for s in [-1.0f32, 1.0] {
            let mut shifted = e;
            shifted.trigger_x += s * TAKEOFF_TOLERANCE;
            let same = self
                .try_move(flat, &shifted, p, node)
                .filter(|u| u.grabbed == t.grabbed)
                .and_then(|t| self.landed_on(&t, node))
                == Some(to);
            if !same {
                return;
            }
        }
        let mut e = e;
        e.from = node;
        e.to = to;
        e.land = t.end.pos;
        e.duration = t.steps as f32 * DT;
        e.grab = t.grabbed;
        self.g.edges.push(e);
    }

    /// Standing players a little left and right of `x` on `node`.
    fn shifted(&self, flat: &Level, node: usize, x: f32) -> Vec<Player> {
        [-1.0f32, 1.0]
            .iter()
            .filter_map(|s| {
                self.stand_on_node(flat, node, x + s * 0.6 * TAKEOFF_TOLERANCE, SAMPLE_SPACING)
            })
            .collect()
    }

    /// Down + jump through one-way planks.
    fn drop_edges(&mut self, flat: &Level) {
        for i in 0..self.g.samples.len() {
            let s = self.g.samples[i];
            if flat.segments[s.seg as usize].kind != FloorKind::OneWay
                || s.k.rem_euclid(DROP_EVERY) != 0
            {
                continue;
            }
            let Some(p) = self.stand_at(flat, i) else {
                continue;
            };
            let node = s.node as usize;
            let robust = self.shifted(flat, node, p.pos.x);
            let e = Self::edge(Move::Drop, p.pos);
            self.add_tried(flat, node, e, p, &robust);
        }
    }

    /// Ladders up from their foot and down from their top.
    fn ladder_edges(&mut self, flat: &Level) {
        for (li, l) in self.level.ladders.iter().enumerate() {
            // Every node with a sample within reach of the ladder, at the
            // heights where a climb up (below the top) or down (at the top)
            // starts: each node's sample nearest the centre line.
            let mut starts: Vec<(usize, usize, bool)> = Vec::new();
            for (i, s) in self.g.samples.iter().enumerate() {
                let x = self.g.x_of(i);
                if (x - l.x).abs() > CLIMB_REACH || s.y < l.bottom - 0.05 || s.y > l.top + 0.05 {
                    continue;
                }
                let up = s.y < l.top - 0.5;
                let node = s.node as usize;
                // Not on a stretch's outermost samples (the follower would
                // stop at the brink of a drop).
                let list = &self.g.node_samples[node];
                let pos = list.iter().position(|&j| j as usize == i).unwrap_or(0);
                if list.len() > 4 && (pos < 2 || pos + 2 >= list.len()) {
                    continue;
                }
                match starts.iter_mut().find(|(n, _, u)| *n == node && *u == up) {
                    Some(slot) if (x - l.x).abs() < (self.g.x_of(slot.1) - l.x).abs() => slot.1 = i,
                    Some(_) => {}
                    None => starts.push((node, i, up)),
                }
            }
            for (node, i, up) in starts {
                let Some(p) = self.stand_at(flat, i) else {
                    continue;
                };
                let mv = if up {
                    Move::ClimbUp { ladder: li }
                } else {
                    Move::ClimbDown { ladder: li }
                };
                self.add_tried(flat, node, Self::edge(mv, p.pos), p, &[]);
            }
        }
    }

    /// Boarding and leaving moving platforms at the ends of their paths.
    fn platform_edges(&mut self) {
        let first_platform = self.g.nodes.len();
        for (pi, q) in self.level.platforms.iter().enumerate() {
            let (x0, x1) = q
                .path
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), p| {
                    (a.min(p.x), b.max(p.x))
                });
            let a = path_end(q, 0);
            let b = path_end(q, 1);
            self.g.nodes.push(Node {
                kind: NodeKind::Platform(pi),
                x0: x0 - q.half_width,
                x1: x1 + q.half_width,
                y0: a.y,
                y1: b.y,
            });
            self.g.node_samples.push(Vec::new());
        }
        for (pi, q) in self.level.platforms.iter().enumerate() {
            let pnode = first_platform + pi;
            for end in [0usize, 1] {
                let at = path_end(q, end);
                let frozen = frozen_copy(self.level, pi, at);
                for side in [-1.0f32, 1.0] {
                    // Board: from the floor beside the platform, walking in.
                    let xb = at.x + side * (q.half_width + BOARD_STAND_OFF);
                    if let Some(hit) = frozen.floor_below_filtered(
                        xb,
                        at.y + 1.0,
                        1.0 + MAX_STEP_UP,
                        FloorFilter::Static,
                    ) && let Some(node) = self.g.node_near(hit.index, xb, SAMPLE_SPACING)
                        && let Some(p) = self.stand_on_node(&frozen, node, xb, 2.0 * SAMPLE_SPACING)
                    {
                        for jump in [false, true] {
                            let mut e = Self::edge(
                                Move::Board {
                                    platform: pi,
                                    end,
                                    dir: -side,
                                    jump,
                                },
                                p.pos,
                            );
                            let on = self.steps_until(&frozen, &e, p, |p| {
                                p.state == Locomotion::Ground
                                    && p.floor == FloorKind::Platform(pi as u16)
                            });
                            if let Some(t) = self.try_move(&frozen, &e, p, node)
                                && t.end.floor == FloorKind::Platform(pi as u16)
                                && on as f32 * DT + PLATFORM_MARGIN <= q.wait
                            {
                                e.hold = on as f32 * DT + PLATFORM_MARGIN;
                                e.from = node;
                                e.to = pnode;
                                e.land = t.end.pos;
                                // Moving there and, on average, half a round
                                // trip's wait for the platform.
                                e.duration = t.steps as f32 * DT + 0.5 * q.period();
                                self.g.edges.push(e);
                                // A walk on needs no jump.
                                break;
                            }
                        }
                    }
                    // Leave: from near that side of the platform, walking out.
                    let inset = (q.half_width - LEAVE_INSET).max(0.0);
                    let hit = FloorHit {
                        y: at.y,
                        segment: frozen.platforms[pi].floor(pi),
                        index: pi,
                    };
                    let p = standing(at.x + side * inset, &hit);
                    for jump in [false, true] {
                        let mut e = Self::edge(
                            Move::Leave {
                                platform: pi,
                                end,
                                dir: side,
                                jump,
                            },
                            p.pos,
                        );
                        if let Some(t) = self.try_move(&frozen, &e, p, pnode)
                            && let Some(to) = self.landed_on(&t, pnode)
                        {
                            // The platform must wait until the rider is off it.
                            let off = self.steps_until(&frozen, &e, p, |p| {
                                !(p.state == Locomotion::Ground
                                    && p.floor == FloorKind::Platform(pi as u16))
                            });
                            if off as f32 * DT + PLATFORM_MARGIN <= q.wait {
                                e.hold = off as f32 * DT + PLATFORM_MARGIN;
                                e.from = pnode;
                                e.to = to;
                                e.land = t.end.pos;
                                e.duration = t.steps as f32 * DT + 0.5 * q.period();
                                self.g.edges.push(e);
                                break;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Steps of move `e` from `p` until `cond` holds (`u32::MAX` when it
    /// never does within [`MAX_MOVE_TIME`]).
    fn steps_until(
        &self,
        level: &Level,
        e: &Edge,
        mut p: Player,
        cond: impl Fn(&Player) -> bool,
    ) -> u32 {
        let mut run = MoveRun::default();
        let px = match e.mv {
            Move::Board { platform, .. } => level.platforms.get(platform).map(|q| q.pos.x),
            _ => None,
        };
        for k in 0..(MAX_MOVE_TIME / DT) as u32 {
            if !self.take_step() {
                return u32::MAX;
            }
            let input = e.input(&mut run, &p, px);
            p.step(level, self.params, &input);
            if cond(&p) {
                return k + 1;
            }
        }
        u32::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::super::testmaps::{ladder, map, platform, point};
    use super::*;

    fn graph(rows: &[&str], objects: &str) -> (Level, Graph) {
        let loaded = super::super::from_tmx_str(&map(&[rows], objects), "t.tmx").unwrap();
        let g = Graph::build(&loaded.level, &MoveParams::default()).unwrap();
        (loaded.level, g)
    }

    fn ends(spawn_col: f32, spawn_row: u32, exit_col: f32, exit_row: u32) -> String {
        point(1, "Spawn", spawn_col, spawn_row) + &point(2, "Exit", exit_col, exit_row)
    }

    /// The node under spawn and exit, and whether a path joins them.
    fn joined(level: &Level, g: &Graph) -> (usize, usize, Option<Vec<usize>>) {
        let s = g
            .node_below(level, level.spawn, 50.0)
            .expect("floor under the spawn");
        let e = g
            .node_below(level, level.exit, 0.5)
            .expect("floor under the exit");
        let path = g.plan(
            s,
            level.spawn.x,
            e,
            level.exit.x,
            &[],
            &MoveParams::default(),
        );
        (s, e, path)
    }

    fn moves(g: &Graph, path: &[usize]) -> Vec<Move> {
        path.iter().map(|&e| g.edges[e].mv).collect()
    }

    #[test]
    fn flat_ground_and_a_slope_are_one_stretch_and_a_tile_high_step_is_jumped() {
        let rows: &[&str] = &["..........", "..../#####", "##########"];
        let (level, g) = graph(rows, &ends(0.0, 2, 9.0, 1));
        let (s, e, path) = joined(&level, &g);
        assert_eq!(s, e, "a 45° slope is walked: {:?}", g.nodes);
        assert_eq!(path.unwrap(), Vec::<usize>::new());
        // A 0.5 m step is taller than MAX_STEP_UP: two stretches, a jump.
        let rows: &[&str] = &["..........", ".....#####", "##########"];
        let (level, g) = graph(rows, &ends(0.0, 2, 9.0, 1));
        let (s, e, path) = joined(&level, &g);
        assert_ne!(s, e);
        let m = moves(&g, &path.expect("the step is jumped"));
        assert!(matches!(m.as_slice(), [Move::Jump { .. }]), "{m:?}");
    }

    #[test]
    fn a_wall_too_tall_to_jump_is_reached_by_a_grab_unless_its_corner_is_no_grab() {
        // A 3 m wall: a jump (1.25 m) cannot land on it, a catch of its
        // corner and a climb over can.
        let rows: &[&str] = &[
            "..........",
            "..........",
            "..........",
            "......####",
            "......####",
            "......####",
            "......####",
            "......####",
            "......####",
            "##########",
        ];
        let (level, g) = graph(rows, &ends(1.0, 9, 8.0, 3));
        let (s, e, path) = joined(&level, &g);
        assert_ne!(s, e);
        let path = path.expect("the wall's top is reached by a grab");
        assert!(
            path.iter().any(|&i| g.edges[i].grab),
            "{:?}",
            moves(&g, &path)
        );
        // Marked not grabbable, the corner leaves the top out of reach.
        let no_grab =
            "<object id=\"3\" type=\"NoGrab\" x=\"176\" y=\"80\" width=\"32\" height=\"32\"/>";
        let (level, g) = graph(rows, &(ends(1.0, 9, 8.0, 3) + no_grab));
        assert_eq!(level.static_ledges().count(), 0, "{:?}", level.no_grab);
        assert!(joined(&level, &g).2.is_none());
        // Two tiles higher (4 m) no hand reaches the corner.
        let tall: &[&str] = &[
            "..........",
            "......####",
            "......####",
            "......####",
            "......####",
            "......####",
            "......####",
            "......####",
            "......####",
            "##########",
        ];
        let (level, g) = graph(tall, &ends(1.0, 9, 8.0, 1));
        assert!(joined(&level, &g).2.is_none());
    }

    #[test]
    fn a_gap_needs_a_jump_and_a_wide_one_cannot_be_crossed() {
        let rows: &[&str] = &["................", "######....######"];
        let (level, g) = graph(rows, &ends(0.0, 1, 15.0, 1));
        let (s, e, path) = joined(&level, &g);
        assert_ne!(s, e);
        let path = path.expect("a 2 m gap is jumped");
        assert!(
            moves(&g, &path)
                .iter()
                .all(|m| matches!(m, Move::Jump { dir, .. } if *dir > 0.0)),
            "{:?}",
            moves(&g, &path)
        );
        let wide: &[&str] = &["......................", "###..............#####"];
        let (level, g) = graph(wide, &ends(0.0, 1, 21.0, 1));
        assert!(joined(&level, &g).2.is_none(), "a 7 m gap is too wide");
    }

    #[test]
    fn a_ladder_leads_up_to_a_ledge_and_back_down() {
        // A 3 m wall; the ladder stands against it.
        let rows: &[&str] = &[
            "............",
            "......######",
            "......######",
            "......######",
            "......######",
            "......######",
            "......######",
            "############",
        ];
        let objs = ends(1.0, 7, 10.0, 1) + &ladder(3, 170.0, 32.0, 16.0, 192.0, 0.30);
        let (level, g) = graph(rows, &objs);
        let (s, e, path) = joined(&level, &g);
        let path = path.expect("the ladder joins the floors");
        assert_eq!(moves(&g, &path), vec![Move::ClimbUp { ladder: 0 }]);
        let back = g.plan(
            e,
            level.exit.x,
            s,
            level.spawn.x,
            &[],
            &MoveParams::default(),
        );
        let back = moves(&g, &back.unwrap());
        assert!(
            back.contains(&Move::ClimbDown { ladder: 0 })
                || back.iter().any(|m| matches!(m, Move::Fall { .. })),
            "{back:?}"
        );
        // Without the ladder, the wall is too high to jump onto: only a
        // catch of its corner reaches the top.
        let (level, g) = graph(rows, &ends(1.0, 7, 10.0, 1));
        let path = joined(&level, &g).2.expect("a grab reaches the top");
        assert!(
            path.iter().any(|&i| g.edges[i].grab),
            "a 3 m wall is not jumped"
        );
    }

    #[test]
    fn a_one_way_plank_is_dropped_through_and_jumped_up_through() {
        // A plank 2.5 m up over a pit walled in on both sides.
        let rows: &[&str] = &[
            "..........",
            "..........",
            "##------##",
            "##......##",
            "##......##",
            "##......##",
            "##......##",
            "##########",
        ];
        let (level, g) = graph(rows, &ends(4.0, 2, 4.0, 7));
        let (_, _, path) = joined(&level, &g);
        let path = path.expect("the plank is dropped through");
        assert_eq!(moves(&g, &path), vec![Move::Drop]);
        let plank = g
            .nodes
            .iter()
            .position(|n| (n.y0 - 3.0).abs() < 1e-4)
            .expect("the plank is a node");
        let edges: Vec<Move> = g.out[plank].iter().map(|&e| g.edges[e].mv).collect();
        assert!(edges.contains(&Move::Drop), "{edges:?}");
    }

    #[test]
    fn a_moving_platform_is_boarded_ridden_and_left() {
        // Two ledges 4 m apart over a deadly gap; a platform shuttles between.
        let rows: &[&str] = &[
            "......................",
            "......................",
            "#####............#####",
            "#####............#####",
        ];
        // The platform's top flush with the ledges (1.0 m), its sides
        // meeting their edges at each end of its path.
        let objs = ends(1.0, 2, 20.0, 2)
            + &platform(5, rows.len(), &[(3.25, 1.0), (7.75, 1.0)], 1.5, 2.0, 1.0);
        let (level, g) = graph(rows, &objs);
        let (_, _, path) = joined(&level, &g);
        let path = path.expect("the platform carries the knight over");
        let m = moves(&g, &path);
        assert!(
            matches!(
                m.as_slice(),
                [
                    Move::Board {
                        end: 0,
                        jump: false,
                        ..
                    },
                    Move::Leave {
                        end: 1,
                        jump: false,
                        ..
                    }
                ]
            ),
            "{m:?}"
        );
    }

    #[test]
    fn an_exit_behind_a_too_high_wall_is_unreachable() {
        let rows: &[&str] = &[
            "............",
            "......######",
            "......######",
            "......######",
            "......######",
            "############",
        ];
        let (level, g) = graph(rows, &ends(1.0, 5, 10.0, 1));
        assert!(joined(&level, &g).2.is_none());
        // A 1 m wall is jumped.
        let low: &[&str] = &[
            "............",
            "......######",
            "......######",
            "############",
        ];
        let (level, g) = graph(low, &ends(1.0, 3, 10.0, 1));
        assert!(joined(&level, &g).2.is_some());
    }

    #[test]
    fn a_level_beyond_the_sample_limit_is_refused_not_checked_for_minutes() {
        use crate::sim::world::GroundSegment;
        let long = MAX_SAMPLES as f32 * SAMPLE_SPACING + 10.0;
        let level = Level::from_profile(
            "long",
            vec![GroundSegment::ground(0.0, long, 0.0, 0.0)],
            vec![],
            Vec2::new(1.0, 0.0),
            Vec2::new(long - 1.0, 0.0),
            -10.0,
        );
        let e = Graph::build(&level, &MoveParams::default()).unwrap_err();
        assert!(matches!(e, GraphError::TooLarge { samples } if samples > MAX_SAMPLES));
        assert!(e.to_string().contains("more than the 200000"), "{e}");
    }

    #[test]
    fn the_check_stops_at_its_step_budget_with_a_clear_error() {
        // Every shipped level is checked well within the budget (a quarter
        // of it at most: room for levels twice as large and busy).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/levels");
        let mut levels = vec![("builtin".to_string(), Level::builtin())];
        for name in ["tutorial", "long", "tower", "walls"] {
            let path = dir.join(format!("{name}.tmx"));
            levels.push((name.to_string(), super::super::load(&path).unwrap().level));
        }
        let mut most = 0;
        for (name, level) in &levels {
            let g = Graph::build(level, &MoveParams::default()).unwrap();
            eprintln!("{name}: {} simulated steps", g.simulated_steps);
            assert!(g.simulated_steps > 0, "{name}");
            assert!(
                g.simulated_steps <= MAX_SIMULATED_STEPS / 4,
                "{name}: {} steps",
                g.simulated_steps
            );
            most = most.max(g.simulated_steps);
        }
        // With less than a level needs, the build stops and says why.
        let level = &levels[0].1;
        let e = Graph::build_within(level, &MoveParams::default(), most / 100).unwrap_err();
        assert!(matches!(e, GraphError::TooMuchWork { .. }), "{e:?}");
        assert!(
            e.to_string().contains("controller steps") && e.to_string().contains("split the level"),
            "{e}"
        );
    }

    #[test]
    fn the_builtin_level_is_crossed_by_the_graph() {
        let level = Level::builtin();
        let g = Graph::build(&level, &MoveParams::default()).unwrap();
        let (_, _, path) = joined(&level, &g);
        let m = moves(&g, &path.expect("spawn to exit"));
        assert!(m.contains(&Move::ClimbUp { ladder: 0 }), "{m:?}");
    }
}

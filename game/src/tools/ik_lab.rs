//! `ironstep ik-lab`: the seeds' interactive 2D IK demos brought to 3D.
//!
//! Five small joint chains stand side by side on the play plane: two-bone with
//! each knee strategy (minimal motion, pose-preserving, pole), CCD with hinge or
//! cone limits and damping, and FABRIK with cone limits and a pole. They all
//! follow ONE shared target, given relative to each chain's base: drag it with
//! the left mouse button (a ray from the camera through the cursor onto the
//! target's depth plane), move it in depth with the wheel, drag the shared pole
//! with the right button. An egui panel edits every solver's parameters and
//! shows what each solve achieved. Keys: R resets, Esc quits.
//!
//! Headless hooks for tests: `--exit-after N`, `--screenshot-at N,M
//! --screenshot-dir DIR` (the frame and its panel drawn into an offscreen
//! target) and `--target-path circle|figure8` (a scripted target, no mouse).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use animation::ik::{
    CcdIk, ConeLimit, FabrikIk, HingeLimit, IkError, JointLimit, KneeStrategy, Pole, TwoBoneIk,
};
use animation::{JointDef, Pose, Skeleton, SkeletonError, Transform, local_to_model};
use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, ValueEnum};
use glam::{Mat4, Quat, Vec2, Vec3};
use renderer::{
    Camera, Frame, Gpu, Lighting, OffscreenTarget, Projection, Renderer, SurfaceTarget,
};
use thiserror::Error;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::sim::clock::FramePacer;
use crate::window::ui::EguiLayer;

/// Frames per second the lab paces itself to (Xvfb does not throttle presents).
const TARGET_FPS: u32 = 60;
/// Initial window size in pixels.
const WINDOW_SIZE: (u32, u32) = (1280, 720);
/// Metres between neighbouring chain bases: each chain reaches 2 m, so 2.6 m
/// keeps every base outside its neighbours' reach while all five chains fit
/// beside the panel.
pub const CHAIN_SPACING: f32 = 2.6;
/// Bone lengths of the two-bone chains (thigh, shin), metres.
const TWO_BONE_LENGTHS: [f32; 2] = [1.0, 1.0];
/// Bone lengths of the iterative chains: four 0.5 m links, the same 2 m reach
/// as the two-bone chains so one target means the same for all.
const LONG_CHAIN_LENGTHS: [f32; 4] = [0.5, 0.5, 0.5, 0.5];
/// Rest bend per joint, radians: a straight rest chain gives the knee
/// strategies no bend plane to keep, so every chain starts gently curved.
const REST_BEND: f32 = 0.25;
/// Depth the mouse wheel moves the target per notch, metres.
const WHEEL_STEP: f32 = 0.1;
/// Pixels per wheel notch for touchpads that report pixel deltas.
const PIXELS_PER_NOTCH: f32 = 40.0;
/// How far the target may move in depth, metres: beyond this it leaves the
/// chains' reach entirely and the view.
const MAX_DEPTH: f32 = 2.5;
/// Frames per loop of a scripted target path (2 s at 60 fps).
const PATH_PERIOD_FRAMES: f32 = 120.0;
/// Segments of a drawn reach circle.
const CIRCLE_SEGMENTS: usize = 48;
/// Initial target, relative to a chain's base: in reach of every chain.
const DEFAULT_TARGET: Vec3 = Vec3::new(0.8, 1.2, 0.0);
/// Initial pole, relative to a chain's base: toward the viewer, off the play
/// plane, so it never lines up with an in-plane target (the knees bend out of
/// the plane, showing the strategy in 3D).
const DEFAULT_POLE: Vec3 = Vec3::new(0.0, 1.0, 1.5);
/// Distance from the camera to the play plane, metres (frames all five chains).
const CAMERA_DISTANCE: f32 = 15.0;
/// Width of the parameter panel in egui points.
pub const PANEL_WIDTH: f32 = 290.0;

/// Why a lab chain could not be built.
#[derive(Debug, Error)]
pub enum LabError {
    /// A bone length is not a finite positive number.
    #[error(
        "chain '{chain}': bone {bone} has length {length}; lengths must be finite and positive"
    )]
    BadLength {
        /// The chain's name.
        chain: String,
        /// The bone's index.
        bone: usize,
        /// The refused length.
        length: f32,
    },
    /// The skeleton itself was refused.
    #[error("chain '{chain}': {source}")]
    Skeleton {
        /// The chain's name.
        chain: String,
        /// Why the skeleton was refused.
        source: SkeletonError,
    },
}

/// The scripted target motions for runs without a mouse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TargetPath {
    /// A circle of 0.9 m radius about (0.4, 1.0), partly out of reach.
    Circle,
    /// A figure eight through the chains' reach.
    Figure8,
}

impl TargetPath {
    /// The target (relative to a chain base) at rendered frame `frame`.
    pub fn at(self, frame: u64) -> Vec3 {
        let t = (frame % PATH_PERIOD_FRAMES as u64) as f32 / PATH_PERIOD_FRAMES;
        let a = t * std::f32::consts::TAU;
        match self {
            TargetPath::Circle => Vec3::new(0.4 + 0.9 * a.cos(), 1.0 + 0.9 * a.sin(), 0.0),
            TargetPath::Figure8 => Vec3::new(1.3 * a.sin(), 1.1 + 0.6 * (2.0 * a).sin(), 0.0),
        }
    }
}

/// Arguments of `ironstep ik-lab`.
#[derive(Args, Debug, Default, Clone)]
pub struct IkLabArgs {
    /// Quit by itself after this many rendered frames.
    #[arg(long)]
    pub exit_after: Option<u64>,
    /// Save a screenshot (scene and panel) at these rendered frames (comma separated).
    #[arg(long, value_delimiter = ',')]
    pub screenshot_at: Vec<u64>,
    /// Directory for `--screenshot-at` pictures.
    #[arg(long, default_value = ".")]
    pub screenshot_dir: PathBuf,
    /// When Esc quits, draw one more frame and save it as a screenshot
    /// first (tests drive the window with real events, then press Esc: the
    /// picture shows every event before it, however slow the machine).
    #[arg(long)]
    pub screenshot_on_exit: bool,
    /// Move the target along a scripted path instead of with the mouse.
    #[arg(long, value_enum)]
    pub target_path: Option<TargetPath>,
    /// Initial window size, WIDTHxHEIGHT (default 1280x720).
    #[arg(long, value_parser = crate::tools::headless::parse_size)]
    pub window_size: Option<(u32, u32)>,
}

/// A ray in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where the ray starts (on the near plane).
    pub origin: Vec3,
    /// Unit direction.
    pub dir: Vec3,
}

/// The ray from `camera` through the pixel `cursor` of a `size` viewport, or
/// `None` for an empty viewport or a degenerate camera.
pub fn cursor_ray(camera: &Camera, size: (u32, u32), cursor: Vec2) -> Option<Ray> {
    if size.0 == 0 || size.1 == 0 || !cursor.is_finite() {
        return None;
    }
    let aspect = size.0 as f32 / size.1 as f32;
    let inv = camera.view_proj(aspect).inverse();
    if !inv.is_finite() {
        return None;
    }
    let ndc = Vec2::new(
        2.0 * cursor.x / size.0 as f32 - 1.0,
        1.0 - 2.0 * cursor.y / size.1 as f32,
    );
    // wgpu clip depth runs 0 (near) to 1 (far).
    let near = inv.project_point3(ndc.extend(0.0));
    let far = inv.project_point3(ndc.extend(1.0));
    let dir = (far - near).try_normalize()?;
    Some(Ray { origin: near, dir })
}

/// Where `ray` meets the plane z = `z`, or `None` when it runs parallel to the
/// plane or points away from it.
pub fn ray_plane_z(ray: Ray, z: f32) -> Option<Vec3> {
    if ray.dir.z.abs() < 1e-6 {
        return None;
    }
    let t = (z - ray.origin.z) / ray.dir.z;
    (t >= 0.0 && t.is_finite()).then(|| ray.origin + ray.dir * t)
}

/// Projects a world point to pixel coordinates of a `size` viewport, or `None`
/// behind the camera.
pub fn world_to_screen(camera: &Camera, size: (u32, u32), p: Vec3) -> Option<Vec2> {
    let aspect = size.0 as f32 / size.1.max(1) as f32;
    let clip = camera.view_proj(aspect) * p.extend(1.0);
    if clip.w <= 1e-6 {
        return None;
    }
    let ndc = clip.truncate() / clip.w;
    Some(Vec2::new(
        (ndc.x + 1.0) * 0.5 * size.0 as f32,
        (1.0 - ndc.y) * 0.5 * size.1 as f32,
    ))
}

/// A chain of joints standing at `base`, bone `k` of `lengths[k]` metres along
/// its parent's +Y, each joint bent by `bend` radians about Z (alternating sign
/// for two-bone chains so the knee is a clear elbow). Returns the skeleton, its
/// rest pose and model matrices. Joint 0 is the base; the last is the end.
pub fn build_chain(
    name: &str,
    base: Vec3,
    lengths: &[f32],
    bend: f32,
) -> Result<(Skeleton, Pose, Vec<Mat4>), LabError> {
    for (bone, &length) in lengths.iter().enumerate() {
        if !length.is_finite() || length <= 0.0 {
            return Err(LabError::BadLength {
                chain: name.into(),
                bone,
                length,
            });
        }
    }
    let mut defs = Vec::with_capacity(lengths.len() + 1);
    for k in 0..=lengths.len() {
        let translation = if k == 0 {
            base
        } else {
            Vec3::Y * lengths[k - 1]
        };
        // The first joint leans one way, the rest curl back: a gentle C.
        let angle = if k == 0 { bend } else { -bend };
        let rotation = if k == lengths.len() {
            Quat::IDENTITY
        } else {
            Quat::from_rotation_z(angle)
        };
        defs.push(JointDef {
            name: format!("{name}.{k}"),
            parent: k.checked_sub(1),
            rest: Transform::new(translation, rotation, Vec3::ONE),
            inverse_bind: Mat4::IDENTITY,
        });
    }
    let skeleton = Skeleton::new(defs).map_err(|source| LabError::Skeleton {
        chain: name.into(),
        source,
    })?;
    let pose = skeleton.rest_pose();
    let mut models = vec![Mat4::IDENTITY; skeleton.len()];
    local_to_model(&skeleton, &pose.locals, &mut models);
    Ok((skeleton, pose, models))
}

/// Which solver a chain runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// Two-bone, knee nearest the current knee (seed 000).
    TwoBoneMinimal,
    /// Two-bone, thigh closest to the animated thigh (seed 003).
    TwoBonePosePreserving,
    /// Two-bone, knee toward the pole.
    TwoBonePole,
    /// Cyclic coordinate descent with per-joint limits and damping.
    Ccd,
    /// FABRIK with cone limits and an optional pole.
    Fabrik,
}

impl Solver {
    /// Every solver, in the order the chains stand left to right.
    pub const ALL: [Solver; 5] = [
        Solver::TwoBoneMinimal,
        Solver::TwoBonePosePreserving,
        Solver::TwoBonePole,
        Solver::Ccd,
        Solver::Fabrik,
    ];

    /// A short label for the panel and the scene.
    pub fn label(self) -> &'static str {
        match self {
            Solver::TwoBoneMinimal => "two-bone: minimal motion",
            Solver::TwoBonePosePreserving => "two-bone: pose-preserving",
            Solver::TwoBonePole => "two-bone: pole",
            Solver::Ccd => "CCD",
            Solver::Fabrik => "FABRIK",
        }
    }

    /// A shorter label for the results table.
    pub fn short(self) -> &'static str {
        match self {
            Solver::TwoBoneMinimal => "2-bone minimal",
            Solver::TwoBonePosePreserving => "2-bone pose",
            Solver::TwoBonePole => "2-bone pole",
            Solver::Ccd => "CCD",
            Solver::Fabrik => "FABRIK",
        }
    }

    fn lengths(self) -> &'static [f32] {
        match self {
            Solver::Ccd | Solver::Fabrik => &LONG_CHAIN_LENGTHS,
            _ => &TWO_BONE_LENGTHS,
        }
    }
}

/// The kind of limit every CCD joint gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcdLimitKind {
    /// No limits.
    Free,
    /// A hinge about Z (in the play plane) of ± the hinge range.
    Hinge,
    /// A swing cone about the bone with a twist range.
    Cone,
}

/// Every editable parameter of the lab.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabParams {
    /// Two-bone soften ratio in (0, 1]; 1 disables softening.
    pub soften: f32,
    /// Whether the two-bone knees have a hinge limit.
    pub hinge_on: bool,
    /// Two-bone knee hinge minimum, radians.
    pub hinge_min: f32,
    /// Two-bone knee hinge maximum, radians.
    pub hinge_max: f32,
    /// Two-bone weight in [0, 1].
    pub weight: f32,
    /// Extra knee twist of the pole strategy, radians.
    pub pole_twist: f32,
    /// CCD iteration cap.
    pub ccd_iterations: u32,
    /// CCD damping: the most a joint turns per iteration, radians.
    pub ccd_max_step: f32,
    /// CCD tolerance, metres.
    pub ccd_tolerance: f32,
    /// CCD limit kind.
    pub ccd_limit: CcdLimitKind,
    /// CCD hinge range (±) or cone swing, radians.
    pub ccd_angle: f32,
    /// CCD cone twist range (±), radians.
    pub ccd_twist: f32,
    /// FABRIK iteration cap.
    pub fabrik_iterations: u32,
    /// FABRIK tolerance, metres.
    pub fabrik_tolerance: f32,
    /// FABRIK cone angle per joint, radians.
    pub fabrik_cone: f32,
    /// Whether FABRIK bends toward the pole.
    pub fabrik_pole: bool,
    /// Draw each chain's reach circle.
    pub show_reach: bool,
    /// Start every solve from the rest pose (otherwise from last frame's pose).
    pub from_rest: bool,
}

impl Default for LabParams {
    fn default() -> Self {
        Self {
            soften: 1.0,
            hinge_on: true,
            hinge_min: -2.8,
            hinge_max: 0.0,
            weight: 1.0,
            pole_twist: 0.0,
            ccd_iterations: 32,
            ccd_max_step: 0.6,
            ccd_tolerance: 0.005,
            ccd_limit: CcdLimitKind::Hinge,
            ccd_angle: 1.4,
            ccd_twist: 0.3,
            fabrik_iterations: 16,
            fabrik_tolerance: 0.005,
            fabrik_cone: 1.2,
            fabrik_pole: true,
            show_reach: true,
            from_rest: false,
        }
    }
}

/// What one solve achieved, or why it was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The solve ran.
    Solved {
        /// Whether the end reached the target within tolerance.
        reached: bool,
        /// Distance from the end to the target, metres.
        residual: f32,
        /// Iterations used (iterative solvers only).
        iterations: Option<u32>,
    },
    /// The solver refused its input (e.g. a bad hinge range).
    Refused(String),
}

/// One chain of the lab.
pub struct LabChain {
    /// Which solver drives it.
    pub solver: Solver,
    /// Its base in world space (model space = world space).
    pub base: Vec3,
    /// Its joints.
    pub skeleton: Skeleton,
    /// The current pose.
    pub pose: Pose,
    /// The current model matrices.
    pub models: Vec<Mat4>,
    /// The last solve's outcome.
    pub outcome: Option<Outcome>,
}

impl LabChain {
    fn new(solver: Solver, base: Vec3) -> Result<Self, LabError> {
        let (skeleton, pose, models) =
            build_chain(solver.label(), base, solver.lengths(), REST_BEND)?;
        Ok(Self {
            solver,
            base,
            skeleton,
            pose,
            models,
            outcome: None,
        })
    }

    /// The chain's full reach (sum of its bone lengths), metres.
    pub fn reach(&self) -> f32 {
        self.solver.lengths().iter().sum()
    }

    /// The end joint's index.
    pub fn end(&self) -> usize {
        self.skeleton.len() - 1
    }

    /// The end joint's world position.
    pub fn end_position(&self) -> Vec3 {
        self.models[self.end()].w_axis.truncate()
    }

    /// Puts the chain back in its rest pose.
    pub fn reset(&mut self) {
        self.pose = self.skeleton.rest_pose();
        local_to_model(&self.skeleton, &self.pose.locals, &mut self.models);
        self.outcome = None;
    }

    /// Solves toward `target` with the pole at `pole` (both world space).
    ///
    /// The pose-preserving chain always starts from its rest pose, which
    /// stands in for the animated pose of seed 003 (the animation supplies a
    /// fresh thigh every frame and IK keeps closest to it): it has no memory.
    /// The other chains start from last frame's solution unless
    /// [`LabParams::from_rest`] is set, so minimal motion keeps its knee
    /// where it last was, as in seed 000's interactive demo.
    pub fn solve(&mut self, p: &LabParams, target: Vec3, pole: Vec3) {
        if p.from_rest || self.solver == Solver::TwoBonePosePreserving {
            self.reset();
        }
        let result = self.run_solver(p, target, pole);
        self.outcome = Some(match result {
            Ok(o) => o,
            Err(e) => Outcome::Refused(e.to_string()),
        });
    }

    fn run_solver(&mut self, p: &LabParams, target: Vec3, pole: Vec3) -> Result<Outcome, IkError> {
        let end = self.end();
        let (s, pose, models) = (&self.skeleton, &mut self.pose, &mut self.models[..]);
        let two_bone = |knee: KneeStrategy| TwoBoneIk {
            knee,
            soften: p.soften,
            hinge: p
                .hinge_on
                .then_some(HingeLimit::new(Vec3::Z, p.hinge_min, p.hinge_max)),
            weight: p.weight,
            ..TwoBoneIk::new(0, 1, 2, target)
        };
        let solved = |r: animation::ik::TwoBoneResult| Outcome::Solved {
            reached: r.reached,
            residual: r.residual,
            iterations: None,
        };
        Ok(match self.solver {
            Solver::TwoBoneMinimal => {
                solved(two_bone(KneeStrategy::MinimalMotion).solve(s, pose, models)?)
            }
            Solver::TwoBonePosePreserving => {
                solved(two_bone(KneeStrategy::PosePreserving).solve(s, pose, models)?)
            }
            Solver::TwoBonePole => solved(
                two_bone(KneeStrategy::Pole {
                    pole: Pole::Point(pole),
                    twist: p.pole_twist,
                })
                .solve(s, pose, models)?,
            ),
            Solver::Ccd => {
                let limit = match p.ccd_limit {
                    CcdLimitKind::Free => JointLimit::Free,
                    CcdLimitKind::Hinge => {
                        JointLimit::Hinge(HingeLimit::new(Vec3::Z, -p.ccd_angle, p.ccd_angle))
                    }
                    CcdLimitKind::Cone => JointLimit::Cone(ConeLimit {
                        axis: Vec3::Y,
                        max_swing: p.ccd_angle,
                        max_twist: p.ccd_twist,
                    }),
                };
                let limits = [limit; LONG_CHAIN_LENGTHS.len() + 1];
                let r = CcdIk {
                    start: 0,
                    end,
                    target,
                    limits: &limits,
                    max_step: p.ccd_max_step,
                    tolerance: p.ccd_tolerance,
                    max_iterations: p.ccd_iterations,
                }
                .solve(s, pose, models)?;
                Outcome::Solved {
                    reached: r.reached,
                    residual: r.residual,
                    iterations: Some(r.iterations),
                }
            }
            Solver::Fabrik => {
                let cones = [p.fabrik_cone; LONG_CHAIN_LENGTHS.len() + 1];
                let r = FabrikIk {
                    start: 0,
                    end,
                    target,
                    pole: p.fabrik_pole.then_some(pole),
                    cones: &cones,
                    tolerance: p.fabrik_tolerance,
                    max_iterations: p.fabrik_iterations,
                }
                .solve(s, pose, models)?;
                Outcome::Solved {
                    reached: r.reached,
                    residual: r.residual,
                    iterations: Some(r.iterations),
                }
            }
        })
    }
}

/// The whole lab: chains, the shared target and pole, parameters.
pub struct Lab {
    /// The chains, left to right.
    pub chains: Vec<LabChain>,
    /// Parameters shown in the panel.
    pub params: LabParams,
    /// The shared target, relative to each chain's base.
    pub target: Vec3,
    /// The shared pole, relative to each chain's base.
    pub pole: Vec3,
}

impl Lab {
    /// The lab with one chain per solver, centred on x = 0.
    pub fn new() -> Result<Self, LabError> {
        let n = Solver::ALL.len() as f32;
        let chains = Solver::ALL
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let x = (i as f32 - (n - 1.0) * 0.5) * CHAIN_SPACING;
                LabChain::new(s, Vec3::new(x, 0.0, 0.0))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            chains,
            params: LabParams::default(),
            target: DEFAULT_TARGET,
            pole: DEFAULT_POLE,
        })
    }

    /// Resets the chains, target, pole and parameters.
    pub fn reset(&mut self) {
        for c in &mut self.chains {
            c.reset();
        }
        self.params = LabParams::default();
        self.target = DEFAULT_TARGET;
        self.pole = DEFAULT_POLE;
    }

    /// Solves every chain toward the shared target.
    pub fn solve(&mut self) {
        let (p, t, pole) = (self.params, self.target, self.pole);
        for c in &mut self.chains {
            c.solve(&p, c.base + t, c.base + pole);
        }
    }

    /// The chain whose cell holds world x (for turning a dragged world point
    /// into the shared relative target).
    pub fn chain_at(&self, x: f32) -> &LabChain {
        self.chains
            .iter()
            .min_by(|a, b| (a.base.x - x).abs().total_cmp(&(b.base.x - x).abs()))
            .expect("the lab has chains")
    }

    /// Sets the shared target from a dragged world point.
    pub fn drag_target(&mut self, world: Vec3) {
        let base = self.chain_at(world.x).base;
        self.target = world - base;
    }

    /// Sets the shared pole from a dragged world point.
    pub fn drag_pole(&mut self, world: Vec3) {
        let base = self.chain_at(world.x).base;
        self.pole = world - base;
    }

    /// Moves the target in depth by `dz` metres, within [`MAX_DEPTH`].
    pub fn push_target(&mut self, dz: f32) {
        if dz.is_finite() {
            self.target.z = (self.target.z + dz).clamp(-MAX_DEPTH, MAX_DEPTH);
        }
    }

    /// Draws the chains, target, pole and reach circles as debug lines.
    pub fn draw(&self, frame: &mut Frame) {
        const BONE: [f32; 4] = [0.95, 0.9, 0.8, 1.0];
        const JOINT: [f32; 4] = [0.2, 0.2, 0.25, 1.0];
        const REACHED: [f32; 4] = [0.1, 0.9, 0.2, 1.0];
        const MISSED: [f32; 4] = [0.95, 0.2, 0.1, 1.0];
        const POLE: [f32; 4] = [0.3, 0.4, 1.0, 1.0];
        const GUIDE: [f32; 4] = [0.6, 0.65, 0.7, 1.0];
        let half = (self.chains.len() as f32) * CHAIN_SPACING * 0.5;
        frame.line(Vec3::new(-half, 0.0, 0.0), Vec3::new(half, 0.0, 0.0), GUIDE);
        for c in &self.chains {
            for j in 1..c.skeleton.len() {
                let parent = c.skeleton.parent(j).unwrap_or(0);
                frame.line(
                    c.models[parent].w_axis.truncate(),
                    c.models[j].w_axis.truncate(),
                    BONE,
                );
            }
            for m in &c.models {
                frame.point(m.w_axis.truncate(), JOINT);
            }
            let reached = matches!(c.outcome, Some(Outcome::Solved { reached: true, .. }));
            let target = c.base + self.target;
            let colour = if reached { REACHED } else { MISSED };
            cross(frame, target, 0.15, colour);
            frame.line(c.end_position(), target, colour);
            let uses_pole = c.solver == Solver::TwoBonePole
                || (c.solver == Solver::Fabrik && self.params.fabrik_pole);
            if uses_pole {
                cross(frame, c.base + self.pole, 0.1, POLE);
            }
            if self.params.show_reach {
                circle(frame, c.base, c.reach(), GUIDE);
            }
        }
    }

    /// The parameter panel and live results.
    pub fn panel(&mut self, ui: &mut egui::Ui) -> bool {
        let mut reset = false;
        let p = &mut self.params;
        ui.heading("IK lab");
        ui.label("Left drag: target · wheel: depth · right drag: pole · R: reset · Esc: quit");
        ui.label(format!(
            "target ({:.2}, {:.2}, {:.2})  pole ({:.2}, {:.2}, {:.2})",
            self.target.x, self.target.y, self.target.z, self.pole.x, self.pole.y, self.pole.z
        ));
        ui.checkbox(&mut p.show_reach, "show reach circles");
        ui.checkbox(&mut p.from_rest, "solve from the rest pose each frame");
        if ui.button("reset (R)").clicked() {
            reset = true;
        }
        ui.separator();
        ui.strong("results");
        egui::Grid::new("results").striped(true).show(ui, |ui| {
            ui.label("chain");
            ui.label("reached");
            ui.label("residual m");
            ui.label("iters");
            ui.end_row();
            for c in &self.chains {
                ui.label(c.solver.short());
                match &c.outcome {
                    Some(Outcome::Solved {
                        reached,
                        residual,
                        iterations,
                    }) => {
                        ui.label(if *reached { "yes" } else { "no" });
                        ui.label(format!("{residual:.4}"));
                        ui.label(iterations.map_or("-".into(), |i| i.to_string()));
                    }
                    Some(Outcome::Refused(why)) => {
                        ui.colored_label(egui::Color32::RED, "refused");
                        ui.label(why.as_str());
                        ui.label("");
                    }
                    None => {
                        ui.label("-");
                        ui.label("-");
                        ui.label("-");
                    }
                }
                ui.end_row();
            }
        });
        ui.separator();
        ui.strong("two-bone");
        ui.add(egui::Slider::new(&mut p.soften, 0.5..=1.0).text("soften"));
        ui.add(egui::Slider::new(&mut p.weight, 0.0..=1.0).text("weight"));
        ui.checkbox(&mut p.hinge_on, "knee hinge");
        ui.add_enabled(
            p.hinge_on,
            egui::Slider::new(&mut p.hinge_min, -3.1..=0.0).text("hinge min"),
        );
        ui.add_enabled(
            p.hinge_on,
            egui::Slider::new(&mut p.hinge_max, 0.0..=3.1).text("hinge max"),
        );
        ui.add(egui::Slider::new(&mut p.pole_twist, -3.1..=3.1).text("pole twist"));
        ui.separator();
        ui.strong("CCD");
        ui.add(egui::Slider::new(&mut p.ccd_iterations, 1..=64).text("iterations"));
        ui.add(
            egui::Slider::new(&mut p.ccd_max_step, 0.05..=std::f32::consts::PI)
                .text("damping (max step)"),
        );
        ui.add(
            egui::Slider::new(&mut p.ccd_tolerance, 0.001..=0.1)
                .logarithmic(true)
                .text("tolerance"),
        );
        ui.horizontal(|ui| {
            ui.radio_value(&mut p.ccd_limit, CcdLimitKind::Free, "free");
            ui.radio_value(&mut p.ccd_limit, CcdLimitKind::Hinge, "hinge");
            ui.radio_value(&mut p.ccd_limit, CcdLimitKind::Cone, "cone");
        });
        ui.add(egui::Slider::new(&mut p.ccd_angle, 0.05..=3.1).text("hinge ± / swing"));
        ui.add_enabled(
            p.ccd_limit == CcdLimitKind::Cone,
            egui::Slider::new(&mut p.ccd_twist, 0.0..=3.1).text("twist ±"),
        );
        ui.separator();
        ui.strong("FABRIK");
        ui.add(egui::Slider::new(&mut p.fabrik_iterations, 1..=64).text("iterations"));
        ui.add(
            egui::Slider::new(&mut p.fabrik_tolerance, 0.001..=0.1)
                .logarithmic(true)
                .text("tolerance"),
        );
        ui.add(egui::Slider::new(&mut p.fabrik_cone, 0.05..=3.1).text("cone"));
        ui.checkbox(&mut p.fabrik_pole, "bend toward the pole");
        reset
    }
}

/// A three-axis cross of half size `r`.
fn cross(frame: &mut Frame, p: Vec3, r: f32, colour: [f32; 4]) {
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        frame.line(p - axis * r, p + axis * r, colour);
    }
}

/// A circle of radius `r` about `c` in the plane z = c.z.
fn circle(frame: &mut Frame, c: Vec3, r: f32, colour: [f32; 4]) {
    let at = |k: usize| {
        let a = k as f32 / CIRCLE_SEGMENTS as f32 * std::f32::consts::TAU;
        c + Vec3::new(a.cos(), a.sin(), 0.0) * r
    };
    for k in 0..CIRCLE_SEGMENTS {
        frame.line(at(k), at(k + 1), colour);
    }
}

/// The lab's camera: a side view of all chains, their reach included.
/// The view is shifted so that the chains centre in the part of a `size`
/// viewport right of a `panel_px` wide panel.
pub fn lab_camera(size: (u32, u32), panel_px: f32) -> Camera {
    let camera = Camera::side_view(Vec3::new(0.0, 0.8, 0.0), CAMERA_DISTANCE);
    let view_height = match camera.projection {
        Projection::Perspective { fov_y } => 2.0 * CAMERA_DISTANCE * (fov_y * 0.5).tan(),
        Projection::Orthographic { height } => height,
    };
    let metres_per_px = view_height / size.1.max(1) as f32;
    let shift = Vec3::X * panel_px.max(0.0) * 0.5 * metres_per_px;
    Camera {
        position: camera.position - shift,
        target: camera.target - shift,
        ..camera
    }
}

/// The lab's lighting: no shadows (there is nothing to cast them but lines).
fn lab_lighting() -> Lighting {
    Lighting {
        clear_color: Vec3::new(0.02, 0.025, 0.035),
        shadow: None,
        ..Lighting::default()
    }
}

struct Running {
    window: Arc<Window>,
    gpu: Gpu,
    surface: SurfaceTarget,
    renderer: Renderer,
    frame: Frame,
    egui: EguiLayer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Drag {
    None,
    Target,
    Pole,
}

struct LabApp {
    args: IkLabArgs,
    lab: Lab,
    running: Option<Running>,
    pacer: FramePacer,
    frames: u64,
    /// Esc was pressed with `--screenshot-on-exit`: the next frame is saved,
    /// then the program quits.
    quit_after_screenshot: bool,
    cursor: Vec2,
    /// The camera of the last frame drawn (the one the cursor ray uses).
    camera: Camera,
    drag: Drag,
    error: Option<anyhow::Error>,
}

impl LabApp {
    fn start(&mut self, el: &ActiveEventLoop) -> Result<()> {
        let (w, h) = self.args.window_size.unwrap_or(WINDOW_SIZE);
        let attrs = Window::default_attributes()
            .with_title("Ironstep IK lab")
            .with_inner_size(PhysicalSize::new(w, h));
        let window = Arc::new(el.create_window(attrs).context("opening the window")?);
        let size = window.inner_size();
        let (gpu, surface) = SurfaceTarget::create(
            Box::new(el.owned_display_handle()),
            window.clone(),
            (size.width, size.height),
        )
        .context("starting the GPU for the window")?;
        let renderer = Renderer::new(gpu.clone(), surface.format());
        let egui = EguiLayer::new(&window, renderer.device(), renderer.color_format());
        eprintln!("ironstep ik-lab: rendering with {}", gpu.describe());
        window.request_redraw();
        self.running = Some(Running {
            window,
            gpu,
            surface,
            renderer,
            frame: Frame::new(),
            egui,
        });
        Ok(())
    }

    /// Moves whatever is being dragged to the cursor.
    fn drag_to_cursor(&mut self) {
        let Some(r) = self.running.as_ref() else {
            return;
        };
        let depth = match self.drag {
            Drag::None => return,
            Drag::Target => self.lab.target.z,
            Drag::Pole => self.lab.pole.z,
        };
        let Some(hit) = cursor_ray(&self.camera, r.surface.size(), self.cursor)
            .and_then(|ray| ray_plane_z(ray, depth))
        else {
            return;
        };
        match self.drag {
            Drag::Target => self.lab.drag_target(hit),
            Drag::Pole => self.lab.drag_pole(hit),
            Drag::None => {}
        }
    }

    fn event(&mut self, el: &ActiveEventLoop, event: &WindowEvent) -> Result<()> {
        if let Some(r) = self.running.as_mut()
            && r.egui.on_window_event(&r.window, event)
            && self.drag == Drag::None
        {
            return Ok(());
        }
        match event {
            WindowEvent::CloseRequested => el.exit(),
            WindowEvent::Resized(size) => {
                if let Some(r) = self.running.as_mut() {
                    r.surface.resize(&r.gpu, (size.width, size.height));
                }
            }
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                match event.physical_key {
                    PhysicalKey::Code(KeyCode::Escape) if self.args.screenshot_on_exit => {
                        self.quit_after_screenshot = true;
                    }
                    PhysicalKey::Code(KeyCode::Escape) => el.exit(),
                    PhysicalKey::Code(KeyCode::KeyR) if !event.repeat => self.lab.reset(),
                    _ => {}
                }
            }
            WindowEvent::CursorMoved { position, .. } => {
                self.cursor = Vec2::new(position.x as f32, position.y as f32);
                self.drag_to_cursor();
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let over_ui = self
                    .running
                    .as_ref()
                    .is_some_and(|r| r.egui.wants_pointer());
                self.drag = match (state, button) {
                    (ElementState::Pressed, MouseButton::Left) if !over_ui => Drag::Target,
                    (ElementState::Pressed, MouseButton::Right) if !over_ui => Drag::Pole,
                    (ElementState::Released, _) => Drag::None,
                    _ => self.drag,
                };
                self.drag_to_cursor();
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let notches = match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / PIXELS_PER_NOTCH,
                };
                self.lab.push_target(notches * WHEEL_STEP);
            }
            WindowEvent::RedrawRequested => self.redraw(el)?,
            _ => {}
        }
        Ok(())
    }

    fn redraw(&mut self, el: &ActiveEventLoop) -> Result<()> {
        let Some(r) = self.running.as_mut() else {
            return Ok(());
        };
        if let Some(path) = self.args.target_path {
            self.lab.target = path.at(self.frames + 1);
        }
        self.lab.solve();
        r.frame.clear();
        self.lab.draw(&mut r.frame);
        let size = r.surface.size();
        let camera = lab_camera(size, PANEL_WIDTH * r.window.scale_factor() as f32);
        self.camera = camera;
        let light = lab_lighting();
        let lab = &mut self.lab;
        let mut reset = false;
        r.egui.run(&r.window, |ui| {
            egui::Panel::left("ik lab panel")
                .exact_size(PANEL_WIDTH)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| reset = lab.panel(ui));
                });
            // Name each chain under its base, in screen space.
            let painter = ui.ctx().layer_painter(egui::LayerId::background());
            let ppp = ui.ctx().pixels_per_point();
            for c in &lab.chains {
                if let Some(px) = world_to_screen(&camera, size, c.base - Vec3::Y * 0.25) {
                    painter.text(
                        egui::pos2(px.x / ppp, px.y / ppp),
                        egui::Align2::CENTER_TOP,
                        c.solver.short(),
                        egui::FontId::proportional(14.0),
                        egui::Color32::from_gray(230),
                    );
                }
            }
        });
        if reset {
            self.lab.reset();
        }
        if let Some(tex) = r.surface.acquire(&r.gpu)? {
            let view = tex.texture.create_view(&Default::default());
            r.renderer
                .render(&mut r.frame, &camera, &light, &view, size)?;
            r.egui
                .paint(r.renderer.device(), r.renderer.queue(), &view, size);
            r.window.pre_present_notify();
            r.surface.present(&r.gpu, tex);
            self.frames += 1;
            if self.args.screenshot_at.contains(&self.frames) || self.quit_after_screenshot {
                let target = OffscreenTarget::new(&r.renderer, size.0, size.1);
                r.renderer
                    .render(&mut r.frame, &camera, &light, target.view(), size)?;
                r.egui
                    .paint(r.renderer.device(), r.renderer.queue(), target.view(), size);
                let path = self
                    .args
                    .screenshot_dir
                    .join(format!("ik_lab_{:05}.png", self.frames));
                target.save_png(&mut r.renderer, &path)?;
                let t = self.lab.target;
                println!(
                    "screenshot {} target {:.3} {:.3} {:.3}",
                    path.display(),
                    t.x,
                    t.y,
                    t.z
                );
                for c in &self.lab.chains {
                    println!("  {}: {:?}", c.solver.label(), c.outcome);
                }
            }
        }
        if self.quit_after_screenshot || self.args.exit_after.is_some_and(|n| self.frames >= n) {
            el.exit();
        }
        Ok(())
    }
}

impl ApplicationHandler for LabApp {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.running.is_none()
            && let Err(e) = self.start(el)
        {
            self.error = Some(e);
            el.exit();
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if let Err(e) = self.event(el, &event) {
            self.error = Some(e);
            el.exit();
        }
    }

    fn about_to_wait(&mut self, el: &ActiveEventLoop) {
        let (deadline, _) = self.pacer.next_deadline(Instant::now());
        el.set_control_flow(ControlFlow::WaitUntil(deadline));
        if let Some(r) = self.running.as_ref() {
            r.window.request_redraw();
        }
    }
}

/// Runs the IK lab in a window until the user quits.
pub fn run(args: IkLabArgs) -> Result<()> {
    if args.screenshot_at.contains(&0) {
        bail!("--screenshot-at counts frames from 1");
    }
    if !args.screenshot_at.is_empty() {
        std::fs::create_dir_all(&args.screenshot_dir).with_context(|| {
            format!(
                "{}: cannot create the screenshot directory",
                args.screenshot_dir.display()
            )
        })?;
    }
    let lab = Lab::new().context("building the lab's chains")?;
    let event_loop = EventLoop::new().map_err(|e| {
        anyhow!("cannot open a window: {e} (no display? run under a desktop session or `xvfb-run -a ironstep ik-lab`)")
    })?;
    let mut app = LabApp {
        args,
        lab,
        running: None,
        pacer: FramePacer::new(TARGET_FPS),
        frames: 0,
        quit_after_screenshot: false,
        cursor: Vec2::ZERO,
        camera: lab_camera(WINDOW_SIZE, 0.0),
        drag: Drag::None,
        error: None,
    };
    event_loop
        .run_app(&mut app)
        .context("running the window's event loop")?;
    match app.error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn size() -> (u32, u32) {
        (1280, 720)
    }

    #[test]
    fn centre_pixel_ray_hits_the_camera_focus() {
        let cam = lab_camera(size(), 0.0);
        let ray = cursor_ray(&cam, size(), Vec2::new(640.0, 360.0)).unwrap();
        let hit = ray_plane_z(ray, 0.0).unwrap();
        assert!((hit - cam.target).length() < 1e-3, "{hit}");
    }

    #[test]
    fn empty_viewport_gives_no_ray() {
        assert!(cursor_ray(&lab_camera(size(), 0.0), (0, 10), Vec2::ZERO).is_none());
        assert!(cursor_ray(&lab_camera(size(), 0.0), size(), Vec2::NAN).is_none());
    }

    #[test]
    fn ray_parallel_to_the_plane_misses_it() {
        let ray = Ray {
            origin: Vec3::new(0.0, 0.0, 1.0),
            dir: Vec3::X,
        };
        assert_eq!(ray_plane_z(ray, 0.0), None);
    }

    proptest! {
        #[test]
        fn cursor_ray_lands_on_the_point_drawn_under_the_cursor(
            x in -6.0f32..6.0, y in -2.0f32..3.0, z in -2.0f32..2.0,
        ) {
            let cam = lab_camera(size(), 0.0);
            let p = Vec3::new(x, y, z);
            let px = world_to_screen(&cam, size(), p).unwrap();
            let hit = ray_plane_z(cursor_ray(&cam, size(), px).unwrap(), z).unwrap();
            prop_assert!((hit - p).length() < 2e-3, "{hit} vs {p}");
        }
    }

    #[test]
    fn built_chain_has_its_bone_lengths_and_base() {
        let base = Vec3::new(1.0, 2.0, 0.0);
        let (s, _, models) = build_chain("c", base, &[0.5, 0.7, 0.3], 0.3).unwrap();
        assert_eq!(s.len(), 4);
        assert!((models[0].w_axis.truncate() - base).length() < 1e-6);
        for (k, want) in [0.5, 0.7, 0.3].iter().enumerate() {
            let a = models[k].w_axis.truncate();
            let b = models[k + 1].w_axis.truncate();
            assert!(((a - b).length() - want).abs() < 1e-5);
        }
    }

    #[test]
    fn bad_bone_length_names_the_chain_and_bone() {
        let err = build_chain("tail", Vec3::ZERO, &[0.5, f32::NAN], 0.1).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("tail") && msg.contains("bone 1"), "{msg}");
        assert!(build_chain("t", Vec3::ZERO, &[0.0], 0.1).is_err());
    }

    fn residuals(lab: &Lab) -> Vec<(Solver, bool, f32)> {
        lab.chains
            .iter()
            .map(|c| match &c.outcome {
                Some(Outcome::Solved {
                    reached, residual, ..
                }) => (c.solver, *reached, *residual),
                other => panic!("{:?}: {other:?}", c.solver),
            })
            .collect()
    }

    #[test]
    fn every_chain_reaches_a_reachable_target_in_one_frame() {
        let mut lab = Lab::new().unwrap();
        for target in [
            DEFAULT_TARGET,
            Vec3::new(-0.9, 1.1, 0.0),
            Vec3::new(0.3, 1.6, 0.0),
            Vec3::new(1.2, -0.5, 0.0),
        ] {
            lab.target = target;
            lab.solve();
            for c in &lab.chains {
                let want = c.base + target;
                let got = c.end_position();
                assert!(
                    (got - want).length() < 0.01,
                    "{:?} toward {target}: end {got}, outcome {:?}",
                    c.solver,
                    c.outcome
                );
            }
            assert!(residuals(&lab).iter().all(|r| r.1), "{:?}", residuals(&lab));
        }
    }

    #[test]
    fn ccd_hinges_stay_in_the_plane_and_cones_leave_it() {
        let mut lab = Lab::new().unwrap();
        lab.target = Vec3::new(0.3, 1.6, 0.4);
        lab.solve();
        let ccd = &lab.chains[3];
        assert_eq!(ccd.solver, Solver::Ccd);
        // Hinges about Z cannot leave z = 0: the depth is the residual.
        assert!(ccd.models.iter().all(|m| m.w_axis.z.abs() < 1e-5));
        assert!(matches!(
            ccd.outcome,
            Some(Outcome::Solved { reached: false, .. })
        ));
        lab.params.ccd_limit = CcdLimitKind::Cone;
        lab.solve();
        let ccd = &lab.chains[3];
        assert!(
            matches!(ccd.outcome, Some(Outcome::Solved { reached: true, .. })),
            "{:?}",
            ccd.outcome
        );
        assert!((ccd.end_position() - (ccd.base + lab.target)).length() < 0.01);
    }

    #[test]
    fn pose_preserving_chain_has_no_memory_of_past_targets() {
        let mut walked = Lab::new().unwrap();
        for frame in 0..90 {
            walked.target = TargetPath::Figure8.at(frame);
            walked.solve();
        }
        let mut fresh = Lab::new().unwrap();
        fresh.target = walked.target;
        fresh.solve();
        let k = Solver::ALL
            .iter()
            .position(|&s| s == Solver::TwoBonePosePreserving)
            .unwrap();
        for (a, b) in walked.chains[k].models.iter().zip(&fresh.chains[k].models) {
            assert!(a.abs_diff_eq(*b, 1e-5), "{a} vs {b}");
        }
    }

    #[test]
    fn unreachable_target_reports_its_residual() {
        let mut lab = Lab::new().unwrap();
        lab.target = Vec3::new(0.0, 3.0, 0.0);
        lab.solve();
        for (solver, reached, residual) in residuals(&lab) {
            assert!(!reached, "{solver:?}");
            // Fully stretched toward it: 3 m away, 2 m of reach.
            assert!((residual - 1.0).abs() < 0.05, "{solver:?}: {residual}");
        }
    }

    #[test]
    fn bad_hinge_range_is_reported_not_panicked() {
        let mut lab = Lab::new().unwrap();
        lab.params.hinge_min = 1.0;
        lab.params.hinge_max = -1.0;
        lab.solve();
        assert!(matches!(lab.chains[0].outcome, Some(Outcome::Refused(_))));
        assert!(
            lab.chains
                .iter()
                .flat_map(|c| &c.models)
                .all(|m| m.is_finite())
        );
    }

    #[test]
    fn dragged_point_becomes_the_target_relative_to_the_nearest_chain() {
        let mut lab = Lab::new().unwrap();
        let base = lab.chains[3].base;
        lab.drag_target(base + Vec3::new(0.4, 1.0, 0.0));
        assert!((lab.target - Vec3::new(0.4, 1.0, 0.0)).length() < 1e-5);
        lab.push_target(100.0);
        assert_eq!(lab.target.z, MAX_DEPTH);
    }

    #[test]
    fn scripted_paths_move_the_target() {
        for path in [TargetPath::Circle, TargetPath::Figure8] {
            assert_ne!(path.at(1), path.at(30));
            assert_eq!(path.at(5), path.at(5 + PATH_PERIOD_FRAMES as u64));
        }
    }
}

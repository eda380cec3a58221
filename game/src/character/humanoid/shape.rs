//! Mapping a humanoid by its shape in the rest pose, where names say nothing
//! or mislead.
//!
//! - The **up axis** is the first of +Y, +Z, −Y, −Z, +X, −X along which legs
//!   are found (below).
//! - The **pelvis** is the first joint (parents before children) under which
//!   two mirror-image chains of at least three joints go down to the lowest
//!   skinned vertices: each chain starts at least [`HIP_MIN_HEIGHT`] of the
//!   standing height above the floor, ends within [`FOOT_MAX_HEIGHT`] of it,
//!   runs within [`LEG_MAX_TILT_DEG`] of straight down, and the two chains'
//!   feet lie on opposite sides of the pelvis.
//! - The **arms** are the two mirror-image chains of at least three joints,
//!   hanging off one joint of the upper body (at least [`ARM_BASE_RISE`] of
//!   the height above the pelvis, more above it than beside it) and outside
//!   the legs, whose ends reach furthest sideways (at least
//!   [`ARM_MIN_REACH`] of the height). An arm chain runs from its base
//!   into the child whose subtree reaches furthest from the base (the hand
//!   rather than a shield hung on the forearm).
//! - Within a chain, the limb's three joints are the two consecutive
//!   segments whose shorter one is longest (thigh and shin, upper arm and
//!   forearm; a clavicle, a hip offset or a hand is shorter).
//!
//! Helper and control joints (see `names::HELPER_WORDS`) are never part of a
//! chain, but a chain may pass below one (Kenney's `Hips` hangs off
//! `HipsCtrl`).

use animation::{Skeleton, local_to_model, palette, skin};
use glam::{Mat4, Vec3};

use super::names;

/// The lowest a hip may sit above the floor, as a share of the standing
/// height (a foot controller chain on the floor is no leg; real hips sit
/// near half the height).
pub const HIP_MIN_HEIGHT: f32 = 0.3;
/// The highest a leg chain's lowest joint may end above the floor, as a
/// share of the standing height (ankles sit within a tenth of it).
pub const FOOT_MAX_HEIGHT: f32 = 0.15;
/// The largest angle between a leg chain (top to lowest joint) and straight
/// down, degrees: legs stand, so a chain lying along another axis reveals
/// that axis is not up.
pub const LEG_MAX_TILT_DEG: f32 = 35.0;
/// The least sideways reach of an arm's end from the body's centre, as a
/// share of the standing height (hands hanging at the sides reach about a
/// sixth; a T-pose a third and more).
pub const ARM_MIN_REACH: f32 = 0.1;

/// The least height of the joint the arms hang off above the pelvis, as a
/// share of the standing height (a chest sits a quarter of it above).
pub const ARM_BASE_RISE: f32 = 0.12;

/// The axes tried as up, in this order.
pub const UP_CANDIDATES: [Vec3; 6] = [
    Vec3::Y,
    Vec3::Z,
    Vec3::NEG_Y,
    Vec3::NEG_Z,
    Vec3::X,
    Vec3::NEG_X,
];

/// One mesh's positions, joints and weights per vertex, in its skeleton's
/// bind space.
pub type MeshView<'m> = (&'m [Vec3], &'m [[u16; 4]], &'m [[f32; 4]]);

/// A skeleton at rest with the skinned vertices it places.
pub struct Body<'a> {
    /// The skeleton.
    pub skeleton: &'a Skeleton,
    /// Rest model matrices.
    pub models: Vec<Mat4>,
    /// Children per joint.
    pub children: Vec<Vec<usize>>,
    /// Whether each joint is a helper or control joint by name.
    pub helper: Vec<bool>,
    /// Rest skinned vertices and the joint of each one's largest weight.
    pub vertices: Vec<(Vec3, usize)>,
}

/// The two legs and the pelvis the shape shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Legs {
    /// The pelvis joint.
    pub pelvis: usize,
    /// The two chains, each from the pelvis' child down its lowest path.
    pub chains: [Vec<usize>; 2],
    /// The up axis they stand along.
    pub up: Vec3,
    /// Lowest and highest skinned vertex along `up`.
    pub floor: f32,
    /// Standing height: highest minus lowest skinned vertex along `up`.
    pub height: f32,
}

/// The two arms the shape shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Arms {
    /// The joint they hang off.
    pub base: usize,
    /// The two chains, each from the base's child out its furthest path.
    pub chains: [Vec<usize>; 2],
}

impl<'a> Body<'a> {
    /// The rest pose of `skeleton` and `meshes` (positions, joints and weights
    /// per vertex, in the skeleton's bind space) skinned by it.
    pub fn new(skeleton: &'a Skeleton, meshes: &[MeshView<'_>]) -> Self {
        let n = skeleton.len();
        let mut models = vec![Mat4::IDENTITY; n];
        local_to_model(skeleton, skeleton.rest_locals(), &mut models);
        let mut pal = vec![Mat4::IDENTITY; n];
        let mut vertices = Vec::new();
        if palette(&models, skeleton.inverse_bind(), &mut pal).is_ok() {
            for (pos, joints, weights) in meshes {
                let mut out = vec![Vec3::ZERO; pos.len()];
                if skin(&pal, pos, &[], joints, weights, &mut out, &mut []).is_ok() {
                    for ((p, js), ws) in out.iter().zip(joints.iter()).zip(weights.iter()) {
                        let top = (0..4).max_by(|&a, &b| ws[a].total_cmp(&ws[b])).unwrap_or(0);
                        let j = usize::from(js[top]);
                        if p.is_finite() && j < n {
                            vertices.push((*p, j));
                        }
                    }
                }
            }
        }
        let mut children = vec![Vec::new(); n];
        for j in 0..n {
            if let Some(p) = skeleton.parent(j) {
                children[p].push(j);
            }
        }
        let helper = (0..n).map(|j| names::is_helper(skeleton.name(j))).collect();
        Self {
            skeleton,
            models,
            children,
            helper,
            vertices,
        }
    }

    /// A joint's rest position.
    pub fn pos(&self, j: usize) -> Vec3 {
        self.models[j].w_axis.truncate()
    }

    /// Non-helper joints at or below `j` (helpers passed through).
    fn limb_children(&self, j: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for &c in &self.children[j] {
            if self.helper[c] {
                continue;
            }
            out.push(c);
        }
        out
    }

    /// The best value of `key` over the non-helper joints of `j`'s subtree.
    fn subtree_best(&self, j: usize, key: &dyn Fn(usize) -> f32) -> f32 {
        let mut best = key(j);
        for c in self.limb_children(j) {
            best = best.max(self.subtree_best(c, key));
        }
        best
    }

    /// The chain from `j` down, at each joint into the child whose subtree
    /// scores highest by `key`.
    fn chain(&self, j: usize, key: &dyn Fn(usize) -> f32) -> Vec<usize> {
        let mut out = vec![j];
        let mut cur = j;
        loop {
            let next = self
                .limb_children(cur)
                .into_iter()
                .map(|c| (c, self.subtree_best(c, key)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            match next {
                Some((c, _)) => {
                    out.push(c);
                    cur = c;
                }
                None => return out,
            }
        }
    }

    /// Lowest and highest vertex along `up` (joints when there are no
    /// vertices).
    pub fn extent(&self, up: Vec3) -> (f32, f32) {
        let mut lo = f32::INFINITY;
        let mut hi = f32::NEG_INFINITY;
        let pts: Vec<Vec3> = if self.vertices.is_empty() {
            (0..self.models.len()).map(|j| self.pos(j)).collect()
        } else {
            self.vertices.iter().map(|v| v.0).collect()
        };
        for p in pts {
            lo = lo.min(p.dot(up));
            hi = hi.max(p.dot(up));
        }
        (lo, hi)
    }

    /// The legs standing along `up`, if any (see the module documentation).
    pub fn legs_along(&self, up: Vec3) -> Option<Legs> {
        let (floor, top) = self.extent(up);
        let height = top - floor;
        if !(height.is_finite() && height > 0.0) {
            return None;
        }
        let h = |j: usize| (self.pos(j).dot(up) - floor) / height;
        let low = |j: usize| -h(j);
        let max_tilt = LEG_MAX_TILT_DEG.to_radians().cos();
        for p in 0..self.models.len() {
            if self.helper[p] {
                continue;
            }
            let legs: Vec<Vec<usize>> = self
                .limb_children(p)
                .into_iter()
                .map(|c| self.chain(c, &low))
                .filter(|chain| {
                    let bottom = *chain
                        .iter()
                        .min_by(|&&a, &&b| h(a).total_cmp(&h(b)))
                        .expect("chains are never empty");
                    let drop = self.pos(bottom) - self.pos(chain[0]);
                    chain.len() >= 3
                        && h(chain[0]) >= HIP_MIN_HEIGHT
                        && h(chain[0]) <= h(p) + 0.1
                        && h(bottom) <= FOOT_MAX_HEIGHT
                        && drop.length() > 0.0
                        && drop.normalize().dot(-up) >= max_tilt
                })
                .collect();
            let side = |chain: &Vec<usize>| {
                let foot = chain[chain.len().min(3) - 1];
                let d = self.pos(foot) - self.pos(p);
                d - up * d.dot(up)
            };
            let mut best: Option<(f32, usize, usize)> = None;
            for a in 0..legs.len() {
                for b in a + 1..legs.len() {
                    // Mirror images: along the line between the feet, the
                    // two lie about as far on either side of the pelvis,
                    // and their hips stand at about one height.
                    let (sa, sb) = (side(&legs[a]), side(&legs[b]));
                    let across = sa - sb;
                    if across.length() < 0.03 * height {
                        continue;
                    }
                    let l = across.normalize();
                    let (da, db) = (sa.dot(l), sb.dot(l));
                    let off = (da + db).abs() / (da - db);
                    let level = (h(legs[a][0]) - h(legs[b][0])).abs();
                    if off < 0.3 && level < 0.05 && best.is_none_or(|x| off < x.0) {
                        best = Some((off, a, b));
                    }
                }
            }
            if let Some((_, a, b)) = best {
                return Some(Legs {
                    pelvis: p,
                    chains: [legs[a].clone(), legs[b].clone()],
                    up,
                    floor,
                    height,
                });
            }
        }
        None
    }

    /// The legs along the first up axis that has them.
    pub fn legs(&self) -> Option<Legs> {
        UP_CANDIDATES.iter().find_map(|&up| self.legs_along(up))
    }

    /// The arms of a body whose legs are `legs`, with `left` the character's
    /// left (see the module documentation).
    pub fn arms(&self, legs: &Legs, left: Vec3) -> Option<Arms> {
        let up = legs.up;
        let centre = self.pos(legs.pelvis);
        let in_legs = |j: usize| {
            legs.chains
                .iter()
                .any(|c| j == c[0] || self.skeleton.is_descendant_of(j, c[0]))
        };
        let lateral = |j: usize| (self.pos(j) - centre).dot(left);
        let reach = |j: usize| lateral(j).abs();
        let h = |j: usize| (self.pos(j).dot(up) - legs.floor) / legs.height;
        let mut best: Option<(f32, Arms)> = None;
        for s in 0..self.models.len() {
            // Arms hang off the upper body: a joint at least
            // [`ARM_BASE_RISE`] above the pelvis and more above it than
            // beside it (a quadruped's front legs hang off a chest as low
            // as its pelvis and a body length ahead).
            let rise = (self.pos(s) - centre).dot(up);
            let aside = ((self.pos(s) - centre) - up * rise).length();
            if self.helper[s] || in_legs(s) || rise < ARM_BASE_RISE * legs.height || aside > rise {
                continue;
            }
            let chains: Vec<Vec<usize>> = self
                .limb_children(s)
                .into_iter()
                .filter(|&c| !in_legs(c))
                .map(|c| {
                    // Down the arm: into the child whose subtree reaches
                    // furthest from the arm's base (the hand, not a shield
                    // hung on the forearm).
                    let from = self.pos(s);
                    self.chain(c, &|j: usize| (self.pos(j) - from).length())
                })
                .filter(|c| {
                    let end = *c.last().expect("chains are never empty");
                    c.len() >= 3 && reach(end) >= ARM_MIN_REACH * legs.height && h(c[0]) >= 0.5
                })
                .collect();
            for a in 0..chains.len() {
                for b in a + 1..chains.len() {
                    let (ea, eb) = (
                        *chains[a].last().expect("non-empty"),
                        *chains[b].last().expect("non-empty"),
                    );
                    if lateral(ea) * lateral(eb) >= 0.0 {
                        continue;
                    }
                    let score = reach(ea) + reach(eb);
                    if best.as_ref().is_none_or(|x| score > x.0) {
                        let pair = if lateral(ea) > 0.0 { [a, b] } else { [b, a] };
                        best = Some((
                            score,
                            Arms {
                                base: s,
                                chains: pair.map(|i| chains[i].clone()),
                            },
                        ));
                    }
                }
            }
        }
        best.map(|b| b.1)
    }

    /// The index `i` in `chain` where the two consecutive segments
    /// `chain[i]→chain[i+1]→chain[i+2]` have the longest shorter one.
    pub fn limb_start(&self, chain: &[usize]) -> usize {
        let seg = |k: usize| (self.pos(chain[k + 1]) - self.pos(chain[k])).length();
        // Reversed, so that of equals the topmost wins.
        (0..chain.len().saturating_sub(2))
            .rev()
            .max_by(|&a, &b| seg(a).min(seg(a + 1)).total_cmp(&seg(b).min(seg(b + 1))))
            .unwrap_or(0)
    }
}

//! Inverse kinematics: solvers that correct a sampled pose so that hands and
//! feet reach targets in model space.
//!
//! Every solver follows the same contract: it reads model-space matrices of the
//! pose, writes corrected *local* rotations back into the pose, and
//! re-propagates the touched chain and its descendants (parent joint first,
//! children follow), so the model matrices stay consistent with the locals.
//! Invalid input (NaN or infinite targets, joints out of range) returns an
//! [`IkError`] and leaves the pose untouched.

pub mod aim;
pub mod batched;
pub mod batched_core;
pub mod ccd;
pub mod chain;
pub mod fabrik;
pub mod limits;
pub mod math;
pub mod two_bone;

pub use aim::{AimIk, AimResult};
pub use batched::{LANES, TwoBoneBatch, TwoBoneBatchOut, solve_batch};
pub use batched_core::{TwoBoneCoreInput, solve_core_batch};
pub use ccd::{CcdIk, IterativeResult, JointLimit};
pub use chain::{Chain, MAX_CHAIN_JOINTS};
pub use fabrik::FabrikIk;
pub use limits::{ConeLimit, HingeLimit};
pub use two_bone::{
    KneeStrategy, Pole, TwoBoneChain, TwoBoneCorrection, TwoBoneIk, TwoBoneOptions, TwoBoneResult,
    TwoBoneSolution, solve_core, solve_model_space, solve_points,
};

use thiserror::Error;

/// Why an IK solve was refused. The pose is left untouched in every case.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum IkError {
    /// A target, pole, weight or matrix holds NaN or infinity.
    #[error("IK input '{what}' is not finite")]
    NonFinite {
        /// Which input was not finite.
        what: &'static str,
    },
    /// A joint index is outside the skeleton.
    #[error("joint {joint} is out of range for a skeleton of {len} joints")]
    JointOutOfRange {
        /// The offending index.
        joint: usize,
        /// The skeleton's joint count.
        len: usize,
    },
    /// The joints given do not form a parent-to-child chain.
    #[error("joint {joint} is not a descendant of joint {ancestor}")]
    NotAChain {
        /// The expected ancestor.
        ancestor: usize,
        /// The joint that does not lie below it.
        joint: usize,
    },
    /// A parameter is outside its documented range.
    #[error("IK parameter '{what}' is invalid: {reason}")]
    InvalidParameter {
        /// Which parameter.
        what: &'static str,
        /// Why it was refused.
        reason: &'static str,
    },
}

#[cfg(test)]
mod iterative_tests;
#[cfg(test)]
mod robustness_tests;

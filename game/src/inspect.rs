//! `ironstep inspect`: a model report for artists and riggers.

use std::path::PathBuf;

/// Arguments of `ironstep inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// The glTF model (.glb or .gltf) to inspect.
    pub model: PathBuf,
}

/// Runs the inspect command.
pub fn run(args: &InspectArgs) -> anyhow::Result<()> {
    anyhow::bail!("inspect is not implemented yet: {}", args.model.display())
}

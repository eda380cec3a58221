//! `ironstep rig MODEL [--out FILE.rig.ron] [--json]`: infers a humanoid
//! model's rig (see `character::humanoid`) and prints it as a rig file with
//! one comment line per decision, which `--rig` reads back; editing it is how
//! a wrong guess is corrected. The rig is checked by assembling the
//! character from it, as `play` and `run` would.

use std::path::PathBuf;

use animation::gltf_import;
use anyhow::{Context, Result};
use clap::Args;

use crate::character::humanoid;
use crate::character::model::load_character_inferred;

/// Arguments of `ironstep rig`.
#[derive(Args, Debug, Clone)]
pub struct RigArgs {
    /// The glTF model (.glb, .gltf or .vrm).
    pub model: PathBuf,
    /// Write the rig file here instead of printing it.
    #[arg(long, value_name = "FILE.rig.ron")]
    pub out: Option<PathBuf>,
    /// Print JSON (the rig's fields, the decisions and the warnings) instead
    /// of a rig file.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ironstep rig`.
pub fn run(args: &RigArgs) -> Result<()> {
    let mut model = gltf_import::load(&args.model)?;
    let reattached = humanoid::reattach::feet(&mut model);
    let mut inferred = humanoid::infer_model(&model)?;
    inferred.decisions.splice(0..0, reattached);
    // The rig must assemble a character, as play and run would.
    load_character_inferred(&args.model)?;
    let text = if args.json {
        let doc = serde_json::json!({
            "model": model.source,
            "skin": model.skins[inferred.skin].name,
            "rig": inferred.rig,
            "decisions": inferred.decisions,
            "warnings": inferred.warnings,
        });
        serde_json::to_string_pretty(&doc)? + "\n"
    } else {
        humanoid::to_ron(&model.source, &inferred)
    };
    match &args.out {
        Some(path) => std::fs::write(path, &text)
            .with_context(|| format!("{}: cannot write the rig file", path.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}

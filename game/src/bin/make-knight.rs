//! `make-knight`: generates Ironstep's knight (`assets/knight.glb` and
//! `assets/knight.rig.ron`) and, on request, a preview picture.
//!
//! ```text
//! cargo run -p game --bin make-knight                       # write the assets
//! cargo run -p game --bin make-knight -- --preview out.png --clip walk --times 0,0.26,0.52,0.78
//! ```

use std::path::{Path, PathBuf};

use clap::Parser;
use game::knight::{GLB_PATH, Knight, KnightError, RIG_PATH, clips, preview};

/// Generates the knight asset and its rig file.
#[derive(Parser, Debug)]
#[command(name = "make-knight")]
struct Args {
    /// Repository root the assets are written under.
    #[arg(long, default_value_os_t = default_root())]
    root: PathBuf,
    /// Rung spacing the climb clip is authored for, metres.
    #[arg(long, default_value_t = clips::DEFAULT_RUNG_SPACING)]
    rung_spacing: f32,
    /// Write a preview PNG here instead of the assets.
    #[arg(long)]
    preview: Option<PathBuf>,
    /// Clip to pose the preview with.
    #[arg(long, default_value = "idle")]
    clip: String,
    /// Clip times (seconds, comma separated) for the preview columns; each
    /// time gets a side view, the first also a three-quarter view.
    #[arg(long, value_delimiter = ',', default_value = "0")]
    times: Vec<f32>,
}

fn default_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), KnightError> {
    game::fsio::write_atomic(path, bytes).map_err(|source| KnightError::Io {
        file: path.display().to_string(),
        source,
    })
}

fn run(args: &Args) -> Result<(), KnightError> {
    let knight = Knight::generate(args.rung_spacing)?;
    if let Some(out) = &args.preview {
        let (first, rest) = args.times.split_first().unwrap_or((&0.0, &[]));
        let (w, h, mut rgb) = preview::render(
            &knight,
            &args.clip,
            &[*first],
            &[preview::SIDE, preview::THREE_QUARTER],
        )?;
        let mut width = w;
        if !rest.is_empty() {
            let (w2, _, rgb2) = preview::render(&knight, &args.clip, rest, &[preview::SIDE])?;
            let mut joined = Vec::with_capacity((w + w2) * h * 3);
            for y in 0..h {
                joined.extend_from_slice(&rgb[y * w * 3..(y + 1) * w * 3]);
                joined.extend_from_slice(&rgb2[y * w2 * 3..(y + 1) * w2 * 3]);
            }
            rgb = joined;
            width = w + w2;
        }
        write(out, &preview::encode_png(width, h, &rgb)?)?;
        println!("wrote {}", out.display());
        return Ok(());
    }
    let glb_path = args.root.join(GLB_PATH);
    let glb = knight.glb(&glb_path.display().to_string())?;
    write(&glb_path, &glb)?;
    let rig_path = args.root.join(RIG_PATH);
    write(&rig_path, knight.rig_text().as_bytes())?;
    println!(
        "wrote {} ({} bytes, {} triangles, {} joints, {} clips) and {}",
        glb_path.display(),
        glb.len(),
        knight.mesh.triangle_count(),
        knight.skeleton.len(),
        knight.clips.len(),
        rig_path.display()
    );
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("make-knight: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

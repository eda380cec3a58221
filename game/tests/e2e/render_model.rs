//! End-to-end tests of the real `ironstep render` binary on lavapipe: a
//! third-party model (CesiumMan, textured) and our knight (vertex colours)
//! come out at the requested size, not blank, and framed (the model's
//! silhouette lies inside the picture with a margin and fills a good share
//! of its height); bad input exits non-zero with one line naming the file
//! and the reason.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cesium_man() -> PathBuf {
    repo().join("../shared/assets/third_party/gltf/CesiumMan/CesiumMan.glb")
}

fn out_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn render(args: &[&std::ffi::OsStr]) -> Output {
    let runtime = out_path("xdg-runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .current_dir(repo())
        .env("WGPU_DEBUG", "0")
        .env("XDG_RUNTIME_DIR", &runtime)
        .arg("render")
        .args(args)
        .output()
        .expect("the ironstep binary runs")
}

/// What a picture's pixels say about the model in it.
struct Silhouette {
    width: u32,
    height: u32,
    /// Bounding box of the pixels that differ from the background colour
    /// (the top-left pixel): min x, min y, max x, max y.
    bbox: (u32, u32, u32, u32),
    /// Share of the pixels that are the model's.
    coverage: f64,
    /// Distinct colours among the model's pixels.
    colours: usize,
}

fn silhouette(path: &Path) -> Silhouette {
    let (width, height, rgba) = renderer::read_png_rgba(path).expect("a PNG was written");
    let bg = [rgba[0], rgba[1], rgba[2]];
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    let mut count = 0u64;
    let mut colours = std::collections::HashSet::new();
    for y in 0..height {
        for x in 0..width {
            let i = ((y * width + x) * 4) as usize;
            let p = [rgba[i], rgba[i + 1], rgba[i + 2]];
            let differs = p.iter().zip(bg).any(|(a, b)| a.abs_diff(b) > 8);
            if differs {
                count += 1;
                colours.insert(p);
                x0 = x0.min(x);
                y0 = y0.min(y);
                x1 = x1.max(x);
                y1 = y1.max(y);
            }
        }
    }
    Silhouette {
        width,
        height,
        bbox: (x0, y0, x1, y1),
        coverage: count as f64 / (width * height) as f64,
        colours: colours.len(),
    }
}

/// The model is drawn, inside the picture with a margin, and fills a good
/// share of its height (a standing figure framed automatically).
fn assert_framed(s: &Silhouette, what: &str) {
    let (x0, y0, x1, y1) = s.bbox;
    eprintln!(
        "{what}: {}x{}, silhouette x {x0}..{x1}, y {y0}..{y1}, coverage {:.3}, {} colours",
        s.width, s.height, s.coverage, s.colours
    );
    assert!(s.coverage > 0.03, "{what}: hardly anything drawn");
    assert!(
        s.colours > 50,
        "{what}: flat, not lit: {} colours",
        s.colours
    );
    let margin_x = s.width / 50;
    let margin_y = s.height / 50;
    assert!(
        x0 > margin_x && y0 > margin_y && x1 < s.width - margin_x && y1 < s.height - margin_y,
        "{what}: touches the picture's edge (cropped)"
    );
    let tall = (y1 - y0) as f64 / s.height as f64;
    assert!(
        tall > 0.5,
        "{what}: only {tall:.2} of the height (too small)"
    );
    // Centred: the silhouette's middle is near the picture's middle.
    let cx = (x0 + x1) as f64 / 2.0 / s.width as f64;
    let cy = (y0 + y1) as f64 / 2.0 / s.height as f64;
    assert!(
        (cx - 0.5).abs() < 0.15 && (cy - 0.5).abs() < 0.15,
        "{what}: off centre ({cx:.2}, {cy:.2})"
    );
}

#[test]
fn renders_cesium_man_framed_at_the_requested_size() {
    let png = out_path("cesium_man_0.5.png");
    let _ = std::fs::remove_file(&png);
    let out = render(&[
        cesium_man().as_os_str(),
        "--clip".as_ref(),
        "0".as_ref(),
        "--time".as_ref(),
        "0.5".as_ref(),
        "--size".as_ref(),
        "320x400".as_ref(),
        "--out".as_ref(),
        png.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = silhouette(&png);
    assert_eq!((s.width, s.height), (320, 400));
    assert_framed(&s, "CesiumMan");
}

#[test]
fn renders_the_knight_with_its_vertex_colours() {
    let png = out_path("knight.png");
    let _ = std::fs::remove_file(&png);
    let knight = repo().join("assets/knight.glb");
    let out = render(&[
        knight.as_os_str(),
        "--clip".as_ref(),
        "idle".as_ref(),
        "--size".as_ref(),
        "400x300".as_ref(),
        "--out".as_ref(),
        png.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = silhouette(&png);
    assert_eq!((s.width, s.height), (400, 300));
    assert_framed(&s, "knight");
    // The knight's red tabard, plume and shield come from its vertex
    // colours: clearly red pixels exist (a white-only rendering has none).
    let (w, h, rgba) = renderer::read_png_rgba(&png).unwrap();
    let red = rgba
        .chunks_exact(4)
        .filter(|p| {
            p[0] > 90
                && u16::from(p[0]) > 2 * u16::from(p[1])
                && u16::from(p[0]) > 2 * u16::from(p[2])
        })
        .count();
    assert!(red as f64 > 0.001 * (w * h) as f64, "{red} red pixels");
}

/// Runs a bad command line and returns its stderr, checking it failed with
/// one line.
fn fails(args: &[&std::ffi::OsStr]) -> String {
    let out = render(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "should fail: {args:?}");
    assert_eq!(out.status.code(), Some(1), "an error, not a crash: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn bad_input_is_one_clear_line() {
    let png = out_path("never.png");
    let o = png.as_os_str();
    let cm = cesium_man();
    let c = cm.as_os_str();

    let err = fails(&["no/such/model.glb".as_ref(), "--out".as_ref(), o]);
    assert!(
        err.contains("no/such/model.glb") && err.contains("No such file"),
        "{err}"
    );

    let junk = out_path("junk.glb");
    std::fs::write(&junk, b"glTF\x02\x00\x00\x00 this is not a model").unwrap();
    let err = fails(&[junk.as_os_str(), "--out".as_ref(), o]);
    assert!(err.contains("junk.glb"), "{err}");

    let err = fails(&[c, "--clip".as_ref(), "dance".as_ref(), "--out".as_ref(), o]);
    assert!(
        err.contains("CesiumMan.glb") && err.contains("'dance'"),
        "{err}"
    );
    let err = fails(&[c, "--clip".as_ref(), "7".as_ref(), "--out".as_ref(), o]);
    assert!(
        err.contains("CesiumMan.glb") && err.contains("'7'"),
        "{err}"
    );

    let err = fails(&[c, "--time".as_ref(), "NaN".as_ref(), "--out".as_ref(), o]);
    assert!(
        err.contains("CesiumMan.glb") && err.contains("--time NaN"),
        "{err}"
    );

    for size in ["0x10", "10", "axb", "9000x10"] {
        let err = fails(&[c, "--size".as_ref(), size.as_ref(), "--out".as_ref(), o]);
        assert!(err.contains("--size") && err.contains(size), "{err}");
    }

    let err = fails(&[c, "--out".as_ref(), "no/such/dir/shot.png".as_ref()]);
    assert!(err.contains("no/such/dir/shot.png"), "{err}");
    assert!(!png.exists(), "nothing written on failure");
}

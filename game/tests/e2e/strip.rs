//! `ironstep run --strip FROM..TO --out FILE.png`: consecutive frames side
//! by side in one picture, through the real binary on lavapipe.

use std::process::Command;

use renderer::read_png_rgba;

fn ironstep(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("ironstep runs")
}

#[test]
fn a_strip_lays_consecutive_frames_side_by_side() {
    let dir = std::env::temp_dir().join(format!("ironstep-strip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("walk.png");
    // Ten frames of the walk from frame 31: two rows, eight and two.
    let out = ironstep(&[
        "run",
        "--input",
        "assets/scripts/slopes_walk.txt",
        "--frames",
        "60",
        "--strip",
        "31..40",
        "--size",
        "96x80",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, h, rgba) = read_png_rgba(&file).unwrap();
    assert_eq!((w, h), (8 * 96, 2 * 80), "eight per row");
    let cell = |k: u32| -> Vec<u8> {
        let (cx, cy) = ((k % 8) * 96, (k / 8) * 80);
        (0..80)
            .flat_map(|y| {
                let start = (((cy + y) * w + cx) * 4) as usize;
                rgba[start..start + 96 * 4].to_vec()
            })
            .collect()
    };
    let first = cell(0);
    assert!(
        first.chunks(4).any(|p| p[0] != p[1] || p[1] != p[2]),
        "a coloured picture"
    );
    // The knight walks: consecutive cells differ, and the tenth from the first.
    assert_ne!(cell(1), first);
    assert_ne!(cell(9), first);
    // The cells after the tenth are left black.
    assert!(cell(10).iter().all(|&v| v == 0));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_strips_are_one_line_errors() {
    for (range, out, why) in [
        ("40..31", "s.png", "TO at least FROM"),
        ("1..100", "s.png", "at most 64"),
        ("a..b", "s.png", "not a frame number"),
        ("1..5", "shots/", "give --out FILE.png"),
        ("50..70", "s.png", "ends after the run's 60 frames"),
    ] {
        let o = ironstep(&[
            "run",
            "--input",
            "assets/scripts/slopes_walk.txt",
            "--frames",
            "60",
            "--strip",
            range,
            "--out",
            out,
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{range}");
        assert!(err.contains(why), "{range}: {err}");
    }
}

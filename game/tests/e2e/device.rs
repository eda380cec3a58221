//! End-to-end: what the real binary does when the GPU side fails. With no
//! adapter it exits with one clear message naming the package to install and
//! the switch to the OpenGL backend; forced onto OpenGL it still renders.

use std::path::Path;
use std::process::Command;

fn ironstep() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ironstep"));
    c.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    c
}

#[test]
fn no_adapter_says_what_to_install_and_how_to_force_gl() {
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-adapter");
    let out = ironstep()
        .args(["run", "--input", "assets/scripts/slopes_walk.txt"])
        .args(["--frames", "2", "--screenshot-every", "1", "--out"])
        .arg(&out_dir)
        // No Vulkan driver can be found, and no other backend is allowed.
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no GPU adapter"), "{err}");
    assert!(err.contains("mesa-vulkan-drivers"), "{err}");
    assert!(err.contains("WGPU_BACKEND=gl"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn the_opengl_backend_renders_when_forced() {
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gl-backend");
    let _ = std::fs::remove_dir_all(&out_dir);
    let out = ironstep()
        .args(["run", "--input", "assets/scripts/slopes_walk.txt"])
        .args(["--frames", "2", "--screenshot-every", "2", "--out"])
        .arg(&out_dir)
        .env("WGPU_BACKEND", "gl")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let png = std::fs::read(out_dir.join("frame_00002.png")).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = &buf[..info.buffer_size()];
    let distinct: std::collections::HashSet<&[u8]> = px.chunks(4).collect();
    assert!(
        distinct.len() > 50,
        "a nearly uniform picture: {} colours",
        distinct.len()
    );
}

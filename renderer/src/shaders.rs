//! The WGSL sources, embedded in the binary. `common.wgsl` (globals, shadow,
//! lighting) and `skinning.wgsl` (the one skinning function) are prepended to
//! the pipeline files that use them, so the vertex shader and the
//! `skin_vertices` compute entry point run the same code.

/// Globals, shadow map and the lighting model.
pub const COMMON: &str = include_str!("../../shaders/common.wgsl");
/// The shared skinning function and palette binding.
pub const SKINNING: &str = include_str!("../../shaders/skinning.wgsl");

/// The skinned-mesh module: vertex, shadow, fragment and `skin_vertices`.
pub const SKINNED_MODULE: &str = concat!(
    include_str!("../../shaders/common.wgsl"),
    include_str!("../../shaders/skinning.wgsl"),
    include_str!("../../shaders/skinned.wgsl"),
);
/// The world-mesh module.
pub const WORLD_MODULE: &str = concat!(
    include_str!("../../shaders/common.wgsl"),
    include_str!("../../shaders/world.wgsl"),
);
/// The sky module (full-screen gradient and sun disc).
pub const SKY_MODULE: &str = concat!(
    include_str!("../../shaders/common.wgsl"),
    include_str!("../../shaders/sky.wgsl"),
);
/// The soft-quad module (contact shadows and dust).
pub const SOFT_MODULE: &str = concat!(
    include_str!("../../shaders/common.wgsl"),
    include_str!("../../shaders/soft.wgsl"),
);
/// The debug-line module.
pub const LINES_MODULE: &str = include_str!("../../shaders/lines.wgsl");

/// Every shader file in `shaders/` with the module the renderer compiles for
/// it (the file itself, or the file with its prepended headers).
pub const FILES: &[(&str, &str)] = &[
    ("common.wgsl", COMMON),
    ("skinning.wgsl", SKINNING),
    ("skinned.wgsl", SKINNED_MODULE),
    ("world.wgsl", WORLD_MODULE),
    ("sky.wgsl", SKY_MODULE),
    ("soft.wgsl", SOFT_MODULE),
    ("lines.wgsl", LINES_MODULE),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn validate(src: &str) -> Result<(), String> {
        let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .map_err(|e| format!("{e:?}"))?;
        Ok(())
    }

    #[test]
    fn every_wgsl_file_in_shaders_is_compiled_and_validates_with_naga() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shaders");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("shaders/ exists") {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "wgsl") {
                continue;
            }
            seen += 1;
            let name = path.file_name().unwrap().to_str().unwrap();
            let (_, module) = FILES.iter().find(|(f, _)| *f == name).unwrap_or_else(|| {
                panic!("{name} is in shaders/ but not compiled by the renderer")
            });
            let on_disk = std::fs::read_to_string(&path).unwrap();
            assert!(
                module.contains(&on_disk),
                "{name}: embedded copy differs from the file"
            );
            if let Err(e) = validate(module) {
                panic!("{name}: {e}");
            }
        }
        assert_eq!(seen, FILES.len());
    }

    #[test]
    fn skinned_module_has_draw_and_compute_entry_points() {
        let module = naga::front::wgsl::parse_str(SKINNED_MODULE).unwrap();
        let names: Vec<_> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        for want in ["vs_main", "vs_shadow", "fs_main", "skin_vertices"] {
            assert!(names.contains(&want), "{want} missing from {names:?}");
        }
    }

    #[test]
    fn naga_rejects_a_broken_shader() {
        assert!(validate("fn f() -> f32 { return vec3<f32>(1.0); }").is_err());
    }
}

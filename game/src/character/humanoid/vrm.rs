//! VRM humanoid bones, read from the glTF JSON: VRM 1.0's
//! `extensions.VRMC_vrm.humanoid.humanBones` (an object of bone → `{node}`)
//! or VRM 0.x's `extensions.VRM.humanoid.humanBones` (an array of
//! `{bone, node}`). A `.vrm` file is a GLB. Where present, these bones win
//! over names and shape: the author said which joint is which.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

/// VRM bone name (`hips`, `leftUpperLeg`, …) → glTF node index.
pub type VrmBones = HashMap<String, usize>;

/// The glTF JSON of a `.glb`/`.vrm` (binary) or `.gltf` (text) file; `None`
/// when it cannot be read (the importer reports such files itself).
pub fn json_of(bytes: &[u8]) -> Option<Value> {
    if bytes.len() >= 20 && &bytes[0..4] == b"glTF" {
        let len = u32::from_le_bytes(bytes[12..16].try_into().ok()?) as usize;
        if &bytes[16..20] != b"JSON" {
            return None;
        }
        let chunk = bytes.get(20..20usize.checked_add(len)?)?;
        serde_json::from_slice(chunk).ok()
    } else {
        serde_json::from_slice(bytes).ok()
    }
}

/// The VRM humanoid bones of a glTF JSON document, if it has any.
pub fn bones_of(json: &Value) -> Option<VrmBones> {
    let ext = json.get("extensions")?;
    let mut out = VrmBones::new();
    if let Some(bones) = ext
        .pointer("/VRMC_vrm/humanoid/humanBones")
        .and_then(Value::as_object)
    {
        for (name, b) in bones {
            if let Some(n) = b.get("node").and_then(Value::as_u64) {
                out.insert(name.clone(), n as usize);
            }
        }
    } else if let Some(bones) = ext
        .pointer("/VRM/humanoid/humanBones")
        .and_then(Value::as_array)
    {
        for b in bones {
            if let (Some(name), Some(n)) = (
                b.get("bone").and_then(Value::as_str),
                b.get("node").and_then(Value::as_u64),
            ) {
                out.insert(name.to_string(), n as usize);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The VRM bones of the model file at `path`, if it has any.
pub fn bones_of_file(path: &Path) -> Option<VrmBones> {
    let bytes = std::fs::read(path).ok()?;
    bones_of(&json_of(&bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_vrm_versions_read() {
        let v1: Value = serde_json::from_str(
            r#"{"extensions":{"VRMC_vrm":{"humanoid":{"humanBones":{"hips":{"node":3},"leftUpperLeg":{"node":5}}}}}}"#,
        )
        .unwrap();
        let b = bones_of(&v1).unwrap();
        assert_eq!((b["hips"], b["leftUpperLeg"]), (3, 5));
        let v0: Value = serde_json::from_str(
            r#"{"extensions":{"VRM":{"humanoid":{"humanBones":[{"bone":"hips","node":1},{"bone":"leftFoot","node":9}]}}}}"#,
        )
        .unwrap();
        let b = bones_of(&v0).unwrap();
        assert_eq!((b["hips"], b["leftFoot"]), (1, 9));
        assert!(bones_of(&serde_json::json!({"asset": {}})).is_none());
    }
}

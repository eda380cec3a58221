// Validates one glTF/GLB file with the Khronos glTF validator and prints its
// report summary and every message. Exits 0 when the report has no errors,
// 1 when it has errors, 2 on usage or I/O problems.
//
// Usage: node tests/gltf-validator/validate.mjs FILE
import { readFile } from "node:fs/promises";
import validator from "gltf-validator";

const file = process.argv[2];
if (!file) {
  console.error("usage: node validate.mjs FILE.glb");
  process.exit(2);
}

let bytes;
try {
  bytes = new Uint8Array(await readFile(file));
} catch (e) {
  console.error(`${file}: ${e.message}`);
  process.exit(2);
}

const report = await validator.validateBytes(bytes, {
  uri: file,
  maxIssues: 0,
  format: file.endsWith(".glb") ? "glb" : "gltf",
});
const issues = report.issues;
console.log(
  `${file}: errors=${issues.numErrors} warnings=${issues.numWarnings} infos=${issues.numInfos} hints=${issues.numHints}`,
);
const severity = ["error", "warning", "info", "hint"];
for (const m of issues.messages) {
  console.log(`  ${severity[m.severity] ?? m.severity} ${m.code} at ${m.pointer ?? "-"}: ${m.message}`);
}
const info = report.info ?? {};
console.log(
  `  info: animations=${info.animationCount} drawCalls=${info.drawCallCount} vertices=${info.totalVertexCount} triangles=${info.totalTriangleCount} maxInfluences=${info.maxInfluences}`,
);
process.exit(issues.numErrors > 0 ? 1 : 0);

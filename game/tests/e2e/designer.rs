//! End-to-end: the real `ironstep play --edit --level COPY.tmx` under Xvfb.
//! xdotool drags a ladder's top handle up and presses Ctrl+S; the saved file
//! must differ from the original only in that ladder's `y` and `height`.
//! Then the test breaks the file (the game must keep running, keep the
//! level and report the file and reason) and fixes it again (the game
//! reloads). A screenshot of designer mode is kept in the test's temp folder.
//! A second run drags a one-way plank's end and a moving platform's path
//! point, undoes and redoes the plank drag with Ctrl+Z / Ctrl+Y and saves:
//! exactly the plank's CSV row and the polyline's `points` change.
//!
//! Needs `xvfb-run` and `xdotool` (tests/run installs them).

use crate::common;
use common::*;

/// A 24×10 map of 32 px tiles: a floor, a 2 m wall on the right with a
/// ladder up it (object 3, top at y = 128 px, 128 px tall), one slope tile.
fn level() -> String {
    let mut rows = Vec::new();
    for r in 0..10 {
        let row: Vec<&str> = (0..24)
            .map(|c| match (r, c) {
                (8 | 9, _) => "1",
                (4..=7, 14..) => "1",
                (7, 4) => "2",
                _ => "0",
            })
            .collect();
        rows.push(row.join(","));
    }
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" tiledversion="1.11.0" orientation="orthogonal" renderorder="right-down" width="24" height="10" tilewidth="32" tileheight="32" infinite="0" nextlayerid="3" nextobjectid="5">
 <!-- a comment the editor must keep -->
 <tileset firstgid="1" name="t" tilewidth="32" tileheight="32" tilecount="2" columns="2">
  <image source="tiles.png" width="64" height="32"/>
  <tile id="0" type="Solid"/>
  <tile id="1" type="Slope">
   <properties>
    <property name="left" type="float" value="0"/>
    <property name="right" type="float" value="1"/>
   </properties>
  </tile>
 </tileset>
 <layer id="1" name="Ground" width="24" height="10">
  <data encoding="csv">
{}
</data>
 </layer>
 <objectgroup id="2" name="Objects">
  <object id="1" name="spawn" type="Spawn" x="368" y="256">
   <point/>
  </object>
  <object id="2" name="exit" type="Exit" x="656" y="128">
   <point/>
  </object>
  <object id="3" name="ladder" type="Ladder" x="416" y="128" width="32" height="128">
   <properties>
    <property name="rung_spacing" type="float" value="0.3"/>
   </properties>
  </object>
 </objectgroup>
</map>
"#,
        rows.join(",\n")
    )
}

#[test]
fn drag_a_ladder_top_save_and_survive_a_broken_reload() {
    require("xvfb-run", "xvfb xauth");
    require("xdotool", "xdotool");
    let dir = fresh_dir("designer-e2e");
    let tmx = dir.join("copy.tmx");
    let original = level();
    std::fs::write(&tmx, &original).unwrap();
    let bin = env!("CARGO_BIN_EXE_ironstep");
    let fixed = original.replace("value=\"0.3\"", "value=\"0.32\"");
    std::fs::write(dir.join("fixed.tmx.txt"), &fixed).unwrap();
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    // Wait for a line in the game's stdout (the game prints handles, saves
    // and reloads); give up after 60 s.
    let script = format!(
        r#"cd '{dir}'
export XDG_RUNTIME_DIR='{runtime}' WGPU_DEBUG=0 IRONSTEP_DATA_DIR='{runtime}/data'
waitfor() {{ n=0; until grep -q "$1" out.txt; do n=$((n+1)); [ $n -gt 600 ] && {{ echo "timed out waiting for $1"; cat out.txt; kill $game; exit 1; }}; sleep 0.1; done; }}
'{bin}' play --edit --level copy.tmx --window-size 1280x720 --exit-after 1000000 --screenshot-at 40 --screenshot-dir . > out.txt 2> err.txt &
game=$!
waitfor 'handle ladder 0 top'
set -- $(grep 'handle ladder 0 top' out.txt | head -n 1)
x=$7; y=$8
win=$(xdotool search --sync --name '^Ironstep$' | head -n 1)
# Keys go to the focused window; Xvfb has no window manager to focus it.
xdotool windowfocus --sync "$win"
waitfor 'screenshot'
xdotool mousemove --window "$win" $x $y
sleep 0.3
xdotool mousedown 1
sleep 0.3
xdotool mousemove --window "$win" $x $((y - 20))
sleep 0.3
xdotool mousemove --window "$win" $x $((y - 40))
sleep 0.3
xdotool mouseup 1
sleep 0.3
xdotool key ctrl+s
waitfor 'designer: saved'
cp copy.tmx saved.tmx
printf '<map><layer' > copy.tmx
waitfor 'reload failed'
cp fixed.tmx.txt copy.tmx
waitfor 'designer: reloaded'
xdotool key Escape Up Return
wait $game
echo "exit $?""#,
        dir = dir.display(),
        runtime = runtime.display(),
    );
    let game_out = run_window_script(&script, &dir);
    // Saved: only the ladder line changed, its top moved up (smaller y) by
    // whole snap steps (4 px) and its foot (y + height = 256) stayed.
    let saved = std::fs::read_to_string(dir.join("saved.tmx")).unwrap();
    let changed: Vec<(&str, &str)> = original
        .lines()
        .zip(saved.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(original.lines().count(), saved.lines().count());
    assert_eq!(changed.len(), 1, "{changed:?}");
    let attr = |line: &str, name: &str| -> f32 {
        let start = line.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        line[start..start + line[start..].find('"').unwrap()]
            .parse()
            .unwrap()
    };
    let (_, new) = changed[0];
    assert!(new.starts_with("  <object id=\"3\""), "{new}");
    let (y, h) = (attr(new, "y"), attr(new, "height"));
    assert!(y < 128.0 && (128.0 - y) % 4.0 == 0.0, "y {y}");
    assert_eq!(y + h, 256.0, "the foot stays");
    assert_eq!(
        original.replace(changed[0].0, new),
        saved,
        "nothing else changed"
    );
    let back = game::level::load(dir.join("saved.tmx")).unwrap();
    assert!((back.level.ladders[0].top - (3.0 + (128.0 - y) / 64.0)).abs() < 1e-4);
    // The broken save was reported with the file and reason; the game went on.
    let failed = game_out
        .lines()
        .find(|l| l.contains("reload failed"))
        .unwrap();
    assert!(
        failed.contains("copy.tmx") && failed.contains("keeping the last good level"),
        "{failed}"
    );
    println!("screenshot: {}", dir.join("window_00040.png").display());
    println!("{game_out}");
}

/// The map of [`level`] with a one-way plank over columns 6–8 of row 5
/// (3.0–4.5 m at 2.5 m) and a 1 m wide moving platform (object 4) rising
/// from (2.75 m, 1.5 m) to (2.75 m, 2.5 m): every handle a pick radius
/// away from the others.
fn platform_level() -> String {
    let mut text = level()
        .replace(
            "tilecount=\"2\" columns=\"2\">\n  <image source=\"tiles.png\" width=\"64\"",
            "tilecount=\"3\" columns=\"3\">\n  <image source=\"tiles.png\" width=\"96\"",
        )
        .replace(
            "  <tile id=\"0\" type=\"Solid\"/>\n",
            "  <tile id=\"0\" type=\"Solid\"/>\n  <tile id=\"2\" type=\"OneWay\"/>\n",
        )
        .replace(
            "  <object id=\"3\" name=\"ladder\"",
            "  <object id=\"4\" name=\"lift\" type=\"MovingPlatform\" x=\"176\" y=\"224\">\n   <properties>\n    <property name=\"width\" type=\"float\" value=\"1\"/>\n   </properties>\n   <polyline points=\"0,0 0,-64\"/>\n  </object>\n  <object id=\"3\" name=\"ladder\"",
        );
    // Row 5 of the CSV grid: columns 6–8 become plank tiles (gid 3).
    let row5 = "0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1";
    let plank = "0,0,0,0,0,0,3,3,3,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1";
    let at = text.match_indices(row5).nth(1).unwrap().0;
    text.replace_range(at..at + row5.len(), plank);
    text
}

#[test]
fn drag_a_plank_end_and_a_path_point_undo_redo_and_save() {
    require("xvfb-run", "xvfb xauth");
    require("xdotool", "xdotool");
    let dir = fresh_dir("designer-e2e-platform");
    let tmx = dir.join("copy.tmx");
    let original = platform_level();
    let before = game::level::load_with_text(&tmx, &original).unwrap();
    assert_eq!(before.one_way.len(), 1);
    assert_eq!((before.one_way[0].x0, before.one_way[0].x1), (3.0, 4.5));
    assert_eq!(before.level.platforms.len(), 1);
    std::fs::write(&tmx, &original).unwrap();
    let bin = env!("CARGO_BIN_EXE_ironstep");
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    // Handles' pixels come from the game's stdout; the plank's two ends,
    // 1.5 m apart, give the pixels per metre on the play plane.
    let script = format!(
        r#"cd '{dir}'
export XDG_RUNTIME_DIR='{runtime}' WGPU_DEBUG=0 IRONSTEP_DATA_DIR='{runtime}/data'
waitfor() {{ n=0; until grep -q "$1" out.txt; do n=$((n+1)); [ $n -gt 600 ] && {{ echo "timed out waiting for $1"; cat out.txt; kill $game; exit 1; }}; sleep 0.1; done; }}
handle() {{ grep "handle $1 at" out.txt | head -n 1 | sed 's/.* at \([0-9-]*\) \([0-9-]*\) px.*/\1 \2/'; }}
drag() {{ xdotool mousemove --window "$win" $1 $2; sleep 0.3; xdotool mousedown 1; sleep 0.3
  xdotool mousemove --window "$win" $(( $1 + $3 / 2 )) $(( $2 + $4 / 2 )); sleep 0.3
  xdotool mousemove --window "$win" $(( $1 + $3 )) $(( $2 + $4 )); sleep 0.3
  xdotool mouseup 1; sleep 0.3; }}
'{bin}' play --edit --level copy.tmx --window-size 1280x720 --exit-after 1000000 --screenshot-at 40 --screenshot-on-exit --screenshot-dir . > out.txt 2> err.txt &
game=$!
waitfor 'handle platform 0 point 1'
waitfor 'handle plank 0 right'
set -- $(handle 'plank 0 left'); lx=$1
set -- $(handle 'plank 0 right'); rx=$1; ry=$2
set -- $(handle 'platform 0 point 1'); px=$1; py=$2
m=$(( (rx - lx) * 2 / 3 ))
echo "px per metre $m"
win=$(xdotool search --sync --name '^Ironstep$' | head -n 1)
xdotool windowfocus --sync "$win"
waitfor 'screenshot'
# The path's top point: 0.5 m right, 0.25 m up.
drag $px $py $(( m / 2 )) $(( - m / 4 ))
# The plank's right end: 1 m (two tiles) right.
drag $rx $ry $m 0
xdotool key ctrl+z
waitfor 'designer: undo'
xdotool key ctrl+y
waitfor 'designer: redo'
xdotool key ctrl+s
waitfor 'designer: saved'
xdotool key Escape Up Return
wait $game
echo "exit $?""#,
        dir = dir.display(),
        runtime = runtime.display(),
    );
    let game_out = run_window_script(&script, &dir);
    let saved = std::fs::read_to_string(&tmx).unwrap();
    let changed: Vec<(&str, &str)> = original
        .lines()
        .zip(saved.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(original.lines().count(), saved.lines().count());
    // Exactly two lines changed: the plank's CSV row and the polyline.
    assert_eq!(changed.len(), 2, "{changed:?}");
    assert_eq!(
        changed[0],
        (
            "0,0,0,0,0,0,3,3,3,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,",
            "0,0,0,0,0,0,3,3,3,3,3,0,0,0,1,1,1,1,1,1,1,1,1,1,"
        ),
        "the plank grew by two tiles, undone and redone"
    );
    let (old, new) = changed[1];
    assert_eq!(old, "   <polyline points=\"0,0 0,-64\"/>");
    let points = new
        .trim()
        .strip_prefix("<polyline points=\"0,0 ")
        .and_then(|s| s.strip_suffix("\"/>"))
        .unwrap_or_else(|| panic!("{new}"));
    let (x, y) = points.split_once(',').unwrap();
    let (x, y): (f32, f32) = (x.parse().unwrap(), y.parse().unwrap());
    // Moved right and up, on the quarter-tile (8 px) grid.
    assert!(x > 0.0 && y < -64.0, "{points}");
    assert!(x % 8.0 == 0.0 && y % 8.0 == 0.0, "{points}");
    let back = game::level::load(&tmx).unwrap();
    assert_eq!((back.one_way[0].x0, back.one_way[0].x1), (3.0, 5.5));
    let top = back.level.platforms[0].path[1];
    assert_eq!(top, glam::Vec2::new(2.75 + x / 64.0, 1.5 - y / 64.0));
    println!(
        "screenshots (before the drags, and after them on exit): {}",
        dir.display()
    );
    println!("{game_out}");
}

/// Runs a shell script of window events under Xvfb and checks that it and
/// the game it started (its output in `dir`'s out.txt and err.txt) ended
/// well, showing everything they printed when not. Returns the game's
/// standard output.
pub(crate) fn run_window_script(script: &str, dir: &std::path::Path) -> String {
    let out = xvfb("1280x720x24")
        .args(["sh", "-c", script])
        .output()
        .expect("running xvfb-run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let game_out = std::fs::read_to_string(dir.join("out.txt")).unwrap_or_default();
    let game_err = std::fs::read_to_string(dir.join("err.txt")).unwrap_or_default();
    assert!(
        out.status.success() && stdout.contains("exit 0"),
        "{stdout}\n{}\ngame stdout:\n{game_out}\ngame stderr:\n{game_err}",
        String::from_utf8_lossy(&out.stderr)
    );
    game_out
}

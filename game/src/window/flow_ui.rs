//! The game flow's screens in the window, drawn with egui over the 3D
//! picture: the title menu, level select, controls, settings, the pause
//! menu, the level-complete panel, the finish screen, the HUD (level name,
//! time, falls) and the respawn fade.
//!
//! What is shown comes from [`Game`] alone; the mouse's part of the menus
//! (an item hovered, an item clicked) is handed back to the caller as
//! [`Pointer`], which applies it to the game ([`Game::hover`],
//! [`Game::activate`]). Keyboard and gamepad go to [`Game::key`] directly
//! from the window's event handler, so menus are the same whichever
//! device drives them.

use egui::{Align2, Color32, FontId, RichText};
use renderer::{Renderer, wgpu};
use winit::event::WindowEvent;
use winit::window::Window;

use crate::flow::bindings::Action;
use crate::flow::game::{Game, Screen, format_time};
use crate::window::ui::EguiLayer;

/// Width of a menu's buttons, points.
const MENU_WIDTH: f32 = 340.0;
/// Height of a menu's buttons, points: big enough for a thumb or a glance.
const ITEM_HEIGHT: f32 = 34.0;
/// How dark a menu makes the level behind it (alpha of black, 0–255).
const MENU_DIM: u8 = 150;
/// The title menu's distance from the window's left edge, points.
const TITLE_MARGIN: f32 = 60.0;
/// The menus' accent (the selected item's fill).
const ACCENT: Color32 = Color32::from_rgb(196, 150, 60);

/// What the mouse did to the menu this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pointer {
    /// The item the pointer moved over, if it moved.
    pub hovered: Option<usize>,
    /// The item clicked.
    pub clicked: Option<usize>,
}

/// The controls no binding changes: (action, keyboard, gamepad). The
/// rebindable actions come first, from the player's bindings.
pub const FIXED_CONTROLS: [(&str, &str, &str); 4] = [
    ("drop through a plank", "climb down + jump", "down + jump"),
    (
        "menus",
        "arrows, Enter, Esc; the mouse",
        "d-pad or stick, South, East",
    ),
    ("profiler / designer mode", "F3 / F2", ""),
    ("rebind the keys", "Settings → Key bindings", ""),
];

/// egui for the flow's screens.
pub struct FlowUi {
    egui: EguiLayer,
}

impl FlowUi {
    /// The screens' egui for `window`, painting onto targets of the
    /// renderer's format.
    pub fn new(window: &Window, renderer: &Renderer) -> Self {
        let egui = EguiLayer::new(window, renderer.device(), renderer.color_format());
        let mut style = (*egui.context().global_style()).clone();
        style.visuals.selection.bg_fill = ACCENT;
        style.visuals.selection.stroke.color = Color32::WHITE;
        egui.context().set_global_style(style);
        Self { egui }
    }

    /// Feeds a window event to egui: the mouse only. Keys reach the menus
    /// through [`Game::key`]; were egui to see them too, Enter on a button
    /// it had focused (after a click) would activate it a second time.
    pub fn on_window_event(&mut self, window: &Window, event: &WindowEvent) {
        if matches!(
            event,
            WindowEvent::KeyboardInput { .. }
                | WindowEvent::Ime(_)
                | WindowEvent::ModifiersChanged(_)
        ) {
            return;
        }
        let _ = self.egui.on_window_event(window, event);
    }

    /// Lays out this frame's screens for `game`; returns what the mouse did.
    pub fn prepare(&mut self, window: &Window, game: &Game) -> Pointer {
        let mut pointer = Pointer::default();
        self.egui
            .run(window, |ui| draw(ui.ctx(), game, &mut pointer));
        pointer
    }

    /// Paints the prepared screens over `view`.
    pub fn paint(&mut self, renderer: &Renderer, view: &wgpu::TextureView, size: (u32, u32)) {
        self.egui
            .paint(renderer.device(), renderer.queue(), view, size);
    }
}

/// Draws everything for `game` into `ctx`.
pub fn draw(ctx: &egui::Context, game: &Game, pointer: &mut Pointer) {
    let screen = ctx.content_rect();
    let back = ctx.layer_painter(egui::LayerId::background());
    let fade = game.run.fade();
    if game.screen == Screen::Playing && fade > 0.0 {
        back.rect_filled(screen, 0.0, Color32::from_black_alpha((fade * 255.0) as u8));
    }
    if matches!(game.screen, Screen::Playing | Screen::Paused) {
        hud(ctx, game);
    }
    if let Some(text) = &game.notice {
        notice(ctx, text);
    }
    if game.screen == Screen::Playing {
        return;
    }
    back.rect_filled(screen, 0.0, Color32::from_black_alpha(MENU_DIM));
    // The title menu stands left of the knight (the camera centres him);
    // the others in the middle.
    let (align, offset) = match game.screen {
        Screen::Title => (Align2::LEFT_CENTER, [TITLE_MARGIN, 0.0]),
        _ => (Align2::CENTER_CENTER, [0.0, 0.0]),
    };
    egui::Area::new(egui::Id::unique("flow menu"))
        .anchor(align, offset)
        .show(ctx, |ui| {
            egui::Frame::window(ui.style())
                .fill(Color32::from_black_alpha(200))
                .inner_margin(24.0)
                .show(ui, |ui| {
                    ui.set_width(MENU_WIDTH + 40.0);
                    ui.vertical_centered(|ui| {
                        heading(ui, game);
                        ui.add_space(12.0);
                        menu(ui, game, pointer);
                    });
                });
        });
}

/// The small HUD, top left: level name, time and falls.
fn hud(ctx: &egui::Context, game: &Game) {
    egui::Area::new(egui::Id::unique("flow hud"))
        .anchor(Align2::LEFT_TOP, [12.0, 12.0])
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(Color32::from_black_alpha(150))
                .corner_radius(6.0)
                .inner_margin(10.0)
                .show(ui, |ui| {
                    ui.label(
                        RichText::new(&game.level_name)
                            .strong()
                            .size(18.0)
                            .color(Color32::WHITE),
                    );
                    ui.label(
                        RichText::new(format!(
                            "time {}   falls {}",
                            format_time(game.run.time_s()),
                            game.run.falls
                        ))
                        .monospace()
                        .size(16.0)
                        .color(Color32::from_gray(230)),
                    );
                });
        });
}

/// A message at the bottom of the window (a saved replay, a refused key
/// binding), over everything.
fn notice(ctx: &egui::Context, text: &str) {
    egui::Area::new(egui::Id::unique("flow notice"))
        .anchor(Align2::CENTER_BOTTOM, [0.0, -24.0])
        .order(egui::Order::Foreground)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(Color32::from_black_alpha(210))
                .corner_radius(6.0)
                .inner_margin(10.0)
                .show(ui, |ui| {
                    ui.label(RichText::new(text).size(17.0).color(Color32::WHITE));
                });
        });
}

/// The title and body of the screen above its menu.
fn heading(ui: &mut egui::Ui, game: &Game) {
    let title = |ui: &mut egui::Ui, text: &str, size: f32| {
        ui.label(
            RichText::new(text)
                .font(FontId::proportional(size))
                .strong()
                .color(Color32::WHITE),
        );
    };
    let line = |ui: &mut egui::Ui, text: String| {
        ui.label(
            RichText::new(text)
                .size(18.0)
                .color(Color32::from_gray(230)),
        );
    };
    match game.screen {
        Screen::Title => {
            title(ui, "IRONSTEP", 52.0);
            line(ui, "a knight who really stands on the world".into());
        }
        Screen::LevelSelect => title(ui, "Level select", 30.0),
        Screen::Controls => {
            title(ui, "Controls", 30.0);
            ui.add_space(8.0);
            egui::Grid::new("controls")
                .striped(true)
                .spacing([16.0, 6.0])
                .show(ui, |ui| {
                    for h in ["action", "keyboard", "gamepad"] {
                        ui.label(RichText::new(h).strong().color(Color32::WHITE));
                    }
                    ui.end_row();
                    let b = &game.settings.bindings;
                    for a in Action::ALL {
                        ui.label(a.label());
                        ui.label(b.keys_text(a));
                        ui.label(b.pad_text(a));
                        ui.end_row();
                    }
                    for (action, keys, pad) in FIXED_CONTROLS {
                        ui.label(action);
                        ui.label(keys);
                        ui.label(pad);
                        ui.end_row();
                    }
                });
        }
        Screen::Settings => title(ui, "Settings", 30.0),
        Screen::Bindings => {
            title(ui, "Key bindings", 30.0);
            line(
                ui,
                "Choose an action, then press its new key or gamepad button".into(),
            );
        }
        Screen::Paused => title(ui, "Paused", 30.0),
        Screen::LevelComplete => {
            title(ui, "Level complete", 34.0);
            if let Some(c) = &game.last {
                line(ui, c.name.clone());
                ui.add_space(8.0);
                egui::Grid::new("result")
                    .spacing([24.0, 6.0])
                    .show(ui, |ui| {
                        let row = |ui: &mut egui::Ui, k: &str, v: String| {
                            ui.label(RichText::new(k).size(18.0));
                            ui.label(
                                RichText::new(v)
                                    .size(18.0)
                                    .monospace()
                                    .color(Color32::WHITE),
                            );
                            ui.end_row();
                        };
                        row(ui, "time", format_time(c.time_s));
                        row(ui, "falls", c.falls.to_string());
                        let best = format_time(c.best_time_s);
                        row(
                            ui,
                            "best time",
                            if c.new_best {
                                format!("{best}  new best!")
                            } else {
                                best
                            },
                        );
                    });
            }
        }
        Screen::Finished => {
            title(ui, "The end", 40.0);
            line(ui, "every level completed".into());
            ui.add_space(8.0);
            egui::Grid::new("best times")
                .spacing([24.0, 4.0])
                .show(ui, |ui| {
                    let mut total = 0.0;
                    for (name, title) in game.sequence.names.iter().zip(&game.sequence.titles) {
                        let t = game.progress.best_time(name);
                        total += t.unwrap_or(0.0);
                        ui.label(title.as_str());
                        ui.monospace(t.map_or("–".into(), format_time));
                        ui.end_row();
                    }
                    ui.label(RichText::new("all best times").strong());
                    ui.monospace(format_time(total));
                    ui.end_row();
                });
        }
        Screen::Playing => {}
    }
}

/// The screen's menu: one button per item, the selected one highlighted.
fn menu(ui: &mut egui::Ui, game: &Game, pointer: &mut Pointer) {
    // Only a pointer that moved this frame takes the selection: one resting
    // over an item leaves it to the keyboard and gamepad.
    let moving = ui.input(|i| i.pointer.delta() != egui::Vec2::ZERO);
    for (i, item) in game.items().into_iter().enumerate() {
        let selected = i == game.selected;
        let text = RichText::new(game.label(item)).size(20.0);
        let text = if selected {
            text.color(Color32::BLACK).strong()
        } else {
            text.color(Color32::WHITE)
        };
        let button =
            egui::Button::selectable(selected, text).min_size([MENU_WIDTH, ITEM_HEIGHT].into());
        let r = ui.add_enabled(game.enabled(item), button);
        if r.hovered() && moving {
            pointer.hovered = Some(i);
        }
        if r.clicked() {
            pointer.clicked = Some(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::{Progress, Sequence, Settings};

    /// Lays the screens out headless at 1280×720 and returns the shapes'
    /// text.
    fn texts(game: &Game) -> String {
        let ctx = egui::Context::default();
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1280.0, 720.0),
            )),
            ..Default::default()
        };
        let mut pointer = Pointer::default();
        // Two passes: egui sizes areas in the first.
        let mut first = ctx.run_ui(input.clone(), |ui| draw(ui.ctx(), game, &mut pointer));
        first.textures_delta.clear();
        let mut out = ctx.run_ui(input, |ui| draw(ui.ctx(), game, &mut pointer));
        out.textures_delta.clear();
        let mut s = String::new();
        for clipped in &out.shapes {
            collect_text(&clipped.shape, &mut s);
        }
        s
    }

    #[test]
    fn the_finish_screen_lists_every_levels_best_time_and_their_sum() {
        let mut g = game();
        for (i, name) in g.sequence.names.clone().iter().enumerate() {
            g.progress.record(name, 10.0 * (i + 1) as f32, 0);
        }
        g.screen = Screen::Finished;
        let t = texts(&g);
        for title in &g.sequence.titles {
            assert!(t.contains(title.as_str()), "{title} missing from {t}");
        }
        // 10 + 20 + 30 + 40 s with four levels.
        let n = g.sequence.len() as f32;
        let sum = 10.0 * n * (n + 1.0) / 2.0;
        assert!(t.contains(&format_time(sum)), "{t}");
        assert!(t.contains("Title screen") && t.contains("Quit"), "{t}");
    }

    /// Runs one UI frame with `events`; returns what the mouse did and
    /// where each text was drawn.
    fn frame(
        ctx: &egui::Context,
        game: &Game,
        events: Vec<egui::Event>,
    ) -> (Pointer, Vec<(String, egui::Rect)>) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1280.0, 720.0),
            )),
            events,
            ..Default::default()
        };
        let mut pointer = Pointer::default();
        let mut out = ctx.run_ui(input, |ui| draw(ui.ctx(), game, &mut pointer));
        out.textures_delta.clear();
        let mut texts = Vec::new();
        for clipped in &out.shapes {
            if let egui::Shape::Text(t) = &clipped.shape {
                texts.push((
                    t.galley.text().to_string(),
                    t.galley.rect.translate(t.pos.to_vec2()),
                ));
            }
        }
        (pointer, texts)
    }

    #[test]
    fn the_mouse_selects_by_moving_over_an_item_and_activates_by_clicking() {
        let g = game();
        let ctx = egui::Context::default();
        frame(&ctx, &g, Vec::new());
        let (_, texts) = frame(&ctx, &g, Vec::new());
        let at = texts
            .iter()
            .find(|(t, _)| t == "Settings")
            .map(|(_, r)| r.center())
            .expect("the Settings item is drawn");
        // Onto the window (no movement known yet), then over the item.
        frame(
            &ctx,
            &g,
            vec![egui::Event::PointerMoved(at - egui::vec2(0.0, 4.0))],
        );
        let (p, _) = frame(&ctx, &g, vec![egui::Event::PointerMoved(at)]);
        assert_eq!(p.hovered, Some(3));
        assert_eq!(p.clicked, None);
        let button = |pressed| egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        frame(&ctx, &g, vec![button(true)]);
        let (p, _) = frame(&ctx, &g, vec![button(false)]);
        assert_eq!(p.clicked, Some(3));
        // A pointer resting over an item does not take the selection back
        // from the keyboard.
        let (p, _) = frame(&ctx, &g, Vec::new());
        assert_eq!(p, Pointer::default());
    }

    fn collect_text(shape: &egui::Shape, s: &mut String) {
        match shape {
            egui::Shape::Text(t) => {
                s.push_str(t.galley.text());
                s.push('|');
            }
            egui::Shape::Vec(v) => v.iter().for_each(|x| collect_text(x, s)),
            _ => {}
        }
    }

    fn game() -> Game {
        Game::new(
            Sequence::shipped().unwrap(),
            Progress::default(),
            Settings::default(),
        )
    }

    #[test]
    fn the_title_shows_its_menu_and_play_shows_only_the_hud() {
        let mut g = game();
        let t = texts(&g);
        for label in [
            "IRONSTEP",
            "Play",
            "Level select",
            "Controls",
            "Settings",
            "Quit",
        ] {
            assert!(t.contains(label), "{label} missing from {t}");
        }
        g.key(crate::flow::MenuKey::Confirm);
        g.level_name = "Tutorial".into();
        let t = texts(&g);
        assert!(
            t.contains("Tutorial") && t.contains("time 0:00.00   falls 0"),
            "{t}"
        );
        assert!(!t.contains("Quit"), "{t}");
    }

    #[test]
    fn the_level_complete_panel_shows_time_falls_and_best() {
        let mut g = game();
        g.screen = Screen::LevelComplete;
        g.last = Some(crate::flow::game::Completed {
            name: "Tutorial".into(),
            time_s: 61.5,
            falls: 2,
            best_time_s: 61.5,
            new_best: true,
        });
        let t = texts(&g);
        for want in [
            "Level complete",
            "1:01.50",
            "falls",
            "|2|",
            "new best!",
            "Next level",
        ] {
            assert!(t.contains(want), "{want} missing from {t}");
        }
    }

    /// The Controls screen shows the bindings in use (a rebound key
    /// included) and the fixed controls; a notice is drawn over any screen.
    #[test]
    fn the_controls_screen_shows_the_bindings_in_use_and_notices_show() {
        let mut g = game();
        g.settings
            .bindings
            .bind_key(crate::flow::Action::Jump, "KeyK")
            .unwrap();
        g.screen = Screen::Controls;
        let t = texts(&g);
        for want in [
            "|jump (hold for height)|K|South (A/✕)|",
            "|walk left|← or A|left stick left or d-pad left|",
            "rebind the keys",
        ] {
            assert!(t.contains(want), "{want} missing from {t}");
        }
        g.screen = Screen::Playing;
        g.notice = Some("Replay saved: x.txt (attach it to your bug report)".into());
        assert!(texts(&g).contains("Replay saved: x.txt"));
    }
}

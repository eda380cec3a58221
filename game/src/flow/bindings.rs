//! The controls a player can rebind: which keyboard keys and gamepad
//! buttons do each [`Action`], saved with the settings
//! ([`crate::flow::save::Settings::bindings`]).
//!
//! Keys and buttons are kept by name, the name of winit's `KeyCode` and of
//! gilrs's `Button` (`KeyA`, `ArrowLeft`, `ShiftLeft`; `South`,
//! `RightTrigger2`), so the settings file reads plainly and this module
//! needs neither crate; [`KEYS`] and [`BUTTONS`] list the names a binding
//! may use, each with the label the screens and the README show.
//!
//! The rules ([`Bindings::check`], and [`Bindings::bind_key`] and
//! [`Bindings::bind_button`] when the player rebinds): a key or a button
//! does at most one action; [`RESERVED_KEYS`] (designer mode, the
//! profiler) are never bound; an action has at most
//! [`MAX_PER_ACTION`] keys and as many buttons. Rebinding an action gives
//! it the one key (or button) pressed, in place of all it had; a key
//! another action has is refused, naming that action. The menus keep their
//! own fixed keys (arrows, W/A/S/D, Enter, Space, Esc, Backspace; d-pad,
//! stick, South, East, Start) whatever is bound, so no binding can lock a
//! player out of the settings; the left stick always moves.

use serde::{Deserialize, Serialize};

/// The most keys (and the most buttons) one action may have: two is what
/// the defaults use (arrows and W/A/S/D, both Shifts); four leaves room
/// and keeps a settings file small.
pub const MAX_PER_ACTION: usize = 4;

/// Keys no action may have, with what they do: designer mode and the
/// profiling overlay are tools, not play, and keep their keys.
pub const RESERVED_KEYS: [(&str, &str); 2] =
    [("F2", "designer mode"), ("F3", "the profiling overlay")];

/// Something the player does with a key or a button.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// Walk (or run) left.
    Left,
    /// Walk (or run) right.
    Right,
    /// Climb up a ladder.
    Up,
    /// Climb down a ladder (with jump: drop through a one-way plank).
    Down,
    /// Jump (held for height).
    Jump,
    /// Run while held.
    Run,
    /// Pause (and resume from the pause menu).
    Pause,
    /// Save the attempt so far as a replay for a bug report.
    SaveReplay,
    /// Save a screenshot.
    Screenshot,
    /// Foot and ladder IK on or off.
    ToggleIk,
    /// The debug overlay on or off.
    ToggleDebug,
}

impl Action {
    /// Every action, in the order the screens list them.
    pub const ALL: [Action; 11] = [
        Action::Left,
        Action::Right,
        Action::Up,
        Action::Down,
        Action::Jump,
        Action::Run,
        Action::Pause,
        Action::SaveReplay,
        Action::Screenshot,
        Action::ToggleIk,
        Action::ToggleDebug,
    ];

    /// What the action is called on the screens and in the README.
    pub fn label(self) -> &'static str {
        match self {
            Action::Left => "walk left",
            Action::Right => "walk right",
            Action::Up => "climb up",
            Action::Down => "climb down",
            Action::Jump => "jump (hold for height)",
            Action::Run => "run (hold)",
            Action::Pause => "pause",
            Action::SaveReplay => "save a replay for a bug report",
            Action::Screenshot => "save a screenshot",
            Action::ToggleIk => "toggle foot and ladder IK",
            Action::ToggleDebug => "toggle the debug overlay",
        }
    }

    /// The stick direction that does the action too (not rebindable).
    pub fn stick(self) -> Option<&'static str> {
        match self {
            Action::Left => Some("left stick left"),
            Action::Right => Some("left stick right"),
            Action::Up => Some("left stick up"),
            Action::Down => Some("left stick down"),
            _ => None,
        }
    }
}

/// The keyboard keys a binding may name (winit's `KeyCode` names) and
/// their labels.
pub const KEYS: &[(&str, &str)] = &[
    ("ArrowLeft", "←"),
    ("ArrowRight", "→"),
    ("ArrowUp", "↑"),
    ("ArrowDown", "↓"),
    ("KeyA", "A"),
    ("KeyB", "B"),
    ("KeyC", "C"),
    ("KeyD", "D"),
    ("KeyE", "E"),
    ("KeyF", "F"),
    ("KeyG", "G"),
    ("KeyH", "H"),
    ("KeyI", "I"),
    ("KeyJ", "J"),
    ("KeyK", "K"),
    ("KeyL", "L"),
    ("KeyM", "M"),
    ("KeyN", "N"),
    ("KeyO", "O"),
    ("KeyP", "P"),
    ("KeyQ", "Q"),
    ("KeyR", "R"),
    ("KeyS", "S"),
    ("KeyT", "T"),
    ("KeyU", "U"),
    ("KeyV", "V"),
    ("KeyW", "W"),
    ("KeyX", "X"),
    ("KeyY", "Y"),
    ("KeyZ", "Z"),
    ("Digit0", "0"),
    ("Digit1", "1"),
    ("Digit2", "2"),
    ("Digit3", "3"),
    ("Digit4", "4"),
    ("Digit5", "5"),
    ("Digit6", "6"),
    ("Digit7", "7"),
    ("Digit8", "8"),
    ("Digit9", "9"),
    ("Space", "Space"),
    ("Enter", "Enter"),
    ("Tab", "Tab"),
    ("Backspace", "Backspace"),
    ("Escape", "Esc"),
    ("ShiftLeft", "left Shift"),
    ("ShiftRight", "right Shift"),
    ("ControlLeft", "left Ctrl"),
    ("ControlRight", "right Ctrl"),
    ("AltLeft", "left Alt"),
    ("AltRight", "right Alt"),
    ("CapsLock", "Caps Lock"),
    ("Comma", ","),
    ("Period", "."),
    ("Slash", "/"),
    ("Semicolon", ";"),
    ("Quote", "'"),
    ("BracketLeft", "["),
    ("BracketRight", "]"),
    ("Backslash", "\\"),
    ("Minus", "-"),
    ("Equal", "="),
    ("Backquote", "`"),
    ("IntlBackslash", "< >"),
    ("Insert", "Insert"),
    ("Delete", "Delete"),
    ("Home", "Home"),
    ("End", "End"),
    ("PageUp", "Page Up"),
    ("PageDown", "Page Down"),
    ("Numpad0", "numpad 0"),
    ("Numpad1", "numpad 1"),
    ("Numpad2", "numpad 2"),
    ("Numpad3", "numpad 3"),
    ("Numpad4", "numpad 4"),
    ("Numpad5", "numpad 5"),
    ("Numpad6", "numpad 6"),
    ("Numpad7", "numpad 7"),
    ("Numpad8", "numpad 8"),
    ("Numpad9", "numpad 9"),
    ("NumpadEnter", "numpad Enter"),
    ("NumpadAdd", "numpad +"),
    ("NumpadSubtract", "numpad -"),
    ("F1", "F1"),
    ("F2", "F2"),
    ("F3", "F3"),
    ("F4", "F4"),
    ("F5", "F5"),
    ("F6", "F6"),
    ("F7", "F7"),
    ("F8", "F8"),
    ("F9", "F9"),
    ("F10", "F10"),
    ("F11", "F11"),
    ("F12", "F12"),
];

/// The gamepad buttons a binding may name (gilrs's `Button` names) and
/// their labels.
pub const BUTTONS: &[(&str, &str)] = &[
    ("South", "South (A/✕)"),
    ("East", "East (B/○)"),
    ("North", "North (Y/△)"),
    ("West", "West (X/□)"),
    ("LeftTrigger", "left bumper"),
    ("LeftTrigger2", "left trigger"),
    ("RightTrigger", "right bumper"),
    ("RightTrigger2", "right trigger"),
    ("Select", "Select"),
    ("Start", "Start"),
    ("Mode", "Mode"),
    ("LeftThumb", "left stick press"),
    ("RightThumb", "right stick press"),
    ("DPadUp", "d-pad up"),
    ("DPadDown", "d-pad down"),
    ("DPadLeft", "d-pad left"),
    ("DPadRight", "d-pad right"),
    ("C", "C"),
    ("Z", "Z"),
];

/// A key's label, or its name when it has none.
pub fn key_label(name: &str) -> &str {
    KEYS.iter()
        .find(|(n, _)| *n == name)
        .map_or(name, |(_, l)| l)
}

/// A button's label, or its name when it has none.
pub fn button_label(name: &str) -> &str {
    BUTTONS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(name, |(_, l)| l)
}

/// The keys and buttons of one action.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Binding {
    /// Keyboard keys, by name ([`KEYS`]).
    pub keys: Vec<String>,
    /// Gamepad buttons, by name ([`BUTTONS`]).
    pub pad: Vec<String>,
}

impl Binding {
    fn of(keys: &[&str], pad: &[&str]) -> Self {
        Self {
            keys: keys.iter().map(|s| s.to_string()).collect(),
            pad: pad.iter().map(|s| s.to_string()).collect(),
        }
    }
}

/// Every action's keys and buttons. A settings file that leaves an action
/// out (an older one, from before it was added) gives it its default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bindings {
    /// [`Action::Left`].
    pub left: Binding,
    /// [`Action::Right`].
    pub right: Binding,
    /// [`Action::Up`].
    pub up: Binding,
    /// [`Action::Down`].
    pub down: Binding,
    /// [`Action::Jump`].
    pub jump: Binding,
    /// [`Action::Run`].
    pub run: Binding,
    /// [`Action::Pause`].
    pub pause: Binding,
    /// [`Action::SaveReplay`].
    pub save_replay: Binding,
    /// [`Action::Screenshot`].
    pub screenshot: Binding,
    /// [`Action::ToggleIk`].
    pub toggle_ik: Binding,
    /// [`Action::ToggleDebug`].
    pub toggle_debug: Binding,
}

impl Default for Bindings {
    fn default() -> Self {
        Self {
            left: Binding::of(&["ArrowLeft", "KeyA"], &["DPadLeft"]),
            right: Binding::of(&["ArrowRight", "KeyD"], &["DPadRight"]),
            up: Binding::of(&["ArrowUp", "KeyW"], &["DPadUp"]),
            down: Binding::of(&["ArrowDown", "KeyS"], &["DPadDown"]),
            jump: Binding::of(&["Space"], &["South"]),
            run: Binding::of(&["ShiftLeft", "ShiftRight"], &["West", "RightTrigger2"]),
            pause: Binding::of(&["Escape"], &["Start"]),
            save_replay: Binding::of(&["F8"], &[]),
            screenshot: Binding::of(&["F12"], &[]),
            toggle_ik: Binding::of(&["KeyI"], &[]),
            toggle_debug: Binding::of(&["F1"], &[]),
        }
    }
}

impl Bindings {
    /// The binding of `action`.
    pub fn get(&self, action: Action) -> &Binding {
        match action {
            Action::Left => &self.left,
            Action::Right => &self.right,
            Action::Up => &self.up,
            Action::Down => &self.down,
            Action::Jump => &self.jump,
            Action::Run => &self.run,
            Action::Pause => &self.pause,
            Action::SaveReplay => &self.save_replay,
            Action::Screenshot => &self.screenshot,
            Action::ToggleIk => &self.toggle_ik,
            Action::ToggleDebug => &self.toggle_debug,
        }
    }

    fn get_mut(&mut self, action: Action) -> &mut Binding {
        match action {
            Action::Left => &mut self.left,
            Action::Right => &mut self.right,
            Action::Up => &mut self.up,
            Action::Down => &mut self.down,
            Action::Jump => &mut self.jump,
            Action::Run => &mut self.run,
            Action::Pause => &mut self.pause,
            Action::SaveReplay => &mut self.save_replay,
            Action::Screenshot => &mut self.screenshot,
            Action::ToggleIk => &mut self.toggle_ik,
            Action::ToggleDebug => &mut self.toggle_debug,
        }
    }

    /// The action a key (by name) does, if any.
    pub fn action_for_key(&self, key: &str) -> Option<Action> {
        Action::ALL
            .into_iter()
            .find(|&a| self.get(a).keys.iter().any(|k| k == key))
    }

    /// The action a gamepad button (by name) does, if any.
    pub fn action_for_button(&self, button: &str) -> Option<Action> {
        Action::ALL
            .into_iter()
            .find(|&a| self.get(a).pad.iter().any(|b| b == button))
    }

    /// Whether `action`'s gamepad buttons include `button`.
    pub fn has_button(&self, action: Action, button: &str) -> bool {
        self.get(action).pad.iter().any(|b| b == button)
    }

    /// Gives `action` the one key `key` (by name) in place of its keys;
    /// refused, with the reason, for a key that is unknown, reserved or
    /// another action's.
    pub fn bind_key(&mut self, action: Action, key: &str) -> Result<(), String> {
        if let Some((_, what)) = RESERVED_KEYS.iter().find(|(k, _)| *k == key) {
            return Err(format!(
                "{} is kept for {what}; choose another key for {}",
                key_label(key),
                action.label()
            ));
        }
        if !KEYS.iter().any(|(k, _)| *k == key) {
            return Err(format!(
                "the key {key} cannot be bound; choose another key for {}",
                action.label()
            ));
        }
        if let Some(other) = self.action_for_key(key).filter(|&o| o != action) {
            return Err(format!(
                "{} already does \"{}\": rebind that first, or restore the defaults",
                key_label(key),
                other.label()
            ));
        }
        self.get_mut(action).keys = vec![key.to_string()];
        Ok(())
    }

    /// Gives `action` the one gamepad button `button` (by name) in place of
    /// its buttons; refused, with the reason, for a button that is unknown
    /// or another action's.
    pub fn bind_button(&mut self, action: Action, button: &str) -> Result<(), String> {
        if !BUTTONS.iter().any(|(b, _)| *b == button) {
            return Err(format!(
                "the button {button} cannot be bound; choose another button for {}",
                action.label()
            ));
        }
        if let Some(other) = self.action_for_button(button).filter(|&o| o != action) {
            return Err(format!(
                "{} already does \"{}\": rebind that first, or restore the defaults",
                button_label(button),
                other.label()
            ));
        }
        self.get_mut(action).pad = vec![button.to_string()];
        Ok(())
    }

    /// The action's keys as the screens show them (`← or A`).
    pub fn keys_text(&self, action: Action) -> String {
        let keys: Vec<&str> = self.get(action).keys.iter().map(|k| key_label(k)).collect();
        if keys.is_empty() {
            "none".into()
        } else {
            keys.join(" or ")
        }
    }

    /// The action's gamepad buttons as the screens show them, the stick
    /// first where it does the action too.
    pub fn pad_text(&self, action: Action) -> String {
        let pad: Vec<&str> = action
            .stick()
            .into_iter()
            .chain(self.get(action).pad.iter().map(|b| button_label(b)))
            .collect();
        if pad.is_empty() {
            "none".into()
        } else {
            pad.join(" or ")
        }
    }

    /// The controls table's rows, one per action: `| action | keys | pad |`
    /// (the README's table holds these for the defaults).
    pub fn table_rows(&self) -> Vec<String> {
        Action::ALL
            .into_iter()
            .map(|a| {
                format!(
                    "| {} | {} | {} |",
                    a.label(),
                    self.keys_text(a),
                    self.pad_text(a)
                )
            })
            .collect()
    }

    /// Checks the rules (see the module's documentation); the reason names
    /// the action and the key or button.
    pub fn check(&self) -> Result<(), String> {
        let mut keys: Vec<(&str, Action)> = Vec::new();
        let mut buttons: Vec<(&str, Action)> = Vec::new();
        for a in Action::ALL {
            let b = self.get(a);
            if b.keys.len() > MAX_PER_ACTION || b.pad.len() > MAX_PER_ACTION {
                return Err(format!(
                    "\"{}\" has {} keys and {} buttons; the limit is {MAX_PER_ACTION} of each",
                    a.label(),
                    b.keys.len(),
                    b.pad.len()
                ));
            }
            for k in &b.keys {
                if !KEYS.iter().any(|(n, _)| n == k) {
                    return Err(format!(
                        "\"{}\" is bound to an unknown key {k:?}",
                        a.label()
                    ));
                }
                if let Some((_, what)) = RESERVED_KEYS.iter().find(|(r, _)| r == k) {
                    return Err(format!(
                        "\"{}\" is bound to {k}, which is kept for {what}",
                        a.label()
                    ));
                }
                if let Some((_, other)) = keys.iter().find(|(n, _)| n == k) {
                    return Err(format!(
                        "the key {k} is bound to both \"{}\" and \"{}\"",
                        other.label(),
                        a.label()
                    ));
                }
                keys.push((k, a));
            }
            for p in &b.pad {
                if !BUTTONS.iter().any(|(n, _)| n == p) {
                    return Err(format!(
                        "\"{}\" is bound to an unknown gamepad button {p:?}",
                        a.label()
                    ));
                }
                if let Some((_, other)) = buttons.iter().find(|(n, _)| n == p) {
                    return Err(format!(
                        "the gamepad button {p} is bound to both \"{}\" and \"{}\"",
                        other.label(),
                        a.label()
                    ));
                }
                buttons.push((p, a));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_pass_the_rules() {
        Bindings::default().check().unwrap();
        let b = Bindings::default();
        assert_eq!(b.action_for_key("KeyA"), Some(Action::Left));
        assert_eq!(b.action_for_key("Space"), Some(Action::Jump));
        assert_eq!(b.action_for_button("Start"), Some(Action::Pause));
        assert_eq!(b.action_for_key("KeyQ"), None);
        assert_eq!(b.keys_text(Action::Left), "← or A");
        assert_eq!(b.pad_text(Action::Left), "left stick left or d-pad left");
        assert_eq!(b.pad_text(Action::Screenshot), "none");
    }

    #[test]
    fn a_conflicting_key_or_button_is_refused_naming_the_other_action() {
        let mut b = Bindings::default();
        let e = b.bind_key(Action::Jump, "KeyD").unwrap_err();
        assert_eq!(
            e,
            "D already does \"walk right\": rebind that first, or restore the defaults"
        );
        let e = b.bind_button(Action::Run, "South").unwrap_err();
        assert!(e.starts_with("South (A/✕) already does \"jump"), "{e}");
        let e = b.bind_key(Action::Jump, "F3").unwrap_err();
        assert!(e.starts_with("F3 is kept for the profiling overlay"), "{e}");
        let e = b.bind_key(Action::Jump, "Lang1").unwrap_err();
        assert!(e.contains("cannot be bound"), "{e}");
        assert_eq!(b, Bindings::default(), "nothing changed");
        // Rebinding an action to its own key, or to a free one, is fine.
        b.bind_key(Action::Jump, "Space").unwrap();
        b.bind_key(Action::Left, "KeyQ").unwrap();
        assert_eq!(b.left.keys, ["KeyQ"]);
        assert_eq!(b.action_for_key("KeyA"), None, "A was freed");
        b.bind_key(Action::Jump, "KeyA").unwrap();
        b.bind_button(Action::Jump, "North").unwrap();
        assert_eq!(b.action_for_button("South"), None);
        b.check().unwrap();
    }

    #[test]
    fn check_refuses_duplicates_unknown_names_reserved_keys_and_too_many() {
        let mut b = Bindings::default();
        b.jump.keys.push("KeyA".into());
        assert_eq!(
            b.check().unwrap_err(),
            "the key KeyA is bound to both \"walk left\" and \"jump (hold for height)\""
        );
        let mut b = Bindings::default();
        b.run.pad.push("Start".into());
        assert!(b.check().unwrap_err().contains("gamepad button Start"));
        let mut b = Bindings::default();
        b.up.keys = vec!["Hyper".into()];
        assert!(b.check().unwrap_err().contains("unknown key \"Hyper\""));
        let mut b = Bindings::default();
        b.up.keys = vec!["F2".into()];
        assert!(b.check().unwrap_err().contains("kept for designer mode"));
        let mut b = Bindings::default();
        b.up.keys = ["KeyQ", "KeyE", "KeyR", "KeyT", "KeyY"]
            .map(String::from)
            .to_vec();
        assert!(b.check().unwrap_err().contains("the limit is 4"));
        let mut b = Bindings::default();
        b.up.pad = vec!["Paddle".into()];
        assert!(b.check().unwrap_err().contains("unknown gamepad button"));
    }

    /// README.md's controls table holds one row per action, generated
    /// from the defaults: what the README says is what the game does.
    #[test]
    fn the_readme_controls_table_matches_the_defaults() {
        let readme = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"),
        )
        .unwrap();
        let missing: Vec<String> = Bindings::default()
            .table_rows()
            .into_iter()
            .filter(|row| !readme.lines().any(|l| l.trim() == row))
            .collect();
        assert!(
            missing.is_empty(),
            "README.md's controls table lacks these rows (generated from the default bindings):\n{}",
            missing.join("\n")
        );
    }

    #[test]
    fn every_label_is_unique_and_names_are_unique() {
        for table in [KEYS, BUTTONS] {
            let mut names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), table.len());
            let mut labels: Vec<&str> = table.iter().map(|(_, l)| *l).collect();
            labels.sort_unstable();
            labels.dedup();
            assert_eq!(labels.len(), table.len());
        }
    }
}

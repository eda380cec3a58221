//! The game around the levels: which screen is up (title, level select,
//! controls, settings, playing, paused, level complete, finished), the
//! menu on it and its selection, the level being played, the progress and
//! the settings.
//!
//! Everything here is plain data driven by three kinds of input, so tests
//! drive it without a window: [`Game::key`] for menu keys (the window maps
//! the keyboard and gamepad onto [`MenuKey`]), [`Game::hover`] and
//! [`Game::activate`] for the mouse (egui reports which item is under the
//! pointer or was clicked), and [`Game::step`] once per fixed step. What
//! needs the world outside (loading a level, saving, quitting, applying a
//! setting) comes back as [`Command`]s for the caller to carry out.
//!
//! Menus: Up/Down move the selection (wrapping), Confirm activates,
//! Left/Right change a setting's value, Back leaves a submenu for the
//! screen it was opened from. In play, Back (Esc, gamepad Start) pauses;
//! on the pause menu it resumes.

use crate::flow::bindings::{Action, Bindings};
use crate::flow::run::{FlowEvent, LevelRun};
use crate::flow::save::{Progress, Settings};
use crate::flow::sequence::Sequence;
use crate::sim::Sim;
use crate::sim::player::Input;

/// How much one Left/Right press changes the volume.
pub const VOLUME_STEP: f32 = 0.1;

/// What is on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    /// The title menu.
    Title,
    /// The list of levels, the locked ones greyed.
    LevelSelect,
    /// The controls table.
    Controls,
    /// Window, volume, IK and debug settings.
    Settings,
    /// The key bindings: every action's keys and buttons, to rebind.
    Bindings,
    /// A level in play; only the HUD is shown.
    Playing,
    /// The pause menu over the frozen level.
    Paused,
    /// The panel after an exit: time, falls, best time.
    LevelComplete,
    /// After the sequence's last level.
    Finished,
}

/// One entry of a menu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// Start the first level (nothing completed yet).
    Play,
    /// Start the first level not yet completed.
    Continue,
    /// Open the level select.
    LevelSelect,
    /// Show the controls.
    Controls,
    /// Open the settings.
    Settings,
    /// Quit the game.
    Quit,
    /// Back to the level (pause menu).
    Resume,
    /// Start the current level again.
    Restart,
    /// A level of the sequence, by index.
    Level(usize),
    /// Window or fullscreen.
    Fullscreen,
    /// The volume (Left/Right change it).
    Volume,
    /// Foot and ladder IK on or off.
    Ik,
    /// The debug overlay on or off.
    Debug,
    /// Open the key bindings.
    KeyBindings,
    /// Rebind an action (Confirm, then the key or button).
    Bind(Action),
    /// Every binding back to its default.
    RestoreDefaults,
    /// Back to the screen this one was opened from.
    Back,
    /// On to the next level (or the finish screen after the last).
    NextLevel,
    /// To the title screen.
    TitleScreen,
}

/// A menu key, whichever device it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuKey {
    /// ↑, W, d-pad or stick up.
    Up,
    /// ↓, S, d-pad or stick down.
    Down,
    /// ←, A, d-pad or stick left.
    Left,
    /// →, D, d-pad or stick right.
    Right,
    /// Enter, Space, gamepad South.
    Confirm,
    /// Esc, Backspace, gamepad East or Start.
    Back,
}

/// The level being played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Current {
    /// A level of the sequence, by index.
    Sequence(usize),
    /// A level outside the sequence (`play --level FILE.tmx`), by its
    /// `--level` argument.
    Single(String),
}

/// What the caller must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Load this level and put the player at its spawn (a start or a
    /// restart); the run is already reset.
    Load(Current),
    /// Save the progress (a level was completed).
    SaveProgress,
    /// Apply and save the settings (one changed).
    SettingsChanged,
    /// Quit the game.
    Quit,
}

/// The result shown on the level-complete panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Completed {
    /// The level's display name.
    pub name: String,
    /// This run's time, seconds.
    pub time_s: f32,
    /// This run's falls.
    pub falls: u32,
    /// The best time including this run, seconds.
    pub best_time_s: f32,
    /// Whether this run set the best time.
    pub new_best: bool,
}

/// The whole game's state outside the simulation.
#[derive(Clone, Debug)]
pub struct Game {
    /// The levels in order.
    pub sequence: Sequence,
    /// Levels completed and best times.
    pub progress: Progress,
    /// The player's settings.
    pub settings: Settings,
    /// What is on screen.
    pub screen: Screen,
    /// The selected item of the screen's menu.
    pub selected: usize,
    /// The level being played (or shown behind the title).
    pub current: Current,
    /// The display name of the current level (the HUD's), set by the
    /// caller when it loads one.
    pub level_name: String,
    /// The attempt at the current level.
    pub run: LevelRun,
    /// What happened in the flow since [`Game::begin_frame`]: checkpoints,
    /// falls, respawns, completions, for sounds.
    pub events: Vec<FlowEvent>,
    /// The last completed run, for the level-complete panel.
    pub last: Option<Completed>,
    /// A message shown over the screen for a few seconds (a saved replay,
    /// a refused key binding); the window clears it.
    pub notice: Option<String>,
    /// The action waiting for its new key or button (the bindings screen
    /// after Confirm on it): the next key or button pressed goes to
    /// [`Game::bind_key`] or [`Game::bind_button`].
    pub capturing: Option<Action>,
    /// Screens to go back to, with their selections.
    back: Vec<(Screen, usize)>,
}

impl Game {
    /// A game at the title screen, the first level not yet completed behind
    /// it.
    pub fn new(sequence: Sequence, progress: Progress, settings: Settings) -> Self {
        let mut g = Self {
            sequence,
            progress,
            settings,
            screen: Screen::Title,
            selected: 0,
            current: Current::Sequence(0),
            level_name: String::new(),
            run: LevelRun::new(),
            events: Vec::new(),
            last: None,
            notice: None,
            capturing: None,
            back: Vec::new(),
        };
        g.current = Current::Sequence(g.continue_index());
        g
    }

    /// A game straight in play on `level` (a `--level` argument): a
    /// level of the sequence plays on through it, any other stands alone.
    pub fn playing(
        sequence: Sequence,
        progress: Progress,
        settings: Settings,
        level: &str,
    ) -> Self {
        let mut g = Self::new(sequence, progress, settings);
        g.current = match g.sequence.position(level) {
            Some(i) => Current::Sequence(i),
            None => Current::Single(level.to_string()),
        };
        g.screen = Screen::Playing;
        g
    }

    /// The name progress is kept under for the current level.
    pub fn current_key(&self) -> String {
        match &self.current {
            Current::Sequence(i) => self.sequence.names[*i].clone(),
            Current::Single(name) => name.clone(),
        }
    }

    /// The `--level` argument of the current level.
    pub fn current_level_arg(&self) -> String {
        self.current_key()
    }

    /// The first level not completed (the first when all are).
    pub fn continue_index(&self) -> usize {
        self.sequence
            .names
            .iter()
            .position(|n| !self.progress.completed.contains_key(n))
            .unwrap_or(0)
    }

    /// Whether level `i` of the sequence may be played: the first, any
    /// completed one, and the one after a completed one.
    pub fn unlocked(&self, i: usize) -> bool {
        let done = |k: usize| {
            self.progress
                .completed
                .contains_key(&self.sequence.names[k])
        };
        i == 0 || (i < self.sequence.len() && (done(i) || done(i - 1)))
    }

    /// The current screen's menu, in order.
    pub fn items(&self) -> Vec<Item> {
        match self.screen {
            Screen::Title => {
                let start = if self.progress.completed.is_empty() {
                    Item::Play
                } else {
                    Item::Continue
                };
                vec![
                    start,
                    Item::LevelSelect,
                    Item::Controls,
                    Item::Settings,
                    Item::Quit,
                ]
            }
            Screen::LevelSelect => (0..self.sequence.len())
                .map(Item::Level)
                .chain([Item::Back])
                .collect(),
            Screen::Controls => vec![Item::Back],
            Screen::Settings => vec![
                Item::Fullscreen,
                Item::Volume,
                Item::Ik,
                Item::Debug,
                Item::KeyBindings,
                Item::Back,
            ],
            Screen::Bindings => Action::ALL
                .into_iter()
                .map(Item::Bind)
                .chain([Item::RestoreDefaults, Item::Back])
                .collect(),
            Screen::Playing => Vec::new(),
            Screen::Paused => vec![
                Item::Resume,
                Item::Restart,
                Item::LevelSelect,
                Item::Settings,
                Item::Quit,
            ],
            Screen::LevelComplete => match self.current {
                Current::Sequence(_) => vec![
                    Item::NextLevel,
                    Item::Restart,
                    Item::LevelSelect,
                    Item::TitleScreen,
                ],
                Current::Single(_) => vec![Item::Restart, Item::TitleScreen, Item::Quit],
            },
            Screen::Finished => vec![Item::TitleScreen, Item::Quit],
        }
    }

    /// The label an item shows (with its value, for settings).
    pub fn label(&self, item: Item) -> String {
        let on_off = |b: bool| if b { "on" } else { "off" };
        match item {
            Item::Play => "Play".into(),
            Item::Continue => "Continue".into(),
            Item::LevelSelect => "Level select".into(),
            Item::Controls => "Controls".into(),
            Item::Settings => "Settings".into(),
            Item::Quit => "Quit".into(),
            Item::Resume => "Resume".into(),
            Item::Restart => match self.screen {
                Screen::LevelComplete => "Play again".into(),
                _ => "Restart level".into(),
            },
            Item::Level(i) => {
                let best = self
                    .progress
                    .best_time(&self.sequence.names[i])
                    .map_or(String::new(), |t| format!("   best {}", format_time(t)));
                let lock = if self.unlocked(i) { "" } else { "   (locked)" };
                format!("{}. {}{best}{lock}", i + 1, self.sequence.titles[i])
            }
            Item::Fullscreen => format!(
                "Display: {}",
                if self.settings.fullscreen {
                    "fullscreen"
                } else {
                    "window"
                }
            ),
            Item::Volume => format!("Volume: {:.0} %", self.settings.volume * 100.0),
            Item::Ik => format!("Foot and ladder IK: {}", on_off(self.settings.ik)),
            Item::Debug => format!("Debug overlay: {}", on_off(self.settings.debug)),
            Item::KeyBindings => "Key bindings".into(),
            Item::Bind(a) if self.capturing == Some(a) => format!(
                "{}: press a key or a gamepad button (Esc cancels)",
                a.label()
            ),
            Item::Bind(a) => {
                let b = &self.settings.bindings;
                format!("{}: {}  |  {}", a.label(), b.keys_text(a), b.pad_text(a))
            }
            Item::RestoreDefaults => "Restore the default controls".into(),
            Item::Back => "Back".into(),
            Item::NextLevel => match self.current {
                Current::Sequence(i) if i + 1 >= self.sequence.len() => "Finish".into(),
                _ => "Next level".into(),
            },
            Item::TitleScreen => "Title screen".into(),
        }
    }

    /// Whether `item` can be activated now (locked levels cannot).
    pub fn enabled(&self, item: Item) -> bool {
        match item {
            Item::Level(i) => self.unlocked(i),
            _ => true,
        }
    }

    /// Clears the events of the last frame (call once per rendered frame,
    /// before its steps).
    pub fn begin_frame(&mut self) {
        self.events.clear();
    }

    /// Whether a menu (or panel) is over the level rather than play.
    pub fn in_menu(&self) -> bool {
        self.screen != Screen::Playing
    }

    /// One fixed step: the run steps the simulation while playing (see
    /// [`LevelRun::step`]); on the pause menu and the other screens
    /// nothing moves. Reaching the exit records the run and opens the
    /// level-complete panel.
    pub fn step(&mut self, sim: &mut Sim, input: &Input) -> Vec<Command> {
        if self.screen != Screen::Playing {
            return Vec::new();
        }
        let first_new = self.events.len();
        self.run.step(sim, input, &mut self.events);
        let completed = self.events[first_new..].iter().find_map(|e| match e {
            FlowEvent::LevelComplete { time_s, falls } => Some((*time_s, *falls)),
            _ => None,
        });
        let Some((time_s, falls)) = completed else {
            return Vec::new();
        };
        let key = self.current_key();
        let new_best = self.progress.record(&key, time_s, falls);
        self.last = Some(Completed {
            name: self.level_name.clone(),
            time_s,
            falls,
            best_time_s: self.progress.best_time(&key).unwrap_or(time_s),
            new_best,
        });
        self.open(Screen::LevelComplete);
        vec![Command::SaveProgress]
    }

    /// Handles a menu key.
    pub fn key(&mut self, key: MenuKey) -> Vec<Command> {
        match (self.screen, key) {
            (Screen::Playing, MenuKey::Back) => {
                self.open(Screen::Paused);
                return Vec::new();
            }
            (Screen::Playing, _) => return Vec::new(),
            (Screen::Paused, MenuKey::Back) => {
                self.screen = Screen::Playing;
                return Vec::new();
            }
            _ => {}
        }
        let n = self.items().len();
        match key {
            MenuKey::Up => self.selected = (self.selected + n - 1) % n,
            MenuKey::Down => self.selected = (self.selected + 1) % n,
            MenuKey::Left | MenuKey::Right => {
                let more = key == MenuKey::Right;
                return self.adjust(self.items()[self.selected], more);
            }
            MenuKey::Confirm => return self.activate(self.selected),
            MenuKey::Back => return self.go_back(),
        }
        Vec::new()
    }

    /// The pointer is over item `index`: it becomes the selection.
    pub fn hover(&mut self, index: usize) {
        if index < self.items().len() {
            self.selected = index;
        }
    }

    /// Activates item `index` of the current menu (a click, or Confirm).
    pub fn activate(&mut self, index: usize) -> Vec<Command> {
        let Some(&item) = self.items().get(index) else {
            return Vec::new();
        };
        self.selected = index;
        if !self.enabled(item) {
            return Vec::new();
        }
        match item {
            Item::Play | Item::Continue => self.start(Current::Sequence(self.continue_index())),
            Item::LevelSelect => {
                self.push(Screen::LevelSelect);
                if let Current::Sequence(i) = self.current {
                    self.selected = i;
                }
                Vec::new()
            }
            Item::Controls => {
                self.push(Screen::Controls);
                Vec::new()
            }
            Item::Settings => {
                self.push(Screen::Settings);
                Vec::new()
            }
            Item::KeyBindings => {
                self.push(Screen::Bindings);
                Vec::new()
            }
            Item::Bind(a) => {
                self.capturing = Some(a);
                self.notice = None;
                Vec::new()
            }
            Item::RestoreDefaults => {
                self.settings.bindings = Bindings::default();
                self.notice = Some("The default controls are restored".into());
                vec![Command::SettingsChanged]
            }
            Item::Quit => vec![Command::Quit],
            Item::Resume => {
                self.screen = Screen::Playing;
                Vec::new()
            }
            Item::Restart => self.start(self.current.clone()),
            Item::Level(i) => self.start(Current::Sequence(i)),
            Item::Fullscreen | Item::Ik | Item::Debug | Item::Volume => self.adjust(item, true),
            Item::Back => self.go_back(),
            Item::NextLevel => match self.current {
                Current::Sequence(i) if i + 1 < self.sequence.len() => {
                    self.start(Current::Sequence(i + 1))
                }
                _ => {
                    self.open(Screen::Finished);
                    Vec::new()
                }
            },
            Item::TitleScreen => {
                self.open(Screen::Title);
                let title = Current::Sequence(self.continue_index());
                if title != self.current {
                    self.current = title.clone();
                    self.run = LevelRun::new();
                    return vec![Command::Load(title)];
                }
                Vec::new()
            }
        }
    }

    /// The key named `key` (winit's `KeyCode` name) was pressed while an
    /// action waited for one: it is bound, or refused with the reason
    /// shown ([`Game::notice`]); either way the wait ends.
    pub fn bind_key(&mut self, key: &str) -> Vec<Command> {
        self.bind(|b, a| b.bind_key(a, key))
    }

    /// The gamepad button named `button` (gilrs's `Button` name) was
    /// pressed while an action waited for one; see [`Game::bind_key`].
    pub fn bind_button(&mut self, button: &str) -> Vec<Command> {
        self.bind(|b, a| b.bind_button(a, button))
    }

    /// The wait for a key ends without a change (Esc).
    pub fn cancel_binding(&mut self) {
        self.capturing = None;
    }

    fn bind(
        &mut self,
        f: impl FnOnce(&mut Bindings, Action) -> Result<(), String>,
    ) -> Vec<Command> {
        let Some(action) = self.capturing.take() else {
            return Vec::new();
        };
        match f(&mut self.settings.bindings, action) {
            Ok(()) => {
                self.notice = None;
                vec![Command::SettingsChanged]
            }
            Err(why) => {
                self.notice = Some(format!("Not bound: {why}"));
                Vec::new()
            }
        }
    }

    /// Changes a setting: toggles flip, the volume goes up (`more`) or down
    /// by [`VOLUME_STEP`] (Confirm on it goes up and wraps from full to
    /// silent).
    fn adjust(&mut self, item: Item, more: bool) -> Vec<Command> {
        let s = &mut self.settings;
        match item {
            Item::Fullscreen => s.fullscreen = !s.fullscreen,
            Item::Ik => s.ik = !s.ik,
            Item::Debug => s.debug = !s.debug,
            Item::Volume => {
                let steps = (s.volume / VOLUME_STEP).round() as i32;
                let max = (1.0 / VOLUME_STEP).round() as i32;
                let next = if more { steps + 1 } else { steps - 1 };
                s.volume = (next.clamp(0, max) as f32 * VOLUME_STEP).clamp(0.0, 1.0);
            }
            _ => return Vec::new(),
        }
        vec![Command::SettingsChanged]
    }

    /// Starts (or restarts) `level` from its spawn.
    fn start(&mut self, level: Current) -> Vec<Command> {
        self.current = level.clone();
        self.run = LevelRun::new();
        self.back.clear();
        self.screen = Screen::Playing;
        self.selected = 0;
        vec![Command::Load(level)]
    }

    /// Shows `screen` in place of the current one, forgetting the way back.
    fn open(&mut self, screen: Screen) {
        self.back.clear();
        self.screen = screen;
        self.selected = 0;
    }

    /// Shows `screen`, remembering the current one for Back.
    fn push(&mut self, screen: Screen) {
        self.back.push((self.screen, self.selected));
        self.screen = screen;
        self.selected = 0;
    }

    /// Back to the screen this one was opened from; on a screen opened from
    /// nowhere (the title, a panel) Back does nothing.
    fn go_back(&mut self) -> Vec<Command> {
        self.capturing = None;
        if let Some((screen, selected)) = self.back.pop() {
            self.screen = screen;
            self.selected = selected;
        }
        Vec::new()
    }
}

/// Seconds as `m:ss.cc`.
pub fn format_time(s: f32) -> String {
    let cs = (s.max(0.0) * 100.0).round() as u64;
    format!("{}:{:02}.{:02}", cs / 6000, cs / 100 % 60, cs % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> Game {
        Game::new(
            Sequence::shipped().unwrap(),
            Progress::default(),
            Settings::default(),
        )
    }

    #[test]
    fn the_title_starts_the_first_level_with_play() {
        let mut g = game();
        assert_eq!(g.screen, Screen::Title);
        assert_eq!(g.items()[0], Item::Play);
        assert_eq!(
            g.key(MenuKey::Confirm),
            [Command::Load(Current::Sequence(0))]
        );
        assert_eq!(g.screen, Screen::Playing);
    }

    #[test]
    fn up_and_down_wrap_and_hover_selects() {
        let mut g = game();
        g.key(MenuKey::Up);
        assert_eq!(g.items()[g.selected], Item::Quit);
        assert_eq!(g.key(MenuKey::Confirm), [Command::Quit]);
        g.key(MenuKey::Down);
        assert_eq!(g.selected, 0);
        g.hover(2);
        assert_eq!(g.items()[g.selected], Item::Controls);
        g.hover(99);
        assert_eq!(g.selected, 2, "hovering nothing keeps the selection");
    }

    #[test]
    fn escape_pauses_and_resumes_and_submenus_return_to_the_pause_menu() {
        let mut g = game();
        g.key(MenuKey::Confirm);
        g.key(MenuKey::Back);
        assert_eq!(g.screen, Screen::Paused);
        g.key(MenuKey::Back);
        assert_eq!(g.screen, Screen::Playing);
        g.key(MenuKey::Back);
        // Settings from the pause menu, a toggle, and back to the pause menu.
        let at = g.items().iter().position(|&i| i == Item::Settings).unwrap();
        g.activate(at);
        assert_eq!(g.screen, Screen::Settings);
        g.key(MenuKey::Down);
        g.key(MenuKey::Down);
        assert_eq!(g.items()[g.selected], Item::Ik);
        assert_eq!(g.key(MenuKey::Confirm), [Command::SettingsChanged]);
        assert!(!g.settings.ik);
        g.key(MenuKey::Back);
        assert_eq!((g.screen, g.selected), (Screen::Paused, at));
        assert_eq!(
            g.activate(1),
            [Command::Load(Current::Sequence(0))],
            "restart level"
        );
    }

    #[test]
    fn volume_moves_in_steps_within_its_range() {
        let mut g = game();
        g.activate(3);
        g.key(MenuKey::Down);
        assert_eq!(g.items()[g.selected], Item::Volume);
        for _ in 0..20 {
            g.key(MenuKey::Right);
        }
        assert_eq!(g.settings.volume, 1.0);
        assert_eq!(g.label(Item::Volume), "Volume: 100 %");
        for _ in 0..3 {
            g.key(MenuKey::Left);
        }
        assert!((g.settings.volume - 0.7).abs() < 1e-6);
        for _ in 0..20 {
            g.key(MenuKey::Left);
        }
        assert_eq!(g.settings.volume, 0.0);
    }

    #[test]
    fn locked_levels_cannot_be_started_and_completing_one_unlocks_the_next() {
        let mut g = game();
        g.activate(1);
        assert_eq!(g.screen, Screen::LevelSelect);
        assert!(g.unlocked(0) && !g.unlocked(1));
        assert!(g.activate(1).is_empty(), "level 2 is locked");
        assert!(g.label(Item::Level(1)).ends_with("(locked)"));
        g.progress.record("tutorial", 12.0, 0);
        assert!(g.unlocked(1) && !g.unlocked(2));
        assert!(g.label(Item::Level(0)).contains("best 0:12.00"));
        assert_eq!(g.activate(1), [Command::Load(Current::Sequence(1))]);
        // With the tutorial done, the title offers to continue at level 2.
        let g = Game::new(g.sequence.clone(), g.progress.clone(), g.settings.clone());
        assert_eq!(g.items()[0], Item::Continue);
        assert_eq!(g.current, Current::Sequence(1));
    }

    #[test]
    fn next_level_runs_through_the_sequence_to_the_finish_screen() {
        let mut g = game();
        let last = g.sequence.len() - 1;
        g.current = Current::Sequence(last - 1);
        g.screen = Screen::LevelComplete;
        assert_eq!(
            g.key(MenuKey::Confirm),
            [Command::Load(Current::Sequence(last))]
        );
        g.screen = Screen::LevelComplete;
        assert_eq!(g.label(Item::NextLevel), "Finish");
        assert!(g.key(MenuKey::Confirm).is_empty());
        assert_eq!(g.screen, Screen::Finished);
        assert_eq!(g.items(), [Item::TitleScreen, Item::Quit]);
        // Back on the finish screen goes nowhere.
        g.key(MenuKey::Back);
        assert_eq!(g.screen, Screen::Finished);
    }

    #[test]
    fn a_level_outside_the_sequence_stands_alone() {
        let g = Game::playing(
            Sequence::shipped().unwrap(),
            Progress::default(),
            Settings::default(),
            "maps/mine.tmx",
        );
        assert_eq!(g.current, Current::Single("maps/mine.tmx".into()));
        assert_eq!(g.screen, Screen::Playing);
        let g = Game::playing(
            Sequence::shipped().unwrap(),
            Progress::default(),
            Settings::default(),
            "long",
        );
        assert_eq!(g.current, Current::Sequence(2));
    }

    #[test]
    fn reaching_the_exit_records_the_run_and_opens_the_panel() {
        use std::sync::Arc;

        use glam::Vec2;

        use crate::character::Character;
        use crate::sim::world::{GroundSegment, Level};
        let level = Level::from_profile(
            "flat",
            vec![GroundSegment::ground(0.0, 8.0, 0.0, 0.0)],
            Vec::new(),
            Vec2::new(1.0, 0.0),
            Vec2::new(3.0, 0.0),
            -3.0,
        );
        let mut sim = Sim::new(level, Arc::new(Character::knight().unwrap()));
        let mut g = Game::playing(
            Sequence::shipped().unwrap(),
            Progress::default(),
            Settings::default(),
            "tutorial",
        );
        g.level_name = "Tutorial".into();
        let right = Input {
            move_x: 1.0,
            ..Input::default()
        };
        let mut commands = Vec::new();
        for _ in 0..64 * 10 {
            g.begin_frame();
            commands = g.step(&mut sim, &right);
            if !commands.is_empty() {
                break;
            }
        }
        assert_eq!(commands, [Command::SaveProgress]);
        assert_eq!(g.screen, Screen::LevelComplete);
        assert!(matches!(g.events[..], [FlowEvent::LevelComplete { .. }]));
        let c = g.last.clone().unwrap();
        assert_eq!(c.name, "Tutorial");
        assert!(c.new_best && c.falls == 0 && c.time_s == c.best_time_s);
        assert_eq!(g.progress.best_time("tutorial"), Some(c.time_s));
        assert!(g.unlocked(1));
        // The panel holds the world still.
        let steps = sim.steps;
        assert!(g.step(&mut sim, &right).is_empty());
        assert_eq!(sim.steps, steps);
    }

    #[test]
    fn times_read_as_minutes_seconds_and_hundredths() {
        assert_eq!(format_time(0.0), "0:00.00");
        assert_eq!(format_time(75.256), "1:15.26");
        assert_eq!(format_time(-3.0), "0:00.00");
    }

    /// The bindings screen: Confirm on an action waits for a key, the key
    /// is bound (and the settings saved), a conflict is refused with a
    /// message naming the other action, Esc cancels, and restoring the
    /// defaults brings every binding back.
    #[test]
    fn the_bindings_screen_rebinds_refuses_conflicts_and_restores_defaults() {
        let mut g = game();
        g.activate(3);
        let at = g
            .items()
            .iter()
            .position(|&i| i == Item::KeyBindings)
            .unwrap();
        g.activate(at);
        assert_eq!(g.screen, Screen::Bindings);
        assert_eq!(g.items().len(), Action::ALL.len() + 2);
        let jump = g
            .items()
            .iter()
            .position(|&i| i == Item::Bind(Action::Jump))
            .unwrap();
        assert_eq!(
            g.label(Item::Bind(Action::Jump)),
            "jump (hold for height): Space  |  South (A/✕)"
        );
        g.activate(jump);
        assert_eq!(g.capturing, Some(Action::Jump));
        assert!(g.label(Item::Bind(Action::Jump)).contains("press a key"));
        assert_eq!(g.bind_key("KeyK"), [Command::SettingsChanged]);
        assert_eq!(g.capturing, None);
        assert_eq!(g.settings.bindings.jump.keys, ["KeyK"]);
        // A conflict: refused, nothing changes, the message says why.
        g.activate(jump);
        assert!(g.bind_key("KeyD").is_empty());
        assert_eq!(g.settings.bindings.jump.keys, ["KeyK"]);
        assert_eq!(
            g.notice.as_deref(),
            Some(
                "Not bound: D already does \"walk right\": rebind that first, or restore the defaults"
            )
        );
        // A gamepad button.
        g.activate(jump);
        assert_eq!(g.bind_button("North"), [Command::SettingsChanged]);
        assert_eq!(g.settings.bindings.jump.pad, ["North"]);
        // Esc while waiting cancels; a key after that binds nothing.
        g.activate(jump);
        g.cancel_binding();
        assert!(g.bind_key("KeyL").is_empty());
        assert_eq!(g.settings.bindings.jump.keys, ["KeyK"]);
        let restore = g
            .items()
            .iter()
            .position(|&i| i == Item::RestoreDefaults)
            .unwrap();
        assert_eq!(g.activate(restore), [Command::SettingsChanged]);
        assert_eq!(g.settings.bindings, Bindings::default());
        g.key(MenuKey::Back);
        assert_eq!(g.screen, Screen::Settings);
    }
}

//! The `ironstep` command line: its subcommands and their arguments (the
//! clap definition), and the dispatch to the tool each runs. The binary's
//! `main` only parses and reports; the definition lives here so tests can
//! parse the commands the documentation shows with the real parser.

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Ironstep: a side-scroller whose 3D knight really stands on the world.
#[derive(Parser, Debug)]
#[command(name = "ironstep", version, about)]
pub struct Cli {
    /// The subcommand; none opens the game on its title screen.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands of `ironstep`.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print a glTF model's joints, clips, meshes and warnings (for artists and riggers).
    Inspect(crate::tools::inspect::InspectArgs),
    /// Play the game in a window (the default with no command): the title screen, or `--level L` straight into play.
    Play(crate::window::app::PlayArgs),
    /// Run the simulation headless from an input script and report motion metrics.
    Run(crate::tools::headless::RunArgs),
    /// Render a skinned glTF model to a PNG, framed automatically (for artists and tests).
    Render(crate::tools::render_model::RenderArgs),
    /// Check Tiled level maps for problems (for designers and their CI).
    CheckLevel(crate::level::check::CheckArgs),
    /// Drag a target and watch IK chains follow (two-bone strategies, CCD, FABRIK).
    IkLab(crate::tools::ik_lab::IkLabArgs),
    /// Benchmark a scripted crowd of knights: per-stage CPU and GPU times, JSON, Chrome trace.
    Bench(crate::tools::bench::BenchArgs),
    /// Infer a humanoid model's rig file (joints, axes, scale, clip roles), one comment per decision.
    Rig(crate::tools::rig::RigArgs),
}

impl Cli {
    /// Runs what the command line asks for.
    pub fn run(self) -> Result<()> {
        match self.command {
            Some(Command::Inspect(args)) => crate::tools::inspect::run(&args),
            Some(Command::Run(args)) => crate::tools::headless::run(&args),
            Some(Command::Play(args)) => crate::window::app::play(args),
            Some(Command::IkLab(args)) => crate::tools::ik_lab::run(args),
            Some(Command::Render(args)) => crate::tools::render_model::run(&args),
            Some(Command::Bench(args)) => crate::tools::bench::run(&args),
            Some(Command::Rig(args)) => crate::tools::rig::run(&args),
            // The title screen first.
            None => crate::window::app::play(crate::window::app::PlayArgs {
                screenshot_dir: ".".into(),
                ..Default::default()
            }),
            Some(Command::CheckLevel(args)) => crate::level::check::run(&args),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The documentation's commands, parsed by the real command line: each
    //! `ironstep ...` example of README.md, the level README, BENCHMARKS.md,
    //! FUZZING.md and ARCHITECTURE.md (inline code, code blocks, and what
    //! `cargo run -p game ... --` passes on), and each `cargo test --test
    //! NAME` names a test target that exists.

    use std::path::{Path, PathBuf};

    use clap::error::ErrorKind;
    use clap::{CommandFactory, Parser};

    use super::Cli;

    /// The documents whose commands are checked, from the repository root.
    const DOCS: [&str; 5] = [
        "README.md",
        "assets/levels/README.md",
        "BENCHMARKS.md",
        "FUZZING.md",
        "ARCHITECTURE.md",
    ];

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// A command found in a document: where, as written, and its words.
    #[derive(Debug)]
    struct Example {
        line: usize,
        text: String,
    }

    /// Every command of a Markdown text: inline code spans (which may wrap
    /// over lines) and the lines of fenced code blocks (with `\`
    /// continuations joined), each with the line it starts on.
    fn commands(text: &str) -> Vec<Example> {
        let mut out = Vec::new();
        let mut in_block = false;
        let mut pending: Option<Example> = None;
        let mut prose = String::new();
        let mut prose_lines = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                in_block = !in_block;
                continue;
            }
            if in_block {
                let (body, more) = match line.trim_end().strip_suffix('\\') {
                    Some(b) => (b, true),
                    None => (line, false),
                };
                let e = pending.get_or_insert(Example {
                    line: i + 1,
                    text: String::new(),
                });
                e.text.push_str(body.trim());
                e.text.push(' ');
                if !more {
                    out.extend(pending.take());
                }
            } else {
                for _ in 0..=line.len() {
                    prose_lines.push(i + 1);
                }
                prose.push_str(line);
                prose.push('\n');
            }
        }
        // Inline code spans, possibly wrapping over a line break.
        let mut rest = 0;
        while let Some(open) = prose[rest..].find('`').map(|o| o + rest) {
            let ticks = prose[open..].chars().take_while(|&c| c == '`').count();
            let fence = &prose[open..open + ticks];
            let start = open + ticks;
            let Some(close) = prose[start..].find(fence).map(|c| c + start) else {
                break;
            };
            out.push(Example {
                line: prose_lines[open],
                text: prose[start..close].replace('\n', " "),
            });
            rest = close + ticks;
        }
        out
    }

    /// The arguments an `ironstep` command passes, or `None` when the text
    /// is no `ironstep` command. Shell bits are cut (a pipe, `&&`, `;`, a
    /// redirection, a `#` comment), shell variables become `1`, and a synopsis is read as
    /// one example: `[...]` brackets dropped, `A\|B` or `A|B` read as `A`,
    /// a trailing `...` dropped.
    fn ironstep_args(text: &str) -> Option<Vec<String>> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let start = if let Some(i) = words
            .iter()
            .position(|w| *w == "ironstep" || w.ends_with("/ironstep"))
        {
            // Only a command that starts with it (or follows an env assignment).
            if !words[..i].iter().all(|w| w.contains('=')) {
                return None;
            }
            i + 1
        } else if words.first() == Some(&"cargo")
            && words.get(1) == Some(&"run")
            && words.windows(2).any(|w| w == ["-p", "game"])
            && !words.contains(&"--bin")
            || words.windows(2).any(|w| w == ["--bin", "ironstep"])
        {
            words.iter().position(|w| *w == "--")? + 1
        } else {
            return None;
        };
        let mut args = Vec::new();
        for w in &words[start..] {
            if ["|", "&&", ";", "||"].contains(w)
                || w.starts_with('>')
                || w.starts_with("2>")
                || w.starts_with('#')
            {
                break;
            }
            let mut w = w
                .replace("\\|", "|")
                .replace(['[', ']'], "")
                .replace("${n}", "1")
                .replace("${t}", "1")
                .replace("$n", "1")
                .replace("$t", "1");
            if let Some((a, _)) = w.split_once('|') {
                w = a.to_string();
            }
            let w = w.trim_end_matches("...").trim_end_matches(',');
            // A synopsis's placeholders (`N`, `V`, `WxH`) become values
            // (a phase, which lies in [0, 1), a half).
            let w = if w.len() == 1 && w.chars().all(|c| c.is_ascii_uppercase()) {
                if args.last().is_some_and(|a| a == "--gait-phase") {
                    "0.5"
                } else {
                    "1"
                }
            } else if w == "WxH" {
                "1x1"
            } else {
                w
            };
            if !w.is_empty() {
                args.push(w.to_string());
            }
        }
        Some(args)
    }

    /// Parses one document's commands; returns the offending lines.
    fn check_doc(name: &str, text: &str) -> (usize, Vec<String>) {
        let mut checked = 0;
        let mut bad = Vec::new();
        for e in commands(text) {
            let Some(args) = ironstep_args(&e.text) else {
                continue;
            };
            checked += 1;
            let argv: Vec<String> = std::iter::once("ironstep".to_string())
                .chain(args)
                .collect();
            let last_is_flag = argv.last().is_some_and(|a| a.starts_with("--"));
            if let Err(err) = Cli::try_parse_from(argv) {
                // Prose names a subcommand or an option without its values
                // (`ironstep check-level`, `play --level`): the names must
                // exist, the values are not the point.
                let mention = err.kind() == ErrorKind::MissingRequiredArgument
                    || (err.kind() == ErrorKind::InvalidValue && last_is_flag);
                if mention {
                    continue;
                }
                let first = err.to_string();
                let first = first.lines().next().unwrap_or_default().to_string();
                bad.push(format!("{name}:{}: `{}`: {first}", e.line, e.text.trim()));
            }
        }
        (checked, bad)
    }

    #[test]
    fn every_ironstep_command_in_the_docs_parses() {
        let mut total = 0;
        let mut bad = Vec::new();
        for doc in DOCS {
            let text = std::fs::read_to_string(root().join(doc)).unwrap();
            let (n, b) = check_doc(doc, &text);
            assert!(n > 0 || doc == "FUZZING.md", "{doc}: no command found");
            total += n;
            bad.extend(b);
        }
        assert!(total >= 30, "only {total} commands found in the docs");
        assert!(
            bad.is_empty(),
            "commands the docs show that do not parse:\n{}",
            bad.join("\n")
        );
    }

    #[test]
    fn a_bad_example_is_named_with_its_line() {
        let doc = "Play it:\n\n```\nironstep play --levle tutorial\n```\n\nand `ironstep run\n--autopilot --level long` \
                   or `ironstep frobnicate`; `ironstep check-level FILE... [--json]` is fine.\n";
        let (n, bad) = check_doc("X.md", doc);
        assert_eq!(n, 4);
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert!(
            bad[0].starts_with("X.md:4: `ironstep play --levle tutorial`"),
            "{bad:?}"
        );
        assert!(
            bad[1].starts_with("X.md:8: `ironstep frobnicate`"),
            "{bad:?}"
        );
    }

    /// Every `cargo test ... --test NAME` the docs show names a test target
    /// of some crate (`tests/NAME.rs` or `tests/NAME/main.rs`).
    #[test]
    fn every_test_target_the_docs_name_exists() {
        let mut bad = Vec::new();
        let mut seen = 0;
        for doc in DOCS {
            let text = std::fs::read_to_string(root().join(doc)).unwrap();
            for e in commands(&text) {
                let words: Vec<&str> = e.text.split_whitespace().collect();
                if !words.windows(2).any(|w| w == ["cargo", "test"]) {
                    continue;
                }
                for w in words.windows(2).filter(|w| w[0] == "--test") {
                    seen += 1;
                    let exists = ["game", "animation", "renderer"].iter().any(|c| {
                        let t = root().join(c).join("tests");
                        t.join(format!("{}.rs", w[1])).is_file()
                            || t.join(w[1]).join("main.rs").is_file()
                    });
                    if !exists {
                        bad.push(format!(
                            "{doc}:{}: `{}`: no test target {}",
                            e.line, e.text, w[1]
                        ));
                    }
                }
            }
        }
        assert!(seen > 0, "no `cargo test --test` example found");
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    /// The help of every option that takes a level lists every shipped
    /// level by name.
    #[test]
    fn level_options_list_every_shipped_level() {
        let cli = Cli::command();
        let mut checked = 0;
        for sub in cli.get_subcommands() {
            for arg in sub.get_arguments() {
                let id = arg.get_id().as_str();
                if id != "level" && !(sub.get_name() == "check-level" && id == "files") {
                    continue;
                }
                checked += 1;
                let help = arg
                    .get_long_help()
                    .or(arg.get_help())
                    .map(ToString::to_string)
                    .unwrap_or_default();
                for name in crate::level::shipped::level_names() {
                    assert!(
                        help.contains(&format!("`{name}`")),
                        "ironstep {} --{id}: the help does not name `{name}`: {help}",
                        sub.get_name()
                    );
                }
            }
        }
        assert!(
            checked >= 4,
            "play, run, bench and check-level take a level"
        );
    }

    /// ARCHITECTURE.md's invariants name every dependency of the
    /// `animation` and `renderer` crates (their `[dependencies]`).
    #[test]
    fn the_architecture_names_every_dependency_of_the_library_crates() {
        let arch = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
        for krate in ["animation", "renderer"] {
            let line = arch
                .lines()
                .skip_while(|l| !l.starts_with(&format!("- `{krate}` depends on")))
                .take_while(|l| !l.trim().is_empty() && !l.starts_with("- `game`"))
                .collect::<Vec<_>>()
                .join(" ");
            assert!(
                !line.is_empty(),
                "ARCHITECTURE.md: no `{krate}` depends on ... line"
            );
            let toml = std::fs::read_to_string(root().join(krate).join("Cargo.toml")).unwrap();
            let deps = toml
                .lines()
                .skip_while(|l| l.trim() != "[dependencies]")
                .skip(1)
                .take_while(|l| !l.starts_with('['))
                .filter_map(|l| l.split(['.', '=', ' ']).next())
                .filter(|n| !n.is_empty())
                .collect::<Vec<_>>();
            assert!(!deps.is_empty(), "{krate}: no dependencies read");
            for d in deps {
                assert!(
                    line.contains(&format!("`{d}`")) || line.contains(d),
                    "ARCHITECTURE.md does not name {krate}'s dependency {d}: {line}"
                );
            }
        }
    }
}

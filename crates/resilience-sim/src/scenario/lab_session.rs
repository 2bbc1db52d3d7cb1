//! # Lab sessions: a lab's config, its controls as data, and its last run
//!
//! A lab is an experiment the learner tunes: a handful of numbers and choices feed one
//! model run, drawn as charts. Three drivers read the same lab: the page (a slider or a
//! select per control), the link (`?demo=9&mode=full&seed=7`) and the CLI
//! (`resilience-sim lab jitter --mode full --seed 7`). If each spelled the controls on its
//! own, a renamed field would silently stop working in one of them. So a lab knows its
//! controls as data ([`Control`]): the name (the engine's own field name, which is also the
//! link parameter and the CLI flag), the label and unit the page shows, the range and step,
//! and how to read and write the config. The three drivers only walk that table.
//!
//! [`LabSession`] is what a driver holds (the `TickSession` of the labs): the config, which
//! stays valid whatever it is asked (a refused value leaves it as it was and names the
//! control), and the run of that config. The model is deterministic and seeded, so the same
//! config (from a link, a slider or a flag) gives the same run.

use crate::duration::parse_duration;
use crate::error::{excerpt, ConfigError};
use crate::number::{number_text, parse_number};

/// A lab: its config (with `Default` the spec's page), its controls and its model.
pub trait LabModel: Clone + PartialEq + Default + Send + Sync + 'static {
    /// What one run produces (the charts' data and totals).
    type Run: Clone + PartialEq + Send + Sync;
    /// The lab's name in the CLI (`resilience-sim lab NAME`).
    const NAME: &'static str;
    /// Every control, in the order the page shows them.
    fn controls() -> &'static [Control<Self>];
    /// The model's own validation: the judge of what the config may hold.
    fn validate(&self) -> Result<(), ConfigError>;
    /// Runs the model (validates first; never panics).
    fn run(&self) -> Result<Self::Run, ConfigError>;
    /// The pairs an old link's or flag's (name, value) stands for, when a control was
    /// renamed or split since (Demo 13's `order=wrong` is
    /// `order=breaker-outside-retry&bulkheads=shared`); `None` reads the pair as it is.
    /// [`LabSession::read_pairs`] reads the pairs given in its place, where it stood.
    fn legacy_pairs(_name: &str, _value: &str) -> Option<&'static [(&'static str, &'static str)]> {
        None
    }
    /// Link parameters that are not controls: a value too rich for one (Demo 14's edits
    /// to its system). Read after the controls, since they build on them.
    const EXTRA_PARAMETERS: &'static [&'static str] = &[];
    /// The extra parameters this config puts in a link.
    fn extra_pairs(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// Reads an extra parameter; refused, the config is left as it was.
    fn set_extra(&mut self, name: &str, _text: &str) -> Result<(), ConfigError> {
        Err(ConfigError::new(name, "is not a parameter of this lab"))
    }
}

/// The largest seed a lab takes, on the page and in the CLI alike: nine digits, typed in
/// a field and exact in a link.
pub const MAX_SEED: u64 = 999_999_999;

/// What kind of value a control holds, and how the page shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ControlKind {
    /// A number from `min` to `max` in steps of `step` (a slider).
    Number {
        min: f64,
        max: f64,
        step: f64,
        unit: Unit,
    },
    /// A whole number typed in a field (a seed).
    Whole { min: u64, max: u64 },
    /// One of a few words; `options` are (name, label).
    Choice {
        options: &'static [(&'static str, &'static str)],
    },
    /// On or off.
    Toggle,
}

/// Where a control sits on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// Beside the first chart: the controls the lab's story turns on.
    Main,
    /// Under "More settings": the rest of the model's parameters.
    More,
    /// The page's own choices (what to draw, a side widget): not part of the model's
    /// config, not a CLI flag, but in the link like any control.
    Page,
}

impl<C> Control<C> {
    /// Whether the CLI takes it as a flag.
    pub fn is_cli_flag(&self) -> bool {
        self.section != Section::Page
    }
}

/// How a number reads on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A plain count or factor, followed by this word or sign ("" for none).
    Plain(&'static str),
    /// Milliseconds, shown in seconds ("1.5 s"); the link and the CLI carry milliseconds
    /// (the CLI also takes `1.5s` or `500ms`).
    Millis,
}

/// A control's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ControlValue {
    Number(f64),
    /// The name of the chosen option.
    Choice(&'static str),
    Toggle(bool),
}

/// One control of a lab, read by the page, the link and the CLI.
pub struct Control<C> {
    /// The config field's name (camelCase, as in the JSON), the link parameter and the CLI
    /// flag.
    pub name: &'static str,
    pub label: &'static str,
    /// One sentence on what it changes.
    pub help: &'static str,
    pub kind: ControlKind,
    /// Where the page shows it; [`Section::Page`] controls are not flags of the CLI (the
    /// CLI prints one run; "show all four modes" changes only what the page draws).
    pub section: Section,
    pub get: fn(&C) -> ControlValue,
    /// Writes a value already checked against `kind` (range, option).
    pub set: fn(&mut C, ControlValue),
}

impl<C> Control<C> {
    /// The number of a `Number` or `Whole` control (0 for the others).
    pub fn number(&self, config: &C) -> f64 {
        match (self.get)(config) {
            ControlValue::Number(v) => v,
            _ => 0.0,
        }
    }

    /// The value as the link and the CLI write it: `1000`, `2.5`, `full`, `true`.
    pub fn text(&self, config: &C) -> String {
        match (self.get)(config) {
            ControlValue::Number(v) => number_text(v),
            ControlValue::Choice(name) => name.to_string(),
            ControlValue::Toggle(on) => on.to_string(),
        }
    }

    /// The value as the page shows it, with its unit: `1,000 requests/s`, `1.5 s`, `full
    /// jitter`, `on`.
    pub fn display(&self, config: &C) -> String {
        match ((self.get)(config), self.kind) {
            (ControlValue::Number(v), ControlKind::Number { unit, .. }) => match unit {
                Unit::Millis if v >= 1000.0 || v == 0.0 => format!("{} s", number_text(v / 1000.0)),
                Unit::Millis => format!("{} ms", number_text(v)),
                Unit::Plain(unit) => with_unit(v, unit),
            },
            (ControlValue::Number(v), _) => number_text(v),
            (ControlValue::Choice(name), ControlKind::Choice { options }) => options
                .iter()
                .find(|o| o.0 == name)
                .map_or(name, |o| o.1)
                .to_string(),
            (ControlValue::Choice(name), _) => name.to_string(),
            (ControlValue::Toggle(on), _) => if on { "on" } else { "off" }.to_string(),
        }
    }

    /// Checks `value` against the control's kind: a number in range (and on the step
    /// grid, up to rounding), a known option, a toggle.
    pub fn check(&self, value: ControlValue) -> Result<ControlValue, ConfigError> {
        self.check_written(value, None)
    }

    /// [`Self::check`] of a value read from `written`, which a refusal quotes as it was
    /// written: past 17 digits the nearest `f64` prints differently from the text, and a
    /// message must not quote a number nobody wrote.
    fn check_written(
        &self,
        value: ControlValue,
        written: Option<&str>,
    ) -> Result<ControlValue, ConfigError> {
        let refuse = |message: String| Err(ConfigError::new(self.name, message));
        match (self.kind, value) {
            (
                ControlKind::Number {
                    min,
                    max,
                    step,
                    unit,
                },
                ControlValue::Number(v),
            ) => {
                if !v.is_finite() || v < min || v > max {
                    let (lo, hi) = match unit {
                        Unit::Millis => (ms_text(min), ms_text(max)),
                        Unit::Plain(u) => (with_unit(min, u), with_unit(max, u)),
                    };
                    let got = written.map_or_else(|| number_text(v), excerpt);
                    return refuse(format!("must be between {lo} and {hi} (got {got})"));
                }
                // Snap to the grid: a link's 2.50000001 is 2.5; a value between two steps
                // is refused rather than silently moved.
                let steps = ((v - min) / step).round();
                let snapped = min + steps * step;
                if (snapped - v).abs() > step * 1e-6 {
                    return refuse(format!(
                        "must be a multiple of {} from {}",
                        number_text(step),
                        number_text(min)
                    ));
                }
                Ok(ControlValue::Number(round_to_step(snapped, step)))
            }
            (ControlKind::Whole { min, max }, ControlValue::Number(v)) => {
                if v.is_finite() && v.fract() == 0.0 && v >= min as f64 && v <= max as f64 {
                    Ok(value)
                } else {
                    refuse(format!("must be a whole number from {min} to {max}"))
                }
            }
            (ControlKind::Choice { options }, ControlValue::Choice(name)) => {
                match options.iter().find(|o| o.0 == name) {
                    Some(o) => Ok(ControlValue::Choice(o.0)),
                    None => refuse(format!("must be one of {}", option_list(options))),
                }
            }
            (ControlKind::Toggle, ControlValue::Toggle(_)) => Ok(value),
            _ => refuse("has another kind of value".to_string()),
        }
    }

    /// Reads a value typed in a link or on the command line.
    pub fn parse(&self, text: &str) -> Result<ControlValue, ConfigError> {
        let text = text.trim();
        let value = match self.kind {
            ControlKind::Number {
                unit: Unit::Millis, ..
            } => parse_duration(text)
                .map(|ms| ControlValue::Number(ms as f64))
                .map_err(|e| ConfigError::new(self.name, e))?,
            ControlKind::Number { .. } | ControlKind::Whole { .. } => parse_number(text)
                .filter(|v| v.is_finite())
                .map(ControlValue::Number)
                .ok_or_else(|| {
                    ConfigError::new(
                        self.name,
                        format!("must be a number (got “{}”)", excerpt(text)),
                    )
                })?,
            ControlKind::Choice { options } => options
                .iter()
                .find(|o| o.0.eq_ignore_ascii_case(text))
                .map(|o| ControlValue::Choice(o.0))
                .ok_or_else(|| {
                    ConfigError::new(
                        self.name,
                        format!(
                            "must be one of {} (got “{}”)",
                            option_list(options),
                            excerpt(text)
                        ),
                    )
                })?,
            ControlKind::Toggle => match text {
                "true" | "on" | "1" | "yes" => ControlValue::Toggle(true),
                "false" | "off" | "0" | "no" => ControlValue::Toggle(false),
                _ => {
                    return Err(ConfigError::new(
                        self.name,
                        format!("must be true or false (got “{}”)", excerpt(text)),
                    ))
                }
            },
        };
        self.check_written(value, Some(text))
    }
}

fn option_list(options: &[(&str, &str)]) -> String {
    let names: Vec<&str> = options.iter().map(|o| o.0).collect();
    names.join(", ")
}

/// `v` with its unit, the unit's noun in the singular for exactly one: `1 thread`,
/// `2 threads`, `1 request/s`, `1 s`, `1 % of normal`.
fn with_unit(v: f64, unit: &str) -> String {
    if unit.is_empty() {
        return number_text(v);
    }
    let noun_end = unit.find(['/', ' ']).unwrap_or(unit.len());
    let noun = &unit[..noun_end];
    let unit = match noun.strip_suffix('s') {
        // A plural noun ("threads"), not a symbol ("s", "ms", "%").
        Some(singular) if v == 1.0 && singular.len() > 1 => {
            format!("{singular}{}", &unit[noun_end..])
        }
        _ => unit.to_string(),
    };
    format!("{} {unit}", number_text(v))
}

fn ms_text(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{} s", number_text(ms / 1000.0))
    } else {
        format!("{} ms", number_text(ms))
    }
}

/// Removes the binary noise of `min + k x step` (0.1 x 3 = 0.30000000000000004): the grid
/// has at most as many decimals as the step.
fn round_to_step(v: f64, step: f64) -> f64 {
    let mut scale = 1.0;
    while (step * scale).fract().abs() > 1e-9 && scale < 1e6 {
        scale *= 10.0;
    }
    (v * scale).round() / scale
}

/// The number a `set` of a `Number` or `Whole` control receives (0 for other values: the
/// session checked the kind before).
pub fn number(value: ControlValue) -> f64 {
    match value {
        ControlValue::Number(v) => v,
        _ => 0.0,
    }
}

/// The option a `set` of a `Choice` control receives ("" for other values).
pub fn choice(value: ControlValue) -> &'static str {
    match value {
        ControlValue::Choice(name) => name,
        _ => "",
    }
}

/// A slider of plain numbers followed by `unit`.
pub const fn slider(min: f64, max: f64, step: f64, unit: &'static str) -> ControlKind {
    ControlKind::Number {
        min,
        max,
        step,
        unit: Unit::Plain(unit),
    }
}

/// A slider of milliseconds (shown in seconds).
pub const fn millis(min: f64, max: f64, step: f64) -> ControlKind {
    ControlKind::Number {
        min,
        max,
        step,
        unit: Unit::Millis,
    }
}

/// A lab's config and its run, for one driver (a page, a link, the CLI).
#[derive(Clone, PartialEq)]
pub struct LabSession<L: LabModel> {
    config: L,
    run: Result<L::Run, ConfigError>,
    /// The config changed by [`Self::set_deferred`] and its run is still being made
    /// elsewhere: `run` is the previous config's until [`Self::install_run`].
    pending: bool,
}

impl<L: LabModel> Default for LabSession<L> {
    fn default() -> Self {
        Self::new(L::default())
    }
}

impl<L: LabModel> LabSession<L> {
    /// A session on `config`, run at once. An invalid config keeps its error as the run.
    pub fn new(config: L) -> Self {
        let run = config.run();
        Self {
            config,
            run,
            pending: false,
        }
    }

    /// A session on `config` whose run is made elsewhere and brought by
    /// [`Self::install_run`] (a page that runs the model in slices).
    pub fn deferred(config: L) -> Self {
        Self {
            config,
            run: Err(ConfigError::new("run", "not run yet")),
            pending: true,
        }
    }

    /// Opens the lab from a link's or the CLI's (name, value) pairs (see
    /// [`Self::read_pairs`]), and runs it.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> (Self, Vec<ConfigError>) {
        let (config, problems) = Self::read_pairs(pairs);
        (Self::new(config), problems)
    }

    /// The config a link's (name, value) pairs describe, and one message per pair left
    /// out. A pair of an old link stands for the pairs [`LabModel::legacy_pairs`] gives,
    /// where it stood. Each value is read by its control; the values the model takes
    /// together apply whatever their order (a limit across controls, such as Demo 12's work
    /// limit, may refuse a state on the way). When it does not, they apply one at a time, in order,
    /// each checked by the model, and what it refuses is left out.
    pub fn read_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> (L, Vec<ConfigError>) {
        let mut problems = Vec::new();
        let mut read = Vec::new();
        let mut extras = Vec::new();
        let mut take = |name: &str, text: &str| {
            if let Some(extra) = L::EXTRA_PARAMETERS.iter().find(|e| **e == name) {
                extras.push((*extra, text.to_string()));
                return;
            }
            let control = Self::control(name).ok_or_else(|| unknown::<L>(name));
            match control.and_then(|c| Ok((c, c.parse(text)?))) {
                Ok(pair) => read.push(pair),
                Err(e) => problems.push(e),
            }
        };
        for (name, text) in pairs {
            match L::legacy_pairs(name, text.trim()) {
                Some(new) => new.iter().for_each(|(name, text)| take(name, text)),
                None => take(name, text),
            }
        }
        let mut together = L::default();
        for (control, value) in &read {
            (control.set)(&mut together, *value);
        }
        let mut config = if together.validate().is_ok() {
            together
        } else {
            let mut config = L::default();
            for (control, value) in read {
                let mut next = config.clone();
                (control.set)(&mut next, value);
                match next.validate() {
                    Ok(()) => config = next,
                    Err(e) => problems.push(e),
                }
            }
            config
        };
        for (name, text) in extras {
            if let Err(e) = config.set_extra(name, &text) {
                problems.push(e);
            }
        }
        (config, problems)
    }

    pub fn controls(&self) -> &'static [Control<L>] {
        L::controls()
    }

    pub fn control(name: &str) -> Option<&'static Control<L>> {
        L::controls().iter().find(|c| c.name == name)
    }

    pub fn config(&self) -> &L {
        &self.config
    }

    /// The run of the current config (an error only if the session was opened on an
    /// invalid config; a refused change never gets here).
    pub fn run(&self) -> &Result<L::Run, ConfigError> {
        &self.run
    }

    /// Sets control `name` to `value` and runs the model. A value the control or the model
    /// refuses leaves the session as it was; the error names the control.
    pub fn set(&mut self, name: &str, value: ControlValue) -> Result<(), ConfigError> {
        let control = Self::control(name).ok_or_else(|| unknown::<L>(name))?;
        let value = control.check(value)?;
        let mut config = self.config.clone();
        (control.set)(&mut config, value);
        self.replace(config)
    }

    /// Like [`Self::set`], but without running the model: for a page that makes the run in
    /// slices between frames (a slider dragged over a model too slow to run at once). The
    /// model's validation still judges the value; the previous run stays until
    /// [`Self::install_run`] brings the new one.
    pub fn set_deferred(&mut self, name: &str, value: ControlValue) -> Result<(), ConfigError> {
        let control = Self::control(name).ok_or_else(|| unknown::<L>(name))?;
        let value = control.check(value)?;
        let mut config = self.config.clone();
        (control.set)(&mut config, value);
        self.replace_deferred(config)
    }

    /// Installs `run`, made elsewhere for `config`, if that is still the session's config
    /// (a run for a config the learner has since left is dropped). True when installed.
    pub fn install_run(&mut self, config: &L, run: L::Run) -> bool {
        if self.pending && *config == self.config {
            self.run = Ok(run);
            self.pending = false;
            true
        } else {
            false
        }
    }

    /// Shows part of `config`'s run while the rest is made (a run made in slices that has
    /// something to show early); the session stays pending until [`Self::install_run`].
    /// True when shown.
    pub fn install_partial(&mut self, config: &L, run: L::Run) -> bool {
        if self.pending && *config == self.config {
            self.run = Ok(run);
            true
        } else {
            false
        }
    }

    /// Whether the run shown is an earlier config's, its own being on the way.
    pub fn is_pending(&self) -> bool {
        self.pending
    }

    /// [`Self::set`] from text, as a link or a flag writes it.
    pub fn set_text(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        let mut config = self.config.clone();
        set_text(&mut config, name, text)?;
        self.replace(config)
    }

    /// Back to the spec's values.
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// The controls whose values differ from the defaults, as (name, text): what a link
    /// carries. [`Self::from_pairs`] reads them back as this session.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let defaults = L::default();
        let mut pairs: Vec<(&'static str, String)> = L::controls()
            .iter()
            .filter(|c| (c.get)(&self.config) != (c.get)(&defaults))
            .map(|c| (c.name, c.text(&self.config)))
            .collect();
        pairs.extend(self.config.extra_pairs());
        pairs
    }

    /// Replaces the whole config (a change no single control makes: Demo 14's edits),
    /// without running the model, like [`Self::set_deferred`].
    pub fn replace_deferred(&mut self, config: L) -> Result<(), ConfigError> {
        if config == self.config {
            return Ok(());
        }
        config.validate()?;
        self.config = config;
        self.pending = true;
        Ok(())
    }

    fn replace(&mut self, config: L) -> Result<(), ConfigError> {
        if config == self.config && !self.pending {
            return Ok(());
        }
        let run = config.run()?;
        self.config = config;
        self.run = Ok(run);
        self.pending = false;
        Ok(())
    }
}

fn unknown<L: LabModel>(name: &str) -> ConfigError {
    not_a_control(L::NAME, name, L::controls().iter().map(|c| c.name))
}

/// The message for a control name a lab does not have: the control it is a case or a
/// plural away from (a link's typo: `seeds`, `yourpolicy`), else the first few and a count
/// (a lab has up to thirty; a link that lists all of them for each bad name is a page of
/// text).
pub fn not_a_control<'a>(
    lab: &str,
    name: &str,
    controls: impl Iterator<Item = &'a str> + Clone,
) -> ConfigError {
    let near = |control: &&str| {
        let plural_or_case = name.strip_suffix(['s', 'S']).unwrap_or(name);
        control.eq_ignore_ascii_case(name) || control.eq_ignore_ascii_case(plural_or_case)
    };
    let hint = match controls.clone().find(near) {
        Some(control) => format!("did you mean {control}?"),
        None => format!("its controls: {}", crate::error::some_names(controls)),
    };
    // The name is the message's field: quoted by a short prefix like any bad value.
    ConfigError::new(
        excerpt(name),
        format!("is not a control of the {lab} lab ({hint})"),
    )
}

/// Parses, checks and writes one control into `config`; the model's validation has the
/// last word (and `config` is left as it was if it refuses).
fn set_text<L: LabModel>(config: &mut L, name: &str, text: &str) -> Result<(), ConfigError> {
    let control = L::controls()
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| unknown::<L>(name))?;
    let value = control.parse(text)?;
    let mut next = config.clone();
    (control.set)(&mut next, value);
    next.validate()?;
    *config = next;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name a case or a plural away from a control is answered with that control; any
    /// other, with five of them and a count (Demo 15 has thirty, and each bad name of a
    /// link listed them all: 800 characters a line).
    #[test]
    fn an_unknown_control_is_answered_with_the_nearest_or_a_few() {
        use crate::scenario::retry_policies_lab::RetryPoliciesLab;
        assert_eq!(
            unknown::<RetryPoliciesLab>("SEEDS").to_string(),
            "SEEDS: is not a control of the retry-policies lab (did you mean seed?)"
        );
        let far = unknown::<RetryPoliciesLab>("seedRandomly").to_string();
        let controls = RetryPoliciesLab::controls();
        assert!(controls.len() > 20);
        let five: Vec<&str> = controls.iter().take(5).map(|c| c.name).collect();
        assert_eq!(
            far,
            format!(
                "seedRandomly: is not a control of the retry-policies lab (its controls: {} and {} more)",
                five.join(", "),
                controls.len() - 5
            )
        );
    }

    #[test]
    fn one_of_a_unit_is_singular() {
        for (v, unit, text) in [
            (1.0, "threads", "1 thread"),
            (2.0, "threads", "2 threads"),
            (0.0, "tokens", "0 tokens"),
            (1.5, "tokens", "1.5 tokens"),
            (1.0, "requests/s", "1 request/s"),
            (1.0, "% of normal", "1 % of normal"),
            (1.0, "s", "1 s"),
            (1.0, "", "1"),
        ] {
            assert_eq!(with_unit(v, unit), text);
        }
    }
}

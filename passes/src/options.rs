//! Typed pass and pipeline options, declared once.
//!
//! Every pass and every pipeline declares its options as a static table of
//! [`OptionSpec`]s (name, kind, default, help), next to its entry in
//! [`crate::registry`]. From that one table come the parsing and checking of
//! the option text, the `--help` listing of `zkdv-opt` and the canonical
//! spelling a pipeline prints; a pass only reads already-checked values
//! through [`OptionValues`].
//!
//! Option text is a space-separated list of `name=value` items; a
//! [`Kind::Flag`] is given by its bare name (`drop-deltas`). Each option may
//! be given once. An unknown name, a repeated one, a flag with a value or a
//! value of the wrong kind is an [`OptionError`] that names the pass and
//! lists what it accepts.

use std::fmt::Write as _;

/// What values an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Any non-empty text without spaces (a function name, a role list).
    Text,
    /// A comma-separated list, possibly empty (`results=`), whose items the
    /// pass reads.
    List,
    /// A number in `(0, 1]` (a probe ratio).
    Ratio,
    /// Given by its bare name, or absent; takes no value.
    Flag,
    /// One of these words.
    Choice(&'static [&'static str]),
}

impl Kind {
    /// How `--help` writes the value part of `name=VALUE`.
    fn value_hint(self) -> String {
        match self {
            Kind::Text => "TEXT".to_owned(),
            Kind::List => "A,B,...".to_owned(),
            Kind::Ratio => "R".to_owned(),
            Kind::Flag => String::new(),
            Kind::Choice(words) => words.join("|"),
        }
    }
}

/// One declared option.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptionSpec {
    /// The name before `=` (or the whole item for a flag).
    pub name: &'static str,
    /// What values it takes.
    pub kind: Kind,
    /// The value when it is not given (`None`: absent, which each pass
    /// documents; a flag is off when absent).
    pub default: Option<&'static str>,
    /// One line for `--help`.
    pub help: &'static str,
}

impl OptionSpec {
    /// The option as `--help` shows it: `name=VALUE (default D): help`.
    pub fn usage(&self) -> String {
        let mut text = self.name.to_owned();
        if self.kind != Kind::Flag {
            let _ = write!(text, "={}", self.kind.value_hint());
        }
        if let Some(default) = self.default {
            let _ = write!(text, " (default {default})");
        }
        let _ = write!(text, ": {}", self.help);
        text
    }
}

/// A checked option value.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Text(String),
    Number(f64),
    Flag,
}

/// Why option text was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OptionError {
    /// An item names no declared option.
    #[error("--{owner}: unknown option `{item}` (expected {expected})")]
    Unknown {
        /// The pass or pipeline.
        owner: String,
        /// The item as given.
        item: String,
        /// What the owner accepts.
        expected: String,
    },
    /// An option was given twice.
    #[error("--{owner}: option `{name}` given twice")]
    Repeated {
        /// The pass or pipeline.
        owner: String,
        /// The option.
        name: String,
    },
    /// A value that does not fit the option's kind.
    #[error("--{owner}: `{item}` is not valid: {name} takes {expected}")]
    BadValue {
        /// The pass or pipeline.
        owner: String,
        /// The item as given.
        item: String,
        /// The option.
        name: String,
        /// What the option takes.
        expected: String,
    },
}

/// The checked options of one pass or pipeline run.
///
/// Built by [`OptionValues::parse`] against a table of [`OptionSpec`]s;
/// reading an option returns its given value or its declared default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OptionValues {
    specs: &'static [OptionSpec],
    given: Vec<(&'static str, Value)>,
}

impl OptionValues {
    /// Parses `text` against `specs`; `owner` (a pass or pipeline flag
    /// without `--`) names the culprit in errors.
    pub fn parse(
        owner: &str,
        specs: &'static [OptionSpec],
        text: &str,
    ) -> Result<Self, OptionError> {
        let mut given: Vec<(&'static str, Value)> = Vec::new();
        for item in text.split_whitespace() {
            let (name, value) = match item.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (item, None),
            };
            let Some(spec) = specs.iter().find(|spec| spec.name == name) else {
                return Err(OptionError::Unknown {
                    owner: owner.to_owned(),
                    item: item.to_owned(),
                    expected: expected(specs),
                });
            };
            if given.iter().any(|(seen, _)| *seen == spec.name) {
                return Err(OptionError::Repeated {
                    owner: owner.to_owned(),
                    name: spec.name.to_owned(),
                });
            }
            let bad = |what: &str| OptionError::BadValue {
                owner: owner.to_owned(),
                item: item.to_owned(),
                name: spec.name.to_owned(),
                expected: what.to_owned(),
            };
            let value = match (spec.kind, value) {
                (Kind::Flag, None) => Value::Flag,
                (Kind::Flag, Some(_)) => return Err(bad("no value (give the bare name)")),
                (Kind::Text, Some(value)) if !value.is_empty() => Value::Text(value.to_owned()),
                (Kind::Text, _) => return Err(bad("a non-empty value")),
                (Kind::List, Some(value)) => Value::Text(value.to_owned()),
                (Kind::List, None) => return Err(bad("a list (`name=` for an empty one)")),
                (Kind::Ratio, Some(value)) => value
                    .parse::<f64>()
                    .ok()
                    .filter(|ratio| *ratio > 0.0 && *ratio <= 1.0)
                    .map(Value::Number)
                    .ok_or_else(|| bad("a number in (0, 1]"))?,
                (Kind::Ratio, None) => return Err(bad("a number in (0, 1]")),
                (Kind::Choice(words), Some(value)) if words.contains(&value) => {
                    Value::Text(value.to_owned())
                }
                (Kind::Choice(words), _) => {
                    return Err(bad(&format!("one of {}", words.join("|"))))
                }
            };
            given.push((spec.name, value));
        }
        Ok(Self { specs, given })
    }

    /// The defaults of `specs` (what an empty option text gives).
    pub fn defaults(specs: &'static [OptionSpec]) -> Self {
        Self {
            specs,
            given: Vec::new(),
        }
    }

    fn spec(&self, name: &str) -> Option<&'static OptionSpec> {
        self.specs.iter().find(|spec| spec.name == name)
    }

    fn given(&self, name: &str) -> Option<&Value> {
        self.given
            .iter()
            .find(|(seen, _)| *seen == name)
            .map(|(_, value)| value)
    }

    /// A [`Kind::Text`], [`Kind::List`] or [`Kind::Choice`] option: its
    /// value, or its default.
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.given(name) {
            Some(Value::Text(text)) => Some(text),
            _ => self.spec(name).and_then(|spec| spec.default),
        }
    }

    /// A [`Kind::Ratio`] option: its value, or its default.
    pub fn number(&self, name: &str) -> Option<f64> {
        match self.given(name) {
            Some(Value::Number(number)) => Some(*number),
            _ => self
                .spec(name)
                .and_then(|spec| spec.default)
                .and_then(|default| default.parse().ok()),
        }
    }

    /// A [`Kind::Flag`] option: whether it was given.
    pub fn flag(&self, name: &str) -> bool {
        self.spec(name).is_some() && matches!(self.given(name), Some(Value::Flag))
    }

    /// Whether `name` was given explicitly.
    pub fn is_given(&self, name: &str) -> bool {
        self.given(name).is_some()
    }

    /// The given options in the syntax [`OptionValues::parse`] reads,
    /// in declaration order (empty when none was given).
    pub fn render(&self) -> String {
        self.render_except(&[])
    }

    /// [`OptionValues::render`] without the options named in `skip` (a
    /// pipeline forwarding the rest to one of its stages).
    pub fn render_except(&self, skip: &[&str]) -> String {
        self.specs
            .iter()
            .filter(|spec| !skip.contains(&spec.name))
            .filter_map(|spec| {
                self.given(spec.name).map(|value| match value {
                    Value::Flag => spec.name.to_owned(),
                    Value::Text(text) => format!("{}={text}", spec.name),
                    Value::Number(number) => format!("{}={number:?}", spec.name),
                })
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `name=VALUE, name=VALUE and flag`, or `no options`.
fn expected(specs: &[OptionSpec]) -> String {
    let items: Vec<String> = specs
        .iter()
        .map(|spec| match spec.kind {
            Kind::Flag => format!("`{}`", spec.name),
            kind => format!("`{}={}`", spec.name, kind.value_hint()),
        })
        .collect();
    match items.as_slice() {
        [] => "no options".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SPECS: &[OptionSpec] = &[
        OptionSpec {
            name: "func",
            kind: Kind::Text,
            default: Some("main"),
            help: "the function",
        },
        OptionSpec {
            name: "ratio",
            kind: Kind::Ratio,
            default: Some("0.01"),
            help: "the probe ratio",
        },
        OptionSpec {
            name: "output",
            kind: Kind::Choice(&["both", "attested"]),
            default: Some("both"),
            help: "what to emit",
        },
        OptionSpec {
            name: "drop-deltas",
            kind: Kind::Flag,
            default: None,
            help: "drop them",
        },
    ];

    #[test]
    fn values_and_defaults() {
        let values = OptionValues::parse("p", SPECS, "ratio=0.5 drop-deltas").unwrap();
        assert_eq!(values.text("func"), Some("main"));
        assert_eq!(values.number("ratio"), Some(0.5));
        assert_eq!(values.text("output"), Some("both"));
        assert!(values.flag("drop-deltas"));
        assert!(values.is_given("ratio") && !values.is_given("func"));
        assert_eq!(values.render(), "ratio=0.5 drop-deltas");
        let defaults = OptionValues::defaults(SPECS);
        assert_eq!(defaults.number("ratio"), Some(0.01));
        assert!(!defaults.flag("drop-deltas"));
        assert_eq!(defaults, OptionValues::parse("p", SPECS, "  ").unwrap());
    }

    #[test]
    fn errors_name_the_pass_and_what_it_takes() {
        let error = |text| OptionValues::parse("zkdv-x", SPECS, text).unwrap_err();
        assert_eq!(
            error("colour=blue").to_string(),
            "--zkdv-x: unknown option `colour=blue` (expected `func=TEXT`, `ratio=R`, \
             `output=both|attested` or `drop-deltas`)"
        );
        assert_eq!(
            error("func=a func=b").to_string(),
            "--zkdv-x: option `func` given twice"
        );
        assert!(error("ratio=2").to_string().contains("a number in (0, 1]"));
        assert!(error("ratio=x").to_string().contains("a number in (0, 1]"));
        assert!(error("output=replay")
            .to_string()
            .contains("one of both|attested"));
        assert!(error("drop-deltas=1").to_string().contains("no value"));
        assert!(error("func=").to_string().contains("non-empty"));
        assert!(OptionValues::parse("q", &[], "x")
            .unwrap_err()
            .to_string()
            .contains("(expected no options)"));
    }

    #[test]
    fn usage_lines() {
        assert_eq!(SPECS[1].usage(), "ratio=R (default 0.01): the probe ratio");
        assert_eq!(SPECS[3].usage(), "drop-deltas: drop them");
    }
}

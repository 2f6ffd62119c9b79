//! Expected diagnostics: the `// expected-error {{...}}` comments of a test
//! input, and checking emitted [`Diagnostic`](crate::Diagnostic)s against
//! them (what `zkdv-opt --verify-diagnostics` does, after `mlir-opt`'s
//! option of that name).
//!
//! # Syntax
//!
//! A directive is a comment anywhere on a line (usually a line of its own):
//!
//! ```text
//! // expected-error {{text}}           a diagnostic on this same line
//! // expected-error @+1 {{text}}       on the line 1 below (@-2: 2 above)
//! // expected-error @below {{text}}    on the next line that holds no directive
//! // expected-error @above {{text}}    on the last line before that held none
//! // expected-error @unknown {{text}}  without a location in the input
//! ```
//!
//! `expected-warning`, `expected-remark` and `expected-note` work the same way.
//! The text is everything between the first `{{` and the `}}` that ends the
//! line, and it matches any message that *contains* it (`{{}}` matches any
//! message). Only one directive is read per line. A line is a directive only
//! where `expected-<severity>` is followed by `@` or `{`; prose such as "an
//! expected-error comment" is not one, but a directive that starts and then
//! goes wrong (an unknown designator, no closing `}}`, `-re`, an offset above
//! the first line, `@below` on the last line) is a
//! [`DirectiveError`](crate::expected::DirectiveError) rather than silently
//! ignored. Regular expressions (`mlir-opt`'s `expected-error-re`) are not
//! supported.
//!
//! # Rules
//!
//! - Line numbers are those of the whole file: a chunk of a file split on
//!   `// -----` is read with the number of lines before it
//!   ([`Expectations::parse`](crate::expected::Expectations::parse)), and its
//!   diagnostics must carry the same numbering (as `zkdv-opt
//!   --split-input-file` gives them).
//! - Every expected diagnostic must be emitted, with its severity, at its
//!   line of the input file, with a message containing its text; otherwise
//!   it is [`Mismatch::NotProduced`](crate::expected::Mismatch::NotProduced).
//!   A diagnostic whose location is not a line of the input file (an unknown
//!   location, a pass's internal location such as `<guard>`, another file)
//!   can only match an `@unknown` directive.
//! - Every emitted diagnostic must be expected; otherwise it is
//!   [`Mismatch::Unexpected`](crate::expected::Mismatch::Unexpected), or
//!   [`Mismatch::WrongSeverity`](crate::expected::Mismatch::WrongSeverity)
//!   where only the severity differs from a directive on its line (that
//!   directive then also counts as not produced).
//! - Notes are diagnostics of their own: each needs an `expected-note`, at
//!   its own line. The `see current operation: ...` note MLIR's verifier
//!   attaches is skipped (`mlir-opt --verify-diagnostics` turns it off, which
//!   MLIR's C API cannot).
//! - One directive may match several identical diagnostics; where two
//!   directives could match, a diagnostic takes one not matched yet.
//!
//! These are `mlir-opt`'s rules (`SourceMgrDiagnosticVerifierHandler`); the
//! mismatch messages are worded as it words them. Two differences: the
//! stricter reading of directives above, and the pairing of identical
//! diagnostics with directives (`mlir-opt` lets the first matching directive
//! take every diagnostic).

use std::fmt::{self, Display, Formatter};

use crate::{Diagnostic, ParseError, Severity};

/// A line of the input file, as `file:line:col` (1-based; the column in bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl Display for Position {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Where an expected diagnostic must be emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// At this 1-based line of the input file.
    Line(usize),
    /// Without a location in the input file (`@unknown`).
    Unknown,
}

/// One `expected-*` directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    pub severity: Severity,
    pub target: Target,
    /// The text the message must contain.
    pub text: String,
    /// Where the directive is written (its `expected-` word).
    pub written_at: Position,
}

/// A directive that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DirectiveError {
    #[error(
        "{at}: error: unknown designator `@{designator}` in expected-{severity} \
         (expected @+N, @-N, @above, @below or @unknown)"
    )]
    UnknownDesignator {
        at: Position,
        severity: Severity,
        designator: String,
    },
    #[error(
        "{at}: error: expected-{severity} needs its text in `{{{{...}}}}` after the designator"
    )]
    MissingText { at: Position, severity: Severity },
    #[error("{at}: error: expected-{severity} text has no `}}}}` ending the line")]
    UnterminatedText { at: Position, severity: Severity },
    #[error("{at}: error: expected-{severity}-re (regular expressions) is not supported")]
    Regex { at: Position, severity: Severity },
    #[error("{at}: error: expected-{severity} @-{offset} points above the first line")]
    BeforeFirstLine {
        at: Position,
        severity: Severity,
        offset: usize,
    },
    #[error("{at}: error: expected-{severity} @below has no line below it")]
    NothingBelow { at: Position, severity: Severity },
}

/// An emitted diagnostic that was not expected, or an expected one that was
/// not emitted. Displays as `mlir-opt --verify-diagnostics` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// `file:line:col: error: expected error "text" was not produced`, at the
    /// directive.
    NotProduced(Expectation),
    /// `location: error: unexpected error: message`, at the diagnostic.
    Unexpected {
        location: String,
        severity: Severity,
        message: String,
    },
    /// `file:line:col: error: 'warning' diagnostic emitted when expecting a
    /// 'error'`, at the directive whose text matched.
    WrongSeverity {
        expectation: Expectation,
        found: Severity,
    },
}

impl Display for Mismatch {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::NotProduced(expected) => write!(
                f,
                "{}: error: expected {} \"{}\" was not produced",
                expected.written_at, expected.severity, expected.text
            ),
            Mismatch::Unexpected {
                location,
                severity,
                message,
            } => write!(f, "{location}: error: unexpected {severity}: {message}"),
            Mismatch::WrongSeverity { expectation, found } => write!(
                f,
                "{}: error: '{found}' diagnostic emitted when expecting a '{}'",
                expectation.written_at, expectation.severity
            ),
        }
    }
}

/// The expected diagnostics of one input (a file, or one chunk of it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expectations {
    /// The file name diagnostics of this input carry in their locations.
    pub source_name: String,
    pub items: Vec<Expectation>,
}

impl Expectations {
    /// Reads the directives of `text`, where `first_line` lines of the file
    /// come before `text` (0 for a whole file) and `source_name` is the file
    /// name in the locations of its diagnostics.
    pub fn parse(text: &str, first_line: usize, source_name: &str) -> Result<Self, DirectiveError> {
        let mut items: Vec<Expectation> = Vec::new();
        // The last line without a directive, for `@above` (MLIR starts at
        // the first line).
        let mut last_plain = first_line + 1;
        // Indices into `items` of `@below` directives waiting for a line.
        let mut waiting: Vec<usize> = Vec::new();
        for (index, line) in text.split('\n').enumerate() {
            let number = first_line + index + 1;
            let at = |column: usize| Position {
                file: source_name.to_owned(),
                line: number,
                column,
            };
            let Some(directive) = find_directive(line.trim_end(), at)? else {
                for waiting in waiting.drain(..) {
                    items[waiting].target = Target::Line(number);
                }
                last_plain = number;
                continue;
            };
            let target = match directive.designator {
                Designator::Here => Target::Line(number),
                Designator::Down(offset) => Target::Line(number + offset),
                Designator::Up(offset) => match number.checked_sub(offset) {
                    Some(line) if line >= 1 => Target::Line(line),
                    _ => {
                        return Err(DirectiveError::BeforeFirstLine {
                            at: directive.at,
                            severity: directive.severity,
                            offset,
                        })
                    }
                },
                Designator::Above => Target::Line(last_plain),
                Designator::Below => {
                    waiting.push(items.len());
                    Target::Line(0)
                }
                Designator::Unknown => Target::Unknown,
            };
            items.push(Expectation {
                severity: directive.severity,
                target,
                text: directive.text,
                written_at: directive.at,
            });
        }
        if let Some(&dangling) = waiting.first() {
            let item = &items[dangling];
            return Err(DirectiveError::NothingBelow {
                at: item.written_at.clone(),
                severity: item.severity,
            });
        }
        Ok(Self {
            source_name: source_name.to_owned(),
            items,
        })
    }

    /// Whether there are no directives.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Checks `diagnostics` (with their notes) against the directives:
    /// the mismatches found, empty when everything matched. Unexpected
    /// diagnostics come first, in emission order, then the directives not
    /// produced, in file order.
    pub fn verify(&self, diagnostics: &[Diagnostic]) -> Vec<Mismatch> {
        let mut matched = vec![false; self.items.len()];
        let mut mismatches = Vec::new();
        let mut pending: Vec<&Diagnostic> = diagnostics.iter().rev().collect();
        while let Some(diagnostic) = pending.pop() {
            pending.extend(diagnostic.notes.iter().rev());
            if diagnostic.severity == Severity::Note
                && diagnostic.message.starts_with("see current operation:")
            {
                continue;
            }
            let target = match line_in(&diagnostic.location, &self.source_name) {
                Some(line) => Target::Line(line),
                None => Target::Unknown,
            };
            let candidates: Vec<usize> = (0..self.items.len())
                .filter(|&index| {
                    let item = &self.items[index];
                    item.target == target && diagnostic.message.contains(&item.text)
                })
                .collect();
            let same_severity =
                |index: &&usize| self.items[**index].severity == diagnostic.severity;
            let chosen = candidates
                .iter()
                .filter(same_severity)
                .find(|&&index| !matched[index])
                .or_else(|| candidates.iter().find(same_severity));
            if let Some(&index) = chosen {
                matched[index] = true;
            } else if let Some(&near) = candidates.last() {
                mismatches.push(Mismatch::WrongSeverity {
                    expectation: self.items[near].clone(),
                    found: diagnostic.severity,
                });
            } else {
                mismatches.push(Mismatch::Unexpected {
                    location: diagnostic.location.clone(),
                    severity: diagnostic.severity,
                    message: diagnostic.message.clone(),
                });
            }
        }
        mismatches.extend(
            self.items
                .iter()
                .zip(&matched)
                .filter(|(_, &matched)| !matched)
                .map(|(item, _)| Mismatch::NotProduced(item.clone())),
        );
        mismatches
    }
}

/// The diagnostics a parse failure shows the user, to verify like any other:
/// MLIR's own for invalid text; the one error that replaces them for
/// StableHLO in pretty form; an error at the file for a NUL byte.
pub fn parse_error_diagnostics(error: &ParseError) -> Vec<Diagnostic> {
    let located = |location: &str| {
        let shown = error.to_string();
        let prefix = format!("{location}: error: ");
        let message = shown.strip_prefix(&prefix).unwrap_or(&shown).to_owned();
        vec![Diagnostic::error(location, message)]
    };
    match error {
        ParseError::Invalid { diagnostics } => diagnostics.0.clone(),
        ParseError::PrettyForm { location, .. } => located(location),
        ParseError::NulByte { source_name } => located(source_name),
    }
}

/// The line of `location` (`file:line:col`) if its file is `source_name`.
pub fn line_in(location: &str, source_name: &str) -> Option<usize> {
    let rest = location.strip_prefix(source_name)?.strip_prefix(':')?;
    let (line, column) = rest.split_once(':')?;
    let is_number = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if !is_number(column) {
        return None;
    }
    line.parse().ok().filter(|&line| line > 0)
}

/// Where a directive says its diagnostic is, before line numbers are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Designator {
    Here,
    Down(usize),
    Up(usize),
    Above,
    Below,
    Unknown,
}

struct Directive {
    severity: Severity,
    designator: Designator,
    text: String,
    at: Position,
}

/// The directive on `line` (already right-trimmed), if any. `at` makes the
/// position of a 1-based column of this line.
fn find_directive(
    line: &str,
    at: impl Fn(usize) -> Position,
) -> Result<Option<Directive>, DirectiveError> {
    const WORD: &str = "expected-";
    let mut search = 0;
    while let Some(found) = line[search..].find(WORD) {
        let start = search + found;
        search = start + WORD.len();
        let rest = &line[search..];
        let Some((severity, name)) = [
            (Severity::Error, "error"),
            (Severity::Warning, "warning"),
            (Severity::Remark, "remark"),
            (Severity::Note, "note"),
        ]
        .into_iter()
        .find(|(_, name)| rest.starts_with(name)) else {
            continue;
        };
        let rest = &rest[name.len()..];
        let (regex, rest) = match rest.strip_prefix("-re") {
            Some(rest) => (true, rest),
            None => (false, rest),
        };
        let body = rest.trim_start_matches(' ');
        if !(body.starts_with('@') || body.starts_with('{')) {
            // Prose (`expected-errors`, "an expected-error comment").
            continue;
        }
        let at = at(start + 1);
        if regex {
            return Err(DirectiveError::Regex { at, severity });
        }
        let (designator, body) = match body.strip_prefix('@') {
            Some(body) => {
                let end = body.find([' ', '{']).unwrap_or(body.len());
                let word = &body[..end];
                let offset = |digits: &str| {
                    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                        .then(|| digits.parse::<usize>().ok())
                        .flatten()
                };
                let designator = match word {
                    "above" => Some(Designator::Above),
                    "below" => Some(Designator::Below),
                    "unknown" => Some(Designator::Unknown),
                    _ => match (word.strip_prefix('+'), word.strip_prefix('-')) {
                        (Some(digits), _) => offset(digits).map(Designator::Down),
                        (_, Some(digits)) => offset(digits).map(Designator::Up),
                        _ => None,
                    },
                };
                let Some(designator) = designator else {
                    return Err(DirectiveError::UnknownDesignator {
                        at,
                        severity,
                        designator: word.to_owned(),
                    });
                };
                (designator, body[end..].trim_start_matches(' '))
            }
            None => (Designator::Here, body),
        };
        let Some(inner) = body.strip_prefix("{{") else {
            return Err(DirectiveError::MissingText { at, severity });
        };
        let Some(text) = inner.strip_suffix("}}") else {
            return Err(DirectiveError::UnterminatedText { at, severity });
        };
        return Ok(Some(Directive {
            severity,
            designator,
            text: text.to_owned(),
            at,
        }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Diagnostics, IrContext};

    fn parse(text: &str) -> Expectations {
        Expectations::parse(text, 0, "t.mlir").expect("directives parse")
    }

    fn targets(expectations: &Expectations) -> Vec<(Severity, Target, &str)> {
        expectations
            .items
            .iter()
            .map(|item| (item.severity, item.target, item.text.as_str()))
            .collect()
    }

    fn at(line: usize, column: usize) -> Position {
        Position {
            file: "t.mlir".to_owned(),
            line,
            column,
        }
    }

    fn error(line: usize, message: &str) -> Diagnostic {
        Diagnostic::error(format!("t.mlir:{line}:3"), message)
    }

    fn note(line: usize, message: &str) -> Diagnostic {
        Diagnostic {
            severity: Severity::Note,
            location: format!("t.mlir:{line}:1"),
            message: message.to_owned(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn reads_every_designator() {
        let text = "\
op // expected-error {{same line}}
// expected-warning @+2 {{two below}}
// expected-remark@-1 {{one above}}
op
// expected-note @above {{last plain line}}
// expected-error @below {{next plain line}}
// expected-error @below {{skips directives}}

// expected-error @unknown {{anywhere}}
";
        let expectations = parse(text);
        assert_eq!(
            targets(&expectations),
            [
                (Severity::Error, Target::Line(1), "same line"),
                (Severity::Warning, Target::Line(4), "two below"),
                (Severity::Remark, Target::Line(2), "one above"),
                (Severity::Note, Target::Line(4), "last plain line"),
                (Severity::Error, Target::Line(8), "next plain line"),
                (Severity::Error, Target::Line(8), "skips directives"),
                (Severity::Error, Target::Unknown, "anywhere"),
            ]
        );
        assert_eq!(expectations.items[0].written_at, at(1, 7));
        assert_eq!(expectations.items[2].written_at, at(3, 4));
    }

    #[test]
    fn text_runs_to_the_last_braces_and_may_be_empty() {
        let expectations = parse("// expected-error {{a {{b}} c}}  \n// expected-error {{}}\n");
        assert_eq!(expectations.items[0].text, "a {{b}} c");
        assert_eq!(expectations.items[1].text, "");
    }

    #[test]
    fn chunk_lines_are_those_of_the_file() {
        let expectations =
            Expectations::parse("\n// expected-error @+1 {{x}}\nop\n", 10, "t.mlir").unwrap();
        assert_eq!(expectations.items[0].target, Target::Line(13));
        assert_eq!(expectations.items[0].written_at, at(12, 4));
        // `@above` on a chunk's first line points at that line.
        let first = Expectations::parse("// expected-error @above {{x}}\n", 4, "t.mlir").unwrap();
        assert_eq!(first.items[0].target, Target::Line(5));
    }

    #[test]
    fn prose_is_not_a_directive() {
        let text = "// an expected-error comment, expected-errors, unexpected-thing\n\
                    // CHECK: expected error \"x\" was not produced\n";
        assert!(parse(text).is_empty());
    }

    #[test]
    fn malformed_directives_are_errors() {
        let error = |text: &str| Expectations::parse(text, 0, "t.mlir").unwrap_err();
        assert!(matches!(
            error("// expected-error @+x {{a}}"),
            DirectiveError::UnknownDesignator { designator, .. } if designator == "+x"
        ));
        assert!(matches!(
            error("// expected-error @abve {{a}}"),
            DirectiveError::UnknownDesignator { .. }
        ));
        assert!(matches!(
            error("// expected-error @+1 a"),
            DirectiveError::MissingText { .. }
        ));
        assert!(matches!(
            error("// expected-error {{a}"),
            DirectiveError::UnterminatedText { .. }
        ));
        assert!(matches!(
            error("// expected-error {{a}} trailing"),
            DirectiveError::UnterminatedText { .. }
        ));
        assert!(matches!(
            error("// expected-error-re {{a.*}}"),
            DirectiveError::Regex { .. }
        ));
        assert!(matches!(
            error("\n// expected-error @-2 {{a}}"),
            DirectiveError::BeforeFirstLine { offset: 2, .. }
        ));
        let dangling = error("op\n// expected-error @below {{a}}");
        assert!(matches!(dangling, DirectiveError::NothingBelow { .. }));
        assert_eq!(
            dangling.to_string(),
            "t.mlir:2:4: error: expected-error @below has no line below it"
        );
    }

    #[test]
    fn matching_diagnostics_pass() {
        let expectations = parse("// expected-error @+1 {{bad op}}\nop\n");
        assert!(expectations
            .verify(&[error(2, "this is a bad op indeed")])
            .is_empty());
    }

    #[test]
    fn reports_missing_and_unexpected() {
        let expectations = parse("// expected-error @+1 {{bad op}}\nop\n");
        let mismatches = expectations.verify(&[error(1, "bad op"), error(2, "other")]);
        assert_eq!(
            mismatches
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            [
                "t.mlir:1:3: error: unexpected error: bad op",
                "t.mlir:2:3: error: unexpected error: other",
                "t.mlir:1:4: error: expected error \"bad op\" was not produced",
            ]
        );
        assert!(matches!(mismatches[2], Mismatch::NotProduced(_)));
    }

    #[test]
    fn severity_must_match() {
        let expectations = parse("op // expected-warning {{odd}}\n");
        let mismatches = expectations.verify(&[error(1, "odd")]);
        assert_eq!(mismatches.len(), 2);
        assert_eq!(
            mismatches[0].to_string(),
            "t.mlir:1:7: error: 'error' diagnostic emitted when expecting a 'warning'"
        );
        assert!(matches!(mismatches[1], Mismatch::NotProduced(_)));
    }

    #[test]
    fn unknown_matches_diagnostics_outside_the_file() {
        let expectations = parse("// expected-error @unknown {{bad option}}\n");
        for location in ["<unknown>", "<options>", "other.mlir:1:1", "t.mlir"] {
            let diagnostic = Diagnostic::error(location, "a bad option");
            assert!(expectations.verify(&[diagnostic]).is_empty(), "{location}");
        }
        // ... but not one at a line of the file.
        assert_eq!(expectations.verify(&[error(1, "a bad option")]).len(), 2);
    }

    #[test]
    fn notes_are_checked_but_not_the_current_operation() {
        let expectations = parse(
            "// expected-error @+1 {{cannot inline}}\ncall\n// expected-note @+1 {{defined here}}\ncallee\n",
        );
        let mut diagnostic = error(2, "cannot inline @f");
        diagnostic.notes = vec![
            note(4, "@f is defined here"),
            note(2, "see current operation: \"call\"() : () -> ()"),
        ];
        assert!(expectations.verify(&[diagnostic.clone()]).is_empty());
        // Without the note directive, the note is unexpected.
        let only_error = parse("// expected-error @+1 {{cannot inline}}\ncall\n");
        let mismatches = only_error.verify(&[diagnostic]);
        assert_eq!(
            mismatches
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            ["t.mlir:4:1: error: unexpected note: @f is defined here"]
        );
    }

    #[test]
    fn repeated_diagnostics_share_or_split_directives() {
        let one = parse("op // expected-error {{twice}}\n");
        assert!(one
            .verify(&[error(1, "twice"), error(1, "twice")])
            .is_empty());
        let two = parse("// expected-error @+2 {{twice}}\n// expected-error @+1 {{twice}}\nop\n");
        assert!(two
            .verify(&[error(3, "twice"), error(3, "twice")])
            .is_empty());
        assert_eq!(two.verify(&[error(3, "twice")]).len(), 1);
    }

    #[test]
    fn locations_are_read_from_the_right() {
        assert_eq!(line_in("a:b.mlir:12:5", "a:b.mlir"), Some(12));
        assert_eq!(line_in("<stdin>:3:1", "<stdin>"), Some(3));
        assert_eq!(line_in("t.mlir", "t.mlir"), None);
        assert_eq!(line_in("t.mlir:x:1", "t.mlir"), None);
        assert_eq!(line_in("t.mlir.bak:1:1", "t.mlir"), None);
        assert_eq!(line_in("t.mlir:0:0", "t.mlir"), None);
    }

    #[test]
    fn parse_errors_become_diagnostics() {
        let context = IrContext::new();
        let bad = "\"func.func\"() <{function_type = () -> (), sym_name = \"f\"}> ({\n  \"x.y\"(%nope) : (f32) -> ()\n}) : () -> ()\n";
        let failure = context.parse(bad, "t.mlir").unwrap_err();
        let shown = parse_error_diagnostics(&failure);
        assert_eq!(line_in(&shown[0].location, "t.mlir"), Some(2));
        assert!(shown[0].message.contains("undeclared SSA value"));

        let pretty = "module {\n  func.func @f(%a: f32) -> f32 {\n    %0 = stablehlo.add %a, %a : f32\n    return %0 : f32\n  }\n}\n";
        let failure = context.parse(pretty, "t.mlir").unwrap_err();
        let shown = parse_error_diagnostics(&failure);
        assert_eq!(shown.len(), 1);
        assert_eq!(shown[0].location, "t.mlir:3:10");
        assert!(
            shown[0]
                .message
                .starts_with("`stablehlo.add` is StableHLO in pretty form"),
            "{}",
            shown[0].message
        );

        let nul = context.parse("\0", "t.mlir").unwrap_err();
        assert_eq!(
            parse_error_diagnostics(&nul),
            [Diagnostic::error("t.mlir", "input contains a NUL byte")]
        );
        // A `Diagnostics` list converts as it is.
        let invalid = ParseError::Invalid {
            diagnostics: Diagnostics(vec![error(1, "x")]),
        };
        assert_eq!(parse_error_diagnostics(&invalid), [error(1, "x")]);
    }
}

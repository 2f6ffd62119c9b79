//! The MLIR context, parsing, printing and diagnostics of ZKDV.
//!
//! [`IrContext`] owns an MLIR [`Context`] set up for this project: unregistered
//! dialects are allowed (StableHLO, `check.*`, `chlo.*`, ... are not linked in),
//! the `func` dialect is loaded (so `func.func`, `func.call` and `func.return`
//! are real, verified ops with symbol semantics), and a diagnostic handler
//! collects every diagnostic MLIR emits instead of letting it reach stderr.
//!
//! [`IrContext::parse`] turns text into a [`Module`] or a typed [`ParseError`]
//! that carries the diagnostics with their `file:line:col` locations, and
//! recognises StableHLO printed in *pretty* form, which this project cannot
//! parse, so the user is told how to print it in generic form instead.
//! [`print_generic`] prints a module back in generic op form.
//!
//! This crate is the one MLIR front end of ZKDV: the passes (`zkdv-passes`)
//! and the replay runtime (`zkdv-runtime`) both build on it, and the runtime
//! does not depend on the passes. It also finds functions in a module
//! ([`find_function`], [`functions`], [`function_type`]) and reads string
//! attributes ([`string_value`]).

use std::{
    cell::RefCell,
    ffi::CString,
    fmt::{self, Display, Formatter},
    rc::Rc,
};

use melior::{
    diagnostic::DiagnosticSeverity,
    dialect::DialectHandle,
    ir::{
        attribute::{StringAttribute, TypeAttribute},
        block::BlockLike,
        operation::{OperationLike, OperationPrintingFlags},
        r#type::FunctionType,
        Attribute, AttributeLike, Location, Module, Operation, OperationRef, RegionLike,
    },
    Context,
};

pub mod attrs;
/// `expected-error {{...}}` comments and checking diagnostics against them.
pub mod expected;
pub mod ops;
/// The narrowest float type a module computes in.
pub mod precision;

/// How to print a JAX program in the form this project reads.
pub const GENERIC_FORM_HINT: &str = "print it in MLIR generic op form, e.g. from JAX: \
     `module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)`";

/// Severity of a [`Diagnostic`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Remark,
    Note,
}

impl Display for Severity {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Remark => "remark",
            Severity::Note => "note",
        })
    }
}

impl From<DiagnosticSeverity> for Severity {
    fn from(severity: DiagnosticSeverity) -> Self {
        match severity {
            DiagnosticSeverity::Error => Severity::Error,
            DiagnosticSeverity::Warning => Severity::Warning,
            DiagnosticSeverity::Remark => Severity::Remark,
            DiagnosticSeverity::Note => Severity::Note,
        }
    }
}

/// One diagnostic, detached from MLIR: plain strings, so it outlives the
/// context. Displays like `mlir-opt`: `file:line:col: error: message`,
/// followed by its notes on their own lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// `file:line:col` (see [`format_location`]).
    pub location: String,
    pub message: String,
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    /// An error diagnostic at `location` without notes.
    pub fn error(location: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            location: location.into(),
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// An error diagnostic at the location of `operation`.
    pub fn error_at<'c, 'a>(
        operation: &impl OperationLike<'c, 'a>,
        message: impl Into<String>,
    ) -> Self
    where
        'c: 'a,
    {
        Self::error(format_location(operation.location()), message)
    }

    /// Adds a note (shown after the diagnostic) at the location of `operation`,
    /// e.g. pointing at the definition a use came from.
    pub fn with_note_at<'c, 'a>(
        mut self,
        operation: &impl OperationLike<'c, 'a>,
        message: impl Into<String>,
    ) -> Self
    where
        'c: 'a,
    {
        self.notes.push(Self {
            severity: Severity::Note,
            location: format_location(operation.location()),
            message: message.into(),
            notes: Vec::new(),
        });
        self
    }

    fn from_mlir(diagnostic: &melior::diagnostic::Diagnostic<'_>) -> Self {
        let notes = (0..diagnostic.note_count())
            .filter_map(|index| diagnostic.note(index).ok())
            .map(|note| Self::from_mlir(&note))
            .collect();
        Self {
            severity: diagnostic.severity().into(),
            location: format_location(diagnostic.location()),
            message: diagnostic.to_string(),
            notes,
        }
    }
}

impl Display for Diagnostic {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.location, self.severity, self.message)?;
        for note in &self.notes {
            write!(f, "\n{note}")?;
        }
        Ok(())
    }
}

/// A list of diagnostics displayed one per line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Display for Diagnostics {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (index, diagnostic) in self.0.iter().enumerate() {
            if index > 0 {
                writeln!(f)?;
            }
            write!(f, "{diagnostic}")?;
        }
        Ok(())
    }
}

/// Why [`IrContext::parse`] failed.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The text is not valid MLIR (or fails verification).
    #[error("{diagnostics}")]
    Invalid { diagnostics: Diagnostics },
    /// The text is StableHLO in pretty (custom assembly) form.
    #[error(
        "{location}: error: `{op}` is StableHLO in pretty form, which zkdv cannot parse \
         (the StableHLO dialect is not linked in); {hint}",
        hint = GENERIC_FORM_HINT
    )]
    PrettyForm {
        /// `file:line:col` of the first pretty-form op.
        location: String,
        /// The op name found there, e.g. `stablehlo.add`.
        op: String,
        /// What MLIR itself reported.
        diagnostics: Diagnostics,
    },
    /// The text contains a NUL byte, which MLIR's parser cannot take.
    #[error("{source_name}: error: input contains a NUL byte")]
    NulByte { source_name: String },
}

impl ParseError {
    /// The MLIR diagnostics behind this error (empty for [`ParseError::NulByte`]).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            ParseError::Invalid { diagnostics } | ParseError::PrettyForm { diagnostics, .. } => {
                &diagnostics.0
            }
            ParseError::NulByte { .. } => &[],
        }
    }
}

/// An MLIR context configured for ZKDV, with a diagnostic collector.
pub struct IrContext {
    context: Context,
    diagnostics: Rc<RefCell<Vec<Diagnostic>>>,
}

impl Default for IrContext {
    fn default() -> Self {
        Self::new()
    }
}

impl IrContext {
    /// A single-threaded context with unregistered dialects allowed, the
    /// `func` dialect loaded and all diagnostics captured.
    pub fn new() -> Self {
        let context = Context::new_with_threading(false);
        context.set_allow_unregistered_dialects(true);
        DialectHandle::func().load_dialect(&context);

        let diagnostics = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&diagnostics);
        // The handler runs inside an `extern "C"` callback: it must not panic.
        context.attach_diagnostic_handler(move |diagnostic| {
            if let Ok(mut sink) = sink.try_borrow_mut() {
                sink.push(Diagnostic::from_mlir(&diagnostic));
            }
            true
        });
        Self {
            context,
            diagnostics,
        }
    }

    /// The underlying MLIR context.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Removes and returns the diagnostics collected so far.
    pub fn take_diagnostics(&self) -> Vec<Diagnostic> {
        self.diagnostics
            .try_borrow_mut()
            .map(|mut diagnostics| std::mem::take(&mut *diagnostics))
            .unwrap_or_default()
    }

    /// Parses `source` (generic op form) into a module. `source_name` becomes
    /// the file name of every location, as in `source_name:line:col`.
    ///
    /// The text may hold one `builtin.module`, one other op (wrapped into a new
    /// module) or several top-level ops (wrapped as a whole, as `mlir-opt`
    /// does). The module is verified.
    pub fn parse<'c>(&'c self, source: &str, source_name: &str) -> Result<Module<'c>, ParseError> {
        self.take_diagnostics();
        let module = match self.parse_operation(source, source_name)? {
            Some(operation) => module_of(operation),
            None if self.lacks_single_top_level_op() => {
                // Zero or several top-level ops: wrap the whole text in a module.
                let wrapped = wrap_in_module(source);
                self.take_diagnostics();
                self.parse_operation(&wrapped, source_name)?
                    .and_then(Module::from_operation)
            }
            None => None,
        };
        match module {
            Some(module) => {
                self.take_diagnostics();
                Ok(module)
            }
            None => Err(self.parse_failure(source, source_name)),
        }
    }

    /// Verifies `module`; on failure returns what MLIR reported.
    pub fn verify(&self, module: &Module<'_>) -> Result<(), Diagnostics> {
        self.take_diagnostics();
        if module.as_operation().verify() {
            return Ok(());
        }
        let mut diagnostics = self.take_diagnostics();
        if diagnostics.is_empty() {
            diagnostics.push(Diagnostic::error(
                format_location(module.as_operation().location()),
                "the module failed verification",
            ));
        }
        Err(Diagnostics(diagnostics))
    }

    fn parse_operation<'c>(
        &'c self,
        source: &str,
        source_name: &str,
    ) -> Result<Option<Operation<'c>>, ParseError> {
        let nul = || ParseError::NulByte {
            source_name: source_name.to_owned(),
        };
        // MLIR's lexer expects a NUL right after the buffer, so pass a C string
        // but a length that excludes the NUL.
        let text = CString::new(source).map_err(|_| nul())?;
        let name = CString::new(source_name).map_err(|_| nul())?;
        let raw = unsafe {
            mlir_sys::mlirOperationCreateParse(
                self.context.to_raw(),
                mlir_sys::MlirStringRef {
                    data: text.as_ptr(),
                    length: source.len(),
                },
                mlir_sys::MlirStringRef {
                    data: name.as_ptr(),
                    length: source_name.len(),
                },
            )
        };
        // SAFETY: the operation was just created and is owned by nobody else.
        Ok(unsafe { Operation::from_option_raw(raw) })
    }

    fn lacks_single_top_level_op(&self) -> bool {
        self.diagnostics.try_borrow().is_ok_and(|diagnostics| {
            diagnostics.len() == 1
                && diagnostics[0]
                    .message
                    .starts_with("source must contain a single top-level operation")
        })
    }

    fn parse_failure(&self, source: &str, source_name: &str) -> ParseError {
        let mut diagnostics = self.take_diagnostics();
        if diagnostics.is_empty() {
            diagnostics.push(Diagnostic::error(
                format!("{source_name}:1:1"),
                "failed to parse the input as MLIR",
            ));
        }
        if source.contains("\"sdy.manual_computation\"")
            && diagnostics
                .iter()
                .any(|d| d.message.contains("does not reference a valid function"))
        {
            if let Some(first) = diagnostics.first_mut() {
                first.notes.push(Diagnostic {
                    severity: Severity::Note,
                    location: first.location.clone(),
                    message: MANUAL_CALL_HINT.to_owned(),
                    notes: Vec::new(),
                });
            }
        }
        let diagnostics = Diagnostics(diagnostics);
        match find_pretty_stablehlo(source) {
            Some(found) => ParseError::PrettyForm {
                location: format!("{source_name}:{}:{}", found.line, found.column),
                op: found.op,
                diagnostics,
            },
            None => ParseError::Invalid { diagnostics },
        }
    }
}

/// `operation` itself if it is a `builtin.module`, else a new module holding it.
fn module_of(operation: Operation<'_>) -> Option<Module<'_>> {
    if operation.name().as_string_ref().as_str() == Ok("builtin.module") {
        return Module::from_operation(operation);
    }
    let module = Module::new(operation.location());
    module.body().append_operation(operation);
    Some(module)
}

/// Wraps the text in a generic `builtin.module` without moving any line.
///
/// The opening goes in front of line 1, so only columns on line 1 shift; in
/// lit tests line 1 is the `// RUN:` comment, so no location changes at all.
/// Alias definitions (`#map = ...`) cannot be wrapped; such inputs must hold
/// a single `builtin.module` (as JAX prints them).
fn wrap_in_module(source: &str) -> String {
    // The explicit entry block keeps an input without ops a valid module.
    const OPEN: &str = "\"builtin.module\"() ({^bb0:";
    const CLOSE: &str = "\n}) : () -> ()\n";
    let mut wrapped = String::with_capacity(source.len() + OPEN.len() + CLOSE.len());
    wrapped.push_str(OPEN);
    wrapped.push_str(source);
    wrapped.push_str(CLOSE);
    wrapped
}

/// Why a `func.call` inside a `jax.shard_map` body fails to parse, and what to do.
const MANUAL_CALL_HINT: &str = "a `func.call` inside `sdy.manual_computation` (a `jax.shard_map` \
    body) cannot be resolved here: the op is unregistered, and MLIR takes an unregistered op \
    with one region for a possible symbol table; inline the calls inside the body first (as \
    `zkdv.jax` does in JAX's own context, where the Shardy dialect is registered)";

/// A StableHLO op written in pretty form, found by [`find_pretty_stablehlo`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrettyOp {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in bytes).
    pub column: usize,
    /// The op name, e.g. `stablehlo.add`.
    pub op: String,
}

/// Finds the first `stablehlo.<op>` written as a bare op name, i.e. not in a
/// string (`"stablehlo.add"` is generic form), not in a `//` comment and not
/// an attribute or type (`#stablehlo.`, `!stablehlo.`).
pub fn find_pretty_stablehlo(source: &str) -> Option<PrettyOp> {
    const PREFIX: &str = "stablehlo.";
    let is_ident = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'.';
    let mut in_string = false;
    for (line_index, line) in source.lines().enumerate() {
        let bytes = line.as_bytes();
        let mut index = 0;
        while index < bytes.len() {
            let byte = bytes[index];
            if in_string {
                match byte {
                    b'\\' => index += 1,
                    b'"' => in_string = false,
                    _ => {}
                }
            } else if byte == b'"' {
                in_string = true;
            } else if bytes[index..].starts_with(b"//") {
                break;
            } else if bytes[index..].starts_with(PREFIX.as_bytes())
                && (index == 0
                    || !(is_ident(bytes[index - 1]) || b"#!$@%^".contains(&bytes[index - 1])))
            {
                let end = index
                    + bytes[index..]
                        .iter()
                        .position(|&b| !is_ident(b))
                        .unwrap_or(bytes.len() - index);
                // `stablehlo.mesh = {...}` is an attribute name (as on
                // Shardy's `sdy.mesh`), not an op.
                let attribute_name = line[end..].trim_start().starts_with('=');
                if end > index + PREFIX.len() && !attribute_name {
                    return Some(PrettyOp {
                        line: line_index + 1,
                        column: index + 1,
                        op: line[index..end].to_owned(),
                    });
                }
            }
            index += 1;
        }
    }
    None
}

/// Prints `module` in generic op form without locations, ending in a newline.
pub fn print_generic(module: &Module<'_>) -> Result<String, melior::Error> {
    print_generic_with(module, false)
}

/// Prints `module` in generic op form, with `loc(...)` locations when
/// `debug_info` is set (what `mlir-opt --mlir-print-debuginfo` does).
pub fn print_generic_with(module: &Module<'_>, debug_info: bool) -> Result<String, melior::Error> {
    let mut flags = OperationPrintingFlags::new().print_generic_operation_form();
    if debug_info {
        flags = flags.enable_debug_info(true, false);
    }
    let mut text = module.as_operation().to_string_with_flags(flags)?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Formats a location the way `mlir-opt` prints it in diagnostics:
/// `file:line:col`. Name locations show their child, call sites their callee,
/// fused locations their first known part; `<unknown>` if there is none.
pub fn format_location(location: Location<'_>) -> String {
    known_location(location).unwrap_or_else(|| "<unknown>".to_owned())
}

fn known_location(location: Location<'_>) -> Option<String> {
    if location.is_file_line_col_range() {
        let file = location.file_line_col_range_filename();
        let file = file
            .as_string_ref()
            .as_str()
            .unwrap_or("<invalid utf-8>")
            .to_owned();
        Some(format!(
            "{file}:{}:{}",
            location.file_line_col_range_start_line(),
            location.file_line_col_range_start_column()
        ))
    } else if location.is_name() {
        known_location(location.name_child_location())
    } else if location.is_call_site() {
        known_location(location.call_site_callee())
    } else if location.is_fused() {
        (0..location.fused_num_locations())
            .find_map(|index| known_location(location.fused_location(index)))
    } else {
        None
    }
}

/// Every op nested in `root` (not `root` itself), in pre-order.
///
/// The references borrow the IR, so a pass can collect first and then
/// inspect or rewrite, instead of mutating the IR while walking it.
pub fn collect_nested_ops<'c, 'a>(root: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut found = Vec::new();
    collect_into(root, &mut found);
    found
}

fn collect_into<'c, 'a>(operation: OperationRef<'c, 'a>, found: &mut Vec<OperationRef<'c, 'a>>) {
    for region in operation.regions() {
        let mut block = region.first_block();
        while let Some(current) = block {
            let mut nested = current.first_operation();
            while let Some(op) = nested {
                found.push(op);
                collect_into(op, found);
                nested = op.next_in_block();
            }
            block = current.next_in_region();
        }
    }
}

/// The name of an op, e.g. `stablehlo.add`.
pub fn op_name<'c, 'a>(operation: &impl OperationLike<'c, 'a>) -> String
where
    'c: 'a,
{
    operation
        .name()
        .as_string_ref()
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

// ------------------------------------------------------------ functions

/// The `sym_name` of a `func.func`.
pub fn function_name<'c, 'a>(func: &impl OperationLike<'c, 'a>) -> Option<String>
where
    'c: 'a,
{
    func.attribute("sym_name").ok().and_then(string_value)
}

/// The top-level `func.func` of `module` named `name`.
pub fn find_function<'c, 'a>(module: &'a Module<'c>, name: &str) -> Option<OperationRef<'c, 'a>> {
    functions(module)
        .into_iter()
        .find(|func| function_name(func).as_deref() == Some(name))
}

/// Every top-level `func.func` of `module`, in order.
pub fn functions<'c, 'a>(module: &'a Module<'c>) -> Vec<OperationRef<'c, 'a>> {
    let mut found = Vec::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        if op_name(&op) == "func.func" {
            found.push(op);
        }
        next = op.next_in_block();
    }
    found
}

/// The `function_type` of a `func.func`.
pub fn function_type<'c, 'a>(
    func: &impl OperationLike<'c, 'a>,
) -> Result<FunctionType<'c>, Diagnostic>
where
    'c: 'a,
{
    func.attribute("function_type")
        .ok()
        .and_then(|attribute| TypeAttribute::try_from(attribute).ok())
        .and_then(|attribute| FunctionType::try_from(attribute.value()).ok())
        .ok_or_else(|| Diagnostic::error_at(func, "`func.func` has no function type"))
}

/// The value of a string attribute, `None` for other attributes.
///
/// Unlike `StringAttribute::value` (melior 0.27), this accepts the empty
/// string, whose data pointer MLIR may leave null.
pub fn string_value(attribute: Attribute<'_>) -> Option<String> {
    let attribute = StringAttribute::try_from(attribute).ok()?;
    // SAFETY: `attribute` is a live string attribute; MLIR returns a
    // reference to its storage, which lives as long as the context.
    let raw = unsafe { mlir_sys::mlirStringAttrGetValue(attribute.to_raw()) };
    if raw.length == 0 || raw.data.is_null() {
        return Some(String::new());
    }
    // SAFETY: `data` is non-null and points at `length` bytes owned by the
    // attribute's storage (see above).
    let bytes = unsafe { std::slice::from_raw_parts(raw.data.cast::<u8>(), raw.length) };
    Some(String::from_utf8_lossy(bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADD: &str = r#""builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"#;

    #[test]
    fn parses_and_prints_generic_form() {
        let context = IrContext::new();
        let module = context.parse(ADD, "add.mlir").expect("parses");
        let text = print_generic(&module).expect("prints");
        assert!(text.contains(r#""stablehlo.add"(%arg0, %arg0)"#), "{text}");
        assert!(text.starts_with(r#""builtin.module"() ({"#), "{text}");
        // Printing is stable: the output parses to the same text.
        let again = context.parse(&text, "again.mlir").expect("reparses");
        assert_eq!(print_generic(&again).unwrap(), text);
    }

    #[test]
    fn wraps_several_top_level_ops_into_a_module() {
        let source = "// comment\n\"func.func\"() <{function_type = () -> (), sym_name = \"a\"}> ({\n  \"func.return\"() : () -> ()\n}) : () -> ()\n\"func.func\"() <{function_type = () -> (), sym_name = \"b\"}> ({\n  \"func.return\"() : () -> ()\n}) : () -> ()\n";
        let context = IrContext::new();
        let module = context.parse(source, "two.mlir").expect("parses");
        let ops = collect_nested_ops(module.as_operation());
        let funcs: Vec<_> = ops
            .iter()
            .filter(|op| op_name(*op) == "func.func")
            .collect();
        assert_eq!(funcs.len(), 2);
        // Wrapping did not move lines: the second function is on line 5.
        assert_eq!(format_location(funcs[1].location()), "two.mlir:5:1");
    }

    #[test]
    fn syntax_error_is_a_typed_error_with_location() {
        let context = IrContext::new();
        let source = "\"builtin.module\"() ({\n  %0 = \"stablehlo.add\"(%x) : (tensor<f32>) -> tensor<f32>\n}) : () -> ()\n";
        let error = context.parse(source, "bad.mlir").unwrap_err();
        let ParseError::Invalid { diagnostics } = &error else {
            panic!("expected ParseError::Invalid, got {error:?}");
        };
        let first = &diagnostics.0[0];
        assert_eq!(first.severity, Severity::Error);
        assert!(first.location.starts_with("bad.mlir:2:"), "{first}");
        assert!(error.to_string().contains("bad.mlir:2:"), "{error}");
        // The context is usable again afterwards.
        assert!(context.parse(ADD, "add.mlir").is_ok());
    }

    #[test]
    fn detects_pretty_stablehlo() {
        let source = "module {\n  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n    %0 = stablehlo.add %a, %a : tensor<f32>\n    return %0 : tensor<f32>\n  }\n}\n";
        let context = IrContext::new();
        let error = context.parse(source, "pretty.mlir").unwrap_err();
        match &error {
            ParseError::PrettyForm { location, op, .. } => {
                assert_eq!(location, "pretty.mlir:3:10");
                assert_eq!(op, "stablehlo.add");
            }
            other => panic!("expected ParseError::PrettyForm, got {other:?}"),
        }
        assert!(error.to_string().contains("print_generic_op_form=True"));
    }

    #[test]
    fn pretty_scan_ignores_generic_names_attributes_and_comments() {
        let generic = "%0 = \"stablehlo.add\"(%a) {x = #stablehlo<foo>, y = #stablehlo.bar<1>} : (!stablehlo.token) -> ()\n// stablehlo.add in a comment\n";
        assert_eq!(find_pretty_stablehlo(generic), None);
        // Shardy's mesh carries a `stablehlo.mesh` attribute: a name, not an op.
        let mesh =
            "\"sdy.mesh\"() <{sym_name = \"mesh\"}> {stablehlo.mesh = {axes = []}} : () -> ()";
        assert_eq!(find_pretty_stablehlo(mesh), None);
        let pretty = "  %1 = \"a\"() : () -> ()\n  %2 = stablehlo.dot_general %1";
        assert_eq!(
            find_pretty_stablehlo(pretty),
            Some(PrettyOp {
                line: 2,
                column: 8,
                op: "stablehlo.dot_general".to_owned()
            })
        );
    }

    #[test]
    fn a_call_inside_a_manual_computation_explains_itself() {
        let source = r#""builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=2]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<2xf32>):
    %0 = "sdy.manual_computation"(%x) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}]>]>, manual_axes = #sdy<manual_axes{"d"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}]>]>}> ({
    ^bb0(%y: tensor<1xf32>):
      %1 = "func.call"(%y) <{callee = @g}> : (tensor<1xf32>) -> tensor<1xf32>
      "sdy.return"(%1) : (tensor<1xf32>) -> ()
    }) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<1xf32>) -> tensor<1xf32>, sym_name = "g", sym_visibility = "private"}> ({
  ^bb0(%z: tensor<1xf32>):
    "func.return"(%z) : (tensor<1xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"#;
        let context = IrContext::new();
        let error = context.parse(source, "manual.mlir").unwrap_err();
        assert!(matches!(error, ParseError::Invalid { .. }), "{error:?}");
        let text = error.to_string();
        assert!(
            text.contains("inline the calls inside the body first"),
            "{text}"
        );
        assert!(!text.contains("pretty form"), "{text}");
    }

    #[test]
    fn nul_byte_is_an_error() {
        let context = IrContext::new();
        assert!(matches!(
            context.parse("\0", "nul.mlir"),
            Err(ParseError::NulByte { .. })
        ));
    }
}

//! `--zkdv-inline`: inline every `func.call` to a private function, then
//! erase the private functions nothing refers to any more.
//!
//! JAX exports a training step as a public `@main` calling private helpers
//! (`@relu`, `@_where`, `@shmap_body`, ...). Later passes want one flat
//! function, so each call to a private `func.func` defined in the module is
//! replaced by a copy of the callee's body, transitively (calls inside an
//! inlined body are inlined too), wherever the call is (inside `while`
//! bodies and other regions too).
//!
//! Algorithm: build the call graph of the module's functions restricted to
//! inlinable calls, reject cycles, and visit the functions callees-first
//! (post-order). Each inlinable call in the visited function is replaced by
//! a clone of its callee, which is already flat: the clone's block arguments
//! are replaced by the call's operands, the call's results by the operands of
//! the clone's `func.return`, the clone's ops move before the call, and the
//! call and the emptied clone are erased. Inlined ops keep the callee's
//! locations. Finally private functions that no op outside them refers to
//! (by `@name`, through `func.call` or any other symbol reference, e.g. a
//! `custom_call`'s `called_computations`) are erased, even ones that were
//! never called.
//!
//! Kept as they are, without a diagnostic: calls to public functions (their
//! symbol is an entry point) and calls to function declarations (no body to
//! inline; whether such a call is allowed is a hermeticity question, not an
//! inlining one). Public functions and declarations still referenced are
//! never erased.
//!
//! Scope: the functions directly in the top-level module and the calls in
//! their bodies; symbols of nested modules are not resolved.
//!
//! Preconditions: the module verified (so every `func.call` names an existing
//! function with matching types). Errors, reported before anything changes:
//! a call cycle through private functions (recursion cannot be inlined),
//! and a callee whose body is not a single block ending in `func.return`.
//!
//! Invariants: the pass collects every function and call first, then
//! rewrites; no reference to an erased op is used afterwards. Results are
//! the same values as before (the callee's computation, on the call's
//! operands), so the module still verifies.

use std::collections::{HashMap, HashSet};

use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationPrintingFlags},
    Module, OperationRef, RegionLike,
};

use crate::{
    ir::{collect_nested_ops, op_name, Diagnostic, Diagnostics},
    rewrite::{clone_op, erase, move_before, replace_all_uses},
    PassError, PassOptions,
};

/// Runs the pass.
pub fn run(module: &Module<'_>, _options: &mut PassOptions) -> Result<(), PassError> {
    inline_private_calls(module)
        .map(|_| ())
        .map_err(|diagnostics| PassError::Failed(Diagnostics(diagnostics)))
}

/// What the pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InlineSummary {
    /// Calls replaced by a callee body (calls inside bodies that were
    /// themselves inlined count once, where they were inlined first).
    pub inlined_calls: usize,
    /// Private functions erased, by name.
    pub erased_functions: Vec<String>,
}

/// A `func.func` directly in the module body.
struct Function<'c, 'a> {
    op: OperationRef<'c, 'a>,
    name: String,
    private: bool,
    /// Calls in this function's body to private functions with a body.
    calls: Vec<Call<'c, 'a>>,
}

struct Call<'c, 'a> {
    op: OperationRef<'c, 'a>,
    /// Index of the callee in the function list.
    callee: usize,
}

/// Inlines calls to private functions and erases unreferenced private
/// functions; on error, returns the diagnostics and leaves the module
/// unchanged.
pub fn inline_private_calls(module: &Module<'_>) -> Result<InlineSummary, Vec<Diagnostic>> {
    let functions = collect_functions(module);
    let order = callees_first(&functions)?;
    check_callees(&functions)?;

    let mut summary = InlineSummary::default();
    for index in order {
        for call in &functions[index].calls {
            inline_call(call.op, functions[call.callee].op);
            summary.inlined_calls += 1;
        }
    }
    summary.erased_functions = erase_unreferenced_private_functions(module);
    Ok(summary)
}

fn collect_functions<'c, 'a>(module: &'a Module<'c>) -> Vec<Function<'c, 'a>> {
    let mut functions = Vec::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op_name(&op) != "func.func" {
            continue;
        }
        functions.push(Function {
            op,
            name: string_attribute(&op, "sym_name").unwrap_or_default(),
            private: is_private(&op),
            calls: Vec::new(),
        });
    }
    let index_of: HashMap<String, usize> = functions
        .iter()
        .enumerate()
        .map(|(index, function)| (function.name.clone(), index))
        .collect();
    for function in &mut functions {
        function.calls = collect_nested_ops(function.op)
            .into_iter()
            .filter(|op| op_name(op) == "func.call")
            .filter_map(|op| {
                let callee = op
                    .attribute("callee")
                    .ok()
                    .and_then(crate::roles::symbol_value)?;
                let callee = *index_of.get(callee.as_str())?;
                Some(Call { op, callee })
            })
            .collect();
    }
    // Only calls to private functions with a body are inlined.
    let inlinable: Vec<bool> = functions
        .iter()
        .map(|function| function.private && has_body(&function.op))
        .collect();
    for function in &mut functions {
        function.calls.retain(|call| inlinable[call.callee]);
    }
    functions
}

/// The functions in post-order of the inlinable call graph (every callee
/// before its callers), or a diagnostic per call that closes a cycle.
fn callees_first(functions: &[Function<'_, '_>]) -> Result<Vec<usize>, Vec<Diagnostic>> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnPath,
        Done,
    }
    let mut state = vec![State::New; functions.len()];
    let mut order = Vec::with_capacity(functions.len());
    let mut errors = Vec::new();
    for root in 0..functions.len() {
        if state[root] != State::New {
            continue;
        }
        // Iterative DFS: (function, index of its next call to visit).
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = State::OnPath;
        while let Some(&mut (function, ref mut next_call)) = path.last_mut() {
            let Some(call) = functions[function].calls.get(*next_call) else {
                state[function] = State::Done;
                order.push(function);
                path.pop();
                continue;
            };
            *next_call += 1;
            match state[call.callee] {
                State::New => {
                    state[call.callee] = State::OnPath;
                    path.push((call.callee, 0));
                }
                State::OnPath => {
                    let start = path
                        .iter()
                        .position(|&(on_path, _)| on_path == call.callee)
                        .unwrap_or(0);
                    let cycle: Vec<String> = path[start..]
                        .iter()
                        .map(|&(on_path, _)| format!("@{}", functions[on_path].name))
                        .chain(std::iter::once(format!("@{}", functions[call.callee].name)))
                        .collect();
                    let callee = &functions[call.callee];
                    errors.push(
                        Diagnostic::error_at(
                            &call.op,
                            format!(
                                "cannot inline the recursive call to private function @{} \
                                 (call cycle {}); rewrite the recursion as a loop \
                                 (`stablehlo.while`, e.g. `jax.lax.fori_loop`)",
                                callee.name,
                                cycle.join(" -> ")
                            ),
                        )
                        .with_note_at(&callee.op, format!("@{} is defined here", callee.name)),
                    );
                }
                State::Done => {}
            }
        }
    }
    if errors.is_empty() {
        Ok(order)
    } else {
        Err(errors)
    }
}

/// Checks that every callee to inline is one block ending in `func.return`
/// whose argument and result counts match the call (the verifier guarantees
/// this for well-formed input; checked so no rewrite can go wrong).
fn check_callees(functions: &[Function<'_, '_>]) -> Result<(), Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut checked = HashSet::new();
    for call in functions.iter().flat_map(|function| &function.calls) {
        let callee = &functions[call.callee];
        let problem = callee_problem(&callee.op, &call.op);
        if let Some(problem) = problem {
            if checked.insert((call.callee, problem.clone())) {
                errors.push(
                    Diagnostic::error_at(
                        &call.op,
                        format!("cannot inline @{}: {problem}", callee.name),
                    )
                    .with_note_at(&callee.op, format!("@{} is defined here", callee.name)),
                );
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Why `callee`'s body cannot replace `call`, if it cannot.
fn callee_problem(callee: &OperationRef<'_, '_>, call: &OperationRef<'_, '_>) -> Option<String> {
    let entry = callee.region(0).ok().and_then(|body| body.first_block())?;
    if entry.next_in_region().is_some() {
        return Some(
            "its body has more than one block (only single-block functions are inlined)".to_owned(),
        );
    }
    let Some(last) = last_op(&entry) else {
        return Some("its body is empty".to_owned());
    };
    if op_name(&last) != "func.return" {
        return Some(format!(
            "its body ends in `{}`, not `func.return`",
            op_name(&last)
        ));
    }
    if entry.argument_count() != call.operand_count() || last.operand_count() != call.result_count()
    {
        return Some("its signature does not match the call's operands and results".to_owned());
    }
    None
}

/// The last op of `block`.
fn last_op<'c, 'a>(block: &impl BlockLike<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut last = block.first_operation()?;
    while let Some(next) = last.next_in_block() {
        last = next;
    }
    Some(last)
}

/// Replaces `call` by a copy of `callee`'s body (checked by
/// [`check_callees`]).
fn inline_call(call: OperationRef<'_, '_>, callee: OperationRef<'_, '_>) {
    let clone = clone_op(&callee);
    let Some(entry) = clone.region(0).ok().and_then(|body| body.first_block()) else {
        return;
    };
    let Some(terminator) = last_op(&entry) else {
        return;
    };
    for (index, operand) in call.operands().enumerate() {
        if let Ok(argument) = entry.argument(index) {
            replace_all_uses(argument, operand);
        }
    }
    for (result, returned) in call.results().zip(terminator.operands()) {
        replace_all_uses(result, returned);
    }
    let mut next = entry.first_operation();
    while let Some(op) = next {
        if op == terminator {
            break;
        }
        // Read the successor before moving `op` out of the clone.
        next = op.next_in_block();
        move_before(&op, &call);
    }
    // SAFETY: the call's results have no uses left (replaced above) and the
    // call is not referenced again (each call is inlined once).
    unsafe { erase(call) };
    // Dropping the clone frees it with the `func.return` left in it; that
    // return's operands are values now before the call, whose use lists it
    // leaves.
    drop(clone);
}

/// Erases the private functions that no op outside a private function, nor
/// any function so referenced, refers to; returns their names.
fn erase_unreferenced_private_functions(module: &Module<'_>) -> Vec<String> {
    let mut top_level = Vec::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        top_level.push(op);
    }
    let private: HashMap<String, OperationRef<'_, '_>> = top_level
        .iter()
        .filter(|op| op_name(*op) == "func.func" && is_private(op))
        .filter_map(|op| Some((string_attribute(op, "sym_name")?, *op)))
        .collect();
    // Mark: roots are all top-level ops except private functions.
    let mut reached: HashSet<String> = HashSet::new();
    let mut pending: Vec<OperationRef<'_, '_>> = top_level
        .iter()
        .filter(|op| !(op_name(*op) == "func.func" && is_private(op)))
        .copied()
        .collect();
    while let Some(op) = pending.pop() {
        let Some(names) = symbol_references(&op) else {
            // Unprintable: no function can be proven unreferenced.
            return Vec::new();
        };
        for name in names {
            if let Some(function) = private.get(&name) {
                if reached.insert(name) {
                    pending.push(*function);
                }
            }
        }
    }
    // Sweep, in source order.
    let mut erased = Vec::new();
    for op in top_level {
        if op_name(&op) != "func.func" || !is_private(&op) {
            continue;
        }
        let name = string_attribute(&op, "sym_name").unwrap_or_default();
        if !reached.contains(&name) {
            // SAFETY: nothing refers to the function (no symbol use, so no
            // value of it is used outside it either) and `top_level` is not
            // read at it again.
            unsafe { erase(op) };
            erased.push(name);
        }
    }
    erased
}

/// The root names of the symbol references (`@name`, `@"name"`, the `a` of
/// `@a::@b`) in `op`'s generic text. A string mentioning `@f` counts too,
/// which can only keep a function alive, never erase a used one.
fn symbol_references(op: &OperationRef<'_, '_>) -> Option<Vec<String>> {
    // Large elements attributes cannot hold symbol references: elide them.
    let flags = OperationPrintingFlags::new()
        .print_generic_operation_form()
        .elide_large_elements_attributes(16);
    let text = op.to_string_with_flags(flags).ok()?;
    Some(parse_symbol_references(&text))
}

fn parse_symbol_references(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        rest = &rest[at + 1..];
        if let Some(quoted) = rest.strip_prefix('"') {
            // A quoted name ends at the first unescaped quote.
            let mut name = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((index, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            name.push(escaped);
                        }
                    }
                    '"' => {
                        end = index + 1;
                        break;
                    }
                    _ => name.push(c),
                }
            }
            names.push(name);
            rest = &quoted[end..];
        } else {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || "_$.-".contains(c)))
                .unwrap_or(rest.len());
            names.push(rest[..end].to_owned());
            rest = &rest[end..];
        }
    }
    names
}

fn has_body(function: &OperationRef<'_, '_>) -> bool {
    function
        .region(0)
        .ok()
        .is_some_and(|body| body.first_block().is_some())
}

fn is_private(function: &OperationRef<'_, '_>) -> bool {
    string_attribute(function, "sym_visibility").as_deref() == Some("private")
}

fn string_attribute(op: &OperationRef<'_, '_>, name: &str) -> Option<String> {
    op.attribute(name).ok().and_then(crate::roles::string_value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ir::print_generic, IrContext};

    const HELPERS: &str = r#"
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "main"}> ({
^bb0(%x: tensor<f32>):
  %0 = "func.call"(%x) <{callee = @twice}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "twice", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  %0 = "func.call"(%a) <{callee = @neg}> : (tensor<f32>) -> tensor<f32>
  %1 = "func.call"(%0) <{callee = @neg}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%1) : (tensor<f32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "neg", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  %0 = "stablehlo.negate"(%a) : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "orphan", sym_visibility = "private"}> ({
  "func.return"() : () -> ()
}) : () -> ()
"#;

    #[test]
    fn inlines_transitively_and_erases_unreferenced_helpers() {
        let context = IrContext::new();
        let module = context.parse(HELPERS, "h.mlir").expect("parses");
        let summary = inline_private_calls(&module).expect("inlines");
        // Two calls to @neg inside @twice, then one call to @twice in @main.
        assert_eq!(summary.inlined_calls, 3);
        assert_eq!(summary.erased_functions, ["twice", "neg", "orphan"]);
        context.verify(&module).expect("verifies");
        let text = print_generic(&module).unwrap();
        assert_eq!(text.matches("stablehlo.negate").count(), 2, "{text}");
        assert!(!text.contains("func.call"), "{text}");
    }

    #[test]
    fn recursion_is_reported_and_the_module_left_unchanged() {
        let source = HELPERS.replace(
            r#"%0 = "stablehlo.negate"(%a) : (tensor<f32>) -> tensor<f32>"#,
            r#"%0 = "func.call"(%a) <{callee = @twice}> : (tensor<f32>) -> tensor<f32>"#,
        );
        let context = IrContext::new();
        let module = context.parse(&source, "r.mlir").expect("parses");
        let before = print_generic(&module).unwrap();
        let errors = inline_private_calls(&module).unwrap_err();
        // Both calls from @twice to @neg close the cycle @twice -> @neg -> @twice
        // (the first is found while @neg is on the path; the DFS reports each
        // back edge once).
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0]
                .message
                .contains("(call cycle @twice -> @neg -> @twice)"),
            "{}",
            errors[0].message
        );
        assert_eq!(errors[0].location, "r.mlir:15:8");
        assert_eq!(print_generic(&module).unwrap(), before);
    }

    #[test]
    fn parses_symbol_references() {
        let text =
            r#"%0 = "func.call"(%a) <{callee = @relu}> {x = [@"we\"ird", @a::@b], s = "a@b"}"#;
        assert_eq!(
            parse_symbol_references(text),
            ["relu", "we\"ird", "a", "b", "b"]
        );
    }
}

//! The op table: the one place that says which function evaluates an op.
//!
//! Each family file (`core.rs`, `linalg/mod.rs`, ...) declares the ops it
//! evaluates (`OPS`) next to its entry point (`family`); this table joins
//! them. The interpreter resolves an op's family once, when a block's plan is
//! built, and calls it directly from then on: no op is offered to families in
//! turn. Ops with regions or callees that the interpreter runs itself
//! (calls, control flow, annotations) are [`STRUCTURAL`].
//!
//! To add an op: implement it in the family file whose kind it is, add its
//! arm to that family's `match` and its name to that file's `OPS`. The unit
//! tests check that every family claims exactly the names it lists, that no
//! name is listed twice, and that the supported-op list in `docs/runtime.md`
//! is this table's (`ZKDV_BLESS=1 cargo test -p zkdv-runtime op_table`
//! rewrites it).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{collective, complex, core, linalg, linalg_solve, math, movement, per_element};
use super::{reduction, selection, Family};

/// Every family: its name (its file), the ops it lists, its entry point.
pub static FAMILIES: &[(&str, &[&str], Family)] = &[
    ("core", core::OPS, core::family),
    ("complex", complex::OPS, complex::family),
    ("linalg", linalg::OPS, linalg::family),
    ("linalg_solve", linalg_solve::OPS, linalg_solve::family),
    ("collective", collective::OPS, collective::family),
    ("per_element", per_element::OPS, per_element::family),
    ("math", math::OPS, math::family),
    ("movement", movement::OPS, movement::family),
    ("reduction", reduction::OPS, reduction::family),
    ("selection", selection::OPS, selection::family),
];

/// The ops the interpreter runs itself (`Exec::structural`), with regions
/// or callees.
pub const STRUCTURAL: &[&str] = &[
    "func.call",
    "interpreter.run_parallel",
    "sdy.manual_computation",
    "sdy.reshard",
    "sdy.sharding_constraint",
    "stablehlo.case",
    "stablehlo.composite",
    "stablehlo.if",
    "stablehlo.optimization_barrier",
    "stablehlo.while",
];

fn index() -> &'static HashMap<&'static str, Family> {
    static INDEX: OnceLock<HashMap<&'static str, Family>> = OnceLock::new();
    INDEX.get_or_init(|| {
        FAMILIES
            .iter()
            .flat_map(|&(_, names, family)| names.iter().map(move |&name| (name, family)))
            .collect()
    })
}

/// The family that evaluates `name`, or `None` when no family does (the op
/// may still be [`STRUCTURAL`], or unsupported).
pub fn lookup(name: &str) -> Option<Family> {
    index().get(name).copied()
}

/// Whether the runtime runs `name` (through a family or itself).
pub fn is_supported(name: &str) -> bool {
    lookup(name).is_some() || STRUCTURAL.contains(&name)
}

/// Every supported op with the family (or `structural`) that runs it,
/// sorted by op name.
pub fn supported() -> Vec<(&'static str, &'static str)> {
    let mut all: Vec<_> = FAMILIES
        .iter()
        .flat_map(|&(family, names, _)| names.iter().map(move |&name| (name, family)))
        .chain(STRUCTURAL.iter().map(|&name| (name, "structural")))
        .collect();
    all.sort_unstable();
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{Body, OpError, Regions};
    use std::collections::HashSet;
    use zkdv_ir::IrContext;

    struct NoRegions;

    impl Regions for NoRegions {
        fn body(&self, _index: usize) -> Result<Box<dyn Body + '_>, OpError> {
            Err(crate::value::ValueError::Mismatch("no regions".into()).into())
        }
    }

    #[test]
    fn op_table_families_claim_exactly_what_they_list() {
        let mut seen = HashSet::new();
        for &(family, names, _) in FAMILIES {
            for name in names {
                assert!(seen.insert(*name), "{name} is listed twice ({family})");
                assert!(!STRUCTURAL.contains(name), "{name} is structural");
            }
        }
        // An op without operands or attributes: a family that does not know
        // the name answers `Ok(None)`; one that does fails on the operands or
        // attributes (or evaluates), but always answers something else.
        let context = IrContext::new();
        let module = context
            .parse(
                r#""func.func"() <{function_type = () -> (), sym_name = "main"}> ({
  "test.op"() : () -> ()
  "func.return"() : () -> ()
}) : () -> ()"#,
                "t.mlir",
            )
            .expect("parses");
        let func = zkdv_ir::find_function(&module, "main").expect("main");
        let op = zkdv_ir::collect_nested_ops(func)
            .into_iter()
            .next()
            .expect("an op");
        let names: Vec<&str> = supported().iter().map(|&(name, _)| name).collect();
        for &(family, listed, evaluate) in FAMILIES {
            for name in &names {
                let claimed = !matches!(evaluate(&op, name, &[], &NoRegions), Ok(None));
                assert_eq!(
                    claimed,
                    listed.contains(name),
                    "family {family} and op {name}: its OPS and its match disagree"
                );
            }
        }
    }

    #[test]
    fn op_table_is_the_documented_list() {
        const BEGIN: &str = "<!-- op-table: begin (generated by `ZKDV_BLESS=1 cargo test -p zkdv-runtime op_table`) -->";
        const END: &str = "<!-- op-table: end -->";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/runtime.md");
        let doc = std::fs::read_to_string(&path).expect("docs/runtime.md");
        let mut by_family: Vec<(&str, Vec<&str>)> = Vec::new();
        for (name, family) in supported() {
            match by_family.iter_mut().find(|(f, _)| *f == family) {
                Some((_, names)) => names.push(name),
                None => by_family.push((family, vec![name])),
            }
        }
        by_family.sort_by_key(|(family, _)| *family);
        let mut table = format!("{BEGIN}\n\n| family | ops |\n| --- | --- |\n");
        for (family, names) in by_family {
            let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            table.push_str(&format!("| {family} | {} |\n", names.join(", ")));
        }
        table.push_str(&format!("\n{END}"));
        let (Some(start), Some(end)) = (doc.find(BEGIN), doc.find(END)) else {
            panic!("docs/runtime.md has no op-table markers");
        };
        let current = &doc[start..end + END.len()];
        if std::env::var_os("ZKDV_BLESS").is_some() {
            let updated = doc.replacen(current, &table, 1);
            std::fs::write(&path, updated).expect("writes docs/runtime.md");
        } else {
            assert_eq!(
                current, table,
                "docs/runtime.md's op list is stale: rerun with ZKDV_BLESS=1"
            );
        }
    }
}

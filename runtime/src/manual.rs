//! Shardy's `sdy.manual_computation`, the body of a `jax.shard_map`, run once
//! per device of its manual axes.
//!
//! ```text
//! %r = "sdy.manual_computation"(%x, %w) <{
//!        in_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}, {}]>, <@mesh, [{}, {}]>]>,
//!        manual_axes = #sdy<manual_axes{"d"}>,
//!        out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>}> ({
//!   ^bb0(%xs: tensor<4x8xf32>, %ws: tensor<8x2xf32>): ... "sdy.return"(%g) ...
//! })
//! ```
//!
//! The devices of the manual axes (their sizes from the `sdy.mesh` the
//! shardings name, in mesh order) form a grid of one replica and one
//! partition per device, numbered row-major over those axes
//! ([`crate::parallel::Grid`]). Each operand is cut into the device's
//! block: a dimension sharded over axes `a, b` (major first) is split into
//! `|a| * |b|` equal parts, and the device takes part `coord(a) * |b| +
//! coord(b)`; a dimension without manual axes stays whole. Every device runs
//! the body on its blocks (collectives rendezvous on the grid, see
//! [`crate::ops::collective`], where `replica_group_mesh_axes` names groups
//! by mesh axes), and each result is assembled from the devices' blocks by
//! the same rule from `out_shardings`; over a manual axis that a result is
//! not sharded by, the result is replicated, and the device at coordinate 0
//! of that axis provides it (JAX's `shard_map` checks such results are
//! device-invariant; the replay's collectives give every member the same
//! bits, so the members agree).
//!
//! The devices share the calling run's plan cache (they never evaluate ops
//! at the same time), so a program run again does not plan the body again;
//! each device runs within the calling run's [`crate::Limits`] on its own
//! (a bound of at most [`MAX_DEVICES`] times the run's).
//!
//! Refused with a clear error: sub-axes (`"d":(1)2`), `unreduced` axes,
//! meshes with explicit `device_ids`, shardings over another mesh than the
//! manual axes' own, and a manual computation inside another process grid.
//! Axes that are not manual are free axes: the replay sees whole values along
//! them, so they are ignored.

use std::collections::BTreeMap;
use std::sync::Arc;

use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, RegionLike, ValueLike};
use zkdv_ir::{format_location, op_name};

use crate::attrs;
use crate::interpreter::PlanCache;
use crate::ops::movement::{concatenate, slice};
use crate::parallel::{self, Grid, Work};
use crate::value::{Tensor, TensorType};
use crate::{Limits, RuntimeError};

/// The most devices one manual computation may run.
pub const MAX_DEVICES: usize = crate::parallel::MAX_PROCESSES;

/// The sharding of one value: the mesh it names and, per dimension, the
/// axes it is split over (major first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueSharding {
    /// The mesh symbol, without `@`.
    pub mesh: String,
    /// Per dimension, the axes.
    pub dims: Vec<Vec<String>>,
}

/// Reads `#sdy.mesh<["a"=2, "b"=4]>` (or `<["a"=2]>`, `<[]>`): the axes with
/// their sizes, in order.
pub fn parse_mesh(text: &str) -> Result<Vec<(String, usize)>, String> {
    let text = text.trim();
    let inner = text
        .strip_prefix("#sdy.mesh<")
        .unwrap_or(text)
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim();
    if inner.contains("device_ids") {
        return Err(format!(
            "mesh `{text}` orders its devices explicitly (device_ids), which the replay does not model"
        ));
    }
    let list = inner
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .ok_or_else(|| format!("malformed mesh `{text}`"))?;
    let mut axes = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, size) = item
            .split_once('=')
            .ok_or_else(|| format!("malformed mesh axis `{item}` in `{text}`"))?;
        let name = name.trim().trim_matches('"').to_owned();
        let size = size
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("malformed mesh axis size `{item}` in `{text}`"))?;
        axes.push((name, size));
    }
    Ok(axes)
}

/// Reads `#sdy<manual_axes{"a", "b"}>`: the axis names.
pub fn parse_manual_axes(text: &str) -> Result<Vec<String>, String> {
    let open = text
        .find('{')
        .ok_or_else(|| format!("malformed manual_axes `{text}`"))?;
    let close = text
        .rfind('}')
        .filter(|&close| close > open)
        .ok_or_else(|| format!("malformed manual_axes `{text}`"))?;
    Ok(quoted(&text[open + 1..close]))
}

/// The quoted strings of `text`, in order.
fn quoted(text: &str) -> Vec<String> {
    text.split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_owned())
        .collect()
}

/// Reads `#sdy.sharding_per_value<[<@mesh, [{"d"}, {}]>, <@mesh, []>]>`.
pub fn parse_shardings(text: &str) -> Result<Vec<ValueSharding>, String> {
    let malformed = || format!("malformed sharding list `{text}`");
    let inner = text
        .trim()
        .strip_prefix("#sdy.sharding_per_value<[")
        .and_then(|rest| rest.strip_suffix("]>"))
        .ok_or_else(malformed)?;
    // Split the entries `<...>` at depth 0.
    let mut entries = Vec::new();
    let (mut depth, mut start) = (0i32, None);
    for (i, c) in inner.char_indices() {
        match c {
            '<' => {
                if depth == 0 {
                    start = Some(i);
                }
                depth += 1;
            }
            '>' => {
                depth -= 1;
                if depth == 0 {
                    let from = start.take().ok_or_else(malformed)?;
                    entries.push(&inner[from + 1..i]);
                }
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(malformed());
    }
    entries.into_iter().map(parse_value_sharding).collect()
}

/// Reads one `@mesh, [{"a", "b"}, {}], replicated={"c"}`.
fn parse_value_sharding(entry: &str) -> Result<ValueSharding, String> {
    let malformed = || format!("malformed sharding `<{entry}>`");
    let rest = entry.trim().strip_prefix('@').ok_or_else(|| {
        format!("sharding `<{entry}>` does not name its mesh by symbol, which the replay needs")
    })?;
    let (mesh, rest) = rest.split_once(',').ok_or_else(malformed)?;
    let rest = rest.trim();
    let close = rest.find(']').ok_or_else(malformed)?;
    let list = rest.strip_prefix('[').ok_or_else(malformed)?;
    let list = &list[..close - 1];
    let tail = &rest[close + 1..];
    if tail.contains("unreduced") {
        return Err(format!(
            "sharding `<{entry}>` has unreduced axes, which the replay does not model"
        ));
    }
    let mut dims = Vec::new();
    let mut cursor = list;
    while let Some(open) = cursor.find('{') {
        let end = cursor[open..].find('}').ok_or_else(malformed)? + open;
        let group = &cursor[open + 1..end];
        if group.contains(':') {
            return Err(format!(
                "sharding `<{entry}>` splits a mesh axis into sub-axes, which the replay does not model"
            ));
        }
        dims.push(quoted(group));
        cursor = &cursor[end + 1..];
    }
    Ok(ValueSharding {
        mesh: mesh.trim().trim_matches('"').to_owned(),
        dims,
    })
}

/// The manual axes of a computation: names and sizes in mesh order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManualAxes(pub Vec<(String, usize)>);

impl ManualAxes {
    /// The number of devices (product of the sizes).
    pub fn devices(&self) -> usize {
        self.0.iter().map(|(_, size)| size).product()
    }

    /// The coordinates of `device` (row-major over the axes).
    pub fn coordinates(&self, device: usize) -> Vec<usize> {
        let mut rest = device;
        let mut coords = vec![0; self.0.len()];
        for (k, (_, size)) in self.0.iter().enumerate().rev() {
            coords[k] = rest % size;
            rest /= size;
        }
        coords
    }

    fn position(&self, axis: &str) -> Option<usize> {
        self.0.iter().position(|(name, _)| name == axis)
    }

    /// For one dimension sharded over `axes`: the number of parts and the
    /// part of the device at `coords`. Axes that are not manual are skipped.
    fn part(&self, axes: &[String], coords: &[usize]) -> (usize, usize) {
        let (mut parts, mut index) = (1, 0);
        for axis in axes {
            if let Some(k) = self.position(axis) {
                let size = self.0[k].1;
                parts *= size;
                index = index * size + coords[k];
            }
        }
        (parts, index)
    }

    /// Whether the device at `coords` provides a value sharded as `sharding`:
    /// it sits at coordinate 0 of every manual axis the value is not sharded
    /// over.
    fn provides(&self, sharding: &ValueSharding, coords: &[usize]) -> bool {
        self.0.iter().enumerate().all(|(k, (name, _))| {
            coords[k] == 0 || sharding.dims.iter().any(|axes| axes.contains(name))
        })
    }

    /// The block of `value` that the device at `coords` holds.
    pub fn block(
        &self,
        value: &Tensor,
        sharding: &ValueSharding,
        coords: &[usize],
    ) -> Result<Tensor, String> {
        if sharding.dims.len() != value.shape.len() {
            return Err(format!(
                "a sharding of rank {} for a value of shape {:?}",
                sharding.dims.len(),
                value.shape
            ));
        }
        let (mut start, mut limit) = (Vec::new(), Vec::new());
        for (d, axes) in sharding.dims.iter().enumerate() {
            let (parts, index) = self.part(axes, coords);
            let size = value.shape[d];
            if size % parts != 0 {
                return Err(format!(
                    "dimension {d} of {:?} does not split into {parts} equal parts",
                    value.shape
                ));
            }
            let part = size / parts;
            start.push((index * part) as i64);
            limit.push(((index + 1) * part) as i64);
        }
        slice(value, &start, &limit, &vec![1; value.shape.len()]).map_err(|e| e.to_string())
    }

    /// The value sharded as `sharding` assembled from each device's block.
    pub fn assemble(&self, blocks: &[Tensor], sharding: &ValueSharding) -> Result<Tensor, String> {
        let rank = sharding.dims.len();
        let mut parts: BTreeMap<Vec<usize>, Tensor> = BTreeMap::new();
        for (device, block) in blocks.iter().enumerate() {
            let coords = self.coordinates(device);
            if !self.provides(sharding, &coords) {
                continue;
            }
            if block.shape.len() != rank {
                return Err(format!(
                    "a sharding of rank {rank} for a block of shape {:?}",
                    block.shape
                ));
            }
            let key = sharding
                .dims
                .iter()
                .map(|axes| self.part(axes, &coords).1)
                .collect();
            parts.insert(key, block.clone());
        }
        // Join the blocks along the last dimension first, then the previous.
        for d in (0..rank).rev() {
            let mut joined: BTreeMap<Vec<usize>, Vec<Tensor>> = BTreeMap::new();
            for (key, block) in parts {
                joined.entry(key[..d].to_vec()).or_default().push(block);
            }
            parts = joined
                .into_iter()
                .map(|(key, blocks)| {
                    let refs: Vec<&Tensor> = blocks.iter().collect();
                    let block = match refs[..] {
                        [one] => Ok(one.clone()),
                        _ => concatenate(&refs, d).map_err(|e| e.to_string()),
                    }?;
                    Ok((key, block))
                })
                .collect::<Result<_, String>>()?;
        }
        parts
            .into_values()
            .next()
            .ok_or_else(|| "no device provides the result".to_owned())
    }
}

fn malformed(op: &OperationRef<'_, '_>, message: impl Into<String>) -> RuntimeError {
    RuntimeError::Malformed {
        op: op_name(op),
        location: format_location(op.location()),
        message: message.into(),
    }
}

/// Runs `op`, an `sdy.manual_computation`, on `operands` (see the module
/// documentation); the devices plan the body in `cache` and each runs
/// within `limits`; `mesh_text` gives the `mesh` attribute of the `sdy.mesh`
/// a symbol names.
pub(crate) fn run<'c, 'a>(
    op: &OperationRef<'c, 'a>,
    operands: &[&Tensor],
    cache: &PlanCache,
    limits: Limits,
    mesh_text: &dyn Fn(&str) -> Result<String, RuntimeError>,
) -> Result<Vec<Tensor>, RuntimeError> {
    let bad = |message: String| malformed(op, message);
    if parallel::in_grid() {
        return Err(RuntimeError::Unsupported {
            op: "sdy.manual_computation inside another process grid".to_owned(),
            location: format_location(op.location()),
        });
    }
    let text = |name: &str| attrs::text(op, name).map_err(|e| RuntimeError::from_value(op, e));
    let inputs = parse_shardings(&text("in_shardings")?).map_err(bad)?;
    let outputs = parse_shardings(&text("out_shardings")?).map_err(bad)?;
    let manual = parse_manual_axes(&text("manual_axes")?).map_err(bad)?;
    if inputs.len() != operands.len() || outputs.len() != op.result_count() {
        return Err(bad(format!(
            "{} in_shardings for {} operands, {} out_shardings for {} results",
            inputs.len(),
            operands.len(),
            outputs.len(),
            op.result_count()
        )));
    }
    let Some(mesh) = inputs.iter().chain(&outputs).map(|s| s.mesh.clone()).next() else {
        return Err(bad(
            "a manual computation without operands or results".to_owned()
        ));
    };
    if let Some(other) = inputs.iter().chain(&outputs).find(|s| s.mesh != mesh) {
        return Err(bad(format!(
            "shardings name two meshes, @{mesh} and @{}",
            other.mesh
        )));
    }
    let axes = parse_mesh(&mesh_text(&mesh)?).map_err(bad)?;
    for name in &manual {
        if !axes.iter().any(|(axis, _)| axis == name) {
            return Err(bad(format!(
                "manual axis \"{name}\" is not an axis of @{mesh}"
            )));
        }
    }
    let manual = ManualAxes(
        axes.into_iter()
            .filter(|(name, _)| manual.contains(name))
            .collect(),
    );
    let devices = manual.devices();
    if devices > MAX_DEVICES {
        return Err(bad(format!(
            "{devices} devices exceed the limit of {MAX_DEVICES}"
        )));
    }
    let block = op
        .region(0)
        .ok()
        .and_then(|region| region.first_block())
        .ok_or_else(|| bad("the manual computation has no body".to_owned()))?;
    if block.argument_count() != operands.len() {
        return Err(bad(format!(
            "the body takes {} arguments for {} operands",
            block.argument_count(),
            operands.len()
        )));
    }
    let argument_types = (0..block.argument_count())
        .map(|i| {
            let argument = block
                .argument(i)
                .map_err(|_| bad("missing body argument".to_owned()))?;
            TensorType::parse(&argument.r#type().to_string())
                .map_err(|e| RuntimeError::from_value(op, e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut work = Vec::with_capacity(devices);
    for device in 0..devices {
        let coords = manual.coordinates(device);
        let blocks = operands
            .iter()
            .zip(&inputs)
            .zip(&argument_types)
            .enumerate()
            .map(|(k, ((value, sharding), expected))| {
                let block = manual
                    .block(value, sharding, &coords)
                    .map_err(|e| bad(format!("operand {k}: {e}")))?;
                if &block.tensor_type() != expected {
                    return Err(bad(format!(
                        "operand {k}: device {device}'s block is {:?}{:?}, the body takes {:?}{:?}",
                        block.element, block.shape, expected.element, expected.shape
                    )));
                }
                Ok(block)
            })
            .collect::<Result<Vec<_>, _>>()?;
        work.push((Work::Body(*op, cache, limits), blocks));
    }
    let grid = Arc::new(Grid::of_mesh(manual.0.clone()));
    let per_device = parallel::run_processes(&grid, work, &bad)?;
    let declared = attrs::result_types(op).map_err(|e| RuntimeError::from_value(op, e))?;
    (0..op.result_count())
        .map(|k| {
            let blocks = per_device
                .iter()
                .map(|outs| {
                    outs.get(k)
                        .cloned()
                        .ok_or_else(|| bad(format!("the body returned no result {k}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let value = manual
                .assemble(&blocks, &outputs[k])
                .map_err(|e| bad(format!("result {k}: {e}")))?;
            match declared.get(k) {
                Some(expected) if *expected != value.tensor_type() => Err(bad(format!(
                    "result {k} assembles to {:?}{:?}, declared {:?}{:?}",
                    value.element, value.shape, expected.element, expected.shape
                ))),
                _ => Ok(value),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Data, ElementType};

    fn ints(shape: Vec<usize>, values: Vec<i64>) -> Tensor {
        Tensor::new(ElementType::Signed(64), shape, Data::Signed(values)).unwrap()
    }

    #[test]
    fn parses_shardy_attributes() {
        assert_eq!(
            parse_mesh("#sdy.mesh<[\"d\"=2, \"e\"=4]>").unwrap(),
            vec![("d".to_owned(), 2), ("e".to_owned(), 4)]
        );
        assert_eq!(parse_mesh("#sdy.mesh<[]>").unwrap(), vec![]);
        assert!(parse_mesh("#sdy.mesh<[\"d\"=2], device_ids=[1, 0]>").is_err());
        assert_eq!(
            parse_manual_axes("#sdy<manual_axes{\"d\", \"e\"}>").unwrap(),
            vec!["d", "e"]
        );
        let parsed = parse_shardings(
            "#sdy.sharding_per_value<[<@mesh, [{}, {\"d\", \"e\"}]>, <@mesh, [], replicated={\"e\"}>]>",
        )
        .unwrap();
        assert_eq!(
            parsed,
            vec![
                ValueSharding {
                    mesh: "mesh".to_owned(),
                    dims: vec![vec![], vec!["d".to_owned(), "e".to_owned()]],
                },
                ValueSharding {
                    mesh: "mesh".to_owned(),
                    dims: vec![],
                },
            ]
        );
        assert!(parse_shardings("#sdy.sharding_per_value<[<@mesh, [{\"d\":(1)2}]>]>").is_err());
        assert!(
            parse_shardings("#sdy.sharding_per_value<[<@mesh, [{}], unreduced={\"d\"}>]>").is_err()
        );
        assert!(parse_shardings("#sdy.sharding_per_value<[<mesh<[\"d\"=2]>, [{}]>]>").is_err());
    }

    #[test]
    fn blocks_and_assembly_invert_each_other() {
        let axes = ManualAxes(vec![("a".to_owned(), 2), ("b".to_owned(), 3)]);
        assert_eq!(axes.devices(), 6);
        assert_eq!(axes.coordinates(4), vec![1, 1]);
        let value = ints(vec![4, 3], (0..12).collect());
        let sharding = ValueSharding {
            mesh: "m".to_owned(),
            dims: vec![vec!["a".to_owned()], vec!["b".to_owned()]],
        };
        let blocks: Vec<Tensor> = (0..6)
            .map(|device| {
                axes.block(&value, &sharding, &axes.coordinates(device))
                    .unwrap()
            })
            .collect();
        assert_eq!(blocks[4], ints(vec![2, 1], vec![7, 10]));
        assert_eq!(axes.assemble(&blocks, &sharding).unwrap(), value);
        // Sharded by both axes in one dimension, `b` minor.
        let rows = ValueSharding {
            mesh: "m".to_owned(),
            dims: vec![vec![], vec![]],
        };
        let flat = ints(vec![6], (0..6).collect());
        let both = ValueSharding {
            mesh: "m".to_owned(),
            dims: vec![vec!["a".to_owned(), "b".to_owned()]],
        };
        let parts: Vec<Tensor> = (0..6)
            .map(|device| axes.block(&flat, &both, &axes.coordinates(device)).unwrap())
            .collect();
        assert_eq!(parts[4], ints(vec![1], vec![4]));
        assert_eq!(axes.assemble(&parts, &both).unwrap(), flat);
        // Replicated: device 0's value.
        let copies: Vec<Tensor> = (0..6).map(|d| ints(vec![1, 1], vec![d as i64])).collect();
        assert_eq!(
            axes.assemble(&copies, &rows).unwrap(),
            ints(vec![1, 1], vec![0])
        );
        assert!(axes
            .block(&ints(vec![5], vec![0; 5]), &both, &[0, 0])
            .is_err());
    }
}

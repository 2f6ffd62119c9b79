//! Process and collective ops: `stablehlo.replica_id`, `partition_id`,
//! `all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all`,
//! `collective_permute` and `collective_broadcast`, on the process grid of
//! [`crate::parallel`] (an implicit 1x1 grid outside
//! `interpreter.run_parallel`).
//!
//! Process groups follow the StableHLO specification: `cross_replica`,
//! `cross_partition`, `cross_replica_and_partition` or `flattened_ids`,
//! chosen from the channel id (`channel_handle`'s `handle`, 0 when absent)
//! and `use_global_device_ids`; `-1` entries of `replica_groups` are padding.
//! Inside a manual computation ([`crate::manual`]), `replica_groups` may
//! also name mesh axes (`#stablehlo.replica_group_mesh_axes<mesh = @m, axes
//! = [#stablehlo.axis_ref<name = "d">]>`, what JAX emits for a `shard_map`
//! collective): a group is the devices that differ only along those axes,
//! ordered row-major over them in the order given.
//!
//! # Determinism
//!
//! Every member receives all contributions of its group (see
//! [`crate::parallel::Grid::rendezvous`]) and combines them in the group's
//! order: `all_reduce` and `reduce_scatter` fold left,
//! `((x0 ⊕ x1) ⊕ x2) ⊕ ...`, elementwise through the op's body;
//! `all_gather` and `all_to_all` concatenate in group order.

use melior::ir::OperationRef;

use super::movement::{concatenate, slice};
use super::{arity, Body, OpError, Regions};
use crate::attrs;
use crate::parallel::{self, Contributions, ProcessContext};
use crate::value::{Data, ElementType, Tensor, ValueError};
use crate::HostTensor;

/// The ops this family evaluates (the op table, `table.rs`, dispatches
/// them here).
pub const OPS: &[&str] = &[
    "stablehlo.all_gather",
    "stablehlo.all_reduce",
    "stablehlo.all_to_all",
    "stablehlo.collective_broadcast",
    "stablehlo.collective_permute",
    "stablehlo.partition_id",
    "stablehlo.reduce_scatter",
    "stablehlo.replica_id",
];

/// The family entry point.
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    let results = match name {
        "stablehlo.replica_id" | "stablehlo.partition_id" => {
            arity(operands, 0)?;
            let process = parallel::current();
            let id = if name == "stablehlo.replica_id" {
                process.replica()
            } else {
                process.partition()
            };
            vec![Tensor::new(
                ElementType::Unsigned(32),
                Vec::new(),
                Data::Unsigned(vec![id as u64]),
            )?]
        }
        "stablehlo.all_reduce" => {
            let process = parallel::current();
            let group = my_group(&process, op, Kind::Reduce)?;
            let all = exchange(&process, "all_reduce", op, &group, operands)?;
            let body = regions.body(0)?;
            (0..operands.len())
                .map(|k| reduce(&*body, &all, &group, k))
                .collect::<Result<_, _>>()?
        }
        "stablehlo.all_gather" => {
            let dim = attrs::index(op, "all_gather_dim")?;
            let process = parallel::current();
            let group = my_group(&process, op, Kind::Reduce)?;
            let all = exchange(&process, "all_gather", op, &group, operands)?;
            (0..operands.len())
                .map(|k| {
                    let parts = group
                        .iter()
                        .map(|p| member(&all, *p, k))
                        .collect::<Result<Vec<_>, _>>()?;
                    concatenate(&parts, dim)
                })
                .collect::<Result<_, _>>()?
        }
        "stablehlo.reduce_scatter" => {
            arity(operands, 1)?;
            let dim = attrs::index(op, "scatter_dimension")?;
            let process = parallel::current();
            let group = my_group(&process, op, Kind::Reduce)?;
            let all = exchange(&process, "reduce_scatter", op, &group, operands)?;
            let body = regions.body(0)?;
            let reduced = reduce(&*body, &all, &group, 0)?;
            let position = position(&group, process.index)?;
            vec![split(&reduced, dim, group.len(), position)?]
        }
        "stablehlo.all_to_all" => {
            let split_dim = attrs::index(op, "split_dimension")?;
            let concat_dim = attrs::index(op, "concat_dimension")?;
            let count = attrs::index(op, "split_count")?;
            let process = parallel::current();
            let group = my_group(&process, op, Kind::Partition)?;
            if group.len() != count {
                return Err(mismatch(format!(
                    "all_to_all: split_count {count} differs from the group size {}",
                    group.len()
                ))
                .into());
            }
            let all = exchange(&process, "all_to_all", op, &group, operands)?;
            let position = position(&group, process.index)?;
            (0..operands.len())
                .map(|k| {
                    let parts = group
                        .iter()
                        .map(|p| split(member(&all, *p, k)?, split_dim, count, position))
                        .collect::<Result<Vec<_>, _>>()?;
                    concatenate(&parts.iter().collect::<Vec<_>>(), concat_dim)
                })
                .collect::<Result<_, _>>()?
        }
        "stablehlo.collective_broadcast" => {
            arity(operands, 1)?;
            let process = parallel::current();
            let groups = process_groups(&process, op, "replica_groups", Kind::Partition)?;
            match groups.into_iter().find(|g| g.contains(&process.index)) {
                Some(group) => {
                    let all = exchange(&process, "collective_broadcast", op, &group, operands)?;
                    vec![member(&all, group[0], 0)?.clone()]
                }
                None => vec![zeros(operands[0])?],
            }
        }
        "stablehlo.collective_permute" => {
            arity(operands, 1)?;
            let process = parallel::current();
            let pairs = process_groups(&process, op, "source_target_pairs", Kind::Partition)?;
            let mut result = None;
            for pair in pairs {
                let [source, target] = pair[..] else {
                    return Err(mismatch(format!(
                        "collective_permute: {pair:?} is not a source-target pair"
                    ))
                    .into());
                };
                if source != process.index && target != process.index {
                    continue;
                }
                let all = exchange(&process, "collective_permute", op, &pair, operands)?;
                if target == process.index {
                    result = Some(member(&all, source, 0)?.clone());
                }
            }
            match result {
                Some(result) => vec![result],
                None => vec![zeros(operands[0])?],
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(results))
}

fn mismatch(message: String) -> ValueError {
    ValueError::Mismatch(message)
}

/// How a channel id > 0 selects the groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `all_reduce`, `all_gather`, `reduce_scatter`: replica and partition
    /// (or flattened ids with `use_global_device_ids`).
    Reduce,
    /// `all_to_all`, `collective_broadcast`, `collective_permute`:
    /// cross-partition.
    Partition,
}

fn channel_id(op: &OperationRef<'_, '_>) -> Result<i64, ValueError> {
    if !attrs::has(op, "channel_handle") {
        return Ok(0);
    }
    Ok(attrs::int_field(&attrs::text(op, "channel_handle")?, "handle")?.unwrap_or(0))
}

/// The groups of flat process indices the op's `attribute` describes.
fn process_groups(
    process: &ProcessContext,
    op: &OperationRef<'_, '_>,
    attribute: &str,
    kind: Kind,
) -> Result<Vec<Vec<usize>>, ValueError> {
    if attribute == "replica_groups" {
        let text = attrs::text(op, attribute)?;
        if text
            .trim_start()
            .starts_with("#stablehlo.replica_group_mesh_axes")
        {
            return mesh_axes_groups(process, &text);
        }
    }
    let groups = attrs::dense(op, attribute)?.ok_or_else(|| ValueError::Malformed {
        what: "op: missing attribute",
        text: attribute.to_owned(),
    })?;
    let (Data::Signed(values), &[_, width]) = (&groups.data, &groups.shape[..]) else {
        return Err(mismatch(format!(
            "{attribute} must be a rank-2 integer tensor, got {:?}{:?}",
            groups.element, groups.shape
        )));
    };
    let rows: Vec<Vec<i64>> = if width == 0 {
        Vec::new()
    } else {
        values
            .chunks(width)
            .map(|row| row.iter().copied().filter(|&v| v != -1).collect())
            .collect()
    };
    let replicas = process.grid.replicas();
    let partitions = process.grid.partitions();
    let id = |value: i64, bound: usize| {
        usize::try_from(value)
            .ok()
            .filter(|&v| v < bound)
            .ok_or_else(|| mismatch(format!("{attribute}: id {value} is outside 0..{bound}")))
    };
    let channel = channel_id(op)?;
    let global = attrs::has(op, "use_global_device_ids");
    let mut out = Vec::new();
    if channel <= 0 {
        if global {
            return Err(mismatch(
                "use_global_device_ids needs a channel id > 0".to_owned(),
            ));
        }
        // cross_replica
        for partition in 0..partitions {
            for row in &rows {
                out.push(
                    row.iter()
                        .map(|&r| Ok(id(r, replicas)? * partitions + partition))
                        .collect::<Result<_, ValueError>>()?,
                );
            }
        }
    } else if kind == Kind::Partition {
        // cross_partition
        for replica in 0..replicas {
            for row in &rows {
                out.push(
                    row.iter()
                        .map(|&p| Ok(replica * partitions + id(p, partitions)?))
                        .collect::<Result<_, ValueError>>()?,
                );
            }
        }
    } else if global {
        // flattened_ids
        for row in &rows {
            out.push(
                row.iter()
                    .map(|&f| id(f, replicas * partitions))
                    .collect::<Result<_, _>>()?,
            );
        }
    } else {
        // cross_replica_and_partition
        for row in &rows {
            let mut group = Vec::new();
            for partition in 0..partitions {
                for &r in row {
                    group.push(id(r, replicas)? * partitions + partition);
                }
            }
            out.push(group);
        }
    }
    Ok(out)
}

/// The groups of a `replica_group_mesh_axes` attribute on the grid of a
/// manual computation (see the module documentation).
fn mesh_axes_groups(process: &ProcessContext, text: &str) -> Result<Vec<Vec<usize>>, ValueError> {
    let grid_axes = process.grid.axes();
    if grid_axes.is_empty() {
        return Err(mismatch(format!(
            "replica groups by mesh axes outside a manual computation: `{text}`"
        )));
    }
    if text.contains("sub_axis") {
        return Err(mismatch(format!(
            "replica groups over sub-axes are not modelled: `{text}`"
        )));
    }
    let mut named = Vec::new();
    for part in text.split("name = \"").skip(1) {
        let name = part.split('"').next().unwrap_or_default();
        let position = grid_axes
            .iter()
            .position(|(axis, _)| axis == name)
            .ok_or_else(|| {
                mismatch(format!(
                    "replica groups name axis \"{name}\", not a manual axis of the computation"
                ))
            })?;
        named.push(position);
    }
    let sizes: Vec<usize> = grid_axes.iter().map(|(_, size)| *size).collect();
    let flat = |coords: &[usize]| coords.iter().zip(&sizes).fold(0, |acc, (c, n)| acc * n + c);
    let members: usize = named.iter().map(|&k| sizes[k]).product();
    let mut groups = Vec::new();
    for device in 0..process.grid.len() {
        let mut coords = vec![0; sizes.len()];
        let mut rest = device;
        for k in (0..sizes.len()).rev() {
            coords[k] = rest % sizes[k];
            rest /= sizes[k];
        }
        // One group per setting of the other axes: start it at its first member.
        if named.iter().any(|&k| coords[k] != 0) {
            continue;
        }
        let mut group = Vec::with_capacity(members);
        for member in 0..members {
            let mut rest = member;
            for &k in named.iter().rev() {
                coords[k] = rest % sizes[k];
                rest /= sizes[k];
            }
            group.push(flat(&coords));
        }
        groups.push(group);
    }
    Ok(groups)
}

/// The group holding this process.
fn my_group(
    process: &ProcessContext,
    op: &OperationRef<'_, '_>,
    kind: Kind,
) -> Result<Vec<usize>, ValueError> {
    process_groups(process, op, "replica_groups", kind)?
        .into_iter()
        .find(|g| g.contains(&process.index))
        .ok_or_else(|| mismatch(format!("process {} is in no process group", process.index)))
}

fn position(group: &[usize], index: usize) -> Result<usize, ValueError> {
    group
        .iter()
        .position(|&p| p == index)
        .ok_or_else(|| mismatch(format!("process {index} is not in {group:?}")))
}

fn exchange(
    process: &ProcessContext,
    kind: &'static str,
    op: &OperationRef<'_, '_>,
    group: &[usize],
    operands: &[&Tensor],
) -> Result<std::sync::Arc<Contributions>, ValueError> {
    let channel = channel_id(op)?;
    let value = operands.iter().map(|t| (*t).clone()).collect();
    process
        .grid
        .rendezvous(process.index, kind, channel, group, value)
        .map_err(ValueError::Mismatch)
}

/// Operand `k` of process `p`.
fn member(all: &Contributions, p: usize, k: usize) -> Result<&Tensor, ValueError> {
    all.get(&p)
        .and_then(|values| values.get(k))
        .ok_or_else(|| mismatch(format!("process {p} contributed no operand {k}")))
}

/// Folds operand `k` of the group's members, in group order, through `body`.
fn reduce(
    body: &dyn Body,
    all: &Contributions,
    group: &[usize],
    k: usize,
) -> Result<Tensor, OpError> {
    let (first, rest) = group
        .split_first()
        .ok_or_else(|| mismatch("an empty process group".to_owned()))?;
    let mut acc = member(all, *first, k)?.clone();
    for p in rest {
        acc = combine(body, &acc, member(all, *p, k)?)?;
    }
    Ok(acc)
}

/// `body(a[i], b[i])` for every element.
fn combine(body: &dyn Body, a: &Tensor, b: &Tensor) -> Result<Tensor, OpError> {
    if a.tensor_type() != b.tensor_type() {
        return Err(mismatch(format!(
            "operands differ across processes: {:?}{:?} vs {:?}{:?}",
            a.element, a.shape, b.element, b.shape
        ))
        .into());
    }
    // A body that is one add, multiply, maximum or minimum combines whole
    // tensors at once, with the bits the body gives element by element
    // (canonical NaNs, and an ensemble member's perturbation, as the
    // interpreter finishes that op).
    let fast = match body.combiner() {
        Some(super::Combiner::Add) => Some(super::BinaryOp::Add),
        Some(super::Combiner::Multiply) => Some(super::BinaryOp::Multiply),
        Some(super::Combiner::Maximum) => Some(super::BinaryOp::Maximum),
        Some(super::Combiner::Minimum) => Some(super::BinaryOp::Minimum),
        _ => None,
    };
    if let Some(op) = fast {
        let mut out = super::binary(op, a, b)?;
        out.canonicalize_nans();
        crate::rounding::perturb_result(&mut out);
        return Ok(out);
    }
    let mut parts = Vec::with_capacity(a.data.len());
    for i in 0..a.data.len() {
        let x = Tensor::new(a.element, Vec::new(), a.data.gather(&[i]))?;
        let y = Tensor::new(b.element, Vec::new(), b.data.gather(&[i]))?;
        let mut out = body.apply(&[x, y])?;
        let (Some(z), true) = (out.pop(), out.is_empty()) else {
            return Err(mismatch("the reduction body must return one value".to_owned()).into());
        };
        if z.element != a.element || !z.shape.is_empty() {
            return Err(mismatch(format!(
                "the reduction body returned {:?}{:?}, not a {:?} scalar",
                z.element, z.shape, a.element
            ))
            .into());
        }
        parts.push(z.data);
    }
    let refs: Vec<&Data> = parts.iter().collect();
    let data = if refs.is_empty() {
        a.data.clone()
    } else {
        super::scalar::join(&refs)?
    };
    Ok(Tensor::new(a.element, a.shape.clone(), data)?)
}

/// Part `index` of `count` equal parts of `operand` along `dim`.
fn split(operand: &Tensor, dim: usize, count: usize, index: usize) -> Result<Tensor, ValueError> {
    let size = operand
        .shape
        .get(dim)
        .copied()
        .ok_or_else(|| mismatch(format!("dimension {dim} is outside {:?}", operand.shape)))?;
    if count == 0 || size % count != 0 {
        return Err(mismatch(format!(
            "dimension {dim} of {:?} does not split into {count} parts",
            operand.shape
        )));
    }
    let part = size / count;
    let start: Vec<i64> = (0..operand.shape.len())
        .map(|d| if d == dim { (index * part) as i64 } else { 0 })
        .collect();
    let limit: Vec<i64> = operand
        .shape
        .iter()
        .enumerate()
        .map(|(d, &n)| {
            if d == dim {
                ((index + 1) * part) as i64
            } else {
                n as i64
            }
        })
        .collect();
    slice(operand, &start, &limit, &vec![1; operand.shape.len()])
}

/// A tensor of zeros of `like`'s type.
fn zeros(like: &Tensor) -> Result<Tensor, ValueError> {
    let shape = like.shape.iter().map(|&d| d as u64).collect();
    let host = HostTensor::zeros(like.element.dtype()?, shape)
        .map_err(|error| ValueError::OutOfRange(error.to_string()))?;
    Tensor::from_host(&host)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(shape: Vec<usize>, values: Vec<i64>) -> Tensor {
        Tensor::new(ElementType::Signed(64), shape, Data::Signed(values)).unwrap()
    }

    struct Add;

    impl Body for Add {
        fn apply(&self, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
            Ok(vec![super::super::binary(
                super::super::BinaryOp::Add,
                &args[0],
                &args[1],
            )?])
        }
        fn combiner(&self) -> Option<super::super::Combiner> {
            None
        }
    }

    /// `Add` with the fast path announced.
    struct FastAdd;

    impl Body for FastAdd {
        fn apply(&self, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
            Add.apply(args)
        }
        fn combiner(&self) -> Option<super::super::Combiner> {
            Some(super::super::Combiner::Add)
        }
    }

    /// The whole-tensor fast path gives the bits of the element-by-element
    /// body, NaNs and an ensemble member's perturbation included.
    #[test]
    fn fast_combination_matches_the_body() {
        let floats = |v: &[f32]| {
            Tensor::new(ElementType::F32, vec![v.len()], Data::F32(v.to_vec())).unwrap()
        };
        let a = floats(&[1.1, f32::INFINITY, -0.0, 3.5e-3, f32::NAN]);
        let b = floats(&[2.2, f32::NEG_INFINITY, 0.0, 7.25, 1.0]);
        let bits = |t: &Tensor| match &t.data {
            Data::F32(v) => v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            _ => Vec::new(),
        };
        // The slow path runs the body per element; its scalar results are
        // canonicalized and perturbed here as the interpreter would.
        let slow = |a: &Tensor, b: &Tensor| {
            let mut out = combine(&Add, a, b).unwrap();
            out.canonicalize_nans();
            crate::rounding::perturb_result(&mut out);
            out
        };
        assert_eq!(
            bits(&combine(&FastAdd, &a, &b).unwrap()),
            bits(&slow(&a, &b))
        );
        crate::rounding::with_member(4, || {
            assert_eq!(
                bits(&combine(&FastAdd, &a, &b).unwrap()),
                bits(&slow(&a, &b))
            );
        });
    }

    #[test]
    fn helpers() {
        let a = ints(vec![2, 2], vec![1, 2, 3, 4]);
        let b = ints(vec![2, 2], vec![10, 20, 30, 40]);
        assert_eq!(
            combine(&Add, &a, &b).unwrap(),
            ints(vec![2, 2], vec![11, 22, 33, 44])
        );
        let mut all = Contributions::new();
        all.insert(3, vec![a.clone()]);
        all.insert(1, vec![b.clone()]);
        assert_eq!(
            reduce(&Add, &all, &[3, 1], 0).unwrap(),
            ints(vec![2, 2], vec![11, 22, 33, 44])
        );
        assert!(reduce(&Add, &all, &[3, 2], 0).is_err());
        assert_eq!(split(&a, 1, 2, 1).unwrap(), ints(vec![2, 1], vec![2, 4]));
        assert!(split(&a, 1, 3, 0).is_err());
        assert!(split(&a, 2, 1, 0).is_err());
        assert_eq!(zeros(&a).unwrap(), ints(vec![2, 2], vec![0; 4]));
        assert_eq!(position(&[4, 2], 2).unwrap(), 1);
        assert!(position(&[4, 2], 3).is_err());
    }
}

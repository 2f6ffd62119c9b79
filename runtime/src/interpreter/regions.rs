//! An op's regions as [`Body`] values that families apply (reductions,
//! scatter, sort, map), calling back into the interpreter, with the
//! single-binary-op fast path ([`combiner_of`]).

use super::*;

/// An op's regions as bodies that run in the interpreter.
pub(super) struct OpRegions<'e, 'f, 'p, 'h, 'c, 'a> {
    pub(super) exec: &'e Exec<'h, 'c, 'a>,
    pub(super) op: OperationRef<'c, 'a>,
    pub(super) frame: &'f Frame<'p>,
}

impl Regions for OpRegions<'_, '_, '_, '_, '_, '_> {
    fn body(&self, index: usize) -> Result<Box<dyn Body + '_>, OpError> {
        let block = self.exec.region_block(&self.op, index)?;
        Ok(Box::new(RegionBody {
            exec: self.exec,
            op: self.op,
            block,
            frame: self.frame,
            combiner: combiner_of(block),
        }))
    }
}

pub(super) struct RegionBody<'e, 'f, 'p, 'h, 'c, 'a> {
    pub(super) exec: &'e Exec<'h, 'c, 'a>,
    pub(super) op: OperationRef<'c, 'a>,
    pub(super) block: BlockRef<'c, 'a>,
    pub(super) frame: &'f Frame<'p>,
    pub(super) combiner: Option<Combiner>,
}

impl Body for RegionBody<'_, '_, '_, '_, '_, '_> {
    fn apply(&self, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
        Ok(self
            .exec
            .block(&self.op, self.block, args.to_vec(), Some(self.frame))?)
    }

    fn combiner(&self) -> Option<Combiner> {
        self.combiner
    }
}

/// `Some(op)` when `block` is `^bb0(%a, %b): %r = op(%a, %b); return %r`.
pub(super) fn combiner_of(block: BlockRef<'_, '_>) -> Option<Combiner> {
    if block.argument_count() != 2 {
        return None;
    }
    let first = block.first_operation()?;
    let ret = first.next_in_block()?;
    if ret.next_in_block().is_some() || op_name(&ret) != "stablehlo.return" {
        return None;
    }
    let combiner = match op_name(&first).as_str() {
        "stablehlo.add" => Combiner::Add,
        "stablehlo.multiply" => Combiner::Multiply,
        "stablehlo.maximum" => Combiner::Maximum,
        "stablehlo.minimum" => Combiner::Minimum,
        "stablehlo.and" => Combiner::And,
        "stablehlo.or" => Combiner::Or,
        "stablehlo.xor" => Combiner::Xor,
        _ => return None,
    };
    let a = block.argument(0).ok()?.to_raw().ptr;
    let b = block.argument(1).ok()?.to_raw().ptr;
    let operands: Vec<_> = first.operands().map(|v| v.to_raw().ptr).collect();
    let result = first.result(0).ok()?.to_raw().ptr;
    let returned: Vec<_> = ret.operands().map(|v| v.to_raw().ptr).collect();
    (operands == [a, b] && returned == [result]).then_some(combiner)
}

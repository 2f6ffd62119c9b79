//! An op's regions as [`Body`] values that families apply (reductions,
//! scatter, sort, map), calling back into the interpreter, with the
//! single-binary-op fast path ([`crate::ops::decoded::combiner`]).

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
            combiner: ops::decoded::combiner(block),
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

// The named pipelines (passes/src/pipelines.rs) run exactly the passes they
// list, on the exported fixture steps, as proof.jit runs them.
//
// The attested pipeline is its passes in order, byte for byte.
// RUN: zkdv-opt --zkdv-attested-pipeline %S/inputs/mlp_adam.mlir > %t.pipeline
// RUN: zkdv-opt --zkdv-legalize-arith --zkdv-inline --zkdv-check-hermetic --zkdv-annotate-roles --zkdv-slice-update=output=attested --zkdv-push-select=func=main --zkdv-split-manual --zkdv-dce --zkdv-guard-leaves=func=main %S/inputs/mlp_adam.mlir > %t.passes
// RUN: diff %t.pipeline %t.passes
// RUN: FileCheck %s --check-prefix=ATT < %t.pipeline
// RUN: grep -c '"func.func"' %t.pipeline | FileCheck %s --check-prefix=ONE
//
// The production pipeline forwards its options to --zkdv-insert-commitments.
// RUN: zkdv-opt --zkdv-production-pipeline="ratio=0.5 drop-deltas" %S/inputs/mlp_adam.mlir > %t.prod
// RUN: zkdv-opt --zkdv-annotate-roles --zkdv-insert-commitments="ratio=0.5 drop-deltas" %S/inputs/mlp_adam.mlir > %t.prod_passes
// RUN: diff %t.prod %t.prod_passes
// RUN: FileCheck %s --check-prefix=PROD < %t.prod
//
// The replay pipeline is its passes in order, byte for byte (JAX roles
// inferred; a torch export's given, its arith.constants legalized); with
// `whole` it stops after hermeticity (a DDP rank's replay keeps every result).
// RUN: zkdv-opt --zkdv-replay-pipeline %S/inputs/mlp_adam.mlir > %t.replay
// RUN: zkdv-opt --zkdv-inline --zkdv-check-hermetic --zkdv-annotate-roles --zkdv-slice-update=output=replay %S/inputs/mlp_adam.mlir > %t.replay_passes
// RUN: diff %t.replay %t.replay_passes
// RUN: FileCheck %s --check-prefix=REPLAY < %t.replay
// RUN: zkdv-opt --zkdv-replay-pipeline="args=param:0-3,opt_state:4-15,batch:16-19 results=post_param:0-3,post_opt_state:4-15,delta:16-19" %S/inputs/torch/torch_mlp_adamw.mlir > %t.torch_replay
// RUN: zkdv-opt --zkdv-legalize-arith --zkdv-inline --zkdv-check-hermetic --zkdv-annotate-roles="args=param:0-3,opt_state:4-15,batch:16-19 results=post_param:0-3,post_opt_state:4-15,delta:16-19" --zkdv-slice-update=output=replay %S/inputs/torch/torch_mlp_adamw.mlir > %t.torch_replay_passes
// RUN: diff %t.torch_replay %t.torch_replay_passes
// RUN: zkdv-opt --zkdv-replay-pipeline=whole %S/inputs/torch/torch_mlp_adamw.mlir > %t.whole
// RUN: zkdv-opt --zkdv-legalize-arith --zkdv-inline --zkdv-check-hermetic %S/inputs/torch/torch_mlp_adamw.mlir > %t.whole_passes
// RUN: diff %t.whole %t.whole_passes
//
// The hermetic pipeline inlines the private functions of a step.
// RUN: zkdv-opt --zkdv-hermetic-pipeline %S/inputs/transaction_sgd.mlir | FileCheck %s --check-prefix=HERM
//
// A torch-mlir export (zkdv.torch's lowering of an AdamW step): no JAX names, so
// the roles are given, and its arith.constant scalars are legalized first.
// RUN: zkdv-opt --zkdv-attested-pipeline="args=param:0-3,opt_state:4-15,batch:16-19 results=post_param:0-3,post_opt_state:4-15,delta:16-19" %S/inputs/torch/torch_mlp_adamw.mlir > %t.torch
// RUN: FileCheck %s --check-prefix=TORCH < %t.torch
// RUN: not grep -q '"arith\.' %t.torch
//
// Pipelines take only the options they declare.
// RUN: not zkdv-opt --zkdv-attested-pipeline=func=step %S/inputs/mlp_adam.mlir 2>&1 | FileCheck %s --check-prefix=OPT

// The attested program is one public `main` with the fixed ABI (state and
// batch, two ui64 indices) -> (f32 delta, f32 post-state), guarded per leaf.
// ATT: "func.func"
// ATT-SAME: tensor<4xi32>, tensor<ui64>, tensor<ui64>) -> (tensor<f32>, tensor<f32>)
// ATT-SAME: sym_name = "main"
// ATT-NOT: "func.call"
// ATT: "stablehlo.if"
// ATT-NOT: "func.call"
// ATT: zkdv.leaf_counts = array<i64: 4, 9>
// ONE: {{^1$}}

// Production keeps the state results and returns one sketch per parameter
// leaf (ratio 0.5: 8 -> 4 columns) instead of the deltas.
// PROD: tensor<f32>, tensor<1x4xf32>, tensor<6x4xf32>, tensor<1x2xf32>, tensor<8x2xf32>)
// PROD-SAME: zkdv.role = "sketch"

// The replay program is the step (state and batch in, post-state and deltas
// out), one public function.
// REPLAY: "func.func"
// REPLAY-SAME: sym_name = "main"
// REPLAY-NOT: "func.call"

// HERM-NOT: "func.call"
// HERM: sym_name = "main"
// HERM-NOT: "func.call"

// The torch step's attested program has the same fixed ABI (f32 state, an f32
// input batch and int64 labels, two ui64 indices), guarded per leaf.
// TORCH: "func.func"
// TORCH-SAME: tensor<4x6xf32>, tensor<4xi64>, tensor<f64>, tensor<f64>, tensor<ui64>, tensor<ui64>) -> (tensor<f32>, tensor<f32>)
// TORCH-SAME: sym_name = "main"
// TORCH: zkdv.leaf_counts = array<i64: 4, 12>

// OPT: zkdv-opt: error: --zkdv-attested-pipeline: unknown option `func=step` (expected `args=A,B,...` or `results=A,B,...`)

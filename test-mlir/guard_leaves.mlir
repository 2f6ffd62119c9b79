// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-guard-leaves=func=main %s | FileCheck %s
// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-guard-leaves=func=main --zkdv-cost-report=func=main -o /dev/null %s 2>&1 | FileCheck %s --check-prefix=COST
// RUN: not zkdv-opt --zkdv-guard-leaves=fun=main %s 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not zkdv-opt --zkdv-guard-leaves %s 2>&1 | FileCheck %s --check-prefix=NOFUNC

// Each chunk is one module whose @main has the attested ABI's two select
// chains. A chunk that breaks a precondition fails with the diagnostic its
// `expected-error` comment names (--verify-diagnostics) while the others are
// printed.
// OPT: zkdv-opt: error: --zkdv-guard-leaves: unknown option `fun=main` (expected `func=TEXT`)
// NOFUNC: error: --zkdv-guard-leaves: no function @zkdv_attested in the module

// Two delta leaves and one state leaf: the multiply every leaf reads stays
// unguarded; exp runs only for delta leaf 0, log for delta leaf 1 or the state
// leaf (one guard, predicate or-ed), tanh for the state leaf; larger target
// sets come first and the chains move behind the guards.
// CHECK-LABEL: "func.func"
// CHECK:         %[[M:.*]] = "stablehlo.multiply"(%arg0, %arg1)
// CHECK:         %[[D0:.*]] = "stablehlo.compare"(%arg2, %{{.*}}) <{comparison_direction = #stablehlo<comparison_direction LT>}>
// CHECK-NEXT:    %[[D1:.*]] = "stablehlo.compare"(%arg2, %{{.*}}) <{comparison_direction = #stablehlo<comparison_direction GE>}>
// CHECK-NEXT:    %[[S0:.*]] = "stablehlo.compare"(%arg3,
// CHECK-NEXT:    %[[P:.*]] = "stablehlo.or"(%[[D1]], %[[S0]])
// CHECK-NEXT:    %[[LOG:.*]] = "stablehlo.if"(%[[P]]) ({
// CHECK-NEXT:      %[[L:.*]] = "stablehlo.log"(%[[M]])
// CHECK-NEXT:      "stablehlo.return"(%[[L]])
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %[[Z:.*]] = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<4xf32>}
// CHECK-NEXT:      "stablehlo.return"(%[[Z]])
// CHECK-NEXT:    }) {zkdv.delta_leaves = array<i64: 1>, zkdv.state_leaves = array<i64: 0>} : (tensor<i1>) -> tensor<4xf32>
// CHECK-NEXT:    %[[EXP:.*]] = "stablehlo.if"(%[[D0]]) ({
// CHECK-NEXT:      "stablehlo.exponential"(%[[M]])
// CHECK:         }) {zkdv.delta_leaves = array<i64: 0>, zkdv.state_leaves = array<i64>} : (tensor<i1>) -> tensor<f32>
// CHECK-NEXT:    %[[V1:.*]] = "stablehlo.if"(%[[D1]]) ({
// CHECK-NEXT:      "stablehlo.slice"(%[[LOG]])
// CHECK:         }) {zkdv.delta_leaves = array<i64: 1>, zkdv.state_leaves = array<i64>}
// CHECK-NEXT:    %[[VS:.*]] = "stablehlo.if"(%[[S0]]) ({
// CHECK-NEXT:      %[[T:.*]] = "stablehlo.tanh"(%[[M]])
// CHECK-NEXT:      "stablehlo.add"(%[[T]], %[[LOG]])
// CHECK:         }) {zkdv.delta_leaves = array<i64>, zkdv.state_leaves = array<i64: 0>}
// CHECK-NEXT:    %[[C0:.*]] = "stablehlo.select"(%[[D0]], %[[EXP]], %{{.*}})
// CHECK-NEXT:    %[[C1:.*]] = "stablehlo.select"(%[[D1]], %[[V1]], %[[C0]])
// CHECK-NEXT:    %[[C2:.*]] = "stablehlo.select"(%[[S0]], %[[VS]], %{{.*}})
// CHECK-NEXT:    "func.return"(%[[C1]], %[[C2]])
// CHECK-NEXT:  }) {zkdv.leaf_counts = array<i64: 2, 1>} : () -> ()
// The cost report averages the guards over the leaves: 11 unguarded FLOPs,
// log 4 (always hit: every state draw), exp 4 (half the delta draws), the
// slice 0, tanh and add 8 (always): 25 of the 27 counted in total.
// COST-LABEL: zkdv-cost-report @main
// COST:         total                        37              27
// COST-NEXT:    per check                                    25
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>, tensor<4xf32>, tensor<ui64>, tensor<ui64>) -> (tensor<f32>, tensor<f32>), sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %p: tensor<ui64>, %o: tensor<ui64>):
    %shared = "stablehlo.multiply"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %ea = "stablehlo.exponential"(%shared) : (tensor<4xf32>) -> tensor<4xf32>
    %sa = "stablehlo.slice"(%ea) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xf32>) -> tensor<1xf32>
    %va = "stablehlo.reshape"(%sa) : (tensor<1xf32>) -> tensor<f32>
    %lb = "stablehlo.log"(%shared) : (tensor<4xf32>) -> tensor<4xf32>
    %sb = "stablehlo.slice"(%lb) <{limit_indices = array<i64: 2>, start_indices = array<i64: 1>, strides = array<i64: 1>}> : (tensor<4xf32>) -> tensor<1xf32>
    %vb = "stablehlo.reshape"(%sb) : (tensor<1xf32>) -> tensor<f32>
    %ts = "stablehlo.tanh"(%shared) : (tensor<4xf32>) -> tensor<4xf32>
    %both = "stablehlo.add"(%ts, %lb) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %ss = "stablehlo.slice"(%both) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xf32>) -> tensor<1xf32>
    %vs = "stablehlo.reshape"(%ss) : (tensor<1xf32>) -> tensor<f32>
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %c4 = "stablehlo.constant"() <{value = dense<4> : tensor<ui64>}> : () -> tensor<ui64>
    %in0 = "stablehlo.compare"(%p, %c4) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %in1 = "stablehlo.compare"(%p, %c4) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %s0 = "stablehlo.select"(%in0, %va, %zero) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %s1 = "stablehlo.select"(%in1, %vb, %s0) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %ins = "stablehlo.compare"(%o, %c4) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %t0 = "stablehlo.select"(%ins, %vs, %zero) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%s1, %t0) : (tensor<f32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// One target only (no state chain, one delta link): nothing to choose
// between, so the function is left as it is.
// CHECK-LABEL: "func.func"
// CHECK-NOT:     stablehlo.if
// CHECK-NOT:     zkdv.leaf_counts
// CHECK:         "func.return"
// COST-LABEL: zkdv-cost-report @main
// COST-NOT:     per check
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>, tensor<ui64>, tensor<ui64>) -> (tensor<f32>, tensor<f32>), sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>, %p: tensor<ui64>, %o: tensor<ui64>):
    %e = "stablehlo.exponential"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %s = "stablehlo.slice"(%e) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xf32>) -> tensor<1xf32>
    %v = "stablehlo.reshape"(%s) : (tensor<1xf32>) -> tensor<f32>
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %c4 = "stablehlo.constant"() <{value = dense<4> : tensor<ui64>}> : () -> tensor<ui64>
    %in = "stablehlo.compare"(%p, %c4) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %s0 = "stablehlo.select"(%in, %v, %zero) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%s0, %zero) : (tensor<f32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Two leaves that read the same whole computation (a global norm, say):
// every op is needed by every target, so no guard is added and the function
// is left as it is.
// CHECK-LABEL: "func.func"
// CHECK-NOT:     stablehlo.if
// CHECK:         "func.return"
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>, tensor<ui64>, tensor<ui64>) -> (tensor<f32>, tensor<f32>), sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>, %p: tensor<ui64>, %o: tensor<ui64>):
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %n = "stablehlo.reduce"(%a, %zero) <{dimensions = array<i64: 0>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %xy = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%xy) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %c4 = "stablehlo.constant"() <{value = dense<4> : tensor<ui64>}> : () -> tensor<ui64>
    %in0 = "stablehlo.compare"(%p, %c4) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %in1 = "stablehlo.compare"(%p, %c4) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %s0 = "stablehlo.select"(%in0, %n, %zero) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %s1 = "stablehlo.select"(%in1, %n, %s0) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%s1, %zero) : (tensor<f32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A function guarded already is rejected (guards are added once).
"builtin.module"() ({
  // expected-error @+1 {{--zkdv-guard-leaves: this function is guarded already}}
  "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<f32>):
    "func.return"(%a) : (tensor<f32>) -> ()
  }) {zkdv.leaf_counts = array<i64: 1, 0>} : () -> ()
}) : () -> ()

// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-cost-report %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not zkdv-opt --split-input-file --zkdv-cost-report=func=callee_twice %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not zkdv-opt --split-input-file --zkdv-cost-report=colour=blue %s 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-cost-report %s | FileCheck %s --check-prefix=IR
// RUN: zkdv-opt --help | FileCheck %s --check-prefix=HELP
// HELP:      --zkdv-cost-report  Print each function's FLOPs by op to stderr
// HELP-NEXT:   func=TEXT: report only this function
//
// The report goes to stderr, one table per function (it is not a diagnostic:
// CHECK lines read it); the IR is unchanged. Errors are checked at the op
// by their `expected-error` comments (--verify-diagnostics).
// OPT: zkdv-opt: error: --zkdv-cost-report: unknown option `colour=blue` (expected `func=TEXT`)
// ONE-NOT:   zkdv-cost-report @batched_matmul
// ONE:       zkdv-cost-report @callee_twice
// ONE-NEXT:    op count flops
// ONE-NEXT:    func.call 2 0
// ONE-NEXT:    func.return 3 0
// ONE-NEXT:    stablehlo.add 2 16
// ONE-NEXT:    total 7 16
// ONE-NOT:   zkdv-cost-report @
// ONE:       error: --zkdv-cost-report: no function @callee_twice in the module

// Batched matmul: 2 * B(3) * M(4) * N(6) * K(5) = 720; add: 72 elements.
// CHECK-LABEL: zkdv-cost-report @batched_matmul
// CHECK-NEXT:    op count flops
// CHECK-NEXT:    func.return 1 0
// CHECK-NEXT:    stablehlo.add 1 72
// CHECK-NEXT:    stablehlo.dot_general 1 720
// CHECK-NEXT:    total 3 792
// IR-LABEL:    sym_name = "batched_matmul"
// IR:          "stablehlo.dot_general"
"func.func"() <{function_type = (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>, sym_name = "batched_matmul"}> ({
^bb0(%a: tensor<3x4x5xf32>, %b: tensor<3x5x6xf32>):
  %0 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
  %1 = "stablehlo.add"(%0, %0) : (tensor<3x4x6xf32>, tensor<3x4x6xf32>) -> tensor<3x4x6xf32>
  "func.return"(%1) : (tensor<3x4x6xf32>) -> ()
}) : () -> ()

// -----

// An outer product (empty dimension numbers): 2 * 6 * 4 = 48.
// CHECK-LABEL: zkdv-cost-report @outer_product
// CHECK:         stablehlo.dot_general 1 48
// CHECK-NEXT:    total 2 48
"func.func"() <{function_type = (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>, sym_name = "outer_product"}> ({
^bb0(%a: tensor<2x3xf32>, %b: tensor<4xf32>):
  %0 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<>}> : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  "func.return"(%0) : (tensor<2x3x4xf32>) -> ()
}) : () -> ()

// -----

// Grouped convolution: 2 * output elements (128) * kernel window (3x3) *
// kernel input features (2 = 4 input features / feature_group_count 2) = 4608.
// CHECK-LABEL: zkdv-cost-report @grouped_conv
// CHECK:         stablehlo.convolution 1 4608
// CHECK-NEXT:    total 2 4608
"func.func"() <{function_type = (tensor<1x6x6x4xf32>, tensor<3x3x2x8xf32>) -> tensor<1x4x4x8xf32>, sym_name = "grouped_conv"}> ({
^bb0(%x: tensor<1x6x6x4xf32>, %k: tensor<3x3x2x8xf32>):
  %0 = "stablehlo.convolution"(%x, %k) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64}> : (tensor<1x6x6x4xf32>, tensor<3x3x2x8xf32>) -> tensor<1x4x4x8xf32>
  "func.return"(%0) : (tensor<1x4x4x8xf32>) -> ()
}) : () -> ()

// -----

// Elementwise ops cost one per result element: bf16 (6), a scalar (1), a
// size-1 tensor (1), a convert (6); broadcast and constant are free.
// CHECK-LABEL: zkdv-cost-report @elementwise_leaves
// CHECK-NEXT:    op count flops
// CHECK-NEXT:    func.return 1 0
// CHECK-NEXT:    stablehlo.broadcast_in_dim 1 0
// CHECK-NEXT:    stablehlo.constant 1 0
// CHECK-NEXT:    stablehlo.convert 1 6
// CHECK-NEXT:    stablehlo.exponential 1 6
// CHECK-NEXT:    stablehlo.multiply 1 1
// CHECK-NEXT:    stablehlo.negate 1 1
// CHECK-NEXT:    total 7 14
"func.func"() <{function_type = (tensor<2x3xbf16>, tensor<f32>, tensor<1xf32>) -> (tensor<2x3xf32>, tensor<f32>, tensor<1xf32>, tensor<2xf32>), sym_name = "elementwise_leaves"}> ({
^bb0(%x: tensor<2x3xbf16>, %s: tensor<f32>, %one: tensor<1xf32>):
  %0 = "stablehlo.exponential"(%x) : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  %1 = "stablehlo.convert"(%0) : (tensor<2x3xbf16>) -> tensor<2x3xf32>
  %2 = "stablehlo.multiply"(%s, %s) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %3 = "stablehlo.negate"(%one) : (tensor<1xf32>) -> tensor<1xf32>
  %c = "stablehlo.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %4 = "stablehlo.broadcast_in_dim"(%c) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
  "func.return"(%1, %2, %3, %4) : (tensor<2x3xf32>, tensor<f32>, tensor<1xf32>, tensor<2xf32>) -> ()
}) : () -> ()

// -----

// reduce costs its input elements (32), reduce_window output elements times
// the window size (4 * 4 = 16); their bodies are not counted again.
// CHECK-LABEL: zkdv-cost-report @reductions
// CHECK-NOT:     stablehlo.add
// CHECK:         stablehlo.reduce 1 32
// CHECK-NEXT:    stablehlo.reduce_window 1 16
// CHECK-NEXT:    total 4 48
"func.func"() <{function_type = (tensor<4x8xf32>, tensor<1x4x4x1xf32>) -> (tensor<8xf32>, tensor<1x2x2x1xf32>), sym_name = "reductions"}> ({
^bb0(%x: tensor<4x8xf32>, %img: tensor<1x4x4x1xf32>):
  %c = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %0 = "stablehlo.reduce"(%x, %c) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = "stablehlo.reduce_window"(%img, %c) <{window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }) : (tensor<1x4x4x1xf32>, tensor<f32>) -> tensor<1x2x2x1xf32>
  "func.return"(%0, %1) : (tensor<8xf32>, tensor<1x2x2x1xf32>) -> ()
}) : () -> ()

// -----

// A while loop's condition (1) and body (1 + 4) are counted once, with a note.
// CHECK-LABEL: zkdv-cost-report @loop_once
// CHECK:         stablehlo.add 1 1
// CHECK-NEXT:    stablehlo.compare 1 1
// CHECK-NEXT:    stablehlo.constant 1 0
// CHECK-NEXT:    stablehlo.multiply 1 4
// CHECK-NEXT:    stablehlo.return 2 0
// CHECK-NEXT:    stablehlo.while 1 0
// CHECK-NEXT:    total 8 6
// CHECK-NEXT:    note: stablehlo.while at {{.*}}cost_report.mlir:[[@LINE+3]]:10: condition and body counted once (trip count not analysed)
"func.func"() <{function_type = (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "loop_once"}> ({
^bb0(%i0: tensor<i32>, %x0: tensor<4xf32>):
  %r:2 = "stablehlo.while"(%i0, %x0) ({
  ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
    %n = "stablehlo.constant"() <{value = dense<10> : tensor<i32>}> : () -> tensor<i32>
    %lt = "stablehlo.compare"(%i, %n) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%lt) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
    %j = "stablehlo.add"(%i, %i) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %y = "stablehlo.multiply"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.return"(%j, %y) : (tensor<i32>, tensor<4xf32>) -> ()
  }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  "func.return"(%r#1) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// A callee's FLOPs are added at each call (its ops join the caller's rows);
// the callee gets its own table too.
// CHECK-LABEL: zkdv-cost-report @callee_twice
// CHECK-NEXT:    op count flops
// CHECK-NEXT:    func.call 2 0
// CHECK-NEXT:    func.return 3 0
// CHECK-NEXT:    stablehlo.add 2 16
// CHECK-NEXT:    total 7 16
// CHECK-LABEL: zkdv-cost-report @add_helper
// CHECK:         total 2 8
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "callee_twice"}> ({
  ^bb0(%x: tensor<8xf32>):
    %0 = "func.call"(%x) <{callee = @add_helper}> : (tensor<8xf32>) -> tensor<8xf32>
    %1 = "func.call"(%0) <{callee = @add_helper}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%1) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "add_helper", sym_visibility = "private"}> ({
  ^bb0(%x: tensor<8xf32>):
    %0 = "stablehlo.add"(%x, %x) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// An op without a FLOP model counts 0 (its regions too), shows `-` and is
// named in a note.
// CHECK-LABEL: zkdv-cost-report @unmodelled_sort
// CHECK:         stablehlo.sort 1 -
// CHECK-NEXT:    total 2 0
// CHECK-NEXT:    note: no FLOP model (counted as 0): stablehlo.sort
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "unmodelled_sort"}> ({
^bb0(%x: tensor<4xf32>):
  %0 = "stablehlo.sort"(%x) <{dimension = 0 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%lt) : (tensor<i1>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// Every branch of an if is counted (4 + 4), with a note.
// CHECK-LABEL: zkdv-cost-report @branches
// CHECK-NEXT:    op count flops
// CHECK-NEXT:    func.return 1 0
// CHECK-NEXT:    stablehlo.add 1 4
// CHECK-NEXT:    stablehlo.if 1 0
// CHECK-NEXT:    stablehlo.multiply 1 4
// CHECK-NEXT:    stablehlo.return 2 0
// CHECK-NEXT:    total 6 8
// CHECK-NEXT:    note: stablehlo.if at {{.*}}cost_report.mlir:[[@LINE+3]]:8: every branch counted
"func.func"() <{function_type = (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "branches"}> ({
^bb0(%p: tensor<i1>, %x: tensor<4xf32>):
  %0 = "stablehlo.if"(%p) ({
    %a = "stablehlo.add"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.return"(%a) : (tensor<4xf32>) -> ()
  }, {
    %m = "stablehlo.multiply"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.return"(%m) : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// A dynamic shape cannot be costed.
"func.func"() <{function_type = (tensor<?xf32>) -> tensor<?xf32>, sym_name = "dynamic_add"}> ({
^bb0(%x: tensor<?xf32>):
  // expected-error @+1 {{`stablehlo.add`: the result has the dynamic shape tensor<?xf32>; the cost report needs static shapes}}
  %0 = "stablehlo.add"(%x, %x) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  "func.return"(%0) : (tensor<?xf32>) -> ()
}) : () -> ()

// -----

// Neither can an unranked one.
"func.func"() <{function_type = (tensor<*xf32>) -> tensor<*xf32>, sym_name = "unranked_exp"}> ({
^bb0(%x: tensor<*xf32>):
  // expected-error @+1 {{`stablehlo.exponential`: the result has type tensor<*xf32>, not a ranked tensor; the cost report needs static shapes}}
  %0 = "stablehlo.exponential"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  "func.return"(%0) : (tensor<*xf32>) -> ()
}) : () -> ()

// -----

// Dimension numbers that do not fit the operands.
"func.func"() <{function_type = (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>, sym_name = "bad_dot"}> ({
^bb0(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>):
  // expected-error @+1 {{`stablehlo.dot_general`: lhs contracting dimension 2 is out of range for rank 2}}
  %0 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  "func.return"(%0) : (tensor<2x4xf32>) -> ()
}) : () -> ()

// -----

// Input features must equal kernel input features * feature_group_count.
"func.func"() <{function_type = (tensor<1x6x6x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x4x4x8xf32>, sym_name = "bad_groups"}> ({
^bb0(%x: tensor<1x6x6x4xf32>, %k: tensor<3x3x4x8xf32>):
  // expected-error @+1 {{`stablehlo.convolution`: input features (4) != kernel input features (4) * feature_group_count (2)}}
  %0 = "stablehlo.convolution"(%x, %k) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64}> : (tensor<1x6x6x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x4x4x8xf32>
  "func.return"(%0) : (tensor<1x4x4x8xf32>) -> ()
}) : () -> ()

// -----

// Recursion has no finite cost.
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "recursive"}> ({
^bb0(%x: tensor<f32>):
  // expected-error @+1 {{`func.call`: @recursive is called recursively; FLOPs are not defined}}
  %0 = "func.call"(%x) <{callee = @recursive}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()

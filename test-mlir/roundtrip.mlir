// RUN: zkdv-opt --split-input-file %s | FileCheck %s
// RUN: zkdv-opt --split-input-file - < %s | FileCheck %s
// RUN: zkdv-opt --split-input-file %s -o %t.out
// RUN: FileCheck %s < %t.out
// Printing is a fixpoint: the output parses back to the same text.
// RUN: zkdv-opt --split-input-file %s > %t.1
// RUN: zkdv-opt --split-input-file %t.1 > %t.2
// RUN: diff %t.1 %t.2
// With --mlir-print-debuginfo, ops carry their source locations.
// RUN: zkdv-opt --split-input-file --mlir-print-debuginfo %s | FileCheck %s --check-prefix=DBG
// DBG: "stablehlo.dot_general"{{.*}} loc(#[[DOTLOC:loc[0-9]+]])
// DBG: #[[DOTLOC]] = loc("{{.*}}roundtrip.mlir":{{[0-9]+}}:{{[0-9]+}})

// A dense layer and a sum in generic form, with properties, `#stablehlo.`
// attributes, a region and module attributes: printed back unchanged.
// CHECK-LABEL: "builtin.module"() <{sym_name = "jit_step"}> ({
// CHECK-NEXT:    "func.func"() <{function_type = (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<f32>, sym_name = "main", sym_visibility = "public"}> ({
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %[[DOT:.*]] = "stablehlo.dot_general"(%[[X]], %[[W]]) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:      %[[BB:.*]] = "stablehlo.broadcast_in_dim"(%[[B]]) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:      %[[Y:.*]] = "stablehlo.add"(%[[DOT]], %[[BB]]) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:      %[[ZERO:.*]] = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// CHECK-NEXT:      %[[SUM:.*]] = "stablehlo.reduce"(%[[Y]], %[[ZERO]]) <{dimensions = array<i64: 0, 1>}> ({
// CHECK-NEXT:      ^bb0(%[[A:.*]]: tensor<f32>, %[[C:.*]]: tensor<f32>):
// CHECK-NEXT:        %[[S:.*]] = "stablehlo.add"(%[[A]], %[[C]]) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:        "stablehlo.return"(%[[S]]) : (tensor<f32>) -> ()
// CHECK-NEXT:      }) : (tensor<2x4xf32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:      "func.return"(%[[SUM]]) : (tensor<f32>) -> ()
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:  }) {mhlo.num_partitions = 1 : i32} : () -> ()
"builtin.module"() <{sym_name = "jit_step"}> ({
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<f32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>):
    %0 = "stablehlo.dot_general"(%x, %w) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = "stablehlo.broadcast_in_dim"(%b) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> tensor<2x4xf32>
    %2 = "stablehlo.add"(%0, %1) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %3 = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %4 = "stablehlo.reduce"(%2, %3) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%lhs: tensor<f32>, %rhs: tensor<f32>):
      %5 = "stablehlo.add"(%lhs, %rhs) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%5) : (tensor<f32>) -> ()
    }) : (tensor<2x4xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%4) : (tensor<f32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32} : () -> ()

// -----

// Several top-level ops without a module are wrapped into one, as mlir-opt
// does; the `!stablehlo.token` type round-trips as well.
// CHECK:       // -----
// CHECK-NEXT:  "builtin.module"() ({
// CHECK-NEXT:    "func.func"() <{function_type = (!stablehlo.token) -> !stablehlo.token, sym_name = "first"}> ({
// CHECK:         "func.func"() <{function_type = () -> (), sym_name = "second"}> ({
// CHECK:       }) : () -> ()
"func.func"() <{function_type = (!stablehlo.token) -> !stablehlo.token, sym_name = "first"}> ({
^bb0(%t: !stablehlo.token):
  "func.return"(%t) : (!stablehlo.token) -> ()
}) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "second"}> ({
  "func.return"() : () -> ()
}) : () -> ()

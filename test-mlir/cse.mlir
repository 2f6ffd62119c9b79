// RUN: zkdv-opt --split-input-file --zkdv-cse %s | FileCheck %s
// The output is a fixpoint of the pass and parses back.
// RUN: zkdv-opt --split-input-file --zkdv-cse %s > %t.1
// RUN: zkdv-opt --split-input-file --zkdv-cse %t.1 > %t.2
// RUN: diff %t.1 %t.2

// Identical pure ops with the same operands are merged; uses move to the
// first one. Merging is transitive: once the adds are merged, the two
// multiplies have the same operands and are merged too.
// CHECK-LABEL: sym_name = "merge_chain"
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<f32>, %[[Y:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[S:.*]] = "stablehlo.add"(%[[X]], %[[Y]])
// CHECK-NEXT:      %[[M:.*]] = "stablehlo.multiply"(%[[S]], %[[X]])
// CHECK-NEXT:      "func.return"(%[[M]], %[[M]])
// CHECK-NEXT:    }) : () -> ()
"func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>), sym_name = "merge_chain"}> ({
^bb0(%x: tensor<f32>, %y: tensor<f32>):
  %0 = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %2 = "stablehlo.multiply"(%0, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %3 = "stablehlo.multiply"(%1, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  "func.return"(%2, %3) : (tensor<f32>, tensor<f32>) -> ()
}) : () -> ()

// -----

// Equal constants are merged (bf16, rank-0, size-1); a constant with another
// value or type is not.
// CHECK-LABEL: sym_name = "constants"
// CHECK-NEXT:      %[[BF:.*]] = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<2xbf16>}>
// CHECK-NEXT:      %[[I3:.*]] = "stablehlo.constant"() <{value = dense<3> : tensor<i64>}>
// CHECK-NEXT:      %[[F5:.*]] = "stablehlo.constant"() <{value = dense<5.000000e+00> : tensor<1xf32>}>
// CHECK-NEXT:      %[[I4:.*]] = "stablehlo.constant"() <{value = dense<4> : tensor<i64>}>
// CHECK-NEXT:      %[[J3:.*]] = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}>
// CHECK-NEXT:      "func.return"(%[[BF]], %[[BF]], %[[I3]], %[[I3]], %[[F5]], %[[F5]], %[[I4]], %[[J3]])
"func.func"() <{function_type = () -> (tensor<2xbf16>, tensor<2xbf16>, tensor<i64>, tensor<i64>, tensor<1xf32>, tensor<1xf32>, tensor<i64>, tensor<i32>), sym_name = "constants"}> ({
  %0 = "stablehlo.constant"() <{value = dense<1.0> : tensor<2xbf16>}> : () -> tensor<2xbf16>
  %1 = "stablehlo.constant"() <{value = dense<1.0> : tensor<2xbf16>}> : () -> tensor<2xbf16>
  %2 = "stablehlo.constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %3 = "stablehlo.constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %4 = "stablehlo.constant"() <{value = dense<5.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %5 = "stablehlo.constant"() <{value = dense<5.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %6 = "stablehlo.constant"() <{value = dense<4> : tensor<i64>}> : () -> tensor<i64>
  %7 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
  "func.return"(%0, %1, %2, %3, %4, %5, %6, %7) : (tensor<2xbf16>, tensor<2xbf16>, tensor<i64>, tensor<i64>, tensor<1xf32>, tensor<1xf32>, tensor<i64>, tensor<i32>) -> ()
}) : () -> ()

// -----

// Not merged: other operand order, other properties (comparison direction),
// other discardable attributes, other result type.
// CHECK-LABEL: sym_name = "not_equal"
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<f32>, %[[Y:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[R0:.*]] = "stablehlo.subtract"(%[[X]], %[[Y]])
// CHECK-NEXT:      %[[R1:.*]] = "stablehlo.subtract"(%[[Y]], %[[X]])
// CHECK-NEXT:      %[[R2:.*]] = "stablehlo.compare"({{.*}}comparison_direction LT
// CHECK-NEXT:      %[[R3:.*]] = "stablehlo.compare"({{.*}}comparison_direction GT
// CHECK-NEXT:      %[[R4:.*]] = "stablehlo.negate"(%[[X]]) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:      %[[R5:.*]] = "stablehlo.negate"(%[[X]]) {mhlo.sharding = "{replicated}"}
// CHECK-NEXT:      %[[R6:.*]] = "stablehlo.convert"(%[[X]]) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:      %[[R7:.*]] = "stablehlo.convert"(%[[X]]) : (tensor<f32>) -> tensor<bf16>
// CHECK-NEXT:      "func.return"(%[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]], %[[R6]], %[[R7]])
"func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<i1>, tensor<i1>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<bf16>), sym_name = "not_equal"}> ({
^bb0(%x: tensor<f32>, %y: tensor<f32>):
  %0 = "stablehlo.subtract"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.subtract"(%y, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %2 = "stablehlo.compare"(%x, %y) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %3 = "stablehlo.compare"(%x, %y) <{comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %4 = "stablehlo.negate"(%x) : (tensor<f32>) -> tensor<f32>
  %5 = "stablehlo.negate"(%x) {mhlo.sharding = "{replicated}"} : (tensor<f32>) -> tensor<f32>
  %6 = "stablehlo.convert"(%x) : (tensor<f32>) -> tensor<f32>
  %7 = "stablehlo.convert"(%x) : (tensor<f32>) -> tensor<bf16>
  "func.return"(%0, %1, %2, %3, %4, %5, %6, %7) : (tensor<f32>, tensor<f32>, tensor<i1>, tensor<i1>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<bf16>) -> ()
}) : () -> ()

// -----

// Impure ops are never merged: implicit randomness, an unknown custom_call,
// an optimization_barrier, an op of another dialect.
// CHECK-LABEL: sym_name = "impure"
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      %[[R0:.*]] = "stablehlo.rng"
// CHECK-NEXT:      %[[R1:.*]] = "stablehlo.rng"
// CHECK-NEXT:      %[[R2:.*]] = "stablehlo.custom_call"
// CHECK-NEXT:      %[[R3:.*]] = "stablehlo.custom_call"
// CHECK-NEXT:      %[[R4:.*]] = "stablehlo.optimization_barrier"
// CHECK-NEXT:      %[[R5:.*]] = "stablehlo.optimization_barrier"
// CHECK-NEXT:      %[[R6:.*]] = "other.op"
// CHECK-NEXT:      %[[R7:.*]] = "other.op"
// CHECK-NEXT:      "func.return"(%[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]], %[[R6]], %[[R7]])
"func.func"() <{function_type = (tensor<f32>, tensor<0xi64>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>), sym_name = "impure"}> ({
^bb0(%x: tensor<f32>, %shape: tensor<0xi64>):
  %0 = "stablehlo.rng"(%x, %x, %shape) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>, tensor<0xi64>) -> tensor<f32>
  %1 = "stablehlo.rng"(%x, %x, %shape) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>, tensor<0xi64>) -> tensor<f32>
  %2 = "stablehlo.custom_call"(%x) <{call_target_name = "foo"}> : (tensor<f32>) -> tensor<f32>
  %3 = "stablehlo.custom_call"(%x) <{call_target_name = "foo"}> : (tensor<f32>) -> tensor<f32>
  %4 = "stablehlo.optimization_barrier"(%x) : (tensor<f32>) -> tensor<f32>
  %5 = "stablehlo.optimization_barrier"(%x) : (tensor<f32>) -> tensor<f32>
  %6 = "other.op"(%x) : (tensor<f32>) -> tensor<f32>
  %7 = "other.op"(%x) : (tensor<f32>) -> tensor<f32>
  "func.return"(%0, %1, %2, %3, %4, %5, %6, %7) : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> ()
}) : () -> ()

// -----

// Several results: both results of the later op are replaced.
// CHECK-LABEL: sym_name = "multi_result"
// CHECK-NEXT:    ^bb0(%[[KEY:.*]]: tensor<2xui64>):
// CHECK-NEXT:      %[[R:.*]]:2 = "stablehlo.rng_bit_generator"(%[[KEY]])
// CHECK-NEXT:      %[[S:.*]] = "stablehlo.add"(%[[R]]#1, %[[R]]#1)
// CHECK-NEXT:      "func.return"(%[[R]]#0, %[[S]])
"func.func"() <{function_type = (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>), sym_name = "multi_result"}> ({
^bb0(%key: tensor<2xui64>):
  %0:2 = "stablehlo.rng_bit_generator"(%key) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %1:2 = "stablehlo.rng_bit_generator"(%key) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %2 = "stablehlo.add"(%0#1, %1#1) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  "func.return"(%1#0, %2) : (tensor<2xui64>, tensor<4xui32>) -> ()
}) : () -> ()

// -----

// Nothing is merged across regions (the while body's constant stays), but
// duplicates inside one region are merged; ops with regions (the two equal
// reduces) are never merged.
// CHECK-LABEL: sym_name = "regions"
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %[[ZERO:.*]] = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK-NEXT:      %[[R0:.*]] = "stablehlo.reduce"(%[[X]], %[[ZERO]])
// CHECK:           %[[R1:.*]] = "stablehlo.reduce"(%[[X]], %[[ZERO]])
// CHECK:           }, {
// CHECK-NEXT:      ^bb0(%[[V:.*]]: tensor<4xf32>):
// CHECK-NEXT:        "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK-NEXT:        %[[E:.*]] = "stablehlo.exponential"(%[[V]])
// CHECK-NEXT:        %[[M:.*]] = "stablehlo.multiply"(%[[E]], %[[E]])
// CHECK-NEXT:        "stablehlo.return"(%[[M]])
// CHECK-NEXT:      }) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      "func.return"(%[[R0]], %[[R1]], %{{.*}})
"func.func"() <{function_type = (tensor<4xf32>) -> (tensor<f32>, tensor<f32>, tensor<4xf32>), sym_name = "regions"}> ({
^bb0(%x: tensor<4xf32>):
  %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %0 = "stablehlo.reduce"(%x, %zero) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.reduce"(%x, %zero) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %2 = "stablehlo.while"(%x) ({
  ^bb0(%c: tensor<4xf32>):
    %t = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "stablehlo.return"(%t) : (tensor<i1>) -> ()
  }, {
  ^bb0(%v: tensor<4xf32>):
    %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %e1 = "stablehlo.exponential"(%v) : (tensor<4xf32>) -> tensor<4xf32>
    %e2 = "stablehlo.exponential"(%v) : (tensor<4xf32>) -> tensor<4xf32>
    %m = "stablehlo.multiply"(%e1, %e2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.return"(%m) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0, %1, %2) : (tensor<f32>, tensor<f32>, tensor<4xf32>) -> ()
}) : () -> ()

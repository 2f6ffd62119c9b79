// RUN: zkdv-opt --split-input-file --zkdv-dce %s | FileCheck %s
// The output is a fixpoint of the pass and parses back.
// RUN: zkdv-opt --split-input-file --zkdv-dce %s > %t.1
// RUN: zkdv-opt --split-input-file --zkdv-dce %t.1 > %t.2
// RUN: diff %t.1 %t.2

// An unused chain is erased entirely: erasing the multiply re-queues the
// add, which has then lost its last use.
// CHECK-LABEL: sym_name = "dead_chain"
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[N:.*]] = "stablehlo.negate"(%[[X]]) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:      "func.return"(%[[N]]) : (tensor<f32>) -> ()
// CHECK-NEXT:    }) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "dead_chain"}> ({
^bb0(%x: tensor<f32>):
  %0 = "stablehlo.add"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.multiply"(%0, %0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %2 = "stablehlo.negate"(%x) : (tensor<f32>) -> tensor<f32>
  "func.return"(%2) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// Unused constants of every shape go: bf16, rank-0, size-1.
// CHECK-LABEL: sym_name = "dead_constants"
// CHECK-NEXT:      "func.return"() : () -> ()
// CHECK-NEXT:    }) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "dead_constants"}> ({
  %0 = "stablehlo.constant"() <{value = dense<1.0> : tensor<2xbf16>}> : () -> tensor<2xbf16>
  %1 = "stablehlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %2 = "stablehlo.constant"() <{value = dense<1.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Impure ops are kept even when unused: implicit randomness, an unknown
// custom_call, an optimization_barrier, a call, and an op of another dialect.
// An allowlisted pure custom_call (Sharding) is erased.
// CHECK-LABEL: sym_name = "impure_kept"
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[SHAPE:.*]] = "stablehlo.constant"() <{value = dense<> : tensor<0xi64>}>
// CHECK-NEXT:      "stablehlo.rng"(%[[X]], %[[X]], %[[SHAPE]])
// CHECK-NEXT:      "stablehlo.custom_call"(%[[X]]) <{call_target_name = "foo"}>
// CHECK-NEXT:      "stablehlo.optimization_barrier"(%[[X]])
// CHECK-NEXT:      "func.call"(%[[X]]) <{callee = @id}>
// CHECK-NEXT:      "other.op"(%[[X]])
// CHECK-NEXT:      "func.return"() : () -> ()
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:    sym_name = "id"
"func.func"() <{function_type = (tensor<f32>) -> (), sym_name = "impure_kept"}> ({
^bb0(%x: tensor<f32>):
  %shape = "stablehlo.constant"() <{value = dense<> : tensor<0xi64>}> : () -> tensor<0xi64>
  %0 = "stablehlo.rng"(%x, %x, %shape) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>, tensor<0xi64>) -> tensor<f32>
  %1 = "stablehlo.custom_call"(%x) <{call_target_name = "foo"}> : (tensor<f32>) -> tensor<f32>
  %2 = "stablehlo.custom_call"(%x) <{call_target_name = "Sharding"}> : (tensor<f32>) -> tensor<f32>
  %3 = "stablehlo.optimization_barrier"(%x) : (tensor<f32>) -> tensor<f32>
  %4 = "func.call"(%x) <{callee = @id}> : (tensor<f32>) -> tensor<f32>
  %5 = "other.op"(%x) : (tensor<f32>) -> tensor<f32>
  "func.return"() : () -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "id", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  "func.return"(%a) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// Several results: an op stays while any result is used, and goes when none
// is (rng_bit_generator is a pure function of its state).
// CHECK-LABEL: sym_name = "multi_result"
// CHECK-NEXT:    ^bb0(%[[KEY:.*]]: tensor<2xui64>):
// CHECK-NEXT:      %[[R:.*]]:2 = "stablehlo.rng_bit_generator"(%[[KEY]])
// CHECK-NEXT:      "func.return"(%[[R]]#1) : (tensor<4xui32>) -> ()
// CHECK-NEXT:    }) : () -> ()
"func.func"() <{function_type = (tensor<2xui64>) -> tensor<4xui32>, sym_name = "multi_result"}> ({
^bb0(%key: tensor<2xui64>):
  %0:2 = "stablehlo.rng_bit_generator"(%key) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %1:2 = "stablehlo.rng_bit_generator"(%0#0) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  "func.return"(%0#1) : (tensor<4xui32>) -> ()
}) : () -> ()

// -----

// An unused while loop with a pure body is erased, with its whole region and
// the constant only its condition used; one with an outfeed in its body is
// kept.
// CHECK-LABEL: sym_name = "dead_while"
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<i32>):
// CHECK-NEXT:      "stablehlo.while"(%[[X]]) ({
// CHECK-NEXT:      ^bb0(%[[C:.*]]: tensor<i32>):
// CHECK-NEXT:        "stablehlo.compare"(%[[C]], %[[C]])
// CHECK:             "stablehlo.outfeed"
// CHECK:           }) : (tensor<i32>) -> tensor<i32>
// CHECK-NEXT:      "func.return"() : () -> ()
"func.func"() <{function_type = (tensor<i32>) -> (), sym_name = "dead_while"}> ({
^bb0(%x: tensor<i32>):
  %lim = "stablehlo.constant"() <{value = dense<10> : tensor<i32>}> : () -> tensor<i32>
  %0 = "stablehlo.while"(%x) ({
  ^bb0(%c: tensor<i32>):
    %p = "stablehlo.compare"(%c, %lim) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<i32>):
    %n = "stablehlo.add"(%b, %b) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%n) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  %1 = "stablehlo.while"(%x) ({
  ^bb0(%c: tensor<i32>):
    %p = "stablehlo.compare"(%c, %c) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<i32>):
    %t = "stablehlo.create_token"() : () -> !stablehlo.token
    %o = "stablehlo.outfeed"(%b, %t) <{outfeed_config = ""}> : (tensor<i32>, !stablehlo.token) -> !stablehlo.token
    "stablehlo.return"(%b) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Dead ops inside regions (a while body, a reduce body) are erased; the
// regions' terminators and the used ops stay.
// CHECK-LABEL: sym_name = "dead_in_regions"
// CHECK:           "stablehlo.reduce"
// CHECK-NEXT:      ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
// CHECK-NEXT:        %[[S:.*]] = "stablehlo.add"(%[[A]], %[[B]])
// CHECK-NEXT:        "stablehlo.return"(%[[S]]) : (tensor<f32>) -> ()
// CHECK:           "stablehlo.while"
// CHECK:           }, {
// CHECK-NEXT:      ^bb0(%[[W:.*]]: tensor<f32>):
// CHECK-NEXT:        %[[N:.*]] = "stablehlo.negate"(%[[W]])
// CHECK-NEXT:        "stablehlo.return"(%[[N]]) : (tensor<f32>) -> ()
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<f32>, sym_name = "dead_in_regions"}> ({
^bb0(%x: tensor<4xf32>):
  %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %0 = "stablehlo.reduce"(%x, %zero) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %unused = "stablehlo.multiply"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.while"(%0) ({
  ^bb0(%c: tensor<f32>):
    %p = "stablehlo.compare"(%c, %zero) <{comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<f32>):
    %unused = "stablehlo.exponential"(%b) : (tensor<f32>) -> tensor<f32>
    %n = "stablehlo.negate"(%b) : (tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%n) : (tensor<f32>) -> ()
  }) : (tensor<f32>) -> tensor<f32>
  "func.return"(%1) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// DCE is local to op results: an unused private function is not erased
// (that is --zkdv-inline's job), but dead code inside it is.
// CHECK-LABEL: sym_name = "unused_helper", sym_visibility = "private"
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<f32>):
// CHECK-NEXT:      "func.return"(%[[A]]) : (tensor<f32>) -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "unused_helper", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  %0 = "stablehlo.sqrt"(%a) : (tensor<f32>) -> tensor<f32>
  "func.return"(%a) : (tensor<f32>) -> ()
}) : () -> ()

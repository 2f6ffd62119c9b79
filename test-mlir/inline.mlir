// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-inline %s | FileCheck %s
//
// The last three cases are errors, each checked at the call and, by its
// note, at the callee (expected-error, expected-note); the other cases are
// still printed.

// A call to a private function is replaced by its body (scalar f32), and the
// function, now unreferenced, is erased.
// CHECK-LABEL: sym_name = "simple"
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[C:.*]] = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// CHECK-NEXT:      %[[S:.*]] = "stablehlo.add"(%[[X]], %[[C]]) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:      "func.return"(%[[S]]) : (tensor<f32>) -> ()
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:  }) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "simple"}> ({
^bb0(%x: tensor<f32>):
  %0 = "func.call"(%x) <{callee = @add_one}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "add_one", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  %c = "stablehlo.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %0 = "stablehlo.add"(%a, %c) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// Transitive: @outer's body holds two calls to @inner (bf16); every call is
// inlined and both helpers are erased.
// CHECK-LABEL: sym_name = "transitive"
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<2xbf16>):
// CHECK-NEXT:      %[[N1:.*]] = "stablehlo.negate"(%[[X]]) : (tensor<2xbf16>) -> tensor<2xbf16>
// CHECK-NEXT:      %[[N2:.*]] = "stablehlo.negate"(%[[N1]]) : (tensor<2xbf16>) -> tensor<2xbf16>
// CHECK-NEXT:      "func.return"(%[[N2]]) : (tensor<2xbf16>) -> ()
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:  }) : () -> ()
"func.func"() <{function_type = (tensor<2xbf16>) -> tensor<2xbf16>, sym_name = "transitive"}> ({
^bb0(%x: tensor<2xbf16>):
  %0 = "func.call"(%x) <{callee = @outer}> : (tensor<2xbf16>) -> tensor<2xbf16>
  "func.return"(%0) : (tensor<2xbf16>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<2xbf16>) -> tensor<2xbf16>, sym_name = "outer", sym_visibility = "private"}> ({
^bb0(%a: tensor<2xbf16>):
  %0 = "func.call"(%a) <{callee = @inner}> : (tensor<2xbf16>) -> tensor<2xbf16>
  %1 = "func.call"(%0) <{callee = @inner}> : (tensor<2xbf16>) -> tensor<2xbf16>
  "func.return"(%1) : (tensor<2xbf16>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<2xbf16>) -> tensor<2xbf16>, sym_name = "inner", sym_visibility = "private"}> ({
^bb0(%a: tensor<2xbf16>):
  %0 = "stablehlo.negate"(%a) : (tensor<2xbf16>) -> tensor<2xbf16>
  "func.return"(%0) : (tensor<2xbf16>) -> ()
}) : () -> ()

// -----

// Several results and size-1 tensors: each call result is replaced by the
// matching returned value, including a callee argument returned unchanged.
// CHECK-LABEL: sym_name = "multi_result"
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<1xf32>, %[[N:.*]]: tensor<1xi32>):
// CHECK-NEXT:      %[[A:.*]] = "stablehlo.abs"(%[[X]]) : (tensor<1xf32>) -> tensor<1xf32>
// CHECK-NEXT:      "func.return"(%[[N]], %[[A]]) : (tensor<1xi32>, tensor<1xf32>) -> ()
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:  }) : () -> ()
"func.func"() <{function_type = (tensor<1xf32>, tensor<1xi32>) -> (tensor<1xi32>, tensor<1xf32>), sym_name = "multi_result"}> ({
^bb0(%x: tensor<1xf32>, %n: tensor<1xi32>):
  %0:2 = "func.call"(%x, %n) <{callee = @swap_abs}> : (tensor<1xf32>, tensor<1xi32>) -> (tensor<1xi32>, tensor<1xf32>)
  "func.return"(%0#0, %0#1) : (tensor<1xi32>, tensor<1xf32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<1xf32>, tensor<1xi32>) -> (tensor<1xi32>, tensor<1xf32>), sym_name = "swap_abs", sym_visibility = "private"}> ({
^bb0(%a: tensor<1xf32>, %b: tensor<1xi32>):
  %0 = "stablehlo.abs"(%a) : (tensor<1xf32>) -> tensor<1xf32>
  "func.return"(%b, %0) : (tensor<1xi32>, tensor<1xf32>) -> ()
}) : () -> ()

// -----

// A call inside a while body is inlined in place, inside the region.
// CHECK-LABEL: sym_name = "call_in_while"
// CHECK:           "stablehlo.return"(%{{.*}}) : (tensor<i1>) -> ()
// CHECK-NEXT:    }, {
// CHECK-NEXT:    ^bb0(%[[B:.*]]: tensor<i32>):
// CHECK-NEXT:      %[[ONE:.*]] = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
// CHECK-NEXT:      %[[NEXT:.*]] = "stablehlo.add"(%[[B]], %[[ONE]]) : (tensor<i32>, tensor<i32>) -> tensor<i32>
// CHECK-NEXT:      "stablehlo.return"(%[[NEXT]]) : (tensor<i32>) -> ()
// CHECK-NEXT:    }) : (tensor<i32>) -> tensor<i32>
// CHECK-NOT:     sym_name = "step"
"func.func"() <{function_type = (tensor<i32>) -> tensor<i32>, sym_name = "call_in_while"}> ({
^bb0(%x: tensor<i32>):
  %0 = "stablehlo.while"(%x) ({
  ^bb0(%c: tensor<i32>):
    %lim = "stablehlo.constant"() <{value = dense<10> : tensor<i32>}> : () -> tensor<i32>
    %p = "stablehlo.compare"(%c, %lim) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<i32>):
    %n = "func.call"(%b) <{callee = @step}> : (tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%n) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  "func.return"(%0) : (tensor<i32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<i32>) -> tensor<i32>, sym_name = "step", sym_visibility = "private"}> ({
^bb0(%a: tensor<i32>):
  %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %0 = "stablehlo.add"(%a, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  "func.return"(%0) : (tensor<i32>) -> ()
}) : () -> ()

// -----

// Calls to a public function and to a private declaration (no body) are kept,
// and so are both callees.
// CHECK-LABEL: sym_name = "kept_calls"
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[P:.*]] = "func.call"(%[[X]]) <{callee = @public_helper}>
// CHECK-NEXT:      %[[E:.*]] = "func.call"(%[[P]]) <{callee = @external}>
// CHECK-NEXT:      "func.return"(%[[E]])
// CHECK:         sym_name = "public_helper"
// CHECK:         sym_name = "external", sym_visibility = "private"
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "kept_calls"}> ({
^bb0(%x: tensor<f32>):
  %0 = "func.call"(%x) <{callee = @public_helper}> : (tensor<f32>) -> tensor<f32>
  %1 = "func.call"(%0) <{callee = @external}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%1) : (tensor<f32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "public_helper"}> ({
^bb0(%a: tensor<f32>):
  "func.return"(%a) : (tensor<f32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "external", sym_visibility = "private"}> ({
}) : () -> ()

// -----

// Unreferenced private functions and declarations are erased even if never
// called; public functions stay; a private function named by a non-call
// symbol reference (called_computations) stays.
// CHECK-LABEL: sym_name = "cleanup"
// CHECK-NOT:     sym_name = "dead
// CHECK:         sym_name = "referenced", sym_visibility = "private"
// CHECK-NOT:     sym_name = "dead
// CHECK:         sym_name = "unused_public"
// CHECK-NEXT:      "func.return"() : () -> ()
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:  }) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "cleanup"}> ({
^bb0(%x: tensor<f32>):
  %0 = "stablehlo.custom_call"(%x) <{call_target_name = "foo", called_computations = [@referenced]}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "dead", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  %0 = "func.call"(%a) <{callee = @dead_callee}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "dead_callee", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  "func.return"(%a) : (tensor<f32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "dead_declaration", sym_visibility = "private"}> ({
}) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "referenced", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  "func.return"(%a) : (tensor<f32>) -> ()
}) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "unused_public"}> ({
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A callee without arguments or results (rank-0 constant inside) called from
// two functions is inlined into both.
// CHECK-LABEL: sym_name = "two_callers_a"
// CHECK-NEXT:      %[[A:.*]] = "stablehlo.constant"() <{value = dense<7> : tensor<i64>}> : () -> tensor<i64>
// CHECK-NEXT:      "func.return"(%[[A]]) : (tensor<i64>) -> ()
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:    sym_name = "two_callers_b"
// CHECK-NEXT:      %[[B:.*]] = "stablehlo.constant"() <{value = dense<7> : tensor<i64>}> : () -> tensor<i64>
// CHECK-NEXT:      "func.return"(%[[B]]) : (tensor<i64>) -> ()
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:  }) : () -> ()
"func.func"() <{function_type = () -> tensor<i64>, sym_name = "two_callers_a"}> ({
  %0 = "func.call"() <{callee = @seven}> : () -> tensor<i64>
  "func.return"(%0) : (tensor<i64>) -> ()
}) : () -> ()
"func.func"() <{function_type = () -> tensor<i64>, sym_name = "two_callers_b"}> ({
  %0 = "func.call"() <{callee = @seven}> : () -> tensor<i64>
  "func.return"(%0) : (tensor<i64>) -> ()
}) : () -> ()
"func.func"() <{function_type = () -> tensor<i64>, sym_name = "seven", sym_visibility = "private"}> ({
  %0 = "stablehlo.constant"() <{value = dense<7> : tensor<i64>}> : () -> tensor<i64>
  "func.return"(%0) : (tensor<i64>) -> ()
}) : () -> ()

// -----

// Self-recursion through a private function is an error.
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "self_recursive_caller"}> ({
^bb0(%x: tensor<f32>):
  %0 = "func.call"(%x) <{callee = @loop}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()
// expected-note @+1 {{@loop is defined here}}
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "loop", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  // expected-error @+1 {{cannot inline the recursive call to private function @loop (call cycle @loop -> @loop); rewrite the recursion as a loop}}
  %0 = "func.call"(%a) <{callee = @loop}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// Mutual recursion (@ping -> @pong -> @ping) is an error too.
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "mutual_caller"}> ({
^bb0(%x: tensor<f32>):
  %0 = "func.call"(%x) <{callee = @ping}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()
// expected-note @+1 {{@ping is defined here}}
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "ping", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  %0 = "func.call"(%a) <{callee = @pong}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "pong", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  // expected-error @+1 {{cannot inline the recursive call to private function @ping (call cycle @ping -> @pong -> @ping)}}
  %0 = "func.call"(%a) <{callee = @ping}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// A callee with more than one block cannot be inlined.
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "multi_block_caller"}> ({
^bb0(%x: tensor<f32>):
  // expected-error @+1 {{cannot inline @branchy: its body has more than one block}}
  %0 = "func.call"(%x) <{callee = @branchy}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()
// expected-note @+1 {{@branchy is defined here}}
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "branchy", sym_visibility = "private"}> ({
^bb0(%a: tensor<f32>):
  "cf.br"(%a)[^bb1] : (tensor<f32>) -> ()
^bb1(%b: tensor<f32>):
  "func.return"(%b) : (tensor<f32>) -> ()
}) : () -> ()

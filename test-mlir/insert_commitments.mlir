// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-insert-commitments=ratio=0.5 %s | FileCheck %s
// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-insert-commitments %s | FileCheck %s --check-prefix=DEF
// RUN: not zkdv-opt --zkdv-insert-commitments=ratio=0 %s 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not zkdv-opt --zkdv-insert-commitments=seed=3 %s 2>&1 | FileCheck %s --check-prefix=OPT2
// RUN: not zkdv-opt --split-input-file --zkdv-insert-commitments="ratio=0.5 drop-deltas" %s 2>&1 | FileCheck %s --check-prefix=DROP
// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-insert-commitments="ratio=0.5 join" %s | FileCheck %s --check-prefix=JOIN

// Each chunk is one module; chunks that break a precondition fail with the
// diagnostic their `expected-error` comment names (--verify-diagnostics)
// while the others are printed. The drop-deltas run fails one more chunk, so
// it checks its stderr with FileCheck (DROP) instead.
// OPT: zkdv-opt: error: --zkdv-insert-commitments: `ratio=0` is not valid: ratio takes a number in (0, 1]
// OPT2: zkdv-opt: error: --zkdv-insert-commitments: unknown option `seed=3` (expected `func=TEXT`, `ratio=R`, `drop-deltas` or `join`)

// An f32 matrix delta: d = 6, k = 3 (ratio 0.5), three blocks of 2. One
// probe_weight argument and one sketch result are appended; the sketch
// multiplies by the broadcast weights, reshapes into blocks and sums them.
// CHECK-LABEL: "func.func"() <{arg_attrs = [{zkdv.path = "w", zkdv.role = "param"}, {zkdv.path = "w", zkdv.role = "probe_weight"}], function_type = (tensor<2x6xf32>, tensor<6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x3xf32>), res_attrs = [{zkdv.path = "w", zkdv.role = "post_param"}, {zkdv.path = "w", zkdv.role = "delta"}, {zkdv.path = "w", zkdv.role = "sketch"}], sym_name = "main"}>
// CHECK-NEXT:  ^bb0(%[[W:.*]]: tensor<2x6xf32>, %[[WT:.*]]: tensor<6xf32>):
// CHECK-NEXT:    %[[D:.*]] = "stablehlo.negate"(%[[W]])
// CHECK-NEXT:    %[[P:.*]] = "stablehlo.add"
// CHECK-NEXT:    %[[B:.*]] = "stablehlo.broadcast_in_dim"(%[[WT]]) {broadcast_dimensions = array<i64: 1>} : (tensor<6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT:    %[[M:.*]] = "stablehlo.multiply"(%[[D]], %[[B]]) : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT:    %[[C:.*]] = "stablehlo.reshape"(%[[M]]) : (tensor<2x6xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    %[[I:.*]] = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>}
// CHECK-NEXT:    %[[S:.*]] = "stablehlo.reduce"(%[[C]], %[[I]]) ({
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<f32>, %[[Y:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[XY:.*]] = "stablehlo.add"(%[[X]], %[[Y]])
// CHECK-NEXT:      "stablehlo.return"(%[[XY]])
// CHECK-NEXT:    }) {dimensions = array<i64: 2>} : (tensor<2x3x2xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    "func.return"(%[[P]], %[[D]], %[[S]]) : (tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x3xf32>) -> ()
// With drop-deltas the delta is sketched, then removed from the results.
// DROP-LABEL: function_type = (tensor<2x6xf32>, tensor<6xf32>) -> (tensor<2x6xf32>, tensor<2x3xf32>), res_attrs = [{zkdv.path = "w", zkdv.role = "post_param"}, {zkdv.path = "w", zkdv.role = "sketch"}]
// DROP:    "func.return"(%{{.*}}, %{{.*}}) : (tensor<2x6xf32>, tensor<2x3xf32>) -> ()
// With join, the one sketch is flattened into the one sketch result.
// JOIN-LABEL: function_type = (tensor<2x6xf32>, tensor<6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>, tensor<6xf32>), res_attrs = [{zkdv.path = "w", zkdv.role = "post_param"}, {zkdv.path = "w", zkdv.role = "delta"}, {zkdv.path = "w", zkdv.role = "sketch"}]
// JOIN:         }) {dimensions = array<i64: 2>} : (tensor<2x3x2xf32>, tensor<f32>) -> tensor<2x3xf32>
// JOIN-NEXT:    %[[J:.*]] = "stablehlo.reshape"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<6xf32>
// JOIN-NOT:     "stablehlo.concatenate"
// JOIN:         "func.return"(%{{.*}}, %{{.*}}, %[[J]]) : (tensor<2x6xf32>, tensor<2x6xf32>, tensor<6xf32>) -> ()
// With the default ratio 0.01, k = 1: one block of 6.
// DEF-LABEL: function_type = (tensor<2x6xf32>, tensor<6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x1xf32>)
// DEF:         }) {dimensions = array<i64: 2>} : (tensor<2x1x6xf32>, tensor<f32>) -> tensor<2x1xf32>
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{zkdv.path = "w", zkdv.role = "param"}], function_type = (tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>), res_attrs = [{zkdv.path = "w", zkdv.role = "post_param"}, {zkdv.path = "w", zkdv.role = "delta"}], sym_name = "main"}> ({
  ^bb0(%w: tensor<2x6xf32>):
    %d = "stablehlo.negate"(%w) : (tensor<2x6xf32>) -> tensor<2x6xf32>
    %p = "stablehlo.add"(%w, %d) : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
    "func.return"(%p, %d) : (tensor<2x6xf32>, tensor<2x6xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Unequal blocks: d = 7, k = 4 (ratio 0.5) gives three long blocks of 2 and
// one short block of 1; each run is sliced, reshaped and summed, and the two
// partial sketches are concatenated in column order.
// CHECK-LABEL: function_type = (tensor<2x7xf32>, tensor<7xf32>) -> (tensor<2x7xf32>, tensor<2x4xf32>)
// CHECK:         %[[M:.*]] = "stablehlo.multiply"
// CHECK-NEXT:    %[[L:.*]] = "stablehlo.slice"(%[[M]]) {limit_indices = array<i64: 2, 6>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x7xf32>) -> tensor<2x6xf32>
// CHECK-NEXT:    "stablehlo.reshape"(%[[L]]) : (tensor<2x6xf32>) -> tensor<2x3x2xf32>
// CHECK:         %[[LS:.*]] = "stablehlo.reduce"
// CHECK:         }) {dimensions = array<i64: 2>} : (tensor<2x3x2xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = "stablehlo.slice"(%[[M]]) {limit_indices = array<i64: 2, 7>, start_indices = array<i64: 0, 6>, strides = array<i64: 1, 1>} : (tensor<2x7xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    "stablehlo.reshape"(%[[T]]) : (tensor<2x1xf32>) -> tensor<2x1x1xf32>
// CHECK:         %[[TS:.*]] = "stablehlo.reduce"
// CHECK:         "stablehlo.concatenate"(%[[LS]], %[[TS]]) {dimension = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{zkdv.path = "w", zkdv.role = "param"}], function_type = (tensor<2x7xf32>) -> tensor<2x7xf32>, res_attrs = [{zkdv.path = "w", zkdv.role = "delta"}], sym_name = "main"}> ({
  ^bb0(%w: tensor<2x7xf32>):
    "func.return"(%w) : (tensor<2x7xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A bf16 rank-3 delta: leading dims flatten to rows (reshape to 6x4) and the
// values convert to f32 (exact) before the f32 weights multiply them; d = 4,
// k = 2, two blocks of 2.
// CHECK-LABEL: function_type = (tensor<2x3x4xbf16>, tensor<4xf32>) -> (tensor<2x3x4xbf16>, tensor<6x2xf32>)
// CHECK:         "stablehlo.reshape"(%{{.*}}) : (tensor<2x3x4xbf16>) -> tensor<6x4xbf16>
// CHECK-NEXT:    "stablehlo.convert"({{.*}}) : (tensor<6x4xbf16>) -> tensor<6x4xf32>
// CHECK-NEXT:    "stablehlo.broadcast_in_dim"
// CHECK-NEXT:    "stablehlo.multiply"({{.*}}) : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT:    "stablehlo.reshape"({{.*}}) : (tensor<6x4xf32>) -> tensor<6x2x2xf32>
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{zkdv.path = "x", zkdv.role = "batch"}], function_type = (tensor<2x3x4xbf16>) -> tensor<2x3x4xbf16>, res_attrs = [{zkdv.path = "e", zkdv.role = "delta"}], sym_name = "main"}> ({
  ^bb0(%x: tensor<2x3x4xbf16>):
    "func.return"(%x) : (tensor<2x3x4xbf16>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A rank-0 delta counts as d = 1: reshape to 1x1, one column, one entry.
// CHECK-LABEL: function_type = (tensor<f32>, tensor<1xf32>) -> (tensor<f32>, tensor<1x1xf32>)
// CHECK:         "stablehlo.reshape"(%{{.*}}) : (tensor<f32>) -> tensor<1x1xf32>
// CHECK-NEXT:    "stablehlo.broadcast_in_dim"
// CHECK-NEXT:    "stablehlo.multiply"({{.*}} : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{zkdv.path = "b", zkdv.role = "param"}], function_type = (tensor<f32>) -> tensor<f32>, res_attrs = [{zkdv.path = "b", zkdv.role = "delta"}], sym_name = "main"}> ({
  ^bb0(%b: tensor<f32>):
    "func.return"(%b) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A size-1 vector delta: one row, d = 1, k = 1; a 1x1 leaf needs no reshape.
// CHECK-LABEL: function_type = (tensor<1xf32>, tensor<1x1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
// CHECK:         "stablehlo.reshape"(%{{.*}}) : (tensor<1xf32>) -> tensor<1x1xf32>
// CHECK-NOT:     "stablehlo.reshape"(%{{.*}}) : (tensor<1x1xf32>) -> tensor<1x1xf32>
// CHECK:         "stablehlo.multiply"(%arg1,
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{zkdv.path = "v", zkdv.role = "param"}, {zkdv.path = "u", zkdv.role = "param"}], function_type = (tensor<1xf32>, tensor<1x1xf32>) -> (tensor<1xf32>, tensor<1x1xf32>), res_attrs = [{zkdv.path = "v", zkdv.role = "delta"}, {zkdv.path = "u", zkdv.role = "delta"}], sym_name = "main"}> ({
  ^bb0(%v: tensor<1xf32>, %u: tensor<1x1xf32>):
    "func.return"(%v, %u) : (tensor<1xf32>, tensor<1x1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Several leaves (b: d = 2, k = 1; a: d = 3, k = 2): only deltas are sketched, in delta order, after every
// existing result (the loss stays where it was); a delta whose last dim is 0
// gets nothing; existing attributes (donation, jax.result_info) are kept.
// With drop-deltas, the donation alias of a post-update result before the deltas is unchanged.
// DROP-LABEL: "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32, zkdv.path = "a", zkdv.role = "param"}, {zkdv.path = "b", zkdv.role = "param"}
// CHECK-LABEL: "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32, zkdv.path = "a", zkdv.role = "param"}, {zkdv.path = "b", zkdv.role = "param"}, {zkdv.path = "z", zkdv.role = "param"}, {zkdv.path = "m/a", zkdv.role = "opt_state"}, {zkdv.path = "b", zkdv.role = "probe_weight"}, {zkdv.path = "a", zkdv.role = "probe_weight"}]
// CHECK-SAME:  function_type = (tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<f32>, tensor<4x1xf32>, tensor<1x2xf32>)
// CHECK-SAME:  res_attrs = [{{.*}}{jax.result_info = "loss", zkdv.path = "loss", zkdv.role = "user"}, {zkdv.path = "b", zkdv.role = "sketch"}, {zkdv.path = "a", zkdv.role = "sketch"}]
// CHECK:         "func.return"(%{{.*}}) : (tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<f32>, tensor<4x1xf32>, tensor<1x2xf32>) -> ()
// With join, the two sketches (4 and 2 values; none for z) become one result of 6, in delta
// order, named by both paths.
// JOIN-LABEL: "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32, zkdv.path = "a", zkdv.role = "param"}, {zkdv.path = "b", zkdv.role = "param"}, {zkdv.path = "z"
// JOIN-SAME:  -> (tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<f32>, tensor<6xf32>)
// JOIN-SAME:  {jax.result_info = "loss", zkdv.path = "loss", zkdv.role = "user"}, {zkdv.path = "b,a", zkdv.role = "sketch"}]
// JOIN:         %[[B:.*]] = "stablehlo.reshape"(%{{.*}}) : (tensor<4x1xf32>) -> tensor<4xf32>
// JOIN:         %[[A:.*]] = "stablehlo.reshape"(%{{.*}}) : (tensor<1x2xf32>) -> tensor<2xf32>
// JOIN-NEXT:    %[[J:.*]] = "stablehlo.concatenate"(%[[B]], %[[A]]) {dimension = 0 : i64} : (tensor<4xf32>, tensor<2xf32>) -> tensor<6xf32>
// JOIN-NEXT:    "func.return"(%{{.*}}, %[[J]]) : (tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<f32>, tensor<6xf32>) -> ()
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32, zkdv.path = "a", zkdv.role = "param"}, {zkdv.path = "b", zkdv.role = "param"}, {zkdv.path = "z", zkdv.role = "param"}, {zkdv.path = "m/a", zkdv.role = "opt_state"}], function_type = (tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<f32>), res_attrs = [{zkdv.path = "a", zkdv.role = "post_param"}, {zkdv.path = "b", zkdv.role = "post_param"}, {zkdv.path = "z", zkdv.role = "post_param"}, {zkdv.path = "m/a", zkdv.role = "post_opt_state"}, {zkdv.path = "b", zkdv.role = "delta"}, {zkdv.path = "z", zkdv.role = "delta"}, {zkdv.path = "a", zkdv.role = "delta"}, {jax.result_info = "loss", zkdv.path = "loss", zkdv.role = "user"}], sym_name = "main"}> ({
  ^bb0(%a: tensor<3xf32>, %b: tensor<4x2xf32>, %z: tensor<2x0xf32>, %m: tensor<3xf32>):
    %l = "stablehlo.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    "func.return"(%a, %b, %z, %m, %b, %z, %a, %l) : (tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<4x2xf32>, tensor<2x0xf32>, tensor<3xf32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// With drop-deltas, a donation alias of a result after the dropped delta follows it (2 -> 1).
// DROP-LABEL: "func.func"() <{arg_attrs = [{tf.aliasing_output = 1 : i32, zkdv.path = "w", zkdv.role = "param"}, {zkdv.path = "w", zkdv.role = "probe_weight"}], function_type = (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<1x1xf32>)
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{tf.aliasing_output = 2 : i32, zkdv.path = "w", zkdv.role = "param"}], function_type = (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>), res_attrs = [{zkdv.path = "w", zkdv.role = "post_param"}, {zkdv.path = "w", zkdv.role = "delta"}, {zkdv.path = "u", zkdv.role = "user"}], sym_name = "main"}> ({
  ^bb0(%w: tensor<2xf32>):
    %d = "stablehlo.negate"(%w) : (tensor<2xf32>) -> tensor<2xf32>
    %p = "stablehlo.add"(%w, %d) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%p, %d, %w) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// With drop-deltas, a donation alias of the dropped delta itself is refused.
// DROP: insert_commitments.mlir:[[@LINE+3]]:3: error: `drop-deltas` removes result 1, which an argument's `tf.aliasing_output` aliases; donate that argument to another result
// CHECK-LABEL: "func.func"() <{arg_attrs = [{tf.aliasing_output = 1 : i32, zkdv.path = "v", zkdv.role = "param"}
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{tf.aliasing_output = 1 : i32, zkdv.path = "v", zkdv.role = "param"}], function_type = (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>), res_attrs = [{zkdv.path = "v", zkdv.role = "post_param"}, {zkdv.path = "v", zkdv.role = "delta"}], sym_name = "main"}> ({
  ^bb0(%v: tensor<2xf32>):
    %d = "stablehlo.negate"(%v) : (tensor<2xf32>) -> tensor<2xf32>
    %p = "stablehlo.add"(%v, %d) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%p, %d) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// An f64 leaf is sketched in f64; joined with an f32 leaf's sketch, the result is f64 and the
// f32 sketch is converted (exactly) before the concatenation.
// CHECK-LABEL: function_type = (tensor<2xf64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf64>, tensor<2xf32>, tensor<1x1xf64>, tensor<1x1xf32>)
// JOIN-LABEL: function_type = (tensor<2xf64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf64>, tensor<2xf32>, tensor<2xf64>)
// JOIN:         %[[X:.*]] = "stablehlo.reshape"(%{{.*}}) : (tensor<1x1xf64>) -> tensor<1xf64>
// JOIN:         %[[Y:.*]] = "stablehlo.reshape"(%{{.*}}) : (tensor<1x1xf32>) -> tensor<1xf32>
// JOIN-NEXT:    %[[Y64:.*]] = "stablehlo.convert"(%[[Y]]) : (tensor<1xf32>) -> tensor<1xf64>
// JOIN-NEXT:    "stablehlo.concatenate"(%[[X]], %[[Y64]]) {dimension = 0 : i64} : (tensor<1xf64>, tensor<1xf64>) -> tensor<2xf64>
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{zkdv.path = "x", zkdv.role = "param"}, {zkdv.path = "y", zkdv.role = "param"}], function_type = (tensor<2xf64>, tensor<2xf32>) -> (tensor<2xf64>, tensor<2xf32>), res_attrs = [{zkdv.path = "x", zkdv.role = "delta"}, {zkdv.path = "y", zkdv.role = "delta"}], sym_name = "main"}> ({
  ^bb0(%x: tensor<2xf64>, %y: tensor<2xf32>):
    "func.return"(%x, %y) : (tensor<2xf64>, tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A program without roles is rejected at the function.
"builtin.module"() ({
  // expected-error @+1 {{@main is a program without roles}}
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<2xf32>):
    "func.return"(%a) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// An integer delta cannot be sketched.
"builtin.module"() ({
  // expected-error @+1 {{delta result 0 (c) of type tensor<4xi32> is not floating point}}
  "func.func"() <{arg_attrs = [{zkdv.path = "c", zkdv.role = "param"}], function_type = (tensor<4xi32>) -> tensor<4xi32>, res_attrs = [{zkdv.path = "c", zkdv.role = "delta"}], sym_name = "main"}> ({
  ^bb0(%c: tensor<4xi32>):
    "func.return"(%c) : (tensor<4xi32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A program that already has its hooks is not instrumented twice.
"builtin.module"() ({
  // expected-error @+1 {{@main already has commitment hooks}}
  "func.func"() <{arg_attrs = [{zkdv.path = "w", zkdv.role = "param"}], function_type = (tensor<2xf32>) -> (tensor<2xf32>, tensor<1x1xf32>), res_attrs = [{zkdv.path = "w", zkdv.role = "delta"}, {zkdv.path = "w", zkdv.role = "sketch"}], sym_name = "main"}> ({
  ^bb0(%w: tensor<2xf32>):
    %s = "stablehlo.constant"() <{value = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    "func.return"(%w, %s) : (tensor<2xf32>, tensor<1x1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

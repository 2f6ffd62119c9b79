// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-push-select --zkdv-dce --zkdv-guard-leaves %s | FileCheck %s
// RUN: not zkdv-opt --zkdv-push-select=fun=main %s 2>&1 | FileCheck %s --check-prefix=OPT

// The pass runs as the attested pipeline runs it, followed by --zkdv-dce and
// --zkdv-guard-leaves, which erase what the selection no longer reads.
// Each chunk is a module holding one @zkdv_attested. A chunk that breaks a
// precondition fails with the diagnostic its `expected-error` comment names
// (--verify-diagnostics) while the others are printed.
// OPT: zkdv-opt: error: --zkdv-push-select: unknown option `fun=main` (expected `func=TEXT`)

// An elementwise chain: the start is clamped once, each input is read at it,
// and the add, multiply (by the splat constant's element) and negate run on
// one element; no 4-element op is left.
// CHECK-LABEL: sym_name = "elementwise_chain"
// CHECK:         ^bb0(%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<ui64>):
// CHECK-NEXT:      %[[LO:.*]] = "stablehlo.constant"() {value = dense<0> : tensor<ui64>}
// CHECK-NEXT:      %[[HI:.*]] = "stablehlo.constant"() {value = dense<3> : tensor<ui64>}
// CHECK-NEXT:      %[[C:.*]] = "stablehlo.clamp"(%[[LO]], %[[I]], %[[HI]])
// CHECK-NEXT:      %[[XS:.*]] = "stablehlo.dynamic_slice"(%[[X]], %[[C]]) {slice_sizes = array<i64: 1>} : (tensor<4xf32>, tensor<ui64>) -> tensor<1xf32>
// CHECK-NEXT:      %[[X0:.*]] = "stablehlo.reshape"(%[[XS]]) : (tensor<1xf32>) -> tensor<f32>
// CHECK-NEXT:      %[[YS:.*]] = "stablehlo.dynamic_slice"(%[[Y]], %[[C]])
// CHECK-NEXT:      %[[Y0:.*]] = "stablehlo.reshape"(%[[YS]])
// CHECK-NEXT:      %[[S:.*]] = "stablehlo.add"(%[[X0]], %[[Y0]]) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:      %[[TWO:.*]] = "stablehlo.constant"() {value = dense<2.000000e+00> : tensor<f32>}
// CHECK-NEXT:      %[[M:.*]] = "stablehlo.multiply"(%[[S]], %[[TWO]]) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:      %[[N:.*]] = "stablehlo.negate"(%[[M]]) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:      %[[R:.*]] = "stablehlo.reshape"(%[[N]]) : (tensor<f32>) -> tensor<1xf32>
// CHECK-NEXT:      "func.return"(%[[R]])
"builtin.module"() <{sym_name = "elementwise_chain"}> ({
  "func.func"() <{function_type = (tensor<4xf32>, tensor<4xf32>, tensor<ui64>) -> tensor<1xf32>, sym_name = "zkdv_attested"}> ({
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<ui64>):
    %two = "stablehlo.constant"() <{value = dense<2.0> : tensor<4xf32>}> : () -> tensor<4xf32>
    %s = "stablehlo.add"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %m = "stablehlo.multiply"(%s, %two) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %n = "stablehlo.negate"(%m) : (tensor<4xf32>) -> tensor<4xf32>
    %one = "stablehlo.dynamic_slice"(%n, %i) <{slice_sizes = array<i64: 1>}> : (tensor<4xf32>, tensor<ui64>) -> tensor<1xf32>
    "func.return"(%one) : (tensor<1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// broadcast_in_dim: result dim 1 is operand dim 0, so only the second index
// matters (i32 starts are clamped, then converted to ui64).
// CHECK-LABEL: sym_name = "broadcast"
// CHECK:         ^bb0(%[[V:.*]]: tensor<3xf32>, %{{.*}}: tensor<i32>, %[[J:.*]]: tensor<i32>):
// CHECK:           %[[C:.*]] = "stablehlo.clamp"(%{{.*}}, %[[J]], %{{.*}}) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
// CHECK-NEXT:      %[[U:.*]] = "stablehlo.convert"(%[[C]]) : (tensor<i32>) -> tensor<ui64>
// CHECK-NEXT:      %[[VS:.*]] = "stablehlo.dynamic_slice"(%[[V]], %[[U]])
// CHECK-NEXT:      %[[V0:.*]] = "stablehlo.reshape"(%[[VS]])
// CHECK-NEXT:      "stablehlo.exponential"(%[[V0]]) : (tensor<f32>) -> tensor<f32>
// CHECK-NOT:       "stablehlo.broadcast_in_dim"
// CHECK:           "func.return"
"builtin.module"() <{sym_name = "broadcast"}> ({
  "func.func"() <{function_type = (tensor<3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x1xf32>, sym_name = "zkdv_attested"}> ({
  ^bb0(%v: tensor<3xf32>, %i: tensor<i32>, %j: tensor<i32>):
    %b = "stablehlo.broadcast_in_dim"(%v) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xf32>) -> tensor<2x3xf32>
    %e = "stablehlo.exponential"(%b) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %one = "stablehlo.dynamic_slice"(%e, %i, %j) <{slice_sizes = array<i64: 1, 1>}> : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x1xf32>
    "func.return"(%one) : (tensor<1x1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// reshape 2x3 -> 6: flat index i reads x[i / 3, i % 3].
// CHECK-LABEL: sym_name = "reshape"
// CHECK:           %[[C:.*]] = "stablehlo.clamp"
// CHECK-NEXT:      %[[THREE:.*]] = "stablehlo.constant"() {value = dense<3> : tensor<ui64>}
// CHECK-NEXT:      %[[COL:.*]] = "stablehlo.remainder"(%[[C]], %[[THREE]])
// CHECK-NEXT:      %[[ROW:.*]] = "stablehlo.divide"(%[[C]], %[[THREE]])
// CHECK-NEXT:      %[[XS:.*]] = "stablehlo.dynamic_slice"(%arg0, %[[ROW]], %[[COL]]) {slice_sizes = array<i64: 1, 1>} : (tensor<2x3xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>
// CHECK-NEXT:      %[[X0:.*]] = "stablehlo.reshape"(%[[XS]]) : (tensor<1x1xf32>) -> tensor<f32>
// CHECK-NEXT:      "stablehlo.tanh"(%[[X0]]) : (tensor<f32>) -> tensor<f32>
// CHECK-NOT:       tensor<6xf32>
// CHECK:           "func.return"
"builtin.module"() <{sym_name = "reshape"}> ({
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<ui64>) -> tensor<1xf32>, sym_name = "zkdv_attested"}> ({
  ^bb0(%x: tensor<2x3xf32>, %i: tensor<ui64>):
    %t = "stablehlo.tanh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %r = "stablehlo.reshape"(%t) : (tensor<2x3xf32>) -> tensor<6xf32>
    %one = "stablehlo.dynamic_slice"(%r, %i) <{slice_sizes = array<i64: 1>}> : (tensor<6xf32>, tensor<ui64>) -> tensor<1xf32>
    "func.return"(%one) : (tensor<1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// transpose [1, 0]: t[i, j] reads x[j, i].
// CHECK-LABEL: sym_name = "transpose"
// CHECK:           %[[I:.*]] = "stablehlo.clamp"(%{{.*}}, %arg1, %{{.*}})
// CHECK:           %[[J:.*]] = "stablehlo.clamp"(%{{.*}}, %arg2, %{{.*}})
// CHECK-NEXT:      "stablehlo.dynamic_slice"(%arg0, %[[J]], %[[I]]) {slice_sizes = array<i64: 1, 1>} : (tensor<2x3xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>
// CHECK-NOT:       "stablehlo.transpose"
// CHECK:           "func.return"
"builtin.module"() <{sym_name = "transpose"}> ({
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>, sym_name = "zkdv_attested"}> ({
  ^bb0(%x: tensor<2x3xf32>, %i: tensor<ui64>, %j: tensor<ui64>):
    %t = "stablehlo.transpose"(%x) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %one = "stablehlo.dynamic_slice"(%t, %i, %j) <{slice_sizes = array<i64: 1, 1>}> : (tensor<3x2xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>
    "func.return"(%one) : (tensor<1x1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// dot_general 2x3 @ 3x4: element (i / 4, i % 4) is the lhs row times the
// rhs column, a 1x3 @ 3x1 dot_general with the same dimension numbers.
// CHECK-LABEL: sym_name = "dot_general"
// CHECK:           %[[ZERO:.*]] = "stablehlo.constant"() {value = dense<0> : tensor<ui64>}
// CHECK:           %[[COL:.*]] = "stablehlo.remainder"
// CHECK-NEXT:      %[[ROW:.*]] = "stablehlo.divide"
// CHECK-NEXT:      %[[L:.*]] = "stablehlo.dynamic_slice"(%arg0, %[[ROW]], %[[ZERO]]) {slice_sizes = array<i64: 1, 3>} : (tensor<2x3xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x3xf32>
// CHECK-NEXT:      %[[R:.*]] = "stablehlo.dynamic_slice"(%arg1, %[[ZERO]], %[[COL]]) {slice_sizes = array<i64: 3, 1>} : (tensor<3x4xf32>, tensor<ui64>, tensor<ui64>) -> tensor<3x1xf32>
// CHECK-NEXT:      %[[D:.*]] = "stablehlo.dot_general"(%[[L]], %[[R]]) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>{{.*}}}> : (tensor<1x3xf32>, tensor<3x1xf32>) -> tensor<1x1xf32>
// CHECK-NEXT:      %[[E:.*]] = "stablehlo.reshape"(%[[D]]) : (tensor<1x1xf32>) -> tensor<1xf32>
// CHECK-NEXT:      "func.return"(%[[E]])
"builtin.module"() <{sym_name = "dot_general"}> ({
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<3x4xf32>, tensor<ui64>) -> tensor<1xf32>, sym_name = "zkdv_attested"}> ({
  ^bb0(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %i: tensor<ui64>):
    %d = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %r = "stablehlo.reshape"(%d) : (tensor<2x4xf32>) -> tensor<8xf32>
    %one = "stablehlo.dynamic_slice"(%r, %i) <{slice_sizes = array<i64: 1>}> : (tensor<8xf32>, tensor<ui64>) -> tensor<1xf32>
    "func.return"(%one) : (tensor<1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// convert f32 -> bf16 on one element.
// CHECK-LABEL: sym_name = "convert"
// CHECK:           %[[X0:.*]] = "stablehlo.reshape"(%{{.*}}) : (tensor<1xf32>) -> tensor<f32>
// CHECK-NEXT:      %[[B:.*]] = "stablehlo.convert"(%[[X0]]) : (tensor<f32>) -> tensor<bf16>
// CHECK-NEXT:      %[[R:.*]] = "stablehlo.reshape"(%[[B]]) : (tensor<bf16>) -> tensor<1xbf16>
// CHECK-NEXT:      "func.return"(%[[R]])
"builtin.module"() <{sym_name = "convert"}> ({
  "func.func"() <{function_type = (tensor<4xf32>, tensor<ui64>) -> tensor<1xbf16>, sym_name = "zkdv_attested"}> ({
  ^bb0(%x: tensor<4xf32>, %i: tensor<ui64>):
    %c = "stablehlo.convert"(%x) : (tensor<4xf32>) -> tensor<4xbf16>
    %one = "stablehlo.dynamic_slice"(%c, %i) <{slice_sizes = array<i64: 1>}> : (tensor<4xbf16>, tensor<ui64>) -> tensor<1xbf16>
    "func.return"(%one) : (tensor<1xbf16>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A scalar leaf (reshaped to 1 element): the only element is the scalar
// itself; no index arithmetic and no slice are left.
// CHECK-LABEL: sym_name = "scalar_leaf"
// CHECK:         ^bb0(%[[X:.*]]: tensor<f32>, %{{.*}}: tensor<ui64>):
// CHECK-NEXT:      %[[N:.*]] = "stablehlo.negate"(%[[X]]) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:      %[[R:.*]] = "stablehlo.reshape"(%[[N]]) : (tensor<f32>) -> tensor<1xf32>
// CHECK-NEXT:      "func.return"(%[[R]])
"builtin.module"() <{sym_name = "scalar_leaf"}> ({
  "func.func"() <{function_type = (tensor<f32>, tensor<ui64>) -> tensor<1xf32>, sym_name = "zkdv_attested"}> ({
  ^bb0(%x: tensor<f32>, %i: tensor<ui64>):
    %n = "stablehlo.negate"(%x) : (tensor<f32>) -> tensor<f32>
    %r = "stablehlo.reshape"(%n) : (tensor<f32>) -> tensor<1xf32>
    %one = "stablehlo.dynamic_slice"(%r, %i) <{slice_sizes = array<i64: 1>}> : (tensor<1xf32>, tensor<ui64>) -> tensor<1xf32>
    "func.return"(%one) : (tensor<1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// convolution (stride 2, padding 1): the input is padded explicitly, the
// 3x3 window at (2i, 2j) and the kernel's output feature o are sliced, and a
// convolution without stride or padding computes the one element.
// CHECK-LABEL: sym_name = "convolution"
// CHECK:           %[[I:.*]] = "stablehlo.clamp"(%{{.*}}, %arg3, %{{.*}})
// CHECK-NEXT:      %[[J:.*]] = "stablehlo.clamp"(%{{.*}}, %arg4, %{{.*}})
// CHECK:           %[[O:.*]] = "stablehlo.clamp"(%{{.*}}, %arg5, %{{.*}})
// CHECK:           %[[P:.*]] = "stablehlo.pad"(%arg0, %{{.*}}) {edge_padding_high = array<i64: 0, 1, 1, 0>, edge_padding_low = array<i64: 0, 1, 1, 0>, interior_padding = array<i64: 0, 0, 0, 0>} : (tensor<1x4x4x2xf32>, tensor<f32>) -> tensor<1x6x6x2xf32>
// CHECK-NEXT:      %[[Y:.*]] = "stablehlo.multiply"(%[[I]], %[[TWO:.*]]) : (tensor<ui64>, tensor<ui64>)
// CHECK-NEXT:      %[[X:.*]] = "stablehlo.multiply"(%[[J]], %[[TWO]])
// CHECK-NEXT:      %[[W:.*]] = "stablehlo.dynamic_slice"(%[[P]], %{{.*}}, %[[Y]], %[[X]], %{{.*}}) {slice_sizes = array<i64: 1, 3, 3, 2>}
// CHECK-NEXT:      %[[K:.*]] = "stablehlo.dynamic_slice"(%arg1, %{{.*}}, %{{.*}}, %{{.*}}, %[[O]]) {slice_sizes = array<i64: 3, 3, 2, 1>}
// CHECK-NEXT:      %[[C:.*]] = "stablehlo.convolution"(%[[W]], %[[K]]) {{.*}}padding = dense<0> : tensor<2x2xi64>{{.*}}window_strides = array<i64: 1, 1>}> : (tensor<1x3x3x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x1x1x1xf32>
// CHECK-NEXT:      "func.return"(%[[C]])
"builtin.module"() <{sym_name = "convolution"}> ({
  "func.func"() <{function_type = (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>, tensor<ui64>, tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<1x1x1x1xf32>, sym_name = "zkdv_attested"}> ({
  ^bb0(%x: tensor<1x4x4x2xf32>, %k: tensor<3x3x2x3xf32>, %b: tensor<ui64>, %i: tensor<ui64>, %j: tensor<ui64>, %o: tensor<ui64>):
    %c = "stablehlo.convolution"(%x, %k) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<1> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, window_strides = array<i64: 2, 2>}> : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) -> tensor<1x2x2x3xf32>
    %one = "stablehlo.dynamic_slice"(%c, %b, %i, %j, %o) <{slice_sizes = array<i64: 1, 1, 1, 1>}> : (tensor<1x2x2x3xf32>, tensor<ui64>, tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<1x1x1x1xf32>
    "func.return"(%one) : (tensor<1x1x1x1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A reduce is not pushed into: the slice of its result stays as it is.
// CHECK-LABEL: sym_name = "reduce_stops"
// CHECK:           %[[S:.*]] = "stablehlo.reduce"
// CHECK:           %[[ONE:.*]] = "stablehlo.dynamic_slice"(%[[S]], %arg1) <{slice_sizes = array<i64: 1>}> : (tensor<3xf32>, tensor<ui64>) -> tensor<1xf32>
// CHECK-NEXT:      "func.return"(%[[ONE]])
"builtin.module"() <{sym_name = "reduce_stops"}> ({
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<ui64>) -> tensor<1xf32>, sym_name = "zkdv_attested"}> ({
  ^bb0(%x: tensor<2x3xf32>, %i: tensor<ui64>):
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %s = "stablehlo.reduce"(%x, %zero) <{dimensions = array<i64: 0>}> ({
    ^bb1(%a: tensor<f32>, %b: tensor<f32>):
      %sum = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%sum) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    %one = "stablehlo.dynamic_slice"(%s, %i) <{slice_sizes = array<i64: 1>}> : (tensor<3xf32>, tensor<ui64>) -> tensor<1xf32>
    "func.return"(%one) : (tensor<1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Without the function there is nothing to rewrite: a diagnostic names it.
// expected-error @+1 {{--zkdv-push-select: no function @zkdv_attested in the module (run --zkdv-slice-update first, or name the function with func=NAME)}}
"builtin.module"() <{sym_name = "no_function"}> ({
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-legalize-arith %s | FileCheck %s

// The scalars of a torch-mlir export (tensor<1xf64>, tensor<1xi64>) become
// stablehlo.constant with the same value and type; their uses follow.
// CHECK-LABEL: sym_name = "torch_scalars"
// CHECK-NOT:     "arith.constant"
// CHECK:         %[[B:.*]] = "stablehlo.constant"() {value = dense<9.000000e-01> : tensor<1xf64>} : () -> tensor<1xf64>
// CHECK:         "stablehlo.constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
// CHECK:         "stablehlo.multiply"(%{{.*}}, %[[B]])
// CHECK-NOT:     "arith.constant"
"func.func"() <{function_type = (tensor<1xf64>, tensor<1xi64>) -> (tensor<1xf64>, tensor<1xi64>), sym_name = "torch_scalars"}> ({
^bb0(%x: tensor<1xf64>, %n: tensor<1xi64>):
  %b = "arith.constant"() <{value = dense<9.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
  %one = "arith.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "stablehlo.multiply"(%x, %b) : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  %1 = "stablehlo.add"(%n, %one) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  "func.return"(%0, %1) : (tensor<1xf64>, tensor<1xi64>) -> ()
}) : () -> ()

// -----

// A module without arith ops is unchanged.
// CHECK-LABEL: sym_name = "plain"
// CHECK:         "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}>
"func.func"() <{function_type = () -> tensor<f32>, sym_name = "plain"}> ({
  %0 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// Any other arith op is refused: nothing downstream models the dialect.
"func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "other_arith"}> ({
^bb0(%x: tensor<2xf32>):
  // expected-error @+1 {{`arith.addf` is not supported: only `arith.constant` with a dense tensor value is (as torch-mlir emits it); lower the step to StableHLO ops}}
  %0 = "arith.addf"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "func.return"(%0) : (tensor<2xf32>) -> ()
}) : () -> ()

// -----

// A scalar (non-tensor) arith.constant is refused too.
"func.func"() <{function_type = () -> (), sym_name = "scalar"}> ({
  // expected-error @+1 {{`arith.constant` is not supported}}
  %0 = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A constant of several elements, as torch-mlir emits it (a group norm's backward index
// tensors): a `dense_resource` whose bytes are in the resource section becomes an inline
// dense stablehlo.constant of the same values and type.
// CHECK-LABEL: sym_name = "resource"
// CHECK-NOT:     "arith.constant"
// CHECK:         "stablehlo.constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
"func.func"() <{function_type = () -> tensor<2xi64>, sym_name = "resource"}> ({
  %c = "arith.constant"() <{value = dense_resource<blob1> : tensor<2xi64>}> : () -> tensor<2xi64>
  "func.return"(%c) : (tensor<2xi64>) -> ()
}) : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x0800000001000000000000000200000000000000"
    }
  }
#-}

// -----

// A tensor the step captured from outside its arguments comes as a stablehlo.constant
// with a `dense_resource` value; it gets the inline value too.
// CHECK-LABEL: sym_name = "captured"
// CHECK:         "stablehlo.constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
"func.func"() <{function_type = () -> tensor<2xf32>, sym_name = "captured"}> ({
  %c = "stablehlo.constant"() <{value = dense_resource<blob2> : tensor<2xf32>}> : () -> tensor<2xf32>
  "func.return"(%c) : (tensor<2xf32>) -> ()
}) : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob2: "0x040000000000803F00000040"
    }
  }
#-}

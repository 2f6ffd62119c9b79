// RUN: zkdv-opt --split-input-file --zkdv-precision-report %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not zkdv-opt --zkdv-precision-report=func=main %s 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: zkdv-opt --help | FileCheck %s --check-prefix=HELP
// HELP: --zkdv-precision-report  Print the narrowest float type
// OPT: zkdv-opt: error: --zkdv-precision-report: unknown option `func=main` (expected no options)

// An f32-only function: no narrow result, narrowest f32.
// CHECK:      zkdv-precision-report
// CHECK-NEXT:   narrowest f32
// CHECK-NEXT:   narrow results 0
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "wide"}> ({
^bb0(%a: tensor<4xf32>):
  %0 = "stablehlo.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// Mixed precision: the convert and the multiply produce bf16 (two narrow
// results); the f32 result of the last convert is not narrow.
// CHECK:      zkdv-precision-report
// CHECK-NEXT:   narrowest bf16
// CHECK-NEXT:   narrow results 2
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "mixed"}> ({
^bb0(%a: tensor<4xf32>):
  %0 = "stablehlo.convert"(%a) : (tensor<4xf32>) -> tensor<4xbf16>
  %1 = "stablehlo.multiply"(%0, %0) : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %2 = "stablehlo.convert"(%1) : (tensor<4xbf16>) -> tensor<4xf32>
  "func.return"(%2) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// Nested regions count: the f16 constant, the reduce and the add inside its
// body are three narrow results.
// CHECK:      zkdv-precision-report
// CHECK-NEXT:   narrowest f16
// CHECK-NEXT:   narrow results 3
"func.func"() <{function_type = (tensor<4xf16>) -> tensor<f16>, sym_name = "nested"}> ({
^bb0(%a: tensor<4xf16>):
  %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f16>}> : () -> tensor<f16>
  %0 = "stablehlo.reduce"(%a, %zero) <{dimensions = array<i64: 0>}> ({
  ^bb0(%x: tensor<f16>, %y: tensor<f16>):
    %s = "stablehlo.add"(%x, %y) : (tensor<f16>, tensor<f16>) -> tensor<f16>
    "stablehlo.return"(%s) : (tensor<f16>) -> ()
  }) : (tensor<4xf16>, tensor<f16>) -> tensor<f16>
  "func.return"(%0) : (tensor<f16>) -> ()
}) : () -> ()

// -----

// Integers only: no float type at all.
// CHECK:      zkdv-precision-report
// CHECK-NEXT:   narrowest none
// CHECK-NEXT:   narrow results 0
"func.func"() <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "ints"}> ({
^bb0(%a: tensor<4xi32>):
  "func.return"(%a) : (tensor<4xi32>) -> ()
}) : () -> ()

// Input that cannot be parsed: diagnostics at their line in the whole file
// (also with --split-input-file and from stdin), checked by
// --verify-diagnostics like any other; the other chunks are still processed.
// RUN: zkdv-opt --verify-diagnostics --split-input-file %s
// RUN: zkdv-opt --verify-diagnostics --split-input-file - < %s
// RUN: not zkdv-opt --split-input-file - < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not zkdv-opt %t.does-not-exist 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not zkdv-opt --no-such-flag %s 2>&1 | FileCheck %s --check-prefix=BADFLAG

// NOFILE: zkdv-opt: error: cannot read '{{.*}}does-not-exist': No such file or directory
// BADFLAG: error: unexpected argument '--no-such-flag' found

// StableHLO in pretty form is refused with a hint to print generic form.
// STDIN:       <stdin>:[[@LINE+4]]:10: error: `stablehlo.add` is StableHLO in pretty form
module {
  func.func @main(%a: tensor<f32>) -> tensor<f32> {
    // expected-error @+1 {{`stablehlo.add` is StableHLO in pretty form, which zkdv cannot parse (the StableHLO dialect is not linked in); print it in MLIR generic op form, e.g. from JAX: `module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)`}}
    %0 = stablehlo.add %a, %a : tensor<f32>
    return %0 : tensor<f32>
  }
}

// -----

// Malformed input: MLIR's diagnostic, at its line in the whole file.
"func.func"() <{function_type = () -> (), sym_name = "bad"}> ({
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = "stablehlo.add"(%undefined, %undefined) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Pretty form as JAX prints it by default (`jax.jit(f).lower(x).as_text()`):
// the first pretty StableHLO op is reported, not the quoted names before it.
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> {mhlo.layout_mode = "default", jax.arg_info = "stablehlo.x"}) -> (tensor<3xf32> {jax.result_info = ""}) {
    // stablehlo.this_comment_is_skipped
    // expected-error @+1 {{`stablehlo.constant` is StableHLO in pretty form}}
    %0 = stablehlo.constant dense<2.000000e+00> : tensor<3xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3xf32>
    return %1 : tensor<3xf32>
  }
}

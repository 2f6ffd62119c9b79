// Tests of --verify-diagnostics itself: the input's `expected-*` comments are
// checked against the diagnostics (syntax and rules: zkdv_ir::expected). Each
// input is one part of this file (split-file; --leading-lines keeps the line
// numbers of this file, so CHECK lines can use [[@LINE]]).
// RUN: rm -rf %t
// RUN: split-file --leading-lines %s %t
//
// Every expected diagnostic is produced at its line: exit 0; the chunks that
// ran through are printed, the failed ones print nothing.
// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-check-hermetic %t/matched.mlir | FileCheck %s --check-prefix=MATCHED
// Also from stdin, where the file is `<stdin>`.
// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-check-hermetic - < %t/matched.mlir | FileCheck %s --check-prefix=MATCHED
// An expected error that is not produced (the pass is not run): exit 1, the
// mismatch is reported at the comment, and the module is still printed.
// RUN: not zkdv-opt --verify-diagnostics %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// Errors nobody expected, and one expected with another severity: exit 1.
// RUN: not zkdv-opt --verify-diagnostics --zkdv-check-hermetic %t/unexpected.mlir 2>&1 | FileCheck %s --check-prefix=UNEXPECTED
// A directive that cannot be read is an error, not silently ignored.
// RUN: not zkdv-opt --verify-diagnostics %t/malformed.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED
// Without the flag, the same input fails and its diagnostics are printed.
// RUN: not zkdv-opt --split-input-file --zkdv-check-hermetic %t/matched.mlir 2>&1 | FileCheck %s --check-prefix=PLAIN

//--- matched.mlir
// A chunk without diagnostics is printed.
// MATCHED-LABEL: sym_name = "pure"
// MATCHED:       // -----
// MATCHED-NEXT:  // -----
// MATCHED-NEXT:  // -----
// MATCHED-NEXT:  // -----
// MATCHED-NEXT:  // -----
// MATCHED-NEXT:  "builtin.module"
// MATCHED:       sym_name = "pure_after"
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "pure"}> ({
^bb0(%x: tensor<f32>):
  "func.return"(%x) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// `@+1`: the error is on the next line; its text is part of the message.
"func.func"() <{function_type = () -> tensor<2xf32>, sym_name = "rng"}> ({
  %lo = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %shape = "stablehlo.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  // PLAIN: matched.mlir:[[@LINE+2]]:8: error: `stablehlo.rng` (in @rng) draws random numbers
  // expected-error @+1 {{`stablehlo.rng` (in @rng) draws random numbers}}
  %0 = "stablehlo.rng"(%lo, %lo, %shape) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<2xf32>
  "func.return"(%0) : (tensor<2xf32>) -> ()
}) : () -> ()

// -----

// `@below`, `@above`, a negative offset and a directive on the op's own line.
"func.func"() <{function_type = (tensor<2xi64>, !stablehlo.token, tensor<f32>) -> tensor<2xi64>, sym_name = "offsets"}> ({
^bb0(%x: tensor<2xi64>, %t: !stablehlo.token, %loss: tensor<f32>):
  // expected-error @below {{`stablehlo.send` (in @offsets) sends data out of the program}}
  %0 = "stablehlo.send"(%x, %t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true}> : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
  %1:2 = "stablehlo.recv"(%0) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  // expected-error @above {{`stablehlo.recv` (in @offsets) reads data from outside the program}}
  %2 = "stablehlo.outfeed"(%loss, %0) <{outfeed_config = ""}> : (tensor<f32>, !stablehlo.token) -> !stablehlo.token
  // expected-error @-1 {{`stablehlo.outfeed` (in @offsets)}}
  %3:2 = "stablehlo.infeed"(%2) <{infeed_config = ""}> : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token) // expected-error {{`stablehlo.infeed` (in @offsets)}}
  "func.return"(%1#0) : (tensor<2xi64>) -> ()
}) : () -> ()

// -----

// `@unknown`: an op without a location in the input (`loc(unknown)`).
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "unknown_loc"}> ({
^bb0(%x: tensor<f32>):
  // expected-error @unknown {{`stablehlo.custom_call` (in @unknown_loc) has no string `call_target_name`}}
  %0 = "stablehlo.custom_call"(%x) : (tensor<f32>) -> tensor<f32> loc(unknown)
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// The parser's diagnostics are verified too; the chunk prints nothing.
"func.func"() <{function_type = () -> (), sym_name = "bad"}> ({
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = "stablehlo.add"(%undefined, %undefined) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A later chunk is still processed and printed.
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "pure_after"}> ({
^bb0(%x: tensor<f32>):
  "func.return"(%x) : (tensor<f32>) -> ()
}) : () -> ()

//--- missing.mlir
// MISSING-LABEL: sym_name = "missing"
// MISSING:       missing.mlir:[[@LINE+4]]:6: error: expected error "draws random numbers" was not produced
"func.func"() <{function_type = () -> tensor<2xf32>, sym_name = "missing"}> ({
  %lo = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %shape = "stablehlo.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{draws random numbers}}
  %0 = "stablehlo.rng"(%lo, %lo, %shape) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<2xf32>
  "func.return"(%0) : (tensor<2xf32>) -> ()
}) : () -> ()

//--- unexpected.mlir
// UNEXPECTED:      unexpected.mlir:[[@LINE+8]]:8: error: unexpected error: `stablehlo.rng` (in @unexpected) draws random numbers inside the program
// UNEXPECTED-NEXT: unexpected.mlir:[[@LINE+9]]:6: error: 'error' diagnostic emitted when expecting a 'warning'
// UNEXPECTED-NEXT: unexpected.mlir:[[@LINE+8]]:6: error: expected warning "sends data out of the program" was not produced
// UNEXPECTED-NOT:  error:
"func.func"() <{function_type = (tensor<f32>) -> tensor<2xf32>, sym_name = "unexpected"}> ({
^bb0(%loss: tensor<f32>):
  %lo = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %shape = "stablehlo.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "stablehlo.rng"(%lo, %lo, %shape) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<2xf32>
  %t = "stablehlo.after_all"() : () -> !stablehlo.token
  // expected-warning @+1 {{sends data out of the program}}
  %1 = "stablehlo.outfeed"(%loss, %t) <{outfeed_config = ""}> : (tensor<f32>, !stablehlo.token) -> !stablehlo.token
  "func.return"(%0) : (tensor<2xf32>) -> ()
}) : () -> ()

//--- malformed.mlir
// MALFORMED: malformed.mlir:[[@LINE+1]]:4: error: unknown designator `@+x` in expected-error (expected @+N, @-N, @above, @below or @unknown)
// expected-error @+x {{the offset is not a number}}
"func.func"() <{function_type = () -> (), sym_name = "malformed"}> ({
  "func.return"() : () -> ()
}) : () -> ()

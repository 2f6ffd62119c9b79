// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-check-hermetic %s | FileCheck %s
// RUN: zkdv-opt --help | FileCheck %s --check-prefix=HELP
// HELP: Passes (run in the order given; a pass may be repeated):
// HELP: --zkdv-check-hermetic  Reject randomness, host I/O and opaque custom_calls
//
// Each rejected op carries an `expected-error` comment (checked at its line
// by --verify-diagnostics); CHECK lines find the chunks that pass by function
// name (CHECK-LABEL) in the printed IR.

// A pure step passes unchanged: StableHLO ops, a sharding annotation (an
// allowlisted custom_call) and a reduction region.
// CHECK-LABEL: sym_name = "pure_step"
// CHECK:         "stablehlo.custom_call"(%{{.*}}) <{call_target_name = "Sharding"}>
// CHECK:         "stablehlo.reduce"
// CHECK:         "func.return"
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<f32>, sym_name = "pure_step"}> ({
^bb0(%x: tensor<4xf32>):
  %0 = "stablehlo.custom_call"(%x) <{call_target_name = "Sharding"}> {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %2 = "stablehlo.reduce"(%0, %1) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %3 = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%3) : (tensor<f32>) -> ()
  }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  "func.return"(%2) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// stablehlo.rng draws randomness inside the program.
"func.func"() <{function_type = () -> tensor<2xf32>, sym_name = "rng_uniform"}> ({
  %lo = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %shape = "stablehlo.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{`stablehlo.rng` (in @rng_uniform) draws random numbers inside the program, so a verifier cannot re-execute it; pass randomness in through the batch instead}}
  %0 = "stablehlo.rng"(%lo, %lo, %shape) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<2xf32>
  "func.return"(%0) : (tensor<2xf32>) -> ()
}) : () -> ()

// -----

// stablehlo.rng_bit_generator (JAX's `rbg` PRNG) draws randomness too.
"func.func"() <{function_type = (tensor<2xui64>) -> tensor<4xui32>, sym_name = "rbg_bits"}> ({
^bb0(%key: tensor<2xui64>):
  // expected-error @+1 {{`stablehlo.rng_bit_generator` (in @rbg_bits) draws random numbers inside the program, so a verifier cannot re-execute it; pass randomness in through the batch instead: make the PRNG key (or pre-drawn noise) a program input and use JAX's threefry PRNG (`jax.config.update('jax_default_prng_impl', 'threefry2x32')`)}}
  %state, %bits = "stablehlo.rng_bit_generator"(%key) <{rng_algorithm = #stablehlo<rng_algorithm DEFAULT>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  "func.return"(%bits) : (tensor<4xui32>) -> ()
}) : () -> ()

// -----

// stablehlo.infeed reads host data at run time.
"func.func"() <{function_type = () -> tensor<2xf32>, sym_name = "infeed_batch"}> ({
  %t = "stablehlo.create_token"() : () -> !stablehlo.token
  // expected-error @+1 {{`stablehlo.infeed` (in @infeed_batch) reads data from outside the program at run time, so the step is not a function of its inputs; pass the data in through the batch as a program input}}
  %0:2 = "stablehlo.infeed"(%t) <{infeed_config = ""}> : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  "func.return"(%0#0) : (tensor<2xf32>) -> ()
}) : () -> ()

// -----

// stablehlo.outfeed sends data to the host at run time.
"func.func"() <{function_type = (tensor<f32>) -> (), sym_name = "outfeed_loss"}> ({
^bb0(%loss: tensor<f32>):
  %t = "stablehlo.after_all"() : () -> !stablehlo.token
  // expected-error @+1 {{`stablehlo.outfeed` (in @outfeed_loss) sends data out of the program at run time; return the data as a program output instead}}
  %0 = "stablehlo.outfeed"(%loss, %t) <{outfeed_config = ""}> : (tensor<f32>, !stablehlo.token) -> !stablehlo.token
  "func.return"() : () -> ()
}) : () -> ()

// -----

// stablehlo.send and stablehlo.recv talk to the host or other devices; both are
// reported, in source order.
"func.func"() <{function_type = (tensor<2xi64>, !stablehlo.token) -> tensor<2xi64>, sym_name = "send_recv"}> ({
^bb0(%x: tensor<2xi64>, %t: !stablehlo.token):
  // expected-error @below {{`stablehlo.send` (in @send_recv) sends data out of the program}}
  // expected-error @+2 {{`stablehlo.recv` (in @send_recv) reads data from outside the program}}
  %0 = "stablehlo.send"(%x, %t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true}> : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
  %1:2 = "stablehlo.recv"(%0) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  "func.return"(%1#0) : (tensor<2xi64>) -> ()
}) : () -> ()

// -----

// A host callback (here from jax.debug.print) is rejected with its own advice.
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "debug_print"}> ({
^bb0(%x: tensor<f32>):
  // expected-error @+1 {{`stablehlo.custom_call` (in @debug_print) calls the host callback `xla_ffi_python_cpu_callback`, which runs Python on the host, outside the program; remove host callbacks}}
  "stablehlo.custom_call"(%x) <{api_version = 4 : i32, call_target_name = "xla_ffi_python_cpu_callback", has_side_effect = true}> : (tensor<f32>) -> ()
  "func.return"(%x) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// A custom_call outside the known-pure allowlist is opaque to the verifier.
"func.func"() <{function_type = (tensor<3x3xf32>) -> tensor<3x3xf32>, sym_name = "lu_factor"}> ({
^bb0(%a: tensor<3x3xf32>):
  // expected-error @+1 {{`stablehlo.custom_call` (in @lu_factor) calls `lapack_sgetrf_ffi`, which is not in the known-pure allowlist (Sharding, SPMDFullToShardShape, SPMDShardToFullShape)}}
  %0:2 = "stablehlo.custom_call"(%a) <{call_target_name = "lapack_sgetrf_ffi"}> : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>)
  "func.return"(%0#0) : (tensor<3x3xf32>) -> ()
}) : () -> ()

// -----

// An allowlisted target that declares a side effect is still rejected.
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "effectful_sharding"}> ({
^bb0(%x: tensor<4xf32>):
  // expected-error @+1 {{`stablehlo.custom_call` (in @effectful_sharding) calls `Sharding` with `has_side_effect = true`}}
  %0 = "stablehlo.custom_call"(%x) <{call_target_name = "Sharding", has_side_effect = true}> : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// A custom_call without a call_target_name cannot be classified: rejected.
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "no_target"}> ({
^bb0(%x: tensor<4xf32>):
  // expected-error @+1 {{`stablehlo.custom_call` (in @no_target) has no string `call_target_name`}}
  %0 = "stablehlo.custom_call"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// Ops nested in regions (a while loop in a private helper) are found, and the
// enclosing function is named; the pure caller is not reported (it would be
// an unexpected error).
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "caller"}> ({
  ^bb0(%x: tensor<f32>):
    %0 = "func.call"(%x) <{callee = @noisy_helper}> : (tensor<f32>) -> tensor<f32>
    "func.return"(%0) : (tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "noisy_helper", sym_visibility = "private"}> ({
  ^bb0(%x: tensor<f32>):
    %0 = "stablehlo.while"(%x) ({
    ^bb0(%c: tensor<f32>):
      %1 = "stablehlo.compare"(%c, %c) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%1) : (tensor<i1>) -> ()
    }, {
    ^bb0(%b: tensor<f32>):
      %shape = "stablehlo.constant"() <{value = dense<> : tensor<0xi64>}> : () -> tensor<0xi64>
      // expected-error @+1 {{`stablehlo.rng` (in @noisy_helper) draws random numbers}}
      %2 = "stablehlo.rng"(%b, %b, %shape) <{rng_distribution = #stablehlo<rng_distribution NORMAL>}> : (tensor<f32>, tensor<f32>, tensor<0xi64>) -> tensor<f32>
      "stablehlo.return"(%2) : (tensor<f32>) -> ()
    }) : (tensor<f32>) -> tensor<f32>
    "func.return"(%0) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// An empty call_target_name is reported like any unknown target (and does not crash).
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "empty_target"}> ({
^bb0(%x: tensor<f32>):
  // expected-error @+1 {{`stablehlo.custom_call` (in @empty_target) calls ``, which is not in the known-pure allowlist}}
  %0 = "stablehlo.custom_call"(%x) <{call_target_name = ""}> : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// The pass runs where the user puts it: a later chunk still gets processed
// after failures, and passing chunks are printed.
// CHECK-LABEL: sym_name = "last_pure"
// CHECK:         "stablehlo.multiply"
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "last_pure"}> ({
^bb0(%x: tensor<f32>):
  %0 = "stablehlo.multiply"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()

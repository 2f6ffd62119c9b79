// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-slice-update %s | FileCheck %s
// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-slice-update=output=attested %s | FileCheck %s --check-prefix=ATT
// RUN: not zkdv-opt --zkdv-slice-update=output=everything %s 2>&1 | FileCheck %s --check-prefix=OPT

// Each chunk is one module; chunks that break a precondition fail with the
// diagnostic their `expected-error` comment names (--verify-diagnostics)
// while the others are printed.
// OPT: zkdv-opt: error: --zkdv-slice-update: `output=everything` is not valid: output takes one of both|attested|replay

// A step with an f32 matrix and a bf16 scalar parameter, one optimizer-state
// leaf and a loss. The attested function selects across both delta leaves
// (reshape + dynamic_slice + masked select, bf16 converted to f32), keeps the
// momentum, and drops the loss reduction and the parameter application.
// CHECK-LABEL: sym_name = "main"
// CHECK:         "stablehlo.reduce"
// CHECK-LABEL: function_type = (tensor<2x3xf32>, tensor<bf16>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<ui64>, tensor<ui64>) -> (tensor<f32>, tensor<f32>), res_attrs = [{zkdv.role = "selected_delta"}, {zkdv.role = "selected_post_optimizer_state"}], sym_name = "zkdv_attested"
// CHECK-NEXT:  ^bb0([[W:%arg[0-9]+]]: tensor<2x3xf32>, %{{.*}}: tensor<bf16>, [[MOM:%arg[0-9]+]]: tensor<2x3xf32>
// CHECK-NOT:     "stablehlo.reduce"
// CHECK:         %[[M:.*]] = "stablehlo.add"([[MOM]], %{{.*}}) : (tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:         %[[D:.*]] = "stablehlo.negate"(%[[M]])
// CHECK-NOT:     "stablehlo.add"([[W]]
// CHECK:         "stablehlo.reshape"(%[[D]]) : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK:         "stablehlo.dynamic_slice"({{.*}}) {slice_sizes = array<i64: 1>} : (tensor<6xf32>, tensor<ui64>) -> tensor<1xf32>
// CHECK:         value = dense<6> : tensor<ui64>
// CHECK:         value = dense<7> : tensor<ui64>
// CHECK:         "stablehlo.convert"({{.*}}) : (tensor<bf16>) -> tensor<f32>
// CHECK:         "stablehlo.reshape"(%[[M]]) : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK:         "func.return"({{.*}}) : (tensor<f32>, tensor<f32>) -> ()
// CHECK-LABEL: sym_name = "zkdv_replay"
// CHECK-NOT:     "stablehlo.reduce"
// CHECK:         "func.return"({{.*}}) : (tensor<2x3xf32>, tensor<bf16>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<bf16>) -> ()
// With output=attested only the attested function is left, under the entry's name.
// ATT:         function_type = (tensor<2x3xf32>, tensor<bf16>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<ui64>, tensor<ui64>) -> (tensor<f32>, tensor<f32>)
// ATT-SAME:    sym_name = "main"
// ATT-NOT:     sym_name
// ATT:         // -----
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{zkdv.path = "w", zkdv.role = "param"}, {zkdv.path = "s", zkdv.role = "param"}, {zkdv.path = "m/w", zkdv.role = "opt_state"}, {zkdv.path = "x", zkdv.role = "batch"}], function_type = (tensor<2x3xf32>, tensor<bf16>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<bf16>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<bf16>, tensor<f32>), res_attrs = [{zkdv.path = "w", zkdv.role = "post_param"}, {zkdv.path = "s", zkdv.role = "post_param"}, {zkdv.path = "m/w", zkdv.role = "post_opt_state"}, {zkdv.path = "w", zkdv.role = "delta"}, {zkdv.path = "s", zkdv.role = "delta"}, {zkdv.path = "loss", zkdv.role = "user"}], sym_name = "main"}> ({
  ^bb0(%w: tensor<2x3xf32>, %s: tensor<bf16>, %m: tensor<2x3xf32>, %x: tensor<2x3xf32>):
    %g = "stablehlo.multiply"(%w, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %m2 = "stablehlo.add"(%m, %g) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %d = "stablehlo.negate"(%m2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %w2 = "stablehlo.add"(%w, %d) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ds = "stablehlo.negate"(%s) : (tensor<bf16>) -> tensor<bf16>
    %s2 = "stablehlo.add"(%s, %ds) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %loss = "stablehlo.reduce"(%g, %zero) <{dimensions = array<i64: 0, 1>}> ({
    ^bb1(%a: tensor<f32>, %b: tensor<f32>):
      %sum = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%sum) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%w2, %s2, %m2, %d, %ds, %loss) : (tensor<2x3xf32>, tensor<bf16>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<bf16>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// No optimizer state (plain SGD): the state output is the constant 0.0 and the
// delta of a size-1 leaf needs no reshape.
// CHECK-LABEL: sym_name = "zkdv_attested"
// CHECK:         %[[Z:.*]] = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>}
// CHECK:         "stablehlo.dynamic_slice"(%{{.*}}, %{{.*}}) {slice_sizes = array<i64: 1>} : (tensor<1xf32>, tensor<ui64>) -> tensor<1xf32>
// CHECK:         %[[Z2:.*]] = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>}
// CHECK-NEXT:    "func.return"(%{{.*}}, %[[Z2]])
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{zkdv.path = "b", zkdv.role = "param"}, {zkdv.path = "x", zkdv.role = "batch"}], function_type = (tensor<1xf32>, tensor<1xf32>) -> (tensor<1xf32>, tensor<1xf32>), res_attrs = [{zkdv.path = "b", zkdv.role = "post_param"}, {zkdv.path = "b", zkdv.role = "delta"}], sym_name = "main"}> ({
  ^bb0(%b: tensor<1xf32>, %x: tensor<1xf32>):
    %d = "stablehlo.multiply"(%b, %x) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    %b2 = "stablehlo.add"(%b, %d) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    "func.return"(%b2, %d) : (tensor<1xf32>, tensor<1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A program without roles is refused at the function.
"builtin.module"() ({
  // expected-error @+1 {{@main is a program without roles}}
  "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<f32>):
    "func.return"(%x) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Calls must be inlined first.
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{zkdv.path = "w", zkdv.role = "param"}], function_type = (tensor<f32>) -> (tensor<f32>, tensor<f32>), res_attrs = [{zkdv.path = "w", zkdv.role = "post_param"}, {zkdv.path = "w", zkdv.role = "delta"}], sym_name = "main"}> ({
  ^bb0(%w: tensor<f32>):
    // expected-error @+1 {{--zkdv-slice-update needs an inlined program: run --zkdv-inline first}}
    %d = "func.call"(%w) <{callee = @helper}> : (tensor<f32>) -> tensor<f32>
    "func.return"(%w, %d) : (tensor<f32>, tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "helper", sym_visibility = "private"}> ({
  ^bb0(%x: tensor<f32>):
    "func.return"(%x) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// The attested ABI takes params, then optimizer state, then the batch.
"builtin.module"() ({
  // expected-error @+1 {{argument 1 (w) is `param` after a later tree}}
  "func.func"() <{arg_attrs = [{zkdv.path = "m", zkdv.role = "opt_state"}, {zkdv.path = "w", zkdv.role = "param"}], function_type = (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>), res_attrs = [{zkdv.path = "w", zkdv.role = "post_param"}, {zkdv.path = "m", zkdv.role = "post_opt_state"}, {zkdv.path = "w", zkdv.role = "delta"}], sym_name = "main"}> ({
  ^bb0(%m: tensor<f32>, %w: tensor<f32>):
    "func.return"(%w, %m, %m) : (tensor<f32>, tensor<f32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A step must return its additive update.
"builtin.module"() ({
  // expected-error @+1 {{the step has no `delta` result: return the additive update}}
  "func.func"() <{arg_attrs = [{zkdv.path = "w", zkdv.role = "param"}], function_type = (tensor<f32>) -> tensor<f32>, res_attrs = [{zkdv.path = "w", zkdv.role = "post_param"}], sym_name = "main"}> ({
  ^bb0(%w: tensor<f32>):
    "func.return"(%w) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A data-parallel step written with `jax.shard_map`: the gradient comes out of
// an `sdy.manual_computation` (each device's rows, summed by `all_reduce`
// over the mesh axis). Both functions keep the manual computation whole, its
// body and terminator included; the attested one selects from the delta
// computed outside it.
// CHECK-LABEL: sym_name = "zkdv_attested"
// CHECK:         %[[G:.*]]:2 = "sdy.manual_computation"(%{{.*}}, %{{.*}})
// CHECK-SAME:      manual_axes = #sdy<manual_axes{"d"}>
// CHECK:           "stablehlo.all_reduce"
// CHECK:           "sdy.return"
// CHECK:         "stablehlo.negate"(%[[G]]#0)
// CHECK:         "stablehlo.dynamic_slice"
// CHECK-LABEL: sym_name = "zkdv_replay"
// CHECK:         "sdy.manual_computation"
// CHECK:           "sdy.return"
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=2]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "d", size = 2 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{zkdv.path = "w", zkdv.role = "param"}, {zkdv.path = "x", zkdv.role = "batch"}], function_type = (tensor<4xf32>, tensor<8x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>), res_attrs = [{zkdv.path = "w", zkdv.role = "post_param"}, {zkdv.path = "w", zkdv.role = "delta"}, {zkdv.path = "loss", zkdv.role = "user"}], sym_name = "main"}> ({
  ^bb0(%w: tensor<4xf32>, %x: tensor<8x4xf32>):
    %g:2 = "sdy.manual_computation"(%w, %x) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}]>, <@mesh, [{"d"}, {}]>]>, manual_axes = #sdy<manual_axes{"d"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}]>, <@mesh, []>]>}> ({
    ^bb0(%ws: tensor<4xf32>, %xs: tensor<4x4xf32>):
      %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
      %col = "stablehlo.reduce"(%xs, %zero) <{dimensions = array<i64: 0>}> ({
      ^bb1(%a: tensor<f32>, %b: tensor<f32>):
        %sum = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%sum) : (tensor<f32>) -> ()
      }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      %local = "stablehlo.multiply"(%col, %ws) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %total = "stablehlo.all_reduce"(%local) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "d">]>, use_global_device_ids}> ({
      ^bb1(%a: tensor<f32>, %b: tensor<f32>):
        %sum = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%sum) : (tensor<f32>) -> ()
      }) : (tensor<4xf32>) -> tensor<4xf32>
      %part = "stablehlo.reduce"(%local, %zero) <{dimensions = array<i64: 0>}> ({
      ^bb1(%a: tensor<f32>, %b: tensor<f32>):
        %sum = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%sum) : (tensor<f32>) -> ()
      }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
      %loss = "stablehlo.all_reduce"(%part) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "d">]>, use_global_device_ids}> ({
      ^bb1(%a: tensor<f32>, %b: tensor<f32>):
        %sum = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%sum) : (tensor<f32>) -> ()
      }) : (tensor<f32>) -> tensor<f32>
      "sdy.return"(%total, %loss) : (tensor<4xf32>, tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<8x4xf32>) -> (tensor<4xf32>, tensor<f32>)
    %d = "stablehlo.negate"(%g#0) : (tensor<4xf32>) -> tensor<4xf32>
    %w2 = "stablehlo.add"(%w, %d) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%w2, %d, %g#1) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

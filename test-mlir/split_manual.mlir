// RUN: zkdv-opt --split-input-file --zkdv-split-manual %s | FileCheck %s

// A `jax.shard_map` body with two used results (the averaged gradient and the
// loss): each gets its own copy of the manual computation, whose body returns
// zeros for the other result and has lost the ops only that result needed,
// collectives included. The original is gone.
// CHECK-LABEL: sym_name = "main"
// CHECK:         %[[G:.*]]:2 = "sdy.manual_computation"(%arg0, %arg1)
// CHECK:           %[[LOCAL:.*]] = "stablehlo.multiply"
// CHECK:           %[[TOTAL:.*]] = "stablehlo.all_reduce"(%[[LOCAL]])
// CHECK-NOT:       "stablehlo.all_reduce"
// CHECK:           %[[Z:.*]] = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>}
// CHECK:           "sdy.return"(%[[TOTAL]], %[[Z]]) : (tensor<4xf32>, tensor<f32>) -> ()
// CHECK:         %[[L:.*]]:2 = "sdy.manual_computation"(%arg0, %arg1)
// CHECK:           %[[LOCAL2:.*]] = "stablehlo.multiply"
// CHECK-NOT:       "stablehlo.all_reduce"(%[[LOCAL2]])
// CHECK:           %[[PART:.*]] = "stablehlo.reduce"(%[[LOCAL2]]
// CHECK:           %[[LOSS:.*]] = "stablehlo.all_reduce"(%[[PART]])
// CHECK:           %[[Z2:.*]] = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<4xf32>}
// CHECK:           "sdy.return"(%[[Z2]], %[[LOSS]]) : (tensor<4xf32>, tensor<f32>) -> ()
// CHECK-NOT:     "sdy.manual_computation"
// CHECK:         %[[D:.*]] = "stablehlo.negate"(%[[G]]#0)
// CHECK:         "func.return"(%{{.*}}, %[[D]], %[[L]]#1)
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<8x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>), sym_name = "main"}> ({
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

// -----

// One used result: the op is pruned in place, not copied; the unused
// result's all_reduce goes.
// CHECK-LABEL: sym_name = "one"
// CHECK:         "sdy.manual_computation"
// CHECK-NOT:       "stablehlo.all_reduce"
// CHECK:           "sdy.return"(%{{.*}}, %{{.*}}) : (tensor<2xf32>, tensor<2xf32>) -> ()
// CHECK-NOT:     "sdy.manual_computation"
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<2xf32>, sym_name = "one"}> ({
  ^bb0(%x: tensor<4xf32>):
    %r:2 = "sdy.manual_computation"(%x) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}]>]>, manual_axes = #sdy<manual_axes{"d"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, []>, <@mesh, []>]>}> ({
    ^bb0(%xs: tensor<2xf32>):
      %sq = "stablehlo.multiply"(%xs, %xs) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %s = "stablehlo.all_reduce"(%sq) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "d">]>, use_global_device_ids}> ({
      ^bb1(%a: tensor<f32>, %b: tensor<f32>):
        %sum = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%sum) : (tensor<f32>) -> ()
      }) : (tensor<2xf32>) -> tensor<2xf32>
      "sdy.return"(%xs, %s) : (tensor<2xf32>, tensor<2xf32>) -> ()
    }) : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    "func.return"(%r#0) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()

"builtin.module"() <{sym_name = "jit_step"}> ({
  "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32}, {tf.aliasing_output = 1 : i32}, {}, {}], function_type = (tensor<f32>, tensor<5xf32>, tensor<8x5xf32>, tensor<8xf32>) -> (tensor<f32>, tensor<5xf32>, tensor<f32>, tensor<5xf32>, tensor<f32>), res_attrs = [{jax.result_info = "result[0]['b']"}, {jax.result_info = "result[0]['w']"}, {jax.result_info = "result[2]['b']"}, {jax.result_info = "result[2]['w']"}, {jax.result_info = "result[3]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg8: tensor<f32>, %arg9: tensor<5xf32>, %arg10: tensor<8x5xf32>, %arg11: tensor<8xf32>):
    %53 = "stablehlo.dot_general"(%arg10, %arg9) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x5xf32>, tensor<5xf32>) -> tensor<8xf32>
    %54 = "stablehlo.broadcast_in_dim"(%arg8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %55 = "stablehlo.add"(%53, %54) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %56:3 = "func.call"(%55) <{callee = @log_sigmoid}> : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
    %57 = "stablehlo.negate"(%55) : (tensor<8xf32>) -> tensor<8xf32>
    %58:3 = "func.call"(%57) <{callee = @log_sigmoid}> : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
    %59 = "stablehlo.negate"(%arg11) : (tensor<8xf32>) -> tensor<8xf32>
    %60 = "stablehlo.multiply"(%59, %56#0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %61 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %62 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %63 = "stablehlo.subtract"(%62, %arg11) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %64 = "stablehlo.multiply"(%63, %58#0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %65 = "stablehlo.subtract"(%60, %64) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %66 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %67 = "stablehlo.reduce"(%65, %66) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
      %92 = "stablehlo.add"(%arg14, %arg15) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%92) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %68 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %69 = "stablehlo.divide"(%67, %68) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %70 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %71 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %72 = "stablehlo.divide"(%70, %71) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %73 = "stablehlo.broadcast_in_dim"(%72) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %74 = "stablehlo.negate"(%73) : (tensor<8xf32>) -> tensor<8xf32>
    %75 = "stablehlo.multiply"(%63, %74) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %76 = "stablehlo.multiply"(%59, %73) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %77 = "func.call"(%58#1, %58#2, %75) <{callee = @log_sigmoid_0}> : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %78 = "stablehlo.negate"(%77) : (tensor<8xf32>) -> tensor<8xf32>
    %79 = "func.call"(%56#1, %56#2, %76) <{callee = @log_sigmoid_0}> : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %80 = "stablehlo.add"(%78, %79) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %81 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %82 = "stablehlo.reduce"(%80, %81) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
      %91 = "stablehlo.add"(%arg12, %arg13) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%91) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %83 = "stablehlo.dot_general"(%80, %arg10) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8xf32>, tensor<8x5xf32>) -> tensor<5xf32>
    %84 = "stablehlo.constant"() <{value = dense<-1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %85 = "stablehlo.multiply"(%84, %82) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %86 = "stablehlo.constant"() <{value = dense<-1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %87 = "stablehlo.broadcast_in_dim"(%86) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5xf32>
    %88 = "stablehlo.multiply"(%87, %83) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
    %89 = "stablehlo.add"(%arg8, %85) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %90 = "stablehlo.add"(%arg9, %88) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
    "func.return"(%89, %90, %85, %88, %69) : (tensor<f32>, tensor<5xf32>, tensor<f32>, tensor<5xf32>, tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>), res_attrs = [{}, {}, {}], sym_name = "log_sigmoid", sym_visibility = "private"}> ({
  ^bb0(%arg7: tensor<8xf32>):
    %50 = "stablehlo.negate"(%arg7) : (tensor<8xf32>) -> tensor<8xf32>
    %51:3 = "func.call"(%50) <{callee = @softplus}> : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
    %52 = "stablehlo.negate"(%51#0) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%52, %51#1, %51#2) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>), res_attrs = [{}, {}, {}], sym_name = "softplus", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<8xf32>):
    %4 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %6 = "stablehlo.maximum"(%arg6, %5) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %7 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %8 = "stablehlo.subtract"(%arg6, %7) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %9 = "stablehlo.compare"(%8, %8) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %10 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %11 = "stablehlo.add"(%arg6, %10) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %12 = "stablehlo.abs"(%8) : (tensor<8xf32>) -> tensor<8xf32>
    %13 = "stablehlo.negate"(%12) : (tensor<8xf32>) -> tensor<8xf32>
    %14 = "stablehlo.exponential"(%13) : (tensor<8xf32>) -> tensor<8xf32>
    %15 = "stablehlo.log_plus_one"(%14) : (tensor<8xf32>) -> tensor<8xf32>
    %16 = "stablehlo.add"(%6, %15) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %17 = "stablehlo.select"(%9, %11, %16) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %18 = "stablehlo.constant"() <{value = dense<0x7F800000> : tensor<f32>}> : () -> tensor<f32>
    %19 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %20 = "stablehlo.compare"(%arg6, %19) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %21 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %22 = "stablehlo.broadcast_in_dim"(%21) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %23 = "stablehlo.select"(%20, %22, %arg6) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %24 = "stablehlo.constant"() <{value = dense<0x7F800000> : tensor<f32>}> : () -> tensor<f32>
    %25 = "stablehlo.broadcast_in_dim"(%24) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %26 = "stablehlo.compare"(%17, %25) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %27 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %28 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %29 = "stablehlo.select"(%26, %28, %17) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %30 = "stablehlo.subtract"(%23, %29) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %31 = "stablehlo.exponential"(%30) : (tensor<8xf32>) -> tensor<8xf32>
    %32 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %33 = "stablehlo.constant"() <{value = dense<0x7F800000> : tensor<f32>}> : () -> tensor<f32>
    %34 = "stablehlo.compare"(%32, %33) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %35 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %36 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %37 = "stablehlo.select"(%34, %36, %35) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %38 = "stablehlo.constant"() <{value = dense<0x7F800000> : tensor<f32>}> : () -> tensor<f32>
    %39 = "stablehlo.broadcast_in_dim"(%38) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %40 = "stablehlo.compare"(%17, %39) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %41 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %42 = "stablehlo.broadcast_in_dim"(%41) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %43 = "stablehlo.select"(%40, %42, %17) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %44 = "stablehlo.broadcast_in_dim"(%37) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %45 = "stablehlo.subtract"(%44, %43) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %46 = "stablehlo.exponential"(%45) : (tensor<8xf32>) -> tensor<8xf32>
    %47 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %48 = "stablehlo.broadcast_in_dim"(%47) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %49 = "stablehlo.multiply"(%48, %46) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%17, %31, %49) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{}], sym_name = "log_sigmoid_0", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<8xf32>, %arg4: tensor<8xf32>, %arg5: tensor<8xf32>):
    %1 = "stablehlo.negate"(%arg5) : (tensor<8xf32>) -> tensor<8xf32>
    %2 = "func.call"(%arg3, %arg4, %1) <{callee = @softplus_1}> : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %3 = "stablehlo.negate"(%2) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%3) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{}], sym_name = "softplus_1", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>):
    %0 = "stablehlo.multiply"(%arg2, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

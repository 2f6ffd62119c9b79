"builtin.module"() <{sym_name = "jit_canonical"}> ({
  "func.func"() <{arg_attrs = [{zkdv.path = "0", zkdv.role = "param"}, {zkdv.path = "1", zkdv.role = "param"}, {zkdv.path = "2", zkdv.role = "param"}, {zkdv.path = "3", zkdv.role = "param"}, {zkdv.path = "0", zkdv.role = "opt_state"}, {zkdv.path = "1", zkdv.role = "opt_state"}, {zkdv.path = "2", zkdv.role = "opt_state"}, {zkdv.path = "3", zkdv.role = "opt_state"}, {zkdv.path = "4", zkdv.role = "opt_state"}, {zkdv.path = "5", zkdv.role = "opt_state"}, {zkdv.path = "6", zkdv.role = "opt_state"}, {zkdv.path = "7", zkdv.role = "opt_state"}, {zkdv.path = "8", zkdv.role = "opt_state"}, {zkdv.path = "9", zkdv.role = "opt_state"}, {zkdv.path = "arg14", zkdv.role = "batch"}], function_type = (tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<9x17xui32>) -> (tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>), res_attrs = [{jax.result_info = "result[0][0]", zkdv.path = "0", zkdv.role = "post_param"}, {jax.result_info = "result[0][1]", zkdv.path = "1", zkdv.role = "post_param"}, {jax.result_info = "result[0][2]", zkdv.path = "2", zkdv.role = "post_param"}, {jax.result_info = "result[0][3]", zkdv.path = "3", zkdv.role = "post_param"}, {jax.result_info = "result[1][0]", zkdv.path = "0", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][1]", zkdv.path = "1", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][2]", zkdv.path = "2", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][3]", zkdv.path = "3", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][4]", zkdv.path = "4", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][5]", zkdv.path = "5", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][6]", zkdv.path = "6", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][7]", zkdv.path = "7", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][8]", zkdv.path = "8", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][9]", zkdv.path = "9", zkdv.role = "post_opt_state"}, {jax.result_info = "result[2][0]", zkdv.path = "0", zkdv.role = "delta"}, {jax.result_info = "result[2][1]", zkdv.path = "1", zkdv.role = "delta"}, {jax.result_info = "result[2][2]", zkdv.path = "2", zkdv.role = "delta"}, {jax.result_info = "result[2][3]", zkdv.path = "3", zkdv.role = "delta"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<4xf32>, %arg3: tensor<32x4xf32>, %arg4: tensor<i32>, %arg5: tensor<32xf32>, %arg6: tensor<16x32xf32>, %arg7: tensor<4xf32>, %arg8: tensor<32x4xf32>, %arg9: tensor<32xf32>, %arg10: tensor<16x32xf32>, %arg11: tensor<4xf32>, %arg12: tensor<32x4xf32>, %arg13: tensor<i32>, %arg14: tensor<9x17xui32>):
    %0 = "stablehlo.constant"() <{value = dense<-1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.constant"() <{value = dense<0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %3 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %4 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %6 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %7 = "stablehlo.constant"() <{value = dense<2147483647> : tensor<i32>}> : () -> tensor<i32>
    %8 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %9 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %10 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %11 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %12 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %13 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %14 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %15 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %16 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %17 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %18 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
    %19 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
    %20 = "stablehlo.constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %21 = "stablehlo.slice"(%arg14) <{limit_indices = array<i64: 8, 16>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<9x17xui32>) -> tensor<8x16xui32>
    %22 = "stablehlo.bitcast_convert"(%21) : (tensor<8x16xui32>) -> tensor<8x16xf32>
    %23 = "stablehlo.slice"(%arg14) <{limit_indices = array<i64: 8, 17>, start_indices = array<i64: 0, 16>, strides = array<i64: 1, 1>}> : (tensor<9x17xui32>) -> tensor<8x1xui32>
    %24 = "stablehlo.bitcast_convert"(%23) : (tensor<8x1xui32>) -> tensor<8x1xi32>
    %25 = "stablehlo.reshape"(%24) : (tensor<8x1xi32>) -> tensor<8xi32>
    %26 = "stablehlo.dot_general"(%22, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %27 = "stablehlo.reshape"(%arg0) : (tensor<32xf32>) -> tensor<1x32xf32>
    %28 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %29 = "stablehlo.add"(%26, %28) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %30 = "stablehlo.multiply"(%29, %29) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %31 = "stablehlo.multiply"(%30, %29) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %32 = "stablehlo.multiply"(%29, %29) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %33 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %34 = "stablehlo.multiply"(%33, %32) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %35 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %36 = "stablehlo.multiply"(%35, %31) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %37 = "stablehlo.add"(%29, %36) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %38 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %39 = "stablehlo.multiply"(%38, %37) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %40 = "stablehlo.tanh"(%39) : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %41 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %42 = "stablehlo.add"(%41, %40) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %43 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %44 = "stablehlo.subtract"(%43, %40) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %45 = "stablehlo.multiply"(%42, %44) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %46 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %47 = "stablehlo.add"(%46, %40) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %48 = "stablehlo.broadcast_in_dim"(%16) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %49 = "stablehlo.multiply"(%48, %47) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %50 = "stablehlo.multiply"(%29, %49) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %51 = "stablehlo.dot_general"(%50, %arg3) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
    %52 = "stablehlo.reshape"(%arg2) : (tensor<4xf32>) -> tensor<1x4xf32>
    %53 = "stablehlo.broadcast_in_dim"(%52) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x4xf32>) -> tensor<8x4xf32>
    %54 = "stablehlo.add"(%51, %53) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %55 = "stablehlo.broadcast_in_dim"(%25) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xi32>) -> tensor<8x1xi32>
    %56 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %57 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %58 = "stablehlo.broadcast_in_dim"(%57) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8x1xi32>
    %59 = "stablehlo.compare"(%55, %58) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi1>
    %60 = "stablehlo.broadcast_in_dim"(%56) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8x1xi32>
    %61 = "stablehlo.add"(%55, %60) : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi32>
    %62 = "stablehlo.select"(%59, %61, %55) : (tensor<8x1xi1>, tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi32>
    %63 = "stablehlo.reshape"(%62) : (tensor<8x1xi32>) -> tensor<8x1x1xi32>
    %64 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %65 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %66 = "stablehlo.compare"(%15, %65) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %67 = "stablehlo.add"(%15, %64) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %68 = "stablehlo.select"(%66, %67, %15) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %69 = "stablehlo.broadcast_in_dim"(%68) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<1xi32>
    %70 = "stablehlo.reduce"(%54, %14) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg25: tensor<f32>, %arg26: tensor<f32>):
      %249 = "stablehlo.maximum"(%arg25, %arg26) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%249) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
    %71 = "stablehlo.broadcast_in_dim"(%14) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %72 = "stablehlo.maximum"(%71, %70) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %73 = "stablehlo.is_finite"(%72) : (tensor<8xf32>) -> tensor<8xi1>
    %74 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %75 = "stablehlo.select"(%73, %72, %74) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %76 = "stablehlo.broadcast_in_dim"(%75) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %77 = "stablehlo.broadcast_in_dim"(%76) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %78 = "stablehlo.subtract"(%54, %77) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %79 = "stablehlo.exponential"(%78) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %80 = "stablehlo.reduce"(%79, %13) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg23: tensor<f32>, %arg24: tensor<f32>):
      %248 = "stablehlo.add"(%arg23, %arg24) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%248) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
    %81 = "stablehlo.abs"(%80) : (tensor<8xf32>) -> tensor<8xf32>
    %82 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %83 = "stablehlo.compare"(%80, %82) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %84 = "stablehlo.divide"(%17, %12) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %85 = "stablehlo.broadcast_in_dim"(%84) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %86 = "stablehlo.negate"(%85) : (tensor<8xf32>) -> tensor<8xf32>
    %87 = "stablehlo.divide"(%85, %81) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %88 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %89 = "stablehlo.select"(%83, %88, %87) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %90 = "stablehlo.select"(%83, %87, %88) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %91 = "stablehlo.negate"(%89) : (tensor<8xf32>) -> tensor<8xf32>
    %92 = "stablehlo.add"(%90, %91) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %93 = "stablehlo.broadcast_in_dim"(%92) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x4xf32>
    %94 = "stablehlo.multiply"(%93, %79) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %95 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %96 = "stablehlo.broadcast_in_dim"(%95) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %97 = "stablehlo.scatter"(%96, %69, %86) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>}> ({
    ^bb0(%arg21: tensor<f32>, %arg22: tensor<f32>):
      %247 = "stablehlo.add"(%arg21, %arg22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%247) : (tensor<f32>) -> ()
    }) : (tensor<8x1xf32>, tensor<1xi32>, tensor<8xf32>) -> tensor<8x1xf32>
    %98 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %99 = "stablehlo.broadcast_in_dim"(%98) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x4xf32>
    %100 = "stablehlo.scatter"(%99, %63, %97) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>}> ({
    ^bb0(%arg19: tensor<f32>, %arg20: tensor<f32>):
      %246 = "stablehlo.add"(%arg19, %arg20) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%246) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>, tensor<8x1x1xi32>, tensor<8x1xf32>) -> tensor<8x4xf32>
    %101 = "stablehlo.add"(%94, %100) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %102 = "stablehlo.reduce"(%101, %13) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg17: tensor<f32>, %arg18: tensor<f32>):
      %245 = "stablehlo.add"(%arg17, %arg18) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%245) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %103 = "stablehlo.reshape"(%102) : (tensor<4xf32>) -> tensor<1x4xf32>
    %104 = "stablehlo.reshape"(%103) : (tensor<1x4xf32>) -> tensor<4xf32>
    %105 = "stablehlo.dot_general"(%101, %50) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x4xf32>, tensor<8x32xf32>) -> tensor<4x32xf32>
    %106 = "stablehlo.transpose"(%105) <{permutation = array<i64: 1, 0>}> : (tensor<4x32xf32>) -> tensor<32x4xf32>
    %107 = "stablehlo.dot_general"(%101, %arg3) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}> : (tensor<8x4xf32>, tensor<32x4xf32>) -> tensor<8x32xf32>
    %108 = "stablehlo.multiply"(%29, %107) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %109 = "stablehlo.multiply"(%107, %49) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %110 = "stablehlo.broadcast_in_dim"(%16) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %111 = "stablehlo.multiply"(%110, %108) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %112 = "stablehlo.multiply"(%111, %45) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %113 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %114 = "stablehlo.multiply"(%113, %112) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %115 = "stablehlo.add"(%109, %114) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %116 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %117 = "stablehlo.multiply"(%116, %114) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %118 = "stablehlo.multiply"(%117, %34) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %119 = "stablehlo.add"(%115, %118) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %120 = "stablehlo.reduce"(%119, %13) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
      %244 = "stablehlo.add"(%arg15, %arg16) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%244) : (tensor<f32>) -> ()
    }) : (tensor<8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %121 = "stablehlo.reshape"(%120) : (tensor<32xf32>) -> tensor<1x32xf32>
    %122 = "stablehlo.reshape"(%121) : (tensor<1x32xf32>) -> tensor<32xf32>
    %123 = "stablehlo.dot_general"(%119, %22) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x32xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
    %124 = "stablehlo.transpose"(%123) <{permutation = array<i64: 1, 0>}> : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %125 = "stablehlo.broadcast_in_dim"(%11) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %126 = "stablehlo.multiply"(%125, %122) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %127 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %128 = "stablehlo.multiply"(%127, %arg5) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %129 = "stablehlo.add"(%126, %128) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %130 = "stablehlo.broadcast_in_dim"(%11) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %131 = "stablehlo.multiply"(%130, %124) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %132 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %133 = "stablehlo.multiply"(%132, %arg6) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %134 = "stablehlo.add"(%131, %133) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %135 = "stablehlo.broadcast_in_dim"(%11) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %136 = "stablehlo.multiply"(%135, %104) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %137 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %138 = "stablehlo.multiply"(%137, %arg7) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %139 = "stablehlo.add"(%136, %138) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %140 = "stablehlo.broadcast_in_dim"(%11) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %141 = "stablehlo.multiply"(%140, %106) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %142 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %143 = "stablehlo.multiply"(%142, %arg8) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %144 = "stablehlo.add"(%141, %143) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %145 = "stablehlo.multiply"(%122, %122) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %146 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %147 = "stablehlo.multiply"(%146, %145) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %148 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %149 = "stablehlo.multiply"(%148, %arg9) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %150 = "stablehlo.add"(%147, %149) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %151 = "stablehlo.multiply"(%124, %124) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %152 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %153 = "stablehlo.multiply"(%152, %151) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %154 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %155 = "stablehlo.multiply"(%154, %arg10) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %156 = "stablehlo.add"(%153, %155) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %157 = "stablehlo.multiply"(%104, %104) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %158 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %159 = "stablehlo.multiply"(%158, %157) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %160 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %161 = "stablehlo.multiply"(%160, %arg11) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %162 = "stablehlo.add"(%159, %161) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %163 = "stablehlo.multiply"(%106, %106) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %164 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %165 = "stablehlo.multiply"(%164, %163) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %166 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %167 = "stablehlo.multiply"(%166, %arg12) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %168 = "stablehlo.add"(%165, %167) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %169 = "stablehlo.compare"(%arg4, %7) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %170 = "stablehlo.add"(%arg4, %6) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %171 = "stablehlo.select"(%169, %170, %7) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %172 = "stablehlo.convert"(%171) : (tensor<i32>) -> tensor<f32>
    %173 = "stablehlo.power"(%10, %172) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %174 = "stablehlo.subtract"(%17, %173) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %175 = "stablehlo.broadcast_in_dim"(%174) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %176 = "stablehlo.divide"(%129, %175) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %177 = "stablehlo.broadcast_in_dim"(%174) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %178 = "stablehlo.divide"(%134, %177) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %179 = "stablehlo.broadcast_in_dim"(%174) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %180 = "stablehlo.divide"(%139, %179) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %181 = "stablehlo.broadcast_in_dim"(%174) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %182 = "stablehlo.divide"(%144, %181) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %183 = "stablehlo.convert"(%171) : (tensor<i32>) -> tensor<f32>
    %184 = "stablehlo.power"(%8, %183) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %185 = "stablehlo.subtract"(%17, %184) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %186 = "stablehlo.broadcast_in_dim"(%185) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %187 = "stablehlo.divide"(%150, %186) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %188 = "stablehlo.broadcast_in_dim"(%185) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %189 = "stablehlo.divide"(%156, %188) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %190 = "stablehlo.broadcast_in_dim"(%185) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %191 = "stablehlo.divide"(%162, %190) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %192 = "stablehlo.broadcast_in_dim"(%185) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %193 = "stablehlo.divide"(%168, %192) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %194 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %195 = "stablehlo.add"(%187, %194) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %196 = "stablehlo.sqrt"(%195) : (tensor<32xf32>) -> tensor<32xf32>
    %197 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %198 = "stablehlo.add"(%196, %197) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %199 = "stablehlo.divide"(%176, %198) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %200 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %201 = "stablehlo.add"(%189, %200) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %202 = "stablehlo.sqrt"(%201) : (tensor<16x32xf32>) -> tensor<16x32xf32>
    %203 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %204 = "stablehlo.add"(%202, %203) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %205 = "stablehlo.divide"(%178, %204) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %206 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %207 = "stablehlo.add"(%191, %206) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %208 = "stablehlo.sqrt"(%207) : (tensor<4xf32>) -> tensor<4xf32>
    %209 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %210 = "stablehlo.add"(%208, %209) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %211 = "stablehlo.divide"(%180, %210) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %212 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %213 = "stablehlo.add"(%193, %212) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %214 = "stablehlo.sqrt"(%213) : (tensor<32x4xf32>) -> tensor<32x4xf32>
    %215 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %216 = "stablehlo.add"(%214, %215) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %217 = "stablehlo.divide"(%182, %216) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %218 = "stablehlo.subtract"(%arg13, %15) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %219 = "stablehlo.convert"(%15) : (tensor<i32>) -> tensor<i32>
    %220 = "stablehlo.maximum"(%219, %218) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %221 = "stablehlo.convert"(%4) : (tensor<i32>) -> tensor<i32>
    %222 = "stablehlo.minimum"(%221, %220) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %223 = "stablehlo.convert"(%222) : (tensor<i32>) -> tensor<f32>
    %224 = "stablehlo.divide"(%223, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %225 = "stablehlo.subtract"(%17, %224) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %226 = "stablehlo.multiply"(%2, %225) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %227 = "stablehlo.add"(%226, %1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %228 = "stablehlo.multiply"(%0, %227) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %229 = "stablehlo.broadcast_in_dim"(%228) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %230 = "stablehlo.multiply"(%229, %199) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %231 = "stablehlo.broadcast_in_dim"(%228) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %232 = "stablehlo.multiply"(%231, %205) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %233 = "stablehlo.broadcast_in_dim"(%228) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %234 = "stablehlo.multiply"(%233, %211) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %235 = "stablehlo.broadcast_in_dim"(%228) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %236 = "stablehlo.multiply"(%235, %217) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %237 = "stablehlo.compare"(%arg13, %7) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %238 = "stablehlo.add"(%arg13, %6) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %239 = "stablehlo.select"(%237, %238, %7) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %240 = "stablehlo.add"(%arg0, %230) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %241 = "stablehlo.add"(%arg1, %232) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %242 = "stablehlo.add"(%arg2, %234) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %243 = "stablehlo.add"(%arg3, %236) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    "func.return"(%240, %241, %242, %243, %171, %129, %134, %139, %144, %150, %156, %162, %168, %239, %230, %232, %234, %236) : (tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>) -> ()
  }) : () -> ()
}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

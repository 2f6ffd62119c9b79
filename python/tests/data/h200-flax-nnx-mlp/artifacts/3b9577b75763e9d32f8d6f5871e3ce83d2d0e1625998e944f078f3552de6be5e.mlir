"builtin.module"() <{sym_name = "jit_canonical"}> ({
  "func.func"() <{arg_attrs = [{zkdv.path = "0", zkdv.role = "param"}, {zkdv.path = "1", zkdv.role = "param"}, {zkdv.path = "2", zkdv.role = "param"}, {zkdv.path = "3", zkdv.role = "param"}, {zkdv.path = "0", zkdv.role = "opt_state"}, {zkdv.path = "1", zkdv.role = "opt_state"}, {zkdv.path = "2", zkdv.role = "opt_state"}, {zkdv.path = "3", zkdv.role = "opt_state"}, {zkdv.path = "4", zkdv.role = "opt_state"}, {zkdv.path = "5", zkdv.role = "opt_state"}, {zkdv.path = "6", zkdv.role = "opt_state"}, {zkdv.path = "7", zkdv.role = "opt_state"}, {zkdv.path = "8", zkdv.role = "opt_state"}, {zkdv.path = "9", zkdv.role = "opt_state"}, {zkdv.path = "arg14", zkdv.role = "batch"}, {zkdv.path = "0", zkdv.role = "probe_weight"}, {zkdv.path = "1", zkdv.role = "probe_weight"}, {zkdv.path = "2", zkdv.role = "probe_weight"}, {zkdv.path = "3", zkdv.role = "probe_weight"}], function_type = (tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<9x17xui32>, tensor<32xf32>, tensor<32xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<1x8xf32>, tensor<16x8xf32>, tensor<1x1xf32>, tensor<32x1xf32>), res_attrs = [{jax.result_info = "result[0][0]", zkdv.path = "0", zkdv.role = "post_param"}, {jax.result_info = "result[0][1]", zkdv.path = "1", zkdv.role = "post_param"}, {jax.result_info = "result[0][2]", zkdv.path = "2", zkdv.role = "post_param"}, {jax.result_info = "result[0][3]", zkdv.path = "3", zkdv.role = "post_param"}, {jax.result_info = "result[1][0]", zkdv.path = "0", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][1]", zkdv.path = "1", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][2]", zkdv.path = "2", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][3]", zkdv.path = "3", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][4]", zkdv.path = "4", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][5]", zkdv.path = "5", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][6]", zkdv.path = "6", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][7]", zkdv.path = "7", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][8]", zkdv.path = "8", zkdv.role = "post_opt_state"}, {jax.result_info = "result[1][9]", zkdv.path = "9", zkdv.role = "post_opt_state"}, {jax.result_info = "result[3][0]", zkdv.path = "0", zkdv.role = "user"}, {jax.result_info = "result[3][1]", zkdv.path = "1", zkdv.role = "user"}, {zkdv.path = "0", zkdv.role = "sketch"}, {zkdv.path = "1", zkdv.role = "sketch"}, {zkdv.path = "2", zkdv.role = "sketch"}, {zkdv.path = "3", zkdv.role = "sketch"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg25: tensor<32xf32>, %arg26: tensor<16x32xf32>, %arg27: tensor<4xf32>, %arg28: tensor<32x4xf32>, %arg29: tensor<i32>, %arg30: tensor<32xf32>, %arg31: tensor<16x32xf32>, %arg32: tensor<4xf32>, %arg33: tensor<32x4xf32>, %arg34: tensor<32xf32>, %arg35: tensor<16x32xf32>, %arg36: tensor<4xf32>, %arg37: tensor<32x4xf32>, %arg38: tensor<i32>, %arg39: tensor<9x17xui32>, %arg40: tensor<32xf32>, %arg41: tensor<32xf32>, %arg42: tensor<4xf32>, %arg43: tensor<4xf32>):
    %56 = "stablehlo.constant"() <{value = dense<-1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %57 = "stablehlo.constant"() <{value = dense<0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %58 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %59 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %60 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %61 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %62 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %63 = "stablehlo.constant"() <{value = dense<2147483647> : tensor<i32>}> : () -> tensor<i32>
    %64 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %65 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %66 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %67 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %68 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %69 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %70 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %71 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %72 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %73 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %74 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
    %75 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
    %76 = "stablehlo.constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %77 = "stablehlo.slice"(%arg39) <{limit_indices = array<i64: 9, 17>, start_indices = array<i64: 8, 0>, strides = array<i64: 1, 1>}> : (tensor<9x17xui32>) -> tensor<1x17xui32>
    %78 = "stablehlo.reshape"(%77) : (tensor<1x17xui32>) -> tensor<17xui32>
    %79 = "stablehlo.slice"(%78) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<17xui32>) -> tensor<1xui32>
    %80 = "stablehlo.bitcast_convert"(%79) : (tensor<1xui32>) -> tensor<1xi32>
    %81 = "stablehlo.reshape"(%80) : (tensor<1xi32>) -> tensor<i32>
    %82 = "stablehlo.slice"(%arg39) <{limit_indices = array<i64: 8, 16>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<9x17xui32>) -> tensor<8x16xui32>
    %83 = "stablehlo.bitcast_convert"(%82) : (tensor<8x16xui32>) -> tensor<8x16xf32>
    %84 = "stablehlo.slice"(%arg39) <{limit_indices = array<i64: 8, 17>, start_indices = array<i64: 0, 16>, strides = array<i64: 1, 1>}> : (tensor<9x17xui32>) -> tensor<8x1xui32>
    %85 = "stablehlo.bitcast_convert"(%84) : (tensor<8x1xui32>) -> tensor<8x1xi32>
    %86 = "stablehlo.reshape"(%85) : (tensor<8x1xi32>) -> tensor<8xi32>
    %87 = "stablehlo.dot_general"(%83, %arg26) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %88 = "stablehlo.reshape"(%arg25) : (tensor<32xf32>) -> tensor<1x32xf32>
    %89 = "stablehlo.broadcast_in_dim"(%88) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %90 = "stablehlo.add"(%87, %89) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %91 = "stablehlo.multiply"(%90, %90) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %92 = "stablehlo.multiply"(%91, %90) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %93 = "stablehlo.multiply"(%90, %90) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %94 = "stablehlo.broadcast_in_dim"(%76) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %95 = "stablehlo.multiply"(%94, %93) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %96 = "stablehlo.broadcast_in_dim"(%75) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %97 = "stablehlo.multiply"(%96, %92) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %98 = "stablehlo.add"(%90, %97) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %99 = "stablehlo.broadcast_in_dim"(%74) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %100 = "stablehlo.multiply"(%99, %98) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %101 = "stablehlo.tanh"(%100) : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %102 = "stablehlo.broadcast_in_dim"(%73) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %103 = "stablehlo.add"(%102, %101) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %104 = "stablehlo.broadcast_in_dim"(%73) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %105 = "stablehlo.subtract"(%104, %101) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %106 = "stablehlo.multiply"(%103, %105) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %107 = "stablehlo.broadcast_in_dim"(%73) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %108 = "stablehlo.add"(%107, %101) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %109 = "stablehlo.broadcast_in_dim"(%72) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %110 = "stablehlo.multiply"(%109, %108) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %111 = "stablehlo.multiply"(%90, %110) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %112 = "stablehlo.dot_general"(%111, %arg28) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
    %113 = "stablehlo.reshape"(%arg27) : (tensor<4xf32>) -> tensor<1x4xf32>
    %114 = "stablehlo.broadcast_in_dim"(%113) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x4xf32>) -> tensor<8x4xf32>
    %115 = "stablehlo.add"(%112, %114) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %116 = "stablehlo.broadcast_in_dim"(%86) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xi32>) -> tensor<8x1xi32>
    %117:2 = "func.call"(%115, %116) <{callee = @take_along_axis}> : (tensor<8x4xf32>, tensor<8x1xi32>) -> (tensor<8x1xf32>, tensor<8x1x1xi32>)
    %118:2 = "func.call"(%117#0, %71) <{callee = @_take}> : (tensor<8x1xf32>, tensor<i32>) -> (tensor<8xf32>, tensor<1xi32>)
    %119 = "stablehlo.reduce"(%115, %70) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg60: tensor<f32>, %arg61: tensor<f32>):
      %322 = "stablehlo.maximum"(%arg60, %arg61) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%322) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
    %120 = "stablehlo.broadcast_in_dim"(%70) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %121 = "stablehlo.maximum"(%120, %119) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %122 = "stablehlo.is_finite"(%121) : (tensor<8xf32>) -> tensor<8xi1>
    %123 = "stablehlo.broadcast_in_dim"(%69) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %124 = "stablehlo.select"(%122, %121, %123) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %125 = "stablehlo.broadcast_in_dim"(%124) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
    %126 = "stablehlo.broadcast_in_dim"(%125) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %127 = "stablehlo.subtract"(%115, %126) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %128 = "stablehlo.exponential"(%127) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %129 = "stablehlo.reduce"(%128, %69) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg58: tensor<f32>, %arg59: tensor<f32>):
      %321 = "stablehlo.add"(%arg58, %arg59) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%321) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
    %130 = "stablehlo.abs"(%129) : (tensor<8xf32>) -> tensor<8xf32>
    %131 = "stablehlo.broadcast_in_dim"(%69) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %132 = "stablehlo.compare"(%129, %131) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %133 = "stablehlo.log"(%130) : (tensor<8xf32>) -> tensor<8xf32>
    %134 = "stablehlo.add"(%133, %124) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %135 = "stablehlo.subtract"(%134, %118#0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %136 = "stablehlo.reduce"(%135, %69) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg56: tensor<f32>, %arg57: tensor<f32>):
      %320 = "stablehlo.add"(%arg56, %arg57) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%320) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %137 = "stablehlo.divide"(%136, %68) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %138 = "stablehlo.divide"(%73, %68) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %139 = "stablehlo.broadcast_in_dim"(%138) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %140 = "stablehlo.negate"(%139) : (tensor<8xf32>) -> tensor<8xf32>
    %141 = "stablehlo.divide"(%139, %130) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %142 = "stablehlo.broadcast_in_dim"(%69) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %143 = "stablehlo.select"(%132, %142, %141) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %144 = "stablehlo.select"(%132, %141, %142) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %145 = "stablehlo.negate"(%143) : (tensor<8xf32>) -> tensor<8xf32>
    %146 = "stablehlo.add"(%144, %145) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %147 = "stablehlo.broadcast_in_dim"(%146) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x4xf32>
    %148 = "stablehlo.multiply"(%147, %128) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %149 = "func.call"(%118#1, %140) <{callee = @_take_0}> : (tensor<1xi32>, tensor<8xf32>) -> tensor<8x1xf32>
    %150 = "func.call"(%117#1, %149) <{callee = @take_along_axis_1}> : (tensor<8x1x1xi32>, tensor<8x1xf32>) -> tensor<8x4xf32>
    %151 = "stablehlo.add"(%148, %150) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %152 = "stablehlo.reduce"(%151, %69) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg54: tensor<f32>, %arg55: tensor<f32>):
      %319 = "stablehlo.add"(%arg54, %arg55) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%319) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %153 = "stablehlo.reshape"(%152) : (tensor<4xf32>) -> tensor<1x4xf32>
    %154 = "stablehlo.reshape"(%153) : (tensor<1x4xf32>) -> tensor<4xf32>
    %155 = "stablehlo.dot_general"(%151, %111) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x4xf32>, tensor<8x32xf32>) -> tensor<4x32xf32>
    %156 = "stablehlo.transpose"(%155) <{permutation = array<i64: 1, 0>}> : (tensor<4x32xf32>) -> tensor<32x4xf32>
    %157 = "stablehlo.dot_general"(%151, %arg28) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}> : (tensor<8x4xf32>, tensor<32x4xf32>) -> tensor<8x32xf32>
    %158 = "stablehlo.multiply"(%90, %157) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %159 = "stablehlo.multiply"(%157, %110) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %160 = "stablehlo.broadcast_in_dim"(%72) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %161 = "stablehlo.multiply"(%160, %158) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %162 = "stablehlo.multiply"(%161, %106) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %163 = "stablehlo.broadcast_in_dim"(%74) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %164 = "stablehlo.multiply"(%163, %162) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %165 = "stablehlo.add"(%159, %164) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %166 = "stablehlo.broadcast_in_dim"(%75) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
    %167 = "stablehlo.multiply"(%166, %164) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %168 = "stablehlo.multiply"(%167, %95) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %169 = "stablehlo.add"(%165, %168) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %170 = "stablehlo.reduce"(%169, %69) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg52: tensor<f32>, %arg53: tensor<f32>):
      %318 = "stablehlo.add"(%arg52, %arg53) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%318) : (tensor<f32>) -> ()
    }) : (tensor<8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %171 = "stablehlo.reshape"(%170) : (tensor<32xf32>) -> tensor<1x32xf32>
    %172 = "stablehlo.reshape"(%171) : (tensor<1x32xf32>) -> tensor<32xf32>
    %173 = "stablehlo.dot_general"(%169, %83) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x32xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
    %174 = "stablehlo.transpose"(%173) <{permutation = array<i64: 1, 0>}> : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %175 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %176 = "stablehlo.multiply"(%175, %172) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %177 = "stablehlo.broadcast_in_dim"(%66) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %178 = "stablehlo.multiply"(%177, %arg30) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %179 = "stablehlo.add"(%176, %178) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %180 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %181 = "stablehlo.multiply"(%180, %174) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %182 = "stablehlo.broadcast_in_dim"(%66) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %183 = "stablehlo.multiply"(%182, %arg31) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %184 = "stablehlo.add"(%181, %183) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %185 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %186 = "stablehlo.multiply"(%185, %154) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %187 = "stablehlo.broadcast_in_dim"(%66) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %188 = "stablehlo.multiply"(%187, %arg32) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %189 = "stablehlo.add"(%186, %188) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %190 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %191 = "stablehlo.multiply"(%190, %156) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %192 = "stablehlo.broadcast_in_dim"(%66) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %193 = "stablehlo.multiply"(%192, %arg33) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %194 = "stablehlo.add"(%191, %193) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %195 = "stablehlo.multiply"(%172, %172) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %196 = "stablehlo.broadcast_in_dim"(%65) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %197 = "stablehlo.multiply"(%196, %195) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %198 = "stablehlo.broadcast_in_dim"(%64) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %199 = "stablehlo.multiply"(%198, %arg34) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %200 = "stablehlo.add"(%197, %199) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %201 = "stablehlo.multiply"(%174, %174) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %202 = "stablehlo.broadcast_in_dim"(%65) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %203 = "stablehlo.multiply"(%202, %201) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %204 = "stablehlo.broadcast_in_dim"(%64) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %205 = "stablehlo.multiply"(%204, %arg35) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %206 = "stablehlo.add"(%203, %205) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %207 = "stablehlo.multiply"(%154, %154) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %208 = "stablehlo.broadcast_in_dim"(%65) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %209 = "stablehlo.multiply"(%208, %207) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %210 = "stablehlo.broadcast_in_dim"(%64) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %211 = "stablehlo.multiply"(%210, %arg36) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %212 = "stablehlo.add"(%209, %211) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %213 = "stablehlo.multiply"(%156, %156) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %214 = "stablehlo.broadcast_in_dim"(%65) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %215 = "stablehlo.multiply"(%214, %213) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %216 = "stablehlo.broadcast_in_dim"(%64) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %217 = "stablehlo.multiply"(%216, %arg37) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %218 = "stablehlo.add"(%215, %217) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %219 = "stablehlo.compare"(%arg29, %63) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %220 = "stablehlo.add"(%arg29, %62) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %221 = "func.call"(%219, %220, %63) <{callee = @_where_2}> : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %222 = "stablehlo.convert"(%221) : (tensor<i32>) -> tensor<f32>
    %223 = "stablehlo.power"(%66, %222) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %224 = "stablehlo.subtract"(%73, %223) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %225 = "stablehlo.broadcast_in_dim"(%224) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %226 = "stablehlo.divide"(%179, %225) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %227 = "stablehlo.broadcast_in_dim"(%224) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %228 = "stablehlo.divide"(%184, %227) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %229 = "stablehlo.broadcast_in_dim"(%224) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %230 = "stablehlo.divide"(%189, %229) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %231 = "stablehlo.broadcast_in_dim"(%224) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %232 = "stablehlo.divide"(%194, %231) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %233 = "stablehlo.convert"(%221) : (tensor<i32>) -> tensor<f32>
    %234 = "stablehlo.power"(%64, %233) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %235 = "stablehlo.subtract"(%73, %234) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %236 = "stablehlo.broadcast_in_dim"(%235) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %237 = "stablehlo.divide"(%200, %236) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %238 = "stablehlo.broadcast_in_dim"(%235) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %239 = "stablehlo.divide"(%206, %238) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %240 = "stablehlo.broadcast_in_dim"(%235) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %241 = "stablehlo.divide"(%212, %240) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %242 = "stablehlo.broadcast_in_dim"(%235) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %243 = "stablehlo.divide"(%218, %242) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %244 = "stablehlo.broadcast_in_dim"(%69) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %245 = "stablehlo.add"(%237, %244) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %246 = "stablehlo.sqrt"(%245) : (tensor<32xf32>) -> tensor<32xf32>
    %247 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %248 = "stablehlo.add"(%246, %247) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %249 = "stablehlo.divide"(%226, %248) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %250 = "stablehlo.broadcast_in_dim"(%69) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %251 = "stablehlo.add"(%239, %250) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %252 = "stablehlo.sqrt"(%251) : (tensor<16x32xf32>) -> tensor<16x32xf32>
    %253 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %254 = "stablehlo.add"(%252, %253) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %255 = "stablehlo.divide"(%228, %254) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %256 = "stablehlo.broadcast_in_dim"(%69) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %257 = "stablehlo.add"(%241, %256) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %258 = "stablehlo.sqrt"(%257) : (tensor<4xf32>) -> tensor<4xf32>
    %259 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %260 = "stablehlo.add"(%258, %259) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %261 = "stablehlo.divide"(%230, %260) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %262 = "stablehlo.broadcast_in_dim"(%69) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %263 = "stablehlo.add"(%243, %262) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %264 = "stablehlo.sqrt"(%263) : (tensor<32x4xf32>) -> tensor<32x4xf32>
    %265 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %266 = "stablehlo.add"(%264, %265) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %267 = "stablehlo.divide"(%232, %266) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %268 = "stablehlo.subtract"(%arg38, %71) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %269 = "func.call"(%268, %71, %60) <{callee = @clip}> : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %270 = "stablehlo.convert"(%269) : (tensor<i32>) -> tensor<f32>
    %271 = "stablehlo.divide"(%270, %59) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %272 = "stablehlo.subtract"(%73, %271) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %273 = "stablehlo.multiply"(%58, %272) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %274 = "stablehlo.add"(%273, %57) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %275 = "stablehlo.multiply"(%56, %274) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %276 = "stablehlo.broadcast_in_dim"(%275) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %277 = "stablehlo.multiply"(%276, %249) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %278 = "stablehlo.broadcast_in_dim"(%275) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x32xf32>
    %279 = "stablehlo.multiply"(%278, %255) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %280 = "stablehlo.broadcast_in_dim"(%275) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %281 = "stablehlo.multiply"(%280, %261) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %282 = "stablehlo.broadcast_in_dim"(%275) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32x4xf32>
    %283 = "stablehlo.multiply"(%282, %267) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %284 = "stablehlo.compare"(%arg38, %63) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %285 = "stablehlo.add"(%arg38, %62) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %286 = "func.call"(%284, %285, %63) <{callee = @_where_2}> : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %287 = "stablehlo.add"(%arg25, %277) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %288 = "stablehlo.add"(%arg26, %279) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %289 = "stablehlo.add"(%arg27, %281) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %290 = "stablehlo.add"(%arg28, %283) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %291 = "stablehlo.add"(%81, %62) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %292 = "stablehlo.reshape"(%277) : (tensor<32xf32>) -> tensor<1x32xf32>
    %293 = "stablehlo.broadcast_in_dim"(%arg40) {broadcast_dimensions = array<i64: 1>} : (tensor<32xf32>) -> tensor<1x32xf32>
    %294 = "stablehlo.multiply"(%292, %293) : (tensor<1x32xf32>, tensor<1x32xf32>) -> tensor<1x32xf32>
    %295 = "stablehlo.reshape"(%294) : (tensor<1x32xf32>) -> tensor<1x8x4xf32>
    %296 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %297 = "stablehlo.reduce"(%295, %296) ({
    ^bb0(%arg50: tensor<f32>, %arg51: tensor<f32>):
      %317 = "stablehlo.add"(%arg50, %arg51) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%317) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 2>} : (tensor<1x8x4xf32>, tensor<f32>) -> tensor<1x8xf32>
    %298 = "stablehlo.broadcast_in_dim"(%arg41) {broadcast_dimensions = array<i64: 1>} : (tensor<32xf32>) -> tensor<16x32xf32>
    %299 = "stablehlo.multiply"(%279, %298) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %300 = "stablehlo.reshape"(%299) : (tensor<16x32xf32>) -> tensor<16x8x4xf32>
    %301 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %302 = "stablehlo.reduce"(%300, %301) ({
    ^bb0(%arg48: tensor<f32>, %arg49: tensor<f32>):
      %316 = "stablehlo.add"(%arg48, %arg49) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%316) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 2>} : (tensor<16x8x4xf32>, tensor<f32>) -> tensor<16x8xf32>
    %303 = "stablehlo.reshape"(%281) : (tensor<4xf32>) -> tensor<1x4xf32>
    %304 = "stablehlo.broadcast_in_dim"(%arg42) {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<1x4xf32>
    %305 = "stablehlo.multiply"(%303, %304) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %306 = "stablehlo.reshape"(%305) : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %307 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %308 = "stablehlo.reduce"(%306, %307) ({
    ^bb0(%arg46: tensor<f32>, %arg47: tensor<f32>):
      %315 = "stablehlo.add"(%arg46, %arg47) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%315) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 2>} : (tensor<1x1x4xf32>, tensor<f32>) -> tensor<1x1xf32>
    %309 = "stablehlo.broadcast_in_dim"(%arg43) {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<32x4xf32>
    %310 = "stablehlo.multiply"(%283, %309) : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %311 = "stablehlo.reshape"(%310) : (tensor<32x4xf32>) -> tensor<32x1x4xf32>
    %312 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %313 = "stablehlo.reduce"(%311, %312) ({
    ^bb0(%arg44: tensor<f32>, %arg45: tensor<f32>):
      %314 = "stablehlo.add"(%arg44, %arg45) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%314) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 2>} : (tensor<32x1x4xf32>, tensor<f32>) -> tensor<32x1xf32>
    "func.return"(%287, %288, %289, %290, %221, %179, %184, %189, %194, %200, %206, %212, %218, %286, %291, %137, %297, %302, %308, %313) : (tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<1x8xf32>, tensor<16x8xf32>, tensor<1x1xf32>, tensor<32x1xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x4xf32>, tensor<8x1xi32>) -> (tensor<8x1xf32>, tensor<8x1x1xi32>), sym_name = "take_along_axis", sym_visibility = "private"}> ({
  ^bb0(%arg21: tensor<8x4xf32>, %arg22: tensor<8x1xi32>):
    %34 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %35 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %36 = "stablehlo.constant"() <{value = dense<3> : tensor<1xi32>}> : () -> tensor<1xi32>
    %37 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %38 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %39 = "stablehlo.broadcast_in_dim"(%38) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8x1xi32>
    %40 = "stablehlo.compare"(%arg22, %39) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi1>
    %41 = "stablehlo.broadcast_in_dim"(%37) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8x1xi32>
    %42 = "stablehlo.add"(%arg22, %41) : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi32>
    %43 = "stablehlo.select"(%40, %42, %arg22) : (tensor<8x1xi1>, tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi32>
    %44 = "stablehlo.reshape"(%43) : (tensor<8x1xi32>) -> tensor<8x1x1xi32>
    %45 = "stablehlo.broadcast_in_dim"(%38) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8x1x1xi32>
    %46 = "stablehlo.compare"(%44, %45) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<8x1x1xi32>, tensor<8x1x1xi32>) -> tensor<8x1x1xi1>
    %47 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64: 2>}> : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %48 = "stablehlo.broadcast_in_dim"(%47) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x1xi32>) -> tensor<8x1x1xi32>
    %49 = "stablehlo.compare"(%44, %48) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<8x1x1xi32>, tensor<8x1x1xi32>) -> tensor<8x1x1xi1>
    %50 = "stablehlo.and"(%46, %49) : (tensor<8x1x1xi1>, tensor<8x1x1xi1>) -> tensor<8x1x1xi1>
    %51 = "stablehlo.reduce"(%50, %35) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg23: tensor<i1>, %arg24: tensor<i1>):
      %55 = "stablehlo.and"(%arg23, %arg24) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%55) : (tensor<i1>) -> ()
    }) : (tensor<8x1x1xi1>, tensor<i1>) -> tensor<8x1xi1>
    %52 = "stablehlo.gather"(%arg21, %44) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>}> : (tensor<8x4xf32>, tensor<8x1x1xi32>) -> tensor<8x1xf32>
    %53 = "stablehlo.broadcast_in_dim"(%34) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %54 = "stablehlo.select"(%51, %52, %53) : (tensor<8x1xi1>, tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    "func.return"(%54, %44) : (tensor<8x1xf32>, tensor<8x1x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x1xf32>, tensor<i32>) -> (tensor<8xf32>, tensor<1xi32>), sym_name = "_take", sym_visibility = "private"}> ({
  ^bb0(%arg17: tensor<8x1xf32>, %arg18: tensor<i32>):
    %14 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %15 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %16 = "stablehlo.constant"() <{value = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %17 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %18 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %19 = "stablehlo.compare"(%arg18, %18) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %20 = "stablehlo.add"(%arg18, %17) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %21 = "func.call"(%19, %20, %arg18) <{callee = @_where}> : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %22 = "stablehlo.broadcast_in_dim"(%21) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<1xi32>
    %23 = "stablehlo.convert"(%22) : (tensor<1xi32>) -> tensor<1xi32>
    %24 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<1xi32>
    %25 = "stablehlo.compare"(%23, %24) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %26 = "stablehlo.compare"(%23, %16) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %27 = "stablehlo.and"(%25, %26) : (tensor<1xi1>, tensor<1xi1>) -> tensor<1xi1>
    %28 = "stablehlo.reduce"(%27, %15) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg19: tensor<i1>, %arg20: tensor<i1>):
      %33 = "stablehlo.and"(%arg19, %arg20) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%33) : (tensor<i1>) -> ()
    }) : (tensor<1xi1>, tensor<i1>) -> tensor<i1>
    %29 = "stablehlo.gather"(%arg17, %23) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, slice_sizes = array<i64: 8, 1>}> : (tensor<8x1xf32>, tensor<1xi32>) -> tensor<8xf32>
    %30 = "stablehlo.broadcast_in_dim"(%28) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<8xi1>
    %31 = "stablehlo.broadcast_in_dim"(%14) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %32 = "stablehlo.select"(%30, %29, %31) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%32, %22) : (tensor<8xf32>, tensor<1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>, sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg14: tensor<i1>, %arg15: tensor<i32>, %arg16: tensor<i32>):
    %13 = "stablehlo.select"(%arg14, %arg15, %arg16) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%13) : (tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<1xi32>, tensor<8xf32>) -> tensor<8x1xf32>, sym_name = "_take_0", sym_visibility = "private"}> ({
  ^bb0(%arg10: tensor<1xi32>, %arg11: tensor<8xf32>):
    %9 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %10 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
    %11 = "stablehlo.scatter"(%10, %arg10, %arg11) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>}> ({
    ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
      %12 = "stablehlo.add"(%arg12, %arg13) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%12) : (tensor<f32>) -> ()
    }) : (tensor<8x1xf32>, tensor<1xi32>, tensor<8xf32>) -> tensor<8x1xf32>
    "func.return"(%11) : (tensor<8x1xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x1x1xi32>, tensor<8x1xf32>) -> tensor<8x4xf32>, sym_name = "take_along_axis_1", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<8x1x1xi32>, %arg7: tensor<8x1xf32>):
    %5 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x4xf32>
    %7 = "stablehlo.scatter"(%6, %arg6, %arg7) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>}> ({
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
      %8 = "stablehlo.add"(%arg8, %arg9) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%8) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>, tensor<8x1x1xi32>, tensor<8x1xf32>) -> tensor<8x4xf32>
    "func.return"(%7) : (tensor<8x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>, sym_name = "_where_2", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<i1>, %arg4: tensor<i32>, %arg5: tensor<i32>):
    %4 = "stablehlo.select"(%arg3, %arg4, %arg5) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%4) : (tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>, sym_name = "clip", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<i32>):
    %0 = "stablehlo.convert"(%arg1) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.maximum"(%0, %arg0) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %2 = "stablehlo.convert"(%arg2) : (tensor<i32>) -> tensor<i32>
    %3 = "stablehlo.minimum"(%2, %1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%3) : (tensor<i32>) -> ()
  }) : () -> ()
}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

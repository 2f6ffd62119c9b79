"builtin.module"() <{sym_name = "jit_step"}> ({
  "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32}, {tf.aliasing_output = 1 : i32}, {tf.aliasing_output = 2 : i32}, {tf.aliasing_output = 3 : i32}, {tf.aliasing_output = 4 : i32}, {tf.aliasing_output = 5 : i32}, {tf.aliasing_output = 6 : i32}, {tf.aliasing_output = 7 : i32}, {tf.aliasing_output = 8 : i32}, {tf.aliasing_output = 9 : i32}, {tf.aliasing_output = 10 : i32}, {tf.aliasing_output = 11 : i32}, {}, {}], function_type = (tensor<4xf32>, tensor<3x3x1x4xf32>, tensor<4xf32>, tensor<3x3x4x4xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<3x3x1x4xf32>, tensor<4xf32>, tensor<3x3x4x4xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<2x8x8x1xf32>, tensor<2xi32>) -> (tensor<4xf32>, tensor<3x3x1x4xf32>, tensor<4xf32>, tensor<3x3x4x4xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<3x3x1x4xf32>, tensor<4xf32>, tensor<3x3x4x4xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<3x3x1x4xf32>, tensor<4xf32>, tensor<3x3x4x4xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<f32>), res_attrs = [{jax.result_info = "result[0]['Conv_0']['bias']"}, {jax.result_info = "result[0]['Conv_0']['kernel']"}, {jax.result_info = "result[0]['Conv_1']['bias']"}, {jax.result_info = "result[0]['Conv_1']['kernel']"}, {jax.result_info = "result[0]['Dense_0']['bias']"}, {jax.result_info = "result[0]['Dense_0']['kernel']"}, {jax.result_info = "result[1][0].trace['Conv_0']['bias']"}, {jax.result_info = "result[1][0].trace['Conv_0']['kernel']"}, {jax.result_info = "result[1][0].trace['Conv_1']['bias']"}, {jax.result_info = "result[1][0].trace['Conv_1']['kernel']"}, {jax.result_info = "result[1][0].trace['Dense_0']['bias']"}, {jax.result_info = "result[1][0].trace['Dense_0']['kernel']"}, {jax.result_info = "result[2]['Conv_0']['bias']"}, {jax.result_info = "result[2]['Conv_0']['kernel']"}, {jax.result_info = "result[2]['Conv_1']['bias']"}, {jax.result_info = "result[2]['Conv_1']['kernel']"}, {jax.result_info = "result[2]['Dense_0']['bias']"}, {jax.result_info = "result[2]['Dense_0']['kernel']"}, {jax.result_info = "result[3]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg21: tensor<4xf32>, %arg22: tensor<3x3x1x4xf32>, %arg23: tensor<4xf32>, %arg24: tensor<3x3x4x4xf32>, %arg25: tensor<3xf32>, %arg26: tensor<4x3xf32>, %arg27: tensor<4xf32>, %arg28: tensor<3x3x1x4xf32>, %arg29: tensor<4xf32>, %arg30: tensor<3x3x4x4xf32>, %arg31: tensor<3xf32>, %arg32: tensor<4x3xf32>, %arg33: tensor<2x8x8x1xf32>, %arg34: tensor<2xi32>):
    %59 = "stablehlo.convolution"(%arg33, %arg22) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<1> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, window_strides = array<i64: 1, 1>}> : (tensor<2x8x8x1xf32>, tensor<3x3x1x4xf32>) -> tensor<2x8x8x4xf32>
    %60 = "stablehlo.reshape"(%arg21) : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %61 = "stablehlo.broadcast_in_dim"(%60) <{broadcast_dimensions = array<i64: 0, 1, 2, 3>}> : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %62 = "stablehlo.add"(%59, %61) : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %63 = "func.call"(%62) <{callee = @relu}> : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %64 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %65 = "stablehlo.broadcast_in_dim"(%64) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %66 = "stablehlo.compare"(%62, %65) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xi1>
    %67 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %68 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %69 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %70 = "stablehlo.broadcast_in_dim"(%69) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %71 = "stablehlo.reduce_window"(%63, %70) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg57: tensor<f32>, %arg58: tensor<f32>):
      %261 = "stablehlo.maximum"(%arg57, %arg58) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%261) : (tensor<f32>) -> ()
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x4x4x4xf32>
    %72 = "stablehlo.convolution"(%71, %arg24) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, window_strides = array<i64: 1, 1>}> : (tensor<2x4x4x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x2x2x4xf32>
    %73 = "stablehlo.reshape"(%arg23) : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %74 = "stablehlo.broadcast_in_dim"(%73) <{broadcast_dimensions = array<i64: 0, 1, 2, 3>}> : (tensor<1x1x1x4xf32>) -> tensor<2x2x2x4xf32>
    %75 = "stablehlo.add"(%72, %74) : (tensor<2x2x2x4xf32>, tensor<2x2x2x4xf32>) -> tensor<2x2x2x4xf32>
    %76 = "func.call"(%75) <{callee = @relu_0}> : (tensor<2x2x2x4xf32>) -> tensor<2x2x2x4xf32>
    %77 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %78 = "stablehlo.broadcast_in_dim"(%77) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %79 = "stablehlo.compare"(%75, %78) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2x2x2x4xf32>, tensor<2x2x2x4xf32>) -> tensor<2x2x2x4xi1>
    %80 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %81 = "stablehlo.broadcast_in_dim"(%80) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %82 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %83 = "stablehlo.broadcast_in_dim"(%82) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %84 = "stablehlo.reduce_window"(%76, %83) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg55: tensor<f32>, %arg56: tensor<f32>):
      %260 = "stablehlo.add"(%arg55, %arg56) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%260) : (tensor<f32>) -> ()
    }) : (tensor<2x2x2x4xf32>, tensor<f32>) -> tensor<2x1x1x4xf32>
    %85 = "stablehlo.constant"() <{value = dense<4.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %86 = "stablehlo.broadcast_in_dim"(%85) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x1x1x4xf32>
    %87 = "stablehlo.divide"(%84, %86) : (tensor<2x1x1x4xf32>, tensor<2x1x1x4xf32>) -> tensor<2x1x1x4xf32>
    %88 = "stablehlo.reshape"(%87) : (tensor<2x1x1x4xf32>) -> tensor<2x4xf32>
    %89 = "stablehlo.dot_general"(%88, %arg26) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %90 = "stablehlo.reshape"(%arg25) : (tensor<3xf32>) -> tensor<1x3xf32>
    %91 = "stablehlo.broadcast_in_dim"(%90) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x3xf32>) -> tensor<2x3xf32>
    %92 = "stablehlo.add"(%89, %91) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %93 = "stablehlo.broadcast_in_dim"(%arg34) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xi32>) -> tensor<2x1xi32>
    %94:2 = "func.call"(%92, %93) <{callee = @take_along_axis}> : (tensor<2x3xf32>, tensor<2x1xi32>) -> (tensor<2x1xf32>, tensor<2x1x1xi32>)
    %95 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %96:2 = "func.call"(%94#0, %95) <{callee = @_take}> : (tensor<2x1xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<1xi32>)
    %97 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %98 = "stablehlo.reduce"(%92, %97) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg53: tensor<f32>, %arg54: tensor<f32>):
      %259 = "stablehlo.maximum"(%arg53, %arg54) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%259) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %99 = "stablehlo.reshape"(%98) : (tensor<2xf32>) -> tensor<2x1xf32>
    %100 = "stablehlo.broadcast_in_dim"(%99) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x1xf32>) -> tensor<2x3xf32>
    %101 = "stablehlo.compare"(%92, %100) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %102 = "stablehlo.convert"(%101) : (tensor<2x3xi1>) -> tensor<2x3xf32>
    %103 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %104 = "stablehlo.reduce"(%102, %103) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg51: tensor<f32>, %arg52: tensor<f32>):
      %258 = "stablehlo.add"(%arg51, %arg52) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%258) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %105 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %106 = "stablehlo.broadcast_in_dim"(%105) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %107 = "stablehlo.maximum"(%106, %98) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %108 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %109 = "stablehlo.broadcast_in_dim"(%108) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %110 = "stablehlo.compare"(%98, %109) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %111 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %112 = "stablehlo.broadcast_in_dim"(%111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %113 = "stablehlo.compare"(%98, %112) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %114 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %115 = "stablehlo.broadcast_in_dim"(%114) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %116 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %117 = "stablehlo.broadcast_in_dim"(%116) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %118 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %119 = "stablehlo.broadcast_in_dim"(%118) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %120 = "stablehlo.select"(%113, %119, %117) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %121 = "stablehlo.select"(%110, %115, %120) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %122 = "stablehlo.is_finite"(%107) : (tensor<2xf32>) -> tensor<2xi1>
    %123 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %124 = "stablehlo.broadcast_in_dim"(%123) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %125 = "stablehlo.select"(%122, %107, %124) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %126 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %127 = "stablehlo.broadcast_in_dim"(%126) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %128 = "stablehlo.broadcast_in_dim"(%125) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xf32>) -> tensor<2x1xf32>
    %129 = "stablehlo.broadcast_in_dim"(%128) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x1xf32>) -> tensor<2x3xf32>
    %130 = "stablehlo.subtract"(%92, %129) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %131 = "stablehlo.exponential"(%130) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %132 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %133 = "stablehlo.reduce"(%131, %132) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg49: tensor<f32>, %arg50: tensor<f32>):
      %257 = "stablehlo.add"(%arg49, %arg50) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%257) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %134 = "stablehlo.sign"(%133) : (tensor<2xf32>) -> tensor<2xf32>
    %135 = "stablehlo.abs"(%133) : (tensor<2xf32>) -> tensor<2xf32>
    %136 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %137 = "stablehlo.broadcast_in_dim"(%136) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %138 = "stablehlo.compare"(%133, %137) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %139 = "stablehlo.log"(%135) : (tensor<2xf32>) -> tensor<2xf32>
    %140 = "stablehlo.add"(%139, %125) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %141 = "stablehlo.subtract"(%140, %96#0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %142 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %143 = "stablehlo.reduce"(%141, %142) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg47: tensor<f32>, %arg48: tensor<f32>):
      %256 = "stablehlo.add"(%arg47, %arg48) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%256) : (tensor<f32>) -> ()
    }) : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    %144 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %145 = "stablehlo.divide"(%143, %144) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %146 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %147 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %148 = "stablehlo.divide"(%146, %147) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %149 = "stablehlo.broadcast_in_dim"(%148) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %150 = "stablehlo.negate"(%149) : (tensor<2xf32>) -> tensor<2xf32>
    %151 = "stablehlo.divide"(%149, %135) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %152 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %153 = "stablehlo.broadcast_in_dim"(%152) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %154 = "stablehlo.select"(%138, %153, %151) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %155 = "stablehlo.select"(%138, %151, %153) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %156 = "stablehlo.negate"(%154) : (tensor<2xf32>) -> tensor<2xf32>
    %157 = "stablehlo.add"(%155, %156) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %158 = "stablehlo.broadcast_in_dim"(%157) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xf32>) -> tensor<2x3xf32>
    %159 = "stablehlo.multiply"(%158, %131) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %160 = "func.call"(%96#1, %150) <{callee = @_take_1}> : (tensor<1xi32>, tensor<2xf32>) -> tensor<2x1xf32>
    %161 = "func.call"(%94#1, %160) <{callee = @take_along_axis_2}> : (tensor<2x1x1xi32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    %162 = "stablehlo.add"(%159, %161) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %163 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %164 = "stablehlo.reduce"(%162, %163) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg45: tensor<f32>, %arg46: tensor<f32>):
      %255 = "stablehlo.add"(%arg45, %arg46) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%255) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    %165 = "stablehlo.reshape"(%164) : (tensor<3xf32>) -> tensor<1x3xf32>
    %166 = "stablehlo.reshape"(%165) : (tensor<1x3xf32>) -> tensor<3xf32>
    %167 = "stablehlo.dot_general"(%162, %88) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
    %168 = "stablehlo.transpose"(%167) <{permutation = array<i64: 1, 0>}> : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %169 = "stablehlo.dot_general"(%162, %arg26) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
    %170 = "stablehlo.reshape"(%169) : (tensor<2x4xf32>) -> tensor<2x1x1x4xf32>
    %171 = "stablehlo.constant"() <{value = dense<4.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %172 = "stablehlo.broadcast_in_dim"(%171) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x1x1x4xf32>
    %173 = "stablehlo.divide"(%170, %172) : (tensor<2x1x1x4xf32>, tensor<2x1x1x4xf32>) -> tensor<2x1x1x4xf32>
    %174 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %175 = "stablehlo.pad"(%173, %174) <{edge_padding_high = array<i64: 0, 1, 1, 0>, edge_padding_low = array<i64: 0, 1, 1, 0>, interior_padding = array<i64: 0, 1, 1, 0>}> : (tensor<2x1x1x4xf32>, tensor<f32>) -> tensor<2x3x3x4xf32>
    %176 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %177 = "stablehlo.broadcast_in_dim"(%176) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %178 = "stablehlo.reduce_window"(%175, %177) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg43: tensor<f32>, %arg44: tensor<f32>):
      %254 = "stablehlo.add"(%arg43, %arg44) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%254) : (tensor<f32>) -> ()
    }) : (tensor<2x3x3x4xf32>, tensor<f32>) -> tensor<2x2x2x4xf32>
    %179 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %180 = "stablehlo.broadcast_in_dim"(%179) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %181 = "stablehlo.select"(%79, %178, %180) : (tensor<2x2x2x4xi1>, tensor<2x2x2x4xf32>, tensor<2x2x2x4xf32>) -> tensor<2x2x2x4xf32>
    %182 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %183 = "stablehlo.reduce"(%181, %182) <{dimensions = array<i64: 0, 1, 2>}> ({
    ^bb0(%arg41: tensor<f32>, %arg42: tensor<f32>):
      %253 = "stablehlo.add"(%arg41, %arg42) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%253) : (tensor<f32>) -> ()
    }) : (tensor<2x2x2x4xf32>, tensor<f32>) -> tensor<4xf32>
    %184 = "stablehlo.reshape"(%183) : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %185 = "stablehlo.reshape"(%184) : (tensor<1x1x1x4xf32>) -> tensor<4xf32>
    %186 = "stablehlo.convolution"(%71, %181) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, window_strides = array<i64: 1, 1>}> : (tensor<2x4x4x4xf32>, tensor<2x2x2x4xf32>) -> tensor<3x3x4x4xf32>
    %187 = "stablehlo.reverse"(%arg24) <{dimensions = array<i64: 0, 1>}> : (tensor<3x3x4x4xf32>) -> tensor<3x3x4x4xf32>
    %188 = "stablehlo.convolution"(%181, %187) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<2> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, window_strides = array<i64: 1, 1>}> : (tensor<2x2x2x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x4x4x4xf32>
    %189 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %190 = "stablehlo.pad"(%63, %189) <{edge_padding_high = array<i64: 0, 0, 0, 0>, edge_padding_low = array<i64: 0, 0, 0, 0>, interior_padding = array<i64: 0, 0, 0, 0>}> : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    %191 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %192 = "stablehlo.select_and_scatter"(%190, %188, %191) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg39: tensor<f32>, %arg40: tensor<f32>):
      %252 = "stablehlo.compare"(%arg39, %arg40) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%252) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg37: tensor<f32>, %arg38: tensor<f32>):
      %251 = "stablehlo.add"(%arg37, %arg38) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%251) : (tensor<f32>) -> ()
    }) : (tensor<2x8x8x4xf32>, tensor<2x4x4x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    %193 = "stablehlo.slice"(%192) <{limit_indices = array<i64: 2, 8, 8, 4>, start_indices = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %194 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %195 = "stablehlo.broadcast_in_dim"(%194) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %196 = "stablehlo.select"(%66, %193, %195) : (tensor<2x8x8x4xi1>, tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %197 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %198 = "stablehlo.reduce"(%196, %197) <{dimensions = array<i64: 0, 1, 2>}> ({
    ^bb0(%arg35: tensor<f32>, %arg36: tensor<f32>):
      %250 = "stablehlo.add"(%arg35, %arg36) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%250) : (tensor<f32>) -> ()
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %199 = "stablehlo.reshape"(%198) : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %200 = "stablehlo.reshape"(%199) : (tensor<1x1x1x4xf32>) -> tensor<4xf32>
    %201 = "stablehlo.convolution"(%arg33, %196) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<1> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, window_strides = array<i64: 1, 1>}> : (tensor<2x8x8x1xf32>, tensor<2x8x8x4xf32>) -> tensor<3x3x1x4xf32>
    %202 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %203 = "stablehlo.broadcast_in_dim"(%202) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %204 = "stablehlo.multiply"(%203, %arg27) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %205 = "stablehlo.add"(%200, %204) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %206 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %207 = "stablehlo.broadcast_in_dim"(%206) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x3x1x4xf32>
    %208 = "stablehlo.multiply"(%207, %arg28) : (tensor<3x3x1x4xf32>, tensor<3x3x1x4xf32>) -> tensor<3x3x1x4xf32>
    %209 = "stablehlo.add"(%201, %208) : (tensor<3x3x1x4xf32>, tensor<3x3x1x4xf32>) -> tensor<3x3x1x4xf32>
    %210 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %211 = "stablehlo.broadcast_in_dim"(%210) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %212 = "stablehlo.multiply"(%211, %arg29) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %213 = "stablehlo.add"(%185, %212) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %214 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %215 = "stablehlo.broadcast_in_dim"(%214) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x3x4x4xf32>
    %216 = "stablehlo.multiply"(%215, %arg30) : (tensor<3x3x4x4xf32>, tensor<3x3x4x4xf32>) -> tensor<3x3x4x4xf32>
    %217 = "stablehlo.add"(%186, %216) : (tensor<3x3x4x4xf32>, tensor<3x3x4x4xf32>) -> tensor<3x3x4x4xf32>
    %218 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %219 = "stablehlo.broadcast_in_dim"(%218) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %220 = "stablehlo.multiply"(%219, %arg31) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %221 = "stablehlo.add"(%166, %220) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %222 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %223 = "stablehlo.broadcast_in_dim"(%222) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %224 = "stablehlo.multiply"(%223, %arg32) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %225 = "stablehlo.add"(%168, %224) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %226 = "stablehlo.constant"() <{value = dense<-5.000000e-02> : tensor<f32>}> : () -> tensor<f32>
    %227 = "stablehlo.broadcast_in_dim"(%226) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %228 = "stablehlo.multiply"(%227, %205) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %229 = "stablehlo.constant"() <{value = dense<-5.000000e-02> : tensor<f32>}> : () -> tensor<f32>
    %230 = "stablehlo.broadcast_in_dim"(%229) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x3x1x4xf32>
    %231 = "stablehlo.multiply"(%230, %209) : (tensor<3x3x1x4xf32>, tensor<3x3x1x4xf32>) -> tensor<3x3x1x4xf32>
    %232 = "stablehlo.constant"() <{value = dense<-5.000000e-02> : tensor<f32>}> : () -> tensor<f32>
    %233 = "stablehlo.broadcast_in_dim"(%232) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %234 = "stablehlo.multiply"(%233, %213) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %235 = "stablehlo.constant"() <{value = dense<-5.000000e-02> : tensor<f32>}> : () -> tensor<f32>
    %236 = "stablehlo.broadcast_in_dim"(%235) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x3x4x4xf32>
    %237 = "stablehlo.multiply"(%236, %217) : (tensor<3x3x4x4xf32>, tensor<3x3x4x4xf32>) -> tensor<3x3x4x4xf32>
    %238 = "stablehlo.constant"() <{value = dense<-5.000000e-02> : tensor<f32>}> : () -> tensor<f32>
    %239 = "stablehlo.broadcast_in_dim"(%238) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %240 = "stablehlo.multiply"(%239, %221) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %241 = "stablehlo.constant"() <{value = dense<-5.000000e-02> : tensor<f32>}> : () -> tensor<f32>
    %242 = "stablehlo.broadcast_in_dim"(%241) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %243 = "stablehlo.multiply"(%242, %225) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %244 = "stablehlo.add"(%arg21, %228) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %245 = "stablehlo.add"(%arg22, %231) : (tensor<3x3x1x4xf32>, tensor<3x3x1x4xf32>) -> tensor<3x3x1x4xf32>
    %246 = "stablehlo.add"(%arg23, %234) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %247 = "stablehlo.add"(%arg24, %237) : (tensor<3x3x4x4xf32>, tensor<3x3x4x4xf32>) -> tensor<3x3x4x4xf32>
    %248 = "stablehlo.add"(%arg25, %240) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %249 = "stablehlo.add"(%arg26, %243) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    "func.return"(%244, %245, %246, %247, %248, %249, %205, %209, %213, %217, %221, %225, %228, %231, %234, %237, %240, %243, %145) : (tensor<4xf32>, tensor<3x3x1x4xf32>, tensor<4xf32>, tensor<3x3x4x4xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<3x3x1x4xf32>, tensor<4xf32>, tensor<3x3x4x4xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<3x3x1x4xf32>, tensor<4xf32>, tensor<3x3x4x4xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>, res_attrs = [{}], sym_name = "relu", sym_visibility = "private"}> ({
  ^bb0(%arg20: tensor<2x8x8x4xf32>):
    %56 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %57 = "stablehlo.broadcast_in_dim"(%56) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %58 = "stablehlo.maximum"(%arg20, %57) : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    "func.return"(%58) : (tensor<2x8x8x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<2x2x2x4xf32>) -> tensor<2x2x2x4xf32>, res_attrs = [{}], sym_name = "relu_0", sym_visibility = "private"}> ({
  ^bb0(%arg19: tensor<2x2x2x4xf32>):
    %53 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %54 = "stablehlo.broadcast_in_dim"(%53) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %55 = "stablehlo.maximum"(%arg19, %54) : (tensor<2x2x2x4xf32>, tensor<2x2x2x4xf32>) -> tensor<2x2x2x4xf32>
    "func.return"(%55) : (tensor<2x2x2x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x3xf32>, tensor<2x1xi32>) -> (tensor<2x1xf32>, tensor<2x1x1xi32>), res_attrs = [{}, {}], sym_name = "take_along_axis", sym_visibility = "private"}> ({
  ^bb0(%arg15: tensor<2x3xf32>, %arg16: tensor<2x1xi32>):
    %30 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %31 = "stablehlo.broadcast_in_dim"(%30) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %32 = "stablehlo.compare"(%arg16, %31) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi1>
    %33 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %34 = "stablehlo.broadcast_in_dim"(%33) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %35 = "stablehlo.add"(%arg16, %34) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %36 = "stablehlo.select"(%32, %35, %arg16) : (tensor<2x1xi1>, tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %37 = "stablehlo.reshape"(%36) : (tensor<2x1xi32>) -> tensor<2x1x1xi32>
    %38 = "stablehlo.constant"() <{value = dense<2> : tensor<1xi32>}> : () -> tensor<1xi32>
    %39 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %40 = "stablehlo.broadcast_in_dim"(%39) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1x1xi32>
    %41 = "stablehlo.compare"(%37, %40) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2x1x1xi32>, tensor<2x1x1xi32>) -> tensor<2x1x1xi1>
    %42 = "stablehlo.broadcast_in_dim"(%38) <{broadcast_dimensions = array<i64: 2>}> : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %43 = "stablehlo.broadcast_in_dim"(%42) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x1xi32>) -> tensor<2x1x1xi32>
    %44 = "stablehlo.compare"(%37, %43) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<2x1x1xi32>, tensor<2x1x1xi32>) -> tensor<2x1x1xi1>
    %45 = "stablehlo.and"(%41, %44) : (tensor<2x1x1xi1>, tensor<2x1x1xi1>) -> tensor<2x1x1xi1>
    %46 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %47 = "stablehlo.reduce"(%45, %46) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg17: tensor<i1>, %arg18: tensor<i1>):
      %52 = "stablehlo.and"(%arg17, %arg18) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%52) : (tensor<i1>) -> ()
    }) : (tensor<2x1x1xi1>, tensor<i1>) -> tensor<2x1xi1>
    %48 = "stablehlo.gather"(%arg15, %37) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<2x3xf32>, tensor<2x1x1xi32>) -> tensor<2x1xf32>
    %49 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %50 = "stablehlo.broadcast_in_dim"(%49) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x1xf32>
    %51 = "stablehlo.select"(%47, %48, %50) : (tensor<2x1xi1>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
    "func.return"(%51, %37) : (tensor<2x1xf32>, tensor<2x1x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x1xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<1xi32>), res_attrs = [{}, {}], sym_name = "_take", sym_visibility = "private"}> ({
  ^bb0(%arg11: tensor<2x1xf32>, %arg12: tensor<i32>):
    %9 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %10 = "stablehlo.compare"(%arg12, %9) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %11 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %12 = "stablehlo.add"(%arg12, %11) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %13 = "func.call"(%10, %12, %arg12) <{callee = @_where}> : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<1xi32>
    %15 = "stablehlo.constant"() <{value = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %16 = "stablehlo.convert"(%14) : (tensor<1xi32>) -> tensor<1xi32>
    %17 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %18 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<1xi32>
    %19 = "stablehlo.compare"(%16, %18) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %20 = "stablehlo.compare"(%16, %15) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %21 = "stablehlo.and"(%19, %20) : (tensor<1xi1>, tensor<1xi1>) -> tensor<1xi1>
    %22 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %23 = "stablehlo.reduce"(%21, %22) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg13: tensor<i1>, %arg14: tensor<i1>):
      %29 = "stablehlo.and"(%arg13, %arg14) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%29) : (tensor<i1>) -> ()
    }) : (tensor<1xi1>, tensor<i1>) -> tensor<i1>
    %24 = "stablehlo.gather"(%arg11, %16) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 2, 1>}> : (tensor<2x1xf32>, tensor<1xi32>) -> tensor<2xf32>
    %25 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<2xi1>
    %26 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %27 = "stablehlo.broadcast_in_dim"(%26) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %28 = "stablehlo.select"(%25, %24, %27) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%28, %14) : (tensor<2xf32>, tensor<1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg8: tensor<i1>, %arg9: tensor<i32>, %arg10: tensor<i32>):
    %8 = "stablehlo.select"(%arg8, %arg9, %arg10) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%8) : (tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<1xi32>, tensor<2xf32>) -> tensor<2x1xf32>, res_attrs = [{}], sym_name = "_take_1", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<1xi32>, %arg5: tensor<2xf32>):
    %4 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x1xf32>
    %6 = "stablehlo.scatter"(%5, %arg4, %arg5) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = false}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %7 = "stablehlo.add"(%arg6, %arg7) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%7) : (tensor<f32>) -> ()
    }) : (tensor<2x1xf32>, tensor<1xi32>, tensor<2xf32>) -> tensor<2x1xf32>
    "func.return"(%6) : (tensor<2x1xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x1x1xi32>, tensor<2x1xf32>) -> tensor<2x3xf32>, res_attrs = [{}], sym_name = "take_along_axis_2", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2x1x1xi32>, %arg1: tensor<2x1xf32>):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x3xf32>
    %2 = "stablehlo.scatter"(%1, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %3 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%3) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<2x1x1xi32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    "func.return"(%2) : (tensor<2x3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

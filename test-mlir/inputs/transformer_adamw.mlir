"builtin.module"() <{sym_name = "jit_step"}> ({
  "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32}, {tf.aliasing_output = 1 : i32}, {tf.aliasing_output = 2 : i32}, {tf.aliasing_output = 3 : i32}, {tf.aliasing_output = 4 : i32}, {tf.aliasing_output = 5 : i32}, {tf.aliasing_output = 6 : i32}, {tf.aliasing_output = 7 : i32}, {tf.aliasing_output = 8 : i32}, {tf.aliasing_output = 9 : i32}, {tf.aliasing_output = 10 : i32}, {tf.aliasing_output = 11 : i32}, {tf.aliasing_output = 12 : i32}, {tf.aliasing_output = 13 : i32}, {tf.aliasing_output = 14 : i32}, {tf.aliasing_output = 15 : i32}, {tf.aliasing_output = 16 : i32}, {tf.aliasing_output = 17 : i32}, {tf.aliasing_output = 18 : i32}, {tf.aliasing_output = 19 : i32}, {tf.aliasing_output = 20 : i32}, {tf.aliasing_output = 21 : i32}, {tf.aliasing_output = 22 : i32}, {tf.aliasing_output = 23 : i32}, {tf.aliasing_output = 24 : i32}, {tf.aliasing_output = 25 : i32}, {tf.aliasing_output = 26 : i32}, {tf.aliasing_output = 27 : i32}, {tf.aliasing_output = 28 : i32}, {tf.aliasing_output = 29 : i32}, {tf.aliasing_output = 30 : i32}, {tf.aliasing_output = 31 : i32}, {tf.aliasing_output = 32 : i32}, {tf.aliasing_output = 33 : i32}, {tf.aliasing_output = 34 : i32}, {tf.aliasing_output = 35 : i32}, {tf.aliasing_output = 36 : i32}, {tf.aliasing_output = 37 : i32}, {tf.aliasing_output = 38 : i32}, {tf.aliasing_output = 39 : i32}, {}, {}], function_type = (tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x2x4xf32>, tensor<2x4x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<i32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x2x4xf32>, tensor<2x4x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x2x4xf32>, tensor<2x4x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<2x4xi32>, tensor<2x4xi32>) -> (tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x2x4xf32>, tensor<2x4x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<i32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x2x4xf32>, tensor<2x4x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x2x4xf32>, tensor<2x4x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x2x4xf32>, tensor<2x4x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<f32>), res_attrs = [{jax.result_info = "result[0]['Dense_0']['bias']"}, {jax.result_info = "result[0]['Dense_0']['kernel']"}, {jax.result_info = "result[0]['Dense_1']['bias']"}, {jax.result_info = "result[0]['Dense_1']['kernel']"}, {jax.result_info = "result[0]['Embed_0']['embedding']"}, {jax.result_info = "result[0]['LayerNorm_0']['bias']"}, {jax.result_info = "result[0]['LayerNorm_0']['scale']"}, {jax.result_info = "result[0]['LayerNorm_1']['bias']"}, {jax.result_info = "result[0]['LayerNorm_1']['scale']"}, {jax.result_info = "result[0]['MultiHeadDotProductAttention_0']['key']['kernel']"}, {jax.result_info = "result[0]['MultiHeadDotProductAttention_0']['out']['kernel']"}, {jax.result_info = "result[0]['MultiHeadDotProductAttention_0']['query']['kernel']"}, {jax.result_info = "result[0]['MultiHeadDotProductAttention_0']['value']['kernel']"}, {jax.result_info = "result[1][1][0].count"}, {jax.result_info = "result[1][1][0].mu['Dense_0']['bias']"}, {jax.result_info = "result[1][1][0].mu['Dense_0']['kernel']"}, {jax.result_info = "result[1][1][0].mu['Dense_1']['bias']"}, {jax.result_info = "result[1][1][0].mu['Dense_1']['kernel']"}, {jax.result_info = "result[1][1][0].mu['Embed_0']['embedding']"}, {jax.result_info = "result[1][1][0].mu['LayerNorm_0']['bias']"}, {jax.result_info = "result[1][1][0].mu['LayerNorm_0']['scale']"}, {jax.result_info = "result[1][1][0].mu['LayerNorm_1']['bias']"}, {jax.result_info = "result[1][1][0].mu['LayerNorm_1']['scale']"}, {jax.result_info = "result[1][1][0].mu['MultiHeadDotProductAttention_0']['key']['kernel']"}, {jax.result_info = "result[1][1][0].mu['MultiHeadDotProductAttention_0']['out']['kernel']"}, {jax.result_info = "result[1][1][0].mu['MultiHeadDotProductAttention_0']['query']['kernel']"}, {jax.result_info = "result[1][1][0].mu['MultiHeadDotProductAttention_0']['value']['kernel']"}, {jax.result_info = "result[1][1][0].nu['Dense_0']['bias']"}, {jax.result_info = "result[1][1][0].nu['Dense_0']['kernel']"}, {jax.result_info = "result[1][1][0].nu['Dense_1']['bias']"}, {jax.result_info = "result[1][1][0].nu['Dense_1']['kernel']"}, {jax.result_info = "result[1][1][0].nu['Embed_0']['embedding']"}, {jax.result_info = "result[1][1][0].nu['LayerNorm_0']['bias']"}, {jax.result_info = "result[1][1][0].nu['LayerNorm_0']['scale']"}, {jax.result_info = "result[1][1][0].nu['LayerNorm_1']['bias']"}, {jax.result_info = "result[1][1][0].nu['LayerNorm_1']['scale']"}, {jax.result_info = "result[1][1][0].nu['MultiHeadDotProductAttention_0']['key']['kernel']"}, {jax.result_info = "result[1][1][0].nu['MultiHeadDotProductAttention_0']['out']['kernel']"}, {jax.result_info = "result[1][1][0].nu['MultiHeadDotProductAttention_0']['query']['kernel']"}, {jax.result_info = "result[1][1][0].nu['MultiHeadDotProductAttention_0']['value']['kernel']"}, {jax.result_info = "result[2]['Dense_0']['bias']"}, {jax.result_info = "result[2]['Dense_0']['kernel']"}, {jax.result_info = "result[2]['Dense_1']['bias']"}, {jax.result_info = "result[2]['Dense_1']['kernel']"}, {jax.result_info = "result[2]['Embed_0']['embedding']"}, {jax.result_info = "result[2]['LayerNorm_0']['bias']"}, {jax.result_info = "result[2]['LayerNorm_0']['scale']"}, {jax.result_info = "result[2]['LayerNorm_1']['bias']"}, {jax.result_info = "result[2]['LayerNorm_1']['scale']"}, {jax.result_info = "result[2]['MultiHeadDotProductAttention_0']['key']['kernel']"}, {jax.result_info = "result[2]['MultiHeadDotProductAttention_0']['out']['kernel']"}, {jax.result_info = "result[2]['MultiHeadDotProductAttention_0']['query']['kernel']"}, {jax.result_info = "result[2]['MultiHeadDotProductAttention_0']['value']['kernel']"}, {jax.result_info = "result[3]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg39: tensor<16xf32>, %arg40: tensor<8x16xf32>, %arg41: tensor<8xf32>, %arg42: tensor<16x8xf32>, %arg43: tensor<16x8xf32>, %arg44: tensor<8xf32>, %arg45: tensor<8xf32>, %arg46: tensor<8xf32>, %arg47: tensor<8xf32>, %arg48: tensor<8x2x4xf32>, %arg49: tensor<2x4x8xf32>, %arg50: tensor<8x2x4xf32>, %arg51: tensor<8x2x4xf32>, %arg52: tensor<i32>, %arg53: tensor<16xf32>, %arg54: tensor<8x16xf32>, %arg55: tensor<8xf32>, %arg56: tensor<16x8xf32>, %arg57: tensor<16x8xf32>, %arg58: tensor<8xf32>, %arg59: tensor<8xf32>, %arg60: tensor<8xf32>, %arg61: tensor<8xf32>, %arg62: tensor<8x2x4xf32>, %arg63: tensor<2x4x8xf32>, %arg64: tensor<8x2x4xf32>, %arg65: tensor<8x2x4xf32>, %arg66: tensor<16xf32>, %arg67: tensor<8x16xf32>, %arg68: tensor<8xf32>, %arg69: tensor<16x8xf32>, %arg70: tensor<16x8xf32>, %arg71: tensor<8xf32>, %arg72: tensor<8xf32>, %arg73: tensor<8xf32>, %arg74: tensor<8xf32>, %arg75: tensor<8x2x4xf32>, %arg76: tensor<2x4x8xf32>, %arg77: tensor<8x2x4xf32>, %arg78: tensor<8x2x4xf32>, %arg79: tensor<2x4xi32>, %arg80: tensor<2x4xi32>):
    %94:2 = "func.call"(%arg43, %arg79) <{callee = @_take}> : (tensor<16x8xf32>, tensor<2x4xi32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xi32>)
    %95 = "chlo.square"(%94#0) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %96 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %97 = "stablehlo.broadcast_in_dim"(%96) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %98 = "stablehlo.multiply"(%97, %94#0) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %99 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %100 = "stablehlo.reduce"(%94#0, %99) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg159: tensor<f32>, %arg160: tensor<f32>):
      %1234 = "stablehlo.add"(%arg159, %arg160) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1234) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
    %101 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %102 = "stablehlo.broadcast_in_dim"(%101) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %103 = "stablehlo.divide"(%100, %102) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %104 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %105 = "stablehlo.reduce"(%95, %104) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg157: tensor<f32>, %arg158: tensor<f32>):
      %1233 = "stablehlo.add"(%arg157, %arg158) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1233) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
    %106 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %107 = "stablehlo.broadcast_in_dim"(%106) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %108 = "stablehlo.divide"(%105, %107) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %109 = "chlo.square"(%103) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %110 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %111 = "stablehlo.broadcast_in_dim"(%110) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %112 = "stablehlo.multiply"(%111, %103) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %113 = "stablehlo.subtract"(%108, %109) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %114 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %115 = "stablehlo.broadcast_in_dim"(%114) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %116 = "stablehlo.maximum"(%115, %113) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %117 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %118 = "stablehlo.broadcast_in_dim"(%117) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %119 = "stablehlo.compare"(%113, %118) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %120 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %121 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %122 = "stablehlo.compare"(%113, %121) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %123 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %124 = "stablehlo.broadcast_in_dim"(%123) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %125 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %126 = "stablehlo.broadcast_in_dim"(%125) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %127 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %128 = "stablehlo.broadcast_in_dim"(%127) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %129 = "stablehlo.select"(%122, %128, %126) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %130 = "stablehlo.select"(%119, %124, %129) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %131 = "stablehlo.broadcast_in_dim"(%103) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
    %132 = "stablehlo.broadcast_in_dim"(%116) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
    %133 = "stablehlo.broadcast_in_dim"(%131) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
    %134 = "stablehlo.subtract"(%94#0, %133) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %135 = "stablehlo.constant"() <{value = dense<9.99999997E-7> : tensor<f32>}> : () -> tensor<f32>
    %136 = "stablehlo.broadcast_in_dim"(%135) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x1xf32>
    %137 = "stablehlo.add"(%132, %136) : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %138 = "stablehlo.rsqrt"(%137) : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %139 = "stablehlo.divide"(%138, %137) : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %140 = "stablehlo.constant"() <{value = dense<-5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %141 = "stablehlo.broadcast_in_dim"(%140) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x1xf32>
    %142 = "stablehlo.multiply"(%141, %139) : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %143 = "stablehlo.reshape"(%arg45) : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %144 = "stablehlo.broadcast_in_dim"(%138) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
    %145 = "stablehlo.broadcast_in_dim"(%143) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
    %146 = "stablehlo.multiply"(%144, %145) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %147 = "stablehlo.multiply"(%134, %146) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %148 = "stablehlo.reshape"(%arg44) : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %149 = "stablehlo.broadcast_in_dim"(%148) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
    %150 = "stablehlo.add"(%147, %149) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %151 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4xi32>
    %152 = "stablehlo.broadcast_in_dim"(%151) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xi32>) -> tensor<2x4xi32>
    %153 = "stablehlo.broadcast_in_dim"(%152) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xi32>) -> tensor<2x4x1xi32>
    %154 = "stablehlo.broadcast_in_dim"(%152) <{broadcast_dimensions = array<i64: 0, 2>}> : (tensor<2x4xi32>) -> tensor<2x1x4xi32>
    %155 = "stablehlo.broadcast_in_dim"(%153) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x4x1xi32>) -> tensor<2x4x4xi32>
    %156 = "stablehlo.broadcast_in_dim"(%154) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x1x4xi32>) -> tensor<2x4x4xi32>
    %157 = "stablehlo.compare"(%155, %156) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2x4x4xi32>, tensor<2x4x4xi32>) -> tensor<2x4x4xi1>
    %158 = "stablehlo.broadcast_in_dim"(%157) <{broadcast_dimensions = array<i64: 0, 2, 3>}> : (tensor<2x4x4xi1>) -> tensor<2x1x4x4xi1>
    %159 = "stablehlo.convert"(%158) : (tensor<2x1x4x4xi1>) -> tensor<2x1x4x4xf32>
    %160 = "stablehlo.dot_general"(%150, %arg50) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x8xf32>, tensor<8x2x4xf32>) -> tensor<2x4x2x4xf32>
    %161 = "stablehlo.dot_general"(%150, %arg48) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x8xf32>, tensor<8x2x4xf32>) -> tensor<2x4x2x4xf32>
    %162 = "stablehlo.dot_general"(%150, %arg51) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x8xf32>, tensor<8x2x4xf32>) -> tensor<2x4x2x4xf32>
    %163 = "stablehlo.constant"() <{value = dense<4.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %164 = "stablehlo.sqrt"(%163) : (tensor<f32>) -> tensor<f32>
    %165 = "stablehlo.convert"(%164) : (tensor<f32>) -> tensor<f32>
    %166 = "stablehlo.broadcast_in_dim"(%165) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x2x4xf32>
    %167 = "stablehlo.divide"(%160, %166) : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
    %168 = "stablehlo.dot_general"(%167, %161) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0, 2], rhs_batching_dimensions = [0, 2], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [3]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
    %169 = "stablehlo.constant"() <{value = dense<-3.40282347E+38> : tensor<f32>}> : () -> tensor<f32>
    %170:3 = "func.call"(%159, %168, %169) <{callee = @_where_0}> : (tensor<2x1x4x4xf32>, tensor<2x2x4x4xf32>, tensor<f32>) -> (tensor<2x2x4x4xf32>, tensor<2x2x4x4xi1>, tensor<2x2x4x4xf32>)
    %171 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %172 = "stablehlo.reduce"(%170#0, %171) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg155: tensor<f32>, %arg156: tensor<f32>):
      %1232 = "stablehlo.maximum"(%arg155, %arg156) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1232) : (tensor<f32>) -> ()
    }) : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4xf32>
    %173 = "stablehlo.reshape"(%172) : (tensor<2x2x4xf32>) -> tensor<2x2x4x1xf32>
    %174 = "stablehlo.broadcast_in_dim"(%173) <{broadcast_dimensions = array<i64: 0, 1, 2, 3>}> : (tensor<2x2x4x1xf32>) -> tensor<2x2x4x4xf32>
    %175 = "stablehlo.compare"(%170#0, %174) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xi1>
    %176 = "stablehlo.convert"(%175) : (tensor<2x2x4x4xi1>) -> tensor<2x2x4x4xf32>
    %177 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %178 = "stablehlo.reduce"(%176, %177) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg153: tensor<f32>, %arg154: tensor<f32>):
      %1231 = "stablehlo.add"(%arg153, %arg154) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1231) : (tensor<f32>) -> ()
    }) : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4xf32>
    %179 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %180 = "stablehlo.broadcast_in_dim"(%179) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x4xf32>
    %181 = "stablehlo.maximum"(%180, %172) : (tensor<2x2x4xf32>, tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
    %182 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %183 = "stablehlo.broadcast_in_dim"(%182) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x4xf32>
    %184 = "stablehlo.compare"(%172, %183) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2x2x4xf32>, tensor<2x2x4xf32>) -> tensor<2x2x4xi1>
    %185 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %186 = "stablehlo.broadcast_in_dim"(%185) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x4xf32>
    %187 = "stablehlo.compare"(%172, %186) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<2x2x4xf32>, tensor<2x2x4xf32>) -> tensor<2x2x4xi1>
    %188 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %189 = "stablehlo.broadcast_in_dim"(%188) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x4xf32>
    %190 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %191 = "stablehlo.broadcast_in_dim"(%190) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x4xf32>
    %192 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %193 = "stablehlo.broadcast_in_dim"(%192) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x4xf32>
    %194 = "stablehlo.select"(%187, %193, %191) : (tensor<2x2x4xi1>, tensor<2x2x4xf32>, tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
    %195 = "stablehlo.select"(%184, %189, %194) : (tensor<2x2x4xi1>, tensor<2x2x4xf32>, tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
    %196 = "stablehlo.broadcast_in_dim"(%181) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x2x4xf32>) -> tensor<2x2x4x1xf32>
    %197 = "stablehlo.broadcast_in_dim"(%196) <{broadcast_dimensions = array<i64: 0, 1, 2, 3>}> : (tensor<2x2x4x1xf32>) -> tensor<2x2x4x4xf32>
    %198 = "stablehlo.subtract"(%170#0, %197) : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %199 = "stablehlo.exponential"(%198) : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %200 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %201 = "stablehlo.reduce"(%199, %200) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg151: tensor<f32>, %arg152: tensor<f32>):
      %1230 = "stablehlo.add"(%arg151, %arg152) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1230) : (tensor<f32>) -> ()
    }) : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4xf32>
    %202 = "stablehlo.broadcast_in_dim"(%201) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x2x4xf32>) -> tensor<2x2x4x1xf32>
    %203 = "stablehlo.broadcast_in_dim"(%202) <{broadcast_dimensions = array<i64: 0, 1, 2, 3>}> : (tensor<2x2x4x1xf32>) -> tensor<2x2x4x4xf32>
    %204 = "stablehlo.divide"(%199, %203) : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %205 = "stablehlo.multiply"(%202, %202) : (tensor<2x2x4x1xf32>, tensor<2x2x4x1xf32>) -> tensor<2x2x4x1xf32>
    %206 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %207 = "stablehlo.broadcast_in_dim"(%206) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x4x1xf32>
    %208 = "stablehlo.divide"(%207, %205) : (tensor<2x2x4x1xf32>, tensor<2x2x4x1xf32>) -> tensor<2x2x4x1xf32>
    %209 = "stablehlo.dot_general"(%162, %204) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0, 2], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [3]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x2x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %210 = "stablehlo.transpose"(%209) <{permutation = array<i64: 0, 3, 1, 2>}> : (tensor<2x2x4x4xf32>) -> tensor<2x4x2x4xf32>
    %211 = "stablehlo.dot_general"(%210, %arg49) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [0, 1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x2x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %212 = "stablehlo.add"(%94#0, %211) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %213 = "chlo.square"(%212) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %214 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %215 = "stablehlo.broadcast_in_dim"(%214) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %216 = "stablehlo.multiply"(%215, %212) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %217 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %218 = "stablehlo.reduce"(%212, %217) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg149: tensor<f32>, %arg150: tensor<f32>):
      %1229 = "stablehlo.add"(%arg149, %arg150) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1229) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
    %219 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %220 = "stablehlo.broadcast_in_dim"(%219) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %221 = "stablehlo.divide"(%218, %220) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %222 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %223 = "stablehlo.reduce"(%213, %222) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg147: tensor<f32>, %arg148: tensor<f32>):
      %1228 = "stablehlo.add"(%arg147, %arg148) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1228) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
    %224 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %225 = "stablehlo.broadcast_in_dim"(%224) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %226 = "stablehlo.divide"(%223, %225) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %227 = "chlo.square"(%221) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %228 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %229 = "stablehlo.broadcast_in_dim"(%228) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %230 = "stablehlo.multiply"(%229, %221) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %231 = "stablehlo.subtract"(%226, %227) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %232 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %233 = "stablehlo.broadcast_in_dim"(%232) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %234 = "stablehlo.maximum"(%233, %231) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %235 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %236 = "stablehlo.broadcast_in_dim"(%235) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %237 = "stablehlo.compare"(%231, %236) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %238 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %239 = "stablehlo.broadcast_in_dim"(%238) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %240 = "stablehlo.compare"(%231, %239) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %241 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %242 = "stablehlo.broadcast_in_dim"(%241) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %243 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %244 = "stablehlo.broadcast_in_dim"(%243) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %245 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %246 = "stablehlo.broadcast_in_dim"(%245) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %247 = "stablehlo.select"(%240, %246, %244) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %248 = "stablehlo.select"(%237, %242, %247) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %249 = "stablehlo.broadcast_in_dim"(%221) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
    %250 = "stablehlo.broadcast_in_dim"(%234) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
    %251 = "stablehlo.broadcast_in_dim"(%249) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
    %252 = "stablehlo.subtract"(%212, %251) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %253 = "stablehlo.constant"() <{value = dense<9.99999997E-7> : tensor<f32>}> : () -> tensor<f32>
    %254 = "stablehlo.broadcast_in_dim"(%253) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x1xf32>
    %255 = "stablehlo.add"(%250, %254) : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %256 = "stablehlo.rsqrt"(%255) : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %257 = "stablehlo.divide"(%256, %255) : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %258 = "stablehlo.constant"() <{value = dense<-5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %259 = "stablehlo.broadcast_in_dim"(%258) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x1xf32>
    %260 = "stablehlo.multiply"(%259, %257) : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %261 = "stablehlo.reshape"(%arg47) : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %262 = "stablehlo.broadcast_in_dim"(%256) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
    %263 = "stablehlo.broadcast_in_dim"(%261) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
    %264 = "stablehlo.multiply"(%262, %263) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %265 = "stablehlo.multiply"(%252, %264) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %266 = "stablehlo.reshape"(%arg46) : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %267 = "stablehlo.broadcast_in_dim"(%266) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
    %268 = "stablehlo.add"(%265, %267) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %269 = "stablehlo.dot_general"(%268, %arg40) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
    %270 = "stablehlo.reshape"(%arg39) : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %271 = "stablehlo.broadcast_in_dim"(%270) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x16xf32>) -> tensor<2x4x16xf32>
    %272 = "stablehlo.add"(%269, %271) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %273 = "stablehlo.multiply"(%272, %272) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %274 = "stablehlo.multiply"(%273, %272) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %275 = "stablehlo.multiply"(%272, %272) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %276 = "stablehlo.constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %277 = "stablehlo.broadcast_in_dim"(%276) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x16xf32>
    %278 = "stablehlo.multiply"(%277, %275) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %279 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
    %280 = "stablehlo.broadcast_in_dim"(%279) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x16xf32>
    %281 = "stablehlo.multiply"(%280, %274) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %282 = "stablehlo.add"(%272, %281) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %283 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
    %284 = "stablehlo.broadcast_in_dim"(%283) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x16xf32>
    %285 = "stablehlo.multiply"(%284, %282) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %286 = "stablehlo.tanh"(%285) : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %287 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %288 = "stablehlo.broadcast_in_dim"(%287) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x16xf32>
    %289 = "stablehlo.add"(%288, %286) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %290 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %291 = "stablehlo.broadcast_in_dim"(%290) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x16xf32>
    %292 = "stablehlo.subtract"(%291, %286) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %293 = "stablehlo.multiply"(%289, %292) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %294 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %295 = "stablehlo.broadcast_in_dim"(%294) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x16xf32>
    %296 = "stablehlo.add"(%295, %286) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %297 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %298 = "stablehlo.broadcast_in_dim"(%297) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x16xf32>
    %299 = "stablehlo.multiply"(%298, %296) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %300 = "stablehlo.multiply"(%272, %299) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %301 = "stablehlo.dot_general"(%300, %arg42) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
    %302 = "stablehlo.reshape"(%arg41) : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %303 = "stablehlo.broadcast_in_dim"(%302) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
    %304 = "stablehlo.add"(%301, %303) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %305 = "stablehlo.add"(%212, %304) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %306 = "stablehlo.transpose"(%arg43) <{permutation = array<i64: 1, 0>}> : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %307 = "stablehlo.dot_general"(%305, %306) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
    %308 = "stablehlo.broadcast_in_dim"(%arg80) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xi32>) -> tensor<2x4x1xi32>
    %309:2 = "func.call"(%307, %308) <{callee = @take_along_axis}> : (tensor<2x4x16xf32>, tensor<2x4x1xi32>) -> (tensor<2x4x1xf32>, tensor<2x4x1x1xi32>)
    %310 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %311:2 = "func.call"(%309#0, %310) <{callee = @_take_1}> : (tensor<2x4x1xf32>, tensor<i32>) -> (tensor<2x4xf32>, tensor<1xi32>)
    %312 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %313 = "stablehlo.reduce"(%307, %312) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg145: tensor<f32>, %arg146: tensor<f32>):
      %1227 = "stablehlo.maximum"(%arg145, %arg146) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1227) : (tensor<f32>) -> ()
    }) : (tensor<2x4x16xf32>, tensor<f32>) -> tensor<2x4xf32>
    %314 = "stablehlo.reshape"(%313) : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
    %315 = "stablehlo.broadcast_in_dim"(%314) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
    %316 = "stablehlo.compare"(%307, %315) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xi1>
    %317 = "stablehlo.convert"(%316) : (tensor<2x4x16xi1>) -> tensor<2x4x16xf32>
    %318 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %319 = "stablehlo.reduce"(%317, %318) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg143: tensor<f32>, %arg144: tensor<f32>):
      %1226 = "stablehlo.add"(%arg143, %arg144) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1226) : (tensor<f32>) -> ()
    }) : (tensor<2x4x16xf32>, tensor<f32>) -> tensor<2x4xf32>
    %320 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %321 = "stablehlo.broadcast_in_dim"(%320) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %322 = "stablehlo.maximum"(%321, %313) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %323 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %324 = "stablehlo.broadcast_in_dim"(%323) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %325 = "stablehlo.compare"(%313, %324) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %326 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %327 = "stablehlo.broadcast_in_dim"(%326) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %328 = "stablehlo.compare"(%313, %327) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %329 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %330 = "stablehlo.broadcast_in_dim"(%329) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %331 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %332 = "stablehlo.broadcast_in_dim"(%331) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %333 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %334 = "stablehlo.broadcast_in_dim"(%333) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %335 = "stablehlo.select"(%328, %334, %332) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %336 = "stablehlo.select"(%325, %330, %335) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %337 = "stablehlo.is_finite"(%322) : (tensor<2x4xf32>) -> tensor<2x4xi1>
    %338 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %339 = "stablehlo.broadcast_in_dim"(%338) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %340 = "stablehlo.select"(%337, %322, %339) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %341 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %342 = "stablehlo.broadcast_in_dim"(%341) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %343 = "stablehlo.broadcast_in_dim"(%340) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
    %344 = "stablehlo.broadcast_in_dim"(%343) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
    %345 = "stablehlo.subtract"(%307, %344) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %346 = "stablehlo.exponential"(%345) : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %347 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %348 = "stablehlo.reduce"(%346, %347) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg141: tensor<f32>, %arg142: tensor<f32>):
      %1225 = "stablehlo.add"(%arg141, %arg142) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1225) : (tensor<f32>) -> ()
    }) : (tensor<2x4x16xf32>, tensor<f32>) -> tensor<2x4xf32>
    %349 = "stablehlo.sign"(%348) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %350 = "stablehlo.abs"(%348) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %351 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %352 = "stablehlo.broadcast_in_dim"(%351) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %353 = "stablehlo.compare"(%348, %352) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %354 = "stablehlo.log"(%350) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %355 = "stablehlo.add"(%354, %340) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %356 = "stablehlo.subtract"(%355, %311#0) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %357 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %358 = "stablehlo.reduce"(%356, %357) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg139: tensor<f32>, %arg140: tensor<f32>):
      %1224 = "stablehlo.add"(%arg139, %arg140) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1224) : (tensor<f32>) -> ()
    }) : (tensor<2x4xf32>, tensor<f32>) -> tensor<f32>
    %359 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %360 = "stablehlo.divide"(%358, %359) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %361 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %362 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %363 = "stablehlo.divide"(%361, %362) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %364 = "stablehlo.broadcast_in_dim"(%363) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %365 = "stablehlo.negate"(%364) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %366 = "stablehlo.divide"(%364, %350) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %367 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %368 = "stablehlo.broadcast_in_dim"(%367) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %369 = "stablehlo.select"(%353, %368, %366) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %370 = "stablehlo.select"(%353, %366, %368) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %371 = "stablehlo.negate"(%369) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %372 = "stablehlo.add"(%370, %371) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %373 = "stablehlo.broadcast_in_dim"(%372) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xf32>) -> tensor<2x4x16xf32>
    %374 = "stablehlo.multiply"(%373, %346) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %375 = "func.call"(%311#1, %365) <{callee = @_take_3}> : (tensor<1xi32>, tensor<2x4xf32>) -> tensor<2x4x1xf32>
    %376 = "func.call"(%309#1, %375) <{callee = @take_along_axis_4}> : (tensor<2x4x1x1xi32>, tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
    %377 = "stablehlo.add"(%374, %376) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %378 = "stablehlo.dot_general"(%377, %305) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x16xf32>, tensor<2x4x8xf32>) -> tensor<16x8xf32>
    %379 = "stablehlo.transpose"(%378) <{permutation = array<i64: 1, 0>}> : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %380 = "stablehlo.dot_general"(%377, %306) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x16xf32>, tensor<8x16xf32>) -> tensor<2x4x8xf32>
    %381 = "stablehlo.transpose"(%379) <{permutation = array<i64: 1, 0>}> : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %382 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %383 = "stablehlo.reduce"(%380, %382) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg137: tensor<f32>, %arg138: tensor<f32>):
      %1223 = "stablehlo.add"(%arg137, %arg138) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1223) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %384 = "stablehlo.reshape"(%383) : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %385 = "stablehlo.reshape"(%384) : (tensor<1x1x8xf32>) -> tensor<8xf32>
    %386 = "stablehlo.dot_general"(%380, %300) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x8xf32>, tensor<2x4x16xf32>) -> tensor<8x16xf32>
    %387 = "stablehlo.transpose"(%386) <{permutation = array<i64: 1, 0>}> : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %388 = "stablehlo.dot_general"(%380, %arg42) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
    %389 = "stablehlo.multiply"(%272, %388) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %390 = "stablehlo.multiply"(%388, %299) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %391 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %392 = "stablehlo.broadcast_in_dim"(%391) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x16xf32>
    %393 = "stablehlo.multiply"(%392, %389) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %394 = "stablehlo.multiply"(%393, %293) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %395 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
    %396 = "stablehlo.broadcast_in_dim"(%395) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x16xf32>
    %397 = "stablehlo.multiply"(%396, %394) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %398 = "stablehlo.add"(%390, %397) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %399 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
    %400 = "stablehlo.broadcast_in_dim"(%399) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x16xf32>
    %401 = "stablehlo.multiply"(%400, %397) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %402 = "stablehlo.multiply"(%401, %278) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %403 = "stablehlo.add"(%398, %402) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %404 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %405 = "stablehlo.reduce"(%403, %404) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg135: tensor<f32>, %arg136: tensor<f32>):
      %1222 = "stablehlo.add"(%arg135, %arg136) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1222) : (tensor<f32>) -> ()
    }) : (tensor<2x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %406 = "stablehlo.reshape"(%405) : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %407 = "stablehlo.reshape"(%406) : (tensor<1x1x16xf32>) -> tensor<16xf32>
    %408 = "stablehlo.dot_general"(%403, %268) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x16xf32>, tensor<2x4x8xf32>) -> tensor<16x8xf32>
    %409 = "stablehlo.transpose"(%408) <{permutation = array<i64: 1, 0>}> : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %410 = "stablehlo.dot_general"(%403, %arg40) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x16xf32>, tensor<8x16xf32>) -> tensor<2x4x8xf32>
    %411 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %412 = "stablehlo.reduce"(%410, %411) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg133: tensor<f32>, %arg134: tensor<f32>):
      %1221 = "stablehlo.add"(%arg133, %arg134) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1221) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %413 = "stablehlo.reshape"(%412) : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %414 = "stablehlo.reshape"(%413) : (tensor<1x1x8xf32>) -> tensor<8xf32>
    %415 = "stablehlo.multiply"(%252, %410) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %416 = "stablehlo.multiply"(%410, %264) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %417 = "stablehlo.broadcast_in_dim"(%256) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
    %418 = "stablehlo.multiply"(%417, %415) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %419 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %420 = "stablehlo.reduce"(%418, %419) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg131: tensor<f32>, %arg132: tensor<f32>):
      %1220 = "stablehlo.add"(%arg131, %arg132) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1220) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %421 = "stablehlo.reshape"(%420) : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %422 = "stablehlo.broadcast_in_dim"(%261) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
    %423 = "stablehlo.multiply"(%415, %422) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %424 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %425 = "stablehlo.reduce"(%423, %424) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg129: tensor<f32>, %arg130: tensor<f32>):
      %1219 = "stablehlo.add"(%arg129, %arg130) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1219) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
    %426 = "stablehlo.reshape"(%425) : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
    %427 = "stablehlo.reshape"(%421) : (tensor<1x1x8xf32>) -> tensor<8xf32>
    %428 = "stablehlo.multiply"(%426, %260) : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %429 = "stablehlo.negate"(%416) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %430 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %431 = "stablehlo.reduce"(%429, %430) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg127: tensor<f32>, %arg128: tensor<f32>):
      %1218 = "stablehlo.add"(%arg127, %arg128) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1218) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
    %432 = "stablehlo.reshape"(%431) : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
    %433 = "stablehlo.add"(%380, %416) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %434 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %435 = "stablehlo.reduce"(%428, %434) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg125: tensor<f32>, %arg126: tensor<f32>):
      %1217 = "stablehlo.add"(%arg125, %arg126) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1217) : (tensor<f32>) -> ()
    }) : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4xf32>
    %436 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %437 = "stablehlo.reduce"(%432, %436) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg123: tensor<f32>, %arg124: tensor<f32>):
      %1216 = "stablehlo.add"(%arg123, %arg124) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1216) : (tensor<f32>) -> ()
    }) : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4xf32>
    %438 = "stablehlo.multiply"(%435, %248) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %439 = "stablehlo.negate"(%438) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %440 = "stablehlo.multiply"(%439, %230) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %441 = "stablehlo.add"(%437, %440) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %442 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %443 = "stablehlo.broadcast_in_dim"(%442) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %444 = "stablehlo.divide"(%438, %443) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %445 = "stablehlo.broadcast_in_dim"(%444) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xf32>) -> tensor<2x4x8xf32>
    %446 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %447 = "stablehlo.broadcast_in_dim"(%446) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %448 = "stablehlo.divide"(%441, %447) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %449 = "stablehlo.broadcast_in_dim"(%448) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xf32>) -> tensor<2x4x8xf32>
    %450 = "stablehlo.add"(%433, %449) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %451 = "stablehlo.multiply"(%445, %216) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %452 = "stablehlo.add"(%450, %451) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %453 = "stablehlo.dot_general"(%452, %210) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x8xf32>, tensor<2x4x2x4xf32>) -> tensor<8x2x4xf32>
    %454 = "stablehlo.transpose"(%453) <{permutation = array<i64: 1, 2, 0>}> : (tensor<8x2x4xf32>) -> tensor<2x4x8xf32>
    %455 = "stablehlo.dot_general"(%452, %arg49) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
    %456 = "stablehlo.transpose"(%455) <{permutation = array<i64: 0, 2, 3, 1>}> : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
    %457 = "stablehlo.dot_general"(%456, %162) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 2], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [3]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x2x4x4xf32>, tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
    %458 = "stablehlo.dot_general"(%456, %204) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %459 = "stablehlo.transpose"(%458) <{permutation = array<i64: 0, 3, 1, 2>}> : (tensor<2x2x4x4xf32>) -> tensor<2x4x2x4xf32>
    %460 = "stablehlo.broadcast_in_dim"(%208) <{broadcast_dimensions = array<i64: 0, 1, 2, 3>}> : (tensor<2x2x4x1xf32>) -> tensor<2x2x4x4xf32>
    %461 = "stablehlo.multiply"(%457, %460) : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %462 = "stablehlo.multiply"(%461, %199) : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %463 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %464 = "stablehlo.reduce"(%462, %463) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg121: tensor<f32>, %arg122: tensor<f32>):
      %1215 = "stablehlo.add"(%arg121, %arg122) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1215) : (tensor<f32>) -> ()
    }) : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4xf32>
    %465 = "stablehlo.reshape"(%464) : (tensor<2x2x4xf32>) -> tensor<2x2x4x1xf32>
    %466 = "stablehlo.negate"(%465) : (tensor<2x2x4x1xf32>) -> tensor<2x2x4x1xf32>
    %467 = "stablehlo.broadcast_in_dim"(%202) <{broadcast_dimensions = array<i64: 0, 1, 2, 3>}> : (tensor<2x2x4x1xf32>) -> tensor<2x2x4x4xf32>
    %468 = "stablehlo.divide"(%457, %467) : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %469 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %470 = "stablehlo.reduce"(%466, %469) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg119: tensor<f32>, %arg120: tensor<f32>):
      %1214 = "stablehlo.add"(%arg119, %arg120) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1214) : (tensor<f32>) -> ()
    }) : (tensor<2x2x4x1xf32>, tensor<f32>) -> tensor<2x2x4xf32>
    %471 = "stablehlo.broadcast_in_dim"(%470) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x2x4xf32>) -> tensor<2x2x4x4xf32>
    %472 = "stablehlo.add"(%468, %471) : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %473 = "stablehlo.multiply"(%472, %199) : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %474 = "func.call"(%170#1, %170#2, %473) <{callee = @_where_5}> : (tensor<2x2x4x4xi1>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %475 = "stablehlo.dot_general"(%474, %167) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 2], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x2x4x4xf32>, tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
    %476 = "stablehlo.transpose"(%475) <{permutation = array<i64: 0, 2, 1, 3>}> : (tensor<2x2x4x4xf32>) -> tensor<2x4x2x4xf32>
    %477 = "stablehlo.dot_general"(%474, %161) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 2], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x2x4x4xf32>, tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
    %478 = "stablehlo.transpose"(%477) <{permutation = array<i64: 0, 2, 1, 3>}> : (tensor<2x2x4x4xf32>) -> tensor<2x4x2x4xf32>
    %479 = "stablehlo.broadcast_in_dim"(%165) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x2x4xf32>
    %480 = "stablehlo.divide"(%478, %479) : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
    %481 = "stablehlo.dot_general"(%459, %150) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x2x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %482 = "stablehlo.transpose"(%481) <{permutation = array<i64: 2, 0, 1>}> : (tensor<2x4x8xf32>) -> tensor<8x2x4xf32>
    %483 = "stablehlo.dot_general"(%459, %arg51) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [1, 2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x2x4xf32>, tensor<8x2x4xf32>) -> tensor<2x4x8xf32>
    %484 = "stablehlo.dot_general"(%476, %150) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x2x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %485 = "stablehlo.transpose"(%484) <{permutation = array<i64: 2, 0, 1>}> : (tensor<2x4x8xf32>) -> tensor<8x2x4xf32>
    %486 = "stablehlo.dot_general"(%476, %arg48) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [1, 2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x2x4xf32>, tensor<8x2x4xf32>) -> tensor<2x4x8xf32>
    %487 = "stablehlo.add"(%483, %486) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %488 = "stablehlo.dot_general"(%480, %150) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x2x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %489 = "stablehlo.transpose"(%488) <{permutation = array<i64: 2, 0, 1>}> : (tensor<2x4x8xf32>) -> tensor<8x2x4xf32>
    %490 = "stablehlo.dot_general"(%480, %arg50) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [1, 2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4x2x4xf32>, tensor<8x2x4xf32>) -> tensor<2x4x8xf32>
    %491 = "stablehlo.add"(%487, %490) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %492 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %493 = "stablehlo.reduce"(%491, %492) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg117: tensor<f32>, %arg118: tensor<f32>):
      %1213 = "stablehlo.add"(%arg117, %arg118) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1213) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %494 = "stablehlo.reshape"(%493) : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %495 = "stablehlo.reshape"(%494) : (tensor<1x1x8xf32>) -> tensor<8xf32>
    %496 = "stablehlo.multiply"(%134, %491) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %497 = "stablehlo.multiply"(%491, %146) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %498 = "stablehlo.broadcast_in_dim"(%138) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
    %499 = "stablehlo.multiply"(%498, %496) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %500 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %501 = "stablehlo.reduce"(%499, %500) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg115: tensor<f32>, %arg116: tensor<f32>):
      %1212 = "stablehlo.add"(%arg115, %arg116) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1212) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %502 = "stablehlo.reshape"(%501) : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %503 = "stablehlo.broadcast_in_dim"(%143) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
    %504 = "stablehlo.multiply"(%496, %503) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %505 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %506 = "stablehlo.reduce"(%504, %505) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg113: tensor<f32>, %arg114: tensor<f32>):
      %1211 = "stablehlo.add"(%arg113, %arg114) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1211) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
    %507 = "stablehlo.reshape"(%506) : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
    %508 = "stablehlo.reshape"(%502) : (tensor<1x1x8xf32>) -> tensor<8xf32>
    %509 = "stablehlo.multiply"(%507, %142) : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %510 = "stablehlo.negate"(%497) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %511 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %512 = "stablehlo.reduce"(%510, %511) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg111: tensor<f32>, %arg112: tensor<f32>):
      %1210 = "stablehlo.add"(%arg111, %arg112) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1210) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
    %513 = "stablehlo.reshape"(%512) : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
    %514 = "stablehlo.add"(%452, %497) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %515 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %516 = "stablehlo.reduce"(%509, %515) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg109: tensor<f32>, %arg110: tensor<f32>):
      %1209 = "stablehlo.add"(%arg109, %arg110) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1209) : (tensor<f32>) -> ()
    }) : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4xf32>
    %517 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %518 = "stablehlo.reduce"(%513, %517) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg107: tensor<f32>, %arg108: tensor<f32>):
      %1208 = "stablehlo.add"(%arg107, %arg108) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1208) : (tensor<f32>) -> ()
    }) : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4xf32>
    %519 = "stablehlo.multiply"(%516, %130) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %520 = "stablehlo.negate"(%519) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %521 = "stablehlo.multiply"(%520, %112) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %522 = "stablehlo.add"(%518, %521) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %523 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %524 = "stablehlo.broadcast_in_dim"(%523) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %525 = "stablehlo.divide"(%519, %524) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %526 = "stablehlo.broadcast_in_dim"(%525) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xf32>) -> tensor<2x4x8xf32>
    %527 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %528 = "stablehlo.broadcast_in_dim"(%527) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %529 = "stablehlo.divide"(%522, %528) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %530 = "stablehlo.broadcast_in_dim"(%529) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xf32>) -> tensor<2x4x8xf32>
    %531 = "stablehlo.add"(%514, %530) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %532 = "stablehlo.multiply"(%526, %98) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %533 = "stablehlo.add"(%531, %532) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %534 = "func.call"(%94#1, %533) <{callee = @_take_6}> : (tensor<2x4x1xi32>, tensor<2x4x8xf32>) -> tensor<16x8xf32>
    %535 = "stablehlo.add"(%381, %534) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %536 = "chlo.square"(%407) : (tensor<16xf32>) -> tensor<16xf32>
    %537 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %538 = "stablehlo.broadcast_in_dim"(%537) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %539 = "chlo.square"(%538) : (tensor<16xf32>) -> tensor<16xf32>
    %540 = "stablehlo.add"(%536, %539) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %541 = "chlo.square"(%409) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %542 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %543 = "stablehlo.broadcast_in_dim"(%542) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %544 = "chlo.square"(%543) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %545 = "stablehlo.add"(%541, %544) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %546 = "chlo.square"(%385) : (tensor<8xf32>) -> tensor<8xf32>
    %547 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %548 = "stablehlo.broadcast_in_dim"(%547) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %549 = "chlo.square"(%548) : (tensor<8xf32>) -> tensor<8xf32>
    %550 = "stablehlo.add"(%546, %549) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %551 = "chlo.square"(%387) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %552 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %553 = "stablehlo.broadcast_in_dim"(%552) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %554 = "chlo.square"(%553) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %555 = "stablehlo.add"(%551, %554) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %556 = "chlo.square"(%535) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %557 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %558 = "stablehlo.broadcast_in_dim"(%557) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %559 = "chlo.square"(%558) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %560 = "stablehlo.add"(%556, %559) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %561 = "chlo.square"(%495) : (tensor<8xf32>) -> tensor<8xf32>
    %562 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %563 = "stablehlo.broadcast_in_dim"(%562) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %564 = "chlo.square"(%563) : (tensor<8xf32>) -> tensor<8xf32>
    %565 = "stablehlo.add"(%561, %564) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %566 = "chlo.square"(%508) : (tensor<8xf32>) -> tensor<8xf32>
    %567 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %568 = "stablehlo.broadcast_in_dim"(%567) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %569 = "chlo.square"(%568) : (tensor<8xf32>) -> tensor<8xf32>
    %570 = "stablehlo.add"(%566, %569) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %571 = "chlo.square"(%414) : (tensor<8xf32>) -> tensor<8xf32>
    %572 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %573 = "stablehlo.broadcast_in_dim"(%572) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %574 = "chlo.square"(%573) : (tensor<8xf32>) -> tensor<8xf32>
    %575 = "stablehlo.add"(%571, %574) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %576 = "chlo.square"(%427) : (tensor<8xf32>) -> tensor<8xf32>
    %577 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %578 = "stablehlo.broadcast_in_dim"(%577) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %579 = "chlo.square"(%578) : (tensor<8xf32>) -> tensor<8xf32>
    %580 = "stablehlo.add"(%576, %579) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %581 = "chlo.square"(%485) : (tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %582 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %583 = "stablehlo.broadcast_in_dim"(%582) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %584 = "chlo.square"(%583) : (tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %585 = "stablehlo.add"(%581, %584) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %586 = "chlo.square"(%454) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %587 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %588 = "stablehlo.broadcast_in_dim"(%587) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %589 = "chlo.square"(%588) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %590 = "stablehlo.add"(%586, %589) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %591 = "chlo.square"(%489) : (tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %592 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %593 = "stablehlo.broadcast_in_dim"(%592) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %594 = "chlo.square"(%593) : (tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %595 = "stablehlo.add"(%591, %594) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %596 = "chlo.square"(%482) : (tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %597 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %598 = "stablehlo.broadcast_in_dim"(%597) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %599 = "chlo.square"(%598) : (tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %600 = "stablehlo.add"(%596, %599) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %601 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %602 = "stablehlo.reduce"(%540, %601) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg105: tensor<f32>, %arg106: tensor<f32>):
      %1207 = "stablehlo.add"(%arg105, %arg106) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1207) : (tensor<f32>) -> ()
    }) : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %603 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %604 = "stablehlo.reduce"(%545, %603) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg103: tensor<f32>, %arg104: tensor<f32>):
      %1206 = "stablehlo.add"(%arg103, %arg104) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1206) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
    %605 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %606 = "stablehlo.reduce"(%550, %605) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg101: tensor<f32>, %arg102: tensor<f32>):
      %1205 = "stablehlo.add"(%arg101, %arg102) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1205) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %607 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %608 = "stablehlo.reduce"(%555, %607) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg99: tensor<f32>, %arg100: tensor<f32>):
      %1204 = "stablehlo.add"(%arg99, %arg100) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1204) : (tensor<f32>) -> ()
    }) : (tensor<16x8xf32>, tensor<f32>) -> tensor<f32>
    %609 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %610 = "stablehlo.reduce"(%560, %609) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg97: tensor<f32>, %arg98: tensor<f32>):
      %1203 = "stablehlo.add"(%arg97, %arg98) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1203) : (tensor<f32>) -> ()
    }) : (tensor<16x8xf32>, tensor<f32>) -> tensor<f32>
    %611 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %612 = "stablehlo.reduce"(%565, %611) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg95: tensor<f32>, %arg96: tensor<f32>):
      %1202 = "stablehlo.add"(%arg95, %arg96) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1202) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %613 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %614 = "stablehlo.reduce"(%570, %613) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg93: tensor<f32>, %arg94: tensor<f32>):
      %1201 = "stablehlo.add"(%arg93, %arg94) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1201) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %615 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %616 = "stablehlo.reduce"(%575, %615) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg91: tensor<f32>, %arg92: tensor<f32>):
      %1200 = "stablehlo.add"(%arg91, %arg92) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1200) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %617 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %618 = "stablehlo.reduce"(%580, %617) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg89: tensor<f32>, %arg90: tensor<f32>):
      %1199 = "stablehlo.add"(%arg89, %arg90) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1199) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %619 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %620 = "stablehlo.reduce"(%585, %619) <{dimensions = array<i64: 0, 1, 2>}> ({
    ^bb0(%arg87: tensor<f32>, %arg88: tensor<f32>):
      %1198 = "stablehlo.add"(%arg87, %arg88) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1198) : (tensor<f32>) -> ()
    }) : (tensor<8x2x4xf32>, tensor<f32>) -> tensor<f32>
    %621 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %622 = "stablehlo.reduce"(%590, %621) <{dimensions = array<i64: 0, 1, 2>}> ({
    ^bb0(%arg85: tensor<f32>, %arg86: tensor<f32>):
      %1197 = "stablehlo.add"(%arg85, %arg86) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1197) : (tensor<f32>) -> ()
    }) : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<f32>
    %623 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %624 = "stablehlo.reduce"(%595, %623) <{dimensions = array<i64: 0, 1, 2>}> ({
    ^bb0(%arg83: tensor<f32>, %arg84: tensor<f32>):
      %1196 = "stablehlo.add"(%arg83, %arg84) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1196) : (tensor<f32>) -> ()
    }) : (tensor<8x2x4xf32>, tensor<f32>) -> tensor<f32>
    %625 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %626 = "stablehlo.reduce"(%600, %625) <{dimensions = array<i64: 0, 1, 2>}> ({
    ^bb0(%arg81: tensor<f32>, %arg82: tensor<f32>):
      %1195 = "stablehlo.add"(%arg81, %arg82) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1195) : (tensor<f32>) -> ()
    }) : (tensor<8x2x4xf32>, tensor<f32>) -> tensor<f32>
    %627 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %628 = "stablehlo.add"(%627, %602) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %629 = "stablehlo.add"(%628, %604) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %630 = "stablehlo.add"(%629, %606) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %631 = "stablehlo.add"(%630, %608) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %632 = "stablehlo.add"(%631, %610) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %633 = "stablehlo.add"(%632, %612) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %634 = "stablehlo.add"(%633, %614) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %635 = "stablehlo.add"(%634, %616) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %636 = "stablehlo.add"(%635, %618) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %637 = "stablehlo.add"(%636, %620) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %638 = "stablehlo.add"(%637, %622) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %639 = "stablehlo.add"(%638, %624) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %640 = "stablehlo.add"(%639, %626) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %641 = "stablehlo.sqrt"(%640) : (tensor<f32>) -> tensor<f32>
    %642 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %643 = "stablehlo.compare"(%641, %642) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %644 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %645 = "stablehlo.divide"(%407, %644) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %646 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %647 = "stablehlo.broadcast_in_dim"(%646) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %648 = "stablehlo.multiply"(%645, %647) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %649 = "stablehlo.select"(%643, %407, %648) : (tensor<i1>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %650 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %651 = "stablehlo.divide"(%409, %650) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %652 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %653 = "stablehlo.broadcast_in_dim"(%652) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %654 = "stablehlo.multiply"(%651, %653) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %655 = "stablehlo.select"(%643, %409, %654) : (tensor<i1>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %656 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %657 = "stablehlo.divide"(%385, %656) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %658 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %659 = "stablehlo.broadcast_in_dim"(%658) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %660 = "stablehlo.multiply"(%657, %659) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %661 = "stablehlo.select"(%643, %385, %660) : (tensor<i1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %662 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %663 = "stablehlo.divide"(%387, %662) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %664 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %665 = "stablehlo.broadcast_in_dim"(%664) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %666 = "stablehlo.multiply"(%663, %665) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %667 = "stablehlo.select"(%643, %387, %666) : (tensor<i1>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %668 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %669 = "stablehlo.divide"(%535, %668) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %670 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %671 = "stablehlo.broadcast_in_dim"(%670) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %672 = "stablehlo.multiply"(%669, %671) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %673 = "stablehlo.select"(%643, %535, %672) : (tensor<i1>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %674 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %675 = "stablehlo.divide"(%495, %674) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %676 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %677 = "stablehlo.broadcast_in_dim"(%676) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %678 = "stablehlo.multiply"(%675, %677) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %679 = "stablehlo.select"(%643, %495, %678) : (tensor<i1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %680 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %681 = "stablehlo.divide"(%508, %680) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %682 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %683 = "stablehlo.broadcast_in_dim"(%682) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %684 = "stablehlo.multiply"(%681, %683) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %685 = "stablehlo.select"(%643, %508, %684) : (tensor<i1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %686 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %687 = "stablehlo.divide"(%414, %686) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %688 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %689 = "stablehlo.broadcast_in_dim"(%688) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %690 = "stablehlo.multiply"(%687, %689) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %691 = "stablehlo.select"(%643, %414, %690) : (tensor<i1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %692 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %693 = "stablehlo.divide"(%427, %692) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %694 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %695 = "stablehlo.broadcast_in_dim"(%694) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %696 = "stablehlo.multiply"(%693, %695) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %697 = "stablehlo.select"(%643, %427, %696) : (tensor<i1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %698 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %699 = "stablehlo.divide"(%485, %698) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %700 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %701 = "stablehlo.broadcast_in_dim"(%700) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %702 = "stablehlo.multiply"(%699, %701) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %703 = "stablehlo.select"(%643, %485, %702) : (tensor<i1>, tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %704 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %705 = "stablehlo.divide"(%454, %704) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %706 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %707 = "stablehlo.broadcast_in_dim"(%706) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %708 = "stablehlo.multiply"(%705, %707) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %709 = "stablehlo.select"(%643, %454, %708) : (tensor<i1>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %710 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %711 = "stablehlo.divide"(%489, %710) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %712 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %713 = "stablehlo.broadcast_in_dim"(%712) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %714 = "stablehlo.multiply"(%711, %713) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %715 = "stablehlo.select"(%643, %489, %714) : (tensor<i1>, tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %716 = "stablehlo.broadcast_in_dim"(%641) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %717 = "stablehlo.divide"(%482, %716) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %718 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %719 = "stablehlo.broadcast_in_dim"(%718) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %720 = "stablehlo.multiply"(%717, %719) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %721 = "stablehlo.select"(%643, %482, %720) : (tensor<i1>, tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %722 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %723 = "stablehlo.broadcast_in_dim"(%722) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %724 = "stablehlo.multiply"(%723, %649) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %725 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %726 = "stablehlo.broadcast_in_dim"(%725) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %727 = "stablehlo.multiply"(%726, %arg53) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %728 = "stablehlo.add"(%724, %727) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %729 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %730 = "stablehlo.broadcast_in_dim"(%729) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %731 = "stablehlo.multiply"(%730, %655) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %732 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %733 = "stablehlo.broadcast_in_dim"(%732) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %734 = "stablehlo.multiply"(%733, %arg54) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %735 = "stablehlo.add"(%731, %734) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %736 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %737 = "stablehlo.broadcast_in_dim"(%736) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %738 = "stablehlo.multiply"(%737, %661) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %739 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %740 = "stablehlo.broadcast_in_dim"(%739) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %741 = "stablehlo.multiply"(%740, %arg55) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %742 = "stablehlo.add"(%738, %741) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %743 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %744 = "stablehlo.broadcast_in_dim"(%743) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %745 = "stablehlo.multiply"(%744, %667) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %746 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %747 = "stablehlo.broadcast_in_dim"(%746) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %748 = "stablehlo.multiply"(%747, %arg56) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %749 = "stablehlo.add"(%745, %748) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %750 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %751 = "stablehlo.broadcast_in_dim"(%750) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %752 = "stablehlo.multiply"(%751, %673) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %753 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %754 = "stablehlo.broadcast_in_dim"(%753) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %755 = "stablehlo.multiply"(%754, %arg57) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %756 = "stablehlo.add"(%752, %755) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %757 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %758 = "stablehlo.broadcast_in_dim"(%757) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %759 = "stablehlo.multiply"(%758, %679) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %760 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %761 = "stablehlo.broadcast_in_dim"(%760) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %762 = "stablehlo.multiply"(%761, %arg58) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %763 = "stablehlo.add"(%759, %762) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %764 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %765 = "stablehlo.broadcast_in_dim"(%764) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %766 = "stablehlo.multiply"(%765, %685) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %767 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %768 = "stablehlo.broadcast_in_dim"(%767) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %769 = "stablehlo.multiply"(%768, %arg59) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %770 = "stablehlo.add"(%766, %769) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %771 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %772 = "stablehlo.broadcast_in_dim"(%771) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %773 = "stablehlo.multiply"(%772, %691) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %774 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %775 = "stablehlo.broadcast_in_dim"(%774) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %776 = "stablehlo.multiply"(%775, %arg60) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %777 = "stablehlo.add"(%773, %776) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %778 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %779 = "stablehlo.broadcast_in_dim"(%778) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %780 = "stablehlo.multiply"(%779, %697) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %781 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %782 = "stablehlo.broadcast_in_dim"(%781) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %783 = "stablehlo.multiply"(%782, %arg61) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %784 = "stablehlo.add"(%780, %783) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %785 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %786 = "stablehlo.broadcast_in_dim"(%785) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %787 = "stablehlo.multiply"(%786, %703) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %788 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %789 = "stablehlo.broadcast_in_dim"(%788) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %790 = "stablehlo.multiply"(%789, %arg62) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %791 = "stablehlo.add"(%787, %790) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %792 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %793 = "stablehlo.broadcast_in_dim"(%792) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %794 = "stablehlo.multiply"(%793, %709) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %795 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %796 = "stablehlo.broadcast_in_dim"(%795) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %797 = "stablehlo.multiply"(%796, %arg63) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %798 = "stablehlo.add"(%794, %797) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %799 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %800 = "stablehlo.broadcast_in_dim"(%799) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %801 = "stablehlo.multiply"(%800, %715) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %802 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %803 = "stablehlo.broadcast_in_dim"(%802) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %804 = "stablehlo.multiply"(%803, %arg64) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %805 = "stablehlo.add"(%801, %804) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %806 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %807 = "stablehlo.broadcast_in_dim"(%806) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %808 = "stablehlo.multiply"(%807, %721) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %809 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %810 = "stablehlo.broadcast_in_dim"(%809) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %811 = "stablehlo.multiply"(%810, %arg65) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %812 = "stablehlo.add"(%808, %811) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %813 = "stablehlo.multiply"(%649, %649) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %814 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %815 = "stablehlo.broadcast_in_dim"(%814) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %816 = "stablehlo.multiply"(%815, %813) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %817 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %818 = "stablehlo.broadcast_in_dim"(%817) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %819 = "stablehlo.multiply"(%818, %arg66) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %820 = "stablehlo.add"(%816, %819) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %821 = "stablehlo.multiply"(%655, %655) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %822 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %823 = "stablehlo.broadcast_in_dim"(%822) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %824 = "stablehlo.multiply"(%823, %821) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %825 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %826 = "stablehlo.broadcast_in_dim"(%825) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %827 = "stablehlo.multiply"(%826, %arg67) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %828 = "stablehlo.add"(%824, %827) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %829 = "stablehlo.multiply"(%661, %661) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %830 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %831 = "stablehlo.broadcast_in_dim"(%830) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %832 = "stablehlo.multiply"(%831, %829) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %833 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %834 = "stablehlo.broadcast_in_dim"(%833) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %835 = "stablehlo.multiply"(%834, %arg68) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %836 = "stablehlo.add"(%832, %835) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %837 = "stablehlo.multiply"(%667, %667) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %838 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %839 = "stablehlo.broadcast_in_dim"(%838) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %840 = "stablehlo.multiply"(%839, %837) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %841 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %842 = "stablehlo.broadcast_in_dim"(%841) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %843 = "stablehlo.multiply"(%842, %arg69) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %844 = "stablehlo.add"(%840, %843) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %845 = "stablehlo.multiply"(%673, %673) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %846 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %847 = "stablehlo.broadcast_in_dim"(%846) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %848 = "stablehlo.multiply"(%847, %845) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %849 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %850 = "stablehlo.broadcast_in_dim"(%849) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %851 = "stablehlo.multiply"(%850, %arg70) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %852 = "stablehlo.add"(%848, %851) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %853 = "stablehlo.multiply"(%679, %679) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %854 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %855 = "stablehlo.broadcast_in_dim"(%854) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %856 = "stablehlo.multiply"(%855, %853) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %857 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %858 = "stablehlo.broadcast_in_dim"(%857) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %859 = "stablehlo.multiply"(%858, %arg71) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %860 = "stablehlo.add"(%856, %859) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %861 = "stablehlo.multiply"(%685, %685) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %862 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %863 = "stablehlo.broadcast_in_dim"(%862) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %864 = "stablehlo.multiply"(%863, %861) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %865 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %866 = "stablehlo.broadcast_in_dim"(%865) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %867 = "stablehlo.multiply"(%866, %arg72) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %868 = "stablehlo.add"(%864, %867) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %869 = "stablehlo.multiply"(%691, %691) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %870 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %871 = "stablehlo.broadcast_in_dim"(%870) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %872 = "stablehlo.multiply"(%871, %869) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %873 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %874 = "stablehlo.broadcast_in_dim"(%873) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %875 = "stablehlo.multiply"(%874, %arg73) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %876 = "stablehlo.add"(%872, %875) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %877 = "stablehlo.multiply"(%697, %697) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %878 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %879 = "stablehlo.broadcast_in_dim"(%878) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %880 = "stablehlo.multiply"(%879, %877) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %881 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %882 = "stablehlo.broadcast_in_dim"(%881) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %883 = "stablehlo.multiply"(%882, %arg74) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %884 = "stablehlo.add"(%880, %883) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %885 = "stablehlo.multiply"(%703, %703) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %886 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %887 = "stablehlo.broadcast_in_dim"(%886) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %888 = "stablehlo.multiply"(%887, %885) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %889 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %890 = "stablehlo.broadcast_in_dim"(%889) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %891 = "stablehlo.multiply"(%890, %arg75) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %892 = "stablehlo.add"(%888, %891) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %893 = "stablehlo.multiply"(%709, %709) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %894 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %895 = "stablehlo.broadcast_in_dim"(%894) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %896 = "stablehlo.multiply"(%895, %893) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %897 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %898 = "stablehlo.broadcast_in_dim"(%897) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %899 = "stablehlo.multiply"(%898, %arg76) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %900 = "stablehlo.add"(%896, %899) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %901 = "stablehlo.multiply"(%715, %715) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %902 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %903 = "stablehlo.broadcast_in_dim"(%902) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %904 = "stablehlo.multiply"(%903, %901) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %905 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %906 = "stablehlo.broadcast_in_dim"(%905) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %907 = "stablehlo.multiply"(%906, %arg77) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %908 = "stablehlo.add"(%904, %907) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %909 = "stablehlo.multiply"(%721, %721) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %910 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %911 = "stablehlo.broadcast_in_dim"(%910) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %912 = "stablehlo.multiply"(%911, %909) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %913 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %914 = "stablehlo.broadcast_in_dim"(%913) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %915 = "stablehlo.multiply"(%914, %arg78) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %916 = "stablehlo.add"(%912, %915) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %917 = "stablehlo.constant"() <{value = dense<2147483647> : tensor<i32>}> : () -> tensor<i32>
    %918 = "stablehlo.compare"(%arg52, %917) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %919 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %920 = "stablehlo.add"(%arg52, %919) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %921 = "stablehlo.constant"() <{value = dense<2147483647> : tensor<i32>}> : () -> tensor<i32>
    %922 = "func.call"(%918, %920, %921) <{callee = @_where_7}> : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %923 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %924 = "stablehlo.convert"(%922) : (tensor<i32>) -> tensor<f32>
    %925 = "stablehlo.convert"(%922) : (tensor<i32>) -> tensor<f32>
    %926 = "stablehlo.power"(%923, %925) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %927 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %928 = "stablehlo.subtract"(%927, %926) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %929 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %930 = "stablehlo.divide"(%728, %929) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %931 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %932 = "stablehlo.divide"(%735, %931) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %933 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %934 = "stablehlo.divide"(%742, %933) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %935 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %936 = "stablehlo.divide"(%749, %935) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %937 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %938 = "stablehlo.divide"(%756, %937) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %939 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %940 = "stablehlo.divide"(%763, %939) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %941 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %942 = "stablehlo.divide"(%770, %941) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %943 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %944 = "stablehlo.divide"(%777, %943) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %945 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %946 = "stablehlo.divide"(%784, %945) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %947 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %948 = "stablehlo.divide"(%791, %947) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %949 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %950 = "stablehlo.divide"(%798, %949) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %951 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %952 = "stablehlo.divide"(%805, %951) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %953 = "stablehlo.broadcast_in_dim"(%928) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %954 = "stablehlo.divide"(%812, %953) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %955 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %956 = "stablehlo.convert"(%922) : (tensor<i32>) -> tensor<f32>
    %957 = "stablehlo.convert"(%922) : (tensor<i32>) -> tensor<f32>
    %958 = "stablehlo.power"(%955, %957) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %959 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %960 = "stablehlo.subtract"(%959, %958) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %961 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %962 = "stablehlo.divide"(%820, %961) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %963 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %964 = "stablehlo.divide"(%828, %963) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %965 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %966 = "stablehlo.divide"(%836, %965) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %967 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %968 = "stablehlo.divide"(%844, %967) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %969 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %970 = "stablehlo.divide"(%852, %969) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %971 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %972 = "stablehlo.divide"(%860, %971) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %973 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %974 = "stablehlo.divide"(%868, %973) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %975 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %976 = "stablehlo.divide"(%876, %975) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %977 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %978 = "stablehlo.divide"(%884, %977) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %979 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %980 = "stablehlo.divide"(%892, %979) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %981 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %982 = "stablehlo.divide"(%900, %981) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %983 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %984 = "stablehlo.divide"(%908, %983) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %985 = "stablehlo.broadcast_in_dim"(%960) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %986 = "stablehlo.divide"(%916, %985) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %987 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %988 = "stablehlo.broadcast_in_dim"(%987) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %989 = "stablehlo.add"(%962, %988) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %990 = "stablehlo.sqrt"(%989) : (tensor<16xf32>) -> tensor<16xf32>
    %991 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %992 = "stablehlo.broadcast_in_dim"(%991) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %993 = "stablehlo.add"(%990, %992) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %994 = "stablehlo.divide"(%930, %993) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %995 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %996 = "stablehlo.broadcast_in_dim"(%995) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %997 = "stablehlo.add"(%964, %996) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %998 = "stablehlo.sqrt"(%997) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %999 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1000 = "stablehlo.broadcast_in_dim"(%999) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %1001 = "stablehlo.add"(%998, %1000) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1002 = "stablehlo.divide"(%932, %1001) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1003 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1004 = "stablehlo.broadcast_in_dim"(%1003) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1005 = "stablehlo.add"(%966, %1004) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1006 = "stablehlo.sqrt"(%1005) : (tensor<8xf32>) -> tensor<8xf32>
    %1007 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1008 = "stablehlo.broadcast_in_dim"(%1007) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1009 = "stablehlo.add"(%1006, %1008) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1010 = "stablehlo.divide"(%934, %1009) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1011 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1012 = "stablehlo.broadcast_in_dim"(%1011) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %1013 = "stablehlo.add"(%968, %1012) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1014 = "stablehlo.sqrt"(%1013) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %1015 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1016 = "stablehlo.broadcast_in_dim"(%1015) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %1017 = "stablehlo.add"(%1014, %1016) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1018 = "stablehlo.divide"(%936, %1017) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1019 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1020 = "stablehlo.broadcast_in_dim"(%1019) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %1021 = "stablehlo.add"(%970, %1020) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1022 = "stablehlo.sqrt"(%1021) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %1023 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1024 = "stablehlo.broadcast_in_dim"(%1023) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %1025 = "stablehlo.add"(%1022, %1024) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1026 = "stablehlo.divide"(%938, %1025) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1027 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1028 = "stablehlo.broadcast_in_dim"(%1027) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1029 = "stablehlo.add"(%972, %1028) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1030 = "stablehlo.sqrt"(%1029) : (tensor<8xf32>) -> tensor<8xf32>
    %1031 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1032 = "stablehlo.broadcast_in_dim"(%1031) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1033 = "stablehlo.add"(%1030, %1032) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1034 = "stablehlo.divide"(%940, %1033) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1035 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1036 = "stablehlo.broadcast_in_dim"(%1035) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1037 = "stablehlo.add"(%974, %1036) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1038 = "stablehlo.sqrt"(%1037) : (tensor<8xf32>) -> tensor<8xf32>
    %1039 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1040 = "stablehlo.broadcast_in_dim"(%1039) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1041 = "stablehlo.add"(%1038, %1040) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1042 = "stablehlo.divide"(%942, %1041) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1043 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1044 = "stablehlo.broadcast_in_dim"(%1043) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1045 = "stablehlo.add"(%976, %1044) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1046 = "stablehlo.sqrt"(%1045) : (tensor<8xf32>) -> tensor<8xf32>
    %1047 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1048 = "stablehlo.broadcast_in_dim"(%1047) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1049 = "stablehlo.add"(%1046, %1048) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1050 = "stablehlo.divide"(%944, %1049) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1051 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1052 = "stablehlo.broadcast_in_dim"(%1051) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1053 = "stablehlo.add"(%978, %1052) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1054 = "stablehlo.sqrt"(%1053) : (tensor<8xf32>) -> tensor<8xf32>
    %1055 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1056 = "stablehlo.broadcast_in_dim"(%1055) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1057 = "stablehlo.add"(%1054, %1056) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1058 = "stablehlo.divide"(%946, %1057) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1059 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1060 = "stablehlo.broadcast_in_dim"(%1059) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1061 = "stablehlo.add"(%980, %1060) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1062 = "stablehlo.sqrt"(%1061) : (tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1063 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1064 = "stablehlo.broadcast_in_dim"(%1063) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1065 = "stablehlo.add"(%1062, %1064) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1066 = "stablehlo.divide"(%948, %1065) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1067 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1068 = "stablehlo.broadcast_in_dim"(%1067) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %1069 = "stablehlo.add"(%982, %1068) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %1070 = "stablehlo.sqrt"(%1069) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %1071 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1072 = "stablehlo.broadcast_in_dim"(%1071) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %1073 = "stablehlo.add"(%1070, %1072) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %1074 = "stablehlo.divide"(%950, %1073) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %1075 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1076 = "stablehlo.broadcast_in_dim"(%1075) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1077 = "stablehlo.add"(%984, %1076) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1078 = "stablehlo.sqrt"(%1077) : (tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1079 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1080 = "stablehlo.broadcast_in_dim"(%1079) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1081 = "stablehlo.add"(%1078, %1080) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1082 = "stablehlo.divide"(%952, %1081) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1083 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1084 = "stablehlo.broadcast_in_dim"(%1083) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1085 = "stablehlo.add"(%986, %1084) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1086 = "stablehlo.sqrt"(%1085) : (tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1087 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %1088 = "stablehlo.broadcast_in_dim"(%1087) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1089 = "stablehlo.add"(%1086, %1088) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1090 = "stablehlo.divide"(%954, %1089) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1091 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1092 = "stablehlo.broadcast_in_dim"(%1091) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %1093 = "stablehlo.multiply"(%1092, %arg39) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %1094 = "stablehlo.add"(%994, %1093) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %1095 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1096 = "stablehlo.broadcast_in_dim"(%1095) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %1097 = "stablehlo.multiply"(%1096, %arg40) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1098 = "stablehlo.add"(%1002, %1097) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1099 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1100 = "stablehlo.broadcast_in_dim"(%1099) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1101 = "stablehlo.multiply"(%1100, %arg41) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1102 = "stablehlo.add"(%1010, %1101) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1103 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1104 = "stablehlo.broadcast_in_dim"(%1103) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %1105 = "stablehlo.multiply"(%1104, %arg42) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1106 = "stablehlo.add"(%1018, %1105) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1107 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1108 = "stablehlo.broadcast_in_dim"(%1107) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %1109 = "stablehlo.multiply"(%1108, %arg43) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1110 = "stablehlo.add"(%1026, %1109) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1111 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1112 = "stablehlo.broadcast_in_dim"(%1111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1113 = "stablehlo.multiply"(%1112, %arg44) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1114 = "stablehlo.add"(%1034, %1113) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1115 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1116 = "stablehlo.broadcast_in_dim"(%1115) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1117 = "stablehlo.multiply"(%1116, %arg45) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1118 = "stablehlo.add"(%1042, %1117) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1119 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1120 = "stablehlo.broadcast_in_dim"(%1119) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1121 = "stablehlo.multiply"(%1120, %arg46) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1122 = "stablehlo.add"(%1050, %1121) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1123 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1124 = "stablehlo.broadcast_in_dim"(%1123) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1125 = "stablehlo.multiply"(%1124, %arg47) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1126 = "stablehlo.add"(%1058, %1125) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1127 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1128 = "stablehlo.broadcast_in_dim"(%1127) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1129 = "stablehlo.multiply"(%1128, %arg48) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1130 = "stablehlo.add"(%1066, %1129) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1131 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1132 = "stablehlo.broadcast_in_dim"(%1131) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %1133 = "stablehlo.multiply"(%1132, %arg49) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %1134 = "stablehlo.add"(%1074, %1133) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %1135 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1136 = "stablehlo.broadcast_in_dim"(%1135) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1137 = "stablehlo.multiply"(%1136, %arg50) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1138 = "stablehlo.add"(%1082, %1137) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1139 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1140 = "stablehlo.broadcast_in_dim"(%1139) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1141 = "stablehlo.multiply"(%1140, %arg51) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1142 = "stablehlo.add"(%1090, %1141) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1143 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1144 = "stablehlo.broadcast_in_dim"(%1143) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16xf32>
    %1145 = "stablehlo.multiply"(%1144, %1094) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %1146 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1147 = "stablehlo.broadcast_in_dim"(%1146) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
    %1148 = "stablehlo.multiply"(%1147, %1098) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1149 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1150 = "stablehlo.broadcast_in_dim"(%1149) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1151 = "stablehlo.multiply"(%1150, %1102) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1152 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1153 = "stablehlo.broadcast_in_dim"(%1152) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %1154 = "stablehlo.multiply"(%1153, %1106) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1155 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1156 = "stablehlo.broadcast_in_dim"(%1155) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %1157 = "stablehlo.multiply"(%1156, %1110) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1158 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1159 = "stablehlo.broadcast_in_dim"(%1158) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1160 = "stablehlo.multiply"(%1159, %1114) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1161 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1162 = "stablehlo.broadcast_in_dim"(%1161) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1163 = "stablehlo.multiply"(%1162, %1118) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1164 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1165 = "stablehlo.broadcast_in_dim"(%1164) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1166 = "stablehlo.multiply"(%1165, %1122) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1167 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1168 = "stablehlo.broadcast_in_dim"(%1167) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %1169 = "stablehlo.multiply"(%1168, %1126) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1170 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1171 = "stablehlo.broadcast_in_dim"(%1170) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1172 = "stablehlo.multiply"(%1171, %1130) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1173 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1174 = "stablehlo.broadcast_in_dim"(%1173) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %1175 = "stablehlo.multiply"(%1174, %1134) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %1176 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1177 = "stablehlo.broadcast_in_dim"(%1176) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1178 = "stablehlo.multiply"(%1177, %1138) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1179 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %1180 = "stablehlo.broadcast_in_dim"(%1179) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2x4xf32>
    %1181 = "stablehlo.multiply"(%1180, %1142) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1182 = "stablehlo.add"(%arg39, %1145) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %1183 = "stablehlo.add"(%arg40, %1148) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1184 = "stablehlo.add"(%arg41, %1151) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1185 = "stablehlo.add"(%arg42, %1154) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1186 = "stablehlo.add"(%arg43, %1157) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1187 = "stablehlo.add"(%arg44, %1160) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1188 = "stablehlo.add"(%arg45, %1163) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1189 = "stablehlo.add"(%arg46, %1166) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1190 = "stablehlo.add"(%arg47, %1169) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1191 = "stablehlo.add"(%arg48, %1172) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1192 = "stablehlo.add"(%arg49, %1175) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %1193 = "stablehlo.add"(%arg50, %1178) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    %1194 = "stablehlo.add"(%arg51, %1181) : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
    "func.return"(%1182, %1183, %1184, %1185, %1186, %1187, %1188, %1189, %1190, %1191, %1192, %1193, %1194, %922, %728, %735, %742, %749, %756, %763, %770, %777, %784, %791, %798, %805, %812, %820, %828, %836, %844, %852, %860, %868, %876, %884, %892, %900, %908, %916, %1145, %1148, %1151, %1154, %1157, %1160, %1163, %1166, %1169, %1172, %1175, %1178, %1181, %360) : (tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x2x4xf32>, tensor<2x4x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<i32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x2x4xf32>, tensor<2x4x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x2x4xf32>, tensor<2x4x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x2x4xf32>, tensor<2x4x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<16x8xf32>, tensor<2x4xi32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xi32>), res_attrs = [{}, {}], sym_name = "_take", sym_visibility = "private"}> ({
  ^bb0(%arg35: tensor<16x8xf32>, %arg36: tensor<2x4xi32>):
    %70 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %71 = "stablehlo.broadcast_in_dim"(%70) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x4xi32>
    %72 = "stablehlo.compare"(%arg36, %71) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi1>
    %73 = "stablehlo.constant"() <{value = dense<16> : tensor<i32>}> : () -> tensor<i32>
    %74 = "stablehlo.broadcast_in_dim"(%73) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x4xi32>
    %75 = "stablehlo.add"(%arg36, %74) : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
    %76 = "func.call"(%72, %75, %arg36) <{callee = @_where}> : (tensor<2x4xi1>, tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
    %77 = "stablehlo.broadcast_in_dim"(%76) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xi32>) -> tensor<2x4x1xi32>
    %78 = "stablehlo.constant"() <{value = dense<15> : tensor<1xi32>}> : () -> tensor<1xi32>
    %79 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %80 = "stablehlo.broadcast_in_dim"(%79) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x4x1xi32>
    %81 = "stablehlo.compare"(%77, %80) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2x4x1xi32>, tensor<2x4x1xi32>) -> tensor<2x4x1xi1>
    %82 = "stablehlo.broadcast_in_dim"(%78) <{broadcast_dimensions = array<i64: 2>}> : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %83 = "stablehlo.broadcast_in_dim"(%82) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x1xi32>) -> tensor<2x4x1xi32>
    %84 = "stablehlo.compare"(%77, %83) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<2x4x1xi32>, tensor<2x4x1xi32>) -> tensor<2x4x1xi1>
    %85 = "stablehlo.and"(%81, %84) : (tensor<2x4x1xi1>, tensor<2x4x1xi1>) -> tensor<2x4x1xi1>
    %86 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %87 = "stablehlo.reduce"(%85, %86) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg37: tensor<i1>, %arg38: tensor<i1>):
      %93 = "stablehlo.and"(%arg37, %arg38) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%93) : (tensor<i1>) -> ()
    }) : (tensor<2x4x1xi1>, tensor<i1>) -> tensor<2x4xi1>
    %88 = "stablehlo.gather"(%arg35, %77) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8>}> : (tensor<16x8xf32>, tensor<2x4x1xi32>) -> tensor<2x4x8xf32>
    %89 = "stablehlo.broadcast_in_dim"(%87) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x4xi1>) -> tensor<2x4x8xi1>
    %90 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %91 = "stablehlo.broadcast_in_dim"(%90) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x8xf32>
    %92 = "stablehlo.select"(%89, %88, %91) : (tensor<2x4x8xi1>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    "func.return"(%92, %77) : (tensor<2x4x8xf32>, tensor<2x4x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x4xi1>, tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg32: tensor<2x4xi1>, %arg33: tensor<2x4xi32>, %arg34: tensor<2x4xi32>):
    %69 = "stablehlo.select"(%arg32, %arg33, %arg34) : (tensor<2x4xi1>, tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
    "func.return"(%69) : (tensor<2x4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x1x4x4xf32>, tensor<2x2x4x4xf32>, tensor<f32>) -> (tensor<2x2x4x4xf32>, tensor<2x2x4x4xi1>, tensor<2x2x4x4xf32>), res_attrs = [{}, {}, {}], sym_name = "_where_0", sym_visibility = "private"}> ({
  ^bb0(%arg29: tensor<2x1x4x4xf32>, %arg30: tensor<2x2x4x4xf32>, %arg31: tensor<f32>):
    %61 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %62 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x1x4x4xf32>
    %63 = "stablehlo.compare"(%arg29, %62) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<2x1x4x4xi1>
    %64 = "stablehlo.broadcast_in_dim"(%63) <{broadcast_dimensions = array<i64: 0, 1, 2, 3>}> : (tensor<2x1x4x4xi1>) -> tensor<2x2x4x4xi1>
    %65 = "stablehlo.broadcast_in_dim"(%arg31) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x4x4xf32>
    %66 = "stablehlo.select"(%64, %arg30, %65) : (tensor<2x2x4x4xi1>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %67 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %68 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x4x4xf32>
    "func.return"(%66, %64, %68) : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xi1>, tensor<2x2x4x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x16xf32>, tensor<2x4x1xi32>) -> (tensor<2x4x1xf32>, tensor<2x4x1x1xi32>), res_attrs = [{}, {}], sym_name = "take_along_axis", sym_visibility = "private"}> ({
  ^bb0(%arg25: tensor<2x4x16xf32>, %arg26: tensor<2x4x1xi32>):
    %38 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %39 = "stablehlo.broadcast_in_dim"(%38) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x4x1xi32>
    %40 = "stablehlo.compare"(%arg26, %39) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2x4x1xi32>, tensor<2x4x1xi32>) -> tensor<2x4x1xi1>
    %41 = "stablehlo.constant"() <{value = dense<16> : tensor<i32>}> : () -> tensor<i32>
    %42 = "stablehlo.broadcast_in_dim"(%41) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x4x1xi32>
    %43 = "stablehlo.add"(%arg26, %42) : (tensor<2x4x1xi32>, tensor<2x4x1xi32>) -> tensor<2x4x1xi32>
    %44 = "stablehlo.select"(%40, %43, %arg26) : (tensor<2x4x1xi1>, tensor<2x4x1xi32>, tensor<2x4x1xi32>) -> tensor<2x4x1xi32>
    %45 = "stablehlo.reshape"(%44) : (tensor<2x4x1xi32>) -> tensor<2x4x1x1xi32>
    %46 = "stablehlo.constant"() <{value = dense<15> : tensor<1xi32>}> : () -> tensor<1xi32>
    %47 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %48 = "stablehlo.broadcast_in_dim"(%47) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x4x1x1xi32>
    %49 = "stablehlo.compare"(%45, %48) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2x4x1x1xi32>, tensor<2x4x1x1xi32>) -> tensor<2x4x1x1xi1>
    %50 = "stablehlo.broadcast_in_dim"(%46) <{broadcast_dimensions = array<i64: 3>}> : (tensor<1xi32>) -> tensor<1x1x1x1xi32>
    %51 = "stablehlo.broadcast_in_dim"(%50) <{broadcast_dimensions = array<i64: 0, 1, 2, 3>}> : (tensor<1x1x1x1xi32>) -> tensor<2x4x1x1xi32>
    %52 = "stablehlo.compare"(%45, %51) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<2x4x1x1xi32>, tensor<2x4x1x1xi32>) -> tensor<2x4x1x1xi1>
    %53 = "stablehlo.and"(%49, %52) : (tensor<2x4x1x1xi1>, tensor<2x4x1x1xi1>) -> tensor<2x4x1x1xi1>
    %54 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %55 = "stablehlo.reduce"(%53, %54) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg27: tensor<i1>, %arg28: tensor<i1>):
      %60 = "stablehlo.and"(%arg27, %arg28) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%60) : (tensor<i1>) -> ()
    }) : (tensor<2x4x1x1xi1>, tensor<i1>) -> tensor<2x4x1xi1>
    %56 = "stablehlo.gather"(%arg25, %45) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [2], operand_batching_dims = [0, 1], start_indices_batching_dims = [0, 1], start_index_map = [2], index_vector_dim = 3>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<2x4x16xf32>, tensor<2x4x1x1xi32>) -> tensor<2x4x1xf32>
    %57 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %58 = "stablehlo.broadcast_in_dim"(%57) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x1xf32>
    %59 = "stablehlo.select"(%55, %56, %58) : (tensor<2x4x1xi1>, tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    "func.return"(%59, %45) : (tensor<2x4x1xf32>, tensor<2x4x1x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x1xf32>, tensor<i32>) -> (tensor<2x4xf32>, tensor<1xi32>), res_attrs = [{}, {}], sym_name = "_take_1", sym_visibility = "private"}> ({
  ^bb0(%arg21: tensor<2x4x1xf32>, %arg22: tensor<i32>):
    %17 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %18 = "stablehlo.compare"(%arg22, %17) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %19 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %20 = "stablehlo.add"(%arg22, %19) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %21 = "func.call"(%18, %20, %arg22) <{callee = @_where_2}> : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %22 = "stablehlo.broadcast_in_dim"(%21) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<1xi32>
    %23 = "stablehlo.constant"() <{value = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %24 = "stablehlo.convert"(%22) : (tensor<1xi32>) -> tensor<1xi32>
    %25 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %26 = "stablehlo.broadcast_in_dim"(%25) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<1xi32>
    %27 = "stablehlo.compare"(%24, %26) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %28 = "stablehlo.compare"(%24, %23) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %29 = "stablehlo.and"(%27, %28) : (tensor<1xi1>, tensor<1xi1>) -> tensor<1xi1>
    %30 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %31 = "stablehlo.reduce"(%29, %30) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg23: tensor<i1>, %arg24: tensor<i1>):
      %37 = "stablehlo.and"(%arg23, %arg24) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%37) : (tensor<i1>) -> ()
    }) : (tensor<1xi1>, tensor<i1>) -> tensor<i1>
    %32 = "stablehlo.gather"(%arg21, %24) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [2], start_index_map = [2]>, indices_are_sorted = false, slice_sizes = array<i64: 2, 4, 1>}> : (tensor<2x4x1xf32>, tensor<1xi32>) -> tensor<2x4xf32>
    %33 = "stablehlo.broadcast_in_dim"(%31) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<2x4xi1>
    %34 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %35 = "stablehlo.broadcast_in_dim"(%34) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4xf32>
    %36 = "stablehlo.select"(%33, %32, %35) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    "func.return"(%36, %22) : (tensor<2x4xf32>, tensor<1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>, res_attrs = [{}], sym_name = "_where_2", sym_visibility = "private"}> ({
  ^bb0(%arg18: tensor<i1>, %arg19: tensor<i32>, %arg20: tensor<i32>):
    %16 = "stablehlo.select"(%arg18, %arg19, %arg20) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%16) : (tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<1xi32>, tensor<2x4xf32>) -> tensor<2x4x1xf32>, res_attrs = [{}], sym_name = "_take_3", sym_visibility = "private"}> ({
  ^bb0(%arg14: tensor<1xi32>, %arg15: tensor<2x4xf32>):
    %12 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %13 = "stablehlo.broadcast_in_dim"(%12) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x1xf32>
    %14 = "stablehlo.scatter"(%13, %arg14, %arg15) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], inserted_window_dims = [2], scatter_dims_to_operand_dims = [2]>, unique_indices = false}> ({
    ^bb0(%arg16: tensor<f32>, %arg17: tensor<f32>):
      %15 = "stablehlo.add"(%arg16, %arg17) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%15) : (tensor<f32>) -> ()
    }) : (tensor<2x4x1xf32>, tensor<1xi32>, tensor<2x4xf32>) -> tensor<2x4x1xf32>
    "func.return"(%14) : (tensor<2x4x1xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x1x1xi32>, tensor<2x4x1xf32>) -> tensor<2x4x16xf32>, res_attrs = [{}], sym_name = "take_along_axis_4", sym_visibility = "private"}> ({
  ^bb0(%arg10: tensor<2x4x1x1xi32>, %arg11: tensor<2x4x1xf32>):
    %8 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %9 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x16xf32>
    %10 = "stablehlo.scatter"(%9, %arg10, %arg11) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [2], input_batching_dims = [0, 1], scatter_indices_batching_dims = [0, 1], scatter_dims_to_operand_dims = [2], index_vector_dim = 3>, unique_indices = false}> ({
    ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
      %11 = "stablehlo.add"(%arg12, %arg13) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%11) : (tensor<f32>) -> ()
    }) : (tensor<2x4x16xf32>, tensor<2x4x1x1xi32>, tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
    "func.return"(%10) : (tensor<2x4x16xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x2x4x4xi1>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>, res_attrs = [{}], sym_name = "_where_5", sym_visibility = "private"}> ({
  ^bb0(%arg7: tensor<2x2x4x4xi1>, %arg8: tensor<2x2x4x4xf32>, %arg9: tensor<2x2x4x4xf32>):
    %5 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2x4x4xf32>
    %7 = "stablehlo.select"(%arg7, %arg9, %6) : (tensor<2x2x4x4xi1>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    "func.return"(%7) : (tensor<2x2x4x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x1xi32>, tensor<2x4x8xf32>) -> tensor<16x8xf32>, res_attrs = [{}], sym_name = "_take_6", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<2x4x1xi32>, %arg4: tensor<2x4x8xf32>):
    %1 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.broadcast_in_dim"(%1) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x8xf32>
    %3 = "stablehlo.scatter"(%2, %arg3, %arg4) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %4 = "stablehlo.add"(%arg5, %arg6) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) : (tensor<16x8xf32>, tensor<2x4x1xi32>, tensor<2x4x8xf32>) -> tensor<16x8xf32>
    "func.return"(%3) : (tensor<16x8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>, res_attrs = [{}], sym_name = "_where_7", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>):
    %0 = "stablehlo.select"(%arg0, %arg1, %arg2) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%0) : (tensor<i32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

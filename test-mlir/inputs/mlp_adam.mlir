"builtin.module"() <{sym_name = "jit_step"}> ({
  "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32}, {tf.aliasing_output = 1 : i32}, {tf.aliasing_output = 2 : i32}, {tf.aliasing_output = 3 : i32}, {tf.aliasing_output = 4 : i32}, {tf.aliasing_output = 5 : i32}, {tf.aliasing_output = 6 : i32}, {tf.aliasing_output = 7 : i32}, {tf.aliasing_output = 8 : i32}, {tf.aliasing_output = 9 : i32}, {tf.aliasing_output = 10 : i32}, {tf.aliasing_output = 11 : i32}, {tf.aliasing_output = 12 : i32}, {}, {}], function_type = (tensor<8xf32>, tensor<6x8xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<i32>, tensor<8xf32>, tensor<6x8xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<8xf32>, tensor<6x8xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<4x6xf32>, tensor<4xi32>) -> (tensor<8xf32>, tensor<6x8xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<i32>, tensor<8xf32>, tensor<6x8xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<8xf32>, tensor<6x8xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<8xf32>, tensor<6x8xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<f32>), res_attrs = [{jax.result_info = "result[0]['Dense_0']['bias']"}, {jax.result_info = "result[0]['Dense_0']['kernel']"}, {jax.result_info = "result[0]['Dense_1']['bias']"}, {jax.result_info = "result[0]['Dense_1']['kernel']"}, {jax.result_info = "result[1][0].count"}, {jax.result_info = "result[1][0].mu['Dense_0']['bias']"}, {jax.result_info = "result[1][0].mu['Dense_0']['kernel']"}, {jax.result_info = "result[1][0].mu['Dense_1']['bias']"}, {jax.result_info = "result[1][0].mu['Dense_1']['kernel']"}, {jax.result_info = "result[1][0].nu['Dense_0']['bias']"}, {jax.result_info = "result[1][0].nu['Dense_0']['kernel']"}, {jax.result_info = "result[1][0].nu['Dense_1']['bias']"}, {jax.result_info = "result[1][0].nu['Dense_1']['kernel']"}, {jax.result_info = "result[2]['Dense_0']['bias']"}, {jax.result_info = "result[2]['Dense_0']['kernel']"}, {jax.result_info = "result[2]['Dense_1']['bias']"}, {jax.result_info = "result[2]['Dense_1']['kernel']"}, {jax.result_info = "result[3]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg23: tensor<8xf32>, %arg24: tensor<6x8xf32>, %arg25: tensor<3xf32>, %arg26: tensor<8x3xf32>, %arg27: tensor<i32>, %arg28: tensor<8xf32>, %arg29: tensor<6x8xf32>, %arg30: tensor<3xf32>, %arg31: tensor<8x3xf32>, %arg32: tensor<8xf32>, %arg33: tensor<6x8xf32>, %arg34: tensor<3xf32>, %arg35: tensor<8x3xf32>, %arg36: tensor<4x6xf32>, %arg37: tensor<4xi32>):
    %57 = "stablehlo.dot_general"(%arg36, %arg24) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
    %58 = "stablehlo.reshape"(%arg23) : (tensor<8xf32>) -> tensor<1x8xf32>
    %59 = "stablehlo.broadcast_in_dim"(%58) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %60 = "stablehlo.add"(%57, %59) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %61 = "func.call"(%60) <{callee = @relu}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %62 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %63 = "stablehlo.broadcast_in_dim"(%62) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %64 = "stablehlo.compare"(%60, %63) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %65 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %66 = "stablehlo.broadcast_in_dim"(%65) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %67 = "stablehlo.dot_general"(%61, %arg26) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %68 = "stablehlo.reshape"(%arg25) : (tensor<3xf32>) -> tensor<1x3xf32>
    %69 = "stablehlo.broadcast_in_dim"(%68) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x3xf32>) -> tensor<4x3xf32>
    %70 = "stablehlo.add"(%67, %69) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %71 = "stablehlo.broadcast_in_dim"(%arg37) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x1xi32>
    %72:2 = "func.call"(%70, %71) <{callee = @take_along_axis}> : (tensor<4x3xf32>, tensor<4x1xi32>) -> (tensor<4x1xf32>, tensor<4x1x1xi32>)
    %73 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %74:2 = "func.call"(%72#0, %73) <{callee = @_take}> : (tensor<4x1xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<1xi32>)
    %75 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %76 = "stablehlo.reduce"(%70, %75) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg48: tensor<f32>, %arg49: tensor<f32>):
      %304 = "stablehlo.maximum"(%arg48, %arg49) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%304) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %77 = "stablehlo.reshape"(%76) : (tensor<4xf32>) -> tensor<4x1xf32>
    %78 = "stablehlo.broadcast_in_dim"(%77) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %79 = "stablehlo.compare"(%70, %78) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
    %80 = "stablehlo.convert"(%79) : (tensor<4x3xi1>) -> tensor<4x3xf32>
    %81 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %82 = "stablehlo.reduce"(%80, %81) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg46: tensor<f32>, %arg47: tensor<f32>):
      %303 = "stablehlo.add"(%arg46, %arg47) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%303) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %83 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %84 = "stablehlo.broadcast_in_dim"(%83) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %85 = "stablehlo.maximum"(%84, %76) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %86 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %87 = "stablehlo.broadcast_in_dim"(%86) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %88 = "stablehlo.compare"(%76, %87) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %89 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %90 = "stablehlo.broadcast_in_dim"(%89) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %91 = "stablehlo.compare"(%76, %90) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %92 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %93 = "stablehlo.broadcast_in_dim"(%92) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %94 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %95 = "stablehlo.broadcast_in_dim"(%94) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %96 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %97 = "stablehlo.broadcast_in_dim"(%96) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %98 = "stablehlo.select"(%91, %97, %95) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %99 = "stablehlo.select"(%88, %93, %98) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %100 = "stablehlo.is_finite"(%85) : (tensor<4xf32>) -> tensor<4xi1>
    %101 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %102 = "stablehlo.broadcast_in_dim"(%101) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %103 = "stablehlo.select"(%100, %85, %102) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %104 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %105 = "stablehlo.broadcast_in_dim"(%104) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %106 = "stablehlo.broadcast_in_dim"(%103) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xf32>) -> tensor<4x1xf32>
    %107 = "stablehlo.broadcast_in_dim"(%106) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %108 = "stablehlo.subtract"(%70, %107) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %109 = "stablehlo.exponential"(%108) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %110 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %111 = "stablehlo.reduce"(%109, %110) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg44: tensor<f32>, %arg45: tensor<f32>):
      %302 = "stablehlo.add"(%arg44, %arg45) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%302) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %112 = "stablehlo.sign"(%111) : (tensor<4xf32>) -> tensor<4xf32>
    %113 = "stablehlo.abs"(%111) : (tensor<4xf32>) -> tensor<4xf32>
    %114 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %115 = "stablehlo.broadcast_in_dim"(%114) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %116 = "stablehlo.compare"(%111, %115) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %117 = "stablehlo.log"(%113) : (tensor<4xf32>) -> tensor<4xf32>
    %118 = "stablehlo.add"(%117, %103) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %119 = "stablehlo.subtract"(%118, %74#0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %120 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %121 = "stablehlo.reduce"(%119, %120) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg42: tensor<f32>, %arg43: tensor<f32>):
      %301 = "stablehlo.add"(%arg42, %arg43) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%301) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %122 = "stablehlo.constant"() <{value = dense<4.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %123 = "stablehlo.divide"(%121, %122) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %124 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %125 = "stablehlo.constant"() <{value = dense<4.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %126 = "stablehlo.divide"(%124, %125) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %127 = "stablehlo.broadcast_in_dim"(%126) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %128 = "stablehlo.negate"(%127) : (tensor<4xf32>) -> tensor<4xf32>
    %129 = "stablehlo.divide"(%127, %113) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %130 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %131 = "stablehlo.broadcast_in_dim"(%130) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %132 = "stablehlo.select"(%116, %131, %129) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %133 = "stablehlo.select"(%116, %129, %131) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %134 = "stablehlo.negate"(%132) : (tensor<4xf32>) -> tensor<4xf32>
    %135 = "stablehlo.add"(%133, %134) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %136 = "stablehlo.broadcast_in_dim"(%135) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xf32>) -> tensor<4x3xf32>
    %137 = "stablehlo.multiply"(%136, %109) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %138 = "func.call"(%74#1, %128) <{callee = @_take_0}> : (tensor<1xi32>, tensor<4xf32>) -> tensor<4x1xf32>
    %139 = "func.call"(%72#1, %138) <{callee = @take_along_axis_1}> : (tensor<4x1x1xi32>, tensor<4x1xf32>) -> tensor<4x3xf32>
    %140 = "stablehlo.add"(%137, %139) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %141 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %142 = "stablehlo.reduce"(%140, %141) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg40: tensor<f32>, %arg41: tensor<f32>):
      %300 = "stablehlo.add"(%arg40, %arg41) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%300) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
    %143 = "stablehlo.reshape"(%142) : (tensor<3xf32>) -> tensor<1x3xf32>
    %144 = "stablehlo.reshape"(%143) : (tensor<1x3xf32>) -> tensor<3xf32>
    %145 = "stablehlo.dot_general"(%140, %61) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x3xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
    %146 = "stablehlo.transpose"(%145) <{permutation = array<i64: 1, 0>}> : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %147 = "stablehlo.dot_general"(%140, %arg26) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x3xf32>, tensor<8x3xf32>) -> tensor<4x8xf32>
    %148 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %149 = "stablehlo.broadcast_in_dim"(%148) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %150 = "stablehlo.select"(%64, %147, %149) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %151 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %152 = "stablehlo.reduce"(%150, %151) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg38: tensor<f32>, %arg39: tensor<f32>):
      %299 = "stablehlo.add"(%arg38, %arg39) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%299) : (tensor<f32>) -> ()
    }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %153 = "stablehlo.reshape"(%152) : (tensor<8xf32>) -> tensor<1x8xf32>
    %154 = "stablehlo.reshape"(%153) : (tensor<1x8xf32>) -> tensor<8xf32>
    %155 = "stablehlo.dot_general"(%150, %arg36) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %156 = "stablehlo.transpose"(%155) <{permutation = array<i64: 1, 0>}> : (tensor<8x6xf32>) -> tensor<6x8xf32>
    %157 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %158 = "stablehlo.broadcast_in_dim"(%157) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %159 = "stablehlo.multiply"(%158, %154) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %160 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %161 = "stablehlo.broadcast_in_dim"(%160) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %162 = "stablehlo.multiply"(%161, %arg28) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %163 = "stablehlo.add"(%159, %162) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %164 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %165 = "stablehlo.broadcast_in_dim"(%164) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x8xf32>
    %166 = "stablehlo.multiply"(%165, %156) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %167 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %168 = "stablehlo.broadcast_in_dim"(%167) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x8xf32>
    %169 = "stablehlo.multiply"(%168, %arg29) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %170 = "stablehlo.add"(%166, %169) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %171 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %172 = "stablehlo.broadcast_in_dim"(%171) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %173 = "stablehlo.multiply"(%172, %144) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %174 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %175 = "stablehlo.broadcast_in_dim"(%174) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %176 = "stablehlo.multiply"(%175, %arg30) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %177 = "stablehlo.add"(%173, %176) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %178 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %179 = "stablehlo.broadcast_in_dim"(%178) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x3xf32>
    %180 = "stablehlo.multiply"(%179, %146) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %181 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %182 = "stablehlo.broadcast_in_dim"(%181) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x3xf32>
    %183 = "stablehlo.multiply"(%182, %arg31) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %184 = "stablehlo.add"(%180, %183) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %185 = "stablehlo.multiply"(%154, %154) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %186 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %187 = "stablehlo.broadcast_in_dim"(%186) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %188 = "stablehlo.multiply"(%187, %185) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %189 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %190 = "stablehlo.broadcast_in_dim"(%189) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %191 = "stablehlo.multiply"(%190, %arg32) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %192 = "stablehlo.add"(%188, %191) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %193 = "stablehlo.multiply"(%156, %156) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %194 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %195 = "stablehlo.broadcast_in_dim"(%194) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x8xf32>
    %196 = "stablehlo.multiply"(%195, %193) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %197 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %198 = "stablehlo.broadcast_in_dim"(%197) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x8xf32>
    %199 = "stablehlo.multiply"(%198, %arg33) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %200 = "stablehlo.add"(%196, %199) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %201 = "stablehlo.multiply"(%144, %144) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %202 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %203 = "stablehlo.broadcast_in_dim"(%202) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %204 = "stablehlo.multiply"(%203, %201) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %205 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %206 = "stablehlo.broadcast_in_dim"(%205) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %207 = "stablehlo.multiply"(%206, %arg34) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %208 = "stablehlo.add"(%204, %207) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %209 = "stablehlo.multiply"(%146, %146) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %210 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
    %211 = "stablehlo.broadcast_in_dim"(%210) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x3xf32>
    %212 = "stablehlo.multiply"(%211, %209) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %213 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %214 = "stablehlo.broadcast_in_dim"(%213) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x3xf32>
    %215 = "stablehlo.multiply"(%214, %arg35) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %216 = "stablehlo.add"(%212, %215) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %217 = "stablehlo.constant"() <{value = dense<2147483647> : tensor<i32>}> : () -> tensor<i32>
    %218 = "stablehlo.compare"(%arg27, %217) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %219 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %220 = "stablehlo.add"(%arg27, %219) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %221 = "stablehlo.constant"() <{value = dense<2147483647> : tensor<i32>}> : () -> tensor<i32>
    %222 = "func.call"(%218, %220, %221) <{callee = @_where_2}> : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %223 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %224 = "stablehlo.convert"(%222) : (tensor<i32>) -> tensor<f32>
    %225 = "stablehlo.convert"(%222) : (tensor<i32>) -> tensor<f32>
    %226 = "stablehlo.power"(%223, %225) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %227 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %228 = "stablehlo.subtract"(%227, %226) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %229 = "stablehlo.broadcast_in_dim"(%228) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %230 = "stablehlo.divide"(%163, %229) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %231 = "stablehlo.broadcast_in_dim"(%228) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x8xf32>
    %232 = "stablehlo.divide"(%170, %231) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %233 = "stablehlo.broadcast_in_dim"(%228) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %234 = "stablehlo.divide"(%177, %233) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %235 = "stablehlo.broadcast_in_dim"(%228) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x3xf32>
    %236 = "stablehlo.divide"(%184, %235) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %237 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
    %238 = "stablehlo.convert"(%222) : (tensor<i32>) -> tensor<f32>
    %239 = "stablehlo.convert"(%222) : (tensor<i32>) -> tensor<f32>
    %240 = "stablehlo.power"(%237, %239) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %241 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %242 = "stablehlo.subtract"(%241, %240) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %243 = "stablehlo.broadcast_in_dim"(%242) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %244 = "stablehlo.divide"(%192, %243) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %245 = "stablehlo.broadcast_in_dim"(%242) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x8xf32>
    %246 = "stablehlo.divide"(%200, %245) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %247 = "stablehlo.broadcast_in_dim"(%242) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %248 = "stablehlo.divide"(%208, %247) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %249 = "stablehlo.broadcast_in_dim"(%242) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x3xf32>
    %250 = "stablehlo.divide"(%216, %249) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %251 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %252 = "stablehlo.broadcast_in_dim"(%251) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %253 = "stablehlo.add"(%244, %252) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %254 = "stablehlo.sqrt"(%253) : (tensor<8xf32>) -> tensor<8xf32>
    %255 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %256 = "stablehlo.broadcast_in_dim"(%255) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %257 = "stablehlo.add"(%254, %256) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %258 = "stablehlo.divide"(%230, %257) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %259 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %260 = "stablehlo.broadcast_in_dim"(%259) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x8xf32>
    %261 = "stablehlo.add"(%246, %260) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %262 = "stablehlo.sqrt"(%261) : (tensor<6x8xf32>) -> tensor<6x8xf32>
    %263 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %264 = "stablehlo.broadcast_in_dim"(%263) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x8xf32>
    %265 = "stablehlo.add"(%262, %264) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %266 = "stablehlo.divide"(%232, %265) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %267 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %268 = "stablehlo.broadcast_in_dim"(%267) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %269 = "stablehlo.add"(%248, %268) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %270 = "stablehlo.sqrt"(%269) : (tensor<3xf32>) -> tensor<3xf32>
    %271 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %272 = "stablehlo.broadcast_in_dim"(%271) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %273 = "stablehlo.add"(%270, %272) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %274 = "stablehlo.divide"(%234, %273) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %275 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %276 = "stablehlo.broadcast_in_dim"(%275) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x3xf32>
    %277 = "stablehlo.add"(%250, %276) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %278 = "stablehlo.sqrt"(%277) : (tensor<8x3xf32>) -> tensor<8x3xf32>
    %279 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
    %280 = "stablehlo.broadcast_in_dim"(%279) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x3xf32>
    %281 = "stablehlo.add"(%278, %280) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %282 = "stablehlo.divide"(%236, %281) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %283 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %284 = "stablehlo.broadcast_in_dim"(%283) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %285 = "stablehlo.multiply"(%284, %258) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %286 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %287 = "stablehlo.broadcast_in_dim"(%286) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x8xf32>
    %288 = "stablehlo.multiply"(%287, %266) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %289 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %290 = "stablehlo.broadcast_in_dim"(%289) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %291 = "stablehlo.multiply"(%290, %274) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %292 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
    %293 = "stablehlo.broadcast_in_dim"(%292) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x3xf32>
    %294 = "stablehlo.multiply"(%293, %282) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %295 = "stablehlo.add"(%arg23, %285) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %296 = "stablehlo.add"(%arg24, %288) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %297 = "stablehlo.add"(%arg25, %291) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %298 = "stablehlo.add"(%arg26, %294) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    "func.return"(%295, %296, %297, %298, %222, %163, %170, %177, %184, %192, %200, %208, %216, %285, %288, %291, %294, %123) : (tensor<8xf32>, tensor<6x8xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<i32>, tensor<8xf32>, tensor<6x8xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<8xf32>, tensor<6x8xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<8xf32>, tensor<6x8xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4x8xf32>) -> tensor<4x8xf32>, res_attrs = [{}], sym_name = "relu", sym_visibility = "private"}> ({
  ^bb0(%arg22: tensor<4x8xf32>):
    %54 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %55 = "stablehlo.broadcast_in_dim"(%54) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %56 = "stablehlo.maximum"(%arg22, %55) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    "func.return"(%56) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x3xf32>, tensor<4x1xi32>) -> (tensor<4x1xf32>, tensor<4x1x1xi32>), res_attrs = [{}, {}], sym_name = "take_along_axis", sym_visibility = "private"}> ({
  ^bb0(%arg18: tensor<4x3xf32>, %arg19: tensor<4x1xi32>):
    %31 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %32 = "stablehlo.broadcast_in_dim"(%31) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x1xi32>
    %33 = "stablehlo.compare"(%arg19, %32) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi1>
    %34 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %35 = "stablehlo.broadcast_in_dim"(%34) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x1xi32>
    %36 = "stablehlo.add"(%arg19, %35) : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi32>
    %37 = "stablehlo.select"(%33, %36, %arg19) : (tensor<4x1xi1>, tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi32>
    %38 = "stablehlo.reshape"(%37) : (tensor<4x1xi32>) -> tensor<4x1x1xi32>
    %39 = "stablehlo.constant"() <{value = dense<2> : tensor<1xi32>}> : () -> tensor<1xi32>
    %40 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %41 = "stablehlo.broadcast_in_dim"(%40) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x1x1xi32>
    %42 = "stablehlo.compare"(%38, %41) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<4x1x1xi32>, tensor<4x1x1xi32>) -> tensor<4x1x1xi1>
    %43 = "stablehlo.broadcast_in_dim"(%39) <{broadcast_dimensions = array<i64: 2>}> : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %44 = "stablehlo.broadcast_in_dim"(%43) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x1x1xi32>) -> tensor<4x1x1xi32>
    %45 = "stablehlo.compare"(%38, %44) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x1x1xi32>, tensor<4x1x1xi32>) -> tensor<4x1x1xi1>
    %46 = "stablehlo.and"(%42, %45) : (tensor<4x1x1xi1>, tensor<4x1x1xi1>) -> tensor<4x1x1xi1>
    %47 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %48 = "stablehlo.reduce"(%46, %47) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg20: tensor<i1>, %arg21: tensor<i1>):
      %53 = "stablehlo.and"(%arg20, %arg21) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%53) : (tensor<i1>) -> ()
    }) : (tensor<4x1x1xi1>, tensor<i1>) -> tensor<4x1xi1>
    %49 = "stablehlo.gather"(%arg18, %38) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<4x3xf32>, tensor<4x1x1xi32>) -> tensor<4x1xf32>
    %50 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %51 = "stablehlo.broadcast_in_dim"(%50) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %52 = "stablehlo.select"(%48, %49, %51) : (tensor<4x1xi1>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    "func.return"(%52, %38) : (tensor<4x1xf32>, tensor<4x1x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x1xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<1xi32>), res_attrs = [{}, {}], sym_name = "_take", sym_visibility = "private"}> ({
  ^bb0(%arg14: tensor<4x1xf32>, %arg15: tensor<i32>):
    %10 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %11 = "stablehlo.compare"(%arg15, %10) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %12 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %13 = "stablehlo.add"(%arg15, %12) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %14 = "func.call"(%11, %13, %arg15) <{callee = @_where}> : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %15 = "stablehlo.broadcast_in_dim"(%14) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<1xi32>
    %16 = "stablehlo.constant"() <{value = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %17 = "stablehlo.convert"(%15) : (tensor<1xi32>) -> tensor<1xi32>
    %18 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %19 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<1xi32>
    %20 = "stablehlo.compare"(%17, %19) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %21 = "stablehlo.compare"(%17, %16) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %22 = "stablehlo.and"(%20, %21) : (tensor<1xi1>, tensor<1xi1>) -> tensor<1xi1>
    %23 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %24 = "stablehlo.reduce"(%22, %23) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg16: tensor<i1>, %arg17: tensor<i1>):
      %30 = "stablehlo.and"(%arg16, %arg17) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%30) : (tensor<i1>) -> ()
    }) : (tensor<1xi1>, tensor<i1>) -> tensor<i1>
    %25 = "stablehlo.gather"(%arg14, %17) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}> : (tensor<4x1xf32>, tensor<1xi32>) -> tensor<4xf32>
    %26 = "stablehlo.broadcast_in_dim"(%24) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<4xi1>
    %27 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %28 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %29 = "stablehlo.select"(%26, %25, %28) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%29, %15) : (tensor<4xf32>, tensor<1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg11: tensor<i1>, %arg12: tensor<i32>, %arg13: tensor<i32>):
    %9 = "stablehlo.select"(%arg11, %arg12, %arg13) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%9) : (tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<1xi32>, tensor<4xf32>) -> tensor<4x1xf32>, res_attrs = [{}], sym_name = "_take_0", sym_visibility = "private"}> ({
  ^bb0(%arg7: tensor<1xi32>, %arg8: tensor<4xf32>):
    %5 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %7 = "stablehlo.scatter"(%6, %arg7, %arg8) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = false}> ({
    ^bb0(%arg9: tensor<f32>, %arg10: tensor<f32>):
      %8 = "stablehlo.add"(%arg9, %arg10) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%8) : (tensor<f32>) -> ()
    }) : (tensor<4x1xf32>, tensor<1xi32>, tensor<4xf32>) -> tensor<4x1xf32>
    "func.return"(%7) : (tensor<4x1xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x1x1xi32>, tensor<4x1xf32>) -> tensor<4x3xf32>, res_attrs = [{}], sym_name = "take_along_axis_1", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<4x1x1xi32>, %arg4: tensor<4x1xf32>):
    %1 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.broadcast_in_dim"(%1) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %3 = "stablehlo.scatter"(%2, %arg3, %arg4) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %4 = "stablehlo.add"(%arg5, %arg6) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<4x1x1xi32>, tensor<4x1xf32>) -> tensor<4x3xf32>
    "func.return"(%3) : (tensor<4x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>, res_attrs = [{}], sym_name = "_where_2", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>):
    %0 = "stablehlo.select"(%arg0, %arg1, %arg2) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%0) : (tensor<i32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

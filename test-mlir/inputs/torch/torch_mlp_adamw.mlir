"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<f32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<4x6xf32>, tensor<4xi64>, tensor<f64>, tensor<f64>) -> (tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<f32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8x6xf32>, %arg1: tensor<8xf32>, %arg2: tensor<3x8xf32>, %arg3: tensor<3xf32>, %arg4: tensor<f32>, %arg5: tensor<8x6xf32>, %arg6: tensor<8x6xf32>, %arg7: tensor<f32>, %arg8: tensor<8xf32>, %arg9: tensor<8xf32>, %arg10: tensor<f32>, %arg11: tensor<3x8xf32>, %arg12: tensor<3x8xf32>, %arg13: tensor<f32>, %arg14: tensor<3xf32>, %arg15: tensor<3xf32>, %arg16: tensor<4x6xf32>, %arg17: tensor<4xi64>, %arg18: tensor<f64>, %arg19: tensor<f64>):
    %0 = "stablehlo.constant"() <{value = dense<0> : tensor<4x1xi64>}> : () -> tensor<4x1xi64>
    %1 = "stablehlo.constant"() <{value = dense<-100> : tensor<4x1xi64>}> : () -> tensor<4x1xi64>
    %2 = "stablehlo.constant"() <{value = dense<-100> : tensor<4xi64>}> : () -> tensor<4xi64>
    %3 = "stablehlo.constant"() <{value = dense<-1.000000e+00> : tensor<4x1xf32>}> : () -> tensor<4x1xf32>
    %4 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
    %5 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %6 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %8 = "stablehlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
    %9 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %10 = "arith.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %11 = "arith.constant"() <{value = dense<1.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
    %12 = "arith.constant"() <{value = dense<5.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
    %13 = "arith.constant"() <{value = dense<0.99899999999999999> : tensor<1xf64>}> : () -> tensor<1xf64>
    %14 = "arith.constant"() <{value = dense<0.0010000000000000009> : tensor<1xf64>}> : () -> tensor<1xf64>
    %15 = "arith.constant"() <{value = dense<1.000000e-08> : tensor<1xf64>}> : () -> tensor<1xf64>
    %16 = "stablehlo.transpose"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<8x6xf32>) -> tensor<6x8xf32>
    %17 = "stablehlo.dot_general"(%arg16, %16) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
    %18 = "stablehlo.convert"(%10) : (tensor<1xi64>) -> tensor<1xf32>
    %19 = "stablehlo.reshape"(%18) : (tensor<1xf32>) -> tensor<f32>
    %20 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %21 = "stablehlo.multiply"(%17, %20) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %22 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %23 = "stablehlo.multiply"(%arg1, %22) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %24 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4x8xf32>
    %25 = "stablehlo.add"(%21, %24) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %26 = "stablehlo.tanh"(%25) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %27 = "stablehlo.transpose"(%arg2) <{permutation = array<i64: 1, 0>}> : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %28 = "stablehlo.dot_general"(%26, %27) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %29 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %30 = "stablehlo.multiply"(%28, %29) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %31 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %32 = "stablehlo.multiply"(%arg3, %31) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %33 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xf32>) -> tensor<4x3xf32>
    %34 = "stablehlo.add"(%30, %33) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %35 = "stablehlo.reduce"(%34, %9) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg32: tensor<f32>, %arg33: tensor<f32>):
      %266 = "stablehlo.maximum"(%arg32, %arg33) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%266) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %36 = "stablehlo.reshape"(%35) : (tensor<4xf32>) -> tensor<4x1xf32>
    %37 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %38 = "stablehlo.subtract"(%34, %37) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %39 = "stablehlo.exponential"(%38) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %40 = "stablehlo.reduce"(%39, %6) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg30: tensor<f32>, %arg31: tensor<f32>):
      %265 = "stablehlo.add"(%arg30, %arg31) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%265) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %41 = "stablehlo.reshape"(%40) : (tensor<4xf32>) -> tensor<4x1xf32>
    %42 = "stablehlo.log"(%41) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %43 = "stablehlo.broadcast_in_dim"(%42) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %44 = "stablehlo.subtract"(%38, %43) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %45 = "stablehlo.compare"(%arg17, %2) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %46 = "stablehlo.convert"(%45) : (tensor<4xi1>) -> tensor<4xi64>
    %47 = "stablehlo.reduce"(%46, %7) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg28: tensor<i64>, %arg29: tensor<i64>):
      %264 = "stablehlo.add"(%arg28, %arg29) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%264) : (tensor<i64>) -> ()
    }) : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
    %48 = "stablehlo.convert"(%47) : (tensor<i64>) -> tensor<f32>
    %49 = "stablehlo.divide"(%5, %48) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %50 = "stablehlo.reshape"(%arg17) : (tensor<4xi64>) -> tensor<4x1xi64>
    %51 = "stablehlo.compare"(%50, %1) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi1>
    %52 = "stablehlo.broadcast_in_dim"(%51) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xi1>) -> tensor<4x1xi1>
    %53 = "stablehlo.broadcast_in_dim"(%50) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xi64>) -> tensor<4x1xi64>
    %54 = "stablehlo.select"(%52, %53, %0) : (tensor<4x1xi1>, tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi64>
    %55 = "stablehlo.slice"(%3) <{limit_indices = array<i64: 4, 1>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %56 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4x1x1xi64>
    %57 = "stablehlo.reshape"(%54) : (tensor<4x1xi64>) -> tensor<4x1x1xi64>
    %58 = "stablehlo.concatenate"(%56, %57) <{dimension = 2 : i64}> : (tensor<4x1x1xi64>, tensor<4x1x1xi64>) -> tensor<4x1x2xi64>
    %59 = "stablehlo.scatter"(%4, %58, %55) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg26: tensor<f32>, %arg27: tensor<f32>):
      "stablehlo.return"(%arg27) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<4x1x2xi64>, tensor<4x1xf32>) -> tensor<4x3xf32>
    %60 = "stablehlo.broadcast_in_dim"(%49) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %61 = "stablehlo.broadcast_in_dim"(%6) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %62 = "stablehlo.select"(%52, %60, %61) : (tensor<4x1xi1>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %63 = "stablehlo.broadcast_in_dim"(%62) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %64 = "stablehlo.multiply"(%59, %63) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %65 = "stablehlo.exponential"(%44) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %66 = "stablehlo.reduce"(%64, %6) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg24: tensor<f32>, %arg25: tensor<f32>):
      %263 = "stablehlo.add"(%arg24, %arg25) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%263) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %67 = "stablehlo.reshape"(%66) : (tensor<4xf32>) -> tensor<4x1xf32>
    %68 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %69 = "stablehlo.multiply"(%65, %68) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %70 = "stablehlo.subtract"(%64, %69) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %71 = "stablehlo.transpose"(%27) <{permutation = array<i64: 1, 0>}> : (tensor<8x3xf32>) -> tensor<3x8xf32>
    %72 = "stablehlo.dot_general"(%70, %71) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %73 = "stablehlo.transpose"(%70) <{permutation = array<i64: 1, 0>}> : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %74 = "stablehlo.dot_general"(%73, %26) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<3x4xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
    %75 = "stablehlo.transpose"(%74) <{permutation = array<i64: 1, 0>}> : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %76 = "stablehlo.reduce"(%70, %6) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
      %262 = "stablehlo.add"(%arg22, %arg23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%262) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
    %77 = "stablehlo.reshape"(%76) : (tensor<3xf32>) -> tensor<1x3xf32>
    %78 = "stablehlo.reshape"(%77) : (tensor<1x3xf32>) -> tensor<3xf32>
    %79 = "stablehlo.transpose"(%75) <{permutation = array<i64: 1, 0>}> : (tensor<8x3xf32>) -> tensor<3x8xf32>
    %80 = "stablehlo.multiply"(%26, %26) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %81 = "stablehlo.convert"(%8) : (tensor<i64>) -> tensor<f32>
    %82 = "stablehlo.broadcast_in_dim"(%81) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %83 = "stablehlo.subtract"(%82, %80) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %84 = "stablehlo.multiply"(%72, %83) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %85 = "stablehlo.transpose"(%84) <{permutation = array<i64: 1, 0>}> : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %86 = "stablehlo.dot_general"(%85, %arg16) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %87 = "stablehlo.transpose"(%86) <{permutation = array<i64: 1, 0>}> : (tensor<8x6xf32>) -> tensor<6x8xf32>
    %88 = "stablehlo.reduce"(%84, %6) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg20: tensor<f32>, %arg21: tensor<f32>):
      %261 = "stablehlo.add"(%arg20, %arg21) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%261) : (tensor<f32>) -> ()
    }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %89 = "stablehlo.reshape"(%88) : (tensor<8xf32>) -> tensor<1x8xf32>
    %90 = "stablehlo.reshape"(%89) : (tensor<1x8xf32>) -> tensor<8xf32>
    %91 = "stablehlo.transpose"(%87) <{permutation = array<i64: 1, 0>}> : (tensor<6x8xf32>) -> tensor<8x6xf32>
    %92 = "stablehlo.add"(%arg4, %19) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %93 = "stablehlo.convert"(%11) : (tensor<1xf64>) -> tensor<1xf64>
    %94 = "stablehlo.reshape"(%93) : (tensor<1xf64>) -> tensor<f64>
    %95 = "stablehlo.multiply"(%arg18, %94) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %96 = "stablehlo.convert"(%8) : (tensor<i64>) -> tensor<f64>
    %97 = "stablehlo.subtract"(%96, %95) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %98 = "stablehlo.convert"(%97) : (tensor<f64>) -> tensor<f32>
    %99 = "stablehlo.broadcast_in_dim"(%98) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %100 = "stablehlo.multiply"(%arg0, %99) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %101 = "stablehlo.subtract"(%96, %arg19) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %102 = "stablehlo.convert"(%101) : (tensor<f64>) -> tensor<f32>
    %103 = "stablehlo.abs"(%102) : (tensor<f32>) -> tensor<f32>
    %104 = "stablehlo.convert"(%12) : (tensor<1xf64>) -> tensor<1xf64>
    %105 = "stablehlo.reshape"(%104) : (tensor<1xf64>) -> tensor<f64>
    %106 = "stablehlo.convert"(%105) : (tensor<f64>) -> tensor<f32>
    %107 = "stablehlo.compare"(%103, %106) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %108 = "stablehlo.subtract"(%102, %19) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %109 = "stablehlo.broadcast_in_dim"(%108) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %110 = "stablehlo.broadcast_in_dim"(%102) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %111 = "stablehlo.select"(%107, %109, %110) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %112 = "stablehlo.broadcast_in_dim"(%91) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %113 = "stablehlo.broadcast_in_dim"(%arg5) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %114 = "stablehlo.select"(%107, %112, %113) : (tensor<i1>, tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %115 = "stablehlo.subtract"(%91, %arg5) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %116 = "stablehlo.broadcast_in_dim"(%111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %117 = "stablehlo.multiply"(%116, %115) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %118 = "stablehlo.add"(%117, %114) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %119 = "stablehlo.convert"(%13) : (tensor<1xf64>) -> tensor<1xf32>
    %120 = "stablehlo.reshape"(%119) : (tensor<1xf32>) -> tensor<f32>
    %121 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %122 = "stablehlo.multiply"(%arg6, %121) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %123 = "stablehlo.convert"(%14) : (tensor<1xf64>) -> tensor<1xf32>
    %124 = "stablehlo.reshape"(%123) : (tensor<1xf32>) -> tensor<f32>
    %125 = "stablehlo.broadcast_in_dim"(%124) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %126 = "stablehlo.multiply"(%91, %125) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %127 = "stablehlo.multiply"(%126, %91) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %128 = "stablehlo.add"(%122, %127) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %129 = "stablehlo.convert"(%92) : (tensor<f32>) -> tensor<f64>
    %130 = "stablehlo.power"(%arg19, %129) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %131 = "stablehlo.subtract"(%96, %130) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %132 = "stablehlo.convert"(%13) : (tensor<1xf64>) -> tensor<1xf64>
    %133 = "stablehlo.reshape"(%132) : (tensor<1xf64>) -> tensor<f64>
    %134 = "stablehlo.power"(%133, %129) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %135 = "stablehlo.subtract"(%96, %134) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %136 = "stablehlo.sqrt"(%135) : (tensor<f64>) -> tensor<f64>
    %137 = "stablehlo.divide"(%arg18, %131) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %138 = "stablehlo.sqrt"(%128) : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %139 = "stablehlo.convert"(%136) : (tensor<f64>) -> tensor<f32>
    %140 = "stablehlo.broadcast_in_dim"(%139) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %141 = "stablehlo.divide"(%138, %140) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %142 = "stablehlo.convert"(%15) : (tensor<1xf64>) -> tensor<1xf32>
    %143 = "stablehlo.reshape"(%142) : (tensor<1xf32>) -> tensor<f32>
    %144 = "stablehlo.broadcast_in_dim"(%143) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %145 = "stablehlo.add"(%141, %144) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %146 = "stablehlo.negate"(%137) : (tensor<f64>) -> tensor<f64>
    %147 = "stablehlo.convert"(%146) : (tensor<f64>) -> tensor<f32>
    %148 = "stablehlo.broadcast_in_dim"(%147) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %149 = "stablehlo.multiply"(%148, %118) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %150 = "stablehlo.divide"(%149, %145) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %151 = "stablehlo.add"(%100, %150) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %152 = "stablehlo.add"(%arg7, %19) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %153 = "stablehlo.broadcast_in_dim"(%98) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %154 = "stablehlo.multiply"(%arg1, %153) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %155 = "stablehlo.broadcast_in_dim"(%90) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8xf32>
    %156 = "stablehlo.broadcast_in_dim"(%arg8) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8xf32>
    %157 = "stablehlo.select"(%107, %155, %156) : (tensor<i1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %158 = "stablehlo.subtract"(%90, %arg8) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %159 = "stablehlo.broadcast_in_dim"(%111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %160 = "stablehlo.multiply"(%159, %158) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %161 = "stablehlo.add"(%160, %157) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %162 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %163 = "stablehlo.multiply"(%arg9, %162) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %164 = "stablehlo.broadcast_in_dim"(%124) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %165 = "stablehlo.multiply"(%90, %164) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %166 = "stablehlo.multiply"(%165, %90) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %167 = "stablehlo.add"(%163, %166) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %168 = "stablehlo.convert"(%152) : (tensor<f32>) -> tensor<f64>
    %169 = "stablehlo.power"(%arg19, %168) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %170 = "stablehlo.subtract"(%96, %169) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %171 = "stablehlo.power"(%133, %168) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %172 = "stablehlo.subtract"(%96, %171) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %173 = "stablehlo.sqrt"(%172) : (tensor<f64>) -> tensor<f64>
    %174 = "stablehlo.divide"(%arg18, %170) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %175 = "stablehlo.sqrt"(%167) : (tensor<8xf32>) -> tensor<8xf32>
    %176 = "stablehlo.convert"(%173) : (tensor<f64>) -> tensor<f32>
    %177 = "stablehlo.broadcast_in_dim"(%176) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %178 = "stablehlo.divide"(%175, %177) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %179 = "stablehlo.broadcast_in_dim"(%143) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %180 = "stablehlo.add"(%178, %179) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %181 = "stablehlo.negate"(%174) : (tensor<f64>) -> tensor<f64>
    %182 = "stablehlo.convert"(%181) : (tensor<f64>) -> tensor<f32>
    %183 = "stablehlo.broadcast_in_dim"(%182) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %184 = "stablehlo.multiply"(%183, %161) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %185 = "stablehlo.divide"(%184, %180) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %186 = "stablehlo.add"(%154, %185) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %187 = "stablehlo.add"(%arg10, %19) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %188 = "stablehlo.broadcast_in_dim"(%98) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %189 = "stablehlo.multiply"(%arg2, %188) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %190 = "stablehlo.broadcast_in_dim"(%79) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %191 = "stablehlo.broadcast_in_dim"(%arg11) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %192 = "stablehlo.select"(%107, %190, %191) : (tensor<i1>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %193 = "stablehlo.subtract"(%79, %arg11) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %194 = "stablehlo.broadcast_in_dim"(%111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %195 = "stablehlo.multiply"(%194, %193) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %196 = "stablehlo.add"(%195, %192) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %197 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %198 = "stablehlo.multiply"(%arg12, %197) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %199 = "stablehlo.broadcast_in_dim"(%124) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %200 = "stablehlo.multiply"(%79, %199) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %201 = "stablehlo.multiply"(%200, %79) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %202 = "stablehlo.add"(%198, %201) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %203 = "stablehlo.convert"(%187) : (tensor<f32>) -> tensor<f64>
    %204 = "stablehlo.power"(%arg19, %203) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %205 = "stablehlo.subtract"(%96, %204) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %206 = "stablehlo.power"(%133, %203) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %207 = "stablehlo.subtract"(%96, %206) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %208 = "stablehlo.sqrt"(%207) : (tensor<f64>) -> tensor<f64>
    %209 = "stablehlo.divide"(%arg18, %205) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %210 = "stablehlo.sqrt"(%202) : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %211 = "stablehlo.convert"(%208) : (tensor<f64>) -> tensor<f32>
    %212 = "stablehlo.broadcast_in_dim"(%211) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %213 = "stablehlo.divide"(%210, %212) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %214 = "stablehlo.broadcast_in_dim"(%143) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %215 = "stablehlo.add"(%213, %214) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %216 = "stablehlo.negate"(%209) : (tensor<f64>) -> tensor<f64>
    %217 = "stablehlo.convert"(%216) : (tensor<f64>) -> tensor<f32>
    %218 = "stablehlo.broadcast_in_dim"(%217) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %219 = "stablehlo.multiply"(%218, %196) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %220 = "stablehlo.divide"(%219, %215) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %221 = "stablehlo.add"(%189, %220) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %222 = "stablehlo.add"(%arg13, %19) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %223 = "stablehlo.broadcast_in_dim"(%98) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %224 = "stablehlo.multiply"(%arg3, %223) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %225 = "stablehlo.broadcast_in_dim"(%78) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xf32>) -> tensor<3xf32>
    %226 = "stablehlo.broadcast_in_dim"(%arg14) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xf32>) -> tensor<3xf32>
    %227 = "stablehlo.select"(%107, %225, %226) : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %228 = "stablehlo.subtract"(%78, %arg14) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %229 = "stablehlo.broadcast_in_dim"(%111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %230 = "stablehlo.multiply"(%229, %228) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %231 = "stablehlo.add"(%230, %227) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %232 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %233 = "stablehlo.multiply"(%arg15, %232) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %234 = "stablehlo.broadcast_in_dim"(%124) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %235 = "stablehlo.multiply"(%78, %234) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %236 = "stablehlo.multiply"(%235, %78) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %237 = "stablehlo.add"(%233, %236) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %238 = "stablehlo.convert"(%222) : (tensor<f32>) -> tensor<f64>
    %239 = "stablehlo.power"(%arg19, %238) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %240 = "stablehlo.subtract"(%96, %239) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %241 = "stablehlo.power"(%133, %238) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %242 = "stablehlo.subtract"(%96, %241) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %243 = "stablehlo.sqrt"(%242) : (tensor<f64>) -> tensor<f64>
    %244 = "stablehlo.divide"(%arg18, %240) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %245 = "stablehlo.sqrt"(%237) : (tensor<3xf32>) -> tensor<3xf32>
    %246 = "stablehlo.convert"(%243) : (tensor<f64>) -> tensor<f32>
    %247 = "stablehlo.broadcast_in_dim"(%246) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %248 = "stablehlo.divide"(%245, %247) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %249 = "stablehlo.broadcast_in_dim"(%143) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %250 = "stablehlo.add"(%248, %249) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %251 = "stablehlo.negate"(%244) : (tensor<f64>) -> tensor<f64>
    %252 = "stablehlo.convert"(%251) : (tensor<f64>) -> tensor<f32>
    %253 = "stablehlo.broadcast_in_dim"(%252) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %254 = "stablehlo.multiply"(%253, %231) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %255 = "stablehlo.divide"(%254, %250) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %256 = "stablehlo.add"(%224, %255) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %257 = "stablehlo.subtract"(%151, %arg0) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %258 = "stablehlo.subtract"(%186, %arg1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %259 = "stablehlo.subtract"(%221, %arg2) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %260 = "stablehlo.subtract"(%256, %arg3) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%151, %186, %221, %256, %92, %118, %128, %152, %161, %167, %187, %196, %202, %222, %231, %237, %257, %258, %259, %260) : (tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<f32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> ()
  }) : () -> ()
}) : () -> ()

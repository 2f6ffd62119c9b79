"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<f32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<4x6xf32>, tensor<4xi64>, tensor<f64>) -> (tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<f32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8x6xf32>, %arg1: tensor<8xf32>, %arg2: tensor<3x8xf32>, %arg3: tensor<3xf32>, %arg4: tensor<f32>, %arg5: tensor<8x6xf32>, %arg6: tensor<8x6xf32>, %arg7: tensor<f32>, %arg8: tensor<8xf32>, %arg9: tensor<8xf32>, %arg10: tensor<f32>, %arg11: tensor<3x8xf32>, %arg12: tensor<3x8xf32>, %arg13: tensor<f32>, %arg14: tensor<3xf32>, %arg15: tensor<3xf32>, %arg16: tensor<4x6xf32>, %arg17: tensor<4xi64>, %arg18: tensor<f64>):
    %0 = "stablehlo.constant"() <{value = dense<0> : tensor<4x1xi64>}> : () -> tensor<4x1xi64>
    %1 = "stablehlo.constant"() <{value = dense<-100> : tensor<4x1xi64>}> : () -> tensor<4x1xi64>
    %2 = "stablehlo.constant"() <{value = dense<-100> : tensor<4xi64>}> : () -> tensor<4xi64>
    %3 = "stablehlo.constant"() <{value = dense<-0.899999976> : tensor<f32>}> : () -> tensor<f32>
    %4 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %5 = "stablehlo.constant"() <{value = dense<-1.000000e+00> : tensor<4x1xf32>}> : () -> tensor<4x1xf32>
    %6 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
    %7 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %8 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %9 = "stablehlo.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %10 = "stablehlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
    %11 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %12 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f64>}> : () -> tensor<f64>
    %13 = "arith.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %14 = "arith.constant"() <{value = dense<1.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
    %15 = "arith.constant"() <{value = dense<5.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
    %16 = "arith.constant"() <{value = dense<0.99899999999999999> : tensor<1xf64>}> : () -> tensor<1xf64>
    %17 = "arith.constant"() <{value = dense<0.0010000000000000009> : tensor<1xf64>}> : () -> tensor<1xf64>
    %18 = "arith.constant"() <{value = dense<9.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
    %19 = "arith.constant"() <{value = dense<1.000000e-08> : tensor<1xf64>}> : () -> tensor<1xf64>
    %20 = "stablehlo.transpose"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<8x6xf32>) -> tensor<6x8xf32>
    %21 = "stablehlo.dot_general"(%arg16, %20) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
    %22 = "stablehlo.convert"(%13) : (tensor<1xi64>) -> tensor<1xf32>
    %23 = "stablehlo.reshape"(%22) : (tensor<1xf32>) -> tensor<f32>
    %24 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %25 = "stablehlo.multiply"(%21, %24) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %26 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %27 = "stablehlo.multiply"(%arg1, %26) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %28 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4x8xf32>
    %29 = "stablehlo.add"(%25, %28) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %30 = "stablehlo.tanh"(%29) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %31 = "stablehlo.transpose"(%arg2) <{permutation = array<i64: 1, 0>}> : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %32 = "stablehlo.dot_general"(%30, %31) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %33 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %34 = "stablehlo.multiply"(%32, %33) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %35 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %36 = "stablehlo.multiply"(%arg3, %35) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %37 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xf32>) -> tensor<4x3xf32>
    %38 = "stablehlo.add"(%34, %37) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %39 = "stablehlo.reduce"(%38, %11) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %281 = "stablehlo.maximum"(%arg31, %arg32) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%281) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %40 = "stablehlo.reshape"(%39) : (tensor<4xf32>) -> tensor<4x1xf32>
    %41 = "stablehlo.broadcast_in_dim"(%40) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %42 = "stablehlo.subtract"(%38, %41) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %43 = "stablehlo.exponential"(%42) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %44 = "stablehlo.reduce"(%43, %8) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg29: tensor<f32>, %arg30: tensor<f32>):
      %280 = "stablehlo.add"(%arg29, %arg30) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%280) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %45 = "stablehlo.reshape"(%44) : (tensor<4xf32>) -> tensor<4x1xf32>
    %46 = "stablehlo.log"(%45) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %47 = "stablehlo.broadcast_in_dim"(%46) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %48 = "stablehlo.subtract"(%42, %47) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %49 = "stablehlo.compare"(%arg17, %2) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %50 = "stablehlo.convert"(%49) : (tensor<4xi1>) -> tensor<4xi64>
    %51 = "stablehlo.reduce"(%50, %9) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg27: tensor<i64>, %arg28: tensor<i64>):
      %279 = "stablehlo.add"(%arg27, %arg28) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%279) : (tensor<i64>) -> ()
    }) : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
    %52 = "stablehlo.convert"(%51) : (tensor<i64>) -> tensor<f32>
    %53 = "stablehlo.divide"(%7, %52) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %54 = "stablehlo.reshape"(%arg17) : (tensor<4xi64>) -> tensor<4x1xi64>
    %55 = "stablehlo.compare"(%54, %1) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi1>
    %56 = "stablehlo.broadcast_in_dim"(%55) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xi1>) -> tensor<4x1xi1>
    %57 = "stablehlo.broadcast_in_dim"(%54) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xi64>) -> tensor<4x1xi64>
    %58 = "stablehlo.select"(%56, %57, %0) : (tensor<4x1xi1>, tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi64>
    %59 = "stablehlo.slice"(%5) <{limit_indices = array<i64: 4, 1>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %60 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4x1x1xi64>
    %61 = "stablehlo.reshape"(%58) : (tensor<4x1xi64>) -> tensor<4x1x1xi64>
    %62 = "stablehlo.concatenate"(%60, %61) <{dimension = 2 : i64}> : (tensor<4x1x1xi64>, tensor<4x1x1xi64>) -> tensor<4x1x2xi64>
    %63 = "stablehlo.scatter"(%6, %62, %59) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg25: tensor<f32>, %arg26: tensor<f32>):
      "stablehlo.return"(%arg26) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<4x1x2xi64>, tensor<4x1xf32>) -> tensor<4x3xf32>
    %64 = "stablehlo.broadcast_in_dim"(%53) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %65 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %66 = "stablehlo.select"(%56, %64, %65) : (tensor<4x1xi1>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %67 = "stablehlo.broadcast_in_dim"(%66) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %68 = "stablehlo.multiply"(%63, %67) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %69 = "stablehlo.exponential"(%48) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %70 = "stablehlo.reduce"(%68, %8) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg23: tensor<f32>, %arg24: tensor<f32>):
      %278 = "stablehlo.add"(%arg23, %arg24) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%278) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %71 = "stablehlo.reshape"(%70) : (tensor<4xf32>) -> tensor<4x1xf32>
    %72 = "stablehlo.broadcast_in_dim"(%71) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %73 = "stablehlo.multiply"(%69, %72) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %74 = "stablehlo.subtract"(%68, %73) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %75 = "stablehlo.transpose"(%31) <{permutation = array<i64: 1, 0>}> : (tensor<8x3xf32>) -> tensor<3x8xf32>
    %76 = "stablehlo.dot_general"(%74, %75) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %77 = "stablehlo.transpose"(%74) <{permutation = array<i64: 1, 0>}> : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %78 = "stablehlo.dot_general"(%77, %30) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<3x4xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
    %79 = "stablehlo.transpose"(%78) <{permutation = array<i64: 1, 0>}> : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %80 = "stablehlo.reduce"(%74, %8) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg21: tensor<f32>, %arg22: tensor<f32>):
      %277 = "stablehlo.add"(%arg21, %arg22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%277) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
    %81 = "stablehlo.reshape"(%80) : (tensor<3xf32>) -> tensor<1x3xf32>
    %82 = "stablehlo.reshape"(%81) : (tensor<1x3xf32>) -> tensor<3xf32>
    %83 = "stablehlo.transpose"(%79) <{permutation = array<i64: 1, 0>}> : (tensor<8x3xf32>) -> tensor<3x8xf32>
    %84 = "stablehlo.multiply"(%30, %30) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %85 = "stablehlo.convert"(%10) : (tensor<i64>) -> tensor<f32>
    %86 = "stablehlo.broadcast_in_dim"(%85) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %87 = "stablehlo.subtract"(%86, %84) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %88 = "stablehlo.multiply"(%76, %87) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %89 = "stablehlo.transpose"(%88) <{permutation = array<i64: 1, 0>}> : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %90 = "stablehlo.dot_general"(%89, %arg16) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %91 = "stablehlo.transpose"(%90) <{permutation = array<i64: 1, 0>}> : (tensor<8x6xf32>) -> tensor<6x8xf32>
    %92 = "stablehlo.reduce"(%88, %8) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg19: tensor<f32>, %arg20: tensor<f32>):
      %276 = "stablehlo.add"(%arg19, %arg20) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%276) : (tensor<f32>) -> ()
    }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %93 = "stablehlo.reshape"(%92) : (tensor<8xf32>) -> tensor<1x8xf32>
    %94 = "stablehlo.reshape"(%93) : (tensor<1x8xf32>) -> tensor<8xf32>
    %95 = "stablehlo.transpose"(%91) <{permutation = array<i64: 1, 0>}> : (tensor<6x8xf32>) -> tensor<8x6xf32>
    %96 = "stablehlo.add"(%arg4, %23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %97 = "stablehlo.convert"(%14) : (tensor<1xf64>) -> tensor<1xf64>
    %98 = "stablehlo.reshape"(%97) : (tensor<1xf64>) -> tensor<f64>
    %99 = "stablehlo.multiply"(%arg18, %98) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %100 = "stablehlo.convert"(%10) : (tensor<i64>) -> tensor<f64>
    %101 = "stablehlo.subtract"(%100, %99) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %102 = "stablehlo.convert"(%101) : (tensor<f64>) -> tensor<f32>
    %103 = "stablehlo.broadcast_in_dim"(%102) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %104 = "stablehlo.multiply"(%arg0, %103) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %105 = "stablehlo.abs"(%4) : (tensor<f32>) -> tensor<f32>
    %106 = "stablehlo.convert"(%15) : (tensor<1xf64>) -> tensor<1xf64>
    %107 = "stablehlo.reshape"(%106) : (tensor<1xf64>) -> tensor<f64>
    %108 = "stablehlo.convert"(%107) : (tensor<f64>) -> tensor<f32>
    %109 = "stablehlo.compare"(%105, %108) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %110 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %111 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %112 = "stablehlo.select"(%109, %110, %111) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %113 = "stablehlo.broadcast_in_dim"(%95) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %114 = "stablehlo.broadcast_in_dim"(%arg5) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %115 = "stablehlo.select"(%109, %113, %114) : (tensor<i1>, tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %116 = "stablehlo.subtract"(%95, %arg5) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %117 = "stablehlo.broadcast_in_dim"(%112) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %118 = "stablehlo.multiply"(%117, %116) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %119 = "stablehlo.add"(%118, %115) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %120 = "stablehlo.convert"(%16) : (tensor<1xf64>) -> tensor<1xf32>
    %121 = "stablehlo.reshape"(%120) : (tensor<1xf32>) -> tensor<f32>
    %122 = "stablehlo.broadcast_in_dim"(%121) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %123 = "stablehlo.multiply"(%arg6, %122) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %124 = "stablehlo.convert"(%17) : (tensor<1xf64>) -> tensor<1xf32>
    %125 = "stablehlo.reshape"(%124) : (tensor<1xf32>) -> tensor<f32>
    %126 = "stablehlo.broadcast_in_dim"(%125) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %127 = "stablehlo.multiply"(%95, %126) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %128 = "stablehlo.multiply"(%127, %95) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %129 = "stablehlo.add"(%123, %128) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %130 = "stablehlo.convert"(%18) : (tensor<1xf64>) -> tensor<1xf32>
    %131 = "stablehlo.reshape"(%130) : (tensor<1xf32>) -> tensor<f32>
    %132 = "stablehlo.power"(%131, %96) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %133 = "stablehlo.subtract"(%85, %132) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %134 = "stablehlo.power"(%121, %96) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %135 = "stablehlo.subtract"(%85, %134) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %136 = "stablehlo.convert"(%133) : (tensor<f32>) -> tensor<f64>
    %137 = "stablehlo.divide"(%arg18, %136) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %138 = "stablehlo.negate"(%137) : (tensor<f64>) -> tensor<f64>
    %139 = "stablehlo.sqrt"(%135) : (tensor<f32>) -> tensor<f32>
    %140 = "stablehlo.sqrt"(%129) : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %141 = "stablehlo.convert"(%139) : (tensor<f32>) -> tensor<f64>
    %142 = "stablehlo.multiply"(%141, %138) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %143 = "stablehlo.convert"(%142) : (tensor<f64>) -> tensor<f32>
    %144 = "stablehlo.broadcast_in_dim"(%143) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %145 = "stablehlo.divide"(%140, %144) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %146 = "stablehlo.divide"(%12, %138) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %147 = "stablehlo.convert"(%19) : (tensor<1xf64>) -> tensor<1xf64>
    %148 = "stablehlo.reshape"(%147) : (tensor<1xf64>) -> tensor<f64>
    %149 = "stablehlo.multiply"(%146, %148) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %150 = "stablehlo.convert"(%149) : (tensor<f64>) -> tensor<f32>
    %151 = "stablehlo.broadcast_in_dim"(%150) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %152 = "stablehlo.add"(%145, %151) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %153 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %154 = "stablehlo.multiply"(%119, %153) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %155 = "stablehlo.divide"(%154, %152) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %156 = "stablehlo.add"(%104, %155) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %157 = "stablehlo.add"(%arg7, %23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %158 = "stablehlo.broadcast_in_dim"(%102) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %159 = "stablehlo.multiply"(%arg1, %158) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %160 = "stablehlo.broadcast_in_dim"(%94) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8xf32>
    %161 = "stablehlo.broadcast_in_dim"(%arg8) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8xf32>
    %162 = "stablehlo.select"(%109, %160, %161) : (tensor<i1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %163 = "stablehlo.subtract"(%94, %arg8) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %164 = "stablehlo.broadcast_in_dim"(%112) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %165 = "stablehlo.multiply"(%164, %163) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %166 = "stablehlo.add"(%165, %162) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %167 = "stablehlo.broadcast_in_dim"(%121) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %168 = "stablehlo.multiply"(%arg9, %167) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %169 = "stablehlo.broadcast_in_dim"(%125) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %170 = "stablehlo.multiply"(%94, %169) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %171 = "stablehlo.multiply"(%170, %94) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %172 = "stablehlo.add"(%168, %171) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %173 = "stablehlo.power"(%131, %157) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %174 = "stablehlo.subtract"(%85, %173) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %175 = "stablehlo.power"(%121, %157) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %176 = "stablehlo.subtract"(%85, %175) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %177 = "stablehlo.convert"(%174) : (tensor<f32>) -> tensor<f64>
    %178 = "stablehlo.divide"(%arg18, %177) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %179 = "stablehlo.negate"(%178) : (tensor<f64>) -> tensor<f64>
    %180 = "stablehlo.sqrt"(%176) : (tensor<f32>) -> tensor<f32>
    %181 = "stablehlo.sqrt"(%172) : (tensor<8xf32>) -> tensor<8xf32>
    %182 = "stablehlo.convert"(%180) : (tensor<f32>) -> tensor<f64>
    %183 = "stablehlo.multiply"(%182, %179) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %184 = "stablehlo.convert"(%183) : (tensor<f64>) -> tensor<f32>
    %185 = "stablehlo.broadcast_in_dim"(%184) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %186 = "stablehlo.divide"(%181, %185) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %187 = "stablehlo.divide"(%12, %179) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %188 = "stablehlo.multiply"(%187, %148) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %189 = "stablehlo.convert"(%188) : (tensor<f64>) -> tensor<f32>
    %190 = "stablehlo.broadcast_in_dim"(%189) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %191 = "stablehlo.add"(%186, %190) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %192 = "stablehlo.multiply"(%166, %26) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %193 = "stablehlo.divide"(%192, %191) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %194 = "stablehlo.add"(%159, %193) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %195 = "stablehlo.add"(%arg10, %23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %196 = "stablehlo.broadcast_in_dim"(%102) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %197 = "stablehlo.multiply"(%arg2, %196) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %198 = "stablehlo.broadcast_in_dim"(%83) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %199 = "stablehlo.broadcast_in_dim"(%arg11) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %200 = "stablehlo.select"(%109, %198, %199) : (tensor<i1>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %201 = "stablehlo.subtract"(%83, %arg11) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %202 = "stablehlo.broadcast_in_dim"(%112) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %203 = "stablehlo.multiply"(%202, %201) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %204 = "stablehlo.add"(%203, %200) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %205 = "stablehlo.broadcast_in_dim"(%121) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %206 = "stablehlo.multiply"(%arg12, %205) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %207 = "stablehlo.broadcast_in_dim"(%125) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %208 = "stablehlo.multiply"(%83, %207) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %209 = "stablehlo.multiply"(%208, %83) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %210 = "stablehlo.add"(%206, %209) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %211 = "stablehlo.power"(%131, %195) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %212 = "stablehlo.subtract"(%85, %211) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %213 = "stablehlo.power"(%121, %195) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %214 = "stablehlo.subtract"(%85, %213) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %215 = "stablehlo.convert"(%212) : (tensor<f32>) -> tensor<f64>
    %216 = "stablehlo.divide"(%arg18, %215) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %217 = "stablehlo.negate"(%216) : (tensor<f64>) -> tensor<f64>
    %218 = "stablehlo.sqrt"(%214) : (tensor<f32>) -> tensor<f32>
    %219 = "stablehlo.sqrt"(%210) : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %220 = "stablehlo.convert"(%218) : (tensor<f32>) -> tensor<f64>
    %221 = "stablehlo.multiply"(%220, %217) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %222 = "stablehlo.convert"(%221) : (tensor<f64>) -> tensor<f32>
    %223 = "stablehlo.broadcast_in_dim"(%222) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %224 = "stablehlo.divide"(%219, %223) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %225 = "stablehlo.divide"(%12, %217) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %226 = "stablehlo.multiply"(%225, %148) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %227 = "stablehlo.convert"(%226) : (tensor<f64>) -> tensor<f32>
    %228 = "stablehlo.broadcast_in_dim"(%227) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %229 = "stablehlo.add"(%224, %228) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %230 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %231 = "stablehlo.multiply"(%204, %230) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %232 = "stablehlo.divide"(%231, %229) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %233 = "stablehlo.add"(%197, %232) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %234 = "stablehlo.add"(%arg13, %23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %235 = "stablehlo.broadcast_in_dim"(%102) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %236 = "stablehlo.multiply"(%arg3, %235) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %237 = "stablehlo.broadcast_in_dim"(%82) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xf32>) -> tensor<3xf32>
    %238 = "stablehlo.broadcast_in_dim"(%arg14) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xf32>) -> tensor<3xf32>
    %239 = "stablehlo.select"(%109, %237, %238) : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %240 = "stablehlo.subtract"(%82, %arg14) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %241 = "stablehlo.broadcast_in_dim"(%112) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %242 = "stablehlo.multiply"(%241, %240) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %243 = "stablehlo.add"(%242, %239) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %244 = "stablehlo.broadcast_in_dim"(%121) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %245 = "stablehlo.multiply"(%arg15, %244) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %246 = "stablehlo.broadcast_in_dim"(%125) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %247 = "stablehlo.multiply"(%82, %246) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %248 = "stablehlo.multiply"(%247, %82) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %249 = "stablehlo.add"(%245, %248) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %250 = "stablehlo.power"(%131, %234) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %251 = "stablehlo.subtract"(%85, %250) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %252 = "stablehlo.power"(%121, %234) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %253 = "stablehlo.subtract"(%85, %252) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %254 = "stablehlo.convert"(%251) : (tensor<f32>) -> tensor<f64>
    %255 = "stablehlo.divide"(%arg18, %254) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %256 = "stablehlo.negate"(%255) : (tensor<f64>) -> tensor<f64>
    %257 = "stablehlo.sqrt"(%253) : (tensor<f32>) -> tensor<f32>
    %258 = "stablehlo.sqrt"(%249) : (tensor<3xf32>) -> tensor<3xf32>
    %259 = "stablehlo.convert"(%257) : (tensor<f32>) -> tensor<f64>
    %260 = "stablehlo.multiply"(%259, %256) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %261 = "stablehlo.convert"(%260) : (tensor<f64>) -> tensor<f32>
    %262 = "stablehlo.broadcast_in_dim"(%261) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %263 = "stablehlo.divide"(%258, %262) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %264 = "stablehlo.divide"(%12, %256) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %265 = "stablehlo.multiply"(%264, %148) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %266 = "stablehlo.convert"(%265) : (tensor<f64>) -> tensor<f32>
    %267 = "stablehlo.broadcast_in_dim"(%266) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %268 = "stablehlo.add"(%263, %267) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %269 = "stablehlo.multiply"(%243, %35) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %270 = "stablehlo.divide"(%269, %268) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %271 = "stablehlo.add"(%236, %270) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %272 = "stablehlo.subtract"(%156, %arg0) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %273 = "stablehlo.subtract"(%194, %arg1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %274 = "stablehlo.subtract"(%233, %arg2) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %275 = "stablehlo.subtract"(%271, %arg3) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%156, %194, %233, %271, %96, %119, %129, %157, %166, %172, %195, %204, %210, %234, %243, %249, %272, %273, %274, %275) : (tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<f32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> ()
  }) : () -> ()
}) : () -> ()

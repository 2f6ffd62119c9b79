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
    %12 = "arith.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %13 = "arith.constant"() <{value = dense<1.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
    %14 = "arith.constant"() <{value = dense<5.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
    %15 = "arith.constant"() <{value = dense<0.99899999999999999> : tensor<1xf64>}> : () -> tensor<1xf64>
    %16 = "arith.constant"() <{value = dense<0.0010000000000000009> : tensor<1xf64>}> : () -> tensor<1xf64>
    %17 = "arith.constant"() <{value = dense<9.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
    %18 = "arith.constant"() <{value = dense<1.000000e-08> : tensor<1xf64>}> : () -> tensor<1xf64>
    %19 = "stablehlo.transpose"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<8x6xf32>) -> tensor<6x8xf32>
    %20 = "stablehlo.dot_general"(%arg16, %19) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
    %21 = "stablehlo.convert"(%12) : (tensor<1xi64>) -> tensor<1xf32>
    %22 = "stablehlo.reshape"(%21) : (tensor<1xf32>) -> tensor<f32>
    %23 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %24 = "stablehlo.multiply"(%20, %23) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %25 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %26 = "stablehlo.multiply"(%arg1, %25) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %27 = "stablehlo.broadcast_in_dim"(%26) <{broadcast_dimensions = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4x8xf32>
    %28 = "stablehlo.add"(%24, %27) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %29 = "stablehlo.tanh"(%28) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %30 = "stablehlo.transpose"(%arg2) <{permutation = array<i64: 1, 0>}> : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %31 = "stablehlo.dot_general"(%29, %30) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %32 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %33 = "stablehlo.multiply"(%31, %32) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %34 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %35 = "stablehlo.multiply"(%arg3, %34) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %36 = "stablehlo.broadcast_in_dim"(%35) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xf32>) -> tensor<4x3xf32>
    %37 = "stablehlo.add"(%33, %36) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %38 = "stablehlo.reduce"(%37, %11) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %268 = "stablehlo.maximum"(%arg31, %arg32) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%268) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %39 = "stablehlo.reshape"(%38) : (tensor<4xf32>) -> tensor<4x1xf32>
    %40 = "stablehlo.broadcast_in_dim"(%39) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %41 = "stablehlo.subtract"(%37, %40) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %42 = "stablehlo.exponential"(%41) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %43 = "stablehlo.reduce"(%42, %8) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg29: tensor<f32>, %arg30: tensor<f32>):
      %267 = "stablehlo.add"(%arg29, %arg30) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%267) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %44 = "stablehlo.reshape"(%43) : (tensor<4xf32>) -> tensor<4x1xf32>
    %45 = "stablehlo.log"(%44) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %46 = "stablehlo.broadcast_in_dim"(%45) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %47 = "stablehlo.subtract"(%41, %46) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %48 = "stablehlo.compare"(%arg17, %2) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %49 = "stablehlo.convert"(%48) : (tensor<4xi1>) -> tensor<4xi64>
    %50 = "stablehlo.reduce"(%49, %9) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg27: tensor<i64>, %arg28: tensor<i64>):
      %266 = "stablehlo.add"(%arg27, %arg28) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%266) : (tensor<i64>) -> ()
    }) : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
    %51 = "stablehlo.convert"(%50) : (tensor<i64>) -> tensor<f32>
    %52 = "stablehlo.divide"(%7, %51) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %53 = "stablehlo.reshape"(%arg17) : (tensor<4xi64>) -> tensor<4x1xi64>
    %54 = "stablehlo.compare"(%53, %1) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi1>
    %55 = "stablehlo.broadcast_in_dim"(%54) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xi1>) -> tensor<4x1xi1>
    %56 = "stablehlo.broadcast_in_dim"(%53) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xi64>) -> tensor<4x1xi64>
    %57 = "stablehlo.select"(%55, %56, %0) : (tensor<4x1xi1>, tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi64>
    %58 = "stablehlo.slice"(%5) <{limit_indices = array<i64: 4, 1>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %59 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4x1x1xi64>
    %60 = "stablehlo.reshape"(%57) : (tensor<4x1xi64>) -> tensor<4x1x1xi64>
    %61 = "stablehlo.concatenate"(%59, %60) <{dimension = 2 : i64}> : (tensor<4x1x1xi64>, tensor<4x1x1xi64>) -> tensor<4x1x2xi64>
    %62 = "stablehlo.scatter"(%6, %61, %58) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg25: tensor<f32>, %arg26: tensor<f32>):
      "stablehlo.return"(%arg26) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<4x1x2xi64>, tensor<4x1xf32>) -> tensor<4x3xf32>
    %63 = "stablehlo.broadcast_in_dim"(%52) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %64 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %65 = "stablehlo.select"(%55, %63, %64) : (tensor<4x1xi1>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %66 = "stablehlo.broadcast_in_dim"(%65) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %67 = "stablehlo.multiply"(%62, %66) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %68 = "stablehlo.exponential"(%47) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %69 = "stablehlo.reduce"(%67, %8) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg23: tensor<f32>, %arg24: tensor<f32>):
      %265 = "stablehlo.add"(%arg23, %arg24) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%265) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %70 = "stablehlo.reshape"(%69) : (tensor<4xf32>) -> tensor<4x1xf32>
    %71 = "stablehlo.broadcast_in_dim"(%70) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %72 = "stablehlo.multiply"(%68, %71) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %73 = "stablehlo.subtract"(%67, %72) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %74 = "stablehlo.transpose"(%30) <{permutation = array<i64: 1, 0>}> : (tensor<8x3xf32>) -> tensor<3x8xf32>
    %75 = "stablehlo.dot_general"(%73, %74) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %76 = "stablehlo.transpose"(%73) <{permutation = array<i64: 1, 0>}> : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %77 = "stablehlo.dot_general"(%76, %29) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<3x4xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
    %78 = "stablehlo.transpose"(%77) <{permutation = array<i64: 1, 0>}> : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %79 = "stablehlo.reduce"(%73, %8) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg21: tensor<f32>, %arg22: tensor<f32>):
      %264 = "stablehlo.add"(%arg21, %arg22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%264) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
    %80 = "stablehlo.reshape"(%79) : (tensor<3xf32>) -> tensor<1x3xf32>
    %81 = "stablehlo.reshape"(%80) : (tensor<1x3xf32>) -> tensor<3xf32>
    %82 = "stablehlo.transpose"(%78) <{permutation = array<i64: 1, 0>}> : (tensor<8x3xf32>) -> tensor<3x8xf32>
    %83 = "stablehlo.multiply"(%29, %29) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %84 = "stablehlo.convert"(%10) : (tensor<i64>) -> tensor<f32>
    %85 = "stablehlo.broadcast_in_dim"(%84) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %86 = "stablehlo.subtract"(%85, %83) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %87 = "stablehlo.multiply"(%75, %86) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %88 = "stablehlo.transpose"(%87) <{permutation = array<i64: 1, 0>}> : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %89 = "stablehlo.dot_general"(%88, %arg16) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %90 = "stablehlo.transpose"(%89) <{permutation = array<i64: 1, 0>}> : (tensor<8x6xf32>) -> tensor<6x8xf32>
    %91 = "stablehlo.reduce"(%87, %8) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg19: tensor<f32>, %arg20: tensor<f32>):
      %263 = "stablehlo.add"(%arg19, %arg20) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%263) : (tensor<f32>) -> ()
    }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %92 = "stablehlo.reshape"(%91) : (tensor<8xf32>) -> tensor<1x8xf32>
    %93 = "stablehlo.reshape"(%92) : (tensor<1x8xf32>) -> tensor<8xf32>
    %94 = "stablehlo.transpose"(%90) <{permutation = array<i64: 1, 0>}> : (tensor<6x8xf32>) -> tensor<8x6xf32>
    %95 = "stablehlo.add"(%arg4, %22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %96 = "stablehlo.convert"(%13) : (tensor<1xf64>) -> tensor<1xf64>
    %97 = "stablehlo.reshape"(%96) : (tensor<1xf64>) -> tensor<f64>
    %98 = "stablehlo.multiply"(%arg18, %97) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %99 = "stablehlo.convert"(%10) : (tensor<i64>) -> tensor<f64>
    %100 = "stablehlo.subtract"(%99, %98) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %101 = "stablehlo.convert"(%100) : (tensor<f64>) -> tensor<f32>
    %102 = "stablehlo.broadcast_in_dim"(%101) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %103 = "stablehlo.multiply"(%arg0, %102) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %104 = "stablehlo.abs"(%4) : (tensor<f32>) -> tensor<f32>
    %105 = "stablehlo.convert"(%14) : (tensor<1xf64>) -> tensor<1xf64>
    %106 = "stablehlo.reshape"(%105) : (tensor<1xf64>) -> tensor<f64>
    %107 = "stablehlo.convert"(%106) : (tensor<f64>) -> tensor<f32>
    %108 = "stablehlo.compare"(%104, %107) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %109 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %110 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %111 = "stablehlo.select"(%108, %109, %110) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %112 = "stablehlo.broadcast_in_dim"(%94) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %113 = "stablehlo.broadcast_in_dim"(%arg5) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %114 = "stablehlo.select"(%108, %112, %113) : (tensor<i1>, tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %115 = "stablehlo.subtract"(%94, %arg5) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %116 = "stablehlo.broadcast_in_dim"(%111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %117 = "stablehlo.multiply"(%116, %115) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %118 = "stablehlo.add"(%117, %114) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %119 = "stablehlo.convert"(%15) : (tensor<1xf64>) -> tensor<1xf32>
    %120 = "stablehlo.reshape"(%119) : (tensor<1xf32>) -> tensor<f32>
    %121 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %122 = "stablehlo.multiply"(%arg6, %121) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %123 = "stablehlo.convert"(%16) : (tensor<1xf64>) -> tensor<1xf32>
    %124 = "stablehlo.reshape"(%123) : (tensor<1xf32>) -> tensor<f32>
    %125 = "stablehlo.broadcast_in_dim"(%124) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %126 = "stablehlo.multiply"(%94, %125) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %127 = "stablehlo.multiply"(%126, %94) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %128 = "stablehlo.add"(%122, %127) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %129 = "stablehlo.convert"(%95) : (tensor<f32>) -> tensor<f64>
    %130 = "stablehlo.convert"(%17) : (tensor<1xf64>) -> tensor<1xf64>
    %131 = "stablehlo.reshape"(%130) : (tensor<1xf64>) -> tensor<f64>
    %132 = "stablehlo.power"(%131, %129) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %133 = "stablehlo.subtract"(%99, %132) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %134 = "stablehlo.convert"(%15) : (tensor<1xf64>) -> tensor<1xf64>
    %135 = "stablehlo.reshape"(%134) : (tensor<1xf64>) -> tensor<f64>
    %136 = "stablehlo.power"(%135, %129) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %137 = "stablehlo.subtract"(%99, %136) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %138 = "stablehlo.sqrt"(%137) : (tensor<f64>) -> tensor<f64>
    %139 = "stablehlo.divide"(%arg18, %133) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %140 = "stablehlo.sqrt"(%128) : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %141 = "stablehlo.convert"(%138) : (tensor<f64>) -> tensor<f32>
    %142 = "stablehlo.broadcast_in_dim"(%141) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %143 = "stablehlo.divide"(%140, %142) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %144 = "stablehlo.convert"(%18) : (tensor<1xf64>) -> tensor<1xf32>
    %145 = "stablehlo.reshape"(%144) : (tensor<1xf32>) -> tensor<f32>
    %146 = "stablehlo.broadcast_in_dim"(%145) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %147 = "stablehlo.add"(%143, %146) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %148 = "stablehlo.negate"(%139) : (tensor<f64>) -> tensor<f64>
    %149 = "stablehlo.convert"(%148) : (tensor<f64>) -> tensor<f32>
    %150 = "stablehlo.broadcast_in_dim"(%149) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %151 = "stablehlo.multiply"(%150, %118) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %152 = "stablehlo.divide"(%151, %147) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %153 = "stablehlo.add"(%103, %152) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %154 = "stablehlo.add"(%arg7, %22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %155 = "stablehlo.broadcast_in_dim"(%101) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %156 = "stablehlo.multiply"(%arg1, %155) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %157 = "stablehlo.broadcast_in_dim"(%93) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8xf32>
    %158 = "stablehlo.broadcast_in_dim"(%arg8) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8xf32>
    %159 = "stablehlo.select"(%108, %157, %158) : (tensor<i1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %160 = "stablehlo.subtract"(%93, %arg8) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %161 = "stablehlo.broadcast_in_dim"(%111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %162 = "stablehlo.multiply"(%161, %160) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %163 = "stablehlo.add"(%162, %159) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %164 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %165 = "stablehlo.multiply"(%arg9, %164) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %166 = "stablehlo.broadcast_in_dim"(%124) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %167 = "stablehlo.multiply"(%93, %166) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %168 = "stablehlo.multiply"(%167, %93) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %169 = "stablehlo.add"(%165, %168) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %170 = "stablehlo.convert"(%154) : (tensor<f32>) -> tensor<f64>
    %171 = "stablehlo.power"(%131, %170) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %172 = "stablehlo.subtract"(%99, %171) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %173 = "stablehlo.power"(%135, %170) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %174 = "stablehlo.subtract"(%99, %173) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %175 = "stablehlo.sqrt"(%174) : (tensor<f64>) -> tensor<f64>
    %176 = "stablehlo.divide"(%arg18, %172) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %177 = "stablehlo.sqrt"(%169) : (tensor<8xf32>) -> tensor<8xf32>
    %178 = "stablehlo.convert"(%175) : (tensor<f64>) -> tensor<f32>
    %179 = "stablehlo.broadcast_in_dim"(%178) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %180 = "stablehlo.divide"(%177, %179) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %181 = "stablehlo.broadcast_in_dim"(%145) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %182 = "stablehlo.add"(%180, %181) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %183 = "stablehlo.negate"(%176) : (tensor<f64>) -> tensor<f64>
    %184 = "stablehlo.convert"(%183) : (tensor<f64>) -> tensor<f32>
    %185 = "stablehlo.broadcast_in_dim"(%184) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %186 = "stablehlo.multiply"(%185, %163) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %187 = "stablehlo.divide"(%186, %182) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %188 = "stablehlo.add"(%156, %187) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %189 = "stablehlo.add"(%arg10, %22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %190 = "stablehlo.broadcast_in_dim"(%101) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %191 = "stablehlo.multiply"(%arg2, %190) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %192 = "stablehlo.broadcast_in_dim"(%82) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %193 = "stablehlo.broadcast_in_dim"(%arg11) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %194 = "stablehlo.select"(%108, %192, %193) : (tensor<i1>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %195 = "stablehlo.subtract"(%82, %arg11) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %196 = "stablehlo.broadcast_in_dim"(%111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %197 = "stablehlo.multiply"(%196, %195) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %198 = "stablehlo.add"(%197, %194) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %199 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %200 = "stablehlo.multiply"(%arg12, %199) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %201 = "stablehlo.broadcast_in_dim"(%124) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %202 = "stablehlo.multiply"(%82, %201) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %203 = "stablehlo.multiply"(%202, %82) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %204 = "stablehlo.add"(%200, %203) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %205 = "stablehlo.convert"(%189) : (tensor<f32>) -> tensor<f64>
    %206 = "stablehlo.power"(%131, %205) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %207 = "stablehlo.subtract"(%99, %206) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %208 = "stablehlo.power"(%135, %205) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %209 = "stablehlo.subtract"(%99, %208) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %210 = "stablehlo.sqrt"(%209) : (tensor<f64>) -> tensor<f64>
    %211 = "stablehlo.divide"(%arg18, %207) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %212 = "stablehlo.sqrt"(%204) : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %213 = "stablehlo.convert"(%210) : (tensor<f64>) -> tensor<f32>
    %214 = "stablehlo.broadcast_in_dim"(%213) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %215 = "stablehlo.divide"(%212, %214) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %216 = "stablehlo.broadcast_in_dim"(%145) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %217 = "stablehlo.add"(%215, %216) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %218 = "stablehlo.negate"(%211) : (tensor<f64>) -> tensor<f64>
    %219 = "stablehlo.convert"(%218) : (tensor<f64>) -> tensor<f32>
    %220 = "stablehlo.broadcast_in_dim"(%219) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %221 = "stablehlo.multiply"(%220, %198) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %222 = "stablehlo.divide"(%221, %217) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %223 = "stablehlo.add"(%191, %222) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %224 = "stablehlo.add"(%arg13, %22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %225 = "stablehlo.broadcast_in_dim"(%101) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %226 = "stablehlo.multiply"(%arg3, %225) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %227 = "stablehlo.broadcast_in_dim"(%81) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xf32>) -> tensor<3xf32>
    %228 = "stablehlo.broadcast_in_dim"(%arg14) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xf32>) -> tensor<3xf32>
    %229 = "stablehlo.select"(%108, %227, %228) : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %230 = "stablehlo.subtract"(%81, %arg14) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %231 = "stablehlo.broadcast_in_dim"(%111) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %232 = "stablehlo.multiply"(%231, %230) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %233 = "stablehlo.add"(%232, %229) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %234 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %235 = "stablehlo.multiply"(%arg15, %234) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %236 = "stablehlo.broadcast_in_dim"(%124) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %237 = "stablehlo.multiply"(%81, %236) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %238 = "stablehlo.multiply"(%237, %81) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %239 = "stablehlo.add"(%235, %238) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %240 = "stablehlo.convert"(%224) : (tensor<f32>) -> tensor<f64>
    %241 = "stablehlo.power"(%131, %240) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %242 = "stablehlo.subtract"(%99, %241) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %243 = "stablehlo.power"(%135, %240) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %244 = "stablehlo.subtract"(%99, %243) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %245 = "stablehlo.sqrt"(%244) : (tensor<f64>) -> tensor<f64>
    %246 = "stablehlo.divide"(%arg18, %242) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %247 = "stablehlo.sqrt"(%239) : (tensor<3xf32>) -> tensor<3xf32>
    %248 = "stablehlo.convert"(%245) : (tensor<f64>) -> tensor<f32>
    %249 = "stablehlo.broadcast_in_dim"(%248) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %250 = "stablehlo.divide"(%247, %249) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %251 = "stablehlo.broadcast_in_dim"(%145) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %252 = "stablehlo.add"(%250, %251) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %253 = "stablehlo.negate"(%246) : (tensor<f64>) -> tensor<f64>
    %254 = "stablehlo.convert"(%253) : (tensor<f64>) -> tensor<f32>
    %255 = "stablehlo.broadcast_in_dim"(%254) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %256 = "stablehlo.multiply"(%255, %233) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %257 = "stablehlo.divide"(%256, %252) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %258 = "stablehlo.add"(%226, %257) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %259 = "stablehlo.subtract"(%153, %arg0) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %260 = "stablehlo.subtract"(%188, %arg1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %261 = "stablehlo.subtract"(%223, %arg2) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %262 = "stablehlo.subtract"(%258, %arg3) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%153, %188, %223, %258, %95, %118, %128, %154, %163, %169, %189, %198, %204, %224, %233, %239, %259, %260, %261, %262) : (tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<f32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> ()
  }) : () -> ()
}) : () -> ()

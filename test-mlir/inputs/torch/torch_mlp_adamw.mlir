"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<f32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<4x6xf32>, tensor<4xi64>) -> (tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<f32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8x6xf32>, %arg1: tensor<8xf32>, %arg2: tensor<3x8xf32>, %arg3: tensor<3xf32>, %arg4: tensor<f32>, %arg5: tensor<8x6xf32>, %arg6: tensor<8x6xf32>, %arg7: tensor<f32>, %arg8: tensor<8xf32>, %arg9: tensor<8xf32>, %arg10: tensor<f32>, %arg11: tensor<3x8xf32>, %arg12: tensor<3x8xf32>, %arg13: tensor<f32>, %arg14: tensor<3xf32>, %arg15: tensor<3xf32>, %arg16: tensor<4x6xf32>, %arg17: tensor<4xi64>):
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
    %13 = "arith.constant"() <{value = dense<0.99899999999999999> : tensor<1xf64>}> : () -> tensor<1xf64>
    %14 = "arith.constant"() <{value = dense<5.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
    %15 = "arith.constant"() <{value = dense<0.0010000000000000009> : tensor<1xf64>}> : () -> tensor<1xf64>
    %16 = "arith.constant"() <{value = dense<9.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
    %17 = "arith.constant"() <{value = dense<1.000000e-02> : tensor<1xf64>}> : () -> tensor<1xf64>
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
    ^bb0(%arg30: tensor<f32>, %arg31: tensor<f32>):
      %260 = "stablehlo.maximum"(%arg30, %arg31) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%260) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %39 = "stablehlo.reshape"(%38) : (tensor<4xf32>) -> tensor<4x1xf32>
    %40 = "stablehlo.broadcast_in_dim"(%39) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %41 = "stablehlo.subtract"(%37, %40) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %42 = "stablehlo.exponential"(%41) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %43 = "stablehlo.reduce"(%42, %8) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg28: tensor<f32>, %arg29: tensor<f32>):
      %259 = "stablehlo.add"(%arg28, %arg29) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%259) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %44 = "stablehlo.reshape"(%43) : (tensor<4xf32>) -> tensor<4x1xf32>
    %45 = "stablehlo.log"(%44) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %46 = "stablehlo.broadcast_in_dim"(%45) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %47 = "stablehlo.subtract"(%41, %46) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %48 = "stablehlo.compare"(%arg17, %2) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %49 = "stablehlo.convert"(%48) : (tensor<4xi1>) -> tensor<4xi64>
    %50 = "stablehlo.reduce"(%49, %9) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg26: tensor<i64>, %arg27: tensor<i64>):
      %258 = "stablehlo.add"(%arg26, %arg27) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%258) : (tensor<i64>) -> ()
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
    ^bb0(%arg24: tensor<f32>, %arg25: tensor<f32>):
      "stablehlo.return"(%arg25) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<4x1x2xi64>, tensor<4x1xf32>) -> tensor<4x3xf32>
    %63 = "stablehlo.broadcast_in_dim"(%52) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %64 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x1xf32>
    %65 = "stablehlo.select"(%55, %63, %64) : (tensor<4x1xi1>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %66 = "stablehlo.broadcast_in_dim"(%65) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %67 = "stablehlo.multiply"(%62, %66) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %68 = "stablehlo.exponential"(%47) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %69 = "stablehlo.reduce"(%67, %8) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
      %257 = "stablehlo.add"(%arg22, %arg23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%257) : (tensor<f32>) -> ()
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
    ^bb0(%arg20: tensor<f32>, %arg21: tensor<f32>):
      %256 = "stablehlo.add"(%arg20, %arg21) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%256) : (tensor<f32>) -> ()
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
    ^bb0(%arg18: tensor<f32>, %arg19: tensor<f32>):
      %255 = "stablehlo.add"(%arg18, %arg19) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%255) : (tensor<f32>) -> ()
    }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %92 = "stablehlo.reshape"(%91) : (tensor<8xf32>) -> tensor<1x8xf32>
    %93 = "stablehlo.reshape"(%92) : (tensor<1x8xf32>) -> tensor<8xf32>
    %94 = "stablehlo.transpose"(%90) <{permutation = array<i64: 1, 0>}> : (tensor<6x8xf32>) -> tensor<8x6xf32>
    %95 = "stablehlo.add"(%arg4, %22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %96 = "stablehlo.convert"(%13) : (tensor<1xf64>) -> tensor<1xf32>
    %97 = "stablehlo.reshape"(%96) : (tensor<1xf32>) -> tensor<f32>
    %98 = "stablehlo.broadcast_in_dim"(%97) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %99 = "stablehlo.multiply"(%arg0, %98) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %100 = "stablehlo.abs"(%4) : (tensor<f32>) -> tensor<f32>
    %101 = "stablehlo.convert"(%14) : (tensor<1xf64>) -> tensor<1xf64>
    %102 = "stablehlo.reshape"(%101) : (tensor<1xf64>) -> tensor<f64>
    %103 = "stablehlo.convert"(%102) : (tensor<f64>) -> tensor<f32>
    %104 = "stablehlo.compare"(%100, %103) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %105 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %106 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %107 = "stablehlo.select"(%104, %105, %106) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %108 = "stablehlo.broadcast_in_dim"(%94) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %109 = "stablehlo.broadcast_in_dim"(%arg5) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %110 = "stablehlo.select"(%104, %108, %109) : (tensor<i1>, tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %111 = "stablehlo.subtract"(%94, %arg5) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %112 = "stablehlo.broadcast_in_dim"(%107) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %113 = "stablehlo.multiply"(%112, %111) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %114 = "stablehlo.add"(%113, %110) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %115 = "stablehlo.multiply"(%arg6, %98) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %116 = "stablehlo.convert"(%15) : (tensor<1xf64>) -> tensor<1xf32>
    %117 = "stablehlo.reshape"(%116) : (tensor<1xf32>) -> tensor<f32>
    %118 = "stablehlo.broadcast_in_dim"(%117) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %119 = "stablehlo.multiply"(%94, %118) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %120 = "stablehlo.multiply"(%119, %94) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %121 = "stablehlo.add"(%115, %120) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %122 = "stablehlo.convert"(%16) : (tensor<1xf64>) -> tensor<1xf32>
    %123 = "stablehlo.reshape"(%122) : (tensor<1xf32>) -> tensor<f32>
    %124 = "stablehlo.power"(%123, %95) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %125 = "stablehlo.subtract"(%84, %124) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %126 = "stablehlo.power"(%97, %95) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %127 = "stablehlo.subtract"(%84, %126) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %128 = "stablehlo.divide"(%7, %125) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %129 = "stablehlo.convert"(%17) : (tensor<1xf64>) -> tensor<1xf32>
    %130 = "stablehlo.reshape"(%129) : (tensor<1xf32>) -> tensor<f32>
    %131 = "stablehlo.multiply"(%128, %130) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %132 = "stablehlo.negate"(%131) : (tensor<f32>) -> tensor<f32>
    %133 = "stablehlo.sqrt"(%127) : (tensor<f32>) -> tensor<f32>
    %134 = "stablehlo.sqrt"(%121) : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %135 = "stablehlo.multiply"(%133, %132) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %136 = "stablehlo.broadcast_in_dim"(%135) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %137 = "stablehlo.divide"(%134, %136) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %138 = "stablehlo.divide"(%7, %132) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %139 = "stablehlo.convert"(%18) : (tensor<1xf64>) -> tensor<1xf32>
    %140 = "stablehlo.reshape"(%139) : (tensor<1xf32>) -> tensor<f32>
    %141 = "stablehlo.multiply"(%138, %140) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %142 = "stablehlo.broadcast_in_dim"(%141) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %143 = "stablehlo.add"(%137, %142) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %144 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x6xf32>
    %145 = "stablehlo.multiply"(%114, %144) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %146 = "stablehlo.divide"(%145, %143) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %147 = "stablehlo.add"(%99, %146) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %148 = "stablehlo.add"(%arg7, %22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %149 = "stablehlo.broadcast_in_dim"(%97) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %150 = "stablehlo.multiply"(%arg1, %149) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %151 = "stablehlo.broadcast_in_dim"(%93) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8xf32>
    %152 = "stablehlo.broadcast_in_dim"(%arg8) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8xf32>
    %153 = "stablehlo.select"(%104, %151, %152) : (tensor<i1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %154 = "stablehlo.subtract"(%93, %arg8) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %155 = "stablehlo.broadcast_in_dim"(%107) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %156 = "stablehlo.multiply"(%155, %154) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %157 = "stablehlo.add"(%156, %153) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %158 = "stablehlo.multiply"(%arg9, %149) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %159 = "stablehlo.broadcast_in_dim"(%117) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %160 = "stablehlo.multiply"(%93, %159) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %161 = "stablehlo.multiply"(%160, %93) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %162 = "stablehlo.add"(%158, %161) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %163 = "stablehlo.power"(%123, %148) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %164 = "stablehlo.subtract"(%84, %163) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %165 = "stablehlo.power"(%97, %148) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %166 = "stablehlo.subtract"(%84, %165) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %167 = "stablehlo.divide"(%7, %164) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %168 = "stablehlo.multiply"(%167, %130) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %169 = "stablehlo.negate"(%168) : (tensor<f32>) -> tensor<f32>
    %170 = "stablehlo.sqrt"(%166) : (tensor<f32>) -> tensor<f32>
    %171 = "stablehlo.sqrt"(%162) : (tensor<8xf32>) -> tensor<8xf32>
    %172 = "stablehlo.multiply"(%170, %169) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %173 = "stablehlo.broadcast_in_dim"(%172) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %174 = "stablehlo.divide"(%171, %173) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %175 = "stablehlo.divide"(%7, %169) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %176 = "stablehlo.multiply"(%175, %140) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %177 = "stablehlo.broadcast_in_dim"(%176) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %178 = "stablehlo.add"(%174, %177) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %179 = "stablehlo.multiply"(%157, %25) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %180 = "stablehlo.divide"(%179, %178) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %181 = "stablehlo.add"(%150, %180) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %182 = "stablehlo.add"(%arg10, %22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %183 = "stablehlo.broadcast_in_dim"(%97) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %184 = "stablehlo.multiply"(%arg2, %183) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %185 = "stablehlo.broadcast_in_dim"(%82) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %186 = "stablehlo.broadcast_in_dim"(%arg11) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %187 = "stablehlo.select"(%104, %185, %186) : (tensor<i1>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %188 = "stablehlo.subtract"(%82, %arg11) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %189 = "stablehlo.broadcast_in_dim"(%107) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %190 = "stablehlo.multiply"(%189, %188) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %191 = "stablehlo.add"(%190, %187) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %192 = "stablehlo.multiply"(%arg12, %183) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %193 = "stablehlo.broadcast_in_dim"(%117) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %194 = "stablehlo.multiply"(%82, %193) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %195 = "stablehlo.multiply"(%194, %82) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %196 = "stablehlo.add"(%192, %195) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %197 = "stablehlo.power"(%123, %182) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %198 = "stablehlo.subtract"(%84, %197) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %199 = "stablehlo.power"(%97, %182) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %200 = "stablehlo.subtract"(%84, %199) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %201 = "stablehlo.divide"(%7, %198) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %202 = "stablehlo.multiply"(%201, %130) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %203 = "stablehlo.negate"(%202) : (tensor<f32>) -> tensor<f32>
    %204 = "stablehlo.sqrt"(%200) : (tensor<f32>) -> tensor<f32>
    %205 = "stablehlo.sqrt"(%196) : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %206 = "stablehlo.multiply"(%204, %203) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %207 = "stablehlo.broadcast_in_dim"(%206) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %208 = "stablehlo.divide"(%205, %207) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %209 = "stablehlo.divide"(%7, %203) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %210 = "stablehlo.multiply"(%209, %140) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %211 = "stablehlo.broadcast_in_dim"(%210) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %212 = "stablehlo.add"(%208, %211) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %213 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x8xf32>
    %214 = "stablehlo.multiply"(%191, %213) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %215 = "stablehlo.divide"(%214, %212) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %216 = "stablehlo.add"(%184, %215) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %217 = "stablehlo.add"(%arg13, %22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %218 = "stablehlo.broadcast_in_dim"(%97) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %219 = "stablehlo.multiply"(%arg3, %218) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %220 = "stablehlo.broadcast_in_dim"(%81) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xf32>) -> tensor<3xf32>
    %221 = "stablehlo.broadcast_in_dim"(%arg14) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xf32>) -> tensor<3xf32>
    %222 = "stablehlo.select"(%104, %220, %221) : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %223 = "stablehlo.subtract"(%81, %arg14) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %224 = "stablehlo.broadcast_in_dim"(%107) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %225 = "stablehlo.multiply"(%224, %223) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %226 = "stablehlo.add"(%225, %222) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %227 = "stablehlo.multiply"(%arg15, %218) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %228 = "stablehlo.broadcast_in_dim"(%117) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %229 = "stablehlo.multiply"(%81, %228) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %230 = "stablehlo.multiply"(%229, %81) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %231 = "stablehlo.add"(%227, %230) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %232 = "stablehlo.power"(%123, %217) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %233 = "stablehlo.subtract"(%84, %232) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %234 = "stablehlo.power"(%97, %217) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %235 = "stablehlo.subtract"(%84, %234) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %236 = "stablehlo.divide"(%7, %233) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %237 = "stablehlo.multiply"(%236, %130) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %238 = "stablehlo.negate"(%237) : (tensor<f32>) -> tensor<f32>
    %239 = "stablehlo.sqrt"(%235) : (tensor<f32>) -> tensor<f32>
    %240 = "stablehlo.sqrt"(%231) : (tensor<3xf32>) -> tensor<3xf32>
    %241 = "stablehlo.multiply"(%239, %238) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %242 = "stablehlo.broadcast_in_dim"(%241) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %243 = "stablehlo.divide"(%240, %242) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %244 = "stablehlo.divide"(%7, %238) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %245 = "stablehlo.multiply"(%244, %140) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %246 = "stablehlo.broadcast_in_dim"(%245) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %247 = "stablehlo.add"(%243, %246) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %248 = "stablehlo.multiply"(%226, %34) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %249 = "stablehlo.divide"(%248, %247) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %250 = "stablehlo.add"(%219, %249) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %251 = "stablehlo.subtract"(%147, %arg0) : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    %252 = "stablehlo.subtract"(%181, %arg1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %253 = "stablehlo.subtract"(%216, %arg2) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %254 = "stablehlo.subtract"(%250, %arg3) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%147, %181, %216, %250, %95, %114, %121, %148, %157, %162, %182, %191, %196, %217, %226, %231, %251, %252, %253, %254) : (tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<f32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<8x6xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> ()
  }) : () -> ()
}) : () -> ()

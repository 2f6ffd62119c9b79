"builtin.module"() <{sym_name = "jit_canonical"}> ({
  "func.func"() <{arg_attrs = [{zkdv.path = "0", zkdv.role = "param"}, {zkdv.path = "1", zkdv.role = "param"}, {zkdv.path = "2", zkdv.role = "param"}, {zkdv.path = "3", zkdv.role = "param"}, {zkdv.path = "0", zkdv.role = "opt_state"}, {zkdv.path = "1", zkdv.role = "opt_state"}, {zkdv.path = "2", zkdv.role = "opt_state"}, {zkdv.path = "3", zkdv.role = "opt_state"}, {zkdv.path = "4", zkdv.role = "opt_state"}, {zkdv.path = "5", zkdv.role = "opt_state"}, {zkdv.path = "6", zkdv.role = "opt_state"}, {zkdv.path = "7", zkdv.role = "opt_state"}, {zkdv.path = "8", zkdv.role = "opt_state"}, {zkdv.path = "9", zkdv.role = "opt_state"}, {zkdv.path = "arg14", zkdv.role = "batch"}, {zkdv.role = "parameter_index"}, {zkdv.role = "optimizer_state_index"}], function_type = (tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<32xf32>, tensor<16x32xf32>, tensor<4xf32>, tensor<32x4xf32>, tensor<i32>, tensor<9x17xui32>, tensor<ui64>, tensor<ui64>) -> (tensor<f32>, tensor<f32>), res_attrs = [{zkdv.role = "selected_delta"}, {zkdv.role = "selected_post_optimizer_state"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<4xf32>, %arg3: tensor<32x4xf32>, %arg4: tensor<i32>, %arg5: tensor<32xf32>, %arg6: tensor<16x32xf32>, %arg7: tensor<4xf32>, %arg8: tensor<32x4xf32>, %arg9: tensor<32xf32>, %arg10: tensor<16x32xf32>, %arg11: tensor<4xf32>, %arg12: tensor<32x4xf32>, %arg13: tensor<i32>, %arg14: tensor<9x17xui32>, %arg15: tensor<ui64>, %arg16: tensor<ui64>):
    %0 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.constant"() {value = dense<0> : tensor<ui64>} : () -> tensor<ui64>
    %2 = "stablehlo.constant"() {value = dense<32> : tensor<ui64>} : () -> tensor<ui64>
    %3 = "stablehlo.compare"(%arg15, %1) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %4 = "stablehlo.compare"(%arg15, %2) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %5 = "stablehlo.and"(%3, %4) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %6 = "stablehlo.constant"() {value = dense<32> : tensor<ui64>} : () -> tensor<ui64>
    %7 = "stablehlo.constant"() {value = dense<544> : tensor<ui64>} : () -> tensor<ui64>
    %8 = "stablehlo.compare"(%arg15, %6) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %9 = "stablehlo.compare"(%arg15, %7) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %10 = "stablehlo.and"(%8, %9) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %11 = "stablehlo.constant"() {value = dense<544> : tensor<ui64>} : () -> tensor<ui64>
    %12 = "stablehlo.constant"() {value = dense<548> : tensor<ui64>} : () -> tensor<ui64>
    %13 = "stablehlo.compare"(%arg15, %11) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %14 = "stablehlo.compare"(%arg15, %12) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %15 = "stablehlo.and"(%13, %14) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %16 = "stablehlo.constant"() {value = dense<548> : tensor<ui64>} : () -> tensor<ui64>
    %17 = "stablehlo.constant"() {value = dense<676> : tensor<ui64>} : () -> tensor<ui64>
    %18 = "stablehlo.compare"(%arg15, %16) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %19 = "stablehlo.compare"(%arg15, %17) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %20 = "stablehlo.and"(%18, %19) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %21 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %22 = "stablehlo.constant"() {value = dense<0> : tensor<ui64>} : () -> tensor<ui64>
    %23 = "stablehlo.constant"() {value = dense<1> : tensor<ui64>} : () -> tensor<ui64>
    %24 = "stablehlo.compare"(%arg16, %22) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %25 = "stablehlo.compare"(%arg16, %23) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %26 = "stablehlo.and"(%24, %25) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %27 = "stablehlo.constant"() {value = dense<1> : tensor<ui64>} : () -> tensor<ui64>
    %28 = "stablehlo.constant"() {value = dense<33> : tensor<ui64>} : () -> tensor<ui64>
    %29 = "stablehlo.compare"(%arg16, %27) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %30 = "stablehlo.compare"(%arg16, %28) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %31 = "stablehlo.and"(%29, %30) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %32 = "stablehlo.constant"() {value = dense<33> : tensor<ui64>} : () -> tensor<ui64>
    %33 = "stablehlo.constant"() {value = dense<545> : tensor<ui64>} : () -> tensor<ui64>
    %34 = "stablehlo.compare"(%arg16, %32) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %35 = "stablehlo.compare"(%arg16, %33) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %36 = "stablehlo.and"(%34, %35) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %37 = "stablehlo.constant"() {value = dense<545> : tensor<ui64>} : () -> tensor<ui64>
    %38 = "stablehlo.constant"() {value = dense<549> : tensor<ui64>} : () -> tensor<ui64>
    %39 = "stablehlo.compare"(%arg16, %37) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %40 = "stablehlo.compare"(%arg16, %38) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %41 = "stablehlo.and"(%39, %40) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %42 = "stablehlo.constant"() {value = dense<549> : tensor<ui64>} : () -> tensor<ui64>
    %43 = "stablehlo.constant"() {value = dense<677> : tensor<ui64>} : () -> tensor<ui64>
    %44 = "stablehlo.compare"(%arg16, %42) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %45 = "stablehlo.compare"(%arg16, %43) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %46 = "stablehlo.and"(%44, %45) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %47 = "stablehlo.constant"() {value = dense<677> : tensor<ui64>} : () -> tensor<ui64>
    %48 = "stablehlo.constant"() {value = dense<709> : tensor<ui64>} : () -> tensor<ui64>
    %49 = "stablehlo.compare"(%arg16, %47) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %50 = "stablehlo.compare"(%arg16, %48) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %51 = "stablehlo.and"(%49, %50) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %52 = "stablehlo.constant"() {value = dense<709> : tensor<ui64>} : () -> tensor<ui64>
    %53 = "stablehlo.constant"() {value = dense<1221> : tensor<ui64>} : () -> tensor<ui64>
    %54 = "stablehlo.compare"(%arg16, %52) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %55 = "stablehlo.compare"(%arg16, %53) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %56 = "stablehlo.and"(%54, %55) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %57 = "stablehlo.constant"() {value = dense<1221> : tensor<ui64>} : () -> tensor<ui64>
    %58 = "stablehlo.constant"() {value = dense<1225> : tensor<ui64>} : () -> tensor<ui64>
    %59 = "stablehlo.compare"(%arg16, %57) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %60 = "stablehlo.compare"(%arg16, %58) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %61 = "stablehlo.and"(%59, %60) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %62 = "stablehlo.constant"() {value = dense<1225> : tensor<ui64>} : () -> tensor<ui64>
    %63 = "stablehlo.constant"() {value = dense<1353> : tensor<ui64>} : () -> tensor<ui64>
    %64 = "stablehlo.compare"(%arg16, %62) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %65 = "stablehlo.compare"(%arg16, %63) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %66 = "stablehlo.and"(%64, %65) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %67 = "stablehlo.constant"() {value = dense<1353> : tensor<ui64>} : () -> tensor<ui64>
    %68 = "stablehlo.constant"() {value = dense<1354> : tensor<ui64>} : () -> tensor<ui64>
    %69 = "stablehlo.compare"(%arg16, %67) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %70 = "stablehlo.compare"(%arg16, %68) {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    %71 = "stablehlo.and"(%69, %70) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %72 = "stablehlo.or"(%5, %10) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %73 = "stablehlo.or"(%72, %15) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %74 = "stablehlo.or"(%73, %20) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %75 = "stablehlo.or"(%74, %31) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %76 = "stablehlo.or"(%75, %36) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %77 = "stablehlo.or"(%76, %41) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %78 = "stablehlo.or"(%77, %46) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %79 = "stablehlo.or"(%78, %51) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %80 = "stablehlo.or"(%79, %56) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %81 = "stablehlo.or"(%80, %61) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %82 = "stablehlo.or"(%81, %66) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %83:13 = "stablehlo.if"(%82) ({
      %493 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %494 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %495 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
      %496 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %497 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
      %498 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %499 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
      %500 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
      %501 = "stablehlo.slice"(%arg14) <{limit_indices = array<i64: 8, 16>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<9x17xui32>) -> tensor<8x16xui32>
      %502 = "stablehlo.bitcast_convert"(%501) : (tensor<8x16xui32>) -> tensor<8x16xf32>
      %503 = "stablehlo.slice"(%arg14) <{limit_indices = array<i64: 8, 17>, start_indices = array<i64: 0, 16>, strides = array<i64: 1, 1>}> : (tensor<9x17xui32>) -> tensor<8x1xui32>
      %504 = "stablehlo.bitcast_convert"(%503) : (tensor<8x1xui32>) -> tensor<8x1xi32>
      %505 = "stablehlo.reshape"(%504) : (tensor<8x1xi32>) -> tensor<8xi32>
      %506 = "stablehlo.dot_general"(%502, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
      %507 = "stablehlo.reshape"(%arg0) : (tensor<32xf32>) -> tensor<1x32xf32>
      %508 = "stablehlo.broadcast_in_dim"(%507) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x32xf32>) -> tensor<8x32xf32>
      %509 = "stablehlo.add"(%506, %508) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %510 = "stablehlo.multiply"(%509, %509) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %511 = "stablehlo.multiply"(%510, %509) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %512 = "stablehlo.broadcast_in_dim"(%500) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
      %513 = "stablehlo.multiply"(%512, %511) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %514 = "stablehlo.add"(%509, %513) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %515 = "stablehlo.broadcast_in_dim"(%499) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
      %516 = "stablehlo.multiply"(%515, %514) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %517 = "stablehlo.tanh"(%516) : (tensor<8x32xf32>) -> tensor<8x32xf32>
      %518 = "stablehlo.broadcast_in_dim"(%498) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
      %519 = "stablehlo.add"(%518, %517) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %520 = "stablehlo.broadcast_in_dim"(%497) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
      %521 = "stablehlo.multiply"(%520, %519) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %522 = "stablehlo.multiply"(%509, %521) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %523 = "stablehlo.dot_general"(%522, %arg3) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
      %524 = "stablehlo.reshape"(%arg2) : (tensor<4xf32>) -> tensor<1x4xf32>
      %525 = "stablehlo.broadcast_in_dim"(%524) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x4xf32>) -> tensor<8x4xf32>
      %526 = "stablehlo.add"(%523, %525) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
      %527 = "stablehlo.broadcast_in_dim"(%505) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xi32>) -> tensor<8x1xi32>
      %528 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
      %529 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %530 = "stablehlo.broadcast_in_dim"(%529) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8x1xi32>
      %531 = "stablehlo.compare"(%527, %530) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi1>
      %532 = "stablehlo.broadcast_in_dim"(%528) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8x1xi32>
      %533 = "stablehlo.add"(%527, %532) : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi32>
      %534 = "stablehlo.select"(%531, %533, %527) : (tensor<8x1xi1>, tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi32>
      %535 = "stablehlo.reshape"(%534) : (tensor<8x1xi32>) -> tensor<8x1x1xi32>
      %536 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %537 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %538 = "stablehlo.compare"(%496, %537) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %539 = "stablehlo.add"(%496, %536) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %540 = "stablehlo.select"(%538, %539, %496) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      %541 = "stablehlo.broadcast_in_dim"(%540) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<1xi32>
      %542 = "stablehlo.reduce"(%526, %495) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg27: tensor<f32>, %arg28: tensor<f32>):
        %578 = "stablehlo.maximum"(%arg27, %arg28) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%578) : (tensor<f32>) -> ()
      }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
      %543 = "stablehlo.broadcast_in_dim"(%495) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
      %544 = "stablehlo.maximum"(%543, %542) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %545 = "stablehlo.is_finite"(%544) : (tensor<8xf32>) -> tensor<8xi1>
      %546 = "stablehlo.broadcast_in_dim"(%494) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
      %547 = "stablehlo.select"(%545, %544, %546) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %548 = "stablehlo.broadcast_in_dim"(%547) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x1xf32>
      %549 = "stablehlo.broadcast_in_dim"(%548) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<8x1xf32>) -> tensor<8x4xf32>
      %550 = "stablehlo.subtract"(%526, %549) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
      %551 = "stablehlo.exponential"(%550) : (tensor<8x4xf32>) -> tensor<8x4xf32>
      %552 = "stablehlo.reduce"(%551, %494) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg25: tensor<f32>, %arg26: tensor<f32>):
        %577 = "stablehlo.add"(%arg25, %arg26) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%577) : (tensor<f32>) -> ()
      }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
      %553 = "stablehlo.abs"(%552) : (tensor<8xf32>) -> tensor<8xf32>
      %554 = "stablehlo.broadcast_in_dim"(%494) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
      %555 = "stablehlo.compare"(%552, %554) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
      %556 = "stablehlo.divide"(%498, %493) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %557 = "stablehlo.broadcast_in_dim"(%556) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
      %558 = "stablehlo.negate"(%557) : (tensor<8xf32>) -> tensor<8xf32>
      %559 = "stablehlo.divide"(%557, %553) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %560 = "stablehlo.broadcast_in_dim"(%494) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
      %561 = "stablehlo.select"(%555, %560, %559) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %562 = "stablehlo.select"(%555, %559, %560) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %563 = "stablehlo.negate"(%561) : (tensor<8xf32>) -> tensor<8xf32>
      %564 = "stablehlo.add"(%562, %563) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %565 = "stablehlo.broadcast_in_dim"(%564) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> tensor<8x4xf32>
      %566 = "stablehlo.multiply"(%565, %551) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
      %567 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %568 = "stablehlo.broadcast_in_dim"(%567) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x1xf32>
      %569 = "stablehlo.scatter"(%568, %541, %558) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>}> ({
      ^bb0(%arg23: tensor<f32>, %arg24: tensor<f32>):
        %576 = "stablehlo.add"(%arg23, %arg24) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%576) : (tensor<f32>) -> ()
      }) : (tensor<8x1xf32>, tensor<1xi32>, tensor<8xf32>) -> tensor<8x1xf32>
      %570 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %571 = "stablehlo.broadcast_in_dim"(%570) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x4xf32>
      %572 = "stablehlo.scatter"(%571, %535, %569) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>}> ({
      ^bb0(%arg21: tensor<f32>, %arg22: tensor<f32>):
        %575 = "stablehlo.add"(%arg21, %arg22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%575) : (tensor<f32>) -> ()
      }) : (tensor<8x4xf32>, tensor<8x1x1xi32>, tensor<8x1xf32>) -> tensor<8x4xf32>
      %573 = "stablehlo.add"(%566, %572) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
      %574 = "stablehlo.constant"() {value = dense<0> : tensor<ui64>} : () -> tensor<ui64>
      "stablehlo.return"(%494, %496, %497, %498, %499, %500, %502, %509, %517, %521, %522, %573, %574) : (tensor<f32>, tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<8x16xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x4xf32>, tensor<ui64>) -> ()
    }, {
      %480 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      %481 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %482 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      %483 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      %484 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      %485 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      %486 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<8x16xf32>} : () -> tensor<8x16xf32>
      %487 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<8x32xf32>} : () -> tensor<8x32xf32>
      %488 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<8x32xf32>} : () -> tensor<8x32xf32>
      %489 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<8x32xf32>} : () -> tensor<8x32xf32>
      %490 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<8x32xf32>} : () -> tensor<8x32xf32>
      %491 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<8x4xf32>} : () -> tensor<8x4xf32>
      %492 = "stablehlo.constant"() {value = dense<0> : tensor<ui64>} : () -> tensor<ui64>
      "stablehlo.return"(%480, %481, %482, %483, %484, %485, %486, %487, %488, %489, %490, %491, %492) : (tensor<f32>, tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<8x16xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x4xf32>, tensor<ui64>) -> ()
    }) {zkdv.delta_leaves = array<i64: 0, 1, 2, 3>, zkdv.state_leaves = array<i64: 1, 2, 3, 4, 5, 6, 7, 8>} : (tensor<i1>) -> (tensor<f32>, tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<8x16xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x4xf32>, tensor<ui64>)
    %84 = "stablehlo.or"(%5, %10) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %85 = "stablehlo.or"(%84, %15) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %86 = "stablehlo.or"(%85, %20) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %87 = "stablehlo.or"(%86, %51) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %88 = "stablehlo.or"(%87, %56) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %89 = "stablehlo.or"(%88, %61) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %90 = "stablehlo.or"(%89, %66) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %91:2 = "stablehlo.if"(%90) ({
      %478 = "stablehlo.constant"() <{value = dense<9.990000e-01> : tensor<f32>}> : () -> tensor<f32>
      %479 = "stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
      "stablehlo.return"(%478, %479) : (tensor<f32>, tensor<f32>) -> ()
    }, {
      %476 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      %477 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%476, %477) : (tensor<f32>, tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64: 0, 1, 2, 3>, zkdv.state_leaves = array<i64: 5, 6, 7, 8>} : (tensor<i1>) -> (tensor<f32>, tensor<f32>)
    %92 = "stablehlo.or"(%5, %10) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %93 = "stablehlo.or"(%92, %15) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %94 = "stablehlo.or"(%93, %20) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %95 = "stablehlo.or"(%94, %31) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %96 = "stablehlo.or"(%95, %36) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %97 = "stablehlo.or"(%96, %41) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %98 = "stablehlo.or"(%97, %46) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %99:2 = "stablehlo.if"(%98) ({
      %474 = "stablehlo.constant"() <{value = dense<0.899999976> : tensor<f32>}> : () -> tensor<f32>
      %475 = "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
      "stablehlo.return"(%474, %475) : (tensor<f32>, tensor<f32>) -> ()
    }, {
      %472 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      %473 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%472, %473) : (tensor<f32>, tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64: 0, 1, 2, 3>, zkdv.state_leaves = array<i64: 1, 2, 3, 4>} : (tensor<i1>) -> (tensor<f32>, tensor<f32>)
    %100 = "stablehlo.or"(%5, %10) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %101 = "stablehlo.or"(%100, %15) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %102 = "stablehlo.or"(%101, %20) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %103 = "stablehlo.or"(%102, %26) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %104 = "stablehlo.or"(%103, %71) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %105:2 = "stablehlo.if"(%104) ({
      %470 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %471 = "stablehlo.constant"() <{value = dense<2147483647> : tensor<i32>}> : () -> tensor<i32>
      "stablehlo.return"(%470, %471) : (tensor<i32>, tensor<i32>) -> ()
    }, {
      %468 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      %469 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%468, %469) : (tensor<i32>, tensor<i32>) -> ()
    }) {zkdv.delta_leaves = array<i64: 0, 1, 2, 3>, zkdv.state_leaves = array<i64: 0, 9>} : (tensor<i1>) -> (tensor<i32>, tensor<i32>)
    %106 = "stablehlo.or"(%5, %10) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %107 = "stablehlo.or"(%106, %31) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %108 = "stablehlo.or"(%107, %36) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %109 = "stablehlo.or"(%108, %51) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %110 = "stablehlo.or"(%109, %56) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %111 = "stablehlo.if"(%110) ({
      %446 = "stablehlo.constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %447 = "stablehlo.multiply"(%83#7, %83#7) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %448 = "stablehlo.broadcast_in_dim"(%446) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
      %449 = "stablehlo.multiply"(%448, %447) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %450 = "stablehlo.broadcast_in_dim"(%83#3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
      %451 = "stablehlo.add"(%450, %83#8) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %452 = "stablehlo.broadcast_in_dim"(%83#3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
      %453 = "stablehlo.subtract"(%452, %83#8) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %454 = "stablehlo.multiply"(%451, %453) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %455 = "stablehlo.dot_general"(%83#11, %arg3) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}> : (tensor<8x4xf32>, tensor<32x4xf32>) -> tensor<8x32xf32>
      %456 = "stablehlo.multiply"(%83#7, %455) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %457 = "stablehlo.multiply"(%455, %83#9) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %458 = "stablehlo.broadcast_in_dim"(%83#2) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
      %459 = "stablehlo.multiply"(%458, %456) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %460 = "stablehlo.multiply"(%459, %454) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %461 = "stablehlo.broadcast_in_dim"(%83#4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
      %462 = "stablehlo.multiply"(%461, %460) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %463 = "stablehlo.add"(%457, %462) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %464 = "stablehlo.broadcast_in_dim"(%83#5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x32xf32>
      %465 = "stablehlo.multiply"(%464, %462) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %466 = "stablehlo.multiply"(%465, %449) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %467 = "stablehlo.add"(%463, %466) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      "stablehlo.return"(%467) : (tensor<8x32xf32>) -> ()
    }, {
      %445 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<8x32xf32>} : () -> tensor<8x32xf32>
      "stablehlo.return"(%445) : (tensor<8x32xf32>) -> ()
    }) {zkdv.delta_leaves = array<i64: 0, 1>, zkdv.state_leaves = array<i64: 1, 2, 5, 6>} : (tensor<i1>) -> tensor<8x32xf32>
    %112 = "stablehlo.or"(%5, %10) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %113 = "stablehlo.or"(%112, %15) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %114 = "stablehlo.or"(%113, %20) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %115 = "stablehlo.or"(%114, %26) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %116 = "stablehlo.if"(%115) ({
      %442 = "stablehlo.compare"(%arg4, %105#1) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %443 = "stablehlo.add"(%arg4, %105#0) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %444 = "stablehlo.select"(%442, %443, %105#1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%444) : (tensor<i32>) -> ()
    }, {
      %441 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
      "stablehlo.return"(%441) : (tensor<i32>) -> ()
    }) {zkdv.delta_leaves = array<i64: 0, 1, 2, 3>, zkdv.state_leaves = array<i64: 0>} : (tensor<i1>) -> tensor<i32>
    %117 = "stablehlo.or"(%5, %10) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %118 = "stablehlo.or"(%117, %15) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %119 = "stablehlo.or"(%118, %20) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %120:4 = "stablehlo.if"(%119) ({
      %418 = "stablehlo.constant"() <{value = dense<-1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %419 = "stablehlo.constant"() <{value = dense<0.00999999977> : tensor<f32>}> : () -> tensor<f32>
      %420 = "stablehlo.constant"() <{value = dense<-0.00999999977> : tensor<f32>}> : () -> tensor<f32>
      %421 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %422 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %423 = "stablehlo.constant"() <{value = dense<9.99999993E-9> : tensor<f32>}> : () -> tensor<f32>
      %424 = "stablehlo.convert"(%116) : (tensor<i32>) -> tensor<f32>
      %425 = "stablehlo.power"(%99#0, %424) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %426 = "stablehlo.subtract"(%83#3, %425) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %427 = "stablehlo.convert"(%116) : (tensor<i32>) -> tensor<f32>
      %428 = "stablehlo.power"(%91#0, %427) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %429 = "stablehlo.subtract"(%83#3, %428) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %430 = "stablehlo.subtract"(%arg13, %83#1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %431 = "stablehlo.convert"(%83#1) : (tensor<i32>) -> tensor<i32>
      %432 = "stablehlo.maximum"(%431, %430) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %433 = "stablehlo.convert"(%422) : (tensor<i32>) -> tensor<i32>
      %434 = "stablehlo.minimum"(%433, %432) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %435 = "stablehlo.convert"(%434) : (tensor<i32>) -> tensor<f32>
      %436 = "stablehlo.divide"(%435, %421) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %437 = "stablehlo.subtract"(%83#3, %436) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %438 = "stablehlo.multiply"(%420, %437) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %439 = "stablehlo.add"(%438, %419) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %440 = "stablehlo.multiply"(%418, %439) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%423, %426, %429, %440) : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> ()
    }, {
      %414 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      %415 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      %416 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      %417 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%414, %415, %416, %417) : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64: 0, 1, 2, 3>, zkdv.state_leaves = array<i64>} : (tensor<i1>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
    %121 = "stablehlo.or"(%15, %41) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %122 = "stablehlo.or"(%121, %61) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %123:2 = "stablehlo.if"(%122) ({
      %411 = "stablehlo.reduce"(%83#11, %83#0) <{dimensions = array<i64: 0>}> ({
      ^bb0(%arg19: tensor<f32>, %arg20: tensor<f32>):
        %413 = "stablehlo.add"(%arg19, %arg20) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%413) : (tensor<f32>) -> ()
      }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
      %412 = "stablehlo.constant"() {value = dense<3> : tensor<ui64>} : () -> tensor<ui64>
      "stablehlo.return"(%411, %412) : (tensor<4xf32>, tensor<ui64>) -> ()
    }, {
      %409 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<4xf32>} : () -> tensor<4xf32>
      %410 = "stablehlo.constant"() {value = dense<0> : tensor<ui64>} : () -> tensor<ui64>
      "stablehlo.return"(%409, %410) : (tensor<4xf32>, tensor<ui64>) -> ()
    }) {zkdv.delta_leaves = array<i64: 2>, zkdv.state_leaves = array<i64: 3, 7>} : (tensor<i1>) -> (tensor<4xf32>, tensor<ui64>)
    %124 = "stablehlo.or"(%5, %31) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %125 = "stablehlo.or"(%124, %51) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %126:2 = "stablehlo.if"(%125) ({
      %406 = "stablehlo.reduce"(%111, %83#0) <{dimensions = array<i64: 0>}> ({
      ^bb0(%arg17: tensor<f32>, %arg18: tensor<f32>):
        %408 = "stablehlo.add"(%arg17, %arg18) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%408) : (tensor<f32>) -> ()
      }) : (tensor<8x32xf32>, tensor<f32>) -> tensor<32xf32>
      %407 = "stablehlo.constant"() {value = dense<31> : tensor<ui64>} : () -> tensor<ui64>
      "stablehlo.return"(%406, %407) : (tensor<32xf32>, tensor<ui64>) -> ()
    }, {
      %404 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<32xf32>} : () -> tensor<32xf32>
      %405 = "stablehlo.constant"() {value = dense<0> : tensor<ui64>} : () -> tensor<ui64>
      "stablehlo.return"(%404, %405) : (tensor<32xf32>, tensor<ui64>) -> ()
    }) {zkdv.delta_leaves = array<i64: 0>, zkdv.state_leaves = array<i64: 1, 5>} : (tensor<i1>) -> (tensor<32xf32>, tensor<ui64>)
    %127 = "stablehlo.or"(%10, %36) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %128 = "stablehlo.or"(%127, %56) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %129:2 = "stablehlo.if"(%128) ({
      %402 = "stablehlo.constant"() {value = dense<511> : tensor<ui64>} : () -> tensor<ui64>
      %403 = "stablehlo.constant"() {value = dense<32> : tensor<ui64>} : () -> tensor<ui64>
      "stablehlo.return"(%402, %403) : (tensor<ui64>, tensor<ui64>) -> ()
    }, {
      %400 = "stablehlo.constant"() {value = dense<0> : tensor<ui64>} : () -> tensor<ui64>
      %401 = "stablehlo.constant"() {value = dense<0> : tensor<ui64>} : () -> tensor<ui64>
      "stablehlo.return"(%400, %401) : (tensor<ui64>, tensor<ui64>) -> ()
    }) {zkdv.delta_leaves = array<i64: 1>, zkdv.state_leaves = array<i64: 2, 6>} : (tensor<i1>) -> (tensor<ui64>, tensor<ui64>)
    %130 = "stablehlo.or"(%20, %46) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %131 = "stablehlo.or"(%130, %66) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %132:2 = "stablehlo.if"(%131) ({
      %398 = "stablehlo.constant"() {value = dense<127> : tensor<ui64>} : () -> tensor<ui64>
      %399 = "stablehlo.constant"() {value = dense<4> : tensor<ui64>} : () -> tensor<ui64>
      "stablehlo.return"(%398, %399) : (tensor<ui64>, tensor<ui64>) -> ()
    }, {
      %396 = "stablehlo.constant"() {value = dense<0> : tensor<ui64>} : () -> tensor<ui64>
      %397 = "stablehlo.constant"() {value = dense<0> : tensor<ui64>} : () -> tensor<ui64>
      "stablehlo.return"(%396, %397) : (tensor<ui64>, tensor<ui64>) -> ()
    }) {zkdv.delta_leaves = array<i64: 3>, zkdv.state_leaves = array<i64: 4, 8>} : (tensor<i1>) -> (tensor<ui64>, tensor<ui64>)
    %133 = "stablehlo.if"(%71) ({
      %390 = "stablehlo.compare"(%arg13, %105#1) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %391 = "stablehlo.add"(%arg13, %105#0) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %392 = "stablehlo.select"(%390, %391, %105#1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      %393 = "stablehlo.reshape"(%392) : (tensor<i32>) -> tensor<1xi32>
      %394 = "stablehlo.reshape"(%393) : (tensor<1xi32>) -> tensor<i32>
      %395 = "stablehlo.convert"(%394) : (tensor<i32>) -> tensor<f32>
      "stablehlo.return"(%395) : (tensor<f32>) -> ()
    }, {
      %389 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%389) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64>, zkdv.state_leaves = array<i64: 9>} : (tensor<i1>) -> tensor<f32>
    %134 = "stablehlo.if"(%5) ({
      %365 = "stablehlo.subtract"(%arg15, %1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %366 = "stablehlo.clamp"(%83#12, %365, %126#1) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %367 = "stablehlo.dynamic_slice"(%126#0, %366) {slice_sizes = array<i64: 1>} : (tensor<32xf32>, tensor<ui64>) -> tensor<1xf32>
      %368 = "stablehlo.reshape"(%367) : (tensor<1xf32>) -> tensor<f32>
      %369 = "stablehlo.multiply"(%99#1, %368) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %370 = "stablehlo.dynamic_slice"(%arg5, %366) {slice_sizes = array<i64: 1>} : (tensor<32xf32>, tensor<ui64>) -> tensor<1xf32>
      %371 = "stablehlo.reshape"(%370) : (tensor<1xf32>) -> tensor<f32>
      %372 = "stablehlo.multiply"(%99#0, %371) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %373 = "stablehlo.add"(%369, %372) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %374 = "stablehlo.divide"(%373, %120#1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %375 = "stablehlo.multiply"(%368, %368) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %376 = "stablehlo.multiply"(%91#1, %375) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %377 = "stablehlo.dynamic_slice"(%arg9, %366) {slice_sizes = array<i64: 1>} : (tensor<32xf32>, tensor<ui64>) -> tensor<1xf32>
      %378 = "stablehlo.reshape"(%377) : (tensor<1xf32>) -> tensor<f32>
      %379 = "stablehlo.multiply"(%91#0, %378) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %380 = "stablehlo.add"(%376, %379) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %381 = "stablehlo.divide"(%380, %120#2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %382 = "stablehlo.add"(%381, %83#0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %383 = "stablehlo.sqrt"(%382) : (tensor<f32>) -> tensor<f32>
      %384 = "stablehlo.add"(%383, %120#0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %385 = "stablehlo.divide"(%374, %384) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %386 = "stablehlo.multiply"(%120#3, %385) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %387 = "stablehlo.reshape"(%386) : (tensor<f32>) -> tensor<1xf32>
      %388 = "stablehlo.reshape"(%387) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%388) : (tensor<f32>) -> ()
    }, {
      %364 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%364) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64: 0>, zkdv.state_leaves = array<i64>} : (tensor<i1>) -> tensor<f32>
    %135 = "stablehlo.if"(%10) ({
      %336 = "stablehlo.subtract"(%arg15, %6) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %337 = "stablehlo.clamp"(%83#12, %336, %129#0) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %338 = "stablehlo.remainder"(%337, %129#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %339 = "stablehlo.divide"(%337, %129#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %340 = "stablehlo.dynamic_slice"(%111, %83#12, %338) {slice_sizes = array<i64: 8, 1>} : (tensor<8x32xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %341 = "stablehlo.dynamic_slice"(%83#6, %83#12, %339) {slice_sizes = array<i64: 8, 1>} : (tensor<8x16xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %342 = "stablehlo.dot_general"(%340, %341) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<1x1xf32>
      %343 = "stablehlo.reshape"(%342) : (tensor<1x1xf32>) -> tensor<f32>
      %344 = "stablehlo.multiply"(%99#1, %343) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %345 = "stablehlo.dynamic_slice"(%arg6, %339, %338) {slice_sizes = array<i64: 1, 1>} : (tensor<16x32xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>
      %346 = "stablehlo.reshape"(%345) : (tensor<1x1xf32>) -> tensor<f32>
      %347 = "stablehlo.multiply"(%99#0, %346) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %348 = "stablehlo.add"(%344, %347) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %349 = "stablehlo.divide"(%348, %120#1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %350 = "stablehlo.multiply"(%343, %343) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %351 = "stablehlo.multiply"(%91#1, %350) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %352 = "stablehlo.dynamic_slice"(%arg10, %339, %338) {slice_sizes = array<i64: 1, 1>} : (tensor<16x32xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>
      %353 = "stablehlo.reshape"(%352) : (tensor<1x1xf32>) -> tensor<f32>
      %354 = "stablehlo.multiply"(%91#0, %353) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %355 = "stablehlo.add"(%351, %354) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %356 = "stablehlo.divide"(%355, %120#2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %357 = "stablehlo.add"(%356, %83#0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %358 = "stablehlo.sqrt"(%357) : (tensor<f32>) -> tensor<f32>
      %359 = "stablehlo.add"(%358, %120#0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %360 = "stablehlo.divide"(%349, %359) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %361 = "stablehlo.multiply"(%120#3, %360) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %362 = "stablehlo.reshape"(%361) : (tensor<f32>) -> tensor<1xf32>
      %363 = "stablehlo.reshape"(%362) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%363) : (tensor<f32>) -> ()
    }, {
      %335 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%335) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64: 1>, zkdv.state_leaves = array<i64>} : (tensor<i1>) -> tensor<f32>
    %136 = "stablehlo.if"(%15) ({
      %311 = "stablehlo.subtract"(%arg15, %11) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %312 = "stablehlo.clamp"(%83#12, %311, %123#1) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %313 = "stablehlo.dynamic_slice"(%123#0, %312) {slice_sizes = array<i64: 1>} : (tensor<4xf32>, tensor<ui64>) -> tensor<1xf32>
      %314 = "stablehlo.reshape"(%313) : (tensor<1xf32>) -> tensor<f32>
      %315 = "stablehlo.multiply"(%99#1, %314) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %316 = "stablehlo.dynamic_slice"(%arg7, %312) {slice_sizes = array<i64: 1>} : (tensor<4xf32>, tensor<ui64>) -> tensor<1xf32>
      %317 = "stablehlo.reshape"(%316) : (tensor<1xf32>) -> tensor<f32>
      %318 = "stablehlo.multiply"(%99#0, %317) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %319 = "stablehlo.add"(%315, %318) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %320 = "stablehlo.divide"(%319, %120#1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %321 = "stablehlo.multiply"(%314, %314) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %322 = "stablehlo.multiply"(%91#1, %321) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %323 = "stablehlo.dynamic_slice"(%arg11, %312) {slice_sizes = array<i64: 1>} : (tensor<4xf32>, tensor<ui64>) -> tensor<1xf32>
      %324 = "stablehlo.reshape"(%323) : (tensor<1xf32>) -> tensor<f32>
      %325 = "stablehlo.multiply"(%91#0, %324) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %326 = "stablehlo.add"(%322, %325) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %327 = "stablehlo.divide"(%326, %120#2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %328 = "stablehlo.add"(%327, %83#0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %329 = "stablehlo.sqrt"(%328) : (tensor<f32>) -> tensor<f32>
      %330 = "stablehlo.add"(%329, %120#0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %331 = "stablehlo.divide"(%320, %330) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %332 = "stablehlo.multiply"(%120#3, %331) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %333 = "stablehlo.reshape"(%332) : (tensor<f32>) -> tensor<1xf32>
      %334 = "stablehlo.reshape"(%333) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%334) : (tensor<f32>) -> ()
    }, {
      %310 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%310) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64: 2>, zkdv.state_leaves = array<i64>} : (tensor<i1>) -> tensor<f32>
    %137 = "stablehlo.if"(%20) ({
      %282 = "stablehlo.subtract"(%arg15, %16) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %283 = "stablehlo.clamp"(%83#12, %282, %132#0) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %284 = "stablehlo.remainder"(%283, %132#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %285 = "stablehlo.divide"(%283, %132#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %286 = "stablehlo.dynamic_slice"(%83#11, %83#12, %284) {slice_sizes = array<i64: 8, 1>} : (tensor<8x4xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %287 = "stablehlo.dynamic_slice"(%83#10, %83#12, %285) {slice_sizes = array<i64: 8, 1>} : (tensor<8x32xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %288 = "stablehlo.dot_general"(%286, %287) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<1x1xf32>
      %289 = "stablehlo.reshape"(%288) : (tensor<1x1xf32>) -> tensor<f32>
      %290 = "stablehlo.multiply"(%99#1, %289) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %291 = "stablehlo.dynamic_slice"(%arg8, %285, %284) {slice_sizes = array<i64: 1, 1>} : (tensor<32x4xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>
      %292 = "stablehlo.reshape"(%291) : (tensor<1x1xf32>) -> tensor<f32>
      %293 = "stablehlo.multiply"(%99#0, %292) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %294 = "stablehlo.add"(%290, %293) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %295 = "stablehlo.divide"(%294, %120#1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %296 = "stablehlo.multiply"(%289, %289) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %297 = "stablehlo.multiply"(%91#1, %296) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %298 = "stablehlo.dynamic_slice"(%arg12, %285, %284) {slice_sizes = array<i64: 1, 1>} : (tensor<32x4xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>
      %299 = "stablehlo.reshape"(%298) : (tensor<1x1xf32>) -> tensor<f32>
      %300 = "stablehlo.multiply"(%91#0, %299) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %301 = "stablehlo.add"(%297, %300) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %302 = "stablehlo.divide"(%301, %120#2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %303 = "stablehlo.add"(%302, %83#0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %304 = "stablehlo.sqrt"(%303) : (tensor<f32>) -> tensor<f32>
      %305 = "stablehlo.add"(%304, %120#0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %306 = "stablehlo.divide"(%295, %305) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %307 = "stablehlo.multiply"(%120#3, %306) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %308 = "stablehlo.reshape"(%307) : (tensor<f32>) -> tensor<1xf32>
      %309 = "stablehlo.reshape"(%308) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%309) : (tensor<f32>) -> ()
    }, {
      %281 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%281) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64: 3>, zkdv.state_leaves = array<i64>} : (tensor<i1>) -> tensor<f32>
    %138 = "stablehlo.if"(%26) ({
      %278 = "stablehlo.reshape"(%116) : (tensor<i32>) -> tensor<1xi32>
      %279 = "stablehlo.reshape"(%278) : (tensor<1xi32>) -> tensor<i32>
      %280 = "stablehlo.convert"(%279) : (tensor<i32>) -> tensor<f32>
      "stablehlo.return"(%280) : (tensor<f32>) -> ()
    }, {
      %277 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%277) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64>, zkdv.state_leaves = array<i64: 0>} : (tensor<i1>) -> tensor<f32>
    %139 = "stablehlo.if"(%31) ({
      %266 = "stablehlo.subtract"(%arg16, %27) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %267 = "stablehlo.clamp"(%83#12, %266, %126#1) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %268 = "stablehlo.dynamic_slice"(%126#0, %267) {slice_sizes = array<i64: 1>} : (tensor<32xf32>, tensor<ui64>) -> tensor<1xf32>
      %269 = "stablehlo.reshape"(%268) : (tensor<1xf32>) -> tensor<f32>
      %270 = "stablehlo.multiply"(%99#1, %269) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %271 = "stablehlo.dynamic_slice"(%arg5, %267) {slice_sizes = array<i64: 1>} : (tensor<32xf32>, tensor<ui64>) -> tensor<1xf32>
      %272 = "stablehlo.reshape"(%271) : (tensor<1xf32>) -> tensor<f32>
      %273 = "stablehlo.multiply"(%99#0, %272) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %274 = "stablehlo.add"(%270, %273) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %275 = "stablehlo.reshape"(%274) : (tensor<f32>) -> tensor<1xf32>
      %276 = "stablehlo.reshape"(%275) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%276) : (tensor<f32>) -> ()
    }, {
      %265 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%265) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64>, zkdv.state_leaves = array<i64: 1>} : (tensor<i1>) -> tensor<f32>
    %140 = "stablehlo.if"(%36) ({
      %250 = "stablehlo.subtract"(%arg16, %32) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %251 = "stablehlo.clamp"(%83#12, %250, %129#0) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %252 = "stablehlo.remainder"(%251, %129#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %253 = "stablehlo.divide"(%251, %129#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %254 = "stablehlo.dynamic_slice"(%111, %83#12, %252) {slice_sizes = array<i64: 8, 1>} : (tensor<8x32xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %255 = "stablehlo.dynamic_slice"(%83#6, %83#12, %253) {slice_sizes = array<i64: 8, 1>} : (tensor<8x16xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %256 = "stablehlo.dot_general"(%254, %255) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<1x1xf32>
      %257 = "stablehlo.reshape"(%256) : (tensor<1x1xf32>) -> tensor<f32>
      %258 = "stablehlo.multiply"(%99#1, %257) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %259 = "stablehlo.dynamic_slice"(%arg6, %253, %252) {slice_sizes = array<i64: 1, 1>} : (tensor<16x32xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>
      %260 = "stablehlo.reshape"(%259) : (tensor<1x1xf32>) -> tensor<f32>
      %261 = "stablehlo.multiply"(%99#0, %260) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %262 = "stablehlo.add"(%258, %261) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %263 = "stablehlo.reshape"(%262) : (tensor<f32>) -> tensor<1xf32>
      %264 = "stablehlo.reshape"(%263) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%264) : (tensor<f32>) -> ()
    }, {
      %249 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%249) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64>, zkdv.state_leaves = array<i64: 2>} : (tensor<i1>) -> tensor<f32>
    %141 = "stablehlo.if"(%41) ({
      %238 = "stablehlo.subtract"(%arg16, %37) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %239 = "stablehlo.clamp"(%83#12, %238, %123#1) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %240 = "stablehlo.dynamic_slice"(%123#0, %239) {slice_sizes = array<i64: 1>} : (tensor<4xf32>, tensor<ui64>) -> tensor<1xf32>
      %241 = "stablehlo.reshape"(%240) : (tensor<1xf32>) -> tensor<f32>
      %242 = "stablehlo.multiply"(%99#1, %241) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %243 = "stablehlo.dynamic_slice"(%arg7, %239) {slice_sizes = array<i64: 1>} : (tensor<4xf32>, tensor<ui64>) -> tensor<1xf32>
      %244 = "stablehlo.reshape"(%243) : (tensor<1xf32>) -> tensor<f32>
      %245 = "stablehlo.multiply"(%99#0, %244) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %246 = "stablehlo.add"(%242, %245) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %247 = "stablehlo.reshape"(%246) : (tensor<f32>) -> tensor<1xf32>
      %248 = "stablehlo.reshape"(%247) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%248) : (tensor<f32>) -> ()
    }, {
      %237 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%237) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64>, zkdv.state_leaves = array<i64: 3>} : (tensor<i1>) -> tensor<f32>
    %142 = "stablehlo.if"(%46) ({
      %222 = "stablehlo.subtract"(%arg16, %42) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %223 = "stablehlo.clamp"(%83#12, %222, %132#0) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %224 = "stablehlo.remainder"(%223, %132#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %225 = "stablehlo.divide"(%223, %132#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %226 = "stablehlo.dynamic_slice"(%83#11, %83#12, %224) {slice_sizes = array<i64: 8, 1>} : (tensor<8x4xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %227 = "stablehlo.dynamic_slice"(%83#10, %83#12, %225) {slice_sizes = array<i64: 8, 1>} : (tensor<8x32xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %228 = "stablehlo.dot_general"(%226, %227) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<1x1xf32>
      %229 = "stablehlo.reshape"(%228) : (tensor<1x1xf32>) -> tensor<f32>
      %230 = "stablehlo.multiply"(%99#1, %229) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %231 = "stablehlo.dynamic_slice"(%arg8, %225, %224) {slice_sizes = array<i64: 1, 1>} : (tensor<32x4xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>
      %232 = "stablehlo.reshape"(%231) : (tensor<1x1xf32>) -> tensor<f32>
      %233 = "stablehlo.multiply"(%99#0, %232) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %234 = "stablehlo.add"(%230, %233) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %235 = "stablehlo.reshape"(%234) : (tensor<f32>) -> tensor<1xf32>
      %236 = "stablehlo.reshape"(%235) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%236) : (tensor<f32>) -> ()
    }, {
      %221 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%221) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64>, zkdv.state_leaves = array<i64: 4>} : (tensor<i1>) -> tensor<f32>
    %143 = "stablehlo.if"(%51) ({
      %209 = "stablehlo.subtract"(%arg16, %47) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %210 = "stablehlo.clamp"(%83#12, %209, %126#1) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %211 = "stablehlo.dynamic_slice"(%126#0, %210) {slice_sizes = array<i64: 1>} : (tensor<32xf32>, tensor<ui64>) -> tensor<1xf32>
      %212 = "stablehlo.reshape"(%211) : (tensor<1xf32>) -> tensor<f32>
      %213 = "stablehlo.multiply"(%212, %212) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %214 = "stablehlo.multiply"(%91#1, %213) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %215 = "stablehlo.dynamic_slice"(%arg9, %210) {slice_sizes = array<i64: 1>} : (tensor<32xf32>, tensor<ui64>) -> tensor<1xf32>
      %216 = "stablehlo.reshape"(%215) : (tensor<1xf32>) -> tensor<f32>
      %217 = "stablehlo.multiply"(%91#0, %216) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %218 = "stablehlo.add"(%214, %217) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %219 = "stablehlo.reshape"(%218) : (tensor<f32>) -> tensor<1xf32>
      %220 = "stablehlo.reshape"(%219) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%220) : (tensor<f32>) -> ()
    }, {
      %208 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%208) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64>, zkdv.state_leaves = array<i64: 5>} : (tensor<i1>) -> tensor<f32>
    %144 = "stablehlo.if"(%56) ({
      %192 = "stablehlo.subtract"(%arg16, %52) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %193 = "stablehlo.clamp"(%83#12, %192, %129#0) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %194 = "stablehlo.remainder"(%193, %129#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %195 = "stablehlo.divide"(%193, %129#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %196 = "stablehlo.dynamic_slice"(%111, %83#12, %194) {slice_sizes = array<i64: 8, 1>} : (tensor<8x32xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %197 = "stablehlo.dynamic_slice"(%83#6, %83#12, %195) {slice_sizes = array<i64: 8, 1>} : (tensor<8x16xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %198 = "stablehlo.dot_general"(%196, %197) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<1x1xf32>
      %199 = "stablehlo.reshape"(%198) : (tensor<1x1xf32>) -> tensor<f32>
      %200 = "stablehlo.multiply"(%199, %199) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %201 = "stablehlo.multiply"(%91#1, %200) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %202 = "stablehlo.dynamic_slice"(%arg10, %195, %194) {slice_sizes = array<i64: 1, 1>} : (tensor<16x32xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>
      %203 = "stablehlo.reshape"(%202) : (tensor<1x1xf32>) -> tensor<f32>
      %204 = "stablehlo.multiply"(%91#0, %203) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %205 = "stablehlo.add"(%201, %204) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %206 = "stablehlo.reshape"(%205) : (tensor<f32>) -> tensor<1xf32>
      %207 = "stablehlo.reshape"(%206) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%207) : (tensor<f32>) -> ()
    }, {
      %191 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%191) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64>, zkdv.state_leaves = array<i64: 6>} : (tensor<i1>) -> tensor<f32>
    %145 = "stablehlo.if"(%61) ({
      %179 = "stablehlo.subtract"(%arg16, %57) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %180 = "stablehlo.clamp"(%83#12, %179, %123#1) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %181 = "stablehlo.dynamic_slice"(%123#0, %180) {slice_sizes = array<i64: 1>} : (tensor<4xf32>, tensor<ui64>) -> tensor<1xf32>
      %182 = "stablehlo.reshape"(%181) : (tensor<1xf32>) -> tensor<f32>
      %183 = "stablehlo.multiply"(%182, %182) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %184 = "stablehlo.multiply"(%91#1, %183) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %185 = "stablehlo.dynamic_slice"(%arg11, %180) {slice_sizes = array<i64: 1>} : (tensor<4xf32>, tensor<ui64>) -> tensor<1xf32>
      %186 = "stablehlo.reshape"(%185) : (tensor<1xf32>) -> tensor<f32>
      %187 = "stablehlo.multiply"(%91#0, %186) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %188 = "stablehlo.add"(%184, %187) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %189 = "stablehlo.reshape"(%188) : (tensor<f32>) -> tensor<1xf32>
      %190 = "stablehlo.reshape"(%189) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%190) : (tensor<f32>) -> ()
    }, {
      %178 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%178) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64>, zkdv.state_leaves = array<i64: 7>} : (tensor<i1>) -> tensor<f32>
    %146 = "stablehlo.if"(%66) ({
      %162 = "stablehlo.subtract"(%arg16, %62) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %163 = "stablehlo.clamp"(%83#12, %162, %132#0) : (tensor<ui64>, tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %164 = "stablehlo.remainder"(%163, %132#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %165 = "stablehlo.divide"(%163, %132#1) : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
      %166 = "stablehlo.dynamic_slice"(%83#11, %83#12, %164) {slice_sizes = array<i64: 8, 1>} : (tensor<8x4xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %167 = "stablehlo.dynamic_slice"(%83#10, %83#12, %165) {slice_sizes = array<i64: 8, 1>} : (tensor<8x32xf32>, tensor<ui64>, tensor<ui64>) -> tensor<8x1xf32>
      %168 = "stablehlo.dot_general"(%166, %167) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<1x1xf32>
      %169 = "stablehlo.reshape"(%168) : (tensor<1x1xf32>) -> tensor<f32>
      %170 = "stablehlo.multiply"(%169, %169) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %171 = "stablehlo.multiply"(%91#1, %170) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %172 = "stablehlo.dynamic_slice"(%arg12, %165, %164) {slice_sizes = array<i64: 1, 1>} : (tensor<32x4xf32>, tensor<ui64>, tensor<ui64>) -> tensor<1x1xf32>
      %173 = "stablehlo.reshape"(%172) : (tensor<1x1xf32>) -> tensor<f32>
      %174 = "stablehlo.multiply"(%91#0, %173) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %175 = "stablehlo.add"(%171, %174) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %176 = "stablehlo.reshape"(%175) : (tensor<f32>) -> tensor<1xf32>
      %177 = "stablehlo.reshape"(%176) : (tensor<1xf32>) -> tensor<f32>
      "stablehlo.return"(%177) : (tensor<f32>) -> ()
    }, {
      %161 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
      "stablehlo.return"(%161) : (tensor<f32>) -> ()
    }) {zkdv.delta_leaves = array<i64>, zkdv.state_leaves = array<i64: 8>} : (tensor<i1>) -> tensor<f32>
    %147 = "stablehlo.select"(%5, %134, %0) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %148 = "stablehlo.select"(%10, %135, %147) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %149 = "stablehlo.select"(%15, %136, %148) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %150 = "stablehlo.select"(%20, %137, %149) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %151 = "stablehlo.select"(%26, %138, %21) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %152 = "stablehlo.select"(%31, %139, %151) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %153 = "stablehlo.select"(%36, %140, %152) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %154 = "stablehlo.select"(%41, %141, %153) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %155 = "stablehlo.select"(%46, %142, %154) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %156 = "stablehlo.select"(%51, %143, %155) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %157 = "stablehlo.select"(%56, %144, %156) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %158 = "stablehlo.select"(%61, %145, %157) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %159 = "stablehlo.select"(%66, %146, %158) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %160 = "stablehlo.select"(%71, %133, %159) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%150, %160) : (tensor<f32>, tensor<f32>) -> ()
  }) {zkdv.leaf_counts = array<i64: 4, 10>} : () -> ()
}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

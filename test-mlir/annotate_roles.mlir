// RUN: zkdv-opt --verify-diagnostics --split-input-file --zkdv-annotate-roles %s | FileCheck %s
// RUN: zkdv-opt --help | FileCheck %s --check-prefix=HELP
// HELP: --zkdv-annotate-roles  Mark the entry function's arguments and results with zkdv.role/zkdv.path
//
// The first RUN line infers roles from JAX names in every chunk, and checks
// its errors by their `expected-error` comments (--verify-diagnostics); the
// chunks written for explicit options have no @main, which it reports.
// Chunks that test explicit options carry their own RUN line and check prefix
// (the other chunks then fail with "no function @..." there, which those
// prefixes ignore, so these runs check stderr with FileCheck instead).
// Each case is a module with its own `sym_name`, so CHECK-LABEL can find it.

// Roles inferred as JAX 0.12 exports a step: `result[k]...` names, no
// jax.arg_info; parameters and optimizer state take their post-state's path,
// batch leaves get argN, and tf.aliasing_output is kept.
// CHECK-LABEL: sym_name = "infer_jax_0_12"
// CHECK-NEXT:  "func.func"() <{arg_attrs = [
// CHECK-SAME:    {tf.aliasing_output = 0 : i32, zkdv.path = "Dense_0/bias", zkdv.role = "param"},
// CHECK-SAME:    {tf.aliasing_output = 1 : i32, zkdv.path = "0/count", zkdv.role = "opt_state"},
// CHECK-SAME:    {tf.aliasing_output = 2 : i32, zkdv.path = "0/mu/Dense_0/bias", zkdv.role = "opt_state"},
// CHECK-SAME:    {zkdv.path = "arg3", zkdv.role = "batch"},
// CHECK-SAME:    {zkdv.path = "arg4", zkdv.role = "batch"}]
// CHECK-SAME:  res_attrs = [
// CHECK-SAME:    {jax.result_info = "result[0]['Dense_0']['bias']", zkdv.path = "Dense_0/bias", zkdv.role = "post_param"},
// CHECK-SAME:    {jax.result_info = "result[1][0].count", zkdv.path = "0/count", zkdv.role = "post_opt_state"},
// CHECK-SAME:    {jax.result_info = "result[1][0].mu['Dense_0']['bias']", zkdv.path = "0/mu/Dense_0/bias", zkdv.role = "post_opt_state"},
// CHECK-SAME:    {jax.result_info = "result[2]['Dense_0']['bias']", zkdv.path = "Dense_0/bias", zkdv.role = "delta"},
// CHECK-SAME:    {jax.result_info = "result[3]", zkdv.path = "3", zkdv.role = "user"}]
"builtin.module"() <{sym_name = "infer_jax_0_12"}> ({
  "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32}, {tf.aliasing_output = 1 : i32}, {tf.aliasing_output = 2 : i32}, {}, {}], function_type = (tensor<8xf32>, tensor<i32>, tensor<8xf32>, tensor<4x6xf32>, tensor<4xi32>) -> (tensor<8xf32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>), res_attrs = [{jax.result_info = "result[0]['Dense_0']['bias']"}, {jax.result_info = "result[1][0].count"}, {jax.result_info = "result[1][0].mu['Dense_0']['bias']"}, {jax.result_info = "result[2]['Dense_0']['bias']"}, {jax.result_info = "result[3]"}], sym_name = "main"}> ({
  ^bb0(%b: tensor<8xf32>, %n: tensor<i32>, %mu: tensor<8xf32>, %x: tensor<4x6xf32>, %y: tensor<4xi32>):
    %loss = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    "func.return"(%b, %n, %mu, %b, %loss) : (tensor<8xf32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Roles inferred from `[k]...` result names and jax.arg_info; paths come from jax.arg_info /
// jax.result_info without the leading name or tuple index, and every other
// attribute (mhlo.sharding, tf.aliasing_output) is kept.
// CHECK-LABEL: sym_name = "infer_fixture_abi"
// CHECK-NEXT:  "func.func"() <{arg_attrs = [
// CHECK-SAME:    {jax.arg_info = "params['params']['Dense_0']['kernel']", mhlo.sharding = "{replicated}", zkdv.path = "params/Dense_0/kernel", zkdv.role = "param"},
// CHECK-SAME:    {jax.arg_info = "params['params']['Dense_0']['bias']", zkdv.path = "params/Dense_0/bias", zkdv.role = "param"},
// CHECK-SAME:    {jax.arg_info = "opt_state[0].count", zkdv.path = "0/count", zkdv.role = "opt_state"},
// CHECK-SAME:    {jax.arg_info = "opt_state[0].mu['params']['Dense_0']['kernel']", zkdv.path = "0/mu/params/Dense_0/kernel", zkdv.role = "opt_state"},
// CHECK-SAME:    {jax.arg_info = "batch['x']", zkdv.path = "x", zkdv.role = "batch"},
// CHECK-SAME:    {jax.arg_info = "batch['y']", zkdv.path = "y", zkdv.role = "batch"}]
// CHECK-SAME:  res_attrs = [
// CHECK-SAME:    {jax.result_info = "[0]['params']['Dense_0']['kernel']", tf.aliasing_output = 0 : i32, zkdv.path = "params/Dense_0/kernel", zkdv.role = "post_param"},
// CHECK-SAME:    {jax.result_info = "[0]['params']['Dense_0']['bias']", zkdv.path = "params/Dense_0/bias", zkdv.role = "post_param"},
// CHECK-SAME:    {jax.result_info = "[1][0].count", zkdv.path = "0/count", zkdv.role = "post_opt_state"},
// CHECK-SAME:    {jax.result_info = "[1][0].mu['params']['Dense_0']['kernel']", zkdv.path = "0/mu/params/Dense_0/kernel", zkdv.role = "post_opt_state"},
// CHECK-SAME:    {jax.result_info = "[2]['params']['Dense_0']['kernel']", zkdv.path = "params/Dense_0/kernel", zkdv.role = "delta"},
// CHECK-SAME:    {jax.result_info = "[2]['params']['Dense_0']['bias']", zkdv.path = "params/Dense_0/bias", zkdv.role = "delta"},
// CHECK-SAME:    {jax.result_info = "[3]", zkdv.path = "3", zkdv.role = "user"}]
// CHECK-SAME:  sym_name = "main"
"builtin.module"() <{sym_name = "infer_fixture_abi"}> ({
  "func.func"() <{arg_attrs = [{jax.arg_info = "params['params']['Dense_0']['kernel']", mhlo.sharding = "{replicated}"}, {jax.arg_info = "params['params']['Dense_0']['bias']"}, {jax.arg_info = "opt_state[0].count"}, {jax.arg_info = "opt_state[0].mu['params']['Dense_0']['kernel']"}, {jax.arg_info = "batch['x']"}, {jax.arg_info = "batch['y']"}], function_type = (tensor<2x3xf32>, tensor<3xf32>, tensor<i32>, tensor<2x3xf32>, tensor<4x2xf32>, tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<i32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<f32>), res_attrs = [{jax.result_info = "[0]['params']['Dense_0']['kernel']", tf.aliasing_output = 0 : i32}, {jax.result_info = "[0]['params']['Dense_0']['bias']"}, {jax.result_info = "[1][0].count"}, {jax.result_info = "[1][0].mu['params']['Dense_0']['kernel']"}, {jax.result_info = "[2]['params']['Dense_0']['kernel']"}, {jax.result_info = "[2]['params']['Dense_0']['bias']"}, {jax.result_info = "[3]"}], sym_name = "main"}> ({
  ^bb0(%k: tensor<2x3xf32>, %b: tensor<3xf32>, %n: tensor<i32>, %mu: tensor<2x3xf32>, %x: tensor<4x2xf32>, %y: tensor<4x3xf32>):
    %loss = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    "func.return"(%k, %b, %n, %mu, %k, %b, %loss) : (tensor<2x3xf32>, tensor<3xf32>, tensor<i32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Empty optimizer state (plain SGD): no [1] results, so no opt_state args;
// scalar (rank-0), size-1 and bf16 leaves are ordinary leaves. Arguments
// without jax.arg_info take the path of their post-state result.
// CHECK-LABEL: sym_name = "infer_empty_opt_state"
// CHECK-NEXT:  "func.func"() <{arg_attrs = [
// CHECK-SAME:    {zkdv.path = "scale", zkdv.role = "param"},
// CHECK-SAME:    {zkdv.path = "w", zkdv.role = "param"},
// CHECK-SAME:    {jax.arg_info = "batch", zkdv.path = "batch", zkdv.role = "batch"}]
// CHECK-SAME:  res_attrs = [
// CHECK-SAME:    {jax.result_info = "[0]['scale']", zkdv.path = "scale", zkdv.role = "post_param"},
// CHECK-SAME:    {jax.result_info = "[0]['w']", zkdv.path = "w", zkdv.role = "post_param"},
// CHECK-SAME:    {jax.result_info = "[2]['scale']", zkdv.path = "scale", zkdv.role = "delta"},
// CHECK-SAME:    {jax.result_info = "[2]['w']", zkdv.path = "w", zkdv.role = "delta"},
// CHECK-SAME:    {jax.result_info = "[3]['loss']", zkdv.path = "loss", zkdv.role = "user"},
// CHECK-SAME:    {jax.result_info = "[3]['acc']", zkdv.path = "acc", zkdv.role = "user"}]
"builtin.module"() <{sym_name = "infer_empty_opt_state"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {jax.arg_info = "batch"}], function_type = (tensor<f32>, tensor<1xbf16>, tensor<2xbf16>) -> (tensor<f32>, tensor<1xbf16>, tensor<f32>, tensor<1xbf16>, tensor<f32>, tensor<f32>), res_attrs = [{jax.result_info = "[0]['scale']"}, {jax.result_info = "[0]['w']"}, {jax.result_info = "[2]['scale']"}, {jax.result_info = "[2]['w']"}, {jax.result_info = "[3]['loss']"}, {jax.result_info = "[3]['acc']"}], sym_name = "main"}> ({
  ^bb0(%s: tensor<f32>, %w: tensor<1xbf16>, %x: tensor<2xbf16>):
    "func.return"(%s, %w, %s, %w, %s, %s) : (tensor<f32>, tensor<1xbf16>, tensor<f32>, tensor<1xbf16>, tensor<f32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Running the pass on an annotated function replaces the old roles (here
// wrong ones) instead of duplicating them.
// CHECK-LABEL: sym_name = "reannotate"
// CHECK-NEXT:  "func.func"() <{arg_attrs = [{jax.arg_info = "p['w']", zkdv.path = "w", zkdv.role = "param"}]
// CHECK-SAME:  res_attrs = [{jax.result_info = "[0]['w']", zkdv.path = "w", zkdv.role = "post_param"}, {jax.result_info = "[2]['w']", zkdv.path = "w", zkdv.role = "delta"}]
"builtin.module"() <{sym_name = "reannotate"}> ({
  "func.func"() <{arg_attrs = [{jax.arg_info = "p['w']", zkdv.path = "old", zkdv.role = "batch"}], function_type = (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>), res_attrs = [{jax.result_info = "[0]['w']", zkdv.role = "user"}, {jax.result_info = "[2]['w']"}], sym_name = "main"}> ({
  ^bb0(%w: tensor<2xf32>):
    "func.return"(%w, %w) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Explicit ranges on a chosen function: paths come from JAX names where
// present, else argN / resultN; a role may cover several ranges. The single
// unnamed opt_state takes its post_opt_state's path; the three params do not
// pair with the two post_params, so they keep theirs.
// RUN: not zkdv-opt --split-input-file --zkdv-annotate-roles="func=explicit args=param:0-1,opt_state:2,batch:3,param:4 results=post_param:0-1,post_opt_state:2,delta:3-4,user:5" %s 2>&1 | FileCheck %s --check-prefix=EXPLICIT
// EXPLICIT-LABEL: sym_name = "explicit_ranges"
// EXPLICIT-NEXT:  "func.func"() <{arg_attrs = [
// EXPLICIT-SAME:    {zkdv.path = "arg0", zkdv.role = "param"},
// EXPLICIT-SAME:    {jax.arg_info = "p['b']", zkdv.path = "b", zkdv.role = "param"},
// EXPLICIT-SAME:    {zkdv.path = "result2", zkdv.role = "opt_state"},
// EXPLICIT-SAME:    {zkdv.path = "arg3", zkdv.role = "batch"},
// EXPLICIT-SAME:    {zkdv.path = "arg4", zkdv.role = "param"}]
// EXPLICIT-SAME:  res_attrs = [
// EXPLICIT-SAME:    {zkdv.path = "result0", zkdv.role = "post_param"},
// EXPLICIT-SAME:    {zkdv.path = "result1", zkdv.role = "post_param"},
// EXPLICIT-SAME:    {zkdv.path = "result2", zkdv.role = "post_opt_state"},
// EXPLICIT-SAME:    {zkdv.path = "result3", zkdv.role = "delta"},
// EXPLICIT-SAME:    {zkdv.path = "result4", zkdv.role = "delta"},
// EXPLICIT-SAME:    {zkdv.path = "result5", zkdv.role = "user"}]
// EXPLICIT-SAME:  sym_name = "explicit"
// expected-error @+1 {{--zkdv-annotate-roles: no function @main in the module}}
"builtin.module"() <{sym_name = "explicit_ranges"}> ({
  "func.func"() <{arg_attrs = [{}, {jax.arg_info = "p['b']"}, {}, {}, {}], function_type = (tensor<2xf32>, tensor<f32>, tensor<2xf32>, tensor<3xf32>, tensor<1xf32>) -> (tensor<2xf32>, tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>), sym_name = "explicit"}> ({
  ^bb0(%a: tensor<2xf32>, %b: tensor<f32>, %c: tensor<2xf32>, %d: tensor<3xf32>, %e: tensor<1xf32>):
    "func.return"(%a, %b, %c, %a, %b, %b) : (tensor<2xf32>, tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Explicit ranges on a JAX 0.12 export: unnamed params take the paths of
// their post_params, in order.
// RUN: not zkdv-opt --split-input-file --zkdv-annotate-roles="func=explicit_jax args=param:0-1,batch:2 results=post_param:0-1,delta:2-3,user:4" %s 2>&1 | FileCheck %s --check-prefix=PAIRED
// PAIRED-LABEL: sym_name = "explicit_paired"
// PAIRED-NEXT:  "func.func"() <{arg_attrs = [{zkdv.path = "Dense_0/bias", zkdv.role = "param"}, {zkdv.path = "Dense_0/kernel", zkdv.role = "param"}, {zkdv.path = "arg2", zkdv.role = "batch"}]
// expected-error @+1 {{--zkdv-annotate-roles: no function @main in the module}}
"builtin.module"() <{sym_name = "explicit_paired"}> ({
  "func.func"() <{function_type = (tensor<2xf32>, tensor<3x2xf32>, tensor<4x3xf32>) -> (tensor<2xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<3x2xf32>, tensor<f32>), res_attrs = [{jax.result_info = "result[0]['Dense_0']['bias']"}, {jax.result_info = "result[0]['Dense_0']['kernel']"}, {jax.result_info = "result[2]['Dense_0']['bias']"}, {jax.result_info = "result[2]['Dense_0']['kernel']"}, {jax.result_info = "result[3]"}], sym_name = "explicit_jax"}> ({
  ^bb0(%b: tensor<2xf32>, %k: tensor<3x2xf32>, %x: tensor<4x3xf32>):
    %l = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    "func.return"(%b, %k, %b, %k, %l) : (tensor<2xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<3x2xf32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Explicit roles for a function without arguments or results: empty lists.
// RUN: not zkdv-opt --split-input-file --zkdv-annotate-roles="func=nothing args= results=" %s 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY-LABEL: sym_name = "explicit_empty"
// EMPTY-NEXT:  "func.func"() <{function_type = () -> (), sym_name = "nothing"}>
// expected-error @+1 {{--zkdv-annotate-roles: no function @main in the module}}
"builtin.module"() <{sym_name = "explicit_empty"}> ({
  "func.func"() <{function_type = () -> (), sym_name = "nothing"}> ({
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

// No jax.result_info: the roles cannot be inferred ("a program without roles").
// expected-error @+1 {{cannot determine the roles of @main (a program without roles): result 0 has no `jax.result_info`; expected the step ABI}}
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "main"}> ({
^bb0(%x: tensor<f32>):
  "func.return"(%x) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// A single-array result (jax.result_info = "") is not the step ABI either.
// expected-error @+1 {{cannot determine the roles of @main (a program without roles): result 0 has `jax.result_info = ""`, which does not start with a tuple index like `result[0]`}}
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, res_attrs = [{jax.result_info = ""}], sym_name = "main"}> ({
^bb0(%x: tensor<f32>):
  "func.return"(%x) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// Deltas must mirror the parameters.
// expected-error @+1 {{cannot determine the roles of @main (a program without roles): tuple element [2] (the deltas) has 0 leaves but element [0] (the new parameters) has 1}}
"func.func"() <{function_type = (tensor<f32>) -> (tensor<f32>, tensor<f32>), res_attrs = [{jax.result_info = "[0]['w']"}, {jax.result_info = "[1]"}], sym_name = "main"}> ({
^bb0(%x: tensor<f32>):
  "func.return"(%x, %x) : (tensor<f32>, tensor<f32>) -> ()
}) : () -> ()

// -----

// A named parameter whose path differs from its post-state result's path.
// expected-error @+1 {{cannot determine the roles of @main (a program without roles): argument 0 would be a param with path `v`, but the matching post_param result has path `w`}}
"func.func"() <{arg_attrs = [{jax.arg_info = "params['v']"}], function_type = (tensor<f32>) -> (tensor<f32>, tensor<f32>), res_attrs = [{jax.result_info = "[0]['w']"}, {jax.result_info = "[2]['w']"}], sym_name = "main"}> ({
^bb0(%x: tensor<f32>):
  "func.return"(%x, %x) : (tensor<f32>, tensor<f32>) -> ()
}) : () -> ()

// -----

// Fewer arguments than the results imply.
// expected-error @+1 {{cannot determine the roles of @main (a program without roles): it has 1 arguments, fewer than the 1 parameters and 1 optimizer state leaves its results imply}}
"func.func"() <{function_type = (tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>), res_attrs = [{jax.result_info = "[0]"}, {jax.result_info = "[1]"}, {jax.result_info = "[2]"}], sym_name = "main"}> ({
^bb0(%x: tensor<f32>):
  "func.return"(%x, %x, %x) : (tensor<f32>, tensor<f32>, tensor<f32>) -> ()
}) : () -> ()

// -----

// The entry function must be public.
// expected-error @+1 {{@main is private; roles belong on the public entry function}}
"func.func"() <{function_type = () -> (), sym_name = "main", sym_visibility = "private"}> ({
  "func.return"() : () -> ()
}) : () -> ()

// -----

// No @main in the module.
// expected-error @+1 {{--zkdv-annotate-roles: no function @main in the module (choose one with `func=NAME`)}}
"func.func"() <{function_type = () -> (), sym_name = "step"}> ({
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Overlapping explicit ranges.
// RUN: not zkdv-opt --split-input-file --zkdv-annotate-roles="func=overlap args=param:0-1,batch:1 results=post_param:0" %s 2>&1 | FileCheck %s --check-prefix=OVERLAP
// OVERLAP: annotate_roles.mlir:[[@LINE+2]]:1: error: argument 1 of @overlap is given two roles (param and batch)
// expected-error @+1 {{--zkdv-annotate-roles: no function @main in the module}}
"func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> tensor<f32>, sym_name = "overlap"}> ({
^bb0(%x: tensor<f32>, %y: tensor<f32>):
  "func.return"(%x) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// Explicit ranges that leave a result uncovered, and that run out of bounds.
// RUN: not zkdv-opt --split-input-file --zkdv-annotate-roles="func=gap args=param:0 results=post_param:0" %s 2>&1 | FileCheck %s --check-prefix=GAP
// RUN: not zkdv-opt --split-input-file --zkdv-annotate-roles="func=gap args=param:0-2 results=post_param:0,delta:1" %s 2>&1 | FileCheck %s --check-prefix=BOUNDS
// GAP: annotate_roles.mlir:[[@LINE+3]]:1: error: result 1 of @gap has no role: the `results=` ranges must cover all 2 results
// BOUNDS: annotate_roles.mlir:[[@LINE+2]]:1: error: argument range param:0-2 is out of bounds: @gap has 1 arguments
// expected-error @+1 {{--zkdv-annotate-roles: no function @main in the module}}
"func.func"() <{function_type = (tensor<f32>) -> (tensor<f32>, tensor<f32>), sym_name = "gap"}> ({
^bb0(%x: tensor<f32>):
  "func.return"(%x, %x) : (tensor<f32>, tensor<f32>) -> ()
}) : () -> ()

// -----

// Option errors: a result role on an argument, a missing `results=`, an
// unknown key and a malformed range.
// RUN: not zkdv-opt --split-input-file --zkdv-annotate-roles="args=delta:0 results=" %s 2>&1 | FileCheck %s --check-prefix=OPT1
// RUN: not zkdv-opt --split-input-file --zkdv-annotate-roles="args=param:0" %s 2>&1 | FileCheck %s --check-prefix=OPT2
// RUN: not zkdv-opt --split-input-file --zkdv-annotate-roles="entry=main" %s 2>&1 | FileCheck %s --check-prefix=OPT3
// RUN: not zkdv-opt --split-input-file --zkdv-annotate-roles="args=param:x results=" %s 2>&1 | FileCheck %s --check-prefix=OPT4
// OPT1: error: --zkdv-annotate-roles: `delta` is not a role of arguments (expected one of: param, opt_state, batch, user)
// OPT2: error: --zkdv-annotate-roles: give `args=` and `results=` together
// OPT3: zkdv-opt: error: --zkdv-annotate-roles: unknown option `entry=main` (expected `func=TEXT`, `args=A,B,...` or `results=A,B,...`)
// OPT4: error: --zkdv-annotate-roles: `param:x`: `x` is not an index
// expected-error @+1 {{cannot determine the roles of @main (a program without roles): it has no results}}
"func.func"() <{function_type = () -> (), sym_name = "main"}> ({
  "func.return"() : () -> ()
}) : () -> ()

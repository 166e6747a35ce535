// A kernel's signature in a decisions file is what it computes: the same
// body gives the same signature under another function, kernel or value
// name, with other decisions or annotations (an LLM agent's rationale), and
// whatever --mlir-print-* options the tool runs with; another body gives
// another one.
// RUN: egg-translate --egg-to-decisions %s | FileCheck %s
// RUN: egg-translate --egg-to-decisions --mlir-print-debuginfo --mlir-print-skip-regions --mlir-elide-elementsattrs-if-larger=1 %s | FileCheck %s
// CHECK: "name": "a_k0",
// CHECK-NEXT: "signature": "[[SIG:[0-9a-f]{16}]]"
// CHECK: "name": "b_k7",
// CHECK-NEXT: "rationale": {
// CHECK-NEXT: "structure": "why"
// CHECK-NEXT: },
// CHECK-NEXT: "signature": "[[SIG]]"
// CHECK: "name": "c_k0",
// CHECK-NOT: "signature": "[[SIG]]"
// CHECK: "signature": "{{[0-9a-f]+}}"
func.func @a(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = egg.kernel @a_k0 ins(%x, %y : tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%p: tensor<64xf32>, %q: tensor<64xf32>):
    %e = tensor.empty() : tensor<64xf32>
    %s = linalg.add ins(%p, %q : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    egg.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
func.func @b(%u: tensor<64xf32>) -> tensor<64xf32> {
  %r = egg.kernel @b_k7 ins(%u, %u : tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
      attributes {structure = #egg.structure<elementwise_flat>, egg.rationale = {structure = "why"}} {
  ^bb0(%m: tensor<64xf32>, %n: tensor<64xf32>):
    %e = tensor.empty() : tensor<64xf32>
    %s = linalg.add ins(%m, %n : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    egg.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
func.func @c(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = egg.kernel @c_k0 ins(%x, %y : tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%p: tensor<64xf32>, %q: tensor<64xf32>):
    %e = tensor.empty() : tensor<64xf32>
    %s = linalg.mul ins(%p, %q : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    egg.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

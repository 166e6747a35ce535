// C + A B with f16 operands into an f32 C (no fill: the product starts from
// C's values), with M = 300 and N = 520, which no tile of 32 divides.
// mma.sync tiles with partial last tiles (docs/pipeline.md, "Partial
// tiles"): the accumulators' first loads from C are guarded like the stores.
func.func @matmul_odd_acc_f16(%a: tensor<300x256xf16>, %b: tensor<256x520xf16>, %c: tensor<300x520xf32>) -> tensor<300x520xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<300x256xf16>, tensor<256x520xf16>) outs(%c : tensor<300x520xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<300x520xf32>
  return %r : tensor<300x520xf32>
}

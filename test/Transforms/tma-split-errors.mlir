// A split product's partial products read A as [M, S, K/S] through TMA
// boxes of the 2-D buffer: a K step that does not divide the slice (K/S =
// 96, K step 64) would run a box into the next slice, so a replayed
// decision asking for it gets a located error.
// RUN: egg-opt %s -egg-form-kernels -egg-attach-target -egg-algorithm-structure="agent=replay decisions=%S/Inputs/tma-split-step.json" -egg-hardware-tuning="agent=replay decisions=%S/Inputs/tma-split-step.json" -verify-diagnostics
func.func @split_step(%a: tensor<256x384xbf16>, %b: tensor<384x256xbf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-error @+1 {{in its partial results (loop 0 is the slice, the kernel's loops follow): copy = tma: input 0 is neither 2-D nor the reshape of a 2-D tensor that pairs each batch loop with the loop inside it, whose tile divides it}}
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<256x384xbf16>, tensor<384x256xbf16>) outs(%f : tensor<256x256xf32>) {
  ^bb1(%p: bf16, %q: bf16, %acc: f32):
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
    %pq = arith.mulf %pf, %qf : f32
    %sum = arith.addf %acc, %pq : f32
    linalg.yield %sum : f32
  } -> tensor<256x256xf32>
  return %m : tensor<256x256xf32>
}

// An argmax over the middle dim (a reduction with index, docs/pipeline.md
// "Column reductions"): two results, the value and its row, under one
// strict comparison. It takes reduce_two_stage: each thread keeps a value
// and its row per column over its rows, the partials go through two
// workgroup buffers, and the rounds take the better value, or on a tie the
// smaller row, so the first maximum wins as in a walk over the rows.
// RUN: egg-opt %s --egg-pipeline="record=%t.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISION < %t.json
// RUN: egg-opt %s --egg-pipeline --mlir-print-ir-after=egg-lower-column-reductions -o /dev/null 2>&1 | FileCheck %s
// DECISION: "structure": "#egg.structure<reduce_two_stage>"
// DECISION: "tuning": "#egg.tuning<threads = [63, 8], block = [1, 63]>"
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[VALUES:.*]] : memref<8x63xf32, #gpu.address_space<workgroup>>, %[[ROWS:.*]] : memref<8x63xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for {{.*}} -> (f32, f32)
// CHECK: arith.cmpf ogt
// CHECK: memref.store {{.*}}, %[[VALUES]]
// CHECK: memref.store {{.*}}, %[[ROWS]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: %[[V1:.*]] = memref.load %[[VALUES]]
// CHECK: %[[R1:.*]] = memref.load %[[ROWS]]
// CHECK: %[[V2:.*]] = memref.load %[[VALUES]]
// CHECK: %[[R2:.*]] = memref.load %[[ROWS]]
// CHECK: %[[BETTER:.*]] = arith.cmpf ogt, %[[V2]], %[[V1]]
// CHECK: %[[TIE:.*]] = arith.cmpf oeq, %[[V2]], %[[V1]]
// CHECK: %[[EARLIER:.*]] = arith.cmpf olt, %[[R2]], %[[R1]]
// CHECK: %[[BOTH:.*]] = arith.andi %[[TIE]], %[[EARLIER]]
// CHECK: %[[TAKE:.*]] = arith.ori %[[BETTER]], %[[BOTH]]
// CHECK: arith.select %[[TAKE]], %[[V2]], %[[V1]]
// CHECK: arith.select %[[TAKE]], %[[R2]], %[[R1]]
// CHECK-NOT: linalg.generic
func.func @forward(%x: tensor<16x512x4095xf32>) -> tensor<16x4095xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<16x4095xf32>
  %best = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<16x4095xf32>) -> tensor<16x4095xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x4095xf32>
  %at = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x4095xf32>) -> tensor<16x4095xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : tensor<16x512x4095xf32>) outs(%best, %at : tensor<16x4095xf32>, tensor<16x4095xf32>) {
  ^bb0(%a: f32, %b: f32, %i: f32):
    %row = linalg.index 1 : index
    %row32 = arith.index_cast %row : index to i32
    %rowf = arith.uitofp %row32 : i32 to f32
    %gt = arith.cmpf ogt, %a, %b : f32
    %v = arith.select %gt, %a, %b : f32
    %j = arith.select %gt, %rowf, %i : f32
    linalg.yield %v, %j : f32, f32
  } -> (tensor<16x4095xf32>, tensor<16x4095xf32>)
  return %r#1 : tensor<16x4095xf32>
}

// RUN: egg-opt %s --egg-expand-erf | FileCheck %s

// f32: two Horner chains and one select between their results.
// CHECK-LABEL: func.func @erf_f32
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-DAG: %[[CUT:.*]] = arith.constant 0.899999976 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[T:.*]] = math.absf %[[X]] : f32
// CHECK: %[[S:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-COUNT-6: math.fma %{{.*}}, %[[S]], %{{.*}} : f32
// CHECK: %[[SMALL:.*]] = math.fma %[[X]], %{{.*}}, %[[X]] : f32
// CHECK: %[[CLAMPED:.*]] = arith.minimumf %[[T]], %[[FOUR]] : f32
// CHECK-COUNT-6: math.fma %{{.*}}, %[[CLAMPED]], %{{.*}} : f32
// CHECK: %[[TAIL:.*]] = math.exp2 %{{.*}} : f32
// CHECK: %[[ONE_MINUS:.*]] = arith.subf %[[ONE]], %[[TAIL]] : f32
// CHECK: %[[LARGE:.*]] = math.copysign %[[ONE_MINUS]], %[[X]] : f32
// CHECK: %[[IS_SMALL:.*]] = arith.cmpf olt, %[[T]], %[[CUT]] : f32
// CHECK: %[[R:.*]] = arith.select %[[IS_SMALL]], %[[SMALL]], %[[LARGE]] : f32
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: math.erf
func.func @erf_f32(%x: f32) -> f32 {
  %r = math.erf %x : f32
  return %r : f32
}

// bf16 vectors: computed in f32, clamped, one Horner chain of 10 coefficients.
// CHECK-LABEL: func.func @erf_bf16_vector
// CHECK-SAME: (%[[V:.*]]: vector<4xbf16>)
// CHECK: %[[W:.*]] = arith.extf %[[V]] : vector<4xbf16> to vector<4xf32>
// CHECK: %[[LO:.*]] = arith.maximumf %[[W]], %{{.*}} : vector<4xf32>
// CHECK: %[[C:.*]] = arith.minimumf %[[LO]], %{{.*}} : vector<4xf32>
// CHECK: %[[S:.*]] = arith.mulf %[[C]], %[[C]] : vector<4xf32>
// CHECK-COUNT-9: math.fma %{{.*}}, %[[S]], %{{.*}} : vector<4xf32>
// CHECK: math.fma %[[C]], %{{.*}}, %[[C]] : vector<4xf32>
// CHECK-NOT: math.fma
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
func.func @erf_bf16_vector(%x: vector<4xbf16>) -> vector<4xbf16> {
  %r = math.erf %x : vector<4xbf16>
  return %r : vector<4xbf16>
}

// f16: the same polynomial.
// CHECK-LABEL: func.func @erf_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-COUNT-10: math.fma %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @erf_f16(%x: f16) -> f16 {
  %r = math.erf %x : f16
  return %r : f16
}

// f64 stays with libdevice.
// CHECK-LABEL: func.func @erf_f64
// CHECK: math.erf %{{.*}} : f64
func.func @erf_f64(%x: f64) -> f64 {
  %r = math.erf %x : f64
  return %r : f64
}

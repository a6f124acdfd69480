//===- ElementCombine.cpp - one step of a reduction, element by element ---===//
#include "mt/Runtime/Comm/ElementCombine.h"

#include <algorithm>
#include <cstring>

namespace mt {

namespace {

template <typename T> void combine(T *acc, const T *in, int64_t n, ReduceOp op) {
  if (op == ReduceOp::Sum)
    for (int64_t i = 0; i < n; ++i)
      acc[i] += in[i];
  else
    for (int64_t i = 0; i < n; ++i)
      acc[i] = std::max(acc[i], in[i]);
}

float bf16ToFloat(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep it one
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u); // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

float f16ToFloat(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof h);
  return static_cast<float>(h);
}

uint16_t floatToF16(float f) {
  _Float16 h = static_cast<_Float16>(f);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

/// 16-bit values combined in fp32, each result rounded once.
void combine16(uint16_t *acc, const uint16_t *in, int64_t n, ReduceOp op, float (*widen)(uint16_t),
               uint16_t (*narrow)(float)) {
  for (int64_t i = 0; i < n; ++i) {
    float a = widen(acc[i]), b = widen(in[i]);
    acc[i] = narrow(op == ReduceOp::Sum ? a + b : std::max(a, b));
  }
}

} // namespace

void combineElements(void *acc, const void *in, int64_t n, ElementType type, ReduceOp op) {
  switch (type) {
  case ElementType::BF16:
    combine16(static_cast<uint16_t *>(acc), static_cast<const uint16_t *>(in), n, op, bf16ToFloat,
              floatToBf16);
    break;
  case ElementType::F16:
    combine16(static_cast<uint16_t *>(acc), static_cast<const uint16_t *>(in), n, op, f16ToFloat,
              floatToF16);
    break;
  case ElementType::F32:
    combine(static_cast<float *>(acc), static_cast<const float *>(in), n, op);
    break;
  case ElementType::F64:
    combine(static_cast<double *>(acc), static_cast<const double *>(in), n, op);
    break;
  case ElementType::I64:
    combine(static_cast<int64_t *>(acc), static_cast<const int64_t *>(in), n, op);
    break;
  case ElementType::I32:
    combine(static_cast<int32_t *>(acc), static_cast<const int32_t *>(in), n, op);
    break;
  }
}


int64_t elementBytes(ElementType type) {
  if (type == ElementType::BF16 || type == ElementType::F16)
    return 2;
  return type == ElementType::F64 || type == ElementType::I64 ? 8 : 4;
}

} // namespace mt

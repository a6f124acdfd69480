//===- ElementCombine.h - one step of a reduction, element by element -*- C++ -*-===//
//
// The arithmetic of every reduction between ranks, shared by the host
// transports' collectives and the stand-in NCCL of the tests, so that both
// produce the same bits.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_ELEMENTCOMBINE_H
#define MT_RUNTIME_COMM_ELEMENTCOMBINE_H

#include <cstdint>

namespace mt {

/// BF16 and F16 are reduced in fp32 arithmetic, each partial sum rounded
/// (to nearest even) back to 16 bits, in the group's fixed order.
enum class ElementType : uint32_t { F32 = 1, F64 = 2, I64 = 3, I32 = 4, BF16 = 5, F16 = 6 };
enum class ReduceOp : uint32_t { Sum = 1, Max = 2 };

int64_t elementBytes(ElementType type);

/// acc[i] = acc[i] op in[i] for n elements: the next member's contribution.
void combineElements(void *acc, const void *in, int64_t n, ElementType type, ReduceOp op);

} // namespace mt

#endif

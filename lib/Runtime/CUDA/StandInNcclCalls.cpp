//===- StandInNcclCalls.cpp - the stand-in NCCL's calls, described ------===//
//
// What the threads' rounds (StandInNccl.cpp) and the processes' rounds
// (StandInNcclProcesses.cpp) share: names, types and whether the members'
// calls of a round agree.
//
//===----------------------------------------------------------------------===//
#include "StandInNccl.h"

#include <string>

namespace mt::nccl::standin {

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::AllReduce:
    return "ncclAllReduce";
  case Kind::ReduceScatter:
    return "ncclReduceScatter";
  case Kind::Reduce:
    return "ncclReduce";
  case Kind::AllGather:
    return "ncclAllGather";
  case Kind::Split:
    return "ncclCommSplit";
  }
  return "?";
}

std::optional<mt::ElementType> elementType(DataType type) {
  switch (type) {
  case Float32:
    return mt::ElementType::F32;
  case Float64:
    return mt::ElementType::F64;
  case Bfloat16:
    return mt::ElementType::BF16;
  case Float16:
    return mt::ElementType::F16;
  case Int32:
    return mt::ElementType::I32;
  case Int64:
    return mt::ElementType::I64;
  default:
    return std::nullopt;
  }
}

std::string describe(const Call &call, int rank) {
  std::string text = std::string(kindName(call.kind)) + " on rank " + std::to_string(rank);
  if (call.kind != Kind::Split)
    text += " (" + std::to_string(call.count) + " elements of type " +
            std::to_string(static_cast<int>(call.type)) + ", op " +
            std::to_string(static_cast<int>(call.op)) +
            (call.kind == Kind::Reduce ? ", root " + std::to_string(call.root) : "") + ")";
  return text;
}

bool sameCall(const Call &a, const Call &b) {
  return a.kind == b.kind &&
         (a.kind == Kind::Split || (a.count == b.count && a.type == b.type && a.root == b.root &&
                                    (a.kind == Kind::AllGather || a.op == b.op)));
}

} // namespace mt::nccl::standin

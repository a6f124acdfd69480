//===- NcclApiTest.cpp - mt/Runtime/Comm/NcclApi.h against nccl.h ---------===//
//
// The runtime declares NCCL's types itself (NcclApi.h says why); built
// wherever the CUDA toolkit is, this checks them against its nccl.h.
//
//===----------------------------------------------------------------------===//
#include "mt/Runtime/Comm/NcclApi.h"
#include "mt/Runtime/Comm/NcclLibrary.h"

#include <nccl.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>

namespace n = mt::nccl;

static_assert(sizeof(n::UniqueId) == sizeof(ncclUniqueId));
#define MT_SAME_VALUE(ours, theirs)                                                                \
  static_assert(static_cast<int>(n::ours) == static_cast<int>(theirs), #ours);
MT_SAME_VALUE(Success, ncclSuccess)
MT_SAME_VALUE(UnhandledCudaError, ncclUnhandledCudaError)
MT_SAME_VALUE(SystemError, ncclSystemError)
MT_SAME_VALUE(InternalError, ncclInternalError)
MT_SAME_VALUE(InvalidArgument, ncclInvalidArgument)
MT_SAME_VALUE(InvalidUsage, ncclInvalidUsage)
MT_SAME_VALUE(RemoteError, ncclRemoteError)
MT_SAME_VALUE(InProgress, ncclInProgress)
MT_SAME_VALUE(Sum, ncclSum)
MT_SAME_VALUE(Prod, ncclProd)
MT_SAME_VALUE(Max, ncclMax)
MT_SAME_VALUE(Min, ncclMin)
MT_SAME_VALUE(Avg, ncclAvg)
MT_SAME_VALUE(Int8, ncclInt8)
MT_SAME_VALUE(Uint8, ncclUint8)
MT_SAME_VALUE(Int32, ncclInt32)
MT_SAME_VALUE(Uint32, ncclUint32)
MT_SAME_VALUE(Int64, ncclInt64)
MT_SAME_VALUE(Uint64, ncclUint64)
MT_SAME_VALUE(Float16, ncclFloat16)
MT_SAME_VALUE(Float32, ncclFloat32)
MT_SAME_VALUE(Float64, ncclFloat64)
MT_SAME_VALUE(Bfloat16, ncclBfloat16)
#undef MT_SAME_VALUE
static_assert(n::kSplitNoColor == NCCL_SPLIT_NOCOLOR);
static_assert(sizeof(n::Result) == sizeof(ncclResult_t) && sizeof(n::DataType) == sizeof(ncclDataType_t));

#define MT_SAME_OFFSET(field)                                                                      \
  static_assert(offsetof(n::Config, field) == offsetof(ncclConfig_t, field), #field);
MT_SAME_OFFSET(size)
MT_SAME_OFFSET(magic)
MT_SAME_OFFSET(version)
MT_SAME_OFFSET(blocking)
MT_SAME_OFFSET(netName)
MT_SAME_OFFSET(commName)
MT_SAME_OFFSET(CTAPolicy)
MT_SAME_OFFSET(nvlinkCentricSched)
#undef MT_SAME_OFFSET
static_assert(sizeof(n::Config) == sizeof(ncclConfig_t));

TEST(NcclApi, MatchesTheToolkitsHeader) {
  EXPECT_GE(NCCL_VERSION_CODE, n::kMinimumVersion);
}

// The toolkit's own libnccl.so.2 loads as mt-run would load it (no GPU is
// needed for that: NCCL looks for one only when a communicator is made).
TEST(NcclApi, TheToolkitsLibraryLoads) {
  unsetenv("MT_NCCL_LIBRARY");
  std::string error;
  std::unique_ptr<mt::NcclLibrary> library = mt::NcclLibrary::load(error);
  ASSERT_TRUE(library) << error;
  EXPECT_GE(library->version(), n::kMinimumVersion);
}

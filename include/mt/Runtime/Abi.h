/* The contract between the code mtc compiles and the runtime that runs it.
 *
 * Compiled code calls the runtime through plain C functions whose arguments
 * are 64-bit integers (buffer addresses included), so the generated IR needs
 * no pointer types. Every code those integers carry (element type,
 * reduction, mesh axes, optimizer slot), every entry point's name and
 * signature, and every table of hooks the runtime installs is defined here,
 * once. The lowerings (lib/Conversion), the code linked into each plan
 * (lib/Target/CPU), the CUDA runtime library (lib/Runtime/CUDA) and the
 * collectives (lib/Runtime) include this header; a change on one side that
 * the other does not see fails to compile (the static_asserts at the end)
 * or fails AbiTest.
 *
 * C, so that lib/Target/CPU's support objects include it as well. */
#ifndef MT_RUNTIME_ABI_H
#define MT_RUNTIME_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-------------------------- codes -----------------------------------===*/

/* Element type of a buffer handed to a collective (`dtype` arguments).
 * 16-bit ones are reduced in fp32 arithmetic, rounded after each step. */
enum MtAbiDtype {
  MT_ABI_DTYPE_F32 = 1,
  MT_ABI_DTYPE_F64 = 2,
  MT_ABI_DTYPE_BF16 = 3,
  MT_ABI_DTYPE_F16 = 4
};

/* Reduction of an all-reduce (`reduction` argument); reduce-scatter sums. */
enum MtAbiReduction { MT_ABI_REDUCE_SUM = 1, MT_ABI_REDUCE_MAX = 2 };

/* Mesh axes as bits of an `axes` mask. The mesh is [pp, dp, tp] and bit i
 * is axis i, so a mask names a group of axes in mesh order. */
enum MtAbiMeshAxis { MT_ABI_AXIS_PP = 1, MT_ABI_AXIS_DP = 2, MT_ABI_AXIS_TP = 4 };
enum { MT_ABI_MESH_AXES = 3 };

/* The optimizer function's hyper-parameter operand, tensor<8xf32>
 * (mt.adamw): the runtime writes these slots before every optimizer step. */
enum MtAbiHyperSlot {
  MT_ABI_HYPER_LR = 0,
  MT_ABI_HYPER_BETA1 = 1,
  MT_ABI_HYPER_BETA2 = 2,
  MT_ABI_HYPER_EPS = 3,
  MT_ABI_HYPER_WEIGHT_DECAY = 4,
  MT_ABI_HYPER_BIAS_CORRECTION1 = 5, /* 1 - beta1^t */
  MT_ABI_HYPER_BIAS_CORRECTION2 = 6, /* 1 - beta2^t */
  MT_ABI_HYPER_GRAD_SCALE = 7,       /* clip / micro-batches / loss scale */
  MT_ABI_HYPER_COUNT = 8
};

/*===------------- collectives called from compiled code ----------------===*/

/* mt-lower-to-linalg emits calls of these (names below); the runtime that
 * loads the code object installs the hooks that do the work. */
typedef int64_t (*MtAxisIndexFn)(int64_t axes);
typedef void (*MtAllReduceFn)(int64_t data, int64_t count, int64_t dtype, int64_t reduction,
                              int64_t axes, int64_t label);
/* all-gather and reduce-scatter move [outer, inner] pieces. */
typedef void (*MtResizeFn)(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                           int64_t axes, int64_t label);
typedef void (*MtCollectiveWaitFn)(int64_t out);
typedef void (*MtGradientReadyFn)(int64_t index);

#define MT_RT_AXIS_INDEX "mt_rt_axis_index"
#define MT_RT_ALL_REDUCE "mt_rt_all_reduce"
#define MT_RT_ALL_GATHER "mt_rt_all_gather"
#define MT_RT_REDUCE_SCATTER "mt_rt_reduce_scatter"
#define MT_RT_ALL_REDUCE_START "mt_rt_all_reduce_start"
#define MT_RT_ALL_GATHER_START "mt_rt_all_gather_start"
#define MT_RT_REDUCE_SCATTER_START "mt_rt_reduce_scatter_start"
#define MT_RT_COLLECTIVE_WAIT "mt_rt_collective_wait"
#define MT_RT_GRADIENT_READY "mt_rt_gradient_ready"

int64_t mt_rt_axis_index(int64_t axes);
void mt_rt_all_reduce(int64_t data, int64_t count, int64_t dtype, int64_t reduction, int64_t axes,
                      int64_t label);
void mt_rt_all_gather(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                      int64_t axes, int64_t label);
void mt_rt_reduce_scatter(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                          int64_t axes, int64_t label);
/* Split collectives (mt.collective_wait): the start may return before the
 * result is complete; the wait, given the result's buffer, returns once it
 * is. Without async hooks the start runs the whole collective. */
void mt_rt_all_reduce_start(int64_t data, int64_t count, int64_t dtype, int64_t reduction,
                            int64_t axes, int64_t label);
void mt_rt_all_gather_start(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                            int64_t axes, int64_t label);
void mt_rt_reduce_scatter_start(int64_t in, int64_t out, int64_t outer, int64_t inner,
                                int64_t dtype, int64_t axes, int64_t label);
void mt_rt_collective_wait(int64_t out);
/* A gradient accumulator's slice is final for this step (mt.gradient_ready). */
void mt_rt_gradient_ready(int64_t index);

/* The hooks, installed per loaded code object. Each table is set on its
 * own, so adding one never moves another's layout. */
typedef struct MtRuntimeHooks {
  MtAxisIndexFn axis_index;
  MtAllReduceFn all_reduce;
  MtResizeFn all_gather;
  MtResizeFn reduce_scatter;
} MtRuntimeHooks;

typedef struct MtAsyncCollectiveHooks {
  MtResizeFn all_gather_start;
  MtResizeFn reduce_scatter_start;
  MtCollectiveWaitFn wait;
  MtAllReduceFn all_reduce_start;
} MtAsyncCollectiveHooks;

#define MT_SET_RUNTIME_HOOKS "mt_set_runtime_hooks"
#define MT_SET_ASYNC_COLLECTIVE_HOOKS "mt_set_async_collective_hooks"
#define MT_SET_GRADIENT_READY_HOOK "mt_set_gradient_ready_hook"

typedef void (*MtSetRuntimeHooksFn)(const MtRuntimeHooks *hooks);
typedef void (*MtSetAsyncCollectiveHooksFn)(const MtAsyncCollectiveHooks *hooks);
typedef void (*MtSetGradientReadyHookFn)(MtGradientReadyFn hook);

void mt_set_runtime_hooks(const MtRuntimeHooks *hooks);
void mt_set_async_collective_hooks(const MtAsyncCollectiveHooks *hooks);
void mt_set_gradient_ready_hook(MtGradientReadyFn hook);

/*===------------------------------ GEMMs ------------------------------===*/

/* mt-convert-contractions-to-blas turns contractions into calls of
 * mt_blas_gemm_<t> and mt_blas_gemm_batched_<t>; lib/Target/CPU serves
 * them with OpenBLAS and the CUDA runtime library with cuBLAS.
 *   gemm:    (transA, transB, M, N, K, A, lda, B, ldb, C, ldc): C += op(A) op(B)
 *   batched: (transA, transB, M, N, K, A, lda, strideA, B, ldb, strideB, C, ldc,
 *             strideC, count): the same for `count` products at element
 *             strides (strideB 0: B shared).
 * <t>: f32, f64; bf16, f16 (16-bit A and B, fp32 C and arithmetic);
 * bf16_into_bf16, f16_into_f16 (16-bit C = op(A) op(B), summed in fp32 and
 * rounded once, overwriting C). */
#define MT_BLAS_GEMM_PREFIX "mt_blas_gemm_"
#define MT_BLAS_GEMM_BATCHED_PREFIX "mt_blas_gemm_batched_"
#define MT_BLAS_GEMM_TYPES(X) X(f32) X(f64) X(bf16) X(f16) X(bf16_into_bf16) X(f16_into_f16)

typedef void (*MtGemmFn)(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                         int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc);
typedef void (*MtGemmBatchedFn)(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                                int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                                int64_t c, int64_t ldc, int64_t sc, int64_t count);

#define MT_ABI_DECLARE_GEMM(t)                                                                     \
  void mt_blas_gemm_##t(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,        \
                        int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc);              \
  void mt_blas_gemm_batched_##t(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k,           \
                                int64_t a, int64_t lda, int64_t sa, int64_t b, int64_t ldb,        \
                                int64_t sb, int64_t c, int64_t ldc, int64_t sc, int64_t count);
MT_BLAS_GEMM_TYPES(MT_ABI_DECLARE_GEMM)
#undef MT_ABI_DECLARE_GEMM

/*===-------------- the CUDA runtime library's entry points --------------===*/

/* libmt-cuda-runtime.so defines these; mt-run finds each with dlsym as
 * "mt_cuda_<name>". Errors come back as text in the caller's buffer.
 *   open:            binds the calling thread to its device; 0 on failure
 *   local_rank:      before open: the thread runs the process's local rank
 *                    `index` (rank threads) and takes GPU index modulo the
 *                    GPUs seen, unless MT_CUDA_DEVICE names one
 *   describe:        the device's name and architecture
 *   bus_id:          the device's PCI bus id ("0000:1b:00.0"): ranks on
 *                    one machine with the same one share a GPU
 *   add_image:       registers a kernel module (PTX or cubin) by name
 *   alloc, free:     zeroed device memory the host can address
 *   sync:            waits for the thread's queued work; 0 on failure
 *   stream:          the calling thread's stream (a CUstream), for NCCL
 *   side_stream:     the calling thread's side stream `index` (0..15),
 *                    made on first use: work beside the thread's own
 *                    (a pipeline communicator's NCCL sends); null if none
 *   sync_stream:     waits for a stream's queued work; 0 on failure
 *   stream_wait:     makes stream `waiting` wait for the work queued on
 *                    stream `on` so far (an event); 0 on failure
 *   zero:            zeroes memory in order with the thread's kernels
 *   copy2d:          copies `height` rows of `width` bytes, `src_pitch`
 *                    apart, to rows `dst_pitch` apart, queued on `stream`
 *                    (null: the thread's, in order with its kernels;
 *                    regrouping a collective's pieces on the GPU); 0 on
 *                    failure
 *   profile:         an MtAbiProfileMode
 *   profile_entries: snapshots the totals and counts their entries
 *   profile_entry:   entry i: name, calls, milliseconds, FLOPs; 0 if none */
enum MtAbiProfileMode {
  MT_ABI_PROFILE_PAUSE = 0, /* work queued while paused is not counted */
  MT_ABI_PROFILE_START = 1, /* from zero */
  MT_ABI_PROFILE_RESUME = 2
};

#define MT_CUDA_API(X)                                                                             \
  X(open, int, (char *error, size_t capacity))                                                     \
  X(local_rank, void, (int index))                                                                 \
  X(describe, void, (char *out, size_t capacity))                                                  \
  X(bus_id, void, (char *out, size_t capacity))                                                    \
  X(add_image, void,                                                                               \
    (const char *name, int cubin, const char *arch, const void *data, size_t size))                \
  X(alloc, void *, (size_t bytes, char *error, size_t capacity))                                   \
  X(free, void, (void *pointer))                                                                   \
  X(sync, int, (char *error, size_t capacity))                                                     \
  X(stream, void *, (void))                                                                        \
  X(side_stream, void *, (int index))                                                              \
  X(sync_stream, int, (void *stream, char *error, size_t capacity))                                \
  X(stream_wait, int, (void *waiting, void *on, char *error, size_t capacity))                     \
  X(zero, void, (void *pointer, size_t bytes))                                                     \
  X(copy2d, int,                                                                                   \
    (void *stream, void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width,   \
     size_t height, char *error, size_t capacity))                                                 \
  X(profile, void, (int mode))                                                                     \
  X(profile_entries, size_t, (void))                                                               \
  X(profile_entry, int,                                                                            \
    (size_t i, char *name, size_t capacity, int64_t *calls, double *ms, double *flops))

#define MT_CUDA_SYMBOL_PREFIX "mt_cuda_"
#define MT_ABI_DECLARE_CUDA(name, result, params) result mt_cuda_##name params;
MT_CUDA_API(MT_ABI_DECLARE_CUDA)
#undef MT_ABI_DECLARE_CUDA

#ifdef __cplusplus
} /* extern "C" */

#include <string_view>
#include <type_traits>

namespace mt::abi {

/// How many arguments an entry point takes: the lowerings declare the
/// callee with this many i64 parameters.
template <typename F> struct Arity;
template <typename R, typename... A> struct Arity<R (*)(A...)> {
  static constexpr unsigned value = sizeof...(A);
  static constexpr bool allI64 = (std::is_same_v<A, int64_t> && ...);
  static constexpr bool returnsI64 = std::is_same_v<R, int64_t>;
};
template <typename F> inline constexpr unsigned arity = Arity<F>::value;

// The declared entry points have the hook tables' signatures, and compiled
// code can call them with i64 arguments alone.
static_assert(std::is_same_v<decltype(&mt_rt_axis_index), MtAxisIndexFn>);
static_assert(std::is_same_v<decltype(&mt_rt_all_reduce), MtAllReduceFn>);
static_assert(std::is_same_v<decltype(&mt_rt_all_reduce_start), MtAllReduceFn>);
static_assert(std::is_same_v<decltype(&mt_rt_all_gather), MtResizeFn>);
static_assert(std::is_same_v<decltype(&mt_rt_all_gather_start), MtResizeFn>);
static_assert(std::is_same_v<decltype(&mt_rt_reduce_scatter), MtResizeFn>);
static_assert(std::is_same_v<decltype(&mt_rt_reduce_scatter_start), MtResizeFn>);
static_assert(std::is_same_v<decltype(&mt_rt_collective_wait), MtCollectiveWaitFn>);
static_assert(std::is_same_v<decltype(&mt_rt_gradient_ready), MtGradientReadyFn>);
static_assert(std::is_same_v<decltype(&mt_set_runtime_hooks), MtSetRuntimeHooksFn>);
static_assert(
    std::is_same_v<decltype(&mt_set_async_collective_hooks), MtSetAsyncCollectiveHooksFn>);
static_assert(std::is_same_v<decltype(&mt_set_gradient_ready_hook), MtSetGradientReadyHookFn>);
#define MT_ABI_CHECK_GEMM(t)                                                                       \
  static_assert(std::is_same_v<decltype(&mt_blas_gemm_##t), MtGemmFn>);                            \
  static_assert(std::is_same_v<decltype(&mt_blas_gemm_batched_##t), MtGemmBatchedFn>);
MT_BLAS_GEMM_TYPES(MT_ABI_CHECK_GEMM)
#undef MT_ABI_CHECK_GEMM
static_assert(Arity<MtAllReduceFn>::allI64 && Arity<MtResizeFn>::allI64 &&
              Arity<MtCollectiveWaitFn>::allI64 && Arity<MtGradientReadyFn>::allI64 &&
              Arity<MtAxisIndexFn>::allI64 && Arity<MtAxisIndexFn>::returnsI64 &&
              Arity<MtGemmFn>::allI64 && Arity<MtGemmBatchedFn>::allI64);
static_assert(MT_ABI_HYPER_COUNT == 8, "mt.adamw's verifier and the runtime agree on 8 slots");
static_assert(MT_ABI_AXIS_PP == 1 << 0 && MT_ABI_AXIS_DP == 1 << 1 && MT_ABI_AXIS_TP == 1 << 2,
              "bit i is mesh axis i of [pp, dp, tp]");

/// The mesh axis names in mesh order: bit i of a mask is kMeshAxes[i].
inline constexpr const char *kMeshAxes[MT_ABI_MESH_AXES] = {"pp", "dp", "tp"};

/// The mask bit of a mesh axis name; 0 if it names none.
inline int64_t axisBit(std::string_view name) {
  for (int i = 0; i < MT_ABI_MESH_AXES; ++i)
    if (name == kMeshAxes[i])
      return int64_t{1} << i;
  return 0;
}

} // namespace mt::abi
#endif /* __cplusplus */

#endif /* MT_RUNTIME_ABI_H */

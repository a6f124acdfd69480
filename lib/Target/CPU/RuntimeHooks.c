/* Linked into every native code object mtc produces, for the CPU and for
 * the host side of GPU code. */
/* Collectives and mesh coordinates: mt-lower-to-linalg emits calls to the
 * mt_rt_* functions below (mt/Runtime/Abi.h). The runtime that loads this
 * object installs the functions that do the work (they know the calling
 * rank's communicator) with mt_set_runtime_hooks; a program without
 * collectives never calls them. */
#include "mt/Runtime/Abi.h"

static MtRuntimeHooks runtimeHooks;

void mt_set_runtime_hooks(const MtRuntimeHooks *hooks) { runtimeHooks = *hooks; }

static MtGradientReadyFn gradientReadyHook;

void mt_set_gradient_ready_hook(MtGradientReadyFn hook) { gradientReadyHook = hook; }

void mt_rt_gradient_ready(int64_t index) {
  if (gradientReadyHook)
    gradientReadyHook(index);
}

int64_t mt_rt_axis_index(int64_t axes) {
  return runtimeHooks.axis_index ? runtimeHooks.axis_index(axes) : 0;
}

void mt_rt_all_reduce(int64_t data, int64_t count, int64_t dtype, int64_t reduction, int64_t axes,
                      int64_t label) {
  if (runtimeHooks.all_reduce)
    runtimeHooks.all_reduce(data, count, dtype, reduction, axes, label);
}

void mt_rt_all_gather(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                      int64_t axes, int64_t label) {
  if (runtimeHooks.all_gather)
    runtimeHooks.all_gather(in, out, outer, inner, dtype, axes, label);
}

void mt_rt_reduce_scatter(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                          int64_t axes, int64_t label) {
  if (runtimeHooks.reduce_scatter)
    runtimeHooks.reduce_scatter(in, out, outer, inner, dtype, axes, label);
}

/* Collectives split by mt.collective_wait: a runtime without async hooks
 * runs the whole collective at the start. */
static MtAsyncCollectiveHooks asyncHooks;

void mt_set_async_collective_hooks(const MtAsyncCollectiveHooks *hooks) { asyncHooks = *hooks; }

void mt_rt_all_gather_start(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                            int64_t axes, int64_t label) {
  if (asyncHooks.all_gather_start)
    asyncHooks.all_gather_start(in, out, outer, inner, dtype, axes, label);
  else
    mt_rt_all_gather(in, out, outer, inner, dtype, axes, label);
}

void mt_rt_reduce_scatter_start(int64_t in, int64_t out, int64_t outer, int64_t inner,
                                int64_t dtype, int64_t axes, int64_t label) {
  if (asyncHooks.reduce_scatter_start)
    asyncHooks.reduce_scatter_start(in, out, outer, inner, dtype, axes, label);
  else
    mt_rt_reduce_scatter(in, out, outer, inner, dtype, axes, label);
}

void mt_rt_all_reduce_start(int64_t data, int64_t count, int64_t dtype, int64_t reduction,
                            int64_t axes, int64_t label) {
  if (asyncHooks.all_reduce_start)
    asyncHooks.all_reduce_start(data, count, dtype, reduction, axes, label);
  else
    mt_rt_all_reduce(data, count, dtype, reduction, axes, label);
}

void mt_rt_collective_wait(int64_t out) {
  if (asyncHooks.wait)
    asyncHooks.wait(out);
}

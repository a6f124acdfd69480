//===- TrainingTestSupport.h - rank threads and small plans for tests -*- C++ -*-===//
#ifndef MT_UNITTESTS_TRAINING_TRAININGTESTSUPPORT_H
#define MT_UNITTESTS_TRAINING_TRAININGTESTSUPPORT_H

#include "mt/Plan/BufferNames.h"
#include "mt/Runtime/Comm/ThreadTransport.h"
#include "mt/Runtime/Training/FunctionRunner.h"

#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <vector>

namespace mt::testing {

/// Runs `body(rank, comm)` on `n` rank threads.
inline void onRanks(int n, const std::function<void(int, Communicator &)> &body) {
  ThreadWorld world(n);
  std::vector<std::unique_ptr<ThreadTransport>> transports;
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < n; ++r) {
    transports.push_back(std::make_unique<ThreadTransport>(world, r));
    comms.push_back(std::make_unique<Communicator>(*transports.back(), 20.0));
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] { body(r, *comms[r]); });
  for (auto &t : threads)
    t.join();
}

inline plan::TensorSpec spec(const std::string &name, std::vector<int64_t> shape,
                             plan::DType type = plan::F32) {
  plan::TensorSpec s;
  s.set_name(name);
  for (int64_t d : shape)
    s.add_shape(d);
  s.set_dtype(type);
  return s;
}

/// A plan of `pp` x `dp` x `tp` ranks and nothing else.
inline plan::Plan meshPlan(int64_t pp, int64_t dp, int64_t tp) {
  plan::Plan p;
  plan::Parallelism &par = *p.mutable_config()->mutable_parallel();
  par.set_pipeline_parallel_size(pp);
  par.set_data_parallel_size(dp);
  par.set_tensor_parallel_size(tp);
  return p;
}

inline plan::Parameter &addParameter(plan::Plan &p, const std::string &name,
                                     std::vector<int64_t> shape) {
  plan::Parameter &param = *p.add_parameters();
  param.set_name(name);
  for (int64_t d : shape)
    param.add_shape(d);
  param.set_dtype(plan::F32);
  param.mutable_init()->set_kind(plan::Init::NORMAL);
  param.mutable_init()->set_std(0.02);
  return param;
}

/// Stands in for compiled code: each function name runs a lambda on the
/// store; every call is logged.
class FakeRunner : public FunctionRunner {
public:
  explicit FakeRunner(BufferStore &buffers) : buffers_(buffers) {}
  using Body = std::function<bool(BufferStore &, std::string &)>;
  std::map<std::string, Body> bodies;
  std::vector<std::string> calls;

  bool call(const plan::Function &fn, std::string &error) override {
    for (const auto *specs : {&fn.inputs(), &fn.outputs()})
      for (const plan::TensorSpec &s : *specs)
        if (!buffers::isSaved(s.name()))
          buffers_.ensure(s);
    calls.push_back(fn.name());
    auto it = bodies.find(fn.name());
    return it == bodies.end() || it->second(buffers_, error);
  }

private:
  BufferStore &buffers_;
};

} // namespace mt::testing

#endif // MT_UNITTESTS_TRAINING_TRAININGTESTSUPPORT_H

//===- MpiTransport.h - ranks as MPI processes -----------------*- C++ -*-===//
//
// One rank per process, started by mpirun or srun. Receives poll with a
// deadline (MPI_Improbe, then MPI_Mrecv of the matched message, so two
// threads never take each other's) so that a dead or stuck peer is reported
// instead of waited on forever. With MPI_THREAD_MULTIPLE several threads of
// the rank may use it at once; the queue of unfinished sends is locked.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_MPITRANSPORT_H
#define MT_RUNTIME_COMM_MPITRANSPORT_H

#include "mt/Runtime/Comm/Transport.h"

#include <list>
#include <memory>
#include <mutex>

namespace mt {

class MpiTransport : public Transport {
public:
  /// True when this process was started by an MPI launcher (mpirun, srun).
  static bool launchedByMpi();
  /// This process's index among the launcher's processes on its machine
  /// (Open MPI, MPICH/Hydra, Slurm), or -1 when the launcher does not say:
  /// the GPU a process of a CUDA plan takes.
  static int localRank();
  /// Initializes MPI; false with `error` when it cannot.
  static std::unique_ptr<MpiTransport> create(std::string &error);
  ~MpiTransport() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return "mpi"; }
  /// When the MPI library gives MPI_THREAD_MULTIPLE (else one thread calls it).
  bool concurrent() const override { return multiple_; }
  bool send(int dst, int tag, const void *data, size_t bytes, std::string &error) override;
  RecvStatus recv(int src, int tag, std::vector<char> &message, double timeoutSeconds,
                  std::string &error) override;
  /// Prints `why` and aborts the whole MPI job: the other processes cannot
  /// be told individually, and must not keep waiting.
  void fail(const std::string &why) override;
  /// Waits until every queued send has been delivered (before exiting).
  void flush();

private:
  MpiTransport() = default;
  struct Pending;
  void reap();
  int rank_ = 0, size_ = 1;
  bool multiple_ = false;
  std::mutex mutex_; // guards pending_
  std::list<std::unique_ptr<Pending>> pending_;
};

} // namespace mt

#endif // MT_RUNTIME_COMM_MPITRANSPORT_H

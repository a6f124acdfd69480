//===- MpiTransport.cpp - ranks as MPI processes ---------------------------===//
#include "mt/Runtime/Comm/MpiTransport.h"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace mt {

struct MpiTransport::Pending {
  std::vector<char> data;
  MPI_Request request = MPI_REQUEST_NULL;
};

bool MpiTransport::launchedByMpi() {
  for (const char *v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"})
    if (std::getenv(v))
      return true;
  return false;
}

int MpiTransport::localRank() {
  for (const char *v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char *text = std::getenv(v)) {
      char *end = nullptr;
      long local = std::strtol(text, &end, 10);
      if (end != text && *end == '\0' && local >= 0 && local < (1L << 20))
        return static_cast<int>(local);
    }
  return -1;
}

std::unique_ptr<MpiTransport> MpiTransport::create(std::string &error) {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    error = "MPI_Init_thread failed";
    return nullptr;
  }
  // Errors come back as codes and are reported with context, not by abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::unique_ptr<MpiTransport> t(new MpiTransport());
  MPI_Comm_rank(MPI_COMM_WORLD, &t->rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &t->size_);
  t->multiple_ = provided >= MPI_THREAD_MULTIPLE;
  return t;
}

MpiTransport::~MpiTransport() {
  flush();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Finalize();
}

void MpiTransport::reap() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = pending_.begin(); it != pending_.end();) {
    int done = 0;
    MPI_Test(&(*it)->request, &done, MPI_STATUS_IGNORE);
    it = done ? pending_.erase(it) : std::next(it);
  }
}

void MpiTransport::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto &p : pending_)
    MPI_Wait(&p->request, MPI_STATUS_IGNORE);
  pending_.clear();
}

bool MpiTransport::send(int dst, int tag, const void *data, size_t bytes, std::string &error) {
  reap();
  auto p = std::make_unique<Pending>();
  p->data.assign(static_cast<const char *>(data), static_cast<const char *>(data) + bytes);
  if (MPI_Isend(p->data.data(), static_cast<int>(bytes), MPI_BYTE, dst, tag, MPI_COMM_WORLD,
                &p->request) != MPI_SUCCESS) {
    error = "MPI_Isend to rank " + std::to_string(dst) + " failed";
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.push_back(std::move(p));
  return true;
}

Transport::RecvStatus MpiTransport::recv(int src, int tag, std::vector<char> &message,
                                         double timeoutSeconds, std::string &error) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(timeoutSeconds));
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    int found = 0;
    MPI_Message matched;
    MPI_Status status;
    if (MPI_Improbe(src, tag, MPI_COMM_WORLD, &found, &matched, &status) != MPI_SUCCESS) {
      error = "MPI_Improbe failed";
      return RecvStatus::PeerFailed;
    }
    if (found) {
      int bytes = 0;
      MPI_Get_count(&status, MPI_BYTE, &bytes);
      message.resize(static_cast<size_t>(bytes));
      if (MPI_Mrecv(message.data(), bytes, MPI_BYTE, &matched, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        error = "MPI_Mrecv failed";
        return RecvStatus::PeerFailed;
      }
      return RecvStatus::Ok;
    }
    reap(); // our own sends progress while we wait
    if (std::chrono::steady_clock::now() >= deadline)
      return RecvStatus::TimedOut;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(200));
  }
}

void MpiTransport::fail(const std::string &why) {
  std::fprintf(stderr, "mt-run: rank %d: %s\n", rank_, why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

} // namespace mt

//===- StopRequest.h - SIGTERM and SIGINT ask a run to stop ----*- C++ -*-===//
//
// A preempted cluster job gets SIGTERM, then SIGKILL after a grace period;
// a user stops a run with Ctrl-C (SIGINT). Either one is recorded here and
// the run stops at its next step boundary, where the ranks agree on it
// (so all of them stop after the same step) and save a checkpoint. A
// second signal ends the process at once, as if no handler were installed.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_STOPREQUEST_H
#define MT_RUNTIME_TRAINING_STOPREQUEST_H

namespace mt {

/// Installs the handlers of SIGTERM and SIGINT (system calls they interrupt
/// restart).
void installStopHandlers();

/// The signal that asked the process to stop (SIGTERM or SIGINT), or 0.
int stopSignal();

/// Records `signal` as a handler would (the first one wins).
void requestStop(int signal);

/// "SIGTERM", "SIGINT", else "signal N".
const char *stopSignalName(int signal);

/// The exit status of a run that stopped on `signal` after saving: 128 +
/// the signal, as a shell reports a process the signal ended.
inline int stopExitCode(int signal) { return 128 + signal; }

} // namespace mt

#endif // MT_RUNTIME_TRAINING_STOPREQUEST_H

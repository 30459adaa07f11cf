// SIGINT / SIGTERM handlers of the trainer (see Interrupt.h).
#include "tile/models/Interrupt.h"

#include <signal.h>

#include <atomic>
#include <stdexcept>
#include <utility>

namespace tile::models {

namespace {

// Lock-free, so the handler may touch it (async-signal-safe); see the static_assert.
std::atomic<int> gSignal{0};
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<bool> gInstalled{false};
struct sigaction gPreviousInt, gPreviousTerm;

void onSignal(int sig) {
  int none = 0;
  if (gSignal.compare_exchange_strong(none, sig)) return; // the first: the loop stops at its next step
  // The second: the user means it. Default disposition, then the signal again; it stays blocked
  // until this handler returns and then ends the process.
  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);
}

} // namespace

InterruptHandlers::InterruptHandlers() {
  if (gInstalled.exchange(true)) throw std::logic_error("InterruptHandlers: already installed");
  gSignal = 0;
  struct sigaction sa{};
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART; // a read or write in flight goes on; the loop checks the flag itself
  for (auto [sig, previous] : {std::pair{SIGINT, &gPreviousInt}, std::pair{SIGTERM, &gPreviousTerm}}) {
    sigaction(sig, nullptr, previous);
    // An ignored signal stays ignored: a shell without job control starts `tile-mnist &` with
    // SIGINT ignored so that Ctrl-C at the prompt spares it, and so does nohup-like tooling.
    if (previous->sa_handler != SIG_IGN) sigaction(sig, &sa, nullptr);
  }
}

InterruptHandlers::~InterruptHandlers() {
  sigaction(SIGINT, &gPreviousInt, nullptr);
  sigaction(SIGTERM, &gPreviousTerm, nullptr);
  gSignal = 0;
  gInstalled = false;
}

int interruptSignal() { return gSignal.load(std::memory_order_relaxed); }

const char *signalName(int signal) {
  switch (signal) {
  case SIGINT: return "SIGINT";
  case SIGTERM: return "SIGTERM";
  default: return "a signal";
  }
}

} // namespace tile::models

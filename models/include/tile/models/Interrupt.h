// Ctrl-C for the trainer: the first SIGINT / SIGTERM asks the training loop to stop at the next
// step boundary (after saving its checkpoint); the second ends the process at once.
#pragma once

namespace tile::models {

/// While one lives, the first SIGINT or SIGTERM only records itself (interruptSignal());
/// runTraining sees it at the next step boundary, saves the checkpoint and returns 128 + the
/// signal. A second one restores the default disposition and re-raises itself: the process ends
/// as the signal's default says, checkpoint or not. Only the trainer's main() creates one, so a
/// program that merely links the library keeps its own signal handling. A signal the process
/// inherited as ignored (`cmd &` in a script) stays ignored. The destructor restores
/// the previous dispositions and clears the record. One at a time (a second throws std::logic_error).
class InterruptHandlers {
public:
  InterruptHandlers();
  ~InterruptHandlers();
  InterruptHandlers(const InterruptHandlers &) = delete;
  InterruptHandlers &operator=(const InterruptHandlers &) = delete;
};

/// The signal recorded while InterruptHandlers lives (SIGINT or SIGTERM); 0 when none.
int interruptSignal();

/// "SIGINT" / "SIGTERM" ("a signal" for others), for messages.
const char *signalName(int signal);

} // namespace tile::models

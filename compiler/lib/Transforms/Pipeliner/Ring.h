//===- Ring.h - the pipeliner's rings: buffers, mbarriers, slots, phases --===//
// Every schedule stages its copies in a Ring: `stages` slots, each holding one buffer per
// pipelined load, and for TMA copies one mbarrier per slot (`full`) that the slot's copies
// complete; a warp-specialised ring has a second mbarrier per slot (`empty`) that the slot's
// readers arrive on. Iteration g (numbered from 0, across tiles where the ring outlives one K
// loop) uses slot g % stages, and its copies complete that slot's (g / stages)-th phase, so
// a reader waits for parity (g / stages) & 1.
#ifndef TILE_TRANSFORMS_PIPELINER_RING_H
#define TILE_TRANSFORMS_PIPELINER_RING_H

#include "Pipeliner.h"

namespace mlir::tile::pipeliner {

/// Integer arithmetic in one type (a loop's induction type: index or iN) at one location:
/// every index computation of the schedules goes through it.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Type type;

  Value cst(int64_t v) const;
  Value add(Value x, Value y) const;
  Value sub(Value x, Value y) const;
  Value mul(Value x, Value y) const;
  Value divu(Value x, Value y) const;
  Value remu(Value x, Value y) const;
  Value cmp(arith::CmpIPredicate p, Value x, Value y) const;
  /// `v` as i32 (slots and phases are i32): cast from index, truncated from a wider type.
  Value i32(Value v) const;
  /// The 0-based iteration, (iv - from) / by, of induction value `iv` of a loop from `from`
  /// by `by`.
  Value iteration(Value iv, Value from, Value by) const;
  /// `loop`'s trip count (its bounds must be defined at the insertion point).
  Value tripCount(scf::ForOp loop) const;
};

class Ring {
public:
  /// One ring of `stages` buffers per candidate, at `b`; no mbarriers yet.
  static Ring allocate(OpBuilder &b, Location loc, ArrayRef<Candidate> cands, int stages);
  /// The `full` mbarriers of TMA copies (one arrival: the thread that arms them),
  /// initialised and published by a barrier before any thread waits on them.
  void createFullBarriers(OpBuilder &b, Location loc);
  /// Warp-specialised: for each pipeline (candidate indices), `full` as above and `empty`,
  /// `consumerWarps` arrivals per phase.
  void createProducerConsumerBarriers(OpBuilder &b, Location loc, int consumerWarps,
                                      ArrayRef<SmallVector<unsigned>> pipelines);

  int stages() const { return numStages; }
  unsigned numPipelines() const { return pipes.size(); }
  /// The candidates of pipeline `pipe`.
  ArrayRef<unsigned> members(unsigned pipe) const { return pipes[pipe].members; }

  /// i32 slot of iteration `g`: g % stages.
  Value slot(const IndexMath &m, Value g) const;
  /// i32 parity of the phase iteration `g`'s copies complete: (g / stages) & 1.
  Value phase(const IndexMath &m, Value g) const;
  /// i32 parity a producer waits for on slot g % stages's `empty` mbarrier before refilling
  /// it for iteration g: the phase the slot's readers of iteration g - stages completed,
  /// (g / stages - 1) & 1. On a fresh mbarrier parity 1 returns at once, so the first
  /// `stages` iterations do not wait.
  Value emptyPhase(const IndexMath &m, Value g) const;

  /// mbarrier `slot` of `bars` (full or empty).
  Value barrierAt(OpBuilder &b, Location loc, Value bars, Value slot) const;
  Value full(unsigned pipe = 0) const { return pipes[pipe].full; }
  Value empty(unsigned pipe = 0) const { return pipes[pipe].empty; }

  /// Candidate `i`'s buffer in slot `slot`.
  Value slotView(OpBuilder &b, Location loc, unsigned i, Value slot) const;

  /// Every thread waits until iteration `g`'s TMA copies of pipeline `pipe` have landed.
  void waitFull(const IndexMath &m, Value g, unsigned pipe = 0) const;
  /// The same, given that iteration's slot and phase.
  void waitFull(OpBuilder &b, Location loc, Value slot, Value parity, unsigned pipe) const;
  /// Where `pred` holds, thread 0 arms pipeline `pipe`'s full mbarrier `slot` with the bytes of
  /// its TMA candidates and copies their blocks at `offsets` (one list per TMA candidate of
  /// `cands`, in order) into it.
  void issueTma(OpBuilder &b, Location loc, ArrayRef<Candidate> cands, ArrayRef<SmallVector<Value>> offsets, Value slot,
                Value pred, unsigned pipe = 0) const;
  /// The candidates' buffers become views of slot `slot`; their loads and buffers go.
  void readFromSlot(OpBuilder &b, Location loc, MutableArrayRef<Candidate> cands, Value slot) const;
  /// Once no thread waits on an mbarrier any more: a barrier, then the mbarriers invalidated.
  void releaseBarriers(OpBuilder &b, Location loc) const;

private:
  /// Candidates whose copies one pair of mbarrier rings counts.
  struct Pipeline {
    SmallVector<unsigned> members;
    Value full, empty;
  };
  int numStages = 0;
  SmallVector<Value> buffers; ///< per candidate: stages x its buffer
  SmallVector<Pipeline> pipes;
};

} // namespace mlir::tile::pipeliner

#endif

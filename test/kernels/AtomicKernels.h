//===- AtomicKernels.h - every atomic, a spin lock, a ticket counter -------===//
// Kernels the CPU tests (cpu_atomic_tests.cpp) and, compiled ahead of time, the GPU tests
// (test/gpu/atomic_gpu_tests.cpp) run; test/common/AtomicCheck.h checks their results.
#pragma once

#include "tile/tile.h"

#include "../common/AtomicCheck.h"

namespace tile::testing {

/// The memory order of kind i of atomic_kinds: every sem and every scope among the kinds.
inline AtomicOrder atomicOrderOf(size_t i) {
  static const AtomicOrder orders[] = {{MemSem::Relaxed, MemScope::Gpu},
                                       {MemSem::Acquire, MemScope::Cta},
                                       {MemSem::Release, MemScope::Sys},
                                       {MemSem::AcqRel, MemScope::Gpu}};
  return orders[i % std::size(orders)];
}

/// atomic_kinds_<type>: for each kind of testutil::atomicKinds<T>() (one memory order each),
/// every element i < n with i % 7 != 3 applies values[i] to tables[kind][i % K] and writes the
/// old value to olds[kind][i] (0 for the masked-off i % 7 == 3).
template <class T> const auto &atomicKindsKernel() {
  static const auto k = tile::kernel(testutil::atomicKernelName<T>(),
                                     [](Ptr<T> values, Ptr<T> tables, Ptr<T> olds, I32 n, I32 K, Const<int> BLOCK) {
                                       Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
                                       Value inside = offs < n;
                                       Value mask = inside & (offs % 7 != 3);
                                       Value v = load(values + offs, inside);
                                       Value slot = offs % K;
                                       const auto kinds = testutil::atomicKinds<T>();
                                       for (size_t i = 0; i < kinds.size(); ++i) {
                                         Value at = tables + int(i) * K + slot;
                                         const AtomicOrder order = atomicOrderOf(i);
                                         Value old;
                                         switch (kinds[i]) {
                                         case testutil::AtomicTestKind::Add:
                                           old = atomic_add(at, v, mask, order);
                                           break;
                                         case testutil::AtomicTestKind::Max:
                                           old = atomic_max(at, v, mask, order);
                                           break;
                                         case testutil::AtomicTestKind::Min:
                                           old = atomic_min(at, v, mask, order);
                                           break;
                                         case testutil::AtomicTestKind::And:
                                           old = atomic_and(at, v, mask, order);
                                           break;
                                         case testutil::AtomicTestKind::Or: old = atomic_or(at, v, mask, order); break;
                                         case testutil::AtomicTestKind::Xor:
                                           old = atomic_xor(at, v, mask, order);
                                           break;
                                         case testutil::AtomicTestKind::Xchg:
                                           old = atomic_xchg(at, v, mask, order);
                                           break;
                                         }
                                         store(olds + int(i) * n + offs, old, inside);
                                       }
                                     });
  return k;
}

/// Each program tries `tries` times to take the lock (compare-and-swap 0 -> 1, acquire);
/// holding it, it adds one to the counter with a plain load and store and releases the lock
/// (exchange to 0, release). acquired[program] = whether it got the lock.
inline const auto &spinLockKernel() {
  static const auto k =
      tile::kernel("spin_lock", [](Ptr<int32_t> lock, Ptr<int32_t> counter, Ptr<int32_t> acquired, I32 tries) {
        const AtomicOrder acquire{MemSem::Acquire, MemScope::Gpu}, release{MemSem::Release, MemScope::Gpu};
        Value done = for_range(0, tries, 1, constant(0, DType::i32), [&](Value, Value got) {
          return if_then_else(
              got == 0,
              [&] {
                Value old = atomic_cas(lock, 0, 1, acquire);
                return if_then_else(
                    old == 0,
                    [&] {
                      store(counter, load(counter) + 1);
                      atomic_xchg(lock, 0, Value(), release);
                      return std::vector<Value>{constant(1, DType::i32)};
                    },
                    [&] { return std::vector<Value>{constant(0, DType::i32)}; });
              },
              [&] { return std::vector<Value>{got}; })[0];
        });
        store(acquired + program_id(0), done);
      });
  return k;
}

/// Each program takes a ticket (a scalar atomic_add on the counter) and fills row `ticket` of
/// `rows` ([programs, BLOCK]) with its program id: every thread must see the ticket. It also
/// adds its block's maximum of `values` to the running maximum (a lock-free reduction:
/// atomic_max of a scalar).
inline const auto &ticketKernel() {
  static const auto k = tile::kernel("ticket_counter", [](Ptr<int32_t> counter, Ptr<int32_t> tickets, Ptr<int32_t> rows,
                                                          Ptr<float> values, Ptr<float> maximum, Const<int> BLOCK) {
    Value ticket = atomic_add(counter, 1);
    store(tickets + program_id(0), ticket);
    Value cols = arange(0, BLOCK);
    store(rows + ticket * BLOCK + cols, full({BLOCK}, program_id(0), DType::i32));
    atomic_max(maximum, max(load(values + program_id(0) * BLOCK + cols), 0));
  });
  return k;
}

} // namespace tile::testing

// Atomics on the CPU executor: every kind (add, max, min, and, or, xor, xchg; cas) on
// i32, i64, f32 and f64, with masks and every memory order, colliding on a few addresses
// (test/common/AtomicCheck.h: the old values must chain); a spin lock built from
// compare-and-swap and exchange; a ticket counter whose scalar old value places a whole row;
// a lock-free maximum. The GPU runs the same kernels (test/gpu/atomic_gpu_tests.cpp).
#include "cpu_test_util.h"

#include "AtomicKernels.h"

#include <numeric>

using namespace tile;
using namespace tile::cputest;
using namespace tile::testutil;

namespace {

/// Programs on four threads, so that atomics on one address really contend.
struct FourThreads {
  FourThreads() { setenv("TILE_CPU_THREADS", "4", 1); }
  ~FourThreads() { unsetenv("TILE_CPU_THREADS"); }
};

class CpuAtomics : public Seeded {
protected:
  FourThreads threads;
  template <class T> void checkKinds(int n, int K) {
    const size_t kinds = atomicKinds<T>().size();
    std::vector<T> values(n), init(kinds * K), olds(kinds * n, T(7));
    for (T &v : values) v = T(uniformInt(-1000, 1000)) * (std::is_integral_v<T> ? T(1 << 20) + T(1) : T(1));
    for (T &v : init) v = T(uniformInt(-50, 50));
    std::vector<T> tables = init;
    tile::testing::atomicKindsKernel<T>().launch({cdiv(n, 128)}, cpuOptions(), values.data(), tables.data(),
                                                 olds.data(), n, K, 128);
    const std::string errors = checkAtomicKinds(values, init, tables, olds, n, K);
    EXPECT_TRUE(errors.empty()) << errors;
  }
};

TEST_F(CpuAtomics, EveryKindChains) {
  checkKinds<int32_t>(1000, 5);
  checkKinds<int64_t>(777, 3);
  checkKinds<float>(1000, 4);
  checkKinds<double>(300, 1);
}

/// The check itself fails on a wrong old value, a wrong final value and a masked-off write.
TEST_F(CpuAtomics, ChecksCatchWrongResults) {
  const int n = 10, K = 2;
  std::vector<int32_t> values(n, 1), init(7 * K, 0), tables(7 * K, 0), olds(7 * size_t(n), 0);
  // add: slot s gets the elements i = s, s + 2, ... except i % 7 == 3; chain them properly.
  for (int s = 0; s < K; ++s) {
    int32_t v = 0;
    for (int i = s; i < n; i += K)
      if (i % 7 != 3) olds[i] = v++;
    tables[s] = v;
  }
  // The other kinds: every element's old value is the initial 0, which chains only if the
  // operation kept it (max with 1 does not), so restrict the check to add's rows being right.
  std::string errors = checkAtomicKinds(values, init, tables, olds, n, K);
  EXPECT_EQ(errors.find("add:"), std::string::npos) << errors;
  auto bad = olds;
  bad[0] = 5;
  EXPECT_NE(checkAtomicKinds(values, init, tables, bad, n, K).find("add: slot 0"), std::string::npos);
  bad = olds;
  bad[3] = 1; // masked off
  EXPECT_NE(checkAtomicKinds(values, init, tables, bad, n, K).find("masked-off element 3"), std::string::npos);
  auto badTables = tables;
  badTables[1] += 1;
  EXPECT_NE(checkAtomicKinds(values, init, badTables, olds, n, K).find("add: slot 1"), std::string::npos);
}

TEST_F(CpuAtomics, SpinLockCountsEveryHolderOnce) {
  const int programs = 64;
  int32_t lock = 0, counter = 0;
  std::vector<int32_t> acquired(programs, -1);
  tile::testing::spinLockKernel().launch({programs}, cpuOptions(), &lock, &counter, acquired.data(), 1 << 18);
  const int holders = std::accumulate(acquired.begin(), acquired.end(), 0);
  EXPECT_EQ(lock, 0) << "the lock was left held";
  EXPECT_EQ(counter, holders) << "an update was lost: two programs held the lock at once";
  // A thread the OS preempts while it holds the lock can outlast the others' tries on a busy
  // machine, so not every program need get it here (the GPU test asks that of 1024).
  EXPECT_GT(holders, programs / 2);
}

TEST_F(CpuAtomics, TicketsAreUniqueAndEveryThreadSeesThem) {
  const int programs = 50, block = 64;
  int32_t counter = 0;
  std::vector<int32_t> tickets(programs, -1), rows(size_t(programs) * block, -1);
  std::vector<float> values = randomFloats(size_t(programs) * block);
  float maximum = -1e30f;
  tile::testing::ticketKernel().launch({programs}, cpuOptions(), &counter, tickets.data(), rows.data(), values.data(),
                                       &maximum, block);
  EXPECT_EQ(counter, programs);
  std::vector<int32_t> sorted = tickets;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < programs; ++i) ASSERT_EQ(sorted[i], i) << "tickets are not 0..programs-1";
  for (int p = 0; p < programs; ++p)
    for (int j = 0; j < block; ++j) ASSERT_EQ(rows[size_t(tickets[p]) * block + j], p) << "row " << tickets[p];
  EXPECT_EQ(maximum, *std::max_element(values.begin(), values.end()));
}

/// What the hardware has no atomic for is refused at the user's line.
TEST_F(CpuAtomics, RefusesWhatTheHardwareLacks) {
  auto floatAnd = tile::kernel("float_and", [](Ptr<float> p) { atomic_and(p, 1.0f); });
  float f = 0;
  try {
    floatAnd.launch({1}, cpuOptions(), &f);
    FAIL() << "atomic_and on f32 was accepted";
  } catch (const ProgramError &e) {
    EXPECT_NE(std::string(e.what()).find("cpu_atomic_tests.cpp:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tile::atomic_and needs integers, got f32"), std::string::npos) << e.what();
  }
  auto halfMax = tile::kernel("half_max", [](Ptr<f16> p) { atomic_max(p, 1.0f); });
  f16 h{0};
  EXPECT_THROW(halfMax.launch({1}, cpuOptions(), &h), ProgramError);
}

} // namespace

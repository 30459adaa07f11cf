// Atomics on the GPU: the kernels and checks of the CPU executor's cpu_atomic_tests.cpp,
// compiled ahead of time. Every kind on i32, i64, f32 and f64 under every memory order and
// scope, thousands of colliding atomics per address; a spin lock across 1024 programs (at
// most a few resident per SM, so holders are preempted by nothing but each other); a ticket
// counter whose scalar old value every thread of the program must see (it places a row);
// a lock-free maximum.
#include "SeededGpuTest.h"
#include "test_kernels_aot.h"

#include "tile/runtime/Memory.h"

#include <gtest/gtest.h>

#include "../common/AtomicCheck.h"

#include <algorithm>
#include <numeric>
#include <random>

using namespace tile;
using namespace tile::rt;
using namespace tile::testutil;

namespace {

AotLaunchConfig grid(unsigned x) { return AotLaunchConfig{Dim3{x, 1, 1}, 4, nullptr}; }

class AtomicGpu : public tile::testing::SeededGpuTest {
protected:
  template <class T, class Launch> void checkKinds(int n, int K, Launch launch) {
    std::uniform_int_distribution<int> d(-1000, 1000), small(-50, 50);
    const size_t kinds = atomicKinds<T>().size();
    std::vector<T> values(n), init(kinds * K);
    for (T &v : values) v = T(d(gen_)) * (std::is_integral_v<T> ? T(1 << 20) + T(1) : T(1));
    for (T &v : init) v = T(small(gen_));
    DeviceBuffer dv = DeviceBuffer::fromHost(values), dt = DeviceBuffer::fromHost(init);
    DeviceBuffer dolds(kinds * n * sizeof(T));
    dolds.fillBytes(0xFF);
    launch(grid(unsigned((n + 127) / 128)), dv.ptr(), dt.ptr(), dolds.ptr(), n, K);
    const std::string errors =
        checkAtomicKinds(values, init, dt.toHost<T>(kinds * K), dolds.toHost<T>(kinds * n), n, K);
    EXPECT_TRUE(errors.empty()) << errors;
  }
};

} // namespace

TEST_F(AtomicGpu, EveryKindChains) {
  checkKinds<int32_t>(100000, 5, [](auto... a) { aot_test::atomic_kinds_i32(a..., 128); });
  checkKinds<int64_t>(50000, 3, [](auto... a) { aot_test::atomic_kinds_i64(a..., 128); });
  checkKinds<float>(100000, 4, [](auto... a) { aot_test::atomic_kinds_f32(a..., 128); });
  checkKinds<double>(30000, 1, [](auto... a) { aot_test::atomic_kinds_f64(a..., 128); });
}

TEST_F(AtomicGpu, SpinLockCountsEveryHolderOnce) {
  const int programs = 1024;
  auto lock = DeviceBuffer::fromHost(std::vector<int32_t>{0}),
       counter = DeviceBuffer::fromHost(std::vector<int32_t>{0});
  DeviceBuffer acquired(programs * 4);
  acquired.fillBytes(0xFF);
  aot_test::spin_lock(grid(programs), lock.ptr(), counter.ptr(), acquired.ptr(), 1 << 20);
  auto got = acquired.toHost<int32_t>(programs);
  const int holders = std::accumulate(got.begin(), got.end(), 0);
  EXPECT_EQ(lock.toHost<int32_t>(1)[0], 0) << "the lock was left held";
  EXPECT_EQ(counter.toHost<int32_t>(1)[0], holders) << "an update was lost: two programs held the lock at once";
  EXPECT_EQ(holders, programs) << "a program never got the lock";
}

TEST_F(AtomicGpu, TicketsAreUniqueAndEveryThreadSeesThem) {
  const int programs = 500, block = 64;
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  std::vector<float> values(size_t(programs) * block);
  for (float &v : values) v = u(gen_);
  auto counter = DeviceBuffer::fromHost(std::vector<int32_t>{0});
  auto maximum = DeviceBuffer::fromHost(std::vector<float>{-1e30f});
  auto dv = DeviceBuffer::fromHost(values);
  DeviceBuffer tickets(programs * 4), rows(size_t(programs) * block * 4);
  tickets.fillBytes(0xFF);
  rows.fillBytes(0xFF);
  aot_test::ticket_counter(grid(programs), counter.ptr(), tickets.ptr(), rows.ptr(), dv.ptr(), maximum.ptr(), block);
  EXPECT_EQ(counter.toHost<int32_t>(1)[0], programs);
  auto t = tickets.toHost<int32_t>(programs);
  auto r = rows.toHost<int32_t>(size_t(programs) * block);
  std::vector<int32_t> sorted = t;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < programs; ++i) ASSERT_EQ(sorted[i], i) << "tickets are not 0..programs-1";
  for (int p = 0; p < programs; ++p)
    for (int j = 0; j < block; ++j) ASSERT_EQ(r[size_t(t[p]) * block + j], p) << "row " << t[p] << " column " << j;
  EXPECT_EQ(maximum.toHost<float>(1)[0], *std::max_element(values.begin(), values.end()));
}

//===- fuzz_dsl_tracer.cpp - fuzz target: random DSL programs through tracer + compiler -===//
// The input bytes choose a program of the random-program generator (test/unit/
// cpu_random_kernels.h: valid DSL programs over every op class, rank 2 and 3, loops, branches)
// and how to compile it (num_warps, target sm). The program is traced by the DSL and compiled
// through the whole GPU pipeline to PTX. Every generated program is valid, so any exception is
// a bug: it aborts with the seed (the fuzzer saves the input). Without a GPU nothing runs;
// cpu_random_kernels_test runs such programs on the CPU executor against float64.
#include "cpu_random_kernels.h"

#include "tile/Error.h"
#include "tile/tile.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // FNV-1a of the bytes: every input, however short or long, picks some program.
  uint64_t seed = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) seed = (seed ^ data[i]) * 0x100000001b3ULL;
  static const int warps[] = {1, 2, 4, 8};
  // sm_75: no tensor cores and no cvt.rna.tf32 (TF32 dots round in software there).
  static const int sms[] = {75, 80, 90, 90};
  int numWarps = warps[(seed >> 56) % 4];
  int sm = sms[(seed >> 60) % 4];
  try {
    tile::randomkernels::RandomCase c = tile::randomkernels::makeRandomCase(seed);
    tile::CompileRequest req;
    req.sm = sm;
    req.useDiskCache = false; // every run compiles: the pipeline is what is fuzzed
    tile::CompileResult r = c.kernel->compile(c.specialization(numWarps, (seed >> 40) & 1), req);
    if (r.kernel.ptx.find(".entry") == std::string::npos) {
      std::fprintf(stderr, "fuzz_dsl_tracer: seed %llu: PTX without an entry\n", (unsigned long long)seed);
      std::abort();
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "fuzz_dsl_tracer: seed %llu (num_warps %d, sm_%d): %s\n", (unsigned long long)seed, numWarps,
                 sm, e.what());
    std::abort();
  }
  return 0;
}

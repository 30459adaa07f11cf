//===- CaseBuilder.cpp ----------------------------------------------------===//
#include "CaseBuilder.h"

#include "tile/Compiler.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace tile::diff {

TensorDescArg descriptorArg(uint64_t base, const Descriptor &d) {
  TensorDescArg a;
  a.base = base;
  a.rank = d.shape.size() == d.strides.size() && d.shape.size() <= size_t(kMaxDescRank) ? int(d.shape.size()) : -1;
  for (size_t k = 0; k < d.shape.size() && k < size_t(kMaxDescRank); ++k) a.shape[k] = d.shape[k];
  for (size_t k = 0; k < d.strides.size() && k < size_t(kMaxDescRank); ++k) a.strides[k] = d.strides[k];
  return a;
}

rt::DiffCase makeCase(const KernelBase &kernel, std::string name, uint64_t seed, Grid grid, int numWarps,
                      std::vector<Arg> args, double tolerance) {
  const auto &params = kernel.params();
  if (args.size() != params.size()) throw std::invalid_argument(name + ": one argument per kernel parameter");
  rt::DiffCase c;
  c.name = std::move(name);
  c.seed = seed;
  c.grid = rt::Dim3{grid.x, grid.y, grid.z};
  c.tolerance = tolerance;

  // The CPU run works on copies: the case keeps the inputs as they were.
  std::vector<std::vector<uint8_t>> work(args.size());
  std::vector<uint64_t> addresses(args.size());
  std::vector<int32_t> i32(args.size());
  std::vector<int64_t> i64(args.size());
  std::vector<float> f32(args.size());
  std::vector<uint16_t> bits16(args.size()); // f16 / bf16 scalars
  std::vector<uint8_t> bools(args.size());
  std::vector<TensorDescParam> descs(args.size());
  std::vector<void *> launchParams;
  std::vector<std::unique_ptr<cpu::ScopedBuffer>> registered;
  Specialization spec;
  spec.numWarps = numWarps;
  for (size_t i = 0; i < args.size(); ++i) {
    ArgSpec a;
    a.kind = params[i].kind;
    switch (a.kind) {
    case ArgKind::Ptr: {
      const Buffer &b = std::get<Buffer>(args[i]);
      work[i] = b.bytes;
      addresses[i] = reinterpret_cast<uint64_t>(work[i].data());
      registered.push_back(std::make_unique<cpu::ScopedBuffer>(work[i].data(), work[i].size(), b.initialized));
      a.div16 = isDiv16(addresses[i]);
      launchParams.push_back(&addresses[i]);
      break;
    }
    case ArgKind::I32:
      i32[i] = static_cast<int32_t>(std::get<Scalar>(args[i]).value);
      a.div16 = isDiv16(static_cast<uint64_t>(i32[i]));
      a.one = i32[i] == 1;
      launchParams.push_back(&i32[i]);
      break;
    case ArgKind::I64:
      i64[i] = std::get<Scalar>(args[i]).value;
      a.div16 = isDiv16(static_cast<uint64_t>(i64[i]));
      a.one = i64[i] == 1;
      launchParams.push_back(&i64[i]);
      break;
    case ArgKind::F32:
      f32[i] = std::get<Float>(args[i]).value;
      launchParams.push_back(&f32[i]);
      break;
    case ArgKind::F16:
    case ArgKind::BF16: {
      float v = std::get<Float>(args[i]).value;
      bits16[i] = a.kind == ArgKind::F16 ? tile::halfBits(v) : tile::bf16Bits(v);
      launchParams.push_back(&bits16[i]);
      break;
    }
    case ArgKind::I1:
      bools[i] = std::get<Scalar>(args[i]).value != 0;
      launchParams.push_back(&bools[i]);
      break;
    case ArgKind::Const: a.constValue = std::get<Constant>(args[i]).value; break;
    case ArgKind::Desc: {
      const Descriptor &d = std::get<Descriptor>(args[i]);
      if (d.baseArg >= i || params[d.baseArg].kind != ArgKind::Ptr)
        throw std::invalid_argument(c.name + ": a descriptor's base is an earlier pointer argument");
      TensorDescArg host = descriptorArg(addresses[d.baseArg], d);
      if (std::string why = checkTensorDesc(c.name + ", argument " + std::to_string(i), host, params[i].rank,
                                            int(dtypeBytes(params[i].dtype)));
          !why.empty())
        throw std::invalid_argument(why);
      descs[i] = toTensorDescParam(host);
      a.div16 = std::all_of(d.shape.begin(), d.shape.end(), [](int64_t e) { return e % 16 == 0; });
      launchParams.push_back(&descs[i]);
      break;
    }
    }
    spec.args.push_back(a);
  }

  LaunchOptions opts;
  opts.numWarps = numWarps;
  opts.executor = Executor::CPU;
  opts.check = true;
  kernel.launchSpecialized(grid, opts, spec, launchParams.data());

  CompileRequest req;
  req.sm = 90;
  req.ptxVersion = compiler::minPtxVersionFor(90);
  c.kernel = kernel.compile(spec, req).kernel;

  for (size_t i = 0; i < args.size(); ++i) {
    if (params[i].kind == ArgKind::Const) continue;
    rt::DiffArg d;
    d.kind = params[i].kind;
    if (d.kind == ArgKind::Ptr) {
      const Buffer &b = std::get<Buffer>(args[i]);
      d.elem = b.elem;
      d.input = b.bytes;
      if (b.output) d.expected = work[i];
    } else if (d.kind == ArgKind::F32) {
      d.f32 = f32[i];
    } else if (d.kind == ArgKind::F16 || d.kind == ArgKind::BF16) {
      d.scalar = bits16[i];
    } else if (d.kind == ArgKind::I1) {
      d.scalar = bools[i];
    } else if (d.kind == ArgKind::Desc) {
      const Descriptor &desc = std::get<Descriptor>(args[i]);
      d.descBase = int(desc.baseArg);
      d.descShape = desc.shape;
      d.descStrides = desc.strides;
    } else {
      d.scalar = d.kind == ArgKind::I32 ? i32[i] : i64[i];
    }
    c.args.push_back(std::move(d));
  }
  return c;
}

} // namespace tile::diff

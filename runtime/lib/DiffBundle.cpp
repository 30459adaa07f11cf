//===- DiffBundle.cpp - the differential-testing bundle format ------------===//
// Layout: "TILEDIFF", u32 version, u32 case count, the cases, then the FNV-1a 64 of
// everything before it. Integers little-endian; strings and byte arrays length-prefixed; a
// case's kernel is its encoded CompiledKernel (the disk cache's serialisation).
#include "tile/runtime/DiffBundle.h"

#include "tile/runtime/Error.h"
#include "tile/runtime/Hash.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

namespace tile::rt {
namespace {

constexpr char kMagic[8] = {'T', 'I', 'L', 'E', 'D', 'I', 'F', 'F'};
constexpr uint32_t kVersion = 4; // 3: the kernel as an encoded CompiledKernel; 4: descriptor arguments

class Writer {
public:
  std::string out;
  template <class T> void pod(T v) { out.append(reinterpret_cast<const char *>(&v), sizeof v); }
  void bytes(const void *p, size_t n) {
    pod<uint64_t>(n);
    out.append(static_cast<const char *>(p), n);
  }
  void str(const std::string &s) { bytes(s.data(), s.size()); }
  void vec(const std::vector<uint8_t> &v) { bytes(v.data(), v.size()); }
};

class Reader {
public:
  Reader(const std::string &data, std::string path) : data_(data), path_(std::move(path)) {}
  template <class T> T pod() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  std::string str() {
    uint64_t n = pod<uint64_t>();
    need(n);
    std::string s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<uint8_t> vec() {
    std::string s = str();
    return std::vector<uint8_t>(s.begin(), s.end());
  }

private:
  void need(uint64_t n) {
    if (n > data_.size() - pos_) throw Error("tile: differential bundle " + path_ + " is truncated or corrupt");
  }
  const std::string &data_;
  std::string path_;
  size_t pos_ = sizeof kMagic;
};

double elementAt(DiffElem e, const uint8_t *p, size_t i) {
  auto half = [](uint16_t h) {
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v = exp == 0    ? std::ldexp(mant, -24)
               : exp == 31 ? (mant ? NAN : INFINITY)
                           : std::ldexp(mant | 0x400, exp - 25);
    return (h & 0x8000) ? -v : v;
  };
  switch (e) {
  case DiffElem::F32: {
    float v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case DiffElem::F64: {
    double v;
    std::memcpy(&v, p + 8 * i, 8);
    return v;
  }
  case DiffElem::F16: {
    uint16_t h;
    std::memcpy(&h, p + 2 * i, 2);
    return half(h);
  }
  case DiffElem::BF16: {
    uint16_t h;
    std::memcpy(&h, p + 2 * i, 2);
    uint32_t b = uint32_t(h) << 16;
    float v;
    std::memcpy(&v, &b, 4);
    return v;
  }
  case DiffElem::I8: return static_cast<int8_t>(p[i]);
  case DiffElem::I32: {
    int32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case DiffElem::I64: {
    int64_t v;
    std::memcpy(&v, p + 8 * i, 8);
    return static_cast<double>(v);
  }
  }
  return 0;
}

size_t elementBytes(DiffElem e) {
  switch (e) {
  case DiffElem::F16:
  case DiffElem::BF16: return 2;
  case DiffElem::I8: return 1;
  case DiffElem::F64:
  case DiffElem::I64: return 8;
  default: return 4;
  }
}

} // namespace

void writeDiffBundle(const std::string &path, const std::vector<DiffCase> &cases) {
  Writer w;
  w.out.append(kMagic, sizeof kMagic);
  w.pod<uint32_t>(kVersion);
  w.pod<uint32_t>(static_cast<uint32_t>(cases.size()));
  for (const DiffCase &c : cases) {
    w.str(c.name);
    w.pod<uint64_t>(c.seed);
    w.str(encodeCompiledKernel(c.kernel));
    w.pod<uint32_t>(c.grid.x), w.pod<uint32_t>(c.grid.y), w.pod<uint32_t>(c.grid.z);
    w.pod<double>(c.tolerance);
    w.pod<uint32_t>(static_cast<uint32_t>(c.args.size()));
    for (const DiffArg &a : c.args) {
      w.pod<uint8_t>(static_cast<uint8_t>(a.kind));
      w.pod<uint8_t>(static_cast<uint8_t>(a.elem));
      w.pod<int64_t>(a.scalar);
      w.pod<float>(a.f32);
      w.vec(a.input);
      w.vec(a.expected);
      w.bytes(a.errorScale.data(), a.errorScale.size() * sizeof(double));
      w.pod<int32_t>(a.descBase);
      w.bytes(a.descShape.data(), a.descShape.size() * sizeof(int64_t));
      w.bytes(a.descStrides.data(), a.descStrides.size() * sizeof(int64_t));
    }
  }
  w.pod<uint64_t>(fnv1a64(w.out));
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f.write(w.out.data(), static_cast<std::streamsize>(w.out.size()));
    if (!f) throw Error("tile: cannot write differential bundle " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw Error("tile: cannot rename " + tmp + " to " + path);
}

std::vector<DiffCase> readDiffBundle(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("tile: differential bundle " + path + " not found (make it with scripts/gpu-bundle.sh)");
  std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (data.size() < sizeof kMagic + 16 || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0)
    throw Error("tile: " + path + " is not a differential bundle");
  uint64_t stored;
  std::memcpy(&stored, data.data() + data.size() - 8, 8);
  data.resize(data.size() - 8);
  if (fnv1a64(data) != stored) throw Error("tile: differential bundle " + path + " is corrupt (checksum mismatch)");
  Reader r(data, path);
  if (uint32_t v = r.pod<uint32_t>(); v != kVersion)
    throw Error("tile: differential bundle " + path + " has version " + std::to_string(v) + ", expected " +
                std::to_string(kVersion));
  std::vector<DiffCase> cases(r.pod<uint32_t>());
  for (DiffCase &c : cases) {
    c.name = r.str();
    c.seed = r.pod<uint64_t>();
    std::string why;
    std::optional<CompiledKernel> kernel = decodeCompiledKernel(r.str(), &why);
    if (!kernel)
      throw Error("tile: differential bundle " + path + ": case '" + c.name + "' holds no usable kernel (" + why + ")");
    c.kernel = std::move(*kernel);
    c.grid.x = r.pod<uint32_t>(), c.grid.y = r.pod<uint32_t>(), c.grid.z = r.pod<uint32_t>();
    c.tolerance = r.pod<double>();
    c.args.resize(r.pod<uint32_t>());
    for (DiffArg &a : c.args) {
      a.kind = static_cast<ArgKind>(r.pod<uint8_t>());
      a.elem = static_cast<DiffElem>(r.pod<uint8_t>());
      a.scalar = r.pod<int64_t>();
      a.f32 = r.pod<float>();
      a.input = r.vec();
      a.expected = r.vec();
      std::vector<uint8_t> scale = r.vec();
      a.errorScale.resize(scale.size() / sizeof(double));
      // Guarded: memcpy from an empty vector's null data() is undefined even for 0 bytes (UBSan).
      if (!a.errorScale.empty()) std::memcpy(a.errorScale.data(), scale.data(), a.errorScale.size() * sizeof(double));
      a.descBase = r.pod<int32_t>();
      for (std::vector<int64_t> *dims : {&a.descShape, &a.descStrides}) {
        std::vector<uint8_t> raw = r.vec();
        dims->resize(raw.size() / sizeof(int64_t));
        if (!dims->empty()) std::memcpy(dims->data(), raw.data(), dims->size() * sizeof(int64_t));
      }
    }
  }
  return cases;
}

DiffResult compareOutputs(DiffElem elem, const std::vector<uint8_t> &expected, const std::vector<uint8_t> &actual,
                          double tolerance, const std::vector<double> &errorScale) {
  DiffResult res;
  if (expected.size() != actual.size()) {
    res.ok = false;
    res.detail = "size mismatch";
    return res;
  }
  size_t n = expected.size() / elementBytes(elem);
  bool isFloat = elem == DiffElem::F32 || elem == DiffElem::F16 || elem == DiffElem::BF16 || elem == DiffElem::F64;
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    double e = elementAt(elem, expected.data(), i), a = elementAt(elem, actual.data(), i);
    if (std::isnan(a) != std::isnan(e) || (std::isinf(e) && a != e)) {
      res.ok = false;
      std::ostringstream os;
      os << "element " << i << ": gpu " << a << ", cpu executor " << e;
      res.detail = os.str();
      return res;
    }
    if (std::isnan(e) || std::isinf(e)) continue;
    if (!errorScale.empty()) {
      double bound = tolerance * (i < errorScale.size() ? errorScale[i] : 0) + 1e-30;
      res.error = std::max(res.error, std::fabs(a - e) / bound);
      if (std::fabs(a - e) > bound && res.detail.empty()) {
        std::ostringstream os;
        os << "element " << i << ": gpu " << a << ", cpu executor " << e << " (bound " << bound << ")";
        res.detail = os.str();
      }
    } else if (isFloat) {
      num += (a - e) * (a - e);
      den += e * e;
    } else if (a != e) {
      if (res.detail.empty()) {
        std::ostringstream os;
        os << "element " << i << ": gpu " << a << ", cpu executor " << e;
        res.detail = os.str();
      }
      res.error += 1;
    }
  }
  if (!errorScale.empty()) {
    res.ok = res.detail.empty();
  } else if (isFloat) {
    res.error = std::sqrt(num) / (den > 0 ? std::sqrt(den) : 1.0);
    res.ok = res.error <= tolerance;
    if (!res.ok) res.detail = "relative error " + std::to_string(res.error);
  } else {
    res.ok = res.error == 0;
  }
  return res;
}

} // namespace tile::rt

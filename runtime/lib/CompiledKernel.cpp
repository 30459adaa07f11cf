// The compiled-kernel record's invariants and its one serialisation.
#include "tile/runtime/CompiledKernel.h"

#include "tile/runtime/Error.h"

#include <algorithm>
#include <charconv>
#include <iterator>

namespace tile::rt {

namespace {

// The first line is "<kMagic> v<kCompiledKernelFormatVersion>".
constexpr std::string_view kMagic = "tile-ptx";

bool isIdentifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

// Reads a payload line by line; keeps the first problem found in `why`.
class Reader {
public:
  explicit Reader(std::string_view s) : s_(s) {}

  // The value of the line "<name> <value>\n" at the cursor.
  std::optional<std::string_view> field(std::string_view name) {
    std::string_view rest = s_.substr(pos_);
    if (rest.empty()) return fail("truncated before the '" + std::string(name) + "' line");
    if (!rest.starts_with(name) || rest.substr(name.size(), 1) != " ")
      return fail("expected a '" + std::string(name) + "' line");
    size_t end = rest.find('\n');
    if (end == std::string_view::npos) return fail("truncated in the '" + std::string(name) + "' line");
    pos_ += end + 1;
    return rest.substr(name.size() + 1, end - name.size() - 1);
  }

  // A "<name> <decimal>\n" line.
  template <class T> std::optional<T> number(std::string_view name) {
    auto v = field(name);
    if (!v) return std::nullopt;
    T n = 0;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (v->empty() || ec != std::errc() || end != v->data() + v->size())
      return fail("bad '" + std::string(name) + "' value '" + std::string(v->substr(0, 20)) + "'");
    return n;
  }

  std::string_view rest() const { return s_.substr(pos_); }

  std::nullopt_t fail(std::string reason) {
    if (why.empty()) why = std::move(reason);
    return std::nullopt;
  }

  std::string why;

private:
  std::string_view s_;
  size_t pos_ = 0;
};

// "<param> <type name> <swizzle> <box0>x<box1>...", as formatTmaParam writes it.
bool parseTmaParam(std::string_view text, TmaParam &p) {
  auto next = [&](std::string_view &tok) {
    size_t end = text.find(' ');
    tok = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    return !tok.empty();
  };
  auto num = [](std::string_view tok, auto &out) {
    auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), out);
    return ec == std::errc() && end == tok.data() + tok.size();
  };
  std::string_view param, type, swizzle, box;
  if (!next(param) || !next(type) || !next(swizzle) || !next(box) || !text.empty()) return false;
  if (!num(param, p.param) || !num(swizzle, p.swizzleBytes)) return false;
  auto named = std::find_if(std::begin(kTensorMapTypes), std::end(kTensorMapTypes),
                            [&](TensorMapType t) { return type == tensorMapTypeName(t); });
  if (named == std::end(kTensorMapTypes)) return false;
  p.type = *named;
  p.rank = 0;
  while (!box.empty()) {
    size_t x = box.find('x');
    if (p.rank == p.box.size() || !num(box.substr(0, x), p.box[p.rank++])) return false;
    box = x == std::string_view::npos ? std::string_view() : box.substr(x + 1);
  }
  return true;
}

std::string formatTmaParam(const TmaParam &p) {
  std::string s =
      std::to_string(p.param) + " " + tensorMapTypeName(p.type) + " " + std::to_string(p.swizzleBytes) + " ";
  for (unsigned d = 0; d < p.rank; ++d) s += (d ? "x" : "") + std::to_string(p.box[d]);
  return s;
}

std::optional<CompiledKernel> read(Reader &r) {
  // The format line first, so that an older or newer format is named as such, not as garbage.
  if (!r.rest().starts_with(std::string(kMagic) + " v")) return r.fail("not a kernel record");
  std::string want = "v" + std::to_string(kCompiledKernelFormatVersion);
  auto version = r.field(kMagic);
  if (!version) return std::nullopt;
  if (*version != want) return r.fail("format " + std::string(version->substr(0, 20)) + ", this build reads " + want);

  auto n = r.field("name");
  auto t = r.field("target");
  auto shared = r.number<unsigned>("shared");
  auto warps = r.number<unsigned>("warps");
  auto tmaCount = r.number<unsigned>("tma");
  if (!n || !t || !shared || !warps || !tmaCount) return std::nullopt;
  if (*tmaCount > unsigned(kMaxTmaParams))
    return r.fail("more than " + std::to_string(kMaxTmaParams) + " TMA parameters");
  std::array<TmaParam, kMaxTmaParams> tmaParams{};
  for (unsigned i = 0; i < *tmaCount; ++i) {
    auto line = r.field("tmaparam");
    if (!line || !parseTmaParam(*line, tmaParams[i])) return r.fail("bad 'tmaparam' line");
  }
  auto ptxBytes = r.number<size_t>("ptx");
  if (!ptxBytes) return std::nullopt;
  std::string_view body = r.rest();
  if (body.size() < *ptxBytes)
    return r.fail("truncated PTX (" + std::to_string(body.size()) + " of " + std::to_string(*ptxBytes) + " bytes)");
  if (body.size() > *ptxBytes) return r.fail(std::to_string(body.size() - *ptxBytes) + " bytes after the PTX");

  CompiledKernel k;
  // Structured bindings: a new field fails to compile here until it is decoded (and encoded).
  auto &[name, target, ptx, meta] = k;
  auto &[sharedBytes, numWarps, tma] = meta;
  name = *n;
  target = *t;
  ptx = body;
  sharedBytes = *shared;
  numWarps = *warps;
  tma = tmaParams;
  if (std::string why = checkCompiledKernel(k); !why.empty()) return r.fail(why);
  return k;
}

} // namespace

int tensorMapElementBytes(TensorMapType t) {
  switch (t) {
  case TensorMapType::U8: return 1;
  case TensorMapType::F16:
  case TensorMapType::BF16: return 2;
  case TensorMapType::I32:
  case TensorMapType::F32:
  case TensorMapType::TF32: return 4;
  }
  return 0;
}

const char *tensorMapTypeName(TensorMapType t) {
  switch (t) {
  case TensorMapType::U8: return "u8";
  case TensorMapType::I32: return "i32";
  case TensorMapType::F16: return "f16";
  case TensorMapType::BF16: return "bf16";
  case TensorMapType::F32: return "f32";
  case TensorMapType::TF32: return "tf32";
  }
  return "?";
}

std::string checkCompiledKernel(const CompiledKernel &k) {
  if (!isIdentifier(k.name)) return "name '" + k.name.substr(0, 40) + "' is not a C identifier";
  if (k.target.empty()) return "empty target";
  for (char c : k.target)
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return "target holds a character other than plain text";
  if (k.ptx.empty()) return "empty PTX";
  unsigned w = k.meta.numWarps;
  // The launch's warps: the layouts' power of two, plus a producer warpgroup where a loop is
  // warp-specialised (8 + 4).
  if (w < 1 || w > 32) return "warps must be from 1 to 32, not " + std::to_string(w);
  bool unused = false;
  for (const TmaParam &p : k.meta.tma) {
    if (p.param < 0) {
      unused = true;
      continue;
    }
    const bool typeOk =
        std::find(std::begin(kTensorMapTypes), std::end(kTensorMapTypes), p.type) != std::end(kTensorMapTypes);
    if (unused || !typeOk || p.rank < 1 || p.rank > p.box.size() ||
        (p.swizzleBytes != 0 && p.swizzleBytes != 32 && p.swizzleBytes != 64 && p.swizzleBytes != 128))
      return "malformed TMA parameter " + std::to_string(p.param);
    for (unsigned d = 0; d < p.rank; ++d)
      if (p.box[d] < 1 || p.box[d] > 256)
        return "TMA box dimension out of 1..256 for parameter " + std::to_string(p.param);
  }
  return "";
}

std::string encodeCompiledKernel(const CompiledKernel &k) {
  if (std::string why = checkCompiledKernel(k); !why.empty())
    throw Error("tile: cannot encode the compiled kernel '" + k.name.substr(0, 40) + "': " + why + " (this is a bug)");
  // Structured bindings: a new field fails to compile here until it is encoded (and decoded).
  const auto &[name, target, ptx, meta] = k;
  const auto &[sharedBytes, numWarps, tma] = meta;
  std::string out = std::string(kMagic) + " v" + std::to_string(kCompiledKernelFormatVersion) + "\nname " + name +
                    "\ntarget " + target + "\nshared " + std::to_string(sharedBytes) + "\nwarps " +
                    std::to_string(numWarps) + "\n";
  std::string tmaLines;
  unsigned tmaCount = 0;
  for (const TmaParam &p : tma)
    if (p.param >= 0) tmaLines += "tmaparam " + formatTmaParam(p) + "\n", ++tmaCount;
  out += "tma " + std::to_string(tmaCount) + "\n" + tmaLines + "ptx " + std::to_string(ptx.size()) + "\n";
  out += ptx;
  return out;
}

std::optional<CompiledKernel> decodeCompiledKernel(std::string_view payload, std::string *why) {
  Reader r(payload);
  std::optional<CompiledKernel> k = read(r);
  if (!k && why) *why = r.why;
  return k;
}

} // namespace tile::rt

// Checkpoint file format (version 2), all integers and floats little-endian:
//
//   offset 0   "TILECKPT"                      magic (8 bytes)
//          8   u32 version                     2 (1 is still read: it lacks dataset and batch size)
//         12   u64 file size                   total bytes, checksum included (tells truncation from corruption)
//         20   str architecture                str = u32 length + bytes
//              str dataset, i64 batch size     (version 2 only) what the run trained on
//              i64 epoch, i64 step, u64 seed, f64 learning rate
//              u32 tensor count
//              per tensor: str name, u32 rank, i64 dims[rank], f32 data[product of dims]
//   size - 8   u64 FNV-1a 64 of every byte before it
#include "tile/models/Checkpoint.h"
#include "tile/runtime/Hash.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

namespace tile::models {

// The format is little-endian; floats and integers are copied as they lie in memory.
static_assert(std::endian::native == std::endian::little, "checkpoint I/O assumes a little-endian host");

namespace {

constexpr char kMagic[8] = {'T', 'I', 'L', 'E', 'C', 'K', 'P', 'T'};
constexpr uint32_t kVersion = 2;
constexpr uint32_t kOldestReadableVersion = 1;
constexpr size_t kFixedHeader = 20; // magic + version + file size
constexpr uint32_t kMaxRank = 8;
constexpr uint32_t kMaxName = 4096;

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Product of dims, or -1 when a dim is negative or the product overflows int64.
int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > std::numeric_limits<int64_t>::max() / d)) return -1;
    n *= d;
  }
  return n;
}

class Writer {
public:
  template <typename T> void put(T v) { bytes.append(reinterpret_cast<const char *>(&v), sizeof v); }
  void str(const std::string &s) {
    put<uint32_t>(static_cast<uint32_t>(s.size()));
    bytes += s;
  }
  std::string bytes;
};

// Bounds-checked reads; running off the end means the (checksummed) structure is malformed.
class Reader {
public:
  Reader(const std::string &data, size_t pos, size_t end, const std::string &path)
      : d_(data), pos_(pos), end_(end), path_(path) {}
  template <typename T> T get(const char *what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, d_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  std::string str(const char *what) {
    uint32_t n = get<uint32_t>(what);
    if (n > kMaxName) malformed(std::string(what) + " of " + std::to_string(n) + " bytes");
    need(n, what);
    std::string s = d_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  void floats(float *out, size_t n, const char *what) {
    if (n > (end_ - pos_) / sizeof(float)) malformed(std::string(what) + " runs past the end");
    std::memcpy(out, d_.data() + pos_, n * sizeof(float));
    pos_ += n * sizeof(float);
  }
  size_t remaining() const { return end_ - pos_; }
  [[noreturn]] void malformed(const std::string &what) const {
    throw CheckpointError("checkpoint " + path_ + ": corrupt (malformed " + what + " at byte " + std::to_string(pos_) +
                          ")");
  }

private:
  void need(size_t n, const char *what) const {
    if (n > end_ - pos_) malformed(std::string(what) + " runs past the end");
  }
  const std::string &d_;
  size_t pos_, end_;
  const std::string &path_;
};

std::string serialize(const std::string &path, const Checkpoint &c) {
  if (c.architecture.size() > kMaxName)
    throw CheckpointError("cannot save checkpoint " + path + ": architecture name longer than " +
                          std::to_string(kMaxName) + " bytes");
  Writer w;
  w.bytes.append(kMagic, sizeof kMagic);
  w.put<uint32_t>(kVersion);
  w.put<uint64_t>(0); // file size, patched below
  w.str(c.architecture);
  if (c.state.dataset.size() > kMaxName)
    throw CheckpointError("cannot save checkpoint " + path + ": dataset name longer than " + std::to_string(kMaxName) +
                          " bytes");
  w.str(c.state.dataset);
  w.put<int64_t>(c.state.batchSize);
  w.put<int64_t>(c.state.epoch);
  w.put<int64_t>(c.state.step);
  w.put<uint64_t>(c.state.seed);
  w.put<double>(c.state.learningRate);
  w.put<uint32_t>(static_cast<uint32_t>(c.tensors.size()));
  std::set<std::string> names;
  for (const NamedTensor &t : c.tensors) {
    auto bad = [&](const std::string &why) {
      throw CheckpointError("cannot save checkpoint " + path + ": tensor '" + t.name + "' " + why);
    };
    if (t.name.empty() || t.name.size() > kMaxName) bad("has an empty or over-long name");
    if (!names.insert(t.name).second) bad("appears twice");
    if (t.shape.size() > kMaxRank) bad("has rank " + std::to_string(t.shape.size()) + " (at most 8)");
    int64_t n = elementCount(t.shape);
    if (n < 0 || static_cast<uint64_t>(n) != t.data.size())
      bad("has shape " + shapeString(t.shape) + " but " + std::to_string(t.data.size()) + " values");
    w.str(t.name);
    w.put<uint32_t>(static_cast<uint32_t>(t.shape.size()));
    for (int64_t d : t.shape) w.put<int64_t>(d);
    w.bytes.append(reinterpret_cast<const char *>(t.data.data()), t.data.size() * sizeof(float));
  }
  uint64_t size = w.bytes.size() + sizeof(uint64_t);
  std::memcpy(&w.bytes[12], &size, sizeof size);
  w.put<uint64_t>(tile::rt::fnv1a64Bytes(w.bytes.data(), w.bytes.size()));
  return std::move(w.bytes);
}

bool writeAll(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::string tempPath(const std::string &path) { return path + ".tmp." + std::to_string(::getpid()); }

std::string folderOf(const std::string &path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// Throws unless replacing `path` destroys nothing: it is missing, empty, or starts with the magic
// (a checkpoint, perhaps damaged: it is what the run would replace anyway).
void refuseToReplaceForeign(const std::string &path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return; // missing; an unreadable folder fails the save itself
  auto refuse = [&](const std::string &why) { throw CheckpointError("cannot save checkpoint " + path + ": " + why); };
  if (S_ISDIR(st.st_mode)) refuse("it is a folder");
  if (!S_ISREG(st.st_mode)) refuse("it exists and is not a regular file (not replaced)");
  if (st.st_size == 0) return;
  char head[sizeof kMagic] = {};
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    refuse(std::string("cannot read it to check that it is a checkpoint (") + std::strerror(errno) + "); not replaced");
  ssize_t n;
  do n = ::read(fd, head, sizeof head);
  while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof head) || std::memcmp(head, kMagic, sizeof kMagic) != 0)
    throw CheckpointError("refusing to overwrite " + path + ": it is not a tile checkpoint (" +
                          std::to_string(st.st_size) + " bytes without the TILECKPT magic)");
}

} // namespace

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int removeStaleTemporaries(const std::string &path) {
  const std::string prefix = std::filesystem::path(path).filename().string() + ".tmp.";
  std::error_code ec;
  int removed = 0;
  for (std::filesystem::directory_iterator it(folderOf(path), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const char *digits = name.data() + prefix.size(), *last = name.data() + name.size();
    if (!std::all_of(digits, last, [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); })) continue;
    pid_t pid = 0;
    auto [stop, err] = std::from_chars(digits, last, pid);
    if (err != std::errc() || stop != last || pid <= 0 || pid == ::getpid()) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue; // alive, or another user's (EPERM)
    std::error_code typeError;
    if (it->is_regular_file(typeError) && !it->is_symlink(typeError) && ::unlink(it->path().c_str()) == 0) ++removed;
  }
  return removed;
}

void checkCheckpointTarget(const std::string &path) {
  refuseToReplaceForeign(path);
  const std::string dir = folderOf(path);
  struct stat st{};
  if (::stat(dir.c_str(), &st) != 0)
    throw CheckpointError("cannot save checkpoint " + path + ": folder " + dir + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) throw CheckpointError("cannot save checkpoint " + path + ": " + dir + " is not a folder");
  // Create the very temp file the save will create: the only answer that is right for root,
  // ACLs and read-only mounts alike.
  const std::string tmp = tempPath(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw CheckpointError("cannot save checkpoint " + path + ": cannot create " + tmp + ": " + std::strerror(errno));
  ::close(fd);
  ::unlink(tmp.c_str());
}

void saveCheckpoint(const std::string &path, const Checkpoint &ckpt) {
  const std::string bytes = serialize(path, ckpt);
  refuseToReplaceForeign(path);
  removeStaleTemporaries(path);
  const std::string tmp = tempPath(path);
  int fd = -1;
  auto fail = [&](const std::string &step) {
    int err = errno;
    if (fd >= 0) {
      ::close(fd);
      ::unlink(tmp.c_str()); // only a temp file we created; a pre-existing directory etc. stays
    }
    throw CheckpointError("cannot save checkpoint " + path + ": " + step + ": " + std::strerror(err) + " (" + path +
                          " is unchanged)");
  };
  fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create " + tmp);
  if (!writeAll(fd, bytes.data(), bytes.size())) fail("write " + tmp);
  // fsync before rename: otherwise a crash can leave a renamed but empty file on some file systems.
  if (::fsync(fd) != 0) fail("fsync " + tmp);
  int rc = ::close(fd);
  fd = -1;
  if (rc != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    errno = err;
    fail("close " + tmp);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    errno = err;
    fail("rename " + tmp);
  }
  // Persist the rename itself: fsync the directory that holds the checkpoint.
  const std::string dir = folderOf(path);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0 || ::fsync(dfd) != 0) {
    int err = errno;
    if (dfd >= 0) ::close(dfd);
    // The new checkpoint is in place; only its durability across a power cut is in doubt.
    throw CheckpointError("checkpoint " + path + " written but fsync of directory " + dir +
                          " failed: " + std::strerror(err));
  }
  ::close(dfd);
}

Checkpoint loadCheckpoint(const std::string &path) {
  auto fail = [&](const std::string &problem) -> void { throw CheckpointError("checkpoint " + path + ": " + problem); };
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) fail("missing file");
  if (!std::filesystem::is_regular_file(st)) fail("not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(std::string("cannot open (") + std::strerror(errno) + ")");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail("read error");

  // A prefix of the magic is a truncated checkpoint; anything else there is a foreign file.
  size_t m = std::min(data.size(), sizeof kMagic);
  if (std::memcmp(data.data(), kMagic, m) != 0) fail("not a tile checkpoint (bad magic; foreign file?)");
  if (data.size() < kFixedHeader)
    fail("truncated: " + std::to_string(data.size()) + " bytes, shorter than the " + std::to_string(kFixedHeader) +
         "-byte header");
  uint32_t version;
  std::memcpy(&version, &data[8], sizeof version);
  if (version < kOldestReadableVersion || version > kVersion)
    fail("unsupported version " + std::to_string(version) + " (this build reads versions " +
         std::to_string(kOldestReadableVersion) + " to " + std::to_string(kVersion) + ")");
  uint64_t size;
  std::memcpy(&size, &data[12], sizeof size);
  if (data.size() < size)
    fail("truncated: header says " + std::to_string(size) + " bytes, file has " + std::to_string(data.size()));
  if (data.size() > size || size < kFixedHeader + sizeof(uint64_t))
    fail("corrupt (header says " + std::to_string(size) + " bytes, file has " + std::to_string(data.size()) + ")");
  const size_t end = size - sizeof(uint64_t);
  uint64_t stored, computed = tile::rt::fnv1a64Bytes(data.data(), end);
  std::memcpy(&stored, &data[end], sizeof stored);
  if (stored != computed)
    fail("corrupt (checksum mismatch: stored " + hex64(stored) + ", computed " + hex64(computed) + ")");

  Reader r(data, kFixedHeader, end, path);
  Checkpoint c;
  c.architecture = r.str("architecture");
  if (version >= 2) {
    c.state.dataset = r.str("dataset");
    c.state.batchSize = r.get<int64_t>("batch size");
  }
  c.state.epoch = r.get<int64_t>("epoch");
  c.state.step = r.get<int64_t>("step");
  c.state.seed = r.get<uint64_t>("seed");
  c.state.learningRate = r.get<double>("learning rate");
  uint32_t count = r.get<uint32_t>("tensor count");
  std::set<std::string> names;
  for (uint32_t i = 0; i < count; ++i) {
    NamedTensor t;
    t.name = r.str("tensor name");
    if (!names.insert(t.name).second) r.malformed("duplicate tensor '" + t.name + "'");
    uint32_t rank = r.get<uint32_t>("tensor rank");
    if (rank > kMaxRank) r.malformed("rank " + std::to_string(rank) + " of tensor '" + t.name + "'");
    for (uint32_t k = 0; k < rank; ++k) t.shape.push_back(r.get<int64_t>("tensor shape"));
    int64_t n = elementCount(t.shape);
    if (n < 0 || static_cast<uint64_t>(n) > r.remaining() / sizeof(float))
      r.malformed("shape " + shapeString(t.shape) + " of tensor '" + t.name + "'");
    t.data.resize(static_cast<size_t>(n));
    r.floats(t.data.data(), t.data.size(), "tensor data");
    c.tensors.push_back(std::move(t));
  }
  if (r.remaining() != 0) r.malformed(std::to_string(r.remaining()) + " unread bytes");
  return c;
}

Checkpoint loadCheckpoint(const std::string &path, const std::string &architecture,
                          const std::vector<TensorSpec> &expected) {
  Checkpoint c = loadCheckpoint(path);
  auto fail = [&](const std::string &problem) -> void { throw CheckpointError("checkpoint " + path + ": " + problem); };
  if (c.architecture != architecture)
    fail("architecture '" + c.architecture + "' in the file, the model is '" + architecture + "'");
  std::vector<NamedTensor> ordered;
  for (const TensorSpec &spec : expected) {
    auto it =
        std::find_if(c.tensors.begin(), c.tensors.end(), [&](const NamedTensor &t) { return t.name == spec.name; });
    if (it == c.tensors.end())
      fail("tensor '" + spec.name + "' " + shapeString(spec.shape) + " of the model is missing");
    if (it->shape != spec.shape)
      fail("tensor '" + spec.name + "' has shape " + shapeString(it->shape) + " in the file, the model expects " +
           shapeString(spec.shape));
    ordered.push_back(std::move(*it));
    c.tensors.erase(it);
  }
  if (!c.tensors.empty())
    fail("holds tensor '" + c.tensors.front().name + "' " + shapeString(c.tensors.front().shape) +
         " that the model does not have");
  c.tensors = std::move(ordered);
  return c;
}

} // namespace tile::models

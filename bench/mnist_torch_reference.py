#!/usr/bin/env python3
"""PyTorch reference for the MNIST CNN (docs/models.md): is tile-mnist's accuracy gap ours or the draw's?

The same network, data, normalisation, optimiser (SGD lr 0.01, no momentum), batch size (64, the last batch
ragged) and float32 arithmetic (TF32 off) as build/models/tile-mnist, trained in PyTorch in one of two ways:

  --init torch   PyTorch's own default initialisation and shuffle: torch.manual_seed(seed), then the model
                 is built (nn.Conv2d / nn.Linear reset_parameters) and each epoch's order comes from a
                 DataLoader(shuffle=True) over the global generator, as a plain PyTorch script would do.
                 Prints "torch seed S epoch E test accuracy: NN.NN%".
  --init tile    The initial parameters and the per-epoch batch order that tile-mnist --seed S uses: the
                 project's generator (models/lib/Init.cpp: xoshiro256** seeded by splitmix64, uniform(lo,hi)
                 in float32, Fisher-Yates with rejection sampling) ported bit-exactly to Python integers, drawn
                 in MnistCnn::init's order. Prints "tile-init seed S epoch E test accuracy: NN.NN%". Then the
                 only differences from tile-mnist left are the kernels' arithmetic (summation order).

Both evaluate the test set as models/lib/Train.cpp's evaluate() does: in order, in batches of the training
batch size (--eval-batch N for another; TILE_MNIST_EVAL_BATCH=N does the same in tile-mnist), with batch
statistics (BatchNorm2d(track_running_stats=False) has no running statistics, also in eval()).

Run on the GPU machine (python3, torch, no torchvision needed):

    python3 bench/mnist_torch_reference.py --data-dir .data/mnist --init tile --seeds 0,1,2
    python3 bench/mnist_torch_reference.py --data-dir .data/mnist --init torch --seeds 0-9 --epochs 1
    python3 bench/mnist_torch_reference.py --eval-checkpoint mnist.ckpt     # tile-mnist's weights, torch's forward

--data-dir holds train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and
t10k-labels-idx1-ubyte, each unpacked or as NAME.gz (default: <repo>/.data/mnist, or .data/fashion-mnist with
--dataset fashion). --device cpu works too (slowly), for smoke tests (--max-steps N stops early, as in tile-mnist).

Checks of the port that need neither torch nor the data (plain python3):

    python3 bench/mnist_torch_reference.py --dump-init 0 --out init0.f32          # float32 LE, MnistCnn's order
    python3 bench/mnist_torch_reference.py --dump-order 0 1 --out order0e1.i64    # int64 LE, epoch 1 (0-based)
    python3 bench/mnist_torch_reference.py --check-port   # against SHA-256s of the C++ dumps (also run by --init tile)
"""
import argparse
import array
import gzip
import hashlib
import math
import os
import struct
import sys
import time
import warnings

# ----------------------------------------------------------------------------------------------------------
# The model's parameters, in MnistCnn::parameterSpecs() order (= PyTorch's state_dict order for the module below).
PARAMS = (
    ("conv1.weight", (32, 1, 3, 3)),
    ("conv1.bias", (32,)),
    ("bn1.weight", (32,)),
    ("bn1.bias", (32,)),
    ("conv2.weight", (64, 32, 3, 3)),
    ("conv2.bias", (64,)),
    ("bn2.weight", (64,)),
    ("bn2.bias", (64,)),
    ("fc1.weight", (128, 3136)),
    ("fc1.bias", (128,)),
    ("fc2.weight", (10, 128)),
    ("fc2.bias", (10,)),
)
ARCHITECTURE = "mnist-cnn-v1"  # models/include/tile/models/MnistCnn.h kMnistArchitecture
TRAIN_SIZE = 60000

# SHA-256 of the C++ dumps (models/lib/Init.cpp and MnistCnn::init compiled with the project's flags, -O3, no
# FMA contraction): MnistCnn::init(0)'s parameters as float32 LE and shuffledIndices(60000, 0, e) as int64 LE.
# (Init.cpp built with FMA contraction, e.g. -march=x86-64-v3 or on aarch64, rounds lo + (hi - lo) * u once and
# gives other parameters: about half of them differ in the last bit; the shuffle does not change.)
KNOWN_DUMPS = {
    ("init", 0): "cdaee743b339ecdbc80d6866abda47b8ad834b4f720cd5b8440c83a6298c2892",
    ("order", 0, 0): "44c840c34d8a06bfb0fd8311b333ae8d4a64a8bf7aaceb786204f4dfba5ef34e",
    ("order", 0, 1): "dc802f13862987c40ffdb3892c545869bae2b71aa3b899b3e24efbde3919ebab",
}


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


# ----------------------------------------------------------------------------------------------------------
# float32 arithmetic in pure Python. A Python float is an IEEE double; a single +, -, *, / of two float32 values
# done in double and then rounded to float32 is the correctly rounded float32 result (53 >= 2*24 + 2, so the
# double rounding is innocuous), which is what C++ float arithmetic gives without FMA contraction.
def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32_from_bits(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def nextafter_f32(x, toward):
    """std::nextafter(float x, float toward) for finite x."""
    if x == toward:
        return toward
    if x == 0.0:
        return f32_from_bits(1) if toward > 0 else -f32_from_bits(1)
    b = f32_bits(x)
    if (x < toward) == (x > 0):  # away from zero
        return f32_from_bits(b + 1)
    return f32_from_bits(b - 1)


# ----------------------------------------------------------------------------------------------------------
# models/lib/Init.cpp, bit for bit: Python integers masked to 64 bits.
M64 = (1 << 64) - 1


def splitmix64(state):
    """One step of splitmix64: returns (new state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


class Rng:
    """xoshiro256** with its state filled by splitmix64 from the seed (tile::models::Rng)."""

    def __init__(self, seed):
        x = seed & M64
        s = []
        for _ in range(4):
            x, w = splitmix64(x)
            s.append(w)
        self.s0, self.s1, self.s2, self.s3 = s

    def next(self):
        s0, s1, s2, s3 = self.s0, self.s1, self.s2, self.s3
        r = (s1 * 5) & M64
        result = ((((r << 7) | (r >> 57)) & M64) * 9) & M64
        t = (s1 << 17) & M64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & M64
        self.s0, self.s1, self.s2, self.s3 = s0, s1, s2, s3
        return result

    def uniform01(self):
        # float(next() >> 40) * 2^-24: exact in float32 and in double.
        return (self.next() >> 40) * (1.0 / 16777216.0)

    def uniform(self, lo, hi):
        """Rng::uniform(float lo, float hi): lo + (hi - lo) * u in float32, never hi itself."""
        r = f32(lo + f32(f32(hi - lo) * self.uniform01()))
        return r if r < hi else nextafter_f32(hi, lo)

    def below(self, n):
        """Rng::below(n): uniform in [0, n) by rejecting the bottom 2^64 mod n values."""
        threshold = ((1 << 64) - n) % n  # (0 - n) % n in uint64
        while True:
            r = self.next()
            if r >= threshold:
                return r % n


def fill_uniform(rng, count, lo, hi):
    """fillUniform(rng, span of `count`, lo, hi) as an array('f'): the same draws as Rng.uniform in a loop, the
    float32 roundings done in bulk by array('f') (a C double->float cast, as struct's)."""
    lo, hi = f32(lo), f32(hi)
    span = f32(hi - lo)
    below_hi = nextafter_f32(hi, lo)
    scale = 1.0 / 16777216.0
    nxt = rng.next
    prods = array.array("f", [span * ((nxt() >> 40) * scale) for _ in range(count)])
    sums = array.array("f", [lo + p for p in prods])
    return array.array("f", [r if r < hi else below_hi for r in sums])


def kaiming_uniform_bound(fan_in, a):
    if fan_in <= 0:
        raise ValueError("kaiming_uniform_bound: fan_in %d <= 0" % fan_in)
    return math.sqrt(6.0 / ((1.0 + a * a) * float(fan_in)))


def init_weight_and_bias(rng, n_weight, n_bias, fan_in):
    w = f32(kaiming_uniform_bound(fan_in, math.sqrt(5.0)))
    weight = fill_uniform(rng, n_weight, -w, w)
    b = f32(1.0 / math.sqrt(float(fan_in)))
    bias = fill_uniform(rng, n_bias, -b, b)
    return weight, bias


def tile_init(seed):
    """MnistCnn::init(seed): {name: array('f')} in PARAMS order. Draws: conv1 w, b, conv2 w, b, fc1 w, b, fc2 w, b."""
    rng = Rng(seed)
    shapes = dict(PARAMS)
    out = {}

    def layer(wname, bname, fan_in):
        out[wname], out[bname] = init_weight_and_bias(rng, numel(shapes[wname]), numel(shapes[bname]), fan_in)

    def bn(gname, bname):
        out[gname] = array.array("f", [1.0] * numel(shapes[gname]))
        out[bname] = array.array("f", [0.0] * numel(shapes[bname]))

    layer("conv1.weight", "conv1.bias", 1 * 3 * 3)  # convFanIn(1, 3, 3)
    bn("bn1.weight", "bn1.bias")
    layer("conv2.weight", "conv2.bias", 32 * 3 * 3)  # convFanIn(32, 3, 3)
    bn("bn2.weight", "bn2.bias")
    layer("fc1.weight", "fc1.bias", 3136)  # linearFanIn(64 * 7 * 7)
    layer("fc2.weight", "fc2.bias", 128)  # linearFanIn(128)
    return {name: out[name] for name, _ in PARAMS}


def shuffled_indices(n, seed, epoch):
    """shuffledIndices(n, seed, epoch): Fisher-Yates of 0..n-1 from an Rng seeded from (seed, epoch); epoch 0-based."""
    _, mixed = splitmix64((seed ^ 0x53485546464C4500) & M64)  # "SHUFFLE"
    rng = Rng(mixed ^ (epoch & M64))
    idx = list(range(n))
    below = rng.below
    for i in range(n - 1, 0, -1):
        j = below(i + 1)
        idx[i], idx[j] = idx[j], idx[i]
    return idx


def init_bytes(seed):
    blob = bytearray()
    params = tile_init(seed)
    for name, _ in PARAMS:
        a = array.array("f", params[name])
        if sys.byteorder != "little":
            a.byteswap()
        blob += a.tobytes()
    return bytes(blob)


def order_bytes(n, seed, epoch):
    a = array.array("q", shuffled_indices(n, seed, epoch))
    if sys.byteorder != "little":
        a.byteswap()
    return a.tobytes()


def check_port(verbose=True):
    """Compares the port with the SHA-256 of the C++ dumps; raises SystemExit on a mismatch."""
    for key, want in KNOWN_DUMPS.items():
        blob = init_bytes(key[1]) if key[0] == "init" else order_bytes(TRAIN_SIZE, key[1], key[2])
        got = hashlib.sha256(blob).hexdigest()
        what = "init seed %d" % key[1] if key[0] == "init" else "order seed %d epoch %d" % (key[1], key[2])
        if got != want:
            raise SystemExit("port check FAILED for %s: sha256 %s, the C++ dump's is %s" % (what, got, want))
        if verbose:
            print("port check: %s matches the C++ dump (sha256 %s...)" % (what, got[:16]), flush=True)


# ----------------------------------------------------------------------------------------------------------
# Data: the idx files of models/lib/Idx.cpp (unpacked, or NAME.gz), its checks, and its normalisation.
class DataError(Exception):
    pass


def read_maybe_gzipped(path):
    if os.path.isfile(path):
        with open(path, "rb") as f:
            data = f.read()
    elif os.path.isfile(path + ".gz"):
        with open(path + ".gz", "rb") as f:
            data = f.read()
        path = path + ".gz"
    else:
        raise DataError("%s: missing file (nor %s.gz; scripts/fetch-mnist.sh places the data)" % (path, path))
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data, path


def load_idx_images(path):
    data, path = read_maybe_gzipped(path)
    if len(data) < 16:
        raise DataError("%s: truncated header (%d bytes)" % (path, len(data)))
    magic, n, rows, cols = struct.unpack_from(">IIII", data, 0)
    if magic != 0x00000803:
        raise DataError("%s: wrong magic 0x%08x, expected 0x00000803 (idx3 unsigned-byte images)" % (path, magic))
    if rows != 28 or cols != 28:
        raise DataError("%s: images are %dx%d, expected 28x28" % (path, rows, cols))
    if n == 0 or len(data) - 16 != n * 784:
        raise DataError("%s: %d bytes of pixels after the header, expected %d images of 28x28" % (path, len(data) - 16, n))
    return n, data[16:]


def load_idx_labels(path):
    data, path = read_maybe_gzipped(path)
    if len(data) < 8:
        raise DataError("%s: truncated header (%d bytes)" % (path, len(data)))
    magic, n = struct.unpack_from(">II", data, 0)
    if magic != 0x00000801:
        raise DataError("%s: wrong magic 0x%08x, expected 0x00000801 (idx1 unsigned-byte labels)" % (path, magic))
    if n == 0 or len(data) - 8 != n:
        raise DataError("%s: %d label bytes after the header, expected %d" % (path, len(data) - 8, n))
    labels = data[8:]
    if max(labels) > 9:
        raise DataError("%s: label %d is out of range 0..9" % (path, max(labels)))
    return labels


def load_split(data_dir, split):
    prefix = {"train": "train", "test": "t10k"}[split]
    n, pixels = load_idx_images(os.path.join(data_dir, prefix + "-images-idx3-ubyte"))
    labels = load_idx_labels(os.path.join(data_dir, prefix + "-labels-idx1-ubyte"))
    if len(labels) != n:
        raise DataError("%s: %d images but %d labels" % (data_dir, n, len(labels)))
    return pixels, labels


NORM_MEAN = f32(0.1307)  # kNormMean, a float constant in Idx.h
NORM_STD = f32(0.3081)  # kNormStd


def normalisation_table():
    """normalize(): (float(p) / 255.0f - 0.1307f) / 0.3081f in float32, for p = 0..255. The same float32 values
    as torchvision's ToTensor() (div(255)) then Normalize((0.1307,), (0.3081,)) on the CPU."""
    return [f32(f32(f32(p / 255.0) - NORM_MEAN) / NORM_STD) for p in range(256)]


# ----------------------------------------------------------------------------------------------------------
# Checkpoints of models/lib/Checkpoint.cpp (version 1, little-endian, FNV-1a 64 at the end).
def fnv1a64(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & M64
    return h


def read_checkpoint(path):
    """Returns (architecture, {epoch, step, seed, lr}, [(name, shape, array('f'))]); raises DataError if bad."""
    with open(path, "rb") as f:
        data = f.read()

    def bad(why):
        raise DataError("checkpoint %s: %s" % (path, why))

    if data[:8] != b"TILECKPT":
        bad("not a tile checkpoint (bad magic)")
    if len(data) < 28:
        bad("truncated (%d bytes)" % len(data))
    version, size = struct.unpack_from("<IQ", data, 8)
    if version != 1:
        bad("unsupported version %d" % version)
    if size != len(data):
        bad("header says %d bytes, file has %d" % (size, len(data)))
    end = size - 8
    (stored,) = struct.unpack_from("<Q", data, end)
    if stored != fnv1a64(data[:end]):
        bad("checksum mismatch (corrupt)")
    pos = 20

    def take(fmt):
        nonlocal pos
        n = struct.calcsize(fmt)
        if pos + n > end:
            bad("malformed (runs past the end at byte %d)" % pos)
        v = struct.unpack_from(fmt, data, pos)
        pos += n
        return v

    def string():
        nonlocal pos
        (n,) = take("<I")
        if pos + n > end:
            bad("malformed string at byte %d" % pos)
        s = data[pos:pos + n].decode("utf-8")
        pos += n
        return s

    arch = string()
    epoch, step, seed, lr = take("<qqQd")
    (count,) = take("<I")
    tensors = []
    for _ in range(count):
        name = string()
        (rank,) = take("<I")
        shape = take("<%dq" % rank) if rank else ()
        n = numel(shape)
        if pos + 4 * n > end:
            bad("tensor %s runs past the end" % name)
        a = array.array("f")
        a.frombytes(data[pos:pos + 4 * n])
        if sys.byteorder != "little":
            a.byteswap()
        pos += 4 * n
        tensors.append((name, tuple(shape), a))
    if pos != end:
        bad("%d unread bytes" % (end - pos))
    return arch, {"epoch": epoch, "step": step, "seed": seed, "lr": lr}, tensors


# ----------------------------------------------------------------------------------------------------------
# PyTorch.
def setup_torch(device_name):
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch >= 2.9 deprecates these flags in favour of fp32_precision
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    # Reproducible runs: no autotuned or atomics-based cuDNN algorithms.
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    if device_name is None:
        device_name = "cuda" if torch.cuda.is_available() else "cpu"
    if device_name == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch sees no CUDA device (torch %s)" % torch.__version__)
    device = torch.device(device_name)
    what = "torch %s on %s" % (torch.__version__, device_name)
    if device_name == "cuda":
        what += " (%s, cuDNN %s)" % (torch.cuda.get_device_name(0), torch.backends.cudnn.version())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        what += ", tf32 cudnn=%s matmul=%s" % (torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
    print(what, flush=True)
    return torch, device


def build_model(torch):
    """docs/models.md's network; built on the CPU (where PyTorch's default init draws from the global
    generator), moved to the device by the caller."""
    nn = torch.nn
    F = torch.nn.functional

    class MnistCnn(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, stride=1, padding=1, bias=True)
            self.bn1 = nn.BatchNorm2d(32, eps=1e-5, affine=True, track_running_stats=False)
            self.conv2 = nn.Conv2d(32, 64, 3, stride=1, padding=1, bias=True)
            self.bn2 = nn.BatchNorm2d(64, eps=1e-5, affine=True, track_running_stats=False)
            self.fc1 = nn.Linear(64 * 7 * 7, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2, 2)
            x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2, 2)
            x = torch.flatten(x, 1)
            x = F.relu(self.fc1(x))
            return F.log_softmax(self.fc2(x), dim=1)

    model = MnistCnn()
    names = [(k, tuple(v.shape)) for k, v in model.state_dict().items()]
    assert names == list(PARAMS), names  # no running-statistics buffers; MnistCnn's order
    return model


def set_parameters(torch, model, named_arrays):
    """named_arrays: {name: array('f')} in PARAMS order."""
    params = dict(model.named_parameters())
    with torch.no_grad():
        for name, shape in PARAMS:
            src = torch.frombuffer(bytearray(named_arrays[name].tobytes()), dtype=torch.float32).reshape(shape)
            params[name].copy_(src)


def to_tensors(torch, device, pixels, labels, table):
    """uint8 pixels -> normalised float32 [n, 1, 28, 28] on `device` (through the 256-entry table, so every value
    is exactly the C++ normalize()'s), labels -> int64."""
    n = len(labels)
    lut = torch.tensor(table, dtype=torch.float32)
    raw = torch.frombuffer(bytearray(pixels), dtype=torch.uint8).to(torch.int64)
    x = lut[raw].reshape(n, 1, 28, 28).contiguous().to(device)
    y = torch.frombuffer(bytearray(labels), dtype=torch.uint8).to(torch.int64).to(device)
    return x, y


def evaluate(torch, model, x, y, batch):
    """Train.cpp's evaluate(): the test set in order, `batch` images at a time (the last ragged), batch statistics."""
    model.eval()  # BatchNorm2d(track_running_stats=False) keeps using batch statistics
    correct = torch.zeros((), dtype=torch.int64, device=x.device)
    with torch.no_grad():
        for i in range(0, x.shape[0], batch):
            pred = model(x[i:i + batch]).argmax(dim=1)
            correct += (pred == y[i:i + batch]).sum()
    model.train()
    return correct.item() / x.shape[0]


def train_seed(torch, device, args, mode, seed, data):
    F = torch.nn.functional
    x_train, y_train, x_test, y_test = data
    n = x_train.shape[0]
    label = "torch" if mode == "torch" else "tile-init"
    if mode == "torch":
        torch.manual_seed(seed)
        model = build_model(torch)  # PyTorch's reset_parameters from the global generator
    else:
        model = build_model(torch)
        set_parameters(torch, model, tile_init(seed))
    model.to(device)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.0, weight_decay=0.0)
    eval_batch = args.eval_batch or args.batch_size
    results = []
    steps = 0
    stopped = False
    for epoch in range(args.epochs):
        if mode == "torch":
            # What DataLoader(dataset, batch_size, shuffle=True) draws (the dataset's items do not matter).
            loader = torch.utils.data.DataLoader(range(n), batch_size=args.batch_size, shuffle=True, drop_last=False)
            batches = (idx.to(device) for idx in loader)
        else:
            order = torch.tensor(shuffled_indices(n, seed, epoch), dtype=torch.int64, device=device)
            batches = (order[b:b + args.batch_size] for b in range(0, n, args.batch_size))
        loss_sum = torch.zeros((), dtype=torch.float64, device=device)
        count = 0
        t0 = time.time()
        for idx in batches:
            if args.max_steps and steps >= args.max_steps:
                stopped = True
                break
            xb = x_train.index_select(0, idx)
            yb = y_train.index_select(0, idx)
            opt.zero_grad(set_to_none=True)
            loss = F.nll_loss(model(xb), yb)  # mean over the (possibly ragged) batch
            loss.backward()
            opt.step()
            loss_sum += loss.detach().double()
            count += 1
            steps += 1
        mean_loss = loss_sum.item() / max(count, 1)
        if not math.isfinite(mean_loss):
            raise SystemExit("%s seed %d epoch %d: the loss became %s" % (label, seed, epoch + 1, mean_loss))
        seconds = time.time() - t0
        acc = evaluate(torch, model, x_test, y_test, eval_batch)
        results.append(acc)
        print("%s seed %d epoch %d test accuracy: %.2f%%%s" % (label, seed, epoch + 1, 100.0 * acc,
                                                             " (stopped by --max-steps)" if stopped else ""), flush=True)
        print("  %d steps in %.1f s, mean loss %.4f" % (count, seconds, mean_loss), flush=True)
        if stopped:
            break
    return results


def eval_checkpoint(torch, device, args, path, data):
    arch, state, tensors = read_checkpoint(path)
    if arch != ARCHITECTURE:
        raise SystemExit("checkpoint %s: architecture '%s', expected '%s'" % (path, arch, ARCHITECTURE))
    got = {name: (shape, a) for name, shape, a in tensors}
    for name, shape in PARAMS:
        if name not in got or got[name][0] != shape:
            raise SystemExit("checkpoint %s: tensor %s %s missing or of another shape" % (path, name, list(shape)))
    model = build_model(torch)
    set_parameters(torch, model, {name: got[name][1] for name, _ in PARAMS})
    model.to(device)
    acc = evaluate(torch, model, data[2], data[3], args.eval_batch or args.batch_size)
    print("checkpoint %s (epoch %d, step %d, seed %d) test accuracy: %.2f%%" %
          (path, state["epoch"], state["step"], state["seed"], 100.0 * acc), flush=True)


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        part = part.strip()
        if "-" in part:
            lo, hi = part.split("-", 1)
            seeds.extend(range(int(lo), int(hi) + 1))
        elif part:
            seeds.append(int(part))
    for s in seeds:
        if not 0 <= s <= M64:
            raise argparse.ArgumentTypeError("seed %d outside 0..2^64-1" % s)
    if not seeds:
        raise argparse.ArgumentTypeError("no seeds in '%s'" % text)
    return seeds


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--init", choices=("torch", "tile"), help="whose initialisation and shuffle")
    p.add_argument("--seeds", type=parse_seeds, default=[0], help="e.g. 0,1,2 or 0-9 (default 0)")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--eval-batch", type=int, default=0, help="test batch size (default: --batch-size)")
    p.add_argument("--dataset", choices=("mnist", "fashion"), default="mnist")
    p.add_argument("--data-dir", help="default <repo>/.data/mnist or .data/fashion-mnist")
    p.add_argument("--device", choices=("cuda", "cpu"), help="default cuda when available")
    p.add_argument("--max-steps", type=int, default=0, help="stop after N optimiser steps per seed (smoke tests)")
    p.add_argument("--eval-checkpoint", metavar="FILE", help="evaluate a tile-mnist checkpoint instead of training")
    p.add_argument("--dump-init", type=int, metavar="SEED", help="write MnistCnn::init(SEED)'s parameters (f32 LE)")
    p.add_argument("--dump-order", type=int, nargs=2, metavar=("SEED", "EPOCH"),
                   help="write shuffledIndices(--train-size, SEED, EPOCH) (int64 LE; EPOCH 0-based)")
    p.add_argument("--train-size", type=int, default=TRAIN_SIZE, help="n of --dump-order (default 60000)")
    p.add_argument("--out", metavar="FILE", help="output of --dump-init / --dump-order")
    p.add_argument("--check-port", action="store_true", help="compare the port with the C++ dumps' SHA-256 and exit")
    args = p.parse_args()

    if args.dump_init is not None or args.dump_order is not None:
        if not args.out:
            p.error("--dump-init / --dump-order need --out FILE")
        if args.dump_init is not None:
            blob = init_bytes(args.dump_init)
        else:
            blob = order_bytes(args.train_size, args.dump_order[0], args.dump_order[1])
        with open(args.out, "wb") as f:
            f.write(blob)
        print("wrote %s (%d bytes, sha256 %s)" % (args.out, len(blob), hashlib.sha256(blob).hexdigest()))
        return
    if args.check_port:
        check_port()
        return
    if args.init is None and args.eval_checkpoint is None:
        p.error("give --init torch|tile (or --eval-checkpoint, --dump-init, --dump-order, --check-port)")
    if args.batch_size < 1 or args.eval_batch < 0 or args.epochs < 1 or args.lr <= 0:
        p.error("--batch-size and --epochs must be >= 1, --lr > 0, --eval-batch >= 0")

    data_dir = args.data_dir or os.path.join(repo, ".data", "mnist" if args.dataset == "mnist" else "fashion-mnist")
    if args.init == "tile":
        check_port()
    try:
        train_pixels, train_labels = load_split(data_dir, "train")
        test_pixels, test_labels = load_split(data_dir, "test")
    except DataError as e:
        raise SystemExit(str(e))
    torch, device = setup_torch(args.device)
    table = normalisation_table()
    x_train, y_train = to_tensors(torch, device, train_pixels, train_labels, table)
    x_test, y_test = to_tensors(torch, device, test_pixels, test_labels, table)
    data = (x_train, y_train, x_test, y_test)
    print("%s from %s: %d train, %d test images; batch %d, lr %g, test batch %d" %
          (args.dataset, data_dir, x_train.shape[0], x_test.shape[0], args.batch_size, args.lr,
           args.eval_batch or args.batch_size), flush=True)

    if args.eval_checkpoint:
        eval_checkpoint(torch, device, args, args.eval_checkpoint, data)
        return
    per_epoch = {}
    for seed in args.seeds:
        for e, acc in enumerate(train_seed(torch, device, args, args.init, seed, data)):
            per_epoch.setdefault(e + 1, []).append(acc)
    if len(args.seeds) > 1:
        label = "torch" if args.init == "torch" else "tile-init"
        for e, accs in sorted(per_epoch.items()):
            mean = sum(accs) / len(accs)
            sd = math.sqrt(sum((a - mean) ** 2 for a in accs) / (len(accs) - 1)) if len(accs) > 1 else 0.0
            print("%s epoch %d over %d seeds: mean %.2f%%, sd %.2f, min %.2f%%, max %.2f%%" %
                  (label, e, len(accs), 100 * mean, 100 * sd, 100 * min(accs), 100 * max(accs)), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""PyTorch's side of bench_train_step: ms per training step of docs/models.md's network at batch 64
and 1024, as PyTorch eager, torch.compile and the eager step captured in one CUDA graph. It prints lines in
bench_train_step's format ("train-step batch   64  torch eager     X ms  (...)"). scripts/gpu-check.sh puts them in its
summary with ours and the floor.

A step is the batch copied from pinned host memory (random images and labels, copy_(non_blocking=True)),
zero_grad(set_to_none=True), forward, mean NLL loss, backward and the SGD update (lr 0.01, no momentum), in float32
with TF32 off for cuDNN and matmuls, as for docs/models.md's reference figures; then each variant again with
TF32 on ("eager tf32", ...: cuDNN's default for convolutions, and what tile-mnist uses on tensor-core GPUs). The network is
bench/mnist_torch_reference.py's. The variants:
  eager    the step as written.
  compile  torch.compile(model) in the default mode (forward and backward compiled; the loss, the copies and the
           optimiser stay eager), compiled anew for each batch size (dynamo reset first, so the second size is not
           compiled with a dynamic batch dimension).
  graph    the whole step (copies, forward, backward, SGD) captured in one torch.cuda.CUDAGraph and replayed, as in
           PyTorch's CUDA-graph docs (warm-up on a side stream, grads set to None before the capture). If the capture
           refuses the host copies, they run before each replay instead, and the line says so.
Timing as bench_train_step: CUDA events around 100 back-to-back steps (their mean), median of 5 repeats, after 20
warm-up steps. Each variant runs in its own try block: a failure prints one FAILED line and the others go on.

On the GPU machine:   PYTHONUNBUFFERED=1 python3 bench/torch_train_step_bench.py
Anywhere:             python3 bench/torch_train_step_bench.py --smoke
--smoke measures nothing. It runs the harness on a fake step (and, when torch is importable, the eager step on the
CPU for a few steps), and prints "smoke" lines, never "train-step" ones.
"""
import argparse
import os
import sys
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
# The model lives in bench/mnist_torch_reference.py: beside this file, or in ../bench when gpu-bundle staged this
# file in .device/.
sys.path.append(os.path.join(os.path.dirname(HERE), "bench"))
from mnist_torch_reference import build_model  # noqa: E402  (standard library only at import)

BATCHES = (64, 1024)
LR = 0.01
WARMUP, STEPS, REPEATS = 20, 100, 5


class CudaClock:
    """CUDA events on the current stream."""

    def __init__(self, torch):
        self.torch = torch

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def sync(self):
        self.torch.cuda.synchronize()


class HostClock:
    """For --smoke only: wall time in the same interface. Its figures are never printed as results."""

    class Event:
        def record(self):
            self.t = time.perf_counter()

        def synchronize(self):
            pass

        def elapsed_time(self, end):
            return (end.t - self.t) * 1e3

    def event(self):
        return HostClock.Event()

    def sync(self):
        pass


def time_steps(clock, step, warmup=WARMUP, steps=STEPS, repeats=REPEATS):
    """(median, min, max) ms per step over `repeats` means of `steps` steps, the last loss, steps run."""
    loss = None
    for _ in range(warmup):
        loss = step()
    clock.sync()
    per_step = []
    for _ in range(repeats):
        start, stop = clock.event(), clock.event()
        start.record()
        for _ in range(steps):
            loss = step()
        stop.record()
        stop.synchronize()
        per_step.append(start.elapsed_time(stop) / steps)
    per_step.sort()
    return per_step[len(per_step) // 2], per_step[0], per_step[-1], float(loss.item()), warmup + steps * repeats


def report(prefix, batch, label, result, note, extra_steps=0):
    med, lo, hi, loss, n = result
    print(f"{prefix} batch {batch:4d}  torch {label:<14} {med:8.4f} ms  (min {lo:.4f}, max {hi:.4f}; {note}; "
          f"loss after {n + extra_steps} steps {loss:.4f})", flush=True)


def attempt(prefix, batch, label, fn):
    """Runs one variant; a failure prints one line (and a short traceback below it, which the summary skips)."""
    try:
        fn()
    except Exception as e:  # any failure: the other variants are still worth having
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        print(f"{prefix} batch {batch:4d}  torch {label:<14} FAILED ({type(e).__name__}: {first})", flush=True)
        traceback.print_exc(limit=3, file=sys.stdout)


# ----------------------------------------------------------------------------------------------------------
# The step.
def setup(torch, batch, device):
    """A fresh model (seed 0) and optimiser, a random batch in pinned host memory (plain memory on the CPU) and
    the device tensors it is copied into."""
    torch.manual_seed(0)
    model = build_model(torch).to(device)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.0, weight_decay=0.0)
    gen = torch.Generator().manual_seed(batch)
    host_x = torch.randn(batch, 1, 28, 28, generator=gen)
    host_y = torch.randint(0, 10, (batch,), generator=gen, dtype=torch.int64)
    if device.type == "cuda":
        host_x, host_y = host_x.pin_memory(), host_y.pin_memory()
    dev_x = torch.empty(host_x.shape, dtype=host_x.dtype, device=device)
    dev_y = torch.empty(host_y.shape, dtype=host_y.dtype, device=device)
    return model, opt, (host_x, host_y, dev_x, dev_y)


def make_step(torch, model, opt, tensors, copy=True):
    """One eager training step; returns the loss tensor (not read back: nothing in the step synchronises)."""
    F = torch.nn.functional
    host_x, host_y, dev_x, dev_y = tensors

    def step():
        if copy:
            dev_x.copy_(host_x, non_blocking=True)
            dev_y.copy_(host_y, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = F.nll_loss(model(dev_x), dev_y)
        loss.backward()
        opt.step()
        return loss

    return step


def capture_step(torch, model, opt, tensors, copy_inside):
    """The eager step captured in one CUDA graph (PyTorch's docs, "whole network capture"): three warm-up steps on
    a side stream, grads set to None so that backward allocates them from the graph's pool (each replay then
    overwrites them, as zero_grad(set_to_none=True) + backward do eagerly), then the capture.
    Returns a step that replays it (and, with copy_inside False, copies the batch first, outside the graph)."""
    host_x, host_y, dev_x, dev_y = tensors
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        warm = make_step(torch, model, opt, tensors)
        for _ in range(3):
            warm()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    body = make_step(torch, model, opt, tensors, copy=copy_inside)
    # Captured on the warm-up stream, whose library handles and workspaces the warm-up created.
    with torch.cuda.graph(graph, stream=s):
        static_loss = body()  # its zero_grad(set_to_none=True) is a no-op here: the grads are None

    def step():
        if not copy_inside:
            dev_x.copy_(host_x, non_blocking=True)
            dev_y.copy_(host_y, non_blocking=True)
        graph.replay()
        return static_loss

    return step  # its closure keeps the graph, the static tensors and the pinned batch alive


def run_eager(torch, device, clock, prefix, batch, label="eager"):
    model, opt, tensors = setup(torch, batch, device)
    report(prefix, batch, label, time_steps(clock, make_step(torch, model, opt, tensors)), "eager, cuDNN")


def run_graph(torch, device, clock, prefix, batch, label="graph"):
    note = "one CUDA graph: batch copy, forward, backward, SGD"
    try:
        model, opt, tensors = setup(torch, batch, device)
        step = capture_step(torch, model, opt, tensors, copy_inside=True)
    except Exception as e:  # the capture refused the host copies: keep them outside the graph
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        print(f"  batch {batch}: capturing the batch copy failed ({type(e).__name__}: {first}); copying it before "
              "each replay instead", flush=True)
        torch.cuda.synchronize()
        note = f"one CUDA graph: forward, backward, SGD; batch copied before each replay ({type(e).__name__})"
        model, opt, tensors = setup(torch, batch, device)
        step = capture_step(torch, model, opt, tensors, copy_inside=False)
    report(prefix, batch, label, time_steps(clock, step), note, extra_steps=3)


def run_compile(torch, device, clock, prefix, batch, label="compile"):
    import torch._dynamo

    torch._dynamo.reset()  # a fresh compile per batch size: static shapes, as for the first size
    model, opt, tensors = setup(torch, batch, device)
    compiled = torch.compile(model)
    # The first warm-up steps compile (forward and backward), before anything is timed.
    report(prefix, batch, label, time_steps(clock, make_step(torch, compiled, opt, tensors)),
           "torch.compile(model), default mode")


def settle(torch):
    """Between variants: what one left behind does not weigh on the next."""
    try:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    except Exception as e:
        print(f"  (cleanup after a variant failed: {type(e).__name__}: {e})", flush=True)


def allow_tf32(torch, on):
    """TF32 for cuDNN's convolutions (PyTorch's default) and cuBLAS's matmuls, or neither."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch >= 2.9 deprecates these flags in favour of fp32_precision
        torch.backends.cudnn.allow_tf32 = on
        torch.backends.cuda.matmul.allow_tf32 = on
        return torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32


def setup_torch(torch):
    tf32 = allow_tf32(torch, False)
    print(f"torch_train_step_bench: torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name(0)}; TF32 cudnn={tf32[0]} matmul={tf32[1]}, cudnn.benchmark="
          f"{torch.backends.cudnn.benchmark}; ms per training step (batch copy from pinned memory + zero_grad + "
          f"forward + backward + SGD update), mean of {STEPS} steps, median of {REPEATS} repeats, after {WARMUP} "
          f"warm-up steps", flush=True)


def measure(torch):
    device = torch.device("cuda")
    setup_torch(torch)
    clock = CudaClock(torch)
    # torch.compile last: the slowest to start (it compiles) and the likeliest to be missing; a time-out then
    # loses only its lines.
    for batch in BATCHES:
        for label, run in (("eager", run_eager), ("graph", run_graph)):
            attempt("train-step", batch, label, lambda: run(torch, device, clock, "train-step", batch))
            settle(torch)
    for batch in BATCHES:
        attempt("train-step", batch, "compile", lambda: run_compile(torch, device, clock, "train-step", batch))
        settle(torch)
    # The same with TF32 on (cuDNN's convolutions and the matmuls), what PyTorch does for convolutions by
    # default and what tile-mnist does on tensor-core GPUs: compared with ours on TF32 convolutions.
    allow_tf32(torch, True)
    for batch in BATCHES:
        for label, run in (("eager", run_eager), ("graph", run_graph), ("compile", run_compile)):
            attempt("train-step", batch, label + " tf32",
                    lambda: run(torch, device, clock, "train-step", batch, label + " tf32"))
            settle(torch)


# ----------------------------------------------------------------------------------------------------------
# --smoke: the harness, on the build machine.
class FakeLoss:
    def __init__(self, v):
        self.v = v

    def item(self):
        return self.v


def smoke(torch):
    clock = HostClock()
    n = [0]

    def fake_step():
        n[0] += 1
        return FakeLoss(1.0 / n[0])

    def broken():
        raise RuntimeError("planted failure\nsecond line")

    report("smoke", 64, "fake", time_steps(clock, fake_step, 2, 3, 5), "harness on a fake step")
    attempt("smoke", 64, "broken", broken)
    if torch is None:
        print("smoke: torch not importable; the eager step itself was not run", flush=True)
        return
    # The eager step on the CPU, a few steps of batch 4: the model, the step and the harness together.
    device = torch.device("cpu")
    model, opt, tensors = setup(torch, 4, device)
    report("smoke", 4, "eager-cpu", time_steps(clock, make_step(torch, model, opt, tensors), 1, 2, 3),
           f"torch {torch.__version__} on the CPU")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--smoke", action="store_true", help="check the harness without a GPU; measures nothing")
    args = p.parse_args()
    try:
        import torch
    except Exception as e:  # missing or broken: say so in one line
        torch = None
        why = f"{type(e).__name__}: {e}"
    if args.smoke:
        smoke(torch)
        return
    if torch is None:
        print(f"torch_train_step_bench: torch not importable ({why}); nothing measured")
        return
    if not torch.cuda.is_available():
        print(f"torch_train_step_bench: torch {torch.__version__} sees no CUDA device; nothing measured")
        return
    measure(torch)


if __name__ == "__main__":
    main()

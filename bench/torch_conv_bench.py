#!/usr/bin/env python3
"""The MNIST CNN's 3x3 convolutions through PyTorch (cuDNN), in bench_conv's line format:
   conv <layer> <pass> batch <n> torch <fp32|tf32> cudnn <us> us <TFLOP/s> TFLOP/s
fwd is conv2d with bias; bwd_data and bwd_weight are torch.ops.aten.convolution_backward with one
output mask each (what autograd calls). CUDA events around 10 calls, median of 21 groups, after
warm-up; cudnn.benchmark on (PyTorch picks the fastest algorithm per shape, as a tuned model would)."""
import statistics
import sys

import torch


def median_us(fn):
    for _ in range(5):
        fn()
    times = []
    for _ in range(21):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(10):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3 / 10)
    return statistics.median(times)


def main():
    if not torch.cuda.is_available():
        print("torch_conv_bench: skipped: no CUDA device")
        return 0
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")
    for n in (64, 1024):
        for layer, cin, hw, cout in (("conv1", 1, 28, 32), ("conv2", 32, 14, 64)):
            x = torch.randn(n, cin, hw, hw, device=dev)
            w = torch.randn(cout, cin, 3, 3, device=dev) * 0.1
            b = torch.randn(cout, device=dev)
            dy = torch.randn(n, cout, hw, hw, device=dev)
            flops = 2.0 * n * hw * hw * cout * cin * 9
            for tf32 in (False, True):
                torch.backends.cudnn.allow_tf32 = tf32
                passes = {
                    "fwd": lambda: torch.nn.functional.conv2d(x, w, b, padding=1),
                    "bwd_weight": lambda: torch.ops.aten.convolution_backward(
                        dy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, False]),
                }
                if cin > 1:
                    passes["bwd_data"] = lambda: torch.ops.aten.convolution_backward(
                        dy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, False, False])
                for name in ("fwd", "bwd_data", "bwd_weight"):
                    if name not in passes:
                        continue
                    us = median_us(passes[name])
                    print(f"conv {layer} {name} batch {n} torch {'tf32' if tf32 else 'fp32'} cudnn "
                          f"{us:.1f} us {flops / us * 1e-6:.1f} TFLOP/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""One MNIST epoch of the paper's NCG configuration in NumPy (float32), the
peer that `ncgbench bench`'s epoch/mnist-ncg is compared with; with
--gaussian, the peer of epoch/mnist-ncg-gaussian.

H = 500, CD-10, minibatches of 50, alpha = 0.1, alpha_A = 0.5, gamma = 0.5,
initial density p = 0.5, W ~ U(-1, 1), on MNIST binarised with P(1) =
pixel/255. The products are dense float32 matrix products (BLAS sgemm);
states are sampled as 0/1 float32. Prints the epoch's seconds (training
only, data loading excluded).

With --gaussian the visible units are Gaussian with sigma = 1, on MNIST's
grey levels scaled to [0, 1] (pixel/255), at alpha = 0.001: visible
states are drawn from N(d + C h, 1), hidden states stay 0/1.

Run with Debian's python3-numpy (OpenBLAS) on both cores, on a quiet
machine (OpenBLAS's spinning threads slow down many times when a core is
busy):
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=2 \\
        /usr/bin/python3 bench/peers/numpy_epoch.py ../shared/data [--gaussian]
"""
import gzip
import os
import sys
import time

import numpy as np


def load_mnist(data_dir, rng, gaussian):
    with gzip.open(os.path.join(data_dir, "mnist", "train-images-idx3-ubyte.gz")) as f:
        raw = np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(-1, 784)
    if gaussian:
        return raw.astype(np.float32) / np.float32(255)
    return (rng.random(raw.shape, dtype=np.float32) < raw / np.float32(255)).astype(np.float32)


def sigmoid(z):
    return np.float32(1) / (np.float32(1) + np.exp(-z))


def epoch(x, rng, gaussian=False, H=500, K=10, B=50, lr=0.1, lr_a=0.5, gamma=0.5, p=0.5):
    X = x.shape[1]
    W = rng.uniform(-1, 1, (X, H)).astype(np.float32)
    AP = (rng.random((X, H), dtype=np.float32) < p).astype(np.float32)  # A' starts at the mask
    A = (AP >= gamma).astype(np.float32)
    C = W * A
    b = np.zeros(H, np.float32)
    d = np.zeros(X, np.float32)
    order = rng.permutation(x.shape[0])
    start = time.perf_counter()
    for lo in range(0, x.shape[0], B):
        x0 = x[order[lo:lo + B]]
        hpos = sigmoid(b + x0 @ C)
        h = (rng.random(hpos.shape, dtype=np.float32) < hpos).astype(np.float32)
        for k in range(K):
            if gaussian:
                v = d + h @ C.T + rng.standard_normal((len(x0), X), dtype=np.float32)
            else:
                pv = sigmoid(d + h @ C.T)
                v = (rng.random(pv.shape, dtype=np.float32) < pv).astype(np.float32)
            ph = sigmoid(b + v @ C)
            if k < K - 1:
                h = (rng.random(ph.shape, dtype=np.float32) < ph).astype(np.float32)
        n = np.float32(len(x0))
        G = (x0.T @ hpos - v.T @ ph) / n
        W0 = W.copy()
        W += np.float32(lr) * G * A
        np.clip(AP + np.float32(lr_a) * G * W0, 0, 1, out=AP)
        A = (AP >= gamma).astype(np.float32)
        C = W * A
        b += np.float32(lr) * (hpos - ph).sum(0) / n
        d += np.float32(lr) * (x0 - v).sum(0) / n
    return time.perf_counter() - start


if __name__ == "__main__":
    gaussian = "--gaussian" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--gaussian"]
    rng = np.random.default_rng(1)
    x = load_mnist(args[0] if args else "../shared/data", rng, gaussian)
    if gaussian:
        secs = epoch(x, rng, gaussian=True, lr=0.001)
        print("numpy %s, one MNIST Gaussian-Bernoulli NCG epoch: %.2f s" % (np.__version__, secs))
    else:
        print("numpy %s, one MNIST NCG epoch: %.2f s" % (np.__version__, epoch(x, rng)))

#!/usr/bin/env python3
"""One MNIST epoch of a deep Boltzmann machine's joint training in NumPy
(float32), the peer that `ncgbench bench`'s epoch/mnist-dbm is compared
with; with --ncg, the peer of epoch/mnist-dbm-ncg.

The 784-500-1000 DBM of Salakhutdinov & Hinton (AISTATS 2009) without
pre-training: W ~ N(0, 0.01^2) for both matrices, biases 0; with --ncg
each matrix's mask A is drawn with density p = 0.5 and A' starts at it.
MNIST is binarised as in numpy_epoch.py (P(1) = pixel/255), whose loader
and sigmoid this script imports. 600 updates of B = 100 rows, M = 100
persistent chains, alpha = 0.001. Per update:

  positive phase, mean field from a bottom-up pass with doubled input:
    in1 = v C1; mu1 = s(b1 + 2 in1); mu2 = s(b2 + mu1 C2); then 10 times
    mu1 = s(b1 + in1 + mu2 C2^T); mu2 = s(b2 + mu1 C2)
  negative phase, one Gibbs sweep of every chain (v~, h1, h2):
    h1 ~ s(b1 + v~ C1 + h2 C2^T); then v~ ~ s(d + h1 C1^T), h2 ~ s(b2 + h1 C2)
  gradients (means over rows and chains):
    G1 = v^T mu1 / B - v~^T h1 / M;  G2 = mu1^T mu2 / B - h1^T h2 / M;
    d: mean v - mean v~;  b1: mean mu1 - mean h1;  b2: mean mu2 - mean h2
  update: W += alpha G, the biases likewise; with --ncg, for each matrix
    as numpy_epoch.py: W += alpha G*A, A' = clip(A' + alpha_A G*W_old,
    0, 1), A = (A' >= gamma), C = W*A, with alpha_A = 0.5, gamma = 0.5.

The chains start as the engine starts them: at M data rows drawn at
random, their hidden layers drawn upward (h1 from the doubled input
2 v C1, h2 from h1). The products are dense float32 matrix products (BLAS
sgemm); states are sampled as 0/1 float32. The engine also computes each
update's mean-field reconstruction error (one B x 500 x 784 product more,
under 3% of the work); this peer does not. Prints the epoch's seconds
(training only: data loading, initialisation and the chains' start
excluded).

Run with Debian's python3-numpy (OpenBLAS) on both cores, on a quiet
machine (OpenBLAS's spinning threads slow down many times when a core is
busy):
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=2 \\
        /usr/bin/python3 bench/peers/numpy_dbm.py ../shared/data [--ncg]
"""
import sys
import time

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from numpy_epoch import load_mnist, sigmoid  # noqa: E402 (the same directory)

F = np.float32


def bernoulli(rng, p):
    return (rng.random(p.shape, dtype=F) < p).astype(F)


class DBM:
    """A two-matrix DBM: W[k], C[k] (W[k] itself when dense), A[k] and
    AP[k] (A', None when dense) of matrix k, b[l] the biases of layer l
    (b[0] the visible units' d)."""

    def __init__(self, W, b, AP=None, gamma=0.5):
        self.W, self.b, self.AP = [w.astype(F) for w in W], [x.astype(F) for x in b], None
        self.A, self.C = None, self.W
        if AP is not None:
            self.AP = [a.astype(F) for a in AP]
            self.A = [(a >= F(gamma)).astype(F) for a in self.AP]
            self.C = [w * a for w, a in zip(self.W, self.A)]

    @classmethod
    def initial(cls, sizes, rng, ncg=False, p=0.5, scale=0.01, gamma=0.5):
        W = [rng.normal(0, scale, (sizes[k], sizes[k + 1])).astype(F) for k in range(2)]
        b = [np.zeros(n, F) for n in sizes]
        AP = [(rng.random(w.shape, dtype=F) < p).astype(F) for w in W] if ncg else None
        return cls(W, b, AP, gamma)


def start_chains(P, x, M, rng):
    """M chains at data rows drawn at random, h1 and h2 drawn upward."""
    v = x[rng.integers(0, x.shape[0], M)]
    h1 = bernoulli(rng, sigmoid(P.b[1] + 2 * (v @ P.C[0])))
    h2 = bernoulli(rng, sigmoid(P.b[2] + h1 @ P.C[1]))
    return [v, h1, h2]


def update(P, v, chains, rng, mean_field=10, lr=0.001, lr_a=0.5, gamma=0.5):
    """One joint-training update of P on the rows v, advancing chains
    ([v~, h1, h2], replaced in place) by one Gibbs sweep."""
    C, b = P.C, P.b
    B, M = F(v.shape[0]), F(chains[0].shape[0])
    in1 = v @ C[0]
    mu1 = sigmoid(b[1] + 2 * in1)
    mu2 = sigmoid(b[2] + mu1 @ C[1])
    for _ in range(mean_field):
        mu1 = sigmoid(b[1] + in1 + mu2 @ C[1].T)
        mu2 = sigmoid(b[2] + mu1 @ C[1])
    vt, h1, h2 = chains
    h1 = bernoulli(rng, sigmoid(b[1] + vt @ C[0] + h2 @ C[1].T))
    vt = bernoulli(rng, sigmoid(b[0] + h1 @ C[0].T))
    h2 = bernoulli(rng, sigmoid(b[2] + h1 @ C[1]))
    chains[:] = [vt, h1, h2]
    G = [v.T @ mu1 / B - vt.T @ h1 / M, mu1.T @ mu2 / B - h1.T @ h2 / M]
    gb = [v.mean(0) - vt.mean(0), mu1.mean(0) - h1.mean(0), mu2.mean(0) - h2.mean(0)]
    for k in range(2):
        if P.AP is None:
            P.W[k] += F(lr) * G[k]  # C[k] is W[k]
            continue
        W0 = P.W[k].copy()
        P.W[k] += F(lr) * G[k] * P.A[k]
        np.clip(P.AP[k] + F(lr_a) * G[k] * W0, 0, 1, out=P.AP[k])
        P.A[k] = (P.AP[k] >= F(gamma)).astype(F)
        P.C[k] = P.W[k] * P.A[k]
    for l in range(3):
        b[l] += F(lr) * gb[l]


def epoch(x, rng, ncg=False, sizes=(784, 500, 1000), B=100, M=100, mean_field=10, lr=0.001):
    """One epoch of joint training from a fresh DBM; returns its seconds."""
    P = DBM.initial((x.shape[1],) + tuple(sizes[1:]), rng, ncg)
    chains = start_chains(P, x, M, rng)
    order = rng.permutation(x.shape[0])
    start = time.perf_counter()
    for lo in range(0, x.shape[0], B):
        update(P, x[order[lo:lo + B]], chains, rng, mean_field, lr)
    return time.perf_counter() - start


if __name__ == "__main__":
    ncg = "--ncg" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--ncg"]
    rng = np.random.default_rng(1)
    x = load_mnist(args[0] if args else "../shared/data", rng, False)
    secs = epoch(x, rng, ncg)
    print("numpy %s, one MNIST %s DBM joint-training epoch (784-500-1000): %.2f s"
          % (np.__version__, "NCG" if ncg else "dense", secs))

// gemm: dense matrix multiply C = A * B over threads, written as an
// ordinary std C++ program (it knows nothing of dstd: built with
// -I<dstd>/compat and libdstd, its threads run on every node of a dstdrun
// run, sharing the matrices through the global heap).
//
// Blocked: the block rows of C are dealt out to the threads in turn; each
// thread computes its blocks tile by tile (A's block row, B's block column).
// Strassen (--strassen): one level of Strassen's algorithm, as in DRust's
// GEMM: the seven half-size products are computed by threads of their own
// (each with the blocked kernel), then combined.
//
// The matrices hold small integers, so every product and sum is exact in
// double and the checksum does not depend on the order of the additions:
// the same for every run with the same size, whatever the threads or nodes.
//
//   gemm [--n N] [--block B] [--threads T] [--strassen]
//
// Prints "checksum <hex>", "operations <N>" (tile products: block^3
// multiply-adds each) and "throughput <GFLOP/s> GFLOP/s" (2 N^3 flops, for
// Strassen too).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "app_flags.hpp"

namespace {

struct options {
  std::size_t n = 512;
  std::size_t block = 64;
  unsigned threads = 4;
  bool strassen = false;
};

options parse(int argc, char** argv) {
  options o;
  app_flags f("gemm", "[--n N] [--block B] [--threads T] [--strassen]", argc, argv);
  while (f.next()) {
    if (f.is("--strassen")) {
      o.strassen = true;
    } else if (f.is("--n")) {
      o.n = f.number();
    } else if (f.is("--block")) {
      o.block = f.number();
    } else if (f.is("--threads")) {
      o.threads = static_cast<unsigned>(f.number());
    } else {
      f.fail("unknown flag " + f.flag());
    }
  }
  if (o.strassen && o.n % 2 != 0) f.fail("--strassen needs an even --n");
  return o;
}

// A square matrix, row-major.
struct matrix {
  std::size_t n = 0;
  std::vector<double> a;
  explicit matrix(std::size_t size) : n(size), a(size * size, 0.0) {}
  double& at(std::size_t i, std::size_t j) { return a[i * n + j]; }
  double at(std::size_t i, std::size_t j) const { return a[i * n + j]; }
};

// C[rows r0..r1) += A * B, tile by tile.
void multiply_rows(const matrix& A, const matrix& B, matrix& C, std::size_t r0, std::size_t r1,
                   std::size_t block) {
  const std::size_t n = A.n;
  for (std::size_t kk = 0; kk < n; kk += block) {
    const std::size_t k1 = std::min(kk + block, n);
    for (std::size_t jj = 0; jj < n; jj += block) {
      const std::size_t j1 = std::min(jj + block, n);
      for (std::size_t i = r0; i < r1; ++i) {
        for (std::size_t k = kk; k < k1; ++k) {
          const double aik = A.at(i, k);
          for (std::size_t j = jj; j < j1; ++j) C.at(i, j) += aik * B.at(k, j);
        }
      }
    }
  }
}

// C = A * B with `threads` threads, block rows dealt out in turn.
void blocked(const matrix& A, const matrix& B, matrix& C, std::size_t block, unsigned threads) {
  const std::size_t rows = (A.n + block - 1) / block;
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (std::size_t b = t; b < rows; b += threads) {
        multiply_rows(A, B, C, b * block, std::min((b + 1) * block, A.n), block);
      }
    });
  }
  for (std::thread& w : workers) w.join();
}

// Quadrant q (0: top left, 1: top right, 2: bottom left, 3: bottom right).
matrix quadrant(const matrix& M, int q) {
  const std::size_t h = M.n / 2;
  matrix Q(h);
  const std::size_t r = q / 2 * h, c = q % 2 * h;
  for (std::size_t i = 0; i < h; ++i)
    for (std::size_t j = 0; j < h; ++j) Q.at(i, j) = M.at(r + i, c + j);
  return Q;
}

// x*X + y*Y, elementwise (x, y in {-1, 0, 1}).
matrix combine(const matrix& X, double x, const matrix& Y, double y) {
  matrix R(X.n);
  for (std::size_t i = 0; i < R.a.size(); ++i) R.a[i] = x * X.a[i] + y * Y.a[i];
  return R;
}

// One level of Strassen: seven half-size products on threads of their own.
void strassen(const matrix& A, const matrix& B, matrix& C, std::size_t block) {
  const matrix a11 = quadrant(A, 0), a12 = quadrant(A, 1), a21 = quadrant(A, 2), a22 = quadrant(A, 3);
  const matrix b11 = quadrant(B, 0), b12 = quadrant(B, 1), b21 = quadrant(B, 2), b22 = quadrant(B, 3);
  struct product {
    matrix left, right, out;
  };
  const std::size_t h = A.n / 2;
  std::vector<product> m;
  m.push_back({combine(a11, 1, a22, 1), combine(b11, 1, b22, 1), matrix(h)});   // M1
  m.push_back({combine(a21, 1, a22, 1), b11, matrix(h)});                       // M2
  m.push_back({a11, combine(b12, 1, b22, -1), matrix(h)});                      // M3
  m.push_back({a22, combine(b21, 1, b11, -1), matrix(h)});                      // M4
  m.push_back({combine(a11, 1, a12, 1), b22, matrix(h)});                       // M5
  m.push_back({combine(a21, 1, a11, -1), combine(b11, 1, b12, 1), matrix(h)});  // M6
  m.push_back({combine(a12, 1, a22, -1), combine(b21, 1, b22, 1), matrix(h)});  // M7
  std::vector<std::thread> workers;
  for (product& p : m) {
    workers.emplace_back([&p, block] { multiply_rows(p.left, p.right, p.out, 0, p.left.n, block); });
  }
  for (std::thread& w : workers) w.join();
  for (std::size_t i = 0; i < h; ++i) {
    for (std::size_t j = 0; j < h; ++j) {
      const double m1 = m[0].out.at(i, j), m2 = m[1].out.at(i, j), m3 = m[2].out.at(i, j),
                   m4 = m[3].out.at(i, j), m5 = m[4].out.at(i, j), m6 = m[5].out.at(i, j),
                   m7 = m[6].out.at(i, j);
      C.at(i, j) = m1 + m4 - m5 + m7;
      C.at(i, j + h) = m3 + m5;
      C.at(i + h, j) = m2 + m4;
      C.at(i + h, j + h) = m1 - m2 + m3 + m6;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  matrix A(o.n), B(o.n), C(o.n);
  for (std::size_t i = 0; i < o.n; ++i) {
    for (std::size_t j = 0; j < o.n; ++j) {
      A.at(i, j) = static_cast<double>(static_cast<long>((i * 7 + j * 3) % 11) - 5);
      B.at(i, j) = static_cast<double>(static_cast<long>((i * 5 + j * 13) % 9) - 4);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  if (o.strassen) {
    strassen(A, B, C, o.block);
  } else {
    blocked(A, B, C, o.block, o.threads);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < o.n; ++i) {
    for (std::size_t j = 0; j < o.n; ++j) {
      h = (h ^ static_cast<std::uint64_t>(static_cast<std::int64_t>(C.at(i, j)))) * 1099511628211ull;
    }
  }
  const double flops = 2.0 * static_cast<double>(o.n) * static_cast<double>(o.n) * static_cast<double>(o.n);
  std::printf("%s %zux%zu, block %zu, %u threads\n", o.strassen ? "strassen" : "blocked", o.n, o.n,
              o.block, o.strassen ? 7u : o.threads);
  std::printf("checksum %016llx\n", static_cast<unsigned long long>(h));
  const std::size_t side = o.strassen ? o.n / 2 : o.n;
  const std::size_t tiles = (side + o.block - 1) / o.block;
  std::printf("operations %zu\n", (o.strassen ? 7 : 1) * tiles * tiles * tiles);
  std::printf("throughput %.3f GFLOP/s\n", flops / seconds / 1e9);
  return 0;
}

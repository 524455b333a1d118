// gemm, tuned for dstd: the same products, sizes and output as ../gemm.cpp
// (the same checksum for the same flags), changed where a run across nodes
// pays for it: page faults on the inputs, one per 4 KiB page.
//
// - A matrix's rows are kept in slabs of 16 KiB made with dstd::make_tbox
//   (a row never straddles two slabs; rows over 2048 doubles are vectors
//   of their own). Slabs made one after another share 64 KiB tbox groups,
//   and a node that touches a group fetches all of it with one read: B,
//   which every worker reads whole, comes to another node in 16-page
//   reads instead of page by page.
// - Blocked: worker t runs on node t % nodes (spawn_on) and computes each
//   of its block rows into a panel in its own memory, then copies the
//   finished panel into C (so C's pages are written once, in a burst,
//   instead of as the tiles go).
// - Strassen: product p runs on node p % nodes, makes its two operands
//   there from A's and B's quadrants (group reads) and its result in its
//   own memory; main combines the seven results as before.
//
//   gemm_tuned [--n N] [--block B] [--threads T] [--strassen]
//
// Prints "checksum <hex>", "operations <N>" (tile products: block^3
// multiply-adds each) and "throughput <GFLOP/s> GFLOP/s" (2 N^3 flops, for
// Strassen too).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dstd/dstd.hpp>
#include <memory>
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

// A square matrix, row-major: its rows in 16 KiB tbox slabs, as many whole
// rows to a slab as fit, made (and so homed) where the matrix is made.
struct matrix {
  static constexpr std::size_t slab_doubles = 2048;
  struct slab {
    double v[slab_doubles] = {};
  };
  std::size_t n = 0;
  std::size_t rows_per_slab = 0;  // 0: rows wider than a slab, each a vector
  std::vector<dstd::tbox<slab>> slabs;
  std::vector<std::vector<double>> wide;
  explicit matrix(std::size_t size) : n(size), rows_per_slab(slab_doubles / size) {
    if (rows_per_slab == 0) {
      wide.assign(n, std::vector<double>(n, 0.0));
      return;
    }
    for (std::size_t i = 0; i < n; i += rows_per_slab) slabs.push_back(dstd::make_tbox<slab>());
  }
  double* row(std::size_t i) {
    return rows_per_slab == 0 ? wide[i].data() : slabs[i / rows_per_slab]->v + i % rows_per_slab * n;
  }
  const double* row(std::size_t i) const { return const_cast<matrix*>(this)->row(i); }
  double& at(std::size_t i, std::size_t j) { return row(i)[j]; }
  double at(std::size_t i, std::size_t j) const { return row(i)[j]; }
};

// C[rows r0..r1) += A * B, tile by tile; C's row i is out[i - r0].
void multiply_rows(const matrix& A, const matrix& B, double* const* out, std::size_t r0, std::size_t r1,
                   std::size_t block) {
  const std::size_t n = A.n;
  for (std::size_t kk = 0; kk < n; kk += block) {
    const std::size_t k1 = std::min(kk + block, n);
    for (std::size_t jj = 0; jj < n; jj += block) {
      const std::size_t j1 = std::min(jj + block, n);
      for (std::size_t i = r0; i < r1; ++i) {
        const double* a = A.row(i);
        double* c = out[i - r0];
        for (std::size_t k = kk; k < k1; ++k) {
          const double aik = a[k];
          const double* b = B.row(k);
          for (std::size_t j = jj; j < j1; ++j) c[j] += aik * b[j];
        }
      }
    }
  }
}

// C = A * B with `threads` threads, block rows dealt out in turn; thread t
// runs on node t % nodes and fills a panel of its own before copying it to C.
void blocked(const matrix& A, const matrix& B, matrix& C, std::size_t block, unsigned threads) {
  const std::size_t rows = (A.n + block - 1) / block;
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.push_back(dstd::spawn_on(t % dstd::node_count(), [&, t] {
      const std::size_t n = A.n;
      std::vector<double> panel(block * n);
      std::vector<double*> out(block);
      for (std::size_t b = t; b < rows; b += threads) {
        const std::size_t r0 = b * block, r1 = std::min((b + 1) * block, n);
        std::fill(panel.begin(), panel.end(), 0.0);
        for (std::size_t i = 0; i < r1 - r0; ++i) out[i] = panel.data() + i * n;
        multiply_rows(A, B, out.data(), r0, r1, block);
        for (std::size_t i = r0; i < r1; ++i) std::copy_n(out[i - r0], n, C.row(i));
      }
    }));
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
  for (std::size_t i = 0; i < R.n; ++i) {
    const double *xi = X.row(i), *yi = Y.row(i);
    double* ri = R.row(i);
    for (std::size_t j = 0; j < R.n; ++j) ri[j] = x * xi[j] + y * yi[j];
  }
  return R;
}

// One level of Strassen: seven half-size products on threads of their own,
// product p on node p % nodes, each making its operands and result there.
void strassen(const matrix& A, const matrix& B, matrix& C, std::size_t block) {
  const std::size_t h = A.n / 2;
  // Product p's operands, from the quadrants it needs.
  auto operands = [&A, &B](int p) -> std::pair<matrix, matrix> {
    auto a = [&A](int q) { return quadrant(A, q); };
    auto b = [&B](int q) { return quadrant(B, q); };
    switch (p) {
      case 0: return {combine(a(0), 1, a(3), 1), combine(b(0), 1, b(3), 1)};   // M1
      case 1: return {combine(a(2), 1, a(3), 1), b(0)};                        // M2
      case 2: return {a(0), combine(b(1), 1, b(3), -1)};                       // M3
      case 3: return {a(3), combine(b(2), 1, b(0), -1)};                       // M4
      case 4: return {combine(a(0), 1, a(1), 1), b(3)};                        // M5
      case 5: return {combine(a(2), 1, a(0), -1), combine(b(0), 1, b(1), 1)};  // M6
      default: return {combine(a(1), 1, a(3), -1), combine(b(2), 1, b(3), 1)};  // M7
    }
  };
  std::vector<std::unique_ptr<matrix>> m(7);
  std::vector<std::thread> workers;
  for (int p = 0; p < 7; ++p) {
    workers.push_back(dstd::spawn_on(static_cast<unsigned>(p) % dstd::node_count(), [&, p] {
      const auto [left, right] = operands(p);
      auto out = std::make_unique<matrix>(h);
      std::vector<double*> rows(h);
      for (std::size_t i = 0; i < h; ++i) rows[i] = out->row(i);
      multiply_rows(left, right, rows.data(), 0, h, block);
      m[static_cast<std::size_t>(p)] = std::move(out);
    }));
  }
  for (std::thread& w : workers) w.join();
  for (std::size_t i = 0; i < h; ++i) {
    for (std::size_t j = 0; j < h; ++j) {
      const double m1 = m[0]->at(i, j), m2 = m[1]->at(i, j), m3 = m[2]->at(i, j),
                   m4 = m[3]->at(i, j), m5 = m[4]->at(i, j), m6 = m[5]->at(i, j),
                   m7 = m[6]->at(i, j);
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

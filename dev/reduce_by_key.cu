// Kernel iteration for single-pass reduce-by-key (kernels/device/
// cta_reduce_by_key.cuh): the CPU reference, a check of every variant
// against it, and a sweep of boxes and look-back delays timed beside
// cub::DeviceReduce::ReduceByKey in the same process. Built with plain nvcc
// on the GPU machine:
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. dev/reduce_by_key.cu -o .carry/rbk_dev
//   .carry/rbk_dev [log2_n ...]              (default 24 26; 31 means INT32_MAX)
//   .carry/rbk_dev --check-random [iters] [seed]   (correctness only)
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <type_traits>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include "dev/dev_util.cuh"
#include "kernels/device/cta_reduce_by_key.cuh"


using namespace tb;

// ---- kernel and launch -------------------------------------------------------------

template <tb_op OP, typename T, int NT, int VT>
__global__ void __launch_bounds__(NT)
rbk_kernel(const int32_t* keys, const T* values, int count, int32_t* keys_out, T* values_out,
           int32_t* num_out, RunStatusArray<T> status, LookBackDelay delay, int stage_above) {
  using Cta = CtaReduceByKey<OP, T, NT, VT>;
  __shared__ typename Cta::Storage s;
  Cta::run(keys, values, count, keys_out, values_out, num_out, status, delay, stage_above, s);
}

struct Box {
  int nt, vt;
};
static const Box kBoxes4[] = {{128, 15}, {256, 15}, {256, 11}, {128, 19}};
static const Box kBoxes8[] = {{128, 11}, {128, 15}, {256, 7}};
static const int kMinTile = 128 * 11;  // the smallest tile above: sizes the status scratch

template <typename T>
std::vector<Box> boxes_of() {
  if (sizeof(T) == 4) return std::vector<Box>(std::begin(kBoxes4), std::end(kBoxes4));
  return std::vector<Box>(std::begin(kBoxes8), std::end(kBoxes8));
}

static size_t status_bytes(int64_t count, int tile) {
  return RunStatusArray<double>::bytes((count + tile - 1) / tile);
}

struct Args {
  const int32_t* keys;
  const void* values;
  int count;
  int32_t* keys_out;  // may be NULL
  void* values_out;
  int32_t* num;  // may be NULL
  void* scratch;
  size_t scratch_bytes;
  LookBackDelay delay;
  int stage_above;  // -1: NT (stage tiles of more runs than threads)
};

template <tb_op OP, typename T, int NT, int VT>
void launch(const Args& a) {
  if (a.count == 0) {
    if (a.num) CK(cudaMemsetAsync(a.num, 0, sizeof(int32_t)));
    return;
  }
  constexpr int kTile = NT * VT;
  const int64_t tiles = (int64_t(a.count) + kTile - 1) / kTile;
  RunStatusArray<T> status;
  if (RunStatusArray<T>::bytes(tiles) > a.scratch_bytes) {
    fprintf(stderr, "status scratch too small for %lld tiles\n", (long long)tiles);
    exit(1);
  }
  status.bind(a.scratch);
  CK(cudaMemsetAsync(a.scratch, 0, RunStatusArray<T>::bytes(tiles)));
  rbk_kernel<OP, T, NT, VT><<<unsigned(tiles), NT>>>(
      a.keys, static_cast<const T*>(a.values), a.count, a.keys_out, static_cast<T*>(a.values_out),
      a.num, status, a.delay, a.stage_above < 0 ? NT : a.stage_above);
  CK(cudaGetLastError());
}

// Every box for plus; the first box only for other operators.
template <tb_op OP, typename T>
void launch_box(Box b, const Args& a) {
#define TB_BOX(NT_, VT_)                   \
  if (b.nt == NT_ && b.vt == VT_) {        \
    launch<OP, T, NT_, VT_>(a);            \
    return;                                \
  }
  if constexpr (sizeof(T) == 4) {
    TB_BOX(128, 15)
    if constexpr (OP == TB_OP_PLUS) {
      TB_BOX(256, 15)
      TB_BOX(256, 11)
      TB_BOX(128, 19)
    }
  } else {
    TB_BOX(128, 11)
    if constexpr (OP == TB_OP_PLUS) {
      TB_BOX(128, 15)
      TB_BOX(256, 7)
    }
  }
#undef TB_BOX
  fprintf(stderr, "no instance for box %dx%d\n", b.nt, b.vt);
  exit(1);
}

// ---- inputs and the CPU reference ---------------------------------------------------

struct Rng {
  uint64_t s;
  uint64_t next() {  // splitmix64
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t m) { return m ? next() % m : 0; }
};

// Runs of length uniform in [1, 2L-1]; each run's key exceeds the previous
// one's by 1..3 (mod 2^32, so adjacent runs differ at any count).
static void make_keys(std::vector<int32_t>& k, int64_t n, int L, Rng& rng) {
  k.resize(n);
  uint32_t key = uint32_t(rng.next());
  for (int64_t i = 0; i < n;) {
    const int64_t len = std::min<int64_t>(1 + rng.below(2 * uint64_t(L) - 1), n - i);
    key += 1 + uint32_t(rng.below(3));
    for (int64_t j = 0; j < len; ++j) k[i + j] = int32_t(key);
    i += len;
  }
}

template <typename T>
static void make_values(std::vector<T>& v, int64_t n, Rng& rng) {
  v.resize(n);
  for (int64_t i = 0; i < n; ++i) v[i] = T(int(rng.below(9)) - 4);
}

template <tb_op OP, typename T>
static T host_apply(T a, T b) {
  static_assert(OP == TB_OP_PLUS || OP == TB_OP_MAX, "host reference: plus and max");
  if constexpr (OP == TB_OP_MAX) return a < b ? b : a;
  if constexpr (std::is_integral<T>::value)
    return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
  else
    return a + b;
}

template <typename T>
struct Ref {
  std::vector<int32_t> keys;
  std::vector<T> values;
  std::vector<int32_t> lens;  // run lengths, for the float tolerance
};

template <tb_op OP, typename T>
static void reference(const std::vector<int32_t>& k, const std::vector<T>& v, int64_t n,
                      Ref<T>& r) {
  r.keys.clear();
  r.values.clear();
  r.lens.clear();
  for (int64_t i = 0; i < n;) {
    int64_t j = i + 1;
    T acc = v[i];
    for (; j < n && k[j] == k[i]; ++j) acc = host_apply<OP>(acc, v[j]);
    r.keys.push_back(k[i]);
    r.values.push_back(acc);
    r.lens.push_back(int32_t(j - i));
    i = j;
  }
}

// Compares the device outputs with the reference. guard: how many slots
// after the last run must still hold the 0xff fill (0: none checked).
template <typename T>
static bool check(const Ref<T>& ref, const int32_t* d_keys_out, const T* d_values_out,
                  const int32_t* d_num, int64_t capacity, int guard, const char* what) {
  const int64_t runs = int64_t(ref.values.size());
  if (d_num) {
    int32_t got = -1;
    CK(cudaMemcpy(&got, d_num, sizeof got, cudaMemcpyDeviceToHost));
    if (got != runs) {
      printf("  %s: run count %d, want %lld\n", what, got, (long long)runs);
      return false;
    }
  }
  const int64_t span = std::min<int64_t>(capacity, runs + guard);
  std::vector<T> gv(span);
  if (span) CK(cudaMemcpy(gv.data(), d_values_out, span * sizeof(T), cudaMemcpyDeviceToHost));
  for (int64_t r = 0; r < runs; ++r) {
    const T want = ref.values[r], got = gv[r];
    bool ok = got == want;
    if (!std::is_integral<T>::value && !ok) {
      const double tol = 1e-5 * ref.lens[r] * std::max(1.0, std::fabs(double(want)));
      ok = std::fabs(double(got) - double(want)) <= tol;
    }
    if (!ok) {
      printf("  %s: value of run %lld of %lld (key %d, length %d): %.17g, want %.17g\n", what,
             (long long)r, (long long)runs, ref.keys[r], ref.lens[r], double(got), double(want));
      return false;
    }
  }
  T fill;
  memset(&fill, 0xff, sizeof fill);
  for (int64_t r = runs; r < span; ++r)
    if (memcmp(&gv[r], &fill, sizeof(T))) {
      printf("  %s: value slot %lld written past the %lld runs\n", what, (long long)r,
             (long long)runs);
      return false;
    }
  if (d_keys_out) {
    std::vector<int32_t> gk(span);
    if (span)
      CK(cudaMemcpy(gk.data(), d_keys_out, span * sizeof(int32_t), cudaMemcpyDeviceToHost));
    for (int64_t r = 0; r < runs; ++r)
      if (gk[r] != ref.keys[r]) {
        printf("  %s: key of run %lld of %lld: %d, want %d\n", what, (long long)r,
               (long long)runs, gk[r], ref.keys[r]);
        return false;
      }
    for (int64_t r = runs; r < span; ++r)
      if (gk[r] != -1) {
        printf("  %s: key slot %lld written past the %lld runs\n", what, (long long)r,
               (long long)runs);
        return false;
      }
  }
  return true;
}

// ---- timing -------------------------------------------------------------------------

// Device buffers for the largest case of a run of cases.
struct Dev {
  int64_t cap = 0;  // items
  int32_t* keys = nullptr;
  void* values = nullptr;
  int32_t* keys_out = nullptr;
  void* values_out = nullptr;
  int32_t* num = nullptr;
  void* scratch = nullptr;
  size_t scratch_bytes = 0;

  void alloc(int64_t n, size_t value_bytes, size_t extra_scratch) {
    cap = n;
    const size_t m = std::max<int64_t>(n, 1);
    CK(cudaMalloc(&keys, m * sizeof(int32_t)));
    CK(cudaMalloc(&values, m * value_bytes));
    CK(cudaMalloc(&keys_out, m * sizeof(int32_t)));
    CK(cudaMalloc(&values_out, m * value_bytes));
    CK(cudaMalloc(&num, sizeof(int32_t)));
    scratch_bytes = std::max(status_bytes(n, kMinTile), extra_scratch);
    CK(cudaMalloc(&scratch, std::max<size_t>(scratch_bytes, 16)));
  }
  void release() {
    CK(cudaFree(keys));
    CK(cudaFree(values));
    CK(cudaFree(keys_out));
    CK(cudaFree(values_out));
    CK(cudaFree(num));
    CK(cudaFree(scratch));
    *this = Dev();
  }
  void poison(size_t value_bytes) {
    const size_t m = std::max<int64_t>(cap, 1);
    CK(cudaMemset(keys_out, 0xff, m * sizeof(int32_t)));
    CK(cudaMemset(values_out, 0xff, m * value_bytes));
    CK(cudaMemset(num, 0xff, sizeof(int32_t)));
  }
};

static const LookBackDelay kDelays[] = {{0, 0, 0}, kBackOff, {3000, 1000, 1000}, {1200, 650, 650}};
static const int kRunLengths[] = {1, 4, 16, 64, 256, 1024, 16384};

template <typename T>
static void row(const char* tname, int lg, int L, Box b, LookBackDelay d, int stage_above,
                const char* variant, Dev& dev, const Ref<T>& ref, int64_t n,
                float cub_ms) {
  Args a{dev.keys,    dev.values,        int(n), dev.keys_out, dev.values_out, dev.num,
         dev.scratch, dev.scratch_bytes, d,      stage_above};
  dev.poison(sizeof(T));
  launch_box<TB_OP_PLUS, T>(b, a);
  CK(cudaDeviceSynchronize());
  const bool ok = check(ref, dev.keys_out, static_cast<const T*>(dev.values_out), dev.num,
                        dev.cap, 64, "tb");
  const float ms = median_ms([&] { launch_box<TB_OP_PLUS, T>(b, a); }, 30);
  printf("%-6s n=2^%-2d L=%-5d %3dx%-2d delay %4u/%4u/%4u %-7s %8.4f ms %6.1f G/s %6.3fx CUB %s\n",
         tname, lg, L, b.nt, b.vt, d.first_ns, d.poll_ns, d.poll_max_ns, variant, ms,
         ms > 0 ? n / ms / 1e6 : 0.0, ms > 0 ? cub_ms / ms : 0.0, ok ? "" : "WRONG");
}

template <typename T>
static void family(const char* tname, int lg) {
  const int64_t n = lg >= 31 ? int64_t(INT32_MAX) : int64_t(1) << lg;
  size_t cub_bytes = 0;
  CK(cub::DeviceReduce::ReduceByKey(nullptr, cub_bytes, (const int32_t*)nullptr,
                                    (int32_t*)nullptr, (const T*)nullptr, (T*)nullptr,
                                    (int32_t*)nullptr, cuda::std::plus<>{}, int(n)));
  Dev dev;
  dev.alloc(n, sizeof(T), cub_bytes);
  std::vector<int32_t> hk;
  std::vector<T> hv;
  Ref<T> ref;
  for (int L : kRunLengths) {
    Rng rng{uint64_t(L) * 1000003u + uint64_t(lg)};
    make_keys(hk, n, L, rng);
    make_values(hv, n, rng);
    reference<TB_OP_PLUS>(hk, hv, n, ref);
    CK(cudaMemcpy(dev.keys, hk.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dev.values, hv.data(), n * sizeof(T), cudaMemcpyHostToDevice));

    const T* vin = static_cast<const T*>(dev.values);
    T* vout = static_cast<T*>(dev.values_out);
    auto cub_run = [&] {
      CK(cub::DeviceReduce::ReduceByKey(dev.scratch, cub_bytes, dev.keys, dev.keys_out, vin, vout,
                                        dev.num, cuda::std::plus<>{}, int(n)));
    };
    dev.poison(sizeof(T));
    cub_run();
    CK(cudaDeviceSynchronize());
    const bool cub_ok = check(ref, dev.keys_out, vout, dev.num, dev.cap, 0, "cub");
    const float cub_ms = median_ms(cub_run, 30);
    printf("%-6s n=2^%-2d L=%-5d CUB %46s %8.4f ms %6.1f G/s   runs %lld %s\n", tname, lg, L, "",
           cub_ms, cub_ms > 0 ? n / cub_ms / 1e6 : 0.0, (long long)ref.values.size(),
           cub_ok ? "" : "WRONG");

    for (Box b : boxes_of<T>()) {
      for (LookBackDelay d : kDelays)
        row(tname, lg, L, b, d, -1, "stage>NT", dev, ref, n, cub_ms);
    }
    // One change at a time on the first box: the output never / always
    // staged.
    const Box b0 = boxes_of<T>()[0];
    row(tname, lg, L, b0, kBackOff, INT_MAX, "direct", dev, ref, n, cub_ms);
    row(tname, lg, L, b0, kBackOff, 0, "staged", dev, ref, n, cub_ms);
  }
  dev.release();
}

// ---- random correctness -------------------------------------------------------------

template <tb_op OP, typename T>
static bool random_case(Dev& dev, int64_t n, int L, Box b, LookBackDelay d, int stage_above,
                        bool keys_out, bool num_out, Rng& rng,
                        const char* tname) {
  std::vector<int32_t> hk;
  std::vector<T> hv;
  Ref<T> ref;
  make_keys(hk, n, L, rng);
  make_values(hv, n, rng);
  reference<OP>(hk, hv, n, ref);
  if (n) {
    CK(cudaMemcpy(dev.keys, hk.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dev.values, hv.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  dev.poison(sizeof(T));
  Args a{dev.keys,    dev.values,        int(n), keys_out ? dev.keys_out : nullptr,
         dev.values_out, num_out ? dev.num : nullptr, dev.scratch, dev.scratch_bytes, d,
         stage_above};
  launch_box<OP, T>(b, a);
  CK(cudaDeviceSynchronize());
  char what[160];
  snprintf(what, sizeof what, "%s %s n=%lld L=%d %dx%d delay %u/%u/%u stage>%d%s%s", tname,
           OP == TB_OP_PLUS ? "plus" : "max", (long long)n, L, b.nt, b.vt, d.first_ns, d.poll_ns,
           d.poll_max_ns, stage_above, keys_out ? "" : " no-keys",
           num_out ? "" : " no-num");
  return check(ref, a.keys_out, static_cast<const T*>(dev.values_out), a.num, dev.cap, 64, what);
}

template <typename T>
static void random_type(const char* tname, int64_t n, int L, Rng& rng, Dev& dev, int* pass,
                        int* fail) {
  const std::vector<Box> boxes = boxes_of<T>();
  const bool plus = rng.below(4) != 0;
  const Box b = plus ? boxes[rng.below(boxes.size())] : boxes[0];
  const LookBackDelay d = kDelays[rng.below(4)];
  const int stage_choice = int(rng.below(3));
  const int stage_above = stage_choice == 0 ? -1 : stage_choice == 1 ? 0 : INT_MAX;
  const bool keys_out = rng.below(8) != 0, num_out = rng.below(8) != 0;
  const bool ok = plus ? random_case<TB_OP_PLUS, T>(dev, n, L, b, d, stage_above, keys_out,
                                                    num_out, rng, tname)
                       : random_case<TB_OP_MAX, T>(dev, n, L, b, d, stage_above, keys_out,
                                                   num_out, rng, tname);
  ++*(ok ? pass : fail);
}

static int check_random(int iters, uint64_t seed) {
  const int64_t kMax = 4 << 20;
  Dev dev;
  dev.alloc(kMax + 2 * 256 * 19, sizeof(double), 0);
  Rng rng{seed};
  int pass = 0, fail = 0;
  for (int it = 0; it < iters; ++it) {
    // Sizes: a quarter at or beside a whole number of tiles of some box, a
    // few tiny ones, the rest log-uniform up to kMax.
    int64_t n;
    const int kind = int(rng.below(8));
    if (it == 0) {
      n = 1;
    } else if (it == 1) {
      n = 0;
    } else if (kind < 2) {
      const Box b = rng.below(2) ? kBoxes4[rng.below(4)] : kBoxes8[rng.below(3)];
      const int64_t tile = int64_t(b.nt) * b.vt;
      n = tile * (1 + int64_t(rng.below(kMax / tile))) + int64_t(rng.below(3)) - 1;
    } else if (kind == 2) {
      n = int64_t(rng.below(100));
    } else {
      n = std::min<int64_t>(kMax, int64_t(std::exp2(rng.below(22001) / 1000.0)));
    }
    const int L = rng.below(4) ? kRunLengths[rng.below(7)] : 1 + int(rng.below(5000));
    random_type<int>("int32", n, L, rng, dev, &pass, &fail);
    random_type<long long>("int64", n, L, rng, dev, &pass, &fail);
    random_type<float>("float", n, L, rng, dev, &pass, &fail);
    random_type<double>("double", n, L, rng, dev, &pass, &fail);
    if ((it + 1) % 250 == 0) printf("  %d sizes, %d cases: %d failed\n", it + 1, pass + fail, fail);
  }
  dev.release();
  printf("check-random (seed %llu): %d of %d cases passed, %d failed: %s\n",
         (unsigned long long)seed, pass, pass + fail, fail, fail ? "FAIL" : "PASS");
  return fail ? 1 : 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc > 1 && !strcmp(argv[1], "--check-random")) {
    const int iters = argc > 2 ? atoi(argv[2]) : 2000;
    const uint64_t seed = argc > 3 ? strtoull(argv[3], nullptr, 0) : 12345;
    return check_random(iters, seed);
  }
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(atoi(argv[i]));
  if (sizes.empty()) sizes = {24, 26};
  for (int lg : sizes) {
    if (lg < 0 || lg > 31) {
      fprintf(stderr, "log2_n %d out of [0, 31]\n", lg);
      return 1;
    }
    family<int>("int32", lg);
    family<long long>("int64", lg);
    family<float>("float", lg);
    family<double>("double", lg);
  }
  return 0;
}

// Host-side dispatch, one shape for every family's translation unit: a
// call's run-time operator and launch box become template arguments
// (with_op, with_box), and the same list of boxes answers the C layer's grid
// queries (grid_list, grid_verdict), so a family's grid is written once, in
// its .def, and checked where it is launched.
//
// Each family's .cu compiles in two kernel sets (Compiled), which split its
// grid between them:
//   tuned (the default): the family's tuned boxes, which its .def declares
//     (TB_TUNED_BOX) and the tuned tables (kernels/tuned/) choose from, for
//     every operator. The installed library
//     (//kernels:tilebench) is this set alone;
//   wide (TB_GRID_WIDE): every other box of the .def that fits, for plus,
//     the operator the sweeps time. An operator does not change a box's
//     tiling or memory traffic, and compiling each at every box was most of
//     the build. Tests and sweeps link both sets (//kernels:kernels).
// Each family's entry file (segreduce_entry.cu, ...) exports its set's
// resolutions by name (tb_scan_resolve, tb_scan_resolve_wide): a run-time
// type to the per-type unit's resolve<T, kWide>, which finds the policy of
// an operator and a box (resolve_policy, find_policy). The C layer resolves
// a call once, in the tuned set first, and launches through the policy.
#ifndef TB_KERNELS_DISPATCH_CUH
#define TB_KERNELS_DISPATCH_CUH

#include <stddef.h>
#include <stdint.h>

#include <array>
#include <iterator>
#include <type_traits>
#include <utility>

#include "core/status.h"
#include "kernels/grid.h"
#include "kernels/tuned.h"

// The families' tables of one type's launches (kernels/<family>_dispatch.h).
struct tb_scan_type_set;
struct tb_seg_type_set;
struct tb_interval_type_set;

namespace tb {

// Whether this set compiles the one-wave paths of its family (a call whose
// tiles fit the GPU at once, without the pass ahead of its tiles): the
// tuned set. The wide set's boxes are the sweeps' box rows, partitioned at
// every size, which keeps its compile (most of the build) what it was.
#ifdef TB_GRID_WIDE
constexpr bool kOneWave = false;
#else
constexpr bool kOneWave = true;
#endif

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
// Scratch areas start 256-byte aligned.
constexpr size_t round_up(size_t bytes) { return (bytes + 255) / 256 * 256; }

// The element types as core/types.h names them (TB_ELEM), and back.
using int32 = int32_t;
using int64 = long long;
template <class T> constexpr tb_type kTypeOf = TB_TYPE_COUNT;
template <> constexpr tb_type kTypeOf<int32> = TB_INT32;
template <> constexpr tb_type kTypeOf<int64> = TB_INT64;
template <> constexpr tb_type kTypeOf<float> = TB_FLOAT;
template <> constexpr tb_type kTypeOf<double> = TB_DOUBLE;

// Calls f(T()) for a run-time element type (a value of T as its tag); R()
// for an unknown one.
template <class R, class F>
R with_type(tb_type type, F&& f) {
  switch (type) {
    case TB_INT32: return f(int32());
    case TB_INT64: return f(int64());
    case TB_FLOAT: return f(float());
    case TB_DOUBLE: return f(double());
    default: return R();
  }
}

// Each per-type family exports one table of its type's launches per kernel
// set: its unit for T in the set specializes the family's function below,
// kernels/<family>_entry.cu maps a run-time type to it (with_type).
#ifdef TB_GRID_WIDE
constexpr bool kWideSet = true;
#define TB_KERNEL_SET(tuned_name, wide_name) wide_name  // the exported name of this set's table
#else
constexpr bool kWideSet = false;
#define TB_KERNEL_SET(tuned_name, wide_name) tuned_name
#endif
template <class T, bool kWide>
const tb_scan_type_set* scan_type_set();  // reduce_scan.cu
template <class T, bool kWide>
const tb_seg_type_set* seg_type_set();  // segreduce.cu
template <class T, bool kWide>
const tb_interval_type_set* interval_type_set();  // interval.cu

// ---- operators -------------------------------------------------------------

// Calls f(std::integral_constant<tb_op, OP>()) for a run-time operator of T:
// the bitwise operators exist for integers only (the C layer has rejected
// them for floats already).
template <class T, class F>
tb_status with_op(tb_op op, F&& f) {
  using std::integral_constant;
  switch (op) {
    case TB_OP_PLUS: return f(integral_constant<tb_op, TB_OP_PLUS>());
    case TB_OP_MIN: return f(integral_constant<tb_op, TB_OP_MIN>());
    case TB_OP_MAX: return f(integral_constant<tb_op, TB_OP_MAX>());
    case TB_OP_MULTIPLIES: return f(integral_constant<tb_op, TB_OP_MULTIPLIES>());
    default: break;
  }
  if constexpr (std::is_integral<T>::value) {
    switch (op) {
      case TB_OP_BIT_AND: return f(integral_constant<tb_op, TB_OP_BIT_AND>());
      case TB_OP_BIT_OR: return f(integral_constant<tb_op, TB_OP_BIT_OR>());
      case TB_OP_BIT_XOR: return f(integral_constant<tb_op, TB_OP_BIT_XOR>());
      default: break;
    }
  }
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "operator %d does not apply to %s", int(op),
                 tb_type_name(kTypeOf<T>));
}

// Whether op applies to T: the bitwise operators to integers only.
template <class T>
constexpr bool op_applies(tb_op op) {
  return op >= TB_OP_PLUS && (op < TB_OP_BIT_AND || (std::is_integral<T>::value && op < TB_OP_COUNT));
}

// ---- boxes -----------------------------------------------------------------

struct BoxSpec {
  int nt, vt;
};

// A compiled box, as with_box passes it.
template <int NT_, int VT_>
struct Box {
  static constexpr int NT = NT_, VT = VT_;
};

// A row of a grid's .def: a box of the grid (TB_BOX), or a box of the
// tuned set (TB_TUNED_BOX: family >= 0) compiled for every operator. A unit
// reads its .def into an array of rows,
//   constexpr GridRow kRows[] = {
//   #include "kernels/scan_grid.def"
//   };
// and takes its grid (boxes_of) and its tuned boxes (Compiled) from them.
struct GridRow {
  int nt, vt;
  int family = -1;  // tb_tuned_family of a tuned box, -1 for a box of the grid
  int type = TB_TYPE_ANY;
};
#define TB_BOX(NT, VT) ::tb::GridRow{NT, VT},
#define TB_TUNED_BOX(F, TYPE, NT, VT) ::tb::GridRow{NT, VT, TB_TUNED_##F, TYPE},

template <const auto& Rows>
constexpr size_t grid_size() {
  size_t n = 0;
  for (const GridRow& r : Rows) n += r.family < 0;
  return n;
}

// The grid's boxes, in the .def's order.
template <const auto& Rows>
constexpr auto boxes_of() {
  std::array<BoxSpec, grid_size<Rows>()> grid{};
  size_t i = 0;
  for (const GridRow& r : Rows)
    if (r.family < 0) grid[i++] = BoxSpec{r.nt, r.vt};
  return grid;
}

constexpr unsigned family_bit(tb_tuned_family f) { return 1u << unsigned(f); }

// Whether (nt, vt) is a tuned box of Rows for one of `families`
// (family_bit ORed) and type (TB_TYPE_ANY: for any type).
template <const auto& Rows>
constexpr bool is_tuned(unsigned families, int type, int nt, int vt) {
  for (const GridRow& r : Rows)
    if (r.family >= 0 && (families & family_bit(tb_tuned_family(r.family))) && r.nt == nt &&
        r.vt == vt && (type == TB_TYPE_ANY || r.type == TB_TYPE_ANY || r.type == type))
      return true;
  return false;
}

// The boxes of a family that this unit's set compiles for OP (see the top
// of the file): the tuned boxes of `kFamilies` for kType (Rows, the
// grid's .def), or the rest for plus. Fits::fits<NT, VT>() says whether the
// box's storage fits the family's shared memory for the unit's type.
template <const auto& Rows, unsigned kFamilies, int kType, class Fits, tb_op OP = TB_OP_PLUS>
struct Compiled {
  template <int NT, int VT>
  static constexpr tb_box_verdict verdict() {
    if constexpr (!Fits::template fits<NT, VT>()) return TB_BOX_TOO_LARGE;
#ifdef TB_GRID_WIDE
    const bool runs = OP == TB_OP_PLUS && !is_tuned<Rows>(kFamilies, kType, NT, VT);
#else
    const bool runs = is_tuned<Rows>(kFamilies, kType, NT, VT);
#endif
    return runs ? TB_BOX_RUNS : TB_BOX_NOT_COMPILED;
  }
};

// Every box fits.
struct AnyBoxFits {
  template <int NT, int VT>
  static constexpr bool fits() { return true; }
};

template <const auto& Grid>
constexpr size_t kGridSize = std::size(Grid);

template <const auto& Grid, class Keep, size_t I, class F>
bool try_box(tb_launch_box box, F& f, tb_status& st) {
  constexpr BoxSpec b = Grid[I];
  if constexpr (Keep::template verdict<b.nt, b.vt>() == TB_BOX_RUNS) {
    if (box.nt == b.nt && box.vt == b.vt) {
      st = f(Box<b.nt, b.vt>());
      return true;
    }
  }
  return false;
}

template <const auto& Grid, class Keep, class F, size_t... I>
bool find_box(tb_launch_box box, F& f, tb_status& st, std::index_sequence<I...>) {
  return (try_box<Grid, Keep, I>(box, f, st) || ...);
}

// Calls f(Box<NT, VT>()) for the box of Grid that equals box, if Keep
// compiles it; the C layer has checked the box against the same list.
template <const auto& Grid, class Keep, class F>
tb_status with_box(tb_launch_box box, F&& f) {
  tb_status st = TB_OK;
  if (find_box<Grid, Keep>(box, f, st, std::make_index_sequence<kGridSize<Grid>>())) return st;
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "launch box %dx%d is not compiled", box.nt, box.vt);
}

template <class R, const auto& Grid, class Keep, size_t I, class Make>
const R* policy_if(tb_launch_box box, Make& make) {
  constexpr BoxSpec b = Grid[I];
  if constexpr (Keep::template verdict<b.nt, b.vt>() == TB_BOX_RUNS) {
    if (box.nt == b.nt && box.vt == b.vt) return make(Box<b.nt, b.vt>());
  }
  return nullptr;
}

template <class R, const auto& Grid, class Keep, class Make, size_t... I>
const R* find_policy(tb_launch_box box, Make& make, std::index_sequence<I...>) {
  const R* r = nullptr;
  (void)((r = policy_if<R, Grid, Keep, I>(box, make)) || ...);
  return r;
}

// The policy table (an R) of the box of Grid that equals box, if Keep
// compiles it: make(Box<NT, VT>()) gives its address. Null otherwise. A
// call resolves its policy once and launches through the table.
template <class R, const auto& Grid, class Keep, class Make>
const R* find_policy(tb_launch_box box, Make make) {
  return find_policy<R, Grid, Keep>(box, make, std::make_index_sequence<kGridSize<Grid>>());
}

// The same for a family with operators over T: Policy<OP, NT, VT>::kTable
// of the box that Boxes<OP> compiles, for a run-time op.
template <class R, class T, const auto& Grid, template <tb_op> class Boxes,
          template <tb_op, int, int> class Policy>
const R* resolve_policy(tb_op op, tb_launch_box box) {
  const R* p = nullptr;
  if (op_applies<T>(op))
    (void)with_op<T>(op, [&](auto o) {
      constexpr tb_op OP = decltype(o)::value;
      p = find_policy<R, Grid, Boxes<OP>>(box, [](auto b) {
        return &Policy<OP, decltype(b)::NT, decltype(b)::VT>::kTable;
      });
      return TB_OK;
    });
  return p;
}

template <const auto& Grid, class Keep, size_t... I>
int grid_list(tb_launch_box* out, int cap, std::index_sequence<I...>) {
  int n = 0;
  const auto add = [&](BoxSpec b, tb_box_verdict v) {
    if (v != TB_BOX_RUNS) return;
    if (n < cap) out[n] = tb_launch_box{b.nt, b.vt};
    ++n;
  };
  (add(Grid[I], Keep::template verdict<Grid[I].nt, Grid[I].vt>()), ...);
  return n;
}

// The boxes Keep compiles, in grid order: the count, at most cap of them
// written to out (the C layer's tb_*_grid).
template <const auto& Grid, class Keep>
int grid_list(tb_launch_box* out, int cap) {
  return grid_list<Grid, Keep>(out, cap, std::make_index_sequence<kGridSize<Grid>>());
}

template <const auto& Grid, class Keep, size_t... I>
tb_box_verdict grid_verdict(tb_launch_box box, std::index_sequence<I...>) {
  tb_box_verdict v = TB_BOX_NOT_IN_GRID;
  (void)((box.nt == Grid[I].nt && box.vt == Grid[I].vt &&
          (v = Keep::template verdict<Grid[I].nt, Grid[I].vt>(), true)) ||
         ...);
  return v;
}

// What a call at box would meet: runs, not in the grid, too large for the
// type, or not compiled for the operator.
template <const auto& Grid, class Keep>
tb_box_verdict grid_verdict(tb_launch_box box) {
  return grid_verdict<Grid, Keep>(box, std::make_index_sequence<kGridSize<Grid>>());
}


// The tb_grid of a family over T with operators, Boxes<OP> its Compiled:
// `extern "C" const tb_grid tb_scan_grid_int32 = OpGrid<...>::grid("scan");`.
template <class T, const auto& Grid, template <tb_op> class Boxes>
struct OpGrid {
  static int list(tb_op op, tb_launch_box* out, int cap) {
    int n = 0;
    if (op_applies<T>(op))
      with_op<T>(op, [&](auto o) { return n = grid_list<Grid, Boxes<o>>(out, cap), TB_OK; });
    return n;
  }
  static tb_box_verdict verdict(tb_op op, tb_launch_box box) {
    tb_box_verdict v = TB_BOX_NOT_COMPILED;
    if (op_applies<T>(op))
      with_op<T>(op, [&](auto o) { return v = grid_verdict<Grid, Boxes<o>>(box), TB_OK; });
    return v;
  }
  static constexpr tb_grid grid(const char* family) { return {family, list, verdict, nullptr}; }
};

// The same for a family without operators.
template <const auto& Grid, class Boxes>
struct PlainGrid {
  static int list(tb_op, tb_launch_box* out, int cap) { return grid_list<Grid, Boxes>(out, cap); }
  static tb_box_verdict verdict(tb_op, tb_launch_box box) { return grid_verdict<Grid, Boxes>(box); }
  static constexpr tb_grid grid(const char* family) { return {family, list, verdict, nullptr}; }
};

}  // namespace tb

#endif

// gpu_case.h — the .case format of tests/gpu (see tests/gpu/README.md): parsing, deterministic
// input generation (splitmix64), SHA-256 of the PTX file, and the text form of buffer contents
// used in the .out files. Header-only, C++17, no dependencies: gpu_record (which runs the cases
// on a real GPU through the CUDA driver API) and the emulator's tests that check against the
// recorded .out files both include it, so both generate bit-identical inputs.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpucase {

// ---- element types -------------------------------------------------------------------------
enum class Type { U8, S8, U16, S16, U32, S32, U64, S64, F16, BF16, F32, F64, E4M3, E5M2 };

struct TypeInfo {
  const char *name;
  Type type;
};
inline const TypeInfo kTypes[] = {{"u8", Type::U8},     {"s8", Type::S8},   {"u16", Type::U16},
                                  {"s16", Type::S16},   {"u32", Type::U32}, {"s32", Type::S32},
                                  {"u64", Type::U64},   {"s64", Type::S64}, {"f16", Type::F16},
                                  {"bf16", Type::BF16}, {"f32", Type::F32}, {"f64", Type::F64},
                                  {"e4m3", Type::E4M3}, {"e5m2", Type::E5M2}};

inline bool parseType(const std::string &s, Type &t) {
  for (const TypeInfo &e : kTypes)
    if (s == e.name) {
      t = e.type;
      return true;
    }
  return false;
}

inline const char *typeName(Type t) {
  for (const TypeInfo &e : kTypes)
    if (e.type == t) return e.name;
  return "?";
}

inline size_t typeSize(Type t) {
  switch (t) {
  case Type::U8:
  case Type::S8:
  case Type::E4M3:
  case Type::E5M2: return 1;
  case Type::U16:
  case Type::S16:
  case Type::F16:
  case Type::BF16: return 2;
  case Type::U32:
  case Type::S32:
  case Type::F32: return 4;
  default: return 8;
  }
}

inline bool isFloat(Type t) {
  return t == Type::F16 || t == Type::BF16 || t == Type::F32 || t == Type::F64 || t == Type::E4M3 ||
         t == Type::E5M2;
}
inline bool isNarrowFloat(Type t) { return t == Type::F16 || t == Type::BF16 || t == Type::E4M3 || t == Type::E5M2; }
inline bool isSigned(Type t) { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }

// ---- IEEE binary formats narrower than float ------------------------------------------------
// f16 is binary16 (5 exponent bits, 10 fraction bits), bf16 is bfloat16 (8, 7); the fp8 formats
// e4m3 (4, 3) and e5m2 (5, 2) are written with the same IEEE-style rules, right for e5m2 and, for
// e4m3, for magnitudes below 256 (its top binade, where e4m3 has no infinity, is not used).
inline int exponentBits(Type t) {
  return t == Type::F16 || t == Type::E5M2 ? 5 : t == Type::E4M3 ? 4 : 8;
}
inline int fractionBits(Type t) {
  return t == Type::F16 ? 10 : t == Type::E4M3 ? 3 : t == Type::E5M2 ? 2 : 7;
}

/// The bits of `v` rounded to nearest-even in a binary format with `e` exponent and `m`
/// fraction bits (overflow gives infinity, NaN gives the canonical quiet NaN). Rounds `v`
/// once, straight from double: going through float first could round twice.
inline uint32_t encodeNarrowFloat(double v, int e, int m) {
  const uint32_t sign = std::signbit(v) ? 1u << (e + m) : 0u;
  const uint32_t expAllOnes = (1u << e) - 1, bias = expAllOnes >> 1;
  if (std::isnan(v)) return sign | expAllOnes << m | 1u << (m - 1);
  const double a = std::fabs(v);
  if (std::isinf(a)) return sign | expAllOnes << m;
  if (a == 0) return sign;
  int ex = 0;
  std::frexp(a, &ex); // a = f * 2^ex, f in [0.5, 1)
  const int minExp = 1 - static_cast<int>(bias);
  int exp = ex - 1 < minExp ? minExp : ex - 1; // subnormals share the smallest exponent
  // The significand in units of the last place; its integer part is what fits.
  const double scaled = std::ldexp(a, m - exp);
  double whole = std::floor(scaled);
  const double rest = scaled - whole;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(whole, 2.0) != 0)) whole += 1;
  uint64_t q = static_cast<uint64_t>(whole);
  if (q >> (m + 1)) { // rounding carried into a new binade
    q >>= 1;
    ++exp;
  }
  if (q >> m) { // normal
    const uint32_t biased = static_cast<uint32_t>(exp + static_cast<int>(bias));
    if (biased >= expAllOnes) return sign | expAllOnes << m;
    return sign | biased << m | static_cast<uint32_t>(q - (1ull << m));
  }
  return sign | static_cast<uint32_t>(q); // subnormal
}

inline double decodeNarrowFloat(uint32_t bits, int e, int m) {
  const uint32_t expAllOnes = (1u << e) - 1, bias = expAllOnes >> 1;
  const bool negative = (bits >> (e + m)) & 1;
  const uint32_t exp = (bits >> m) & expAllOnes, frac = bits & ((1u << m) - 1);
  double v;
  if (exp == expAllOnes)
    v = frac ? std::nan("") : HUGE_VAL;
  else if (exp == 0)
    v = std::ldexp(static_cast<double>(frac), 1 - static_cast<int>(bias) - m);
  else
    v = std::ldexp(static_cast<double>(frac | 1u << m), static_cast<int>(exp) - static_cast<int>(bias) - m);
  return negative ? -v : v;
}

// ---- deterministic PRNG --------------------------------------------------------------------
struct SplitMix64 {
  uint64_t s;
  explicit SplitMix64(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// Store one element (little-endian host layout, as the GPU sees it).
inline void storeInt(uint8_t *p, Type t, uint64_t bits) { std::memcpy(p, &bits, typeSize(t)); }
inline void storeReal(uint8_t *p, Type t, double v) {
  if (t == Type::F32) {
    float f = (float)v;
    std::memcpy(p, &f, 4);
  } else if (isNarrowFloat(t)) {
    uint16_t h = static_cast<uint16_t>(encodeNarrowFloat(v, exponentBits(t), fractionBits(t)));
    std::memcpy(p, &h, t == Type::E4M3 || t == Type::E5M2 ? 1 : 2);
  } else {
    std::memcpy(p, &v, 8);
  }
}
// The value of a float element (any of the four float types).
inline double loadReal(const uint8_t *p, Type t) {
  if (t == Type::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (t == Type::F64) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  uint16_t h = 0;
  std::memcpy(&h, p, t == Type::E4M3 || t == Type::E5M2 ? 1 : 2);
  return decodeNarrowFloat(h, exponentBits(t), fractionBits(t));
}
// Integer value into any type (floats get the converted value).
inline void storeValueInt(uint8_t *p, Type t, int64_t v) {
  if (isFloat(t))
    storeReal(p, t, (double)v);
  else
    storeInt(p, t, (uint64_t)v);
}

// Parse a number token: integers (decimal, 0x hex, negative) or reals (strtod syntax:
// 1.5, -2e3, 0x1.8p3, inf, nan).
inline bool parseInt(const std::string &s, int64_t &v) {
  if (s.empty()) return false;
  errno = 0;
  char *end = nullptr;
  if (s[0] == '-') {
    v = (int64_t)std::strtoll(s.c_str(), &end, 0);
  } else {
    v = (int64_t)std::strtoull(s.c_str(), &end, 0);
  }
  return errno == 0 && end && *end == 0;
}
inline bool parseReal(const std::string &s, double &v) {
  if (s.empty()) return false;
  char *end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end && *end == 0;
}

// ---- the case description --------------------------------------------------------------
// How a buffer starts out:
//   zeros | const V | iota START STEP | random SEED | random SEED MIN MAX |
//   randint SEED MIN MAX | lograndom SEED EMIN EMAX | values V1 V2 ... [then INIT...]
struct Init {
  enum Kind { Zeros, Const, Iota, Random, RandomRange, RandInt, LogRandom, Values } kind = Zeros;
  std::vector<std::string> args;
  // `values V... then INIT`: the elements after the listed ones come from this
  // initializer (its element 0 is the first one after the values). Empty or one entry.
  std::vector<Init> then;
};

// A texture or surface object argument: the kernel gets a 64-bit handle (CUtexObject,
// CUsurfObject) of an object over data made like a buffer's.
enum class Object {
  None,
  Texture1D, // `texture NAME 1d TYPE COUNT INIT...`: linear memory, read with tex1Dfetch
  Texture2D, // `texture NAME 2d TYPE W H INIT...`: a CUDA array, point filtering, clamp, unnormalized
  Surface2D  // `surface NAME 2d TYPE W H INIT... [dump]`: a CUDA array with surface load/store
};

struct Arg {
  bool isBuffer = false; // a plain device buffer, passed as its address
  std::string name;
  Type type = Type::U32;
  // scalar
  std::string value;
  // buffer, texture, surface
  uint64_t count = 0;
  Init init;
  bool dump = false;
  Object object = Object::None;
  uint64_t width = 0, height = 0; // 2-D objects: count = width * height, row-major
};

// `ignore BUFFER STRIDE OFFSET...`: the elements k of a dumped buffer with k % STRIDE among the
// offsets hold hardware-dependent values (%smid, %clock, an atomic's arrival order): they
// are recorded but a checker does not compare them.
//
// `tolerate BUFFER STRIDE OFFSET... [ulp N] [abs E]` selects elements the same way: the
// `compare ulp` tolerance applies to them only (with their own N and E when given).
struct Ignore {
  std::string buffer;
  uint64_t stride = 1;
  std::vector<uint64_t> offsets;
  double ulp = 0, abs = 0; // tolerate: this selection's bound; 0 = the case's `compare ulp`
  bool covers(const std::string &name, uint64_t index) const {
    if (name != buffer) return false;
    for (uint64_t o : offsets)
      if (index % stride == o) return true;
    return false;
  }
};

struct Case {
  std::string file; // path of the .case file
  std::string name; // stem of the .case file
  std::string ptx;  // PTX path, relative to the repository root
  std::string kernel;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned cluster[3] = {0, 0, 0}; // `cluster X Y Z`: launch-time cluster shape; 0 = none
  unsigned shared = 0;             // dynamic shared memory bytes
  bool cooperative = false;        // launched with cuLaunchCooperativeKernel (grid.sync())
  double timeout = 0;              // seconds; 0 = use the command-line default
  std::string expect;              // documentary: outcome expected on hardware (DESIGN.md)
  std::string compare = "exact";   // hint for checkers: "exact", "ulp N" or "ulp N abs E"
  double compareUlp = 0;           // N of "ulp N", 0 for exact
  double compareAbs = 0;           // E of "ulp N abs E"
  std::vector<Ignore> ignores;
  std::vector<Ignore> tolerates; // `tolerate`: the only elements `compare ulp` applies to
  std::vector<std::string> notes;
  std::vector<Arg> args;

  bool hasCluster() const { return cluster[0] != 0; }
  /// Whether an argument is a texture or surface object.
  bool hasObjects() const {
    for (const Arg &a : args)
      if (a.object != Object::None) return true;
    return false;
  }
  /// The tolerance for element `index` of `buffer` as {ulps, absolute}: the case's
  /// `compare ulp N abs E` for every element when there is no `tolerate` line, else the first
  /// line naming the element (its own bounds, or the case's), {0, 0} (exact) for the rest.
  std::pair<double, double> tolerance(const std::string &buffer, uint64_t index) const {
    if (tolerates.empty()) return {compareUlp, compareAbs};
    for (const Ignore &g : tolerates)
      if (g.covers(buffer, index))
        return g.ulp > 0 || g.abs > 0 ? std::make_pair(g.ulp, g.abs) : std::make_pair(compareUlp, compareAbs);
    return {0, 0};
  }
  /// Whether element `index` of dumped buffer `buffer` is excluded by an `ignore` line.
  bool ignored(const std::string &buffer, uint64_t index) const {
    for (const Ignore &g : ignores)
      if (g.covers(buffer, index)) return true;
    return false;
  }
};

inline std::vector<std::string> splitWords(const std::string &line) {
  std::vector<std::string> w;
  std::istringstream in(line);
  std::string s;
  while (in >> s) w.push_back(s);
  return w;
}

inline std::string stemOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  return dot == std::string::npos ? base : base.substr(0, dot);
}

// Parses a buffer initializer (the words after COUNT, without `dump`); an empty string on
// success, else what is wrong.
inline std::string parseInit(const std::vector<std::string> &words, Type type, uint64_t count, Init &init) {
  if (words.empty()) return "buffer needs an initializer";
  const std::string kind = words[0];
  std::vector<std::string> args(words.begin() + 1, words.end());
  std::vector<std::string> tail;
  if (kind == "values") {
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i] == "then") {
        tail.assign(args.begin() + i + 1, args.end());
        args.resize(i);
        if (tail.empty()) return "'then' needs an initializer";
        break;
      }
  }
  init.args = args;
  const size_t na = args.size();
  if (kind == "zeros" && na == 0)
    init.kind = Init::Zeros;
  else if (kind == "const" && na == 1)
    init.kind = Init::Const;
  else if (kind == "iota" && na == 2)
    init.kind = Init::Iota;
  else if (kind == "random" && na == 1 && !isFloat(type))
    init.kind = Init::Random;
  else if (kind == "random" && na == 3)
    init.kind = Init::RandomRange;
  else if (kind == "randint" && na == 3)
    init.kind = Init::RandInt;
  else if (kind == "lograndom" && na == 3 && isFloat(type))
    init.kind = Init::LogRandom;
  else if (kind == "values" && na >= 1 && na <= count && (tail.empty() || na < count))
    init.kind = Init::Values;
  else
    return "bad initializer '" + kind + "' with " + std::to_string(na) + " argument(s) for " +
           typeName(type) +
           (kind == "values" && na >= count && !tail.empty() ? " (no element left for 'then')" : "");
  for (size_t i = 0; i < na; ++i) {
    int64_t iv;
    double dv;
    // seeds and randint bounds are integers; other values follow the element type
    bool seed = i == 0 && (init.kind == Init::Random || init.kind == Init::RandomRange ||
                           init.kind == Init::RandInt || init.kind == Init::LogRandom);
    bool realArg = isFloat(type) && !seed && init.kind != Init::RandInt;
    if (realArg ? !parseReal(args[i], dv) : !parseInt(args[i], iv)) return "bad number '" + args[i] + "'";
  }
  if (!tail.empty()) {
    if (tail[0] == "values") return "'then values' is just more values";
    Init rest;
    std::string err = parseInit(tail, type, count - na, rest);
    if (!err.empty()) return err;
    init.then.push_back(rest);
  }
  return "";
}

// Throws std::runtime_error("file:line: message") on a malformed file.
inline Case parseCase(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  Case c;
  c.file = path;
  c.name = stemOf(path);
  std::string line;
  int lineNo = 0;
  auto fail = [&](const std::string &msg) {
    throw std::runtime_error(path + ":" + std::to_string(lineNo) + ": " + msg);
  };
  auto dims = [&](const std::vector<std::string> &w, unsigned *d) {
    if (w.size() < 2 || w.size() > 4) fail(w[0] + " takes 1 to 3 numbers");
    for (size_t i = 1; i < w.size(); ++i) {
      int64_t v;
      if (!parseInt(w[i], v) || v < 1 || v > 0x7fffffff) fail("bad " + w[0] + " dimension '" + w[i] + "'");
      d[i - 1] = (unsigned)v;
    }
  };
  while (std::getline(in, line)) {
    ++lineNo;
    size_t hash = line.find('#');
    std::string body = hash == std::string::npos ? line : line.substr(0, hash);
    auto w = splitWords(body);
    if (w.empty()) continue;
    const std::string &k = w[0];
    if (k == "ptx" || k == "kernel") {
      if (w.size() != 2) fail(k + " takes one word");
      (k == "ptx" ? c.ptx : c.kernel) = w[1];
    } else if (k == "grid") {
      dims(w, c.grid);
    } else if (k == "block") {
      dims(w, c.block);
    } else if (k == "cluster") {
      c.cluster[0] = c.cluster[1] = c.cluster[2] = 1;
      dims(w, c.cluster);
    } else if (k == "cooperative") {
      if (w.size() != 1) fail("cooperative takes no argument");
      c.cooperative = true;
    } else if (k == "shared") {
      int64_t v = 0;
      if (w.size() != 2 || !parseInt(w[1], v) || v < 0) fail("shared takes a byte count");
      c.shared = (unsigned)v;
    } else if (k == "timeout") {
      double v = 0;
      if (w.size() != 2 || !parseReal(w[1], v) || v <= 0) fail("timeout takes seconds");
      c.timeout = v;
    } else if (k == "expect") {
      if (w.size() != 2) fail("expect takes one outcome");
      c.expect = w[1];
    } else if (k == "compare") {
      double ulp = 0, abs = 0;
      if (w.size() == 2 && w[1] == "exact") {
        c.compare = "exact";
        c.compareUlp = c.compareAbs = 0;
      } else if (w.size() >= 3 && w[1] == "ulp" && (w.size() == 3 || (w.size() == 5 && w[3] == "abs")) &&
                 parseReal(w[2], ulp) && ulp > 0 && (w.size() == 3 || (parseReal(w[4], abs) && abs >= 0))) {
        c.compare = "ulp " + w[2] + (w.size() == 5 ? " abs " + w[4] : "");
        c.compareUlp = ulp;
        c.compareAbs = abs;
      } else {
        fail("compare is 'exact', 'ulp N' or 'ulp N abs E'");
      }
    } else if (k == "ignore" || k == "tolerate") {
      // ignore|tolerate BUFFER STRIDE OFFSET...
      Ignore g;
      int64_t v = 0;
      if (w.size() < 4 || !parseInt(w[2], v) || v < 1) fail(k + " BUFFER STRIDE OFFSET...");
      g.buffer = w[1];
      g.stride = (uint64_t)v;
      for (size_t i = 3; i < w.size(); ++i) {
        if (k == "tolerate" && (w[i] == "ulp" || w[i] == "abs") && i + 1 < w.size()) {
          double bound = 0;
          if (!parseReal(w[i + 1], bound) || bound < 0) fail("bad tolerate bound '" + w[i + 1] + "'");
          (w[i] == "ulp" ? g.ulp : g.abs) = bound;
          ++i;
          continue;
        }
        if (!parseInt(w[i], v) || v < 0 || (uint64_t)v >= g.stride)
          fail("bad " + k + " offset '" + w[i] + "'");
        g.offsets.push_back((uint64_t)v);
      }
      if (g.offsets.empty()) fail(k + " needs at least one offset");
      (k == "ignore" ? c.ignores : c.tolerates).push_back(g);
    } else if (k == "note") {
      size_t p = body.find("note");
      std::string text = body.substr(p + 4);
      size_t b = text.find_first_not_of(" \t");
      c.notes.push_back(b == std::string::npos ? "" : text.substr(b));
    } else if (k == "scalar") {
      // scalar NAME TYPE VALUE
      if (w.size() != 4) fail("scalar NAME TYPE VALUE");
      Arg a;
      a.name = w[1];
      if (!parseType(w[2], a.type)) fail("unknown type '" + w[2] + "'");
      a.value = w[3];
      int64_t iv;
      double dv;
      if (isFloat(a.type) ? !parseReal(a.value, dv) : !parseInt(a.value, iv))
        fail("bad value '" + a.value + "'");
      c.args.push_back(a);
    } else if (k == "texture" || k == "surface") {
      // texture NAME 1d TYPE COUNT INIT... | texture NAME 2d TYPE W H INIT... | surface NAME 2d TYPE W H
      // INIT... [dump]
      if (w.size() < 6) fail(k + " NAME 1d|2d TYPE SIZE... INIT...");
      Arg a;
      a.name = w[1];
      const bool twoD = w[2] == "2d";
      if (!twoD && !(w[2] == "1d" && k == "texture")) fail("unsupported " + k + " shape '" + w[2] + "'");
      a.object = k == "surface" ? Object::Surface2D : twoD ? Object::Texture2D : Object::Texture1D;
      if (!parseType(w[3], a.type) || (a.type != Type::F32 && a.type != Type::S32 && a.type != Type::U32))
        fail(k + " elements are f32, s32 or u32");
      int64_t x = 0, y = 1;
      size_t next = twoD ? 6 : 5;
      if (!parseInt(w[4], x) || x < 1 || (twoD && (!parseInt(w[5], y) || y < 1)) || x * y > (1ll << 24))
        fail("bad " + k + " size");
      a.width = (uint64_t)x;
      a.height = (uint64_t)y;
      a.count = a.width * a.height;
      std::vector<std::string> rest(w.begin() + (long)std::min(next, w.size()), w.end());
      if (!rest.empty() && rest.back() == "dump") {
        if (a.object != Object::Surface2D) fail("only a surface can be dumped");
        a.dump = true;
        rest.pop_back();
      }
      std::string err = parseInit(rest, a.type, a.count, a.init);
      if (!err.empty()) fail(err);
      c.args.push_back(a);
    } else if (k == "buffer") {
      // buffer NAME TYPE COUNT INIT... [dump]
      if (w.size() < 5) fail("buffer NAME TYPE COUNT INIT... [dump]");
      Arg a;
      a.isBuffer = true;
      a.name = w[1];
      if (!parseType(w[2], a.type)) fail("unknown type '" + w[2] + "'");
      int64_t n;
      if (!parseInt(w[3], n) || n < 1 || n > (1ll << 28)) fail("bad element count '" + w[3] + "'");
      a.count = (uint64_t)n;
      std::vector<std::string> rest(w.begin() + 4, w.end());
      if (!rest.empty() && rest.back() == "dump") {
        a.dump = true;
        rest.pop_back();
      }
      std::string err = parseInit(rest, a.type, a.count, a.init);
      if (!err.empty()) fail(err);
      c.args.push_back(a);
    } else {
      fail("unknown directive '" + k + "'");
    }
  }
  if (c.ptx.empty()) throw std::runtime_error(path + ": missing 'ptx'");
  if (c.kernel.empty()) throw std::runtime_error(path + ": missing 'kernel'");
  if (c.cooperative && c.hasCluster())
    throw std::runtime_error(path + ": 'cooperative' and 'cluster' cannot be combined");
  for (const std::vector<Ignore> *list : {&c.ignores, &c.tolerates})
    for (const Ignore &g : *list) {
      bool found = false;
      for (const Arg &a : c.args) found |= a.dump && a.name == g.buffer;
      if (!found)
        throw std::runtime_error(path + ": " + (list == &c.ignores ? "ignore" : "tolerate") + " names '" +
                                 g.buffer + "', which is not a dumped buffer");
    }
  if (!c.tolerates.empty() && c.compareUlp <= 0)
    throw std::runtime_error(path + ": 'tolerate' needs 'compare ulp N'");
  return c;
}

// The initial contents of a buffer argument (count * typeSize bytes). Rules (documented in
// tests/gpu/README.md, keep them in sync):
//   zeros            every byte 0
//   const V          every element V
//   iota S D         element k = S + k*D (int64 arithmetic for integer types, double for
//                    float types, then converted)
//   random SEED      integer types only: element k = low bits of the k-th splitmix64 output
//   random SEED A B  floats: A + (B-A) * u_k with u_k = (x_k >> 11) * 2^-53 in double, then
//                    rounded to the element type; integers: A + x_k mod (B-A+1)
//   randint SEED A B A + x_k mod (B-A+1) as an integer, converted to the element type
//   lograndom SEED E F  floats: (-1)^(x_k & 1) * 2^(E + (F-E) * u_k), u_k as for random,
//                    then rounded: magnitudes spread evenly over the binades from 2^E to 2^F
//   values V...      the listed values, remaining elements 0
//   values V... then INIT   the listed values, then the elements of INIT (its element 0 first)
// x_k is the k-th output (k = 0, 1, ...) of a splitmix64 generator seeded with SEED.
inline std::vector<uint8_t> fillBuffer(Type type, uint64_t count, const Init &init) {
  const size_t es = typeSize(type);
  std::vector<uint8_t> buf(count * es, 0);
  const auto &args = init.args;
  auto intAt = [&](size_t i) {
    int64_t v = 0;
    parseInt(args[i], v);
    return v;
  };
  auto realAt = [&](size_t i) {
    double v = 0;
    parseReal(args[i], v);
    return v;
  };
  auto intRange = [&](SplitMix64 &g, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; // 0 means the full 64-bit range
    uint64_t x = g.next();
    return (int64_t)((uint64_t)lo + (span ? x % span : x));
  };
  for (uint64_t k = 0; k < count; ++k) {
    uint8_t *p = buf.data() + k * es;
    switch (init.kind) {
    case Init::Zeros: break;
    case Init::Const:
      if (isFloat(type))
        storeReal(p, type, realAt(0));
      else
        storeInt(p, type, (uint64_t)intAt(0));
      break;
    case Init::Iota:
      if (isFloat(type))
        storeReal(p, type, realAt(0) + (double)k * realAt(1));
      else
        storeInt(p, type, (uint64_t)intAt(0) + k * (uint64_t)intAt(1));
      break;
    case Init::Values:
      if (k < args.size()) {
        if (isFloat(type))
          storeReal(p, type, realAt(k));
        else
          storeInt(p, type, (uint64_t)intAt(k));
      }
      break;
    default: break;
    }
  }
  if (init.kind == Init::Random || init.kind == Init::RandomRange || init.kind == Init::RandInt ||
      init.kind == Init::LogRandom) {
    SplitMix64 g((uint64_t)intAt(0));
    for (uint64_t k = 0; k < count; ++k) {
      uint8_t *p = buf.data() + k * es;
      if (init.kind == Init::Random) {
        storeInt(p, type, g.next());
      } else if (init.kind == Init::RandInt) {
        storeValueInt(p, type, intRange(g, intAt(1), intAt(2)));
      } else if (init.kind == Init::LogRandom) {
        uint64_t x = g.next();
        double e = realAt(1) + (realAt(2) - realAt(1)) * ((double)(x >> 11) * 0x1p-53);
        storeReal(p, type, (x & 1) ? -std::exp2(e) : std::exp2(e));
      } else if (isFloat(type)) {
        double lo = realAt(1), hi = realAt(2);
        double u = (double)(g.next() >> 11) * 0x1p-53;
        storeReal(p, type, lo + (hi - lo) * u);
      } else {
        int64_t lo = intAt(1), hi = intAt(2);
        storeInt(p, type, (uint64_t)intRange(g, lo, hi));
      }
    }
  }
  if (init.kind == Init::Values && !init.then.empty() && args.size() < count) {
    std::vector<uint8_t> tail = fillBuffer(type, count - args.size(), init.then[0]);
    std::memcpy(buf.data() + args.size() * es, tail.data(), tail.size());
  }
  return buf;
}

inline std::vector<uint8_t> makeBuffer(const Arg &a) { return fillBuffer(a.type, a.count, a.init); }

// ---- text form of buffer contents ------------------------------------------------------
// Integers in decimal (signed types signed), floats as the hex of their bit pattern
// (0x3f800000; f16/bf16 as 0x3c00), 8 elements per line.
inline std::string formatElement(const uint8_t *p, Type t) {
  char s[40];
  uint64_t u = 0;
  std::memcpy(&u, p, typeSize(t));
  switch (t) {
  case Type::S8: std::snprintf(s, sizeof s, "%d", (int)(int8_t)u); break;
  case Type::S16: std::snprintf(s, sizeof s, "%d", (int)(int16_t)u); break;
  case Type::S32: std::snprintf(s, sizeof s, "%d", (int)(int32_t)u); break;
  case Type::S64: std::snprintf(s, sizeof s, "%lld", (long long)(int64_t)u); break;
  case Type::F16:
  case Type::BF16: std::snprintf(s, sizeof s, "0x%04x", (unsigned)u); break;
  case Type::E4M3:
  case Type::E5M2: std::snprintf(s, sizeof s, "0x%02x", (unsigned)u); break;
  case Type::F32: std::snprintf(s, sizeof s, "0x%08x", (unsigned)u); break;
  case Type::F64: std::snprintf(s, sizeof s, "0x%016llx", (unsigned long long)u); break;
  default: std::snprintf(s, sizeof s, "%llu", (unsigned long long)u); break;
  }
  return s;
}

inline std::string formatBuffer(const Arg &a, const std::vector<uint8_t> &bytes) {
  std::string out = "buffer " + a.name + " " + typeName(a.type) + " " + std::to_string(a.count) + "\n";
  const size_t es = typeSize(a.type);
  for (uint64_t k = 0; k < a.count; ++k) {
    out += formatElement(bytes.data() + k * es, a.type);
    out += (k % 8 == 7 || k + 1 == a.count) ? "\n" : " ";
  }
  return out;
}

// ---- SHA-256 (FIPS 180-4) -------------------------------------------------------------------
inline std::string sha256Hex(const std::string &data) {
  static const uint32_t K[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string m = data;
  uint64_t bits = (uint64_t)data.size() * 8;
  m += (char)0x80;
  while (m.size() % 64 != 56) m += (char)0;
  for (int i = 7; i >= 0; --i) m += (char)((bits >> (8 * i)) & 0xff);
  auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (size_t off = 0; off < m.size(); off += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = (uint32_t)(uint8_t)m[off + 4 * i] << 24 | (uint32_t)(uint8_t)m[off + 4 * i + 1] << 16 |
             (uint32_t)(uint8_t)m[off + 4 * i + 2] << 8 | (uint32_t)(uint8_t)m[off + 4 * i + 3];
    for (int i = 16; i < 64; ++i) {
      uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      uint32_t ch = (e & f) ^ (~e & g);
      uint32_t t1 = hh + S1 + ch + K[i] + w[i];
      uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
      uint32_t t2 = S0 + mj;
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  char out[65];
  for (int i = 0; i < 8; ++i) std::snprintf(out + 8 * i, 9, "%08x", h[i]);
  return std::string(out, 64);
}

inline bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

} // namespace gpucase

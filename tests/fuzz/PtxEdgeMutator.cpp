// A libFuzzer custom mutator for fuzz_emulator_edges: besides libFuzzer's own byte mutations,
// it writes whole kernels whose memory accesses sit at the edges of each state space (shared,
// local, param, const and the generic windows of emulator/Memory.h: window - 1, window - size,
// 2^64 - size, straddling the end, lanes of a warp mixing a good and a bad address) and calls
// whose argument and return .param variables differ in size from the callee's prototype, and
// it replaces integer literals of the input with such edge values. The bounds checks these
// reach must report the access, never touch host memory.
#include "emulator/Memory.h"

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

using Rng = std::mt19937_64;

uint64_t pick(Rng &rng, uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); }

template <typename T, size_t N> const T &oneOf(Rng &rng, const T (&values)[N]) {
  return values[pick(rng, N)];
}

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llX", static_cast<unsigned long long>(v));
  return text;
}

/// An address near an edge of a range [base, base + bytes) for an access of
/// `width` bytes: just below, straddling either end, at the last fitting
/// byte, wrapped around 2^64, or far past it.
uint64_t edge(Rng &rng, uint64_t base, uint64_t bytes, unsigned width) {
  // Mostly aligned to the access, so that the bounds check, not the
  // alignment check, is what the access reaches.
  switch (pick(rng, 10)) {
  case 0: return base - 1;
  case 9: return base - 2 * width;
  case 1: return base - width;
  case 2: return base + bytes - width;                        // the last access that fits
  case 3: return base + bytes - width + 1 + pick(rng, width); // straddles the end (misaligned)
  case 4: return base + bytes;
  case 5: return uint64_t{0} - width;        // 2^64 - size
  case 6: return uint64_t{0} - width + base; // wraps to just below the base
  case 7: return base + (uint64_t{1} << (32 + pick(rng, 32)));
  default: return base + (pick(rng, bytes + 64) & ~uint64_t{width - 1});
  }
}

struct Access {
  const char *type;
  unsigned width;
};
constexpr Access kAccesses[] = {{"u8", 1},  {"u16", 2},    {"u32", 4},     {"u64", 8},
                                {"f32", 4}, {"v2.u32", 8}, {"v4.u32", 16}, {"v2.u64", 16}};

/// The destination or source operand of an access of type `a`.
std::string regs(const Access &a) {
  std::string t = a.type;
  if (t == "v2.u32") return "{%r4, %r5}";
  if (t == "v4.u32") return "{%r4, %r5, %r6, %r7}";
  if (t == "v2.u64") return "{%rd6, %rd7}";
  if (t == "u64") return "%rd6";
  if (t == "f32") return "%f1";
  return "%r4";
}

/// One access (load, store or atomic) through %rd3 in `space` ("" for generic).
std::string accessAt(Rng &rng, const std::string &space) {
  const Access &a = oneOf(rng, kAccesses);
  std::string dot = space.empty() ? "" : "." + space;
  // Atomics exist for generic, global and shared addresses; const and param are read-only.
  bool atomics = space.empty() || space == "global" || space == "shared";
  bool readOnly = space == "const" || space == "param";
  switch (readOnly ? 0 : pick(rng, atomics ? 3 : 2)) {
  case 0: return "  ld" + dot + "." + a.type + " " + regs(a) + ", [%rd3];\n";
  case 1: return "  st" + dot + "." + a.type + " [%rd3], " + regs(a) + ";\n";
  default: return "  atom" + dot + ".add.u32 %r4, [%rd3], 1;\n";
  }
}

/// The address %rd3 for every lane, or a good one (%rd2) for lane 0 and the
/// edge for the rest: a warp whose lanes mix a valid and an invalid address.
std::string address(Rng &rng, uint64_t value) {
  std::string s = "  mov.u64 %rd3, " + hex(value) + ";\n";
  if (pick(rng, 3) == 0) s += "  selp.b64 %rd3, %rd2, %rd3, %p1;\n";
  return s;
}

/// A kernel of accesses at the edges of each space.
std::string edgeKernel(Rng &rng) {
  uint64_t sharedBytes = 16 << pick(rng, 8), localBytes = 16 << pick(rng, 6), constBytes = 16 << pick(rng, 6);
  std::string s = ".version 8.0\n.target sm_80\n.address_size 64\n";
  s += ".const .align 16 .b8 cbank[" + std::to_string(constBytes) + "];\n";
  s += ".visible .entry edges(.param .u64 buffer, .param .u32 n)\n{\n";
  s += "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n  .reg .f32 %f<2>;\n";
  s += "  .shared .align 16 .b8 smem[" + std::to_string(sharedBytes) + "];\n";
  s += "  .local .align 16 .b8 lmem[" + std::to_string(localBytes) + "];\n";
  s += "  mov.u32 %r1, %tid.x;\n  setp.eq.u32 %p1, %r1, 0;\n  ld.param.u64 %rd1, [buffer];\n";
  s += "  mov.u32 %r4, 7;\n  mov.u32 %r5, 8;\n  mov.u32 %r6, 9;\n  mov.u32 %r7, 10;\n";
  s += "  mov.u64 %rd6, 11;\n  mov.u64 %rd7, 12;\n  mov.f32 %f1, 0f3F800000;\n";
  unsigned n = 1 + pick(rng, 6);
  for (unsigned i = 0; i < n; ++i) {
    const unsigned width = 1u << pick(rng, 5);
    switch (pick(rng, 9)) {
    case 0: // generic, at the shared window's edges
      s += "  mov.u64 %rd2, " + hex(emu::kSharedWindow) + ";\n";
      s += address(rng, edge(rng, emu::kSharedWindow, pick(rng, 2) ? sharedBytes : emu::kWindowSize, width));
      s += accessAt(rng, "");
      break;
    case 1: // generic, at the local window's edges
      s += "  mov.u64 %rd2, " + hex(emu::kLocalWindow) + ";\n";
      s += address(rng, edge(rng, emu::kLocalWindow, pick(rng, 2) ? localBytes : emu::kWindowSize, width));
      s += accessAt(rng, "");
      break;
    case 2: // .shared, a 64-bit offset
      s += "  mov.u64 %rd2, 0;\n" + address(rng, edge(rng, 0, sharedBytes, width)) + accessAt(rng, "shared");
      break;
    case 3: // .local, from the array's address
      s += "  mov.u64 %rd2, lmem;\n  mov.u64 %rd5, " + hex(edge(rng, 0, localBytes, width)) +
           ";\n  add.s64 %rd3, %rd2, %rd5;\n";
      if (pick(rng, 2)) s += "  selp.b64 %rd3, %rd2, %rd3, %p1;\n";
      s += accessAt(rng, "local");
      break;
    case 4: // .const, from the bank's address
      s += "  mov.u64 %rd2, cbank;\n  mov.u64 %rd5, " + hex(edge(rng, 0, constBytes, width)) +
           ";\n  add.s64 %rd3, %rd2, %rd5;\n" + accessAt(rng, "const");
      break;
    case 5: // the kernel's .param space (12 bytes of parameters)
      s += "  mov.u64 %rd2, buffer;\n  mov.u64 %rd5, " + hex(edge(rng, 0, 12, width)) +
           ";\n  add.s64 %rd3, %rd2, %rd5;\n" + accessAt(rng, "param");
      break;
    case 6: // a symbol plus a signed immediate
      s += "  ld.shared.u32 %r4, [smem+" +
           std::to_string(static_cast<int32_t>(edge(rng, 0, sharedBytes, 4))) + "];\n";
      break;
    case 7: // cvta of an edge offset, then a generic access
      s += "  mov.u64 %rd2, " + hex(edge(rng, 0, sharedBytes, width)) + ";\n";
      s += std::string("  cvta.") + (pick(rng, 2) ? "shared" : "local") + ".u64 %rd3, %rd2;\n" +
           accessAt(rng, "");
      break;
    default: // global, past the buffer the harness passes (4096 bytes)
      s += "  mov.u64 %rd2, %rd1;\n  mov.u64 %rd5, " + hex(edge(rng, 0, 4096, width)) +
           ";\n  add.s64 %rd3, %rd1, %rd5;\n" + accessAt(rng, pick(rng, 2) ? "global" : "");
      break;
    }
  }
  s += "  ret;\n}\n";
  return s;
}

/// A .param declaration of a random size: a scalar or a byte array.
std::string paramDecl(Rng &rng, const std::string &name, unsigned &bytes) {
  static const unsigned scalars[] = {1, 2, 4, 8};
  if (pick(rng, 4) == 0) {
    bytes = 1 + static_cast<unsigned>(pick(rng, 64));
    return ".param .align 8 .b8 " + name + "[" + std::to_string(bytes) + "]";
  }
  bytes = oneOf(rng, scalars);
  return ".param .b" + std::to_string(bytes * 8) + " " + name;
}

/// Aligned accesses that reach the last byte of a .param of `bytes` bytes
/// (its last whole 8 bytes, then its last byte), so that a frame smaller than
/// the declaration is overrun without a misaligned access stopping first.
std::string wholeAccess(const std::string &op, const std::string &name, unsigned bytes) {
  auto one = [&](unsigned width, unsigned offset) {
    std::string reg = width == 8 ? "%rd1" : "%r1", type = ".b" + std::to_string(width * 8);
    if (width == 1) type = ".b8";
    std::string at = "[" + name + "+" + std::to_string(offset) + "]";
    return "  " + op + ".param" + type + " " + (op == "ld" ? reg + ", " + at : at + ", " + reg) + ";\n";
  };
  if (bytes == 2 || bytes == 4 || bytes == 8) return one(bytes, 0);
  std::string s = bytes >= 8 ? one(8, bytes / 8 * 8 - 8) : "";
  return s + one(1, bytes - 1);
}

/// A kernel calling a function whose prototype the call site's .param
/// variables do not match in size (and sometimes in number).
std::string callKernel(Rng &rng) {
  unsigned formals = 1 + static_cast<unsigned>(pick(rng, 3));
  std::vector<unsigned> formalBytes(formals), actualBytes;
  unsigned retBytes = 0, rvBytes = 0;
  std::string s = ".version 8.0\n.target sm_80\n.address_size 64\n";
  s += ".func (" + paramDecl(rng, "ret", retBytes) + ") callee(";
  for (unsigned i = 0; i < formals; ++i)
    s += (i ? ", " : "") + paramDecl(rng, "a" + std::to_string(i), formalBytes[i]);
  s += ")\n{\n  .reg .b64 %rd<4>;\n  .reg .b32 %r<4>;\n  mov.u64 %rd1, 0;\n  mov.u32 %r1, 0;\n";
  // The callee reads and writes its whole formals, and the return value.
  for (unsigned i = 0; i < formals; ++i) s += wholeAccess("ld", "a" + std::to_string(i), formalBytes[i]);
  s += wholeAccess("st", "ret", retBytes);
  s += "  ret;\n}\n";
  s += ".visible .entry caller(.param .u64 buffer)\n{\n  .reg .b64 %rd<4>;\n  .reg .b32 %r<4>;\n";
  s += "  mov.u64 %rd1, 5;\n  {\n";
  unsigned actuals = pick(rng, 4) == 0 ? static_cast<unsigned>(pick(rng, formals + 2)) : formals;
  actualBytes.resize(actuals);
  for (unsigned i = 0; i < actuals; ++i)
    s += "  " + paramDecl(rng, "x" + std::to_string(i), actualBytes[i]) + ";\n";
  s += "  " + paramDecl(rng, "rv", rvBytes) + ";\n";
  for (unsigned i = 0; i < actuals; ++i)
    if (actualBytes[i] <= 8)
      s += "  st.param.b" + std::to_string(actualBytes[i] * 8) + " [x" + std::to_string(i) + "], %rd1;\n";
  s += "  call.uni (rv), callee, (";
  for (unsigned i = 0; i < actuals; ++i) s += (i ? ", x" : "x") + std::to_string(i);
  s += ");\n";
  if (rvBytes <= 8) s += "  ld.param.b" + std::to_string(rvBytes * 8) + " %rd2, [rv];\n";
  s += "  }\n  ret;\n}\n";
  return s;
}

/// Replaces one integer literal of the input with an edge value.
bool replaceLiteral(Rng &rng, std::string &text) {
  std::vector<std::pair<size_t, size_t>> literals;
  for (size_t i = 0; i < text.size();) {
    bool starts = std::isdigit(static_cast<unsigned char>(text[i])) &&
                  (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_' ||
                               text[i - 1] == '%' || text[i - 1] == '.'));
    if (!starts) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && std::isalnum(static_cast<unsigned char>(text[j]))) ++j;
    literals.emplace_back(i, j - i);
    i = j;
  }
  if (literals.empty()) return false;
  auto [at, length] = literals[pick(rng, literals.size())];
  static const uint64_t bases[] = {0, emu::kSharedWindow, emu::kLocalWindow, 1u << 16, 48u << 10};
  uint64_t base = oneOf(rng, bases), bytes = pick(rng, 2) ? emu::kWindowSize : 16 << pick(rng, 10);
  text.replace(at, length, hex(edge(rng, base, bytes, 1u << pick(rng, 5))));
  return true;
}

size_t emit(const std::string &text, uint8_t *data, size_t maxSize) {
  if (text.size() > maxSize) return 0;
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize, unsigned seed) {
  Rng rng(seed);
  size_t n = 0;
  switch (pick(rng, 8)) {
  case 0:
  case 1: n = emit(edgeKernel(rng), data, maxSize); break;
  case 2: n = emit(callKernel(rng), data, maxSize); break;
  case 3:
  case 4: {
    std::string text(reinterpret_cast<const char *>(data), size);
    if (replaceLiteral(rng, text)) n = emit(text, data, maxSize);
    break;
  }
  default: break;
  }
  return n ? n : LLVMFuzzerMutate(data, size, maxSize);
}

// Fundamental PTX vocabulary shared by every stage: types, modifiers, special
// registers and opcodes, as compact enums generated from the .def tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ptx {

enum class TypeClass : uint8_t { Bits, Unsigned, Signed, Float, Pred, Opaque };

enum class Type : uint8_t {
  None,
#define TYPE(Id, Spelling, Bits, Class) Id,
#include "ptx/Types.def"
  NumTypes
};

/// Modifier kinds only describe; the instruction table decides where each
/// spelling may appear.
enum class ModKind : uint8_t {
  Type,
  Space,
  Rounding,
  Compare,
  BoolOp,
  Vector,
  Scope,
  Semantics,
  CacheOp,
  Eviction,
  Op,
  Shape,
  Layout,
  Misc
};

/// Every `.word` that may follow an opcode. Types come first so that a type
/// modifier converts to ptx::Type by arithmetic.
enum class Mod : uint16_t {
  None,
#define TYPE(Id, Spelling, Bits, Class) Id,
#include "ptx/Types.def"
#define MOD(Id, Spelling, Kind) Id,
#include "ptx/Modifiers.def"
  NumMods
};
constexpr unsigned kNumMods = static_cast<unsigned>(Mod::NumMods);

enum class SpecialReg : uint8_t {
#define SREG(Id, Name, HasComponents, Ty) Id,
#include "ptx/SpecialRegs.def"
  NumSpecialRegs
};

std::string_view spelling(Type t);
unsigned bitWidth(Type t);
TypeClass typeClass(Type t);
std::optional<Type> typeFromSpelling(std::string_view s);

std::string_view spelling(Mod m);
ModKind modKind(Mod m);
/// Looks up a modifier by its spelling without the leading dot.
std::optional<Mod> modFromSpelling(std::string_view s);
inline bool isTypeMod(Mod m) {
  return m != Mod::None && static_cast<unsigned>(m) < static_cast<unsigned>(Type::NumTypes);
}
inline Type typeOfMod(Mod m) { return isTypeMod(m) ? static_cast<Type>(m) : Type::None; }
inline Mod modOfType(Type t) { return static_cast<Mod>(t); }

std::string_view spelling(SpecialReg r);
bool hasComponents(SpecialReg r);
Type specialRegType(SpecialReg r);
std::optional<SpecialReg> specialRegFromName(std::string_view nameWithoutPercent);

} // namespace ptx

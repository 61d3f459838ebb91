#include "ptx/Types.h"

#include <array>
#include <string>
#include <unordered_map>

namespace ptx {
namespace {

struct TypeInfo {
  std::string_view spelling;
  unsigned bits;
  TypeClass cls;
};

constexpr TypeInfo kTypes[] = {
    {"", 0, TypeClass::Bits},
#define TYPE(Id, Spelling, Bits, Class) {Spelling, Bits, TypeClass::Class},
#include "ptx/Types.def"
};

struct ModInfo {
  std::string_view spelling;
  ModKind kind;
};

constexpr ModInfo kMods[] = {
    {"", ModKind::Misc},
#define TYPE(Id, Spelling, Bits, Class) {Spelling, ModKind::Type},
#include "ptx/Types.def"
#define MOD(Id, Spelling, Kind) {Spelling, ModKind::Kind},
#include "ptx/Modifiers.def"
};
static_assert(std::size(kMods) == kNumMods);

struct SRegInfo {
  std::string_view name;
  bool hasComponents;
  Type type;
};

constexpr SRegInfo kSRegs[] = {
#define SREG(Id, Name, HasComponents, Ty) {Name, HasComponents, Type::Ty},
#include "ptx/SpecialRegs.def"
};

template <typename Enum, size_t N, typename Info>
std::unordered_map<std::string_view, Enum> indexBySpelling(const Info (&infos)[N], size_t first) {
  std::unordered_map<std::string_view, Enum> map;
  map.reserve(N * 2);
  for (size_t i = first; i < N; ++i) map.emplace(infos[i].spelling, static_cast<Enum>(i));
  return map;
}

} // namespace

std::string_view spelling(Type t) { return kTypes[static_cast<size_t>(t)].spelling; }
unsigned bitWidth(Type t) { return kTypes[static_cast<size_t>(t)].bits; }
TypeClass typeClass(Type t) { return kTypes[static_cast<size_t>(t)].cls; }

std::optional<Type> typeFromSpelling(std::string_view s) {
  auto m = modFromSpelling(s);
  if (m && isTypeMod(*m)) return typeOfMod(*m);
  return std::nullopt;
}

std::string_view spelling(Mod m) { return kMods[static_cast<size_t>(m)].spelling; }
ModKind modKind(Mod m) { return kMods[static_cast<size_t>(m)].kind; }

std::optional<Mod> modFromSpelling(std::string_view s) {
  static const auto map = indexBySpelling<Mod>(kMods, 1);
  auto it = map.find(s);
  if (it == map.end()) return std::nullopt;
  return it->second;
}

std::string_view spelling(SpecialReg r) { return kSRegs[static_cast<size_t>(r)].name; }
bool hasComponents(SpecialReg r) { return kSRegs[static_cast<size_t>(r)].hasComponents; }
Type specialRegType(SpecialReg r) { return kSRegs[static_cast<size_t>(r)].type; }

std::optional<SpecialReg> specialRegFromName(std::string_view name) {
  static const auto map = [] {
    std::unordered_map<std::string_view, SpecialReg> m;
    for (size_t i = 0; i < std::size(kSRegs); ++i) m.emplace(kSRegs[i].name, static_cast<SpecialReg>(i));
    return m;
  }();
  auto it = map.find(name);
  if (it == map.end()) return std::nullopt;
  return it->second;
}

} // namespace ptx

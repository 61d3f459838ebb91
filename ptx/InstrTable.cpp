#include "ptx/InstrTable.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace ptx {
namespace {

struct OpcodeRow {
  std::string_view name;
  uint32_t flags;
};

using namespace iflag;

constexpr OpcodeRow kOpcodeRows[] = {
#define INSTR(Id, Name, Flags) {Name, static_cast<uint32_t>(Flags)},
#include "ptx/table/All.def"
};

struct FormRow {
  Opcode opcode;
  std::string_view notation;
  uint16_t ptxVersion;
  uint16_t sm;
};

constexpr FormRow kFormRows[] = {
#define FORM(Id, Notation, PtxVersion, Sm) {Opcode::Id, Notation, PtxVersion, Sm},
#include "ptx/table/All.def"
};

struct WhenRow {
  Opcode opcode;
  Mod modifier;
  uint32_t flags;
};

constexpr WhenRow kWhenRows[] = {
#define WHEN(Id, Modifier, Flags) {Opcode::Id, Mod::Modifier, static_cast<uint32_t>(Flags)},
#include "ptx/table/All.def"
};

struct BarrierRow {
  Opcode opcode;
  BarrierInfo info;
};

constexpr BarrierRow kBarrierRows[] = {
#define BARRIER(Id, Kind, Alignment, IdOperand)                                                              \
  {Opcode::Id, {BarrierKind::Kind, BarrierAlignment::Alignment, IdOperand}},
#include "ptx/table/All.def"
};

struct SetRow {
  std::string_view name;
  std::string_view members;
};

constexpr SetRow kSetRows[] = {
#define SET(Name, Members) {#Name, Members},
#include "ptx/table/Sets.def"
};

/// Reads one form's notation into groups and operand specs.
class NotationReader {
public:
  NotationReader(const FormRow &row, const OpcodeInfo &info, Form &form, std::vector<std::string> &errors)
      : row_(row), info_(info), form_(form), errors_(errors), text_(row.notation) {}

  void read() {
    if (!text_.starts_with(info_.name) ||
        (text_.size() > info_.name.size() && text_[info_.name.size()] != '.' &&
         text_[info_.name.size()] != ' ')) {
      return fail("form does not start with the opcode name '" + std::string(info_.name) + "'");
    }
    pos_ = info_.name.size();
    while (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (!readGroup()) return;
    }
    skipSpace();
    bool sawOptional = false;
    while (pos_ < text_.size()) {
      if (!readOperand()) return;
      // The optional second half of a pair (`d|p?`) does not make later
      // operands optional.
      const OperandSpec &head =
          form_.operands[form_.operands.size() - (form_.operands.back().pairedWithPrevious ? 2 : 1)];
      if (head.optional)
        sawOptional = true;
      else if (sawOptional)
        return fail("a required operand follows an optional one");
      skipSpace();
      if (pos_ < text_.size()) {
        if (text_[pos_] != ',') return fail("expected ',' between operands");
        ++pos_;
        skipSpace();
      }
    }
    for (const OperandSpec &o : form_.operands)
      if (!o.optional && !o.pairedWithPrevious && o.shape != OperandShape::Rest) ++form_.minOperands;
  }

private:
  void fail(const std::string &why) {
    errors_.push_back(std::string(row_.notation) + ": " + why + " (at column " + std::to_string(pos_) + ")");
  }
  void skipSpace() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  static bool isWordChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '$';
  }
  std::string_view word() {
    size_t start = pos_;
    while (pos_ < text_.size() && isWordChar(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  bool addSpelling(ModGroup &g, std::string_view s) {
    auto m = modFromSpelling(s);
    if (!m) {
      fail("unknown modifier '." + std::string(s) + "' (add it to a *.mods.def)");
      return false;
    }
    g.accepts.set(static_cast<size_t>(*m));
    return true;
  }
  bool addMembers(ModGroup &g, std::string_view list) {
    size_t start = 0;
    while (start <= list.size()) {
      size_t bar = list.find('|', start);
      if (bar == std::string_view::npos) bar = list.size();
      if (!addSpelling(g, list.substr(start, bar - start))) return false;
      start = bar + 1;
    }
    return true;
  }
  bool readGroup() {
    ModGroup g;
    if (pos_ < text_.size() && text_[pos_] == '(') {
      size_t close = text_.find(')', pos_);
      if (close == std::string_view::npos) return fail("unclosed '('"), false;
      if (!addMembers(g, text_.substr(pos_ + 1, close - pos_ - 1))) return false;
      pos_ = close + 1;
    } else if (pos_ < text_.size() && text_[pos_] == '@') {
      ++pos_;
      std::string_view name = word();
      auto it = std::find_if(std::begin(kSetRows), std::end(kSetRows),
                             [&](const SetRow &s) { return s.name == name; });
      if (it == std::end(kSetRows)) return fail("unknown set '@" + std::string(name) + "'"), false;
      if (!addMembers(g, it->members)) return false;
    } else {
      std::string_view w = word();
      if (w.empty()) return fail("expected a modifier after '.'"), false;
      if (!addSpelling(g, w)) return false;
    }
    if (pos_ < text_.size() && text_[pos_] == '?') {
      g.optional = true;
      ++pos_;
    }
    g.isType = true;
    for (size_t m = 1; m < kNumMods; ++m)
      if (g.accepts.test(m) && !isTypeMod(static_cast<Mod>(m))) g.isType = false;
    form_.groups.push_back(std::move(g));
    return true;
  }
  bool readSingle(OperandSpec &spec) {
    if (pos_ < text_.size() && text_[pos_] == '!') {
      spec.negatable = true;
      ++pos_;
    }
    if (text_.substr(pos_).starts_with("[a]")) {
      spec.shape = OperandShape::Address;
      pos_ += 3;
    } else if (text_.substr(pos_).starts_with("()")) {
      spec.shape = OperandShape::ParamList;
      pos_ += 2;
    } else if (pos_ < text_.size()) {
      switch (text_[pos_]) {
      case 'd': spec.shape = OperandShape::Dest; break;
      case 'a':
      case 'b':
      case 'c': spec.shape = OperandShape::Source; break;
      case 'r': spec.shape = OperandShape::SourceReg; break;
      case 'i': spec.shape = OperandShape::Imm; break;
      case 'p':
      case 'q':
        spec.shape = OperandShape::Pred;
        spec.type = {OperandType::Fixed, 0, Type::Pred};
        break;
      case 'L': spec.shape = OperandShape::Label; break;
      case 'f': spec.shape = OperandShape::Function; break;
      case 's': spec.shape = OperandShape::Symbol; break;
      case 'v': spec.shape = OperandShape::RegVector; break;
      case '*': spec.shape = OperandShape::Rest; break;
      default: return fail(std::string("unknown operand shape '") + text_[pos_] + "'"), false;
      }
      ++pos_;
    } else {
      return fail("expected an operand"), false;
    }
    if (pos_ < text_.size() && text_[pos_] == '?') {
      spec.optional = true;
      ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == ':') {
      ++pos_;
      std::string_view t = word();
      if (t == "any") {
        spec.type = {OperandType::Any, 0, Type::None};
      } else if (t.size() == 2 && t[0] == 'T' && std::isdigit(static_cast<unsigned char>(t[1]))) {
        spec.type = {OperandType::Group, static_cast<uint8_t>(t[1] - '0'), Type::None};
      } else if (auto ty = typeFromSpelling(t)) {
        spec.type = {OperandType::Fixed, 0, *ty};
      } else {
        return fail("unknown operand type ':" + std::string(t) + "'"), false;
      }
    }
    if (pos_ < text_.size() && text_[pos_] == '?') {
      spec.optional = true;
      ++pos_;
    }
    return true;
  }
  bool readOperand() {
    OperandSpec first;
    if (!readSingle(first)) return false;
    form_.operands.push_back(first);
    if (pos_ < text_.size() && text_[pos_] == '|') {
      ++pos_;
      OperandSpec second;
      if (!readSingle(second)) return false;
      second.pairedWithPrevious = true;
      form_.operands.push_back(second);
    }
    return true;
  }

  const FormRow &row_;
  const OpcodeInfo &info_;
  Form &form_;
  std::vector<std::string> &errors_;
  std::string_view text_;
  size_t pos_ = 0;
};

bool matchGroups(const std::vector<ModGroup> &groups, size_t gi, std::span<const Mod> mods, size_t mi) {
  if (mi == mods.size()) {
    for (; gi < groups.size(); ++gi)
      if (!groups[gi].optional) return false;
    return true;
  }
  if (gi == groups.size()) return false;
  const ModGroup &g = groups[gi];
  if (g.accepts.test(static_cast<size_t>(mods[mi])) && matchGroups(groups, gi + 1, mods, mi + 1)) return true;
  return g.optional && matchGroups(groups, gi + 1, mods, mi);
}

/// ptxas also accepts modifiers out of the ISA's order (`add.ftz.rn.f32`,
/// `atom.add.global.u32`); only type modifiers keep their relative order.
bool matchUnordered(const std::vector<ModGroup> &groups, std::span<const Mod> mods, size_t mi, uint64_t used,
                    int lastTypeGroup) {
  if (mi == mods.size()) {
    for (size_t g = 0; g < groups.size(); ++g)
      if (!groups[g].optional && !(used & (uint64_t{1} << g))) return false;
    return true;
  }
  bool isType = isTypeMod(mods[mi]);
  for (size_t g = 0; g < groups.size() && g < 64; ++g) {
    if ((used & (uint64_t{1} << g)) || !groups[g].accepts.test(static_cast<size_t>(mods[mi]))) continue;
    if (isType && static_cast<int>(g) < lastTypeGroup) continue;
    if (matchUnordered(groups, mods, mi + 1, used | (uint64_t{1} << g),
                       isType ? static_cast<int>(g) : lastTypeGroup))
      return true;
  }
  return false;
}

} // namespace

const InstrTable &InstrTable::get() {
  static const InstrTable table;
  return table;
}

InstrTable::InstrTable() {
  opcodes_.resize(kNumOpcodes);
  accepted_.resize(kNumOpcodes);
  for (size_t i = 0; i < kNumOpcodes; ++i) {
    opcodes_[i].name = kOpcodeRows[i].name;
    opcodes_[i].flags = kOpcodeRows[i].flags;
    byName_.emplace_back(kOpcodeRows[i].name, static_cast<Opcode>(i));
  }
  std::sort(byName_.begin(), byName_.end());
  for (size_t i = 1; i < byName_.size(); ++i)
    if (byName_[i].first == byName_[i - 1].first)
      errors_.push_back("opcode name '" + std::string(byName_[i].first) + "' appears twice");

  forms_.reserve(std::size(kFormRows));
  for (const FormRow &row : kFormRows) {
    Form form;
    form.opcode = row.opcode;
    form.id = static_cast<uint16_t>(forms_.size());
    form.ptxVersion = row.ptxVersion;
    form.sm = row.sm;
    form.notation = row.notation;
    OpcodeInfo &info = opcodes_[static_cast<size_t>(row.opcode)];
    NotationReader(row, info, form, errors_).read();
    for (const ModGroup &g : form.groups) accepted_[static_cast<size_t>(row.opcode)] |= g.accepts;
    info.forms.push_back(form.id);
    forms_.push_back(std::move(form));
  }
  for (size_t i = 0; i < kNumOpcodes; ++i)
    if (opcodes_[i].forms.empty())
      errors_.push_back("opcode '" + std::string(opcodes_[i].name) + "' has no form");
  for (const WhenRow &row : kWhenRows) {
    OpcodeInfo &info = opcodes_[static_cast<size_t>(row.opcode)];
    if (!accepted_[static_cast<size_t>(row.opcode)].test(static_cast<size_t>(row.modifier)))
      errors_.push_back("WHEN row of '" + std::string(info.name) + "' names ." +
                        std::string(spelling(row.modifier)) + ", which no form of it takes");
    info.when.emplace_back(row.modifier, row.flags);
  }
  for (const BarrierRow &row : kBarrierRows) {
    OpcodeInfo &info = opcodes_[static_cast<size_t>(row.opcode)];
    if (info.barrier.kind != BarrierKind::None)
      errors_.push_back("'" + std::string(info.name) + "' has two BARRIER rows");
    if (!(info.flags & iflag::Barrier))
      errors_.push_back("BARRIER row of '" + std::string(info.name) + "', which has no iflag::Barrier");
    info.barrier = row.info;
  }
  for (const OpcodeInfo &info : opcodes_)
    if ((info.flags & iflag::Barrier) && info.barrier.kind == BarrierKind::None)
      errors_.push_back("barrier '" + std::string(info.name) + "' has no BARRIER row");
}

uint32_t InstrTable::flags(Opcode op, std::span<const Mod> mods) const {
  const OpcodeInfo &i = info(op);
  uint32_t f = i.flags;
  for (auto [mod, more] : i.when)
    if (std::find(mods.begin(), mods.end(), mod) != mods.end()) f |= more;
  return f;
}

bool InstrTable::alignedBarrier(Opcode op, std::span<const Mod> mods) const {
  const BarrierInfo &b = info(op).barrier;
  if (b.kind == BarrierKind::None) return false;
  return b.alignment == BarrierAlignment::Aligned ||
         std::find(mods.begin(), mods.end(), Mod::Aligned) != mods.end();
}

bool InstrTable::lookup(std::string_view name, Opcode &out) const {
  auto it = std::lower_bound(byName_.begin(), byName_.end(), name,
                             [](const auto &entry, std::string_view n) { return entry.first < n; });
  if (it == byName_.end() || it->first != name) return false;
  out = it->second;
  return true;
}

size_t InstrTable::lookupPrefix(std::string_view text, Opcode &out) const {
  // Try the whole text, then drop one trailing `.word` at a time.
  size_t len = text.size();
  while (len > 0) {
    if (lookup(text.substr(0, len), out)) return len;
    size_t dot = text.rfind('.', len - 1);
    if (dot == std::string_view::npos || dot == 0) break;
    len = dot;
  }
  return 0;
}

int InstrTable::match(Opcode op, std::span<const Mod> mods) const {
  for (uint16_t id : info(op).forms)
    if (matchGroups(forms_[id].groups, 0, mods, 0)) return id;
  for (uint16_t id : info(op).forms)
    if (matchUnordered(forms_[id].groups, mods, 0, 0, -1)) return id;
  return -1;
}

bool InstrTable::matches(uint16_t form, std::span<const Mod> mods) const {
  return matchGroups(forms_[form].groups, 0, mods, 0) || matchUnordered(forms_[form].groups, mods, 0, 0, -1);
}

} // namespace ptx

#include "ptx/Writer.h"

#include <algorithm>

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace ptx {
namespace {

void appendUnsigned(std::string &out, uint64_t v, IntFormat format) {
  char buf[80];
  switch (format) {
  case IntFormat::Decimal: std::snprintf(buf, sizeof buf, "%" PRIu64, v); break;
  case IntFormat::Hex: std::snprintf(buf, sizeof buf, "0x%" PRIX64, v); break;
  case IntFormat::Octal: std::snprintf(buf, sizeof buf, "0%" PRIo64, v); break;
  case IntFormat::Binary: {
    std::string bits;
    do {
      bits.insert(bits.begin(), char('0' + (v & 1)));
      v >>= 1;
    } while (v);
    out += "0b" + bits;
    return;
  }
  }
  out += buf;
}

void appendLiteral(std::string &out, OperandKind kind, uint8_t flags, IntFormat format, int64_t value) {
  uint64_t bits = static_cast<uint64_t>(value);
  switch (kind) {
  case OperandKind::Int:
    if (flags & opflag::NegativeLiteral) {
      out += '-';
      bits = 0 - bits;
    }
    appendUnsigned(out, bits, format);
    if (flags & opflag::UnsignedSuffix) out += 'U';
    return;
  case OperandKind::F32: {
    if (flags & opflag::NegativeLiteral) {
      out += '-';
      bits ^= 0x80000000u;
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, "0f%08" PRIX32, static_cast<uint32_t>(bits));
    out += buf;
    return;
  }
  case OperandKind::F64: {
    char buf[40];
    if (flags & opflag::DecimalFloat) {
      double d;
      std::memcpy(&d, &bits, sizeof d);
      std::snprintf(buf, sizeof buf, "%.17g", d);
      out += buf;
      if (!std::strpbrk(buf, ".eEn")) out += ".0";
      return;
    }
    if (flags & opflag::NegativeLiteral) {
      out += '-';
      bits ^= 0x8000000000000000ull;
    }
    std::snprintf(buf, sizeof buf, "0d%016" PRIX64, bits);
    out += buf;
    return;
  }
  default: return;
  }
}

void appendOperand(std::string &out, const Module &m, const Function &f, const Operand &op) {
  if (op.negated()) out += '!';
  if (op.flags & opflag::Minus) out += '-';
  auto appendSelector = [&] {
    if (op.selector == Selector::None) return;
    out += '.';
    out += spelling(op.selector);
    if (op.selector == Selector::ByteMask || op.selector == Selector::HalfMask) {
      unsigned digits = static_cast<unsigned>(op.value >> 32);
      for (unsigned i = digits; i-- > 0;) out += char('0' + ((op.value >> (4 * i)) & 0xF));
    }
  };
  auto appendChildren = [&](const char *open, const char *close, const char *sep) {
    out += open;
    auto kids = f.children(op);
    for (size_t i = 0; i < kids.size(); ++i) {
      if (i) out += sep;
      appendOperand(out, m, f, kids[i]);
    }
    out += close;
  };
  switch (op.kind) {
  case OperandKind::Register:
    out += registerName(m, f, op.id);
    appendSelector();
    return;
  case OperandKind::SpecialReg:
    out += '%';
    out += spelling(static_cast<SpecialReg>(op.id));
    if (static_cast<SpecialReg>(op.id) == SpecialReg::EnvReg) out += std::to_string(op.value);
    appendSelector();
    return;
  case OperandKind::Int:
  case OperandKind::F32:
  case OperandKind::F64: appendLiteral(out, op.kind, op.flags, op.format(), op.value); return;
  case OperandKind::Symbol: out += m.str(op.id); return;
  case OperandKind::Address:
    out += '[';
    if (op.base == AddressBase::Register) {
      out += registerName(m, f, op.id);
      appendSelector();
    } else if (op.base == AddressBase::Symbol) {
      out += m.str(op.id);
    }
    if (op.base == AddressBase::None) {
      out += std::to_string(op.value);
    } else if (op.value != 0) {
      out += '+';
      out += std::to_string(op.value);
    }
    out += ']';
    return;
  case OperandKind::AddressList: appendChildren("[", "]", ", "); return;
  case OperandKind::Vector: appendChildren("{", "}", ", "); return;
  case OperandKind::List: appendChildren("(", ")", ", "); return;
  case OperandKind::Pair: appendChildren("", "", "|"); return;
  case OperandKind::Sink: out += '_'; return;
  }
}

std::string_view linkageText(Linkage l) {
  switch (l) {
  case Linkage::None: return "";
  case Linkage::Visible: return ".visible ";
  case Linkage::Extern: return ".extern ";
  case Linkage::Weak: return ".weak ";
  case Linkage::Common: return ".common ";
  }
  return "";
}

void appendInit(std::string &out, const Module &m, const std::vector<InitItem> &items, size_t &i) {
  const InitItem &it = items[i++];
  switch (it.kind) {
  case InitItem::List:
    out += '{';
    for (uint32_t c = 0; c < it.count; ++c) {
      if (c) out += ", ";
      appendInit(out, m, items, i);
    }
    out += '}';
    return;
  case InitItem::Int: appendLiteral(out, OperandKind::Int, it.flags, it.format, it.value); return;
  case InitItem::F32: appendLiteral(out, OperandKind::F32, it.flags, it.format, it.value); return;
  case InitItem::F64: appendLiteral(out, OperandKind::F64, it.flags, it.format, it.value); return;
  case InitItem::Address:
    if (it.flags & 1) {
      out += "generic(";
      out += m.str(it.symbol);
      out += ')';
    } else {
      out += m.str(it.symbol);
    }
    if (it.value > 0)
      out += "+" + std::to_string(it.value);
    else if (it.value < 0)
      out += "-" + std::to_string(-static_cast<uint64_t>(it.value));
    return;
  }
}

void appendVariable(std::string &out, const Module &m, const Variable &v) {
  out += linkageText(v.linkage);
  out += '.';
  out += spelling(v.space);
  if (v.attrs & static_cast<uint8_t>(VarAttr::Unified)) out += " .attribute(.unified)";
  if (v.alignment) out += " .align " + std::to_string(v.alignment);
  if (v.vectorWidth) out += " .v" + std::to_string(v.vectorWidth);
  out += " .";
  out += spelling(v.type);
  if (v.attrs & static_cast<uint8_t>(VarAttr::Ptr)) {
    out += " .ptr";
    if (v.ptrSpace != Mod::None) {
      out += " .";
      out += spelling(v.ptrSpace);
    }
    if (v.ptrAlignment) out += " .align " + std::to_string(v.ptrAlignment);
  }
  if (v.name != kNoName) {
    out += ' ';
    out += m.str(v.name);
  }
  for (uint64_t d : v.dims) out += d ? "[" + std::to_string(d) + "]" : "[]";
  if (!v.init.empty()) {
    out += " = ";
    size_t i = 0;
    appendInit(out, m, v.init, i);
  } else if (!v.fieldInit.empty()) {
    out += " = { ";
    for (size_t i = 0; i < v.fieldInit.size(); ++i) {
      if (i) out += ", ";
      out += m.str(v.fieldInit[i].first);
      out += " = ";
      out += m.str(v.fieldInit[i].second);
    }
    out += " }";
  }
}

void appendParams(std::string &out, const Module &m, const std::vector<Variable> &params, bool multiline) {
  out += '(';
  for (size_t i = 0; i < params.size(); ++i) {
    out += i ? (multiline ? ",\n\t" : ", ") : (multiline ? "\n\t" : "");
    appendVariable(out, m, params[i]);
  }
  out += multiline && !params.empty() ? "\n)" : ")";
}

void appendPragma(std::string &out, const std::vector<std::string> &args) {
  out += ".pragma ";
  for (size_t i = 0; i < args.size(); ++i) out += (i ? ", \"" : "\"") + args[i] + "\"";
  out += ';';
}

void appendDebugLoc(std::string &out, const DebugLoc &d, const Module &m) {
  out += "\t.loc\t" + std::to_string(d.file) + " " + std::to_string(d.line) + " " + std::to_string(d.column);
  if (d.functionName != kNoName) {
    out += ", function_name ";
    out += m.str(d.functionName);
  }
  if (d.inlinedFile)
    out += ", inlined_at " + std::to_string(d.inlinedFile) + " " + std::to_string(d.inlinedLine) + " " +
           std::to_string(d.inlinedColumn);
  out += '\n';
}

void appendBody(std::string &out, const Module &m, const Function &f, const WriteOptions &o) {
  out += "{\n";
  unsigned depth = 1;
  auto indent = [&] { out.append(depth, '\t'); };
  std::vector<int> blockOfInstr;
  if (o.comments) {
    blockOfInstr.assign(f.instrs.size(), -1);
    for (size_t b = 0; b < f.blocks.size(); ++b)
      if (f.blocks[b].numInstrs) blockOfInstr[f.blocks[b].firstInstr] = static_cast<int>(b);
  }
  for (const Stmt &s : f.statements()) {
    switch (s.kind) {
    case StmtKind::Instruction: {
      const Instruction &in = f.instrs[s.index];
      if (o.comments && blockOfInstr[s.index] >= 0) {
        const BasicBlock &b = f.blocks[blockOfInstr[s.index]];
        indent();
        out += "// block " + std::to_string(blockOfInstr[s.index]) + ", preds:";
        for (uint32_t p : f.preds(b)) out += " " + std::to_string(p);
        out += '\n';
      }
      indent();
      if (o.instructionOffsets) o.instructionOffsets->emplace_back(out.size(), in.loc.line);
      out += writeInstruction(m, f, in);
      out += '\n';
      break;
    }
    case StmtKind::DebugLoc:
      if (o.debugInfo) appendDebugLoc(out, f.debugLocs[s.index], m);
      break;
    case StmtKind::Label:
      out += m.str(f.labels[s.index].name);
      out += ":\n";
      break;
    case StmtKind::RegDecl: {
      const RegisterDecl &d = f.regDecls[s.index];
      indent();
      out += ".reg ";
      if (d.alignment) out += ".align " + std::to_string(d.alignment) + " ";
      if (d.vectorWidth) out += ".v" + std::to_string(d.vectorWidth) + " ";
      out += '.';
      out += spelling(d.type);
      out += " \t";
      out += m.str(d.name);
      if (d.count) out += "<" + std::to_string(d.count) + ">";
      out += ";\n";
      break;
    }
    case StmtKind::Variable:
      indent();
      appendVariable(out, m, f.locals[s.index]);
      out += ";\n";
      break;
    case StmtKind::ScopeBegin:
      indent();
      out += "{\n";
      ++depth;
      break;
    case StmtKind::ScopeEnd:
      --depth;
      indent();
      out += "}\n";
      break;
    case StmtKind::Pragma:
      indent();
      appendPragma(out, f.pragmas[s.index]);
      out += '\n';
      break;
    case StmtKind::Prototype: {
      const Prototype &p = f.prototypes[s.index];
      indent();
      out += m.str(p.name);
      out += ": .callprototype ";
      if (!p.returns.empty()) {
        appendParams(out, m, p.returns, false);
        out += ' ';
      }
      out += "_ ";
      appendParams(out, m, p.params, false);
      if (p.noReturn) out += " .noreturn";
      out += ";\n";
      break;
    }
    case StmtKind::TargetList: {
      const TargetList &t = f.targetLists[s.index];
      indent();
      out += m.str(t.name);
      out += t.calls ? ": .calltargets " : ": .branchtargets ";
      for (size_t i = 0; i < t.targets.size(); ++i) {
        if (i) out += ", ";
        out += m.str(t.targets[i]);
      }
      out += ";\n";
      break;
    }
    }
  }
  out += "}\n";
}

void appendFunction(std::string &out, const Module &m, const Function &f, const WriteOptions &o) {
  out += linkageText(f.linkage);
  out += f.isKernel ? ".entry " : ".func ";
  if (!f.returns.empty()) {
    appendParams(out, m, f.returns, false);
    out += ' ';
  }
  out += m.str(f.name);
  appendParams(out, m, f.params, true);
  out += '\n';
  if (f.noReturn) out += ".noreturn\n";
  for (const FunctionDirective &d : f.directives) {
    if (d.kind == DirectiveKind::Pragma) {
      appendPragma(out, d.strings);
    } else {
      out += '.';
      out += spelling(d.kind);
      for (size_t i = 0; i < d.values.size(); ++i) out += (i ? ", " : " ") + std::to_string(d.values[i]);
    }
    out += '\n';
  }
  if (!f.hasBody) {
    out += ";\n";
    return;
  }
  appendBody(out, m, f, o);
}

} // namespace

std::string instructionName(const Module &m, const Instruction &in) {
  std::string out(InstrTable::get().info(in.opcode).name);
  for (Mod mod : m.desc(in).modifiers()) {
    out += '.';
    out += spelling(mod);
  }
  return out;
}

std::string writeOperand(const Module &m, const Function &f, const Operand &op) {
  std::string out;
  appendOperand(out, m, f, op);
  return out;
}

std::string writeInstruction(const Module &m, const Function &f, const Instruction &in) {
  std::string out;
  if (in.hasGuard) {
    out += in.guardNegated ? "@!" : "@";
    out += registerName(m, f, in.guard);
    out += ' ';
  }
  out += instructionName(m, in);
  auto ops = f.operandsOf(in);
  for (size_t i = 0; i < ops.size(); ++i) {
    out += i ? ", " : " \t";
    appendOperand(out, m, f, ops[i]);
  }
  out += ';';
  return out;
}

std::string writeModule(const Module &m, const WriteOptions &o) {
  std::string out;
  if (o.comments) out += "//\n// Written by ptxvm\n//\n\n";
  if (m.versionMajor || m.versionMinor)
    out += ".version " + std::to_string(m.versionMajor) + "." + std::to_string(m.versionMinor) + "\n";
  if (!m.targets.empty()) {
    out += ".target ";
    bool first = true;
    for (const std::string &t : m.targets) {
      if (!o.debugInfo && t == "debug") continue;
      out += first ? "" : ", ";
      out += t;
      first = false;
    }
    out += '\n';
  }
  if (m.addressSize) out += ".address_size " + std::to_string(m.addressSize) + "\n";
  for (const TopLevel &t : m.order) {
    out += '\n';
    switch (t.kind) {
    case TopLevelKind::Function: appendFunction(out, m, m.functions[t.index], o); break;
    case TopLevelKind::Variable:
      appendVariable(out, m, m.globals[t.index]);
      out += ";\n";
      break;
    case TopLevelKind::File: {
      if (!o.debugInfo) break;
      const FileEntry &f = m.files[t.index];
      out += ".file\t" + std::to_string(f.index) + " \"" + f.path + "\"";
      if (f.hasTimestamp) out += ", " + std::to_string(f.timestamp) + ", " + std::to_string(f.size);
      out += '\n';
      break;
    }
    case TopLevelKind::Section: {
      if (!o.debugInfo) break;
      const Section &s = m.sections[t.index];
      out += ".section\t" + s.name + "\n{\n" + s.text + "\n}\n";
      break;
    }
    case TopLevelKind::Pragma:
      appendPragma(out, m.pragmas[t.index]);
      out += '\n';
      break;
    case TopLevelKind::Alias:
      out += ".alias ";
      out += m.str(m.aliases[t.index].first);
      out += ", ";
      out += m.str(m.aliases[t.index].second);
      out += ";\n";
      break;
    }
  }
  return out;
}

std::string writeModuleWithLines(const Module &m, std::vector<uint32_t> &sourceLines,
                                 const WriteOptions &options) {
  std::vector<std::pair<size_t, uint32_t>> offsets;
  WriteOptions o = options;
  o.instructionOffsets = &offsets;
  std::string text = writeModule(m, o);
  sourceLines.assign(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1, 0);
  size_t line = 0, scanned = 0;
  for (auto [offset, source] : offsets) {
    line += static_cast<size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(scanned),
                                           text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
    scanned = offset;
    sourceLines[line] = source;
  }
  return text;
}

} // namespace ptx

#include "tools/ShellDocs.h"

#include "ptx/Version.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <string_view>
#include <vector>

namespace ptxvm {
namespace {

std::vector<const CLI::App *> commandsOf(const CLI::App &ptxvm) {
  return ptxvm.get_subcommands([](const CLI::App *sub) { return !sub->get_group().empty(); });
}

std::vector<const CLI::Option *> optionsOf(const CLI::App &command) {
  return command.get_options([](const CLI::Option *o) { return !o->get_group().empty(); });
}

bool isFlag(const CLI::Option &o) { return o.get_expected_max() == 0; }

/// Every spelling of a named option: -o, --out.
std::vector<std::string> spellings(const CLI::Option &o) {
  std::vector<std::string> names;
  for (const std::string &s : o.get_snames()) names.push_back("-" + s);
  for (const std::string &l : o.get_lnames()) names.push_back("--" + l);
  return names;
}

/// The fixed values an option takes: from an IsMember check ("TEXT:{a,b}") or an
/// option text written as choices ("a|b"). Empty when the values are open.
std::vector<std::string> choices(const CLI::Option &o) {
  std::string list;
  const std::string type = o.get_type_name();
  if (size_t open = type.find('{'), close = type.rfind('}');
      open != std::string::npos && close != std::string::npos && close > open)
    list = type.substr(open + 1, close - open - 1);
  else if (o.get_option_text().find('|') != std::string::npos)
    list = o.get_option_text();
  std::vector<std::string> values;
  std::string value;
  for (char c : list + ",") {
    if (c == ',' || c == '|') {
      if (!value.empty()) values.push_back(value);
      value.clear();
    } else if (c != ' ') {
      value += c;
    }
  }
  return values;
}

/// What follows the option in help: its value's name, or its choices.
std::string valueName(const CLI::Option &o) {
  if (!o.get_option_text().empty()) return o.get_option_text();
  std::string type = o.get_type_name();
  return type.substr(0, type.find(':'));
}

enum class ValueKind { None, Choices, File, Directory, Other };

ValueKind valueKind(const CLI::Option &o) {
  if (isFlag(o)) return ValueKind::None;
  if (!choices(o).empty()) return ValueKind::Choices;
  const std::string name = valueName(o);
  if (name.find("DIR") != std::string::npos) return ValueKind::Directory;
  if (name.find("FILE") != std::string::npos || name == "OUT" || name.find("PATH") != std::string::npos)
    return ValueKind::File;
  return ValueKind::Other;
}

std::string join(const std::vector<std::string> &words) {
  std::string out;
  for (const std::string &w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// ---- bash ----

void completeCommand(std::string &out, const CLI::App &command) {
  std::vector<std::string> names, positionalChoices;
  std::string valueCases;
  for (const CLI::Option *o : optionsOf(command)) {
    if (o->get_positional()) {
      std::vector<std::string> c = choices(*o);
      positionalChoices.insert(positionalChoices.end(), c.begin(), c.end());
      continue;
    }
    std::vector<std::string> s = spellings(*o);
    names.insert(names.end(), s.begin(), s.end());
    std::string pattern;
    for (const std::string &n : s) pattern += (pattern.empty() ? "" : "|") + n;
    switch (valueKind(*o)) {
    case ValueKind::None: break;
    case ValueKind::Choices:
      valueCases += "      " + pattern + ") COMPREPLY=($(compgen -W \"" + join(choices(*o)) +
                    "\" -- \"$cur\")); return ;;\n";
      break;
    case ValueKind::File: valueCases += "      " + pattern + ") _ptxvm_files; return ;;\n"; break;
    case ValueKind::Directory:
      valueCases += "      " + pattern + ") COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n";
      break;
    case ValueKind::Other: valueCases += "      " + pattern + ") return ;;\n"; break;
    }
  }
  out += "  " + command.get_name() + ")\n";
  if (!valueCases.empty()) out += "    case \"$prev\" in\n" + valueCases + "    esac\n";
  // exec: everything after `--` or after the program is the program's.
  if (command.get_prefix_command()) out += "    ((program)) && { _ptxvm_files; return; }\n";
  out += "    if [[ $cur == -* ]]; then\n      COMPREPLY=($(compgen -W \"" + join(names) +
         "\" -- \"$cur\"))\n    else\n      " +
         (positionalChoices.empty()
              ? std::string("_ptxvm_files")
              : "COMPREPLY=($(compgen -W \"" + join(positionalChoices) + "\" -- \"$cur\"))") +
         "\n    fi\n    ;;\n";
}

// ---- man ----

/// `text` escaped for roff: backslashes, and a '.' or '\'' that would start a request.
std::string roff(std::string_view text) {
  std::string out;
  bool lineStart = true;
  for (char c : text) {
    if (lineStart && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    lineStart = c == '\n';
  }
  return out;
}

/// A help footer as roff paragraphs (blank lines in it start new ones).
std::string roffParagraphs(std::string_view text) {
  std::string out = ".PP\n";
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (line.empty())
      out += ".PP\n";
    else
      out += roff(line) + "\n";
    at = end + 1;
  }
  return out;
}

std::string synopsis(const CLI::App &command) {
  std::string s = "\\fBptxvm " + command.get_name() + "\\fR";
  bool options = false;
  for (const CLI::Option *o : optionsOf(command)) {
    if (!o->get_positional()) {
      options = true;
      continue;
    }
    s += o->get_required() ? " \\fI" + o->get_name() + "\\fR" : " [\\fI" + o->get_name() + "\\fR]";
  }
  if (options) s.insert(s.find("\\fR") + 3, " [\\fIOPTIONS\\fR]");
  if (command.get_prefix_command()) s += " [\\-\\-] \\fIPROGRAM\\fR [\\fIARGS\\fR...]";
  return s;
}

} // namespace

std::string bashCompletion(const CLI::App &ptxvm) {
  std::vector<std::string> commands;
  for (const CLI::App *c : commandsOf(ptxvm)) commands.push_back(c->get_name());
  std::string out = "# bash completion for ptxvm " + std::string(ptx::buildInfo().version) +
                    ", generated by `ptxvm completion bash` from its command line.\n"
                    "# Install as /usr/share/bash-completion/completions/ptxvm, or source it.\n\n"
                    "_ptxvm_files() {\n"
                    "  compopt -o filenames 2>/dev/null\n"
                    "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
                    "}\n\n"
                    "_ptxvm() {\n"
                    "  local cur=${COMP_WORDS[COMP_CWORD]} prev=\"\" command=\"\" program=0 i\n"
                    "  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
                    "  # --option=value: bash splits at '=' (COMP_WORDBREAKS).\n"
                    "  if [[ $cur == = ]]; then\n"
                    "    cur=\"\"\n"
                    "  elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then\n"
                    "    prev=${COMP_WORDS[COMP_CWORD - 2]}\n"
                    "  fi\n"
                    "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
                    "    if [[ -z $command ]]; then\n"
                    "      [[ ${COMP_WORDS[i]} != -* ]] && command=${COMP_WORDS[i]}\n"
                    "    elif [[ ${COMP_WORDS[i]} == -- ]]; then\n"
                    "      program=1\n"
                    "    fi\n"
                    "  done\n"
                    "  case \"$command\" in\n"
                    "  \"\")\n"
                    "    COMPREPLY=($(compgen -W \"" +
                    join(commands) + " --help --version\" -- \"$cur\"))\n    ;;\n";
  for (const CLI::App *c : commandsOf(ptxvm)) completeCommand(out, *c);
  out += "  esac\n}\n\ncomplete -F _ptxvm ptxvm\n";
  return out;
}

std::string manPage(const CLI::App &ptxvm) {
  const ptx::BuildInfo &build = ptx::buildInfo();
  std::string out = ".\\\" Generated by `ptxvm completion man` from ptxvm's command line.\n";
  out += ".TH PTXVM 1 \"\" \"ptxvm " + std::string(build.version) + "\" \"User Commands\"\n.nh\n.ad l\n";
  out +=
      ".SH NAME\nptxvm \\- a PTX virtual machine: reads, checks, analyses and runs PTX and CUDA programs\n";
  out += ".SH SYNOPSIS\n.B ptxvm\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIFILE\\fR]\n.br\n"
         ".B ptxvm exec\n[\\fIOPTIONS\\fR] [\\-\\-] \\fIPROGRAM\\fR [\\fIARGS\\fR...]\n.br\n"
         ".B ptxvm \\-\\-version\n";
  out += ".SH DESCRIPTION\n" + roffParagraphs(ptxvm.get_description());
  out += ".SH COMMANDS\n";
  for (const CLI::App *c : commandsOf(ptxvm)) {
    out += ".SS " + c->get_name() + "\n" + synopsis(*c) + "\n.PP\n" + roff(c->get_description()) + ".\n";
    if (!c->get_footer().empty()) out += roffParagraphs(c->get_footer());
    for (const CLI::Option *o : optionsOf(*c)) {
      std::string head;
      if (o->get_positional()) {
        head = "\\fI" + o->get_name() + "\\fR";
      } else {
        for (const std::string &s : spellings(*o))
          head += (head.empty() ? "" : ", ") + ("\\fB" + roff(s) + "\\fR");
        if (!isFlag(*o)) head += " \\fI" + roff(valueName(*o)) + "\\fR";
      }
      out += ".TP\n" + head + "\n" + roff(o->get_description()) + "\n";
    }
  }
  out += ".SH EXIT STATUS\n" + roffParagraphs(ptxvm.get_footer());
  out += ".SH FILES\n.TP\n\\fIPREFIX\\fB/lib/ptxvm/libcudart.so.13\\fR\n"
         "The CUDA runtime that \\fBptxvm exec\\fR puts ahead of the program's own (found next to the "
         "ptxvm binary; \\fBPTXVM_CUDART_DIR\\fR overrides).\n"
         ".TP\n\\fI$XDG_CACHE_HOME\\fB/ptxvm\\fR\nCompiled code of the CPU device.\n";
  // One line each, as --version prints them.
  out += ".SH VERSION\n";
  const std::string version = ptx::versionText();
  for (size_t at = 0, end; at < version.size(); at = end + 1) {
    end = version.find('\n', at);
    if (end == std::string::npos) end = version.size();
    out += roff(version.substr(at, end - at)) + "\n.br\n";
  }
  return out;
}

Command addCompletionCommand(CLI::App &ptxvm) {
  struct Options {
    std::string format, out;
  };
  auto o = std::make_shared<Options>();
  CLI::App *cmd = ptxvm.add_subcommand("completion", "print the bash completion script or the man page");
  cmd->footer(
      paragraph("`ptxvm completion bash` prints a bash completion script (source it, or install it as "
                "/usr/share/bash-completion/completions/ptxvm); `ptxvm completion man` prints the man "
                "page. Both are generated from the command line itself; `cmake --install` installs "
                "them."));
  cmd->add_option("FORMAT", o->format, "bash or man")->required()->check(CLI::IsMember({"bash", "man"}));
  cmd->add_option("-o", o->out, "write to OUT instead of stdout")->type_name("OUT");
  return {cmd, [o, cmd, &ptxvm] {
            std::string text = o->format == "bash" ? bashCompletion(ptxvm) : manPage(ptxvm);
            if (o->out.empty()) {
              std::fwrite(text.data(), 1, text.size(), stdout);
              return std::fflush(stdout) == 0 ? int{kOk} : int{kDiagnostics};
            }
            std::ofstream out(o->out, std::ios::binary);
            out << text;
            return out ? int{kOk} : usageError(*cmd, "cannot write '" + o->out + "'");
          }};
}

} // namespace ptxvm
